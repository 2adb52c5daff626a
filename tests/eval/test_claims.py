"""Claims: atomic claims scored by kind with normalisation, the reference split, the judge's reply."""

from __future__ import annotations

import anyio
import pytest

from envfactory_mcp.eval.claims import (
    ClaimJudge,
    claim_of,
    kind_of,
    matches,
    parse_verdict,
    score_claims,
    split_reference,
)
from envfactory_mcp.llm import LLMResponse, TokenCounts


@pytest.mark.parametrize(
    ("path", "value", "kind"),
    [
        ("totals.refunded", 1219.8, "money"),
        ("amount", 12, "money"),
        ("count", 3, "number"),
        ("eta", "2026-01-25", "date"),
        ("created_at", "2026-01-25T10:00:00Z", "date"),
        ("invoice_id", "INV-2003", "id"),
        ("order", "#W0012345", "id"),
        ("name", "Ada Lovelace", "name"),
        ("status", "in_transit", "status"),
        ("paid", True, "status"),
        ("note", "the parcel was left with a neighbour at the back door", "text"),
    ],
)
def test_kinds(path: str, value: object, kind: str) -> None:
    assert kind_of(path, value) == kind


@pytest.mark.parametrize(
    ("path", "value", "answer", "found"),
    [
        ("amount", 1219.8, "You were charged $1,219.80 in total.", True),
        ("amount", 1219.8, "The amount is 1219.8.", True),
        ("amount", 1219.8, "The amount is 1219.81.", False),
        ("amount", 1219.8, "The amount is 21219.80.", False),
        ("amount", 54, "It costs $54.00.", True),
        ("count", 3, "You have 3 orders.", True),
        ("count", 3, "You have 30 orders.", False),
        ("eta", "2026-01-25", "It arrives on January 25, 2026.", True),
        ("eta", "2026-01-25", "It arrives on Jan 25th, 2026.", True),
        ("eta", "2026-01-25", "It arrives on 25 January 2026.", True),
        ("eta", "2026-01-25", "ETA: 1/25/2026", True),
        ("eta", "2026-01-25", "ETA: 2026-01-25", True),
        ("eta", "2026-01-25", "It arrives on January 26, 2026.", False),
        ("invoice_id", "INV-2003", "Invoice inv 2003 is paid.", True),
        ("invoice_id", "INV-2003", "Invoice INV2003 is paid.", True),
        ("invoice_id", "INV-2003", "Invoice INV-20031 is paid.", False),
        ("order_id", "#W0012345", "Order W0012345 is on its way.", True),
        ("name", "Ada Lovelace", "I found Lovelace, Ada.", True),
        ("name", "Ada Lovelace", "I found Ada.", False),
        ("status", "in_transit", "It is in transit.", True),
        ("status", "held", "It is now held.", True),
        ("status", "held", "It was withheld.", False),
        ("paid", True, "paid: true", True),
    ],
)
def test_deterministic_matching(path: str, value: object, answer: str, found: bool) -> None:
    assert matches(claim_of("c0", path, value), answer) is found


def test_split_reference_into_atomic_claims() -> None:
    reference = (
        "The invoice INV-2003 is paid; the amount was $120.50. The carrier is UPS and the ETA is Jan 5, 2026."
    )
    assert split_reference(reference) == [
        "The invoice INV-2003 is paid",
        "the amount was $120.50",
        "The carrier is UPS",
        "the ETA is Jan 5, 2026",
    ]
    assert split_reference("- one\n- two 2") == ["one", "two 2"]


def test_parse_verdict() -> None:
    assert parse_verdict('{"verdict": "fulfilled", "reason": "stated"}') == (1.0, "stated", "judge")
    assert parse_verdict('Sure: {"verdict": "partially_fulfilled", "reason": "close"}')[:2] == (0.5, "close")
    assert parse_verdict('{"verdict": "not_fulfilled", "reason": "absent"}')[0] == 0.0
    score, reason, method = parse_verdict("I think yes")
    assert (score, method) == (0.0, "judge_error") and "unreadable" in reason


class _FakeClient:
    model = "fake"

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.prompts: list[str] = []

    async def complete(self, messages, tools=None, temperature=None, max_tokens=None) -> LLMResponse:
        self.prompts.append(messages[-1]["content"])
        return LLMResponse(content=self.replies.pop(0), usage=TokenCounts(10, 5), cost_usd=0.001)


def test_coverage_with_and_without_a_judge() -> None:
    claims = [
        claim_of("c0", "amount", 99.5),
        claim_of("c1", "carrier", "UPS"),
        claim_of("c2", "eta", "2026-01-05"),
    ]
    messages = [
        {"role": "user", "content": "What about my parcel? amount 99.5, UPS, 2026-01-05"},
        {"role": "assistant", "content": "It costs $99.50 and ships with a brown truck company next week."},
    ]
    alone = anyio.run(score_claims, claims, messages)
    assert [s.score for s in alone.scores] == [1.0, 0.0, 0.0] and alone.coverage == pytest.approx(1 / 3)
    client = _FakeClient(
        [
            '{"verdict": "partially_fulfilled", "reason": "brown truck hints at UPS"}',
            '{"verdict": "not_fulfilled", "reason": "no date"}',
        ]
    )
    judged = anyio.run(score_claims, claims, messages, ClaimJudge(client))
    assert [s.score for s in judged.scores] == [1.0, 0.5, 0.0]
    assert [s.method for s in judged.scores] == ["deterministic", "judge", "judge"]
    assert judged.scores[1].reason == "brown truck hints at UPS"
    assert judged.coverage == pytest.approx(0.5)
    assert (judged.judge_prompt_tokens, judged.judge_completion_tokens) == (20, 10)
    assert judged.judge_cost_usd == pytest.approx(0.002)
    assert "Claim: carrier: UPS" in client.prompts[0] and "brown truck" in client.prompts[0]
    # Only the agent's words count: the user's message held every value.
    assert anyio.run(score_claims, claims, messages[:1]).coverage == 0.0
    assert anyio.run(score_claims, [], messages).coverage == 1.0
