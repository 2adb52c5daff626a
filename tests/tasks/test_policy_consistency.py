"""No task's gold contradicts its policy (issue 24): whether a goal ends in a refusal, a
hand-off or an action follows the policy rules and what the policy text says about
out-of-scope requests. Held on every flagship here and on every library environment in
test_policy_consistency_library.py; the reading of the text and the check itself below."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from gold_policy import checked

from envfactory_mcp.blueprints import blueprint_names, handcrafted_names, load_blueprint
from envfactory_mcp.env import Environment
from envfactory_mcp.tasks import phrasings as P
from envfactory_mcp.tasks.compose import GoalDraw, GoalDrawer, _check_branch
from envfactory_mcp.tasks.model import GoalOutcome, GoldAction, Task
from envfactory_mcp.tasks.oracle import GoldAction as Call
from envfactory_mcp.tasks.oracle import Rejected
from envfactory_mcp.tasks.policy_text import asks_for_person, read_policy
from envfactory_mcp.tasks.realise import GoalPlan, OpeningPlan, realise_opening
from envfactory_mcp.tasks.stats import policy_problems

N = 10  # tasks per flagship
HAND_OFF = "transfer_to_human_agents"


@pytest.mark.slow
@pytest.mark.parametrize("name", handcrafted_names())
def test_no_flagship_task_has_a_gold_that_contradicts_its_policy(name: str):
    problems, _ = checked(name, N)
    assert problems == {}


@pytest.mark.slow
def test_the_flagship_tasks_checked_hold_every_kind_of_goal():
    kinds = sum((checked(name, N)[1] for name in handcrafted_names()), Counter())
    assert all(kinds[k] > 0 for k in ("act", "ask", "refuse", "contingent", "transfer")), kinds


# ---------------------------------------------------------------- what the policy text says


def test_a_request_the_policy_says_cannot_be_done_is_never_handed_off():
    refused = {
        "retail": "a new credit card added to my account",  # "you cannot add new ones" (payment methods)
        "airline": "my new travel companion saved on my profile",  # "You cannot add new passengers to a profile"
        "telecom": "the late fee on my bill waived",  # "you cannot waive or refund late fees"
        "banking": "a higher credit limit on my credit card",  # "Credit limits cannot be changed by you."
        "travel": "a flight booked for me to Denver",  # "Do not book flights", "You cannot book or change flights."
    }
    for name, request in refused.items():
        reading = read_policy(load_blueprint(name).build_spec(0))
        assert request in reading.out_of_scope and request not in reading.hand_offs, name
        assert reading.refusal(request), name
        # Every flagship lists what the agent must not promise: a hand-off needs the user's ask.
        assert reading.restricts_promises and reading.hand_offs, name
    kept = read_policy(load_blueprint("retail").build_spec(0))
    assert "compensation for a package that arrived late" in kept.hand_offs


def test_a_policy_that_only_hands_off_what_no_tool_serves_keeps_every_request():
    spec = load_blueprint("barbershop").build_spec(0)  # a library service: out of scope means hand off
    reading = read_policy(spec)
    assert spec.policy_rules.transfer is not None
    assert not reading.restricts_promises and reading.prohibitions == ()
    assert reading.hand_offs == spec.policy_rules.transfer.out_of_scope
    # The same requests under a text that forbids one of them and limits promises.
    policy = spec.policy + "\n- Do not promise anything else. You cannot add new cards to an account.\n"
    strict = read_policy(spec.model_copy(update={"policy": policy}))
    assert strict.restricts_promises
    assert strict.refusal("a new card saved on my account") == "You cannot add new cards to an account."
    assert strict.refusal("a refund for the haircut") is None


def test_every_environment_hands_off_only_what_its_policy_lets_it():
    for name in blueprint_names():
        spec = load_blueprint(name).build_spec(0)
        reading = read_policy(spec)
        drawer = GoalDrawer(spec, random.Random(name))
        assert drawer.hand_offs == [r for r in reading.out_of_scope if reading.refusal(r) is None], name
        for _ in range(100):
            for goal in drawer.draw():
                if goal.kind == "transfer":
                    assert goal.request in reading.hand_offs, (name, goal.request)
                    assert goal.ask == reading.restricts_promises, name


def test_a_hand_off_that_needs_the_users_ask_always_has_it():
    assert all(asks_for_person(p) for p in (*P.OUT_OF_SCOPE_TAIL, *P.HUMAN))
    plans = {
        ask: GoalPlan("transfer", "talk to a human", HAND_OFF, [], request="a discount code", ask=ask)
        for ask in (True, False)
    }
    asked: Counter[bool] = Counter()
    for seed in range(60):
        for ask, goal in plans.items():
            message, _ = realise_opening(
                OpeningPlan("polite and patient", None, [], [goal], False), random.Random(seed)
            )
            assert "a discount code" in message
            asked[ask] += asks_for_person(message)
    assert asked[True] == 60 and 0 < asked[False] < 60  # without the need, only sometimes


def test_a_branch_an_earlier_goal_made_stale_is_not_composed():
    """Paying an overdue invoice lifts the credit hold: "book a pickup if my account is
    active, otherwise tell me where it stands" must then book (logistics, seed 9 had one)."""
    spec = load_blueprint("logistics").build_spec(0)
    rule = next(r for r in spec.policy_rules.refusals if r.tool == "schedule_pickup")
    shown = Call("logistics", rule.shown_by, {"customer_id": "cust_000008"}, {rule.path: "active"})
    told = GoalDraw("contingent", rule.shown_by, rule=rule, taken="otherwise")
    with pytest.raises(Rejected) as caught:
        _check_branch(told, [shown])
    assert caught.value.code == "stale_branch"
    _check_branch(GoalDraw("contingent", rule.tool, rule=rule, taken="then"), [shown])
    held = Call("logistics", rule.shown_by, {"customer_id": "cust_000008"}, {rule.path: "credit_hold"})
    _check_branch(told, [held])
    _check_branch(GoalDraw("refuse", rule.shown_by, rule=rule), [held])
    with pytest.raises(Rejected):
        _check_branch(GoalDraw("refuse", rule.shown_by, rule=rule), [shown])


# ---------------------------------------------------------------- the check finds contradictions


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    return retail_tasks(40, seed=5)


def _with_hand_off(task: Task, request: str | None, opening: str) -> Task:
    """``task`` with a hand-off goal appended (the gold a generator would write for it)."""
    gold = task.gold
    call = GoldAction(
        server=task.env, name=HAND_OFF, arguments={"summary": f"The customer asks for {request}."}, output={}
    )
    goal = GoalOutcome(
        kind="transfer", intent="talk to a human", tool=HAND_OFF, actions=[len(gold.actions)], request=request
    )
    gold = gold.model_copy(
        update={"actions": [*gold.actions, call], "goals": [*gold.goals, goal], "required_calls": [HAND_OFF]}
    )
    scenario = task.user_scenario.model_copy(update={"opening_message": opening})
    return task.model_copy(update={"gold": gold, "user_scenario": scenario}, deep=True)


def _first(tasks: list[Task], kind: str, taken: str | None = None) -> tuple[Task, int]:
    for task in tasks:
        for g, goal in enumerate(task.gold.goals):
            if goal.kind == kind and goal.taken == taken:
                return task.model_copy(deep=True), g
    raise AssertionError(f"no {kind} goal among the tasks")


def test_the_check_finds_a_hand_off_the_policy_does_not_allow(retail_env: Environment, tasks: list[Task]):
    spec = retail_env.spec
    plain = next(t for t in tasks if not policy_problems(t, spec))
    asks = "I'd like compensation for a package that arrived late. If you can't, I'd like to talk to a human."
    assert (
        policy_problems(_with_hand_off(plain, "compensation for a package that arrived late", asks), spec)
        == []
    )

    cannot = _with_hand_off(
        plain, "a new credit card added to my account", "I'd like a new credit card added."
    )
    assert any("the policy refuses 'a new credit card added" in p for p in policy_problems(cannot, spec))
    unasked = _with_hand_off(plain, "compensation for a package that arrived late", "I want compensation.")
    assert any("the user never does" in p for p in policy_problems(unasked, spec))
    undeclared = _with_hand_off(plain, "a pony", "I'd like a pony, or a human who can get me one.")
    assert any("is not declared out of scope" in p for p in policy_problems(undeclared, spec))
    early = _with_hand_off(plain, None, "Get me a human, please.")
    early.gold.actions.append(early.gold.actions[0])
    assert any("the hand-off is not the last action" in p for p in policy_problems(early, spec))
    stray = _with_hand_off(plain, None, "Get me a human, please.")
    stray.gold.goals.pop()
    assert "a hand-off in the gold for no transfer goal" in policy_problems(stray, spec)


def test_the_check_finds_a_refusal_or_a_write_against_the_rules(retail_env: Environment, tasks: list[Task]):
    spec = retail_env.spec
    statuses = {r.reason for r in spec.policy_rules.refusals}
    refused, g = next(
        (t.model_copy(deep=True), g)
        for t in tasks
        for g, goal in enumerate(t.gold.goals)
        if goal.kind == "refuse" and goal.reason in statuses
    )
    rule = next(r for r in spec.policy_rules.refusals if r.reason == refused.gold.goals[g].reason)
    read = refused.gold.actions[refused.gold.goals[g].actions[-1]]
    assert read.name == rule.shown_by
    read.output[rule.path] = rule.allowed[0]  # the state lets the action through: refusing it is wrong
    found = policy_problems(refused, spec)
    assert any(f"refuse goal {g}: order is {rule.allowed[0]!r}, which allows {rule.tool}" in p for p in found)

    then, g = _first(tasks, "contingent", "then")
    goal = then.gold.goals[g]
    flipped = then.model_copy(deep=True)
    flipped.gold.goals[g] = goal.model_copy(update={"taken": "otherwise"})
    assert any(f"contingent goal {g}: took 'otherwise'" in p for p in policy_problems(flipped, spec))
    shown = next(i for i in goal.actions if then.gold.actions[i].name == "get_order_details")
    then.gold.actions[shown].output["status"] = "delivered"  # the write goes on regardless
    found = policy_problems(then, spec)
    assert any("in state 'delivered', which the policy refuses" in p for p in found), found

    unconfirmed, _ = _first(tasks, "act")
    write = next(a for a in unconfirmed.gold.actions if a.confirm)
    write.confirm = False
    assert any("against the policy's confirm list" in p for p in policy_problems(unconfirmed, spec))
