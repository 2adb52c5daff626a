"""Pick the right importer for a resource file: the one seam the CLI's ``synthesize --resource`` calls."""

from __future__ import annotations

from pathlib import Path

from envfactory_mcp.crud.core import ImportedEnv, ResourceImportError, snake
from envfactory_mcp.synth.openapi import import_openapi
from envfactory_mcp.synth.openapi.documents import read_file
from envfactory_mcp.synth.sqlddl import import_sql


def import_resource(
    path: Path, name: str | None = None, seed: int = 0, *, use_inserts: bool = True
) -> ImportedEnv:
    """An environment from an OpenAPI 3 or Swagger 2.0 document (``.json`` / ``.yaml`` / ``.yml`` with an ``openapi`` or ``swagger`` key;
    relative ``$ref``s to other files resolve against its folder) or SQL DDL (``.sql``). Raises
    ``ResourceImportError`` for any other file. ``use_inserts``: an SQL file's own
    INSERT/COPY rows seed the tables they fill (the rest are generated)."""
    suffix = path.suffix.lower()
    if suffix == ".sql":
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ResourceImportError(str(path), f"not UTF-8 text (byte {exc.start})") from None
        except OSError as exc:
            raise ResourceImportError(str(path), f"cannot read the file: {exc.strerror or exc}") from None
        return import_sql(text, name or snake(path.stem), seed, use_inserts=use_inserts)
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
