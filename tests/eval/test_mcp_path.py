"""The same cross-server episodes over stdio (each package a subprocess) as in memory: the
host resets and reads every offered server through its control plane, and the scores
match; a server that drifted from the set is a harness failure."""

from __future__ import annotations

from typing import Any

import pytest

from envfactory_mcp.eval.agents import CoinFlipAgent
from envfactory_mcp.eval.compose import EvalTask
from envfactory_mcp.eval.report import EvalResult
from envfactory_mcp.sim.agents import OracleAgent


def _scores(results: list[EvalResult]) -> list[tuple[str, float, bool, dict[str, bool], str | None]]:
    return [(r.task_id, r.coverage, r.passed, r.server_states, r.failure_class) for r in results]


@pytest.mark.slow
def test_over_stdio_as_in_memory(eval_tasks: list[EvalTask], play: Any) -> None:
    tasks = eval_tasks[:6]
    oracle = play(tasks, OracleAgent, "stdio")
    assert all(r.passed and r.termination == "user_stop" for r in oracle), [
        r.termination_detail for r in oracle
    ]
    assert _scores(play(tasks, CoinFlipAgent, "stdio")) == _scores(play(tasks, CoinFlipAgent, "memory"))


def test_a_server_that_drifted_is_a_harness_failure(eval_tasks: list[EvalTask], play: Any) -> None:
    task = eval_tasks[0]
    inner = task.task.model_copy(
        update={"initial_state": task.task.initial_state.model_copy(update={"state_hash": "0" * 64})}
    )
    (result,) = play([task.model_copy(update={"task": inner})], OracleAgent)
    assert result.termination == "infrastructure_error" and "crm" in result.termination_detail
    assert result.excluded and not result.passed and result.failure_class is None
