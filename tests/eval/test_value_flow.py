"""Value-flow chains (issue 28): a value that is not an id (a date, an amount, an
address ...), read on one server, that a tool of another server needs, built from the
servers' specs over triples of library servers that share no entity. The prompt never
says the value, a tool or a field; the oracle scores 1, an agent that skips the read and
guesses scores 0; and each namespaced call is judged by its own server's policy."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from envfactory_mcp.catalog import load_environment
from envfactory_mcp.env import Environment
from envfactory_mcp.eval.claims import kind_of
from envfactory_mcp.eval.compose import (
    MAX_CLAIMS,
    MIN_CLAIMS,
    EvalTask,
    values_at,
    write_eval_set,
)
from envfactory_mcp.eval.main import EvalConfig, declared_shared, evaluate
from envfactory_mcp.eval.report import EvalResult
from envfactory_mcp.eval.sets import ComposedSet, compose_eval_set
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR
from envfactory_mcp.sim.agents import OracleAgent
from envfactory_mcp.tasks.naturalness import names_tool_or_field, spec_vocabulary

TRIPLES = [
    ("citycab_business_account", "coastline_car_rental", "cyclecity_bike_share"),
    ("dog_walking", "hair_salon", "ski_rental"),
    ("banking", "clinic", "airline"),
]
_LINK = re.compile(r"^(\w+?)__(\w+)\.([\w.\[\]]+) -> (\w+?)__(\w+)\.(\w+)$")


def _envs(names: tuple[str, ...]) -> list[Environment]:
    return [load_environment(name, DEFAULT_SERVERS_DIR).env for name in names]


@pytest.fixture(scope="module")
def built() -> dict[tuple[str, ...], tuple[list[Environment], ComposedSet]]:
    out: dict[tuple[str, ...], tuple[list[Environment], ComposedSet]] = {}
    for names in TRIPLES:
        envs = _envs(names)
        out[names] = (envs, compose_eval_set(envs, 9, seed=0, shared_entities=declared_shared(envs)))
    return out


def _flow_of(task: EvalTask) -> tuple[str, str, str, str, str, str]:
    found = _LINK.match(task.flows[0])
    assert found is not None, task.flows
    a, source, path, b, target, param = found.groups()
    return a, source, path, b, target, param


@pytest.mark.parametrize("names", TRIPLES, ids=lambda n: "+".join(n))
def test_value_flows_over_servers_that_share_no_entity(
    names: tuple[str, ...], built: dict[tuple[str, ...], tuple[list[Environment], ComposedSet]]
) -> None:
    envs, composed = built[names]
    assert declared_shared(envs) == []  # no id means the same thing on two of them
    flows = [t for t in composed.tasks if t.kind == "flow"]
    assert len(flows) >= 2, composed.statement()
    assert f"{len(flows)} value-flow chains" in composed.statement()
    assert composed.counts == {
        k: sum(1 for t in composed.tasks if t.kind == k) for k in ("single", "chain", "flow")
    }
    vocabulary: tuple[set[str], set[str]] = (set(), set())
    for env in envs:
        tools, fields = spec_vocabulary(env.spec)
        vocabulary[0].update(tools)
        vocabulary[1].update(fields)
    for task in flows:
        a, source, path, b, target, param = _flow_of(task)
        assert a != b
        actions = task.task.gold.actions
        read = next(x for x in actions if x.server == a and x.name == source)
        used = next(x for x in actions if x.server == b and x.name == target)
        assert actions.index(read) < actions.index(used)
        value = values_at(read.output, path)[0][0]
        assert used.arguments[param] == value and kind_of(path, value) != "id"
        assert MIN_CLAIMS <= len(task.claims) <= MAX_CLAIMS and task.claims[0].value == value
        message = task.task.user_scenario.opening_message
        # The user does not have it at hand: the value is nowhere in the message.
        assert not re.search(rf"(?<![\w.]){re.escape(str(value))}(?![\w]|\.\d)", message), message
        assert not names_tool_or_field(message, *vocabulary), message
        assert not re.search(r"\bthen\b", message, re.IGNORECASE), message


class _NoConfirmation(OracleAgent):
    """The oracle, but it never asks before a write of the second server of the chain."""

    name = "no-confirmation"

    def start(self, task: Any, tools: list[dict[str, Any]], system_prompt: str) -> None:
        actions = [
            a.model_copy(update={"confirm": False}) if a.server != task.env else a for a in task.gold.actions
        ]
        super().start(
            task.model_copy(update={"gold": task.gold.model_copy(update={"actions": actions})}),
            tools,
            system_prompt,
        )


def _play(tasks: list[EvalTask], agent: str, out: Path, factory: Any = None) -> list[EvalResult]:
    write_eval_set(tasks, out.with_suffix(".jsonl"))
    config = EvalConfig(envs=[], tasks_path=str(out.with_suffix(".jsonl")), agent=agent, concurrency=2)
    if factory is None:
        _, results = anyio.run(lambda: evaluate(config, [], out))
    else:
        _, results = anyio.run(lambda: evaluate(config, [], out, agent_factory=factory))
    return results


def _records(out: Path) -> dict[str, dict[str, Any]]:
    lines = (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["task_id"]: r for r in map(json.loads, lines)}


def test_the_oracle_scores_one_and_skipping_the_read_zero(
    built: dict[tuple[str, ...], tuple[list[Environment], ComposedSet]], tmp_path: Path
) -> None:
    flows = [t for names in TRIPLES[:2] for t in built[names][1].tasks if t.kind == "flow"]
    oracle = _play(flows, "oracle", tmp_path / "oracle")
    assert len(oracle) == len(flows) and all(r.coverage == 1.0 and r.state_ok for r in oracle)
    assert all(r["reward"] == 1.0 for r in _records(tmp_path / "oracle").values())
    skipped = _play(flows, "skip-read", tmp_path / "skip")
    records = _records(tmp_path / "skip")
    assert len(records) == len(flows)
    for task in flows:
        record = records[task.task_id]
        # It guessed the value: the other server's state or answer is not the gold's, and
        # it could not tell the value it never read.
        assert record["reward"] == 0.0, task.task_id
        assert record["reward_parts"]["policy_violations"] == []  # the miss is the value, not the policy
        assert str(task.claims[0].value) in record["reward_parts"]["claims_missing"]
    assert all(r.coverage < 1.0 for r in skipped)


def test_a_multi_server_episode_is_judged_by_the_second_servers_policy(
    built: dict[tuple[str, ...], tuple[list[Environment], ComposedSet]], tmp_path: Path
) -> None:
    """The writes of a value-flow chain are on its second server: made without asking,
    they break that server's policy (the first server's spec knows none of its tools)."""
    flows = [t for t in built[TRIPLES[0]][1].tasks if t.kind == "flow"]
    confirmed = [t for t in flows if any(a.confirm and a.server != t.task.env for a in t.task.gold.actions)]
    assert confirmed
    _play(confirmed, "oracle", tmp_path / "rude", factory=lambda config, task: _NoConfirmation())
    records = _records(tmp_path / "rude")
    for task in confirmed:
        record = records[task.task_id]
        write = next(a for a in task.task.gold.actions if a.confirm and a.server != task.task.env)
        assert record["reward_parts"]["state_match"] is True
        assert any(
            v.endswith(f"{write.server}__{write.name}: no confirmation")
            for v in record["reward_parts"]["policy_violations"]
        ), record["reward_parts"]["policy_violations"]
        assert record["reward"] == 0.0
