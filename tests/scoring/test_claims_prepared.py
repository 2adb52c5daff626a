"""What ``claims_communicated`` makes of the claims alone is kept per claim list and spec
(``claims._prepared``, issue 32): what it gives back must be what working it out afresh
gives, for every task and for claims that differ in any one part (tool, path, the value
or only its type) or are read with another spec."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.scoring import claims as claims_module
from envfactory_mcp.scoring.claims import _communicated, _prepare, _prepared, claims_communicated
from envfactory_mcp.tasks.model import Claim, Task


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    claims_module._prepared_cache.clear()
    claims_module._read_cache.clear()


def test_kept_values_are_the_fresh_ones(
    retail_env: Environment, retail_tasks: Callable[..., list[Task]]
) -> None:
    spec = retail_env.spec
    tasks = [t for t in retail_tasks(40, seed=0) if t.gold.claims]
    assert tasks
    for task in tasks:
        for given in (spec, None):
            first = _prepared(task.gold.claims, given)
            assert first == _prepare(task.gold.claims, given)
            assert _prepared(task.gold.claims, given) is first  # kept, not worked out again


def _variants(claim: Claim, other_tool: str) -> list[Claim]:
    return [
        claim.model_copy(update={"tool": other_tool}),
        claim.model_copy(update={"path": claim.path + "_other"}),
        claim.model_copy(update={"path": "totals.refunded"}),
        claim.model_copy(update={"value": 1}),
        claim.model_copy(update={"value": 1.0}),
        claim.model_copy(update={"value": True}),
        claim.model_copy(update={"value": "1"}),
        claim.model_copy(update={"value": "cancelled"}),
    ]


def test_a_claim_differing_in_any_part_is_not_given_anothers_values(retail_env: Environment) -> None:
    spec = retail_env.spec
    base = Claim(tool="get_order_details", path="status", value="pending", text="pending")
    claims = [base, *_variants(base, "cancel_pending_order")]
    for claim in claims:  # every one kept first, then each asked again: none answered by another
        _prepared([claim], spec)
    for claim in claims:
        assert _prepared([claim], spec) == _prepare([claim], spec), claim
    # The tool matters where only its output's schema makes the value an enum's.
    schema = {"type": "object", "properties": {"status": {"enum": ["On Hold", "Let Go"]}}}
    tools = [
        t.model_copy(update={"output_schema": schema}) if t.name == "get_order_details" else t
        for t in spec.tools
    ]
    odd = spec.model_copy(update={"tools": tools})
    on_hold = Claim(tool="get_order_details", path="status", value="On Hold", text="On Hold")
    elsewhere = on_hold.model_copy(update={"tool": "get_user_details"})
    assert _prepare([on_hold], odd) != _prepare([elsewhere], odd)
    _prepared([on_hold], odd)
    assert _prepared([elsewhere], odd) == _prepare([elsewhere], odd)
    # Another spec (a copy: equal, not the same object) is worked out with its own words.
    other = spec.model_copy(deep=True)
    assert _prepared([base], other) is not _prepared([base], spec)
    assert _prepared([base], other) == _prepare([base], other)


def test_claims_told_alike_with_and_without_the_cache(
    retail_env: Environment, retail_tasks: Callable[..., list[Task]]
) -> None:
    spec = retail_env.spec
    for task in retail_tasks(40, seed=0):
        if not task.gold.claims:
            continue
        reply = " and ".join(str(c.value) for c in task.gold.claims[::2])
        messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": f"Done: {reply}."}]
        claims_module._prepared_cache.clear()
        fresh = claims_communicated(task.gold.claims, messages, spec)
        assert claims_communicated(task.gold.claims, messages, spec) == fresh  # from the cache


# ---------------------------------------------------------------- answers kept by what is read


def _call(call_id: str, name: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def _conversation() -> list[dict[str, Any]]:
    """A read shows the order as cancelled, the agent says so before the write, the write
    answers: the claim (the write's outcome) counts only after the write's own result."""
    output = '{"order_id": "#W1", "status": "cancelled"}'
    return [
        {"role": "user", "content": "Please cancel order #W1."},
        {"role": "assistant", "content": "", "tool_calls": [_call("r1", "get_order_details")]},
        {"role": "tool", "tool_call_id": "r1", "content": output},
        {"role": "assistant", "content": "Order #W1 is cancelled."},
        {"role": "assistant", "content": "", "tool_calls": [_call("w1", "cancel_pending_order")]},
        {"role": "tool", "tool_call_id": "w1", "content": output},
        {"role": "user", "content": "Thanks."},
    ]


CANCELLED = Claim(tool="cancel_pending_order", path="status", value="cancelled", text="cancelled")


def _conversations() -> list[tuple[str, list[Claim], list[dict[str, Any]]]]:
    base = _conversation()

    def changed(index: int, **update: Any) -> list[dict[str, Any]]:
        messages = [dict(m) for m in base]
        messages[index] = {**messages[index], **update}
        return messages

    told_after = [*base, {"role": "assistant", "content": "Done: it is cancelled now."}]
    return [
        ("as is", [CANCELLED], base),
        ("closing user words", [CANCELLED], [*base, {"role": "user", "content": "###STOP###"}]),
        ("a user's words between", [CANCELLED], [*base[:3], {"role": "user", "content": "ok"}, *base[3:]]),
        ("told after the write", [CANCELLED], told_after),
        (
            "a later reply's text",
            [CANCELLED],
            [*base, {"role": "assistant", "content": "Done: it is pending now."}],
        ),
        ("the reply's text", [CANCELLED], changed(3, content="Order #W1 is pending.")),
        ("a reply that is a user's", [CANCELLED], changed(3, role="user")),
        ("the write's call id", [CANCELLED], changed(5, tool_call_id="other")),
        ("the write's name only", [CANCELLED], changed(5, tool_call_id="other", name="cancel_pending_order")),
        ("the called tool's name", [CANCELLED], changed(4, tool_calls=[_call("w1", "get_user_details")])),
        ("the output's text", [CANCELLED], changed(2, content='{"order_id": "#W1", "status": "pending"}')),
        ("the output is the agent's", [CANCELLED], changed(5, role="assistant")),
        # The write's call named by a user's message still names its result; without it
        # the result is nameless (so messages carrying calls are read whatever their role).
        ("the write's call in a user's message", [CANCELLED], changed(4, role="user")),
        ("the write's call left out", [CANCELLED], [*base[:4], *base[5:]]),
        ("the claim's text", [CANCELLED.model_copy(update={"text": "order cancelled"})], base),
        ("the claim's tool", [CANCELLED.model_copy(update={"tool": "get_order_details"})], base),
    ]


def test_kept_answers_are_the_fresh_ones_for_whatever_changes(retail_env: Environment) -> None:
    spec = retail_env.spec
    fresh = {name: _communicated(claims, messages, spec) for name, claims, messages in _conversations()}
    # What each part read changes: each variant that differs from the plain conversation
    # in a part that is read answers otherwise (so a key without that part would be wrong).
    assert fresh["as is"] == ([], ["cancelled"])
    assert fresh["told after the write"] == (["cancelled"], [])
    assert fresh["a later reply's text"] == ([], ["cancelled"])
    assert fresh["the write's call id"] == fresh["the claim's tool"] == (["cancelled"], [])
    assert fresh["the write's name only"] == ([], ["cancelled"])
    assert fresh["the called tool's name"] == (["cancelled"], [])
    assert fresh["the claim's text"] == ([], ["order cancelled"])
    assert fresh["the output is the agent's"] == (["cancelled"], [])
    assert fresh["the write's call in a user's message"] == ([], ["cancelled"])
    assert fresh["the write's call left out"] == (["cancelled"], [])
    for _ in range(2):  # every variant kept, then each asked again: none answered by another's
        for name, claims, messages in _conversations():
            assert claims_communicated(claims, messages, spec) == fresh[name], name
    assert 0 < len(claims_module._read_cache) < len(_conversations())  # a user's words are not in the key
    # The spec's words (pending is a rival of cancelled): another spec object is another key.
    words = [
        *_conversation(),
        {"role": "assistant", "content": "Order #W1 is cancelled, or possibly pending."},
    ]
    with_spec, without = _communicated([CANCELLED], words, spec), _communicated([CANCELLED], words, None)
    assert with_spec != without
    assert claims_communicated([CANCELLED], words, spec) == with_spec
    assert claims_communicated([CANCELLED], words, None) == without


def test_the_score_reuses_the_users_last_check(retail_env: Environment) -> None:
    spec = retail_env.spec
    messages = [*_conversation(), {"role": "assistant", "content": "It is cancelled now."}]
    first = claims_communicated([CANCELLED], messages, spec)
    closing = [*messages, {"role": "user", "content": "Great. ###STOP###"}]
    kept = claims_module._read_cache.copy()
    assert (
        claims_communicated([CANCELLED], closing, spec) == first == _communicated([CANCELLED], closing, spec)
    )
    assert claims_module._read_cache == kept  # answered from what was kept


def test_the_kept_answers_are_bounded(retail_env: Environment, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(claims_module, "_READ_MAX", 3)
    monkeypatch.setattr(claims_module, "_PREPARED_MAX", 2)
    for name, claims, messages in _conversations():
        assert claims_communicated(claims, messages, retail_env.spec) == _communicated(
            claims, messages, retail_env.spec
        )
        assert len(claims_module._read_cache) <= 3 and len(claims_module._prepared_cache) <= 2, name
