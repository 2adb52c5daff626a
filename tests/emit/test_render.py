"""Rendering is pure and deterministic; writing is atomic; packages never import envfactory_mcp."""

from __future__ import annotations

from pathlib import Path

import pytest

import envfactory_mcp.runtime as runtime_pkg
from envfactory_mcp.emit import read_package, render_package, vendor_tools_source, write_package
from envfactory_mcp.env import Environment
from envfactory_mcp.errors import EmitError


def test_rendering_is_deterministic_and_complete(mini_env: Environment):
    files = render_package(mini_env)
    assert files == render_package(mini_env)
    for required in [
        "pyproject.toml",
        "README.md",
        "tests/test_smoke.py",
        "minibank_mcp/__init__.py",
        "minibank_mcp/__main__.py",
        "minibank_mcp/server.py",
        "minibank_mcp/tools.py",
        "minibank_mcp/data/spec.json",
        "minibank_mcp/data/schema.sql",
        "minibank_mcp/data/seed.sql",
        "minibank_mcp/data/policy.md",
        "minibank_mcp/runtime/__init__.py",
    ]:
        assert required in files, required
    assert '"minibank-mcp" = ' not in files["pyproject.toml"]
    assert 'minibank-mcp = "minibank_mcp.server:main"' in files["pyproject.toml"]
    for snippet in (
        '"mcpServers"',
        '"servers"',
        "claude mcp add minibank -- minibank-mcp",
        "~/.cursor/mcp.json",
    ):
        assert snippet in files["README.md"]


def test_runtime_is_vendored_verbatim(mini_env: Environment):
    files = render_package(mini_env)
    runtime_dir = Path(runtime_pkg.__file__).parent
    for path in runtime_dir.glob("*.py"):
        vendored = files[f"minibank_mcp/runtime/{path.name}"]
        assert vendored.endswith(path.read_text())
    assert not any(
        "envfactory_mcp" in text
        for rel, text in files.items()
        if rel.endswith(".py") and "runtime/" not in rel
    )


def test_no_generated_python_imports_envfactory_mcp(mini_env: Environment):
    for rel, text in render_package(mini_env).items():
        if rel.endswith(".py"):
            assert "import envfactory_mcp" not in text and "from envfactory_mcp" not in text, rel


def test_tools_runtime_import_is_rewritten_and_other_references_refused():
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from envfactory_mcp.runtime import ToolContext\n"
    assert "    from .runtime import ToolContext\n" in vendor_tools_source(source)
    with pytest.raises(EmitError, match="line 1 refers to envfactory_mcp"):
        vendor_tools_source("import envfactory_mcp.spec\n")


def test_write_replaces_the_package_atomically(tmp_path: Path, mini_env: Environment):
    dest = tmp_path / "minibank"
    (dest / "stale").mkdir(parents=True)
    (dest / "stale" / "old.txt").write_text("old")
    files = render_package(mini_env)
    write_package(files, dest)
    assert read_package(dest) == files
    assert sorted(p.name for p in tmp_path.iterdir()) == ["minibank"]  # no staging or backup left behind


def test_a_failed_write_leaves_the_old_package_untouched(tmp_path: Path, mini_env: Environment):
    dest = tmp_path / "minibank"
    files = render_package(mini_env)
    write_package(files, dest)
    with pytest.raises(EmitError, match="outside the package"):
        write_package({"README.md": "new", "../escape.txt": "x"}, dest)
    assert read_package(dest) == files
    assert not (tmp_path / "escape.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["minibank"]
