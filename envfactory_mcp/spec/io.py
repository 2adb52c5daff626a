"""Load and save specs; pydantic errors become ``SpecError`` with the exact location."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from envfactory_mcp.errors import SpecError
from envfactory_mcp.spec.models import EnvSpec
from envfactory_mcp.spec.validate import validate_spec


def parse_spec(data: dict[str, Any]) -> EnvSpec:
    """Validate a plain dict as an ``EnvSpec`` (fields, then cross-references)."""
    try:
        spec = EnvSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _location(data, first["loc"])
        raise SpecError(where, first["msg"]) from None
    return validate_spec(spec)


def load_spec(path: str | Path) -> EnvSpec:
    """Read a ``spec.json`` file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError(str(path), "no such file") from None
    except json.JSONDecodeError as exc:
        raise SpecError(f"{path}:{exc.lineno}:{exc.colno}", f"not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise SpecError(str(path), "the top level must be a JSON object")
    return parse_spec(data)


def dump_spec(spec: EnvSpec) -> str:
    """Deterministic JSON text of a spec (sorted keys, two-space indent, trailing newline)."""
    data = spec.model_dump(mode="json")
    if not data["shared_entities"]:  # only linked services say it; the others keep their bytes
        del data["shared_entities"]
    # Columns compared exactly and with no enum words said (the defaults) keep their bytes too.
    for table in data["tables"]:
        for column in table["columns"]:
            if column["compare"] == "exact":
                del column["compare"]
            if not column["enum_labels"]:
                del column["enum_labels"]
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def spec_json_schema() -> dict[str, Any]:
    """The JSON Schema of the spec format itself (for editors and model prompts)."""
    return EnvSpec.model_json_schema()


def _location(data: Any, loc: tuple[int | str, ...]) -> str:
    """Render a pydantic error location using item names where the item has one."""
    parts: list[str] = []
    node = data
    for key in loc:
        if isinstance(key, int) and isinstance(node, list):
            item = node[key] if key < len(node) else None
            name = item.get("name") if isinstance(item, dict) else None
            if parts:
                parts[-1] += f"[{name if isinstance(name, str) else key}]"
            else:
                parts.append(f"[{key}]")
            node = item
        else:
            parts.append(str(key))
            node = node.get(key) if isinstance(node, dict) else None
    return ".".join(parts) or "<spec>"
