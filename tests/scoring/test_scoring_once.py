"""Scoring reads a record once (issue 32): the tool calls parsed once and shared by every
check, the grounding evidence's JSON pieces read only when a value is not in the texts, the
policy's text checks remembered. Each is held here to the computation it replaced, written
out as it was."""

from __future__ import annotations

import json
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from chat import call, exchange, say, user
from hypothesis import given, settings
from hypothesis import strategies as st

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.scoring import grounding, policy
from envfactory_mcp.scoring.grounding import tool_calls, ungrounded_calls
from envfactory_mcp.scoring.policy import affirms, asks_confirmation, policy_violations
from envfactory_mcp.scoring.reward import _raw_calls, action_match, agent_calls, required_calls_missing
from envfactory_mcp.spec import EnvSpec
from envfactory_mcp.tasks.model import GoldAction

BLUEPRINT = load_blueprint("retail")
SPEC: EnvSpec = BLUEPRINT.build_spec(BLUEPRINT.default_seed)


def _odd_conversation() -> list[dict[str, Any]]:
    """Well-formed, malformed, empty, dict, control and function-less calls."""
    turn = {
        "role": "assistant",
        "content": "Let me look.",
        "tool_calls": [
            {
                "id": "a",
                "type": "function",
                "function": {"name": "get_order_details", "arguments": "not json"},
            },
            {"id": "b", "type": "function", "function": {"name": "control.reset", "arguments": "{}"}},
            {"id": "c", "type": "function"},
            {"id": "d", "type": "function", "function": {"name": "get_user_details", "arguments": ""}},
            {
                "id": "e",
                "type": "function",
                "function": {"name": "get_user_details", "arguments": {"user_id": "u1"}},
            },
            {
                "id": "f",
                "type": "function",
                "function": {"name": "retail__get_order_details", "arguments": "[1]"},
            },
        ],
    }
    return [
        user("Hi, my user id is u1 and my order is #W1."),
        *exchange("get_order_details", {"order_id": "#W1", "status": "pending"}, order_id="#W1"),
        turn,
        *(
            {"role": "tool", "tool_call_id": call_id, "content": out}
            for call_id, out in zip(
                "abcdef",
                ["Error: bad", "{}", "Error: x", "{}", '{"user_id": "u1"}', "Error: bad"],
                strict=True,
            )
        ),
        say("Shall I cancel order #W1?"),
        user("Yes please."),
        *exchange(
            "cancel_pending_order", {"order_id": "#W1", "status": "cancelled"}, order_id="#W1", reason="x"
        ),
        say("Order #W1 is cancelled."),
    ]


def test_the_calls_parsed_once_are_the_calls_each_check_parses_itself():
    messages = _odd_conversation()
    calls = list(tool_calls(messages))
    # agent_calls, as it was: from the raw calls, each parsed.
    assert [(c.name, c.arguments) for c in calls] == [
        (name, grounding.parse_arguments(raw)) for name, raw in _raw_calls(messages)
    ]
    assert [(c.name, c.arguments) for c in calls] == agent_calls(messages)
    gold = [
        GoldAction(server="retail", name="get_order_details", arguments={"order_id": "#W1"}, output={}),
        GoldAction(
            server="retail",
            name="cancel_pending_order",
            arguments={"order_id": "#W1", "reason": "y"},
            output={},
        ),
    ]
    assert action_match(gold, messages, calls) == action_match(gold, messages)
    assert action_match(gold, messages)[3] == 3  # "not json", no function and "[1]"
    task = _task_requiring("get_user_details", "transfer_to_human_agents")
    assert required_calls_missing(task, messages, calls) == required_calls_missing(task, messages)
    assert ungrounded_calls(messages, SPEC, calls) == ungrounded_calls(messages, SPEC)
    assert policy_violations(messages, SPEC, None, calls) == policy_violations(messages, SPEC)


def _task_requiring(*tools: str) -> Any:
    return SimpleNamespace(env="retail", servers=[], gold=SimpleNamespace(required_calls=list(tools)))


# ------------------------------------------------------------------ grounding evidence


class _EagerEvidence:
    """The evidence as it was before its JSON pieces were read lazily: every message's
    text and every piece of a tool's JSON answer normalised as it came."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def add(self, text: str, *, parse_json: bool) -> None:
        pieces = [text]
        if parse_json:
            try:
                grounding._json_pieces(json.loads(text), pieces)
            except ValueError:
                pass
        self.texts.extend(normal for normal in map(grounding._normal, pieces) if normal)

    def has_text(self, value: str) -> bool:
        wanted = grounding._normal(value)
        if not wanted:
            return True
        starts, ends = grounding._word(wanted[0]), grounding._word(wanted[-1])
        return any(grounding._holds(text, wanted, starts, ends) for text in self.texts if wanted in text)

    def has_number(self, value: Decimal) -> bool:
        return value in {n for text in self.texts for n in grounding._numbers(text)}


_LEAF = st.one_of(
    st.text(alphabet='ab1.,"\\ \n\u00e9_#@-', max_size=8),
    st.integers(-5, 2000),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.none(),
)
_JSON = st.recursive(
    _LEAF,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet="ab_1 ", max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def _said(draw: st.DrawFn) -> tuple[str, bool]:
    if draw(st.booleans()):
        value = draw(_JSON)
        return json.dumps(
            value, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 1]))
        ), True
    return draw(st.text(alphabet='ab1.,"\\ \n\u00e9{}:[]', max_size=20)), draw(st.booleans())


@settings(max_examples=400, deadline=None)
@given(
    said=st.lists(_said(), max_size=4),
    values=st.lists(st.text(alphabet='ab1.,"\\ \n\u00e9_#', max_size=8), max_size=4),
    numbers=st.lists(
        st.decimals(allow_nan=False, allow_infinity=False, places=2, min_value=-10, max_value=2000),
        max_size=3,
    ),
)
def test_the_lazy_evidence_answers_as_the_eager_one(
    said: list[tuple[str, bool]], values: list[str], numbers: list[Decimal]
) -> None:
    lazy, eager = grounding._Evidence(), _EagerEvidence()
    for text, parse_json in said:
        lazy.add(text, parse_json=parse_json)
        eager.add(text, parse_json=parse_json)
        for value in values:
            assert lazy.has_text(value) == eager.has_text(value), (said, value)
        for number in numbers:
            assert lazy.has_number(number) == eager.has_number(number), (said, number)
    for value in values:  # in any order of questions
        assert lazy.has_text(value) == eager.has_text(value), (said, value)


def test_a_value_only_a_json_piece_holds_is_grounded():
    # Escaped in the tool's text, plain in its decoded value; 1e3 is 1000 only once decoded.
    messages = [
        user("Hi, please update my order #W1."),
        *exchange(
            "get_order_details", '{"order_id": "#W1", "note": "say \\"hi\\"", "total": 1e3}', order_id="#W1"
        ),
        call("modify_pending_order_address", order_id="#W1", address1='say "hi"', address2="1000", city="x"),
    ]
    found = [(u.path, u.value) for u in ungrounded_calls(messages, SPEC)]
    assert ("address1", 'say "hi"') not in found
    assert ("address2", "1000") not in found
    assert ("city", "x") in found


# ------------------------------------------------------------------ policy's text checks


def test_the_remembered_text_checks_answer_as_the_functions_they_wrap():
    texts = [
        "Shall I go ahead?",
        "What is your email?",
        "Yes, please do.",
        "No, wait.",
        "Please confirm and I'll proceed.",
        "x" * (grounding.CACHED_TEXT_CHARS + 1) + " Shall I go ahead?",
    ]
    for text in texts * 2:
        assert asks_confirmation(text) == asks_confirmation.__wrapped__(text)  # type: ignore[attr-defined]
        assert affirms(text) == affirms.__wrapped__(text)  # type: ignore[attr-defined]
    assert asks_confirmation("Shall I go ahead?") and not asks_confirmation("What is your email?")
    assert policy.affirms("Yes, please do.") and not policy.affirms("No, wait.")
