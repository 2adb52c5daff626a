"""Pick the right importer for a resource file: the one seam the CLI's ``synthesize --resource`` calls."""

from __future__ import annotations

from pathlib import Path

import yaml  # type: ignore[import-untyped]

from envfactory_mcp.synth.crud import ImportedEnv, ResourceImportError, snake
from envfactory_mcp.synth.openapi import import_openapi
from envfactory_mcp.synth.sqlddl import import_sql


def import_resource(path: Path, name: str | None = None, seed: int = 0) -> ImportedEnv:
    """An environment from an OpenAPI document (``.json`` / ``.yaml`` / ``.yml`` with an ``openapi`` key)
    or SQL DDL (``.sql``). Raises ``ResourceImportError`` for any other file."""
    suffix = path.suffix.lower()
    if suffix == ".sql":
        return import_sql(path.read_text(encoding="utf-8"), name or snake(path.stem), seed)
    if suffix in (".json", ".yaml", ".yml"):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(document, dict) and "openapi" in document:
            return import_openapi(document, name, seed)
        raise ResourceImportError(str(path), "not an OpenAPI 3 document (no top-level 'openapi' key)")
    raise ResourceImportError(
        str(path), f"unknown resource type {suffix or '(no suffix)'!r}: use .json, .yaml, .yml or .sql"
    )
