"""Claims: did the agent tell the user, in words, each value the task wants told?

A claim (``task.gold.claims``) is a value of a gold tool output (an order's ``status``, the
``totals.refunded`` amount). It counts when an assistant message *states* it, by meaning
(:mod:`envfactory_mcp.scoring.meaning`: spelling, synonyms, formats, negation, hedges), after
the first tool result that holds it, and only in what the agent *told* the user:

* **no credit for dumping.** Raw tool output pasted back is not telling: JSON in a reply is
  left out, and a reply that repeats (as whole tokens) at least 60% of the values of a tool
  output holding six or more (pasted, or rendered ``key: value`` line by line), or renders three or more of
  a tool output's own ``snake_case`` keys as ``key: value``, is a dump and counts for
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

import dataclasses
import functools
import json
import re
from dataclasses import dataclass
from typing import Any

from envfactory_mcp.scoring import meaning, said
from envfactory_mcp.scoring.grounding import NAMESPACE_SEPARATOR, cached_for_short_texts
from envfactory_mcp.spec.models import EnvSpec
from envfactory_mcp.tasks.model import Claim

LONG_REPLY_CHARS = 1500
DUMP_SHARE = 0.6  # share of one tool output's values a reply repeats to be a dump
DUMP_MIN_VALUES = 6
DUMP_FIELDS = 3  # "key: value" pairs of a tool output's own snake_case keys
_FIELD = re.compile(r"[\"']?\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b[\"']?\s*[:=]")


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
    keys: set[str] = set()
    out: list[Told] = []
    limit = max(LONG_REPLY_CHARS, 8 * reference_chars)
    for index, message in enumerate(messages):
        role = message.get("role")
        text = message_text(message)
        if role == "tool":
            leaves, fields = _output(text)
            if len(leaves) >= DUMP_MIN_VALUES:
                outputs.append(leaves)
            keys |= fields
            continue
        if role != "assistant" or not text:
            continue
        if _copies_output(text, outputs) or _field_dump(text, keys):
            continue
        text = without_json(text)
        if len(text) > limit:
            continue
        out.append(Told(index, text))
    return out


_FENCE = re.compile(r"```[a-z]*\s*([\[{].*?)```", re.DOTALL)
_OPENING = re.compile(r"[\[{]")
_JSON_INSIDE = re.compile(r"\"[^\"]*\"\s*:|\{")


@cached_for_short_texts(maxsize=4096)
def without_json(text: str) -> str:
    """``text`` with every JSON object or array in it blanked (balanced brackets holding a
    ``"key":`` or nested objects), code fences included. Remembered: the user's goal check
    and the score read the same replies."""
    text = _FENCE.sub(r"\1", text)
    out: list[str] = []
    kept = 0  # text[kept:] is not in ``out`` yet
    at = _OPENING.search(text)
    while at is not None:
        start = at.start()
        end = _closing(text, start)
        if end is not None and _JSON_INSIDE.search(text, start + 1, end):
            out += (text[kept:start], " ")
            kept = end + 1
            at = _OPENING.search(text, kept)
        else:
            at = _OPENING.search(text, start + 1)
    out.append(text[kept:])
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
def _output(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """A tool's JSON output read once (a text that is not JSON has nothing): its scalar
    values, casefolded, of four or more characters (what a dump repeats), and its keys
    that no one writes in prose (``refills_remaining``)."""
    values: set[str] = set()
    keys: set[str] = set()
    stack = [_json(text)]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            keys.update(key for key in map(str, node) if "_" in key)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        elif not (isinstance(node, bool) or node is None):
            value = str(node).casefold()
            if len(value) >= 4:
                values.add(value)
    return frozenset(values), frozenset(keys)


def _field_dump(text: str, keys: set[str]) -> bool:
    """A reply rendering tool output field by field: ``DUMP_FIELDS`` or more ``key: value``
    pairs whose keys are a tool output's own (``refills_remaining: 0``)."""
    pairs = {m.group(1) for m in _FIELD.finditer(text) if m.group(1) in keys}
    return len(pairs) >= DUMP_FIELDS


def _json(text: str) -> Any:
    if text[:1] not in "{[":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _copies_output(text: str, outputs: list[frozenset[str]]) -> bool:
    """Whether the reply repeats, each as a whole token, at least ``DUMP_SHARE`` of the
    values of one tool output (and ``DUMP_MIN_VALUES`` of them): a summary of a bill names
    a few of its values, a rendered dump nearly all."""
    written = text.casefold()
    for leaves in outputs:
        repeated = sum(1 for leaf in leaves if leaf in written and _has_token(written, leaf))
        if repeated >= DUMP_MIN_VALUES and repeated >= DUMP_SHARE * len(leaves):
            return True
    return False


def _has_token(text: str, token: str) -> bool:
    r"""Whether ``text`` holds ``token`` as a whole token: no word character or ``.`` just
    before it, no word character or ``.<digit>`` just after it (as the regular expression
    ``(?<![\w.])token(?![\w]|\.\d)`` reads it; found with ``str.find``, compiling nothing)."""
    at = text.find(token)
    while at >= 0:
        end = at + len(token)
        before = text[at - 1] if at else ""
        after = text[end : end + 2]
        if not (before and (_word(before) or before == ".")) and not (
            after and (_word(after[0]) or (after[0] == "." and after[1:].isdecimal()))
        ):
            return True
        at = text.find(token, at + 1)
    return False


def _word(char: str) -> bool:
    r"""``\w`` of a regular expression on ``str``: alphanumeric or ``_``."""
    return char.isalnum() or char == "_"


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

    A claim counts when what the agent told the user states it by meaning, after the first
    tool result holding the value (for a write's outcome, after that write's result; any
    message when no result holds it). What the user or a tool said never counts. Claims
    that mean the same each need a mention of their own.
    """
    if not claims:
        return [], []
    key = _reading_key(claims, messages, spec)
    hit = _read_cache.get(key) if key is not None else None
    if hit is not None and hit[0] is spec:
        return list(hit[1]), list(hit[2])
    found, missing = _communicated(claims, messages, spec)
    if key is not None:
        if len(_read_cache) >= _READ_MAX:
            _drop_oldest(_read_cache)
        _read_cache[key] = (spec, tuple(found), tuple(missing))
    return found, missing


# The answers of ``claims_communicated`` kept by what it reads (issue 32): the simulated
# user's last check and the score read the same conversation, the score with the user's
# closing message after it. Keyed by the spec object (held in the entry) and by the claims
# (tool, path, text, repr of a scalar value) and, in order, of each message it reads at
# all (the assistant's and the tools', and any carrying tool calls) everything of it that
# is read: role, text, the tool calls' ids and names, tool_call_id and name. Other
# messages (a user's, a system's) change no answer wherever they are (positions are only
# compared between messages it reads), so they are not in the key: the user's closing
# words do not make the score work it all out again.
_READ_MAX = 256
_read_cache: dict[tuple[Any, ...], tuple[EnvSpec | None, tuple[str, ...], tuple[str, ...]]] = {}


def _reading_key(
    claims: list[Claim], messages: list[dict[str, Any]], spec: EnvSpec | None
) -> tuple[Any, ...] | None:
    """What ``claims_communicated`` reads of its arguments, as a key (None: not kept)."""
    if not all(isinstance(c.value, _SCALARS) for c in claims):
        return None
    read: list[Any] = []
    for message in messages:
        role = message.get("role")
        calls = message.get("tool_calls") or []
        if role not in ("assistant", "tool") and not calls:
            continue
        named = (
            tuple(
                (str(call.get("id")), str(call["function"].get("name") or ""))
                for call in calls
                if isinstance(call, dict) and isinstance(call.get("function"), dict)
            )
            if calls
            else ()
        )
        content = message.get("content")
        read.append(
            (
                role,
                content if isinstance(content, str) else message_text(message),
                named,
                str(message.get("tool_call_id")),
                str(message.get("name") or ""),
            )
        )
    key = (id(spec), tuple((c.tool, c.path, c.text, repr(c.value)) for c in claims), tuple(read))
    try:
        hash(key)
    except TypeError:  # a role that is not a string
        return None
    return key


def _drop_oldest(cache: dict[Any, Any]) -> None:
    """Forget the oldest entry (another thread may have changed the cache meanwhile)."""
    try:
        cache.pop(next(iter(cache)), None)
    except (StopIteration, RuntimeError):
        pass


def _communicated(
    claims: list[Claim], messages: list[dict[str, Any]], spec: EnvSpec | None
) -> tuple[list[str], list[str]]:
    replies = told(messages, reference_chars(claims))
    shown_at = _shown_at(claims, messages, spec)
    values, groups = _prepared(claims, spec)
    told_ok = [False] * len(claims)
    for members in groups:
        value = values[members[0]]
        if value.value is None or value.value == "":
            continue
        said_at = [reply.index for reply in replies for _ in range(said.mentions(value, reply.text))]
        starts = {i: shown_at.get((claims[i].tool, claims[i].path, claims[i].text), -1) for i in members}
        for i in sorted(members, key=lambda m: -starts[m]):
            pick = next((k for k, at in enumerate(said_at) if at > starts[i]), None)
            if pick is not None:
                told_ok[i] = True
                del said_at[pick]
    found = [c.text for c, ok in zip(claims, told_ok, strict=True) if ok]
    missing = [c.text for c, ok in zip(claims, told_ok, strict=True) if not ok]
    return found, missing


# What ``claims_communicated`` makes of the claims alone, kept per claim list and spec: the
# simulated user checks the claims after its turns and the score once more, each time for
# the same task (issue 32). Keyed by each claim's tool, path and value (its repr: 1, 1.0,
# True and '1' are not the same key) and by the spec object itself (held in the entry,
# so its id is not reused while the entry lives); a changed claim list is a new key. Only
# claims whose values are scalars are kept (a list or mapping could change in place).
_PREPARED_MAX = 1024
_SCALARS = (str, int, float, bool, type(None))
_Prepared = tuple[tuple[said.Value, ...], tuple[tuple[int, ...], ...]]
_prepared_cache: dict[tuple[Any, ...], tuple[EnvSpec | None, _Prepared]] = {}


def _prepared(claims: list[Claim], spec: EnvSpec | None) -> _Prepared:
    """``_prepare(claims, spec)``, remembered (see ``_prepared_cache``)."""
    if not all(isinstance(c.value, _SCALARS) for c in claims):
        return _prepare(claims, spec)
    key = (id(spec), *((c.tool, c.path, repr(c.value)) for c in claims))
    hit = _prepared_cache.get(key)
    if hit is not None and hit[0] is spec:
        return hit[1]
    prepared = _prepare(claims, spec)
    if len(_prepared_cache) >= _PREPARED_MAX:
        _drop_oldest(_prepared_cache)
    _prepared_cache[key] = (spec, prepared)
    return prepared


def _prepare(claims: list[Claim], spec: EnvSpec | None) -> _Prepared:
    """Each claim's value (its kind, words, rivals and the values told beside it) and the
    groups of claims that mean the same (indices into ``claims``, in order)."""
    # Claims that mean the same share the mentions: each needs one of its own, after the
    # point it could be told (the most constrained claim picks first).
    values = [claim_value(claim, spec) for claim in claims]
    # What the task asks to tell is never a rival of another claim ("refunded $278.74 ...
    # refunded $102.83" for two orders; "#W1 is cancelled, #W2 is pending").
    values = [
        dataclasses.replace(
            value,
            rivals=tuple(
                r for r in value.rivals if not any(r in o.phrases for o in values if o.value != value.value)
            ),
            allowed=tuple(o.value for o in values if o.kind == value.kind and o.value != value.value),
        )
        for value in values
    ]
    groups: dict[tuple[str, str], list[int]] = {}
    for i, value in enumerate(values):
        groups.setdefault((value.kind, json.dumps(value.value, sort_keys=True, default=str)), []).append(i)
    return tuple(values), tuple(tuple(members) for members in groups.values())


def _shown_at(
    claims: list[Claim], messages: list[dict[str, Any]], spec: EnvSpec | None
) -> dict[tuple[str, str, str], int]:
    """Per claim (tool, path, text), the index of the tool message from which on the agent
    can tell it: for the outcome of a write, the first result of that write holding the
    value (it is told after the write, not while proposing it: "I'll set the limit to
    $1,000. Shall I?"); otherwise, or when the write never returned it, the first tool
    result that holds it; -1 when none does."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict) and isinstance(call.get("function"), dict):
                names[str(call.get("id"))] = str(call["function"].get("name") or "")
    tools = [
        (
            i,
            _plain(names.get(str(m.get("tool_call_id"))) or str(m.get("name") or "")),
            message_text(m).casefold(),
        )
        for i, m in enumerate(messages)
        if m.get("role") == "tool"
    ]
    shown: dict[tuple[str, str, str], int] = {}
    for claim in claims:
        key = (claim.tool, claim.path, claim.text)
        if key in shown:
            continue
        forms = _raw_forms(claim.value)
        holding = [(i, name) for i, name, text in tools if any(_has_token(text, form) for form in forms)]
        tool = spec.tool(claim.tool) if spec is not None else None
        write = tool is not None and tool.effect == "write"
        own = next((i for i, name in holding if name == claim.tool), None) if write else None
        shown[key] = own if own is not None else (holding[0][0] if holding else -1)
    return shown


def _plain(name: str) -> str:
    """A tool name without its ``<server>__`` namespace."""
    return name.rsplit(NAMESPACE_SEPARATOR, 1)[-1]


def _raw_forms(value: Any) -> tuple[str, ...]:
    """How a value reads inside a tool's JSON output."""
    if isinstance(value, bool):
        return (json.dumps(value),)
    if isinstance(value, float) and value == int(value):
        return (f"{value:.1f}", f"{int(value)}")
    return (json.dumps(value, ensure_ascii=False).casefold(), str(value).casefold())
