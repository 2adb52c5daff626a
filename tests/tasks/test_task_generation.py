"""Task synthesis on retail: reproducible, replayable, valid, and leak-free after calibration."""

from __future__ import annotations

import json

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.tasks.calibrate import check_message, leak_rules_for
from envfactory_mcp.tasks.generate import GenerationReport, generate_tasks
from envfactory_mcp.tasks.model import Task, read_tasks, write_tasks
from envfactory_mcp.tasks.oracle import values_at
from envfactory_mcp.tasks.stats import (
    distinct_n,
    distinct_n_budget,
    impossible_addresses,
    outcome_key,
    policy_problems,
    task_stats,
)

pytestmark = pytest.mark.slow
N, SEED = 500, 11


@pytest.fixture(scope="module")
def generated(retail_env: Environment) -> tuple[list[Task], GenerationReport]:
    return generate_tasks(retail_env, N, seed=SEED)


def test_tasks_are_byte_identical_across_runs(retail_env: Environment, generated, tmp_path):
    tasks, _ = generated
    assert len(tasks) == N
    # A shorter run from the same seed gives exactly the first tasks of the longer one.
    again, _ = generate_tasks(retail_env, 60, seed=SEED)
    write_tasks(tasks[:60], tmp_path / "a.jsonl")
    write_tasks(again, tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert read_tasks(tmp_path / "a.jsonl") == tasks[:60]
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
                    assert json.dumps(v) in known or json.dumps(v) in seen_outputs, (
                        task.task_id,
                        action.name,
                        name,
                        v,
                    )
            seen_outputs += json.dumps(action.output)


def test_offline_calibration_leaks_nothing_and_keeps_every_needed_fact(retail_env: Environment, generated):
    tasks, _ = generated
    for task in tasks:
        scenario = task.user_scenario
        rules = leak_rules_for(
            retail_env.spec, scenario.known_info, [(a.name, a.arguments) for a in task.gold.actions]
        )
        assert check_message(scenario.opening_message, scenario.known_info, rules) == [], task.task_id
        assert check_message(scenario.instructions_overspecified, scenario.known_info, rules) != []
        for tool in rules.tool_names:
            assert tool not in scenario.opening_message


def test_claims_come_from_declared_paths_of_gold_outputs(retail_env: Environment, generated):
    tasks, _ = generated
    declared = {t.name: t.claims for t in retail_env.spec.tools}
    rules = retail_env.spec.policy_rules.rules
    for task in tasks:
        for claim in task.gold.claims:
            # Or, for a refusal by a declared business rule, the column that rule reads
            # (the order's date a return window counts from): declared by the rule.
            goal = task.gold.goals[claim.goal]
            read = {
                r.column for r in rules if r.reason == goal.reason and r.kind in ("window", "eligibility")
            }
            assert claim.path in [*declared[claim.tool], *read]
            assert any(
                claim.value in values_at(a.output, claim.path)
                for a in task.gold.actions
                if a.name == claim.tool
            )


def test_stats_and_the_random_walk_baseline(retail_env: Environment, generated):
    tasks, report = generated
    figures = task_stats(tasks, report, retail_env.spec)
    assert figures["tasks"] == N and figures["leakage_after_calibration"] == 0.0
    assert figures["leakage_before_calibration"] == 1.0 and figures["missing_facts_after_calibration"] == 0.0
    assert figures["distinct_chains"] >= 50 and figures["distinct_tool_bigrams"] >= 30
    assert sum(figures["chain_length"].values()) == N and figures["goals_per_task"].get(2, 0) > 0
    baseline, baseline_report = generate_tasks(retail_env, 60, seed=SEED, sampler="random_walk")
    walk = task_stats(baseline, baseline_report, retail_env.spec)
    assert walk["valid_task_rate"] < figures["valid_task_rate"] / 2
    assert baseline_report.rejected["missing_param"] > 0
    # The baseline's chains are single goals: narrower than the composed tasks.
    assert walk["two_or_more_writes"] < figures["two_or_more_writes"] and walk["refusal_or_transfer"] == 0


def test_distinct_n_counts_unique_ngrams():
    assert distinct_n(["a b c", "a b d"], 2) == 3 / 4
    assert distinct_n([], 2) == 0.0


# ---------------------------------------------------------------- what issue 10 holds tasks to


def test_every_task_can_be_finished_by_an_agent_that_follows_the_policy(retail_env: Environment, generated):
    tasks, _ = generated
    rules = retail_env.spec.policy_rules
    assert rules.authentication is not None
    for task in tasks:
        assert policy_problems(task, retail_env.spec) == [], task.task_id
        names = [a.name for a in task.gold.actions]
        if any(rules.needs_authentication(n) for n in names):
            # Authenticated first, once, with values the user knows and will give when asked.
            assert (
                names[0] in rules.authentication.tools
                and sum(n in rules.authentication.tools for n in names) == 1
            )
            identity = [f for f in task.user_scenario.known_info if f.kind == "identity"]
            assert {f.key for f in identity} == set(task.gold.actions[0].arguments)
            assert all(not f.in_opening for f in identity)
        for action in task.gold.actions:
            assert action.confirm == (action.name in rules.confirm)


def test_a_restricted_write_is_preceded_by_the_read_that_shows_the_state(retail_env: Environment, generated):
    tasks, _ = generated
    for task in tasks:
        for i, action in enumerate(task.gold.actions):
            for rule in retail_env.spec.policy_rules.rules_for(action.name):
                checks = [
                    a
                    for a in task.gold.actions[:i]
                    if a.name == rule.shown_by and a.arguments.get("order_id") == action.arguments["order_id"]
                ]
                assert checks and checks[-1].output[rule.path] in rule.allowed, (task.task_id, action.name)


def test_refusals_contingent_goals_and_transfers_follow_the_state_of_the_seed(
    retail_env: Environment, generated
):
    tasks, _ = generated
    spec = retail_env.spec
    intents = {t.name: t.intent for t in spec.tools}
    kinds = {k: 0 for k in ("refuse", "contingent", "transfer", "ask", "act")}
    for task in tasks:
        for goal in task.gold.goals:
            kinds[goal.kind] += 1
            own = [task.gold.actions[i] for i in goal.actions]
            business = next((r for r in spec.policy_rules.rules if r.reason == goal.reason), None)
            if goal.kind == "refuse" and business is not None:
                # Refused by a declared business rule (issue 31): the write asked for never
                # happens, the goal ends in its own lookup (tests/tasks/test_rule_refusals).
                kinds["refuse by a business rule"] = kinds.get("refuse by a business rule", 0) + 1
                assert intents[business.tool] == goal.requested
                assert business.tool not in [a.name for a in own] and goal.tool in [a.name for a in own]
            elif goal.kind == "refuse":
                # The restricted write never happens; the state that forbids it is what the agent says.
                rule = next(r for r in spec.policy_rules.refusals if intents[r.tool] == goal.requested)
                assert rule.tool not in [a.name for a in own] and goal.reason == rule.reason
                state = [a for a in own if a.name == goal.tool][-1].output[rule.path]
                assert state not in rule.allowed
                assert any(
                    c.value == state and c.goal == task.gold.goals.index(goal) for c in task.gold.claims
                )
            elif goal.kind == "contingent":
                rule = next(r for r in spec.policy_rules.refusals if intents[r.tool] == goal.requested)
                did = [a.name for a in own]
                assert (rule.tool in did) == (goal.taken == "then"), task.task_id
                assert goal.condition and goal.otherwise
            elif goal.kind == "transfer":
                assert goal.request and task.gold.actions[goal.actions[-1]].name == "transfer_to_human_agents"
                assert task.gold.required_calls == ["transfer_to_human_agents"]
    assert all(count > 0 for count in kinds.values()), kinds


def test_the_distribution_is_wide_and_nothing_repeats(retail_env: Environment, generated):
    tasks, report = generated
    figures = task_stats(tasks, report, retail_env.spec)
    assert figures["policy_consistent"] == 1.0
    assert figures["two_or_more_writes"] >= 0.35
    assert figures["mean_gold_actions"] >= 4.5
    assert figures["refusal_or_transfer"] >= 0.10
    assert figures["contingent_or_withheld"] >= 0.25
    assert figures["duplicate_gold_outcomes"] == 0.0 and len({outcome_key(t) for t in tasks}) == N
    assert figures["tools_in_no_gold"] == []
    assert figures["distinct_2_at_2000_words"] >= 0.6


def test_every_address_in_a_task_exists(generated):
    tasks, _ = generated
    addressed = 0
    for task in tasks:
        assert impossible_addresses(task) == [], task.task_id
        addressed += any("city" in a.arguments for a in task.gold.actions)
    assert addressed > N // 10


def test_held_back_details_are_not_in_the_opening_message(generated):
    tasks, _ = generated
    held = [f for t in tasks for f in t.user_scenario.known_info if not f.in_opening and f.kind != "identity"]
    assert held
    for task in tasks:
        message = task.user_scenario.opening_message.casefold()
        said = {
            f.text for f in task.user_scenario.known_info if f.in_opening
        }  # another goal's may read the same
        groups: dict[tuple[int, str], list[str]] = {}
        for fact in task.user_scenario.known_info:
            if not fact.in_opening and fact.kind == "detail" and fact.text and fact.text not in said:
                groups.setdefault((fact.goal, fact.key.rsplit(".", 1)[0]), []).append(fact.text.casefold())
        for key, texts in groups.items():  # a word may recur ("196 Madison Way"), the whole detail may not
            assert not all(text in message for text in texts), (task.task_id, key)


def test_distinct_n_at_a_budget_takes_whole_texts_until_the_budget():
    texts = ["a b c d", "e f g h", "a b c d"]
    assert distinct_n_budget(texts, 2, budget=4, seed=0) == 1.0  # one text: 3 bigrams, all distinct
    assert distinct_n_budget(texts, 2, budget=100, seed=0) == distinct_n(texts, 2)


def test_distinct_n_at_a_budget_is_the_mean_over_random_orders():
    texts = [f"w{i} x y z w{i + 1}" for i in range(12)] + ["x y z x y z x y z"] * 6
    singles = [distinct_n_budget(texts, 2, budget=10, seed=k, shuffles=1) for k in range(5)]
    assert len(set(singles)) > 1  # which texts one order takes moves the figure
    assert distinct_n_budget(texts, 2, budget=10, seed=0, shuffles=5) == pytest.approx(sum(singles) / 5)
