"""The same cross-server episodes with the servers' packages served over MCP (in memory,
and over stdio as subprocesses): per-server states are reset and read through each
server's control plane, and the scores match the in-process runner's."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from envfactory_mcp.emit.render import render_package
from envfactory_mcp.emit.write import write_package
from envfactory_mcp.env import Environment
from envfactory_mcp.eval.agents import CoinFlipAgent
from envfactory_mcp.eval.compose import EvalTask
from envfactory_mcp.eval.runner import EvalResult, run_eval
from envfactory_mcp.sim.agents import OracleAgent
from envfactory_mcp.sim.users import ScriptedUser


@pytest.fixture(scope="module")
def packages(linked: list[Environment], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("servers")
    for env in linked:
        write_package(render_package(env), folder / env.spec.name)
    return folder


def play(
    tasks: list[EvalTask], envs: list[Environment], agent: type, transport: str, folder: Path
) -> list[EvalResult]:
    async def go() -> list[EvalResult]:
        return await run_eval(
            tasks,
            envs,
            lambda t: agent(),
            lambda t: ScriptedUser(),
            transport=transport,  # type: ignore[arg-type]
            servers_dir=folder,
            allow_unverified=True,  # written here, not verified: the demo code is the repository's
            trust=True,
        )

    return anyio.run(go)


def _scores(results: list[EvalResult]) -> list[tuple[str, float, bool, dict[str, bool], str | None]]:
    return [(r.task_id, r.coverage, r.passed, r.server_states, r.failure_class) for r in results]


@pytest.mark.parametrize("transport", ["memory", pytest.param("stdio", marks=pytest.mark.slow)])
def test_over_mcp_as_in_process(
    eval_tasks: list[EvalTask], linked: list[Environment], packages: Path, transport: str
) -> None:
    tasks = eval_tasks[:6]
    oracle = play(tasks, linked, OracleAgent, transport, packages)
    assert all(r.passed and r.termination == "user_stop" for r in oracle), [
        r.termination_detail for r in oracle
    ]
    flip = play(tasks, linked, CoinFlipAgent, transport, packages)
    assert _scores(flip) == _scores(play(tasks, linked, CoinFlipAgent, "local", packages))


def test_a_server_that_drifted_is_a_harness_failure(
    eval_tasks: list[EvalTask], linked: list[Environment], packages: Path
) -> None:
    task = eval_tasks[0]
    drifted = task.model_copy(update={"initial_hashes": {**task.initial_hashes, "crm": "0" * 64}})
    (result,) = play([drifted], linked, OracleAgent, "memory", packages)
    assert result.termination == "infrastructure_error" and "crm" in result.termination_detail
    assert result.excluded and not result.passed and result.failure_class is None
