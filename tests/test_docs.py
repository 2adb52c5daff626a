"""The documentation names only what exists.

Every source path README.md and ARCHITECTURE.md name in backticks (a ``.py`` or ``.tmpl``
file, or a folder ending in ``/``) must be a file or folder of this repository: given in
full from the repository root (``envfactory_mcp/host/rollout.py``, ``bench/...``), from
the package (``host/rollout.py``), or inside a folder of the package or the tests
(``sql/script.py`` in ``synth/``, ``kit.py``); names inside an emitted package
(``tools.py``, ``server.py``) are looked up in a committed one. Placeholders (``<env>``,
``~``) and run outputs (``.json``, ``.jsonl``) are not source paths.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from paths import ROOT, SERVERS_DIR

DOCS = ("README.md", "ARCHITECTURE.md")
_PATH = re.compile(r"`([A-Za-z0-9_.][A-Za-z0-9_./-]*(?:\.py|\.tmpl|/))`")


def named_paths(text: str) -> list[str]:
    """Source paths named in backticks in ``text`` (placeholders and URLs left out)."""
    return [p for p in dict.fromkeys(_PATH.findall(text)) if "://" not in p and not p.startswith(".")]


@cache
def _bases() -> tuple[Path, ...]:
    package = ROOT / "envfactory_mcp"
    folders = [
        d
        for top in (package, ROOT / "tests")
        for d in top.rglob("*")
        if d.is_dir() and d.name != "__pycache__"
    ]
    emitted = SERVERS_DIR / "retail" / "retail_mcp"
    return (ROOT, package, ROOT / "tests", emitted, *sorted(folders))


def missing(path: str) -> bool:
    return not any((base / path).exists() for base in _bases())


@pytest.mark.parametrize("doc", DOCS)
def test_every_path_the_docs_name_exists(doc: str) -> None:
    named = named_paths((ROOT / doc).read_text(encoding="utf-8"))
    assert len(named) > 20, "the pattern no longer finds the paths the docs name"
    absent = [p for p in named if missing(p)]
    assert not absent, f"{doc} names paths that do not exist: {', '.join(absent)}"


def test_every_path_the_design_notes_name_exists() -> None:
    """The decisions beside the code (``envfactory_mcp/**/DESIGN.md``, indexed at the end
    of ARCHITECTURE.md) name only what exists, and the index names every one of them."""
    notes = sorted((ROOT / "envfactory_mcp").rglob("DESIGN.md"))
    assert len(notes) >= 10
    index = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8").partition("## Where the decisions live")[2]
    for note in notes:
        folder = note.parent.relative_to(ROOT / "envfactory_mcp").as_posix()
        assert (f"`{folder}/DESIGN.md`" if folder != "." else "`envfactory_mcp/DESIGN.md`") in index, note
        named = named_paths(note.read_text(encoding="utf-8"))
        absent = [p for p in named if missing(p)]
        assert not absent, f"{note.relative_to(ROOT)} names paths that do not exist: {', '.join(absent)}"


def test_the_check_tells_a_stale_path_from_a_live_one() -> None:
    text = (
        "see `envfactory_mcp/cli.py`, `host/rollout.py`, `sql/script.py`, `runs/<run>/` and `https://x/y.py`"
    )
    assert named_paths(text) == ["envfactory_mcp/cli.py", "host/rollout.py", "sql/script.py"]
    assert [p for p in named_paths(text) if missing(p)] == ["envfactory_mcp/cli.py"]


def _documented_tree() -> dict[str, str]:
    """``{class: parent}`` as the tree in ``errors.py``'s docstring draws it."""
    from envfactory_mcp import errors

    parents: dict[str, str] = {}
    stack: list[str] = []
    for line in (errors.__doc__ or "").splitlines():
        match = re.match(r"^    ((?:│   |    )*)(?:├── |└── )?([A-Z]\w+)\b", line)
        if not match:
            continue
        depth = len(match.group(1)) // 4 + (1 if ("├── " in line or "└── " in line) else 0)
        stack[depth:] = [match.group(2)]
        if depth:
            parents[match.group(2)] = stack[depth - 1]
    return parents


def _real_tree() -> dict[str, str]:
    """``{class: parent}`` of every ``EnvFactoryError`` subclass defined in the package's
    source (read, not imported: importing every module would load every optional extra)."""
    import ast

    bases: dict[str, str] = {}
    for path in (ROOT / "envfactory_mcp").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.bases:
                base = node.bases[0]
                name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
                bases[node.name] = name
    tree: dict[str, str] = {}
    todo = ["EnvFactoryError"]
    while todo:
        parent = todo.pop()
        for cls, cls_base in bases.items():
            if cls_base == parent:
                tree[cls] = parent
                todo.append(cls)
    return tree


def test_the_error_tree_in_errors_py_is_the_real_one() -> None:
    documented, real = _documented_tree(), _real_tree()
    assert len(real) > 15
    assert documented == real, (
        f"errors.py's tree lacks {sorted(real.keys() - documented.keys())}, "
        f"names classes that do not exist {sorted(documented.keys() - real.keys())}, "
        f"or draws the wrong parent for {sorted(k for k in real.keys() & documented.keys() if real[k] != documented[k])}"
    )


# ------------------------------------------------------------------------------ CI


def _readme_test_command() -> str:
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert block, "README.md has a quick start"
    commands = [line for line in block.group(1).splitlines() if "pytest" in line]
    assert len(commands) == 1, commands
    return commands[0].strip()


def test_ci_runs_the_readme_test_command_and_it_names_failures() -> None:
    command = _readme_test_command()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert any(line.startswith(f"{command} ||") for line in ci), command
    assert "-rfE" in command.split()  # the failures and errors are named at the end of the run
    assert "export ENVFACTORY_REQUIRE_SYSTEM_DEPS=1" in ci
    assert ". .ci/system-deps" in ci


def _system_deps(tmp_path: Path, tools: tuple[str, ...], node_packages: bool) -> tuple[int, str]:
    """Run .ci/system-deps (checking only) in an empty folder on a PATH holding just
    ``tools`` (stub executables) and ``uname``; its status and what it said."""
    import os
    import shutil
    import subprocess

    bin_dir, work = tmp_path / "bin", tmp_path / "work"
    bin_dir.mkdir(parents=True)
    work.mkdir()
    for tool in tools:
        (bin_dir / tool).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / tool).chmod(0o755)
    (bin_dir / "uname").symlink_to(shutil.which("uname") or "/bin/uname")
    if node_packages:
        for stub in (".ci/node/node_modules/.bin/conformance", ".ci/node22/node_modules/.bin/mcp-inspector"):
            (work / stub).parent.mkdir(parents=True)
            (work / stub).write_text("#!/bin/sh\n")
            (work / stub).chmod(0o755)
    script = f'status=0; . "{ROOT / ".ci" / "system-deps"}"; echo "status=$status"'
    done = subprocess.run(
        [shutil.which("bash") or "/bin/bash", "-c", script],
        cwd=work,
        env={"PATH": str(bin_dir), "ENVFACTORY_CI_NO_INSTALL": "1", "HOME": os.environ.get("HOME", "/")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().rpartition("status=")[2]), done.stderr


def test_ci_fails_when_bubblewrap_chromium_or_node_is_missing(tmp_path: Path) -> None:
    status, said = _system_deps(tmp_path / "none", (), node_packages=False)
    assert status == 1
    for what in ("bubblewrap", "Chromium", "Node and npm", "MCP conformance suite", "MCP Inspector"):
        assert f"ERROR: {what}" in said or f"ERROR: the {what}" in said, (what, said)
    everything = ("bwrap", "chromium", "node", "npm")
    for absent in everything:
        status, said = _system_deps(
            tmp_path / absent, tuple(t for t in everything if t != absent), node_packages=True
        )
        assert status == 1 and said.count("ERROR") == 1, (absent, said)
    status, said = _system_deps(tmp_path / "all", everything, node_packages=True)
    assert (status, said) == (0, "")
