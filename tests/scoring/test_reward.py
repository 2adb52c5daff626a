"""Rewards: claims found only in what the agent said, gold calls matched in any order,
the method's trace/state reward with its capped penalties, and the basis product."""

from __future__ import annotations

import json
from typing import Any

import pytest

from envfactory_mcp.scoring.claims import claims_communicated
from envfactory_mcp.scoring.reward import (
    REWARD_VERSION,
    action_match,
    reward_from,
    score_episode,
    trace_state_reward,
)
from envfactory_mcp.tasks.model import (
    Calibration,
    Claim,
    Gold,
    GoldAction,
    InitialState,
    Provenance,
    Task,
    UserScenario,
)


def claim(text: str) -> Claim:
    """A claim as task synthesis makes one: a number's value is the number."""
    try:
        value: Any = float(text.replace(",", ""))
    except ValueError:
        value = text
    return Claim(tool="t", path="p", value=value, text=text)


def said(*texts: str, role: str = "assistant") -> list[dict[str, Any]]:
    return [{"role": role, "content": text} for text in texts]


def call(name: str, arguments: Any, *, raw: bool = False) -> dict[str, Any]:
    """An assistant message with one tool call (``raw``: arguments string as given)."""
    text = arguments if raw else json.dumps(arguments)
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": f"c-{name}", "type": "function", "function": {"name": name, "arguments": text}}
        ],
    }


def gold(name: str, **arguments: Any) -> GoldAction:
    return GoldAction(server="retail", name=name, arguments=arguments, output={})


# ----------------------------------------------------------------------------- claims


@pytest.mark.parametrize(
    ("claim_text", "message"),
    [
        ("1219.8", "Your refund of $1,219.80 is on its way."),
        ("1,219.80", "Refund: 1219.8 dollars"),
        ("219.82", "The total is $219.82."),
        ("219.8", "The total is 219.80"),
        ("219.80", "The total is 219.8"),
        ("54", "You paid $54.00 for it."),
        ("54.00", "You paid 54 dollars."),
        ("cancelled", "Order #W1 is now CANCELLED."),
        ("return requested", "Status: return_requested"),
        ("return_requested", "the status is Return  Requested now"),
        ("1234567.5", "a balance of $1,234,567.50"),
    ],
)
def test_a_claim_counts_after_normalising_the_assistant_message(claim_text: str, message: str):
    found, missing = claims_communicated([claim(claim_text)], said(message))
    assert (found, missing) == ([claim_text], [])


@pytest.mark.parametrize(
    ("claim_text", "message"),
    [
        ("54", "You paid 154 dollars."),
        ("54", "You paid 54.5 dollars."),
        ("82", "The total is 219.82."),
        ("219.8", "The total is 219.85."),
        ("219.82", "The total is 1219.82."),
        ("delivered", "It is undelivered."),
        ("1219.8", "Refund of 1,219.88"),
    ],
)
def test_a_claim_is_not_found_inside_another_number_or_word(claim_text: str, message: str):
    assert claims_communicated([claim(claim_text)], said(message)) == ([], [claim_text])


def test_only_assistant_messages_count_not_the_user_nor_tools():
    claims = [claim("cancelled"), claim("219.82")]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "cancelled 219.82"},
        {"role": "user", "content": "Is it cancelled? I paid 219.82"},
        {"role": "tool", "tool_call_id": "c1", "content": '{"status": "cancelled", "total": 219.82}'},
        {"role": "assistant", "content": "Let me check."},
    ]
    assert claims_communicated(claims, messages) == ([], ["cancelled", "219.82"])
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "It is Cancelled; $219.82."}]})
    assert claims_communicated(claims, messages) == (["cancelled", "219.82"], [])


def test_found_and_missing_keep_the_order_of_the_claims():
    claims = [claim("a1"), claim("pending"), claim("b2"), claim("shipped")]
    assert claims_communicated(claims, said("b2 is pending", "shipped")) == (
        ["pending", "b2", "shipped"],
        ["a1"],
    )


# ----------------------------------------------------------------------------- actions


def test_calls_in_another_order_match_every_gold_action():
    actions = [
        gold("find_user", email="a@x.com"),
        gold("cancel_order", order_id="#W1", reason="no longer needed"),
    ]
    messages = [
        call("cancel_order", {"reason": "no longer needed", "order_id": "#W1"}),
        call("find_user", {"email": "a@x.com"}),
    ]
    assert action_match(actions, messages) == (1.0, [], 0, 0)


def test_each_call_matches_at_most_one_gold_action():
    twice = [gold("add_item", sku="A"), gold("add_item", sku="A")]
    assert action_match(twice, [call("add_item", {"sku": "A"})]) == (0.5, ['add_item({"sku": "A"})'], 0, 0)
    assert action_match(twice, [call("add_item", {"sku": "A"})] * 2) == (1.0, [], 0, 0)
    # a repeated call beyond gold is an extra call
    once = [gold("add_item", sku="A")]
    assert action_match(once, [call("add_item", {"sku": "A"})] * 3) == (1.0, [], 2, 0)


def test_wrong_arguments_leave_the_action_missing_and_count_as_extra():
    actions = [gold("cancel_order", order_id="#W1", reason="ordered by mistake")]
    recall, missing, extra, malformed = action_match(
        actions, [call("cancel_order", {"order_id": "#W1", "reason": "no longer needed"})]
    )
    assert (recall, extra, malformed) == (0.0, 1, 0)
    assert missing == ['cancel_order({"order_id": "#W1", "reason": "ordered by mistake"})']


def test_malformed_arguments_are_counted_and_match_nothing():
    actions = [gold("get_order", order_id="#W1")]
    messages = [
        call("get_order", '{"order_id": "#W1"', raw=True),  # broken JSON
        call("get_order", '["#W1"]', raw=True),  # JSON, but not an object
        call("get_order", "null", raw=True),
    ]
    assert action_match(actions, messages) == (0.0, ['get_order({"order_id": "#W1"})'], 0, 3)
    messages.append(call("get_order", {"order_id": "#W1"}))
    assert action_match(actions, messages) == (1.0, [], 0, 3)


def test_argument_equality_is_json_equality():
    assert action_match([gold("pay", amount=1)], [call("pay", {"amount": 1.0})])[0] == 1.0
    assert action_match([gold("flag", on=1)], [call("flag", {"on": True})])[0] == 0.0
    assert action_match([gold("ids", xs=[1, 2])], [call("ids", {"xs": [2, 1]})])[0] == 0.0
    assert action_match([gold("noargs")], [call("noargs", "", raw=True)]) == (1.0, [], 0, 0)


def test_calls_outside_assistant_messages_and_control_tools_are_ignored():
    actions = [gold("get_order", order_id="#W1")]
    messages = [
        {"role": "user", "content": "x", "tool_calls": call("get_order", {"order_id": "#W1"})["tool_calls"]},
        call("control.reset", {}),
        call("control.state_hash", "{bad", raw=True),
    ]
    assert action_match(actions, messages) == (0.0, ['get_order({"order_id": "#W1"})'], 0, 0)


def test_no_gold_actions_means_full_recall():
    assert action_match([], [call("get_order", {"order_id": "#W1"})]) == (1.0, [], 1, 0)


# ----------------------------------------------------------------------------- trace/state


@pytest.mark.parametrize(
    ("recall", "state", "extra", "malformed", "expected"),
    [
        (1.0, True, 0, 0, 1.0),
        (1.0, False, 0, 0, 0.5),
        (0.0, True, 0, 0, 0.5),
        (0.99, True, 0, 0, 0.5),  # trace is all or nothing
        (0.0, False, 0, 0, 0.0),
        (1.0, True, 3, 0, 0.85),
        (1.0, True, 1, 2, 0.85),
        (1.0, True, 10, 0, 0.5),
        (1.0, True, 40, 0, 0.5),  # extra penalty capped at 0.5
        (1.0, True, 0, 40, 0.5),  # malformed penalty capped at 0.5
        (1.0, True, 40, 40, 0.0),
        (0.0, True, 20, 0, 0.0),  # never below 0
        (1.0, False, 4, 0, 0.3),
    ],
)
def test_trace_state_reward(recall: float, state: bool, extra: int, malformed: int, expected: float):
    assert trace_state_reward(recall, state, extra, malformed) == pytest.approx(expected, abs=1e-9)


def test_trace_state_reward_weight():
    assert trace_state_reward(1.0, False, 0, 0, t=0.8) == pytest.approx(0.8)
    with pytest.raises(ValueError):
        trace_state_reward(1.0, True, 0, 0, t=1.5)


# ----------------------------------------------------------------------------- episode


def make_task(actions: list[GoldAction], claims: list[Claim]) -> Task:
    return Task(
        task_id="retail-topo-s0-0",
        env="retail",
        servers=["retail"],
        kind="write",
        user_scenario=UserScenario(
            persona="p",
            known_info=[],
            unknown_info=[],
            reason_for_call="r",
            instructions_overspecified="o",
            opening_message="hi",
            calibration=Calibration(method="offline"),
        ),
        initial_state=InitialState(state_hash="h0"),
        gold=Gold(actions=actions, final_state_hash="h1", diff={}, claims=claims),
        provenance=Provenance(sampler="topology", seed=0, chain=[], structure="chain", index=0),
    )


TASK = make_task([gold("cancel_order", order_id="#W1")], [claim("cancelled")])
GOOD = [call("cancel_order", {"order_id": "#W1"}), *said("Done: the order is cancelled.")]


def test_default_basis_is_state_times_claims_times_policy():
    parts = score_episode(TASK, GOOD, "h1", "h1")
    assert parts.basis == ["state", "claims", "policy"] and parts.version == REWARD_VERSION
    assert (parts.state_match, parts.claims_found, parts.claims_total, parts.action_recall) == (
        True,
        ["cancelled"],
        1,
        1.0,
    )
    assert parts.trace_state_reward == 1.0
    assert reward_from(parts) == 1.0
    assert reward_from(score_episode(TASK, GOOD, "h2", "h1")) == 0.0  # wrong final state
    assert reward_from(score_episode(TASK, GOOD, None, "h1")) == 0.0  # state could not be read
    silent = score_episode(TASK, GOOD[:1], "h1", "h1")
    assert silent.claims_missing == ["cancelled"] and reward_from(silent) == 0.0


def test_other_bases():
    wrong = [call("cancel_order", {"order_id": "#W2"}), *said("cancelled")]
    assert reward_from(score_episode(TASK, wrong, "h1", "h1", basis=("state", "claims"))) == 1.0
    assert reward_from(score_episode(TASK, wrong, "h1", "h1", basis=("actions",))) == 0.0
    parts = score_episode(TASK, wrong, "h1", "h1", basis=["trace_state"])
    assert (parts.extra_calls, parts.trace_state_reward) == (1, 0.45)
    assert reward_from(parts) == pytest.approx(0.45)
    assert reward_from(score_episode(TASK, GOOD, "h1", "h1", basis=("state", "actions", "claims"))) == 1.0
    with pytest.raises(ValueError, match="basis"):
        score_episode(TASK, GOOD, "h1", "h1", basis=("state", "vibes"))
    with pytest.raises(ValueError, match="basis"):
        score_episode(TASK, GOOD, "h1", "h1", basis=())


# ----------------------------------------------------------------------------- hand-offs and grounding


def transfer_task() -> Task:
    task = make_task([], [])
    return task.model_copy(
        update={"gold": task.gold.model_copy(update={"required_calls": ["transfer_to_human_agents"]})}
    )


@pytest.mark.parametrize("name", ["transfer_to_human_agents", "retail__transfer_to_human_agents"])
def test_a_required_call_is_part_of_the_state(name: str):
    task = transfer_task()
    handed_off = [*said("I want a human", role="user"), call(name, {"summary": "wants a human"})]
    parts = score_episode(task, handed_off, "h1", "h1")
    assert parts.required_calls_missing == [] and reward_from(parts) == 1.0
    # The database is the same either way: only the call shows the hand-off happened.
    kept = score_episode(task, said("I want a human", role="user"), "h1", "h1")
    assert kept.state_match and kept.required_calls_missing == ["transfer_to_human_agents"]
    assert reward_from(kept) == 0.0
    assert kept.trace_state_reward == 0.5  # the state half of the method's reward is lost too
    malformed = score_episode(task, [call(name, "{bad", raw=True)], "h1", "h1")
    assert malformed.required_calls_missing == ["transfer_to_human_agents"]
    other_server = score_episode(task, [call(f"airline__{name.split('__')[-1]}", {})], "h1", "h1")
    assert other_server.required_calls_missing == ["transfer_to_human_agents"]


def test_grounding_is_reported_and_decides_only_in_its_basis_and_policy_decides_by_default():
    from envfactory_mcp.blueprints import load_blueprint

    blueprint = load_blueprint("retail")
    spec = blueprint.build_spec(blueprint.default_seed)
    task = make_task([gold("cancel_pending_order", order_id="#W1")], [claim("cancelled")])
    invented = [
        *said("Hi, cancel my order please", role="user"),
        call("find_user_id_by_email", {"email": "made.up@example.com"}),
        call("cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"}),
        *said("Done: the order is cancelled."),
    ]
    parts = score_episode(task, invented, "h1", "h1", spec=spec)
    assert parts.ungrounded_calls == 2  # the email and the order id: nobody said either
    assert parts.ungrounded_values == [
        'call 0 find_user_id_by_email: email="made.up@example.com"',
        'call 1 cancel_pending_order: order_id="#W1"',
    ]
    assert parts.policy_violations == [
        "call 1 cancel_pending_order: not authenticated",
        "call 1 cancel_pending_order: no confirmation",
    ]
    # The policy part is in the default basis: a write without the user's yes fails it.
    assert reward_from(parts) == 0.0
    assert reward_from(score_episode(task, invented, "h1", "h1", basis=("state", "claims"), spec=spec)) == 1.0
    grounded = score_episode(task, invented, "h1", "h1", basis=("state", "claims", "grounded"), spec=spec)
    assert reward_from(grounded) == 0.0
    # Without a spec nothing is checked under the default basis; "grounded" then checks every value.
    assert score_episode(task, invented, "h1", "h1").ungrounded_calls == 0
    strict = score_episode(task, invented, "h1", "h1", basis=("grounded",))
    assert strict.ungrounded_calls == 2 and strict.policy_violations == []
