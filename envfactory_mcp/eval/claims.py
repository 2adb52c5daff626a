"""Claims scoring, MCP-Atlas style: the reference answer as atomic claims, each scored.

A claim is one fact the agent's answer must contain (``amount: 1219.80``). It is scored
deterministically where its kind allows (money and numbers by value, dates in any
common written form, ids ignoring case and separators, names by their words, statuses
and short text as whole tokens after normalisation) and, when that finds nothing and a
judge is given, by a model through ``LLMClient`` (fulfilled 1, partially 0.5, not 0,
its reason kept). Coverage is the mean score; a task passes at coverage >= 0.75
(``PASS_AT``) and the looser 0.5 bar is reported too (``PASS_LOOSE``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from envfactory_mcp.llm import LLMClient, LLMError
from envfactory_mcp.scoring import meaning, said
from envfactory_mcp.scoring.claims import told

PASS_AT = 0.75
PASS_LOOSE = 0.5
ClaimKind = Literal["money", "number", "date", "id", "name", "status", "text"]
Method = Literal["deterministic", "judge", "judge_error"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AtomicClaim(_Model):
    """One fact of the reference answer: ``text`` is how the reference says it."""

    id: str
    text: str  # "amount: 1219.8"
    value: Any  # the atomic value the answer must carry
    kind: ClaimKind
    server: str = ""
    tool: str = ""
    path: str = ""


class ClaimScore(_Model):
    claim_id: str
    text: str
    score: float  # 1, 0.5 (judge only) or 0
    method: Method
    reason: str = ""


class ClaimsResult(_Model):
    scores: list[ClaimScore] = Field(default_factory=list)
    coverage: float = 1.0
    judge_prompt_tokens: int = 0
    judge_completion_tokens: int = 0
    judge_cost_usd: float | None = None


# ----------------------------------------------------------------------------- kinds

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$")
_MONEY_WORDS = ("amount", "price", "total", "balance", "fee", "cost", "refund", "paid", "charge", "fare")
_ID_SHAPE = re.compile(r"^#?[A-Za-z]*[-_]?\d[\w-]*$")


def kind_of(path: str, value: Any) -> ClaimKind:
    """The claim's kind, from its value and the last part of its path."""
    leaf = path.rsplit(".", 1)[-1].lower()
    if isinstance(value, bool):
        return "status"
    if isinstance(value, int | float):
        return "money" if any(w in leaf for w in _MONEY_WORDS) else "number"
    text = str(value)
    if _DATE.match(text):
        return "date"
    if leaf.endswith("id") or (_ID_SHAPE.match(text) and any(c.isdigit() for c in text)):
        return "id"
    if leaf in ("name", "full_name") or leaf.endswith("_name"):
        return "name"
    if len(text.split()) <= 3:
        return "status"
    return "text"


def claim_of(claim_id: str, path: str, value: Any, server: str = "", tool: str = "") -> AtomicClaim:
    label = path.rsplit(".", 1)[-1].replace("[]", "").replace("_", " ")
    return AtomicClaim(
        id=claim_id,
        text=f"{label}: {_show(value)}",
        value=value,
        kind=kind_of(path, value),
        server=server,
        tool=tool,
        path=path,
    )


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}" if round(value, 2) == value and value != int(value) else f"{value:g}"
    return str(value)


def found_by_reward(gold_texts: list[str], found_texts: list[str]) -> list[bool]:
    """For each of a task's claims (their ``Claim.text``, in order), whether the reward's
    claim checker found it (``RewardParts.claims_found``; texts may repeat)."""
    left = list(found_texts)
    flags = []
    for text in gold_texts:
        flags.append(text in left)
        if text in left:
            left.remove(text)
    return flags


def split_reference(answer: str) -> list[str]:
    """A free-text reference answer as atomic statements: one per sentence, clause
    (``;``) or list item, with ``and``-joined facts split when both halves hold a value."""
    parts: list[str] = []
    for chunk in re.split(r"(?<=[.!?])\s+|;\s*|\n+\s*(?:[-*]|\d+[.)])?\s*", answer):
        chunk = re.sub(r"^(?:[-*]|\d+[.)])\s+", "", chunk.strip()).strip(" .;")
        if not chunk:
            continue
        halves = re.split(r",?\s+and\s+", chunk)
        if len(halves) > 1 and all(re.search(r"\d|[A-Z]", h) for h in halves):
            parts.extend(h.strip() for h in halves if h.strip())
        else:
            parts.append(chunk)
    return parts


# ----------------------------------------------------------------------------- matching


def matches(claim: AtomicClaim, text: str) -> bool:
    """Whether ``text`` states the claim's value, by meaning (``scoring/meaning.py``: any
    format, spelling or synonym; negated and hedged mentions are not statements)."""
    value = claim.value
    if value is None or value == "":
        return False
    gold = meaning.value_of(value, claim.path or claim.id)
    if gold.kind in ("money", "count") and claim.kind in ("money", "number"):
        gold = dataclasses.replace(gold, kind="money" if claim.kind == "money" else "count")
    return said.mentions(gold, text) > 0


def answer_text(messages: list[dict[str, Any]]) -> str:
    """What the agent told the user: the text of every assistant message, in order, with
    pasted tool output left out (``scoring.claims.told``)."""
    return "\n".join(reply.text for reply in told(messages))


# ----------------------------------------------------------------------------- judge

JUDGE_SYSTEM = (
    "You grade one claim against an assistant's answer to a user. Decide whether the answer"
    " states the claim: fulfilled (stated, same value), partially_fulfilled (stated in part,"
    " or approximately), or not_fulfilled (absent or contradicted). Reply with JSON only:"
    ' {"verdict": "fulfilled" | "partially_fulfilled" | "not_fulfilled", "reason": "<one sentence>"}'
)
VERDICTS = {"fulfilled": 1.0, "partially_fulfilled": 0.5, "partial": 0.5, "not_fulfilled": 0.0}


class ClaimJudge:
    """A model that grades claims the deterministic check did not find."""

    def __init__(self, client: LLMClient, max_tokens: int | None = 300) -> None:
        self.client = client
        self.max_tokens = max_tokens
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost_usd: float | None = None

    async def grade(self, claim: AtomicClaim, answer: str) -> tuple[float, str, Method]:
        messages = [
            {"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": f"Claim: {claim.text}\n\nAnswer:\n{answer or '(no answer)'}"},
        ]
        try:
            response = await self.client.complete(messages, temperature=0.0, max_tokens=self.max_tokens)
        except LLMError as exc:
            return 0.0, f"judge failed: {exc}"[:500], "judge_error"
        self.prompt_tokens += response.usage.prompt_tokens
        self.completion_tokens += response.usage.completion_tokens
        if response.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + response.cost_usd
        return parse_verdict(response.content or "")


def parse_verdict(reply: str) -> tuple[float, str, Method]:
    """``(score, reason, method)`` of a judge's reply (JSON, possibly inside other text)."""
    found = re.search(r"\{.*\}", reply, re.DOTALL)
    try:
        data = json.loads(found.group(0)) if found else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or str(data.get("verdict", "")).lower() not in VERDICTS:
        return 0.0, f"unreadable judge reply: {reply[:300]}", "judge_error"
    return VERDICTS[str(data["verdict"]).lower()], str(data.get("reason", ""))[:1000], "judge"


async def score_claims(
    claims: list[AtomicClaim],
    messages: list[dict[str, Any]],
    judge: ClaimJudge | None = None,
    found: list[bool] | None = None,
) -> ClaimsResult:
    """Each claim scored against the agent's answer; coverage is their mean (1.0 with none).

    ``found`` (one per claim) is what the reward's claim checker decided
    (``scoring.claims.claims_communicated``, the record's ``reward_parts``): those claims
    are found and no other check is made; a judge, when given, is asked only about the
    rest, so it can raise a score, never lower one. Without ``found`` a claim is found
    when the answer states its value (``matches``)."""
    answer = answer_text(messages)
    before = (judge.prompt_tokens, judge.completion_tokens, judge.cost_usd or 0.0) if judge else (0, 0, 0.0)
    scores: list[ClaimScore] = []
    for i, claim in enumerate(claims):
        if found[i] if found is not None else matches(claim, answer):
            scores.append(ClaimScore(claim_id=claim.id, text=claim.text, score=1.0, method="deterministic"))
        elif judge is not None:
            score, reason, method = await judge.grade(claim, answer)
            scores.append(
                ClaimScore(claim_id=claim.id, text=claim.text, score=score, method=method, reason=reason)
            )
        else:
            scores.append(
                ClaimScore(
                    claim_id=claim.id,
                    text=claim.text,
                    score=0.0,
                    method="deterministic",
                    reason="not in the answer",
                )
            )
    coverage = sum(s.score for s in scores) / len(scores) if scores else 1.0
    result = ClaimsResult(scores=scores, coverage=round(coverage, 6))
    if judge is not None:
        result.judge_prompt_tokens = judge.prompt_tokens - before[0]
        result.judge_completion_tokens = judge.completion_tokens - before[1]
        result.judge_cost_usd = None if judge.cost_usd is None else judge.cost_usd - before[2]
    return result
