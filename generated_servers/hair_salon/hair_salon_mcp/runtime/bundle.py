# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""What a server serves: an environment's spec, tool code, schema and seed.

Apart from ``server.py`` (which re-exports ``Bundle``) so that code that only builds
environments (``envfactory_mcp.env``, task generation) imports no MCP stack.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .isolation import JailedTools, load_tools
from .limits import IsolationLimits


@dataclass(frozen=True)
class Bundle:
    """Everything a server needs: the spec (as plain JSON data), tool code, schema and seed."""

    spec: Mapping[str, Any]
    tools_module: ModuleType | JailedTools  # JailedTools: the functions run in jailed workers
    schema_sql: str
    seed_sql: str

    @classmethod
    def from_directory(cls, data_dir: Path, tools_module: ModuleType | JailedTools) -> Bundle:
        return cls(
            spec=json.loads((data_dir / "spec.json").read_text(encoding="utf-8")),
            tools_module=tools_module,
            schema_sql=(data_dir / "schema.sql").read_text(encoding="utf-8"),
            seed_sql=(data_dir / "seed.sql").read_text(encoding="utf-8"),
        )

    @classmethod
    def from_package(
        cls, package_dir: Path, *, jailed: bool, limits: IsolationLimits | None = None
    ) -> Bundle:
        """The bundle of the package folder ``<root>/<name>_mcp``: its data files, and its
        ``tools.py`` in jailed workers (or, ``jailed=False``, for trusted code only, in
        this process). Nothing else of the package runs: this runtime serves it."""
        data = package_dir / "data"
        spec = json.loads((data / "spec.json").read_text(encoding="utf-8"))
        names = [str(t.get("name")) for t in spec.get("tools", []) if isinstance(t, dict)]
        tools = load_tools(package_dir / "tools.py", names, jailed=jailed, limits=limits or IsolationLimits())
        return cls.from_directory(data, tools)
