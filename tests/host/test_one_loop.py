"""One episode loop in the package (issue 28): exactly one function runs a turn, i.e.
loops over an agent's ``act`` and a simulated user's ``reply``; it is the host's, and eval
plays its episodes through the host's rollout instead of a loop of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import envfactory_mcp

PACKAGE = Path(envfactory_mcp.__file__).parent


def _calls_in(node: ast.AST) -> set[str]:
    return {
        n.func.attr for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
    }


def turn_loops() -> list[str]:
    """Every function holding a loop that calls both ``.act(...)`` and ``.reply(...)``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for loop in ast.walk(func):
                if isinstance(loop, ast.While | ast.For | ast.AsyncFor) and {"act", "reply"} <= _calls_in(
                    loop
                ):
                    found.append(f"{path.relative_to(PACKAGE)}::{func.name}")
                    break
    return sorted(set(found))


def test_exactly_one_function_runs_a_turn() -> None:
    assert turn_loops() == ["host/episode.py::_loop"]


def test_eval_plays_through_the_host() -> None:
    eval_dir = PACKAGE / "eval"
    assert not (eval_dir / "runner.py").exists()
    sources = {p.name: p.read_text(encoding="utf-8") for p in eval_dir.glob("*.py")}
    # The eval plays its episodes with the host's rollout and its configuration type.
    assert "from envfactory_mcp.host.rollout import make_user, rollout" in sources["main.py"]
    assert "from envfactory_mcp.host.config import RolloutConfig" in sources["main.py"]
    for name, text in sources.items():
        tree = ast.parse(text)
        acting = {
            n.func.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in ("act", "reply")
        }
        assert not acting, f"eval/{name} drives an agent or user itself: {acting}"
