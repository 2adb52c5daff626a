"""Task synthesis on retail: reproducible, replayable, valid, and leak-free after calibration."""

from __future__ import annotations

import json
from typing import Any

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.tasks.calibrate import check_message, leak_rules_for
from envfactory_mcp.tasks.generate import GenerationReport, generate_tasks
from envfactory_mcp.tasks.model import Task, read_tasks, write_tasks
from envfactory_mcp.tasks.stats import distinct_n, task_stats

pytestmark = pytest.mark.slow
N, SEED = 500, 11


@pytest.fixture(scope="module")
def generated(retail_env: Environment) -> tuple[list[Task], GenerationReport]:
    return generate_tasks(retail_env, N, seed=SEED)


def test_five_hundred_tasks_are_byte_identical_across_runs(retail_env: Environment, generated, tmp_path):
    tasks, _ = generated
    assert len(tasks) == N
    again, _ = generate_tasks(retail_env, N, seed=SEED)
    write_tasks(tasks, tmp_path / "a.jsonl")
    write_tasks(again, tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert read_tasks(tmp_path / "a.jsonl") == tasks
    other, _ = generate_tasks(retail_env, 20, seed=SEED + 1)
    assert [t.to_line() for t in other] != [t.to_line() for t in tasks[:20]]


def test_gold_actions_replay_to_the_gold_state_on_a_fresh_state(retail_env: Environment, generated):
    tasks, _ = generated
    toolbox = retail_env.toolbox()
    for task in tasks:
        session = retail_env.new_session()
        assert session.hash() == task.initial_state.state_hash
        for action in task.gold.actions:
            outcome = toolbox.call(session.db, action.name, action.arguments)
            assert outcome.ok, (task.task_id, action.name, outcome.error)
            assert outcome.output == action.output
        assert session.hash() == task.gold.final_state_hash, task.task_id
        session.close()


def test_no_write_task_is_satisfied_by_its_initial_state(generated):
    tasks, _ = generated
    writes = [t for t in tasks if t.kind == "write"]
    assert len(writes) > N // 2
    for task in writes:
        assert task.gold.final_state_hash != task.initial_state.state_hash and task.gold.diff
    for task in tasks:
        if task.kind == "read":  # nothing changes, so something must be told
            assert task.gold.final_state_hash == task.initial_state.state_hash and task.gold.claims


def test_every_id_the_user_does_not_know_was_returned_by_an_earlier_step(retail_env: Environment, generated):
    tasks, _ = generated
    entity_params = {(t.name, n) for t in retail_env.spec.tools for n, p in t.params.items() if p.entity}
    for task in tasks:
        known = {json.dumps(f.value) for f in task.user_scenario.known_info}
        seen_outputs = ""
        for action in task.gold.actions:
            for name, value in action.arguments.items():
                if (action.name, name) not in entity_params:
                    continue
                for v in value if isinstance(value, list) else [value]:
                    assert json.dumps(v) in known or json.dumps(v) in seen_outputs, (task.task_id, action.name, name, v)
            seen_outputs += json.dumps(action.output)


def test_offline_calibration_leaks_nothing_and_keeps_every_needed_fact(retail_env: Environment, generated):
    tasks, _ = generated
    for task in tasks:
        scenario = task.user_scenario
        rules = leak_rules_for(retail_env.spec, scenario.known_info, [(a.name, a.arguments) for a in task.gold.actions])
        assert check_message(scenario.opening_message, scenario.known_info, rules) == [], task.task_id
        assert check_message(scenario.instructions_overspecified, scenario.known_info, rules) != []
        for tool in rules.tool_names:
            assert tool not in scenario.opening_message


def test_claims_come_from_declared_paths_of_gold_outputs(retail_env: Environment, generated):
    tasks, _ = generated
    declared = {t.name: t.claims for t in retail_env.spec.tools}
    for task in tasks:
        for claim in task.gold.claims:
            assert claim.path in declared[claim.tool]
            assert any(_at(a.output, claim.path) == claim.value for a in task.gold.actions if a.name == claim.tool)


def test_stats_and_the_random_walk_baseline(retail_env: Environment, generated):
    tasks, report = generated
    figures = task_stats(tasks, report, retail_env.spec)
    assert figures["tasks"] == N and figures["leakage_after_calibration"] == 0.0
    assert figures["leakage_before_calibration"] == 1.0 and figures["missing_facts_after_calibration"] == 0.0
    assert figures["distinct_chains"] >= 50 and figures["distinct_tool_bigrams"] >= 30
    assert sum(figures["chain_length"].values()) == N and figures["goals_per_task"].get(2, 0) > 0
    baseline, baseline_report = generate_tasks(retail_env, 100, seed=SEED, sampler="random_walk")
    walk = task_stats(baseline, baseline_report, retail_env.spec)
    topology = task_stats(tasks[:100], report, retail_env.spec)
    assert walk["valid_task_rate"] < topology["valid_task_rate"] / 2
    assert baseline_report.rejected["missing_param"] > 0


def test_distinct_n_counts_unique_ngrams():
    assert distinct_n(["a b c", "a b d"], 2) == 3 / 4
    assert distinct_n([], 2) == 0.0


def _at(output: Any, path: str) -> Any:
    for part in path.split("."):
        output = output[part]
    return output
