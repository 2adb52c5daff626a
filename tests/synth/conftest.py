"""Imported documents served as a client runs them: their package over stdio (issue 27:
each semantic defect is tested through a real MCP client, not an in-process server)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import StdioServerParameters

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import assemble_env
from envfactory_mcp.layout import package_name
from envfactory_mcp.synth.resource import import_resource


@pytest.fixture
def stdio(tmp_path: Path) -> Callable[[Path], StdioServerParameters]:
    """``stdio(document)``: the document imported, its package written under ``tmp_path``,
    and how to run that package's server over stdio (``python -m <package>``)."""

    def serve(document: Path) -> StdioServerParameters:
        imported = import_resource(document)
        env = assemble_env(imported.spec, imported.tools_source, imported.rows, load_code=True)
        package = write_package(render_package(env), tmp_path / imported.spec.name)
        return StdioServerParameters(
            command=sys.executable,
            args=["-m", package_name(imported.spec.name)],
            env={"PYTHONPATH": str(package)},
        )

    return serve
