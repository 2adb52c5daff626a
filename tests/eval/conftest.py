"""Fixtures for the eval tests: the linked demo servers, their packages, and tasks over
them, built once; ``play`` runs tasks through ``eval.main.evaluate`` (the host)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from envfactory_mcp.emit.render import render_package
from envfactory_mcp.emit.write import write_package
from envfactory_mcp.env import Environment
from envfactory_mcp.eval.compose import EvalTask, LinkedComposer, write_eval_set
from envfactory_mcp.eval.demo_envs import SHARED_ENTITIES, linked_envs
from envfactory_mcp.eval.main import EvalConfig, evaluate
from envfactory_mcp.eval.report import EvalResult


@pytest.fixture(scope="session")
def linked() -> list[Environment]:
    """crm, billing, shipping (linked by customer and invoice ids) and one distractor."""
    return linked_envs(4)


@pytest.fixture(scope="session")
def eval_tasks(linked: list[Environment]) -> list[EvalTask]:
    return LinkedComposer(linked, seed=3, shared_entities=SHARED_ENTITIES).compose(16)


@pytest.fixture(scope="session")
def packages(linked: list[Environment], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo servers as packages (written here, not verified: the demo code is the
    repository's, served with allow_unverified and trust)."""
    folder = tmp_path_factory.mktemp("servers")
    for env in linked:
        write_package(render_package(env), folder / env.spec.name)
    return folder


Play = Callable[..., list[EvalResult]]


@pytest.fixture
def play(packages: Path, tmp_path: Path) -> Play:
    """``play(tasks, agent_factory, transport="memory")``: the tasks as a fixed eval set,
    played through ``evaluate`` into a fresh run folder."""
    count = 0

    def run(tasks: list[EvalTask], agent: Callable[[], Any], transport: str = "memory") -> list[EvalResult]:
        nonlocal count
        count += 1
        out = tmp_path / f"run{count}"
        write_eval_set(tasks, tmp_path / f"set{count}.jsonl")
        config = EvalConfig(
            envs=[],
            tasks_path=str(tmp_path / f"set{count}.jsonl"),
            transport=transport,
            servers_dir=str(packages),
            concurrency=4,
        )
        _, results = anyio.run(lambda: evaluate(config, [], out, None, True, True, lambda c, t: agent()))
        return results

    return run
