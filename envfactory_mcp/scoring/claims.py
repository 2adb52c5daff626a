"""Claims: did the agent tell the user, in words, each value the task wants told?

A claim (``task.gold.claims``) is a value of a gold tool output (an order's ``status``, the
``totals.refunded`` amount). It counts when an assistant message *states* it, by meaning
(:mod:`envfactory_mcp.scoring.meaning`: spelling, synonyms, formats, negation, hedges), after
the first tool result that holds it, and only in what the agent *told* the user:

* **no credit for dumping.** Raw tool output pasted back is not telling: JSON in a reply is
  left out, and a reply that repeats at least half of the values of a tool output holding
  six or more (pasted, or rendered ``key: value`` line by line) is a dump and counts for
  nothing. Listing an action's details to confirm it ("cabin: economy; date: ...") is not a
  dump: it repeats a few of an output's values, not most of them;
* **no credit for length.** A reply longer than ``max(LONG_REPLY_CHARS, 8 x the reference)``
  (the reference: every claim said once in a short sentence) counts for nothing: a reply that
  long is a dump in prose, and a length penalty would still pay for it in part;
* **no credit for hedging.** A value said next to a rival value of its kind in a hedged
  clause ("cancelled, or possibly pending", "$54 (maybe $60)") is not stated.

Claims that mean the same (two orders both ``cancelled``) each need their own mention.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from envfactory_mcp.scoring import meaning, said
from envfactory_mcp.spec.models import EnvSpec
from envfactory_mcp.tasks.model import Claim

LONG_REPLY_CHARS = 1500
DUMP_SHARE = 0.5  # share of one tool output's values a reply repeats to be a dump
DUMP_MIN_VALUES = 6


def message_text(message: dict[str, Any]) -> str:
    """The text of a chat message: a string content, or the text parts of a list."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


@dataclass(frozen=True)
class Told:
    """One assistant message as told to the user: its position and its words (dumps out)."""

    index: int
    text: str


def told(messages: list[dict[str, Any]], reference_chars: int = 0) -> list[Told]:
    """Every assistant message's text with what it did not tell left out (see the module)."""
    outputs: list[frozenset[str]] = []
    out: list[Told] = []
    limit = max(LONG_REPLY_CHARS, 8 * reference_chars)
    for index, message in enumerate(messages):
        role = message.get("role")
        text = message_text(message)
        if role == "tool":
            leaves = _output_values(text)
            if len(leaves) >= DUMP_MIN_VALUES:
                outputs.append(leaves)
            continue
        if role != "assistant" or not text:
            continue
        if _copies_output(text, outputs):
            continue
        text = without_json(text)
        if len(text) > limit:
            continue
        out.append(Told(index, text))
    return out


def without_json(text: str) -> str:
    """``text`` with every JSON object or array in it blanked (balanced brackets holding a
    ``"key":`` or nested objects), code fences included."""
    text = re.sub(r"```[a-z]*\s*([\[{].*?)```", r"\1", text, flags=re.DOTALL)
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] in "{[":
            end = _closing(text, i)
            if end is not None and re.search(r"\"[^\"]*\"\s*:|\{", text[i + 1 : end]):
                out.append(" ")
                i = end + 1
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _closing(text: str, start: int) -> int | None:
    depth, quoted, escaped = 0, False, False
    for i in range(start, len(text)):
        c = text[i]
        if quoted:
            escaped = not escaped and c == "\\"
            if c == '"' and not escaped:
                quoted = False
            continue
        if c == '"':
            quoted = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return i
    return None


@functools.lru_cache(maxsize=1024)
def _output_values(text: str) -> frozenset[str]:
    """The scalar values of a tool's JSON output (a text that is not JSON has none)."""
    data = _json(text)
    return frozenset(_leaves(data)) if data is not None else frozenset()


def _json(text: str) -> Any:
    if text[:1] not in "{[":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _leaves(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [leaf for v in data.values() for leaf in _leaves(v)]
    if isinstance(data, list):
        return [leaf for v in data for leaf in _leaves(v)]
    if isinstance(data, bool) or data is None:
        return []
    text = str(data).casefold()
    return [text] if len(text) >= 3 else []


def _copies_output(text: str, outputs: list[frozenset[str]]) -> bool:
    written = text.casefold()
    for leaves in outputs:
        repeated = sum(1 for leaf in leaves if leaf in written)
        if repeated >= DUMP_MIN_VALUES and repeated >= DUMP_SHARE * len(leaves):
            return True
    return False


# ------------------------------------------------------------------------------ claims


def claim_value(claim: Claim, spec: EnvSpec | None = None) -> said.Value:
    """The claim's value with its kind and words (from the spec, where given)."""
    year = int(spec.clock[:4]) if spec is not None and spec.clock[:4].isdigit() else 2026
    return meaning.value_of(claim.value, claim.path, spec, claim.tool, year=year)


def reference_chars(claims: list[Claim]) -> int:
    """How long a short reply telling every claim once would be."""
    return 120 + sum(40 + len(c.path) + len(c.text) for c in claims)


def claims_communicated(
    claims: list[Claim], messages: list[dict[str, Any]], spec: EnvSpec | None = None
) -> tuple[list[str], list[str]]:
    """``(found, missing)`` claim texts, in the order of ``claims`` (see the module).

    A claim counts when what the agent told the user, after the first tool result holding
    the claim's value (any message when none does), states it by meaning. What the user or
    a tool said never counts. The k-th of claims that mean the same needs k mentions.
    """
    if not claims:
        return [], []
    replies = told(messages, reference_chars(claims))
    shown_at = _shown_at(claims, messages)
    found: list[str] = []
    missing: list[str] = []
    needed: dict[tuple[str, str], int] = {}
    for claim in claims:
        value = claim_value(claim, spec)
        key = (value.kind, json.dumps(value.value, sort_keys=True, default=str))
        needed[key] = needed.get(key, 0) + 1
        if value.value is None or value.value == "":
            missing.append(claim.text)
            continue
        shown = shown_at.get(claim.text, -1)
        told_times = sum(said.mentions(value, reply.text) for reply in replies if reply.index > shown)
        (found if told_times >= needed[key] else missing).append(claim.text)
    return found, missing


def _shown_at(claims: list[Claim], messages: list[dict[str, Any]]) -> dict[str, int]:
    """Per claim text, the index of the first tool message whose output holds the value."""
    shown: dict[str, int] = {}
    tools = [(i, message_text(m).casefold()) for i, m in enumerate(messages) if m.get("role") == "tool"]
    for claim in claims:
        if claim.text in shown:
            continue
        pattern = re.compile(
            "|".join(rf"(?<![\w.]){re.escape(w)}(?![\w]|\.\d)" for w in _raw_forms(claim.value))
        )
        shown[claim.text] = next((i for i, text in tools if pattern.search(text)), -1)
    return shown


def _raw_forms(value: Any) -> tuple[str, ...]:
    """How a value reads inside a tool's JSON output."""
    if isinstance(value, bool):
        return (json.dumps(value),)
    if isinstance(value, float) and value == int(value):
        return (f"{value:.1f}", f"{int(value)}")
    return (json.dumps(value, ensure_ascii=False).casefold(), str(value).casefold())
