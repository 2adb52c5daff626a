"""Pick the right importer for a resource file: the one seam the CLI's ``synthesize --resource`` calls."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from envfactory_mcp.crud.model import ImportedEnv, ResourceImportError, snake
from envfactory_mcp.synth.openapi import import_openapi
from envfactory_mcp.synth.openapi.documents import read_file
from envfactory_mcp.synth.sqlddl import import_sql

MAX_SQL_FILES = 200  # in one folder read as one schema


def import_resource(
    path: Path | Sequence[Path], name: str | None = None, seed: int = 0, *, use_inserts: bool = True
) -> ImportedEnv:
    """An environment from an OpenAPI 3 or Swagger 2.0 document (``.json`` / ``.yaml`` /
    ``.yml`` with an ``openapi`` or ``swagger`` key; relative ``$ref``s to other files resolve
    against its folder) or SQL (``.sql``). Several SQL files are one schema: a folder (its
    ``*.sql`` files, in name order) or a list of files (in the order given), for schemas
    shipped as tables, keys and data in separate files. Raises ``ResourceImportError`` for
    anything else. ``use_inserts``: an SQL file's own INSERT/COPY rows seed the tables they
    fill (the rest are generated)."""
    if not isinstance(path, Path):
        paths = list(path)
        if len(paths) == 1:
            return import_resource(paths[0], name, seed, use_inserts=use_inserts)
        if not paths:
            raise ResourceImportError("resource", "no file given")
        odd = next((p for p in paths if p.suffix.lower() != ".sql"), None)
        if odd is not None:
            raise ResourceImportError(str(odd), "several files are read as one schema only when all are .sql")
        return _sql(paths, name or snake(paths[0].stem), seed, use_inserts, str(paths[0].parent))
    if path.is_dir():
        files = sorted(p for p in path.glob("*.sql") if p.is_file())
        if not files:
            raise ResourceImportError(
                str(path), "a folder is read as one SQL schema, and it has no .sql file"
            )
        if len(files) > MAX_SQL_FILES:
            raise ResourceImportError(
                str(path), f"{len(files)} .sql files: at most {MAX_SQL_FILES} in one schema"
            )
        return _sql(files, name or snake(path.name), seed, use_inserts, str(path))
    suffix = path.suffix.lower()
    if suffix == ".sql":
        return _sql([path], name or snake(path.stem), seed, use_inserts, str(path))
    if suffix in (".json", ".yaml", ".yml"):
        document = read_file(path, str(path))
        if isinstance(document, dict) and ("openapi" in document or "swagger" in document):
            return import_openapi(document, name, seed, path=path)
        if isinstance(document, dict) and "swaggerVersion" in document:
            raise ResourceImportError(
                str(path),
                f"a Swagger {document['swaggerVersion']} resource listing: only OpenAPI 3 and Swagger 2.0 are read",
            )
        raise ResourceImportError(
            str(path), "not an OpenAPI document (no top-level 'openapi' or 'swagger' key)"
        )
    raise ResourceImportError(
        str(path), f"unknown resource type {suffix or '(no suffix)'!r}: use .json, .yaml, .yml or .sql"
    )


def _sql(paths: list[Path], name: str, seed: int, use_inserts: bool, where: str) -> ImportedEnv:
    files = []
    for path in paths:
        try:
            files.append((path.name, path.read_text(encoding="utf-8")))
        except UnicodeDecodeError as exc:
            raise ResourceImportError(str(path), f"not UTF-8 text (byte {exc.start})") from None
        except OSError as exc:
            raise ResourceImportError(str(path), f"cannot read the file: {exc.strerror or exc}") from None
    if len(files) == 1:
        return import_sql(files[0][1], name, seed, use_inserts=use_inserts)
    try:
        return import_sql(files, name, seed, use_inserts=use_inserts)
    except ResourceImportError as exc:
        raise ResourceImportError(where, exc.message) from None
