"""Failure taxonomy: what went wrong in a failed episode, as far as its trajectory shows.

One class per failed episode, the first that applies in this order (most specific and
most harmful first):

    collateral_change     a server the task does not involve (a distractor) changed
    constraint_violation  a policy rule was broken (``scoring.policy``: no confirmation, ...)
    no_tool_use           the agent never called a tool
    malformed_call        a call with arguments that are not a JSON object, an unknown
                          tool name, or arguments the tool's schema refused
    wrong_tool            a tool the task needs was never called, and the agent called
                          tools the task does not need instead
    error_not_recovered   a tool error the agent never got past (the same tool never
                          succeeded afterwards), or too many errors in a row
    hallucinated_fact     the answer states values (numbers, ids, dates) that no user or
                          tool message said
    early_termination     the agent stopped (or ran out of steps) before calling every
                          tool the task needs
    task_misunderstanding the right tools, but the wrong arguments, final state or answer
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from envfactory_mcp.records.trajectory import TOOL_ERROR_PREFIX
from envfactory_mcp.scoring.claims import message_text
from envfactory_mcp.scoring.words import dates_in, numbers_in, without_dates

FAILURE_CLASSES: dict[str, str] = {
    "collateral_change": "changed a server the task does not involve",
    "constraint_violation": "broke a policy rule",
    "no_tool_use": "never called a tool",
    "malformed_call": "malformed call (bad JSON, unknown tool, arguments refused)",
    "wrong_tool": "called tools the task does not need instead of those it needs",
    "error_not_recovered": "a tool error it never got past",
    "hallucinated_fact": "stated values no tool or user gave",
    "early_termination": "stopped before doing every step",
    "task_misunderstanding": "right tools, wrong arguments, state or answer",
}
_MALFORMED_ERRORS = ("Invalid arguments", "Unknown tool", "malformed arguments")
# A date written without its year is compared as if in this one, on both sides.
_NO_YEAR = 2000
_ID = re.compile(r"(?<![\w])#?[A-Za-z]+[-_]?\d[\w-]*|(?<![\w])\d+[A-Za-z][\w-]*")


@dataclass
class EpisodeFacts:
    """What the classifier reads: the trajectory and the scoring's findings."""

    messages: list[dict[str, Any]]
    relevant_tools: list[str]  # tools the task needs (as offered: namespaced)
    termination: str = "user_stop"
    state_ok: bool = True
    collateral: list[str] = field(default_factory=list)
    policy_violations: list[str] = field(default_factory=list)
    coverage: float = 1.0


@dataclass(frozen=True)
class _Call:
    name: str
    arguments: dict[str, Any] | None
    error: str | None  # the tool message, when it is an error


def calls_of(messages: list[dict[str, Any]]) -> list[_Call]:
    """The assistant's tool calls in order, each with its result's error text (if any)."""
    results: dict[str, str] = {}
    for m in messages:
        if m.get("role") == "tool":
            results[str(m.get("tool_call_id"))] = message_text(m)
    calls = []
    for m in messages:
        if m.get("role") != "assistant":
            continue
        for c in m.get("tool_calls") or []:
            fn = c.get("function") or {}
            raw = fn.get("arguments")
            try:
                args = json.loads(raw) if isinstance(raw, str) and raw.strip() else (raw or {})
            except json.JSONDecodeError:
                args = None
            result = results.get(str(c.get("id")), "")
            error = result if result.startswith(TOOL_ERROR_PREFIX) else None
            calls.append(_Call(str(fn.get("name") or ""), args if isinstance(args, dict) else None, error))
    return calls


def unseen_values(messages: list[dict[str, Any]]) -> list[str]:
    """Values (numbers above 10, ids, dates) in assistant text that no earlier user or tool
    message held."""
    seen_text = ""
    unseen: list[str] = []
    for m in messages:
        text = message_text(m)
        role = m.get("role")
        if role in ("user", "tool"):
            seen_text += "\n" + text
            continue
        if role != "assistant" or not text:
            continue
        seen_numbers = [n.value for n in numbers_in(seen_text)]
        seen_dates = dates_in(seen_text, _NO_YEAR)
        lowered = seen_text.lower()
        for value in (n.value for n in numbers_in(without_dates(text))):
            if abs(value) > 10 and not any(abs(value - s) < 0.005 for s in seen_numbers):
                unseen.append(f"{value:g}")
        for day in dates_in(text, _NO_YEAR) - seen_dates:
            unseen.append(day.isoformat())
        for token in _ID.findall(text):
            if token.lower().lstrip("#") not in lowered:
                unseen.append(token)
    return list(dict.fromkeys(unseen))


def classify(facts: EpisodeFacts) -> tuple[str, str]:
    """``(class, detail)`` of a failed episode (see the module's list for the order)."""
    if facts.collateral:
        return "collateral_change", f"changed {', '.join(facts.collateral)}"
    if facts.policy_violations:
        return "constraint_violation", "; ".join(facts.policy_violations[:3])
    calls = calls_of(facts.messages)
    if not calls:
        return "no_tool_use", "no tool call"
    malformed = [
        c for c in calls if c.arguments is None or (c.error and any(e in c.error for e in _MALFORMED_ERRORS))
    ]
    if malformed:
        return (
            "malformed_call",
            f"{len(malformed)} malformed call(s), first {malformed[0].name or '(no name)'}",
        )
    succeeded = {c.name for c in calls if c.error is None}
    never = [t for t in facts.relevant_tools if t not in succeeded]
    called_relevant = {c.name for c in calls} & set(facts.relevant_tools)
    wrong = [c.name for c in calls if c.name not in facts.relevant_tools]
    if never and wrong:
        return "wrong_tool", f"called {', '.join(dict.fromkeys(wrong))}; never {', '.join(never)}"
    if facts.termination == "too_many_errors":
        return "error_not_recovered", "too many tool errors in a row"
    for i, call in enumerate(calls):
        if call.error and not any(c.name == call.name and c.error is None for c in calls[i + 1 :]):
            return "error_not_recovered", f"{call.name}: {call.error[:200]}"
    unseen = unseen_values(facts.messages)
    if unseen:
        return "hallucinated_fact", f"unsupported values: {', '.join(unseen[:5])}"
    if never or facts.termination == "max_steps":
        missing = ", ".join(t for t in facts.relevant_tools if t not in called_relevant) or facts.termination
        return "early_termination", f"never called {missing}"
    what = []
    if not facts.state_ok:
        what.append("final state differs from the gold")
    if facts.coverage < 1.0:
        what.append(f"claims coverage {facts.coverage:.2f}")
    return "task_misunderstanding", "; ".join(what) or "the answer falls short"
