"""Grounding: every value an agent passes to a tool must come from the user or a tool.

A demonstration in which the agent types a last name, a zip code or an email that
nobody said teaches a model to invent identity data. :func:`ungrounded_calls` finds
those values in an OpenAI chat-format conversation (assistant ``tool_calls`` with
JSON-string ``arguments``, ``tool`` messages with ``content``).

A tool call's argument is checked leaf by leaf (arrays and objects are walked) against
the *evidence*: the text of every earlier ``user`` message and every earlier ``tool``
message (for JSON output, its decoded keys and values as well as the raw text). What
the assistant said never counts: an agent cannot ground a value it invented by saying
it first. A leaf is grounded when

* it is a string that occurs in the evidence, case-insensitively and with white space
  normalised, as a whole token (``54`` is not found in ``154``, ``ann`` not in
  ``joanna``; ``W0012345`` is found in ``#W0012345``);
* it is a number equal by value to a numeric token of the evidence (``12.5`` and
  ``12.50`` are equal; a string holding a number may match either way);
* it is a boolean, ``null`` or ``""``, one of the ``enum`` / ``const`` values of the
  parameter's schema, or equal to the schema's ``default`` (a choice from a menu the
  tool offers, not data about the world).

A parameter declared ``composed`` (``ParamSpec.composed``: text the agent writes, such
as a summary for a human or an arithmetic expression) is grounded when every number
and every identifier-like token in it (one bearing a digit: ``#W0012345``,
``user_000042``, ``12.5``) is grounded; the wording is the agent's own.

Tool names resolve to the spec's tools directly or as ``<spec name>__<tool>`` (the host
namespaces tools when it offers several servers). A tool the spec does not know, or
every tool when no spec is given, has each leaf checked with no schema to excuse it.
Calls whose arguments are not a JSON object are not checked here (they are malformed,
counted by the reward's ``malformed_calls``), nor are ``control.*`` calls.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Concatenate, ParamSpec, TypeVar

from envfactory_mcp.spec.models import EnvSpec, ToolSpec

CONTROL_PREFIX = "control."
NAMESPACE_SEPARATOR = "__"

# Numbers in text, maximal runs only (so "154" never yields "54"): plain digits with an
# optional decimal part, and also the value read with thousands separators ("1,219.80").
_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?!\d)")
_GROUPED = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])")
# A token of composed text that may name a value: word characters, optionally led by
# "#", joined by "." or "@" (so "12.5", "#W0012345", "user_000042", "a.b@c1.com").
_TOKEN = re.compile(r"#?\w+(?:[.@]\w+)*")
_DIGIT = re.compile(r"\d")
_PLAIN_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
# Texts up to this long have their normalised forms and numbers cached (a longer one is
# worked out each time, so the caches stay small: at most a few tens of MB).
CACHED_TEXT_CHARS = 16 * 1024

_P = ParamSpec("_P")
_R = TypeVar("_R")


def cached_for_short_texts(
    maxsize: int,
) -> Callable[[Callable[Concatenate[str, _P], _R]], Callable[Concatenate[str, _P], _R]]:
    """``functools.lru_cache`` for a function of a text (its first argument), used only
    for a ``str`` (not a subclass) of at most ``CACHED_TEXT_CHARS``; any other is worked
    out each time."""

    def decorate(function: Callable[Concatenate[str, _P], _R]) -> Callable[Concatenate[str, _P], _R]:
        cached = functools.lru_cache(maxsize=maxsize)(function)

        def call(text: str, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            if type(text) is str and len(text) <= CACHED_TEXT_CHARS:
                return cached(text, *args, **kwargs)  # type: ignore[arg-type]
            return function(text, *args, **kwargs)

        functools.update_wrapper(call, function)  # its name and docstring
        return call

    return decorate


@dataclass(frozen=True)
class UngroundedValue:
    """One argument value of one tool call that appears nowhere earlier.

    ``call_index`` counts the conversation's tool calls from 0 in order (``control.*``
    calls left out), ``path`` locates the value in the arguments (``email``,
    ``item_ids[1]``, ``address.zip``; for a composed parameter, the parameter itself)."""

    call_index: int
    tool: str
    path: str
    value: Any

    def describe(self) -> str:
        return f"call {self.call_index} {self.tool}: {self.path}={json.dumps(self.value, ensure_ascii=False)}"


@dataclass(frozen=True)
class Call:
    """One tool call of an assistant message, in conversation order."""

    index: int  # among the conversation's tool calls, control calls left out
    position: int  # index of its assistant message in the conversation
    id: str | None
    name: str
    arguments: dict[str, Any] | None  # None when they are not a JSON object


def tool_calls(messages: list[dict[str, Any]]) -> Iterator[Call]:
    """Every tool call of the assistant messages, in order (``control.*`` left out)."""
    index = 0
    for position, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            name = str(function.get("name") or "") if isinstance(function, dict) else ""
            if name.startswith(CONTROL_PREFIX):
                continue
            raw = function.get("arguments") if isinstance(function, dict) else None
            yield Call(
                index,
                position,
                call.get("id") if isinstance(call, dict) else None,
                name,
                parse_arguments(raw),
            )
            index += 1


def resolve_tool(name: str, spec: EnvSpec | None) -> ToolSpec | None:
    """The spec's tool called ``name`` or ``<spec name>__name``; None when there is none."""
    if spec is None:
        return None
    tool = spec.tool(name)
    if tool is None:
        server, sep, plain = name.partition(NAMESPACE_SEPARATOR)
        if sep and server == spec.name:
            tool = spec.tool(plain)
    return tool


def ungrounded_calls(
    messages: list[dict[str, Any]], spec: EnvSpec | None, calls: Sequence[Call] | None = None
) -> list[UngroundedValue]:
    """Every argument value of every tool call not grounded in earlier user or tool
    messages (see the module doc), in call order, then argument order. ``calls``: the
    conversation's :func:`tool_calls`, when the caller has them already."""
    evidence = _Evidence()
    if calls is None:
        calls = list(tool_calls(messages))
    by_position: dict[int, list[Call]] = {}
    for call in calls:
        by_position.setdefault(call.position, []).append(call)
    found: list[UngroundedValue] = []
    last = max(by_position, default=-1)  # nothing after the last call is read
    tools: dict[str, ToolSpec | None] = {}
    for position, message in enumerate(messages[: last + 1]):
        role = message.get("role")
        if role in ("user", "tool"):
            evidence.add(content_text(message.get("content")), parse_json=role == "tool")
            continue
        for call in by_position.get(position, []):
            if call.arguments is None:
                continue
            if call.name not in tools:  # each name looked up once a conversation
                tools[call.name] = resolve_tool(call.name, spec)
            tool = tools[call.name]
            properties = (tool.input_schema.get("properties") or {}) if tool else {}
            for key, value in call.arguments.items():
                param = tool.params.get(key) if tool else None
                if param is not None and param.composed and isinstance(value, str):
                    if not _composed_grounded(value, evidence):
                        found.append(UngroundedValue(call.index, call.name, key, value))
                    continue
                schema = properties.get(key) if tool else None
                for path, leaf in _ungrounded_leaves(value, schema, key, evidence):
                    found.append(UngroundedValue(call.index, call.name, path, leaf))
    return found


# ---------------------------------------------------------------------------- evidence


class _Evidence:
    """What the user and the tools said so far: normalised texts and the numbers in them.

    A message's own text is normalised as it comes; the pieces of a tool's JSON answer
    (its keys and leaf values, unescaped) and the numbers of every text are read only
    when a check first needs them: a value is looked for in the texts first, and in the
    pieces only when no text holds it, which gives the same answer as looking in both
    (most values are found in the texts, and most calls carry only names and ids). Each
    step is cached by text (up to ``CACHED_TEXT_CHARS``): the trials of a task see the
    same tool results again."""

    def __init__(self) -> None:
        self.texts: list[str] = []  # each message's normalised text
        self._json: list[str] = []  # tool answers whose pieces have not been read yet
        self._pieces: list[str] = []  # the normalised pieces of those read
        self._numbers: set[Decimal] = set()
        self._unread = 0  # texts[_unread:] have not had their numbers read yet
        self._piece_numbers: set[Decimal] = set()
        self._unread_pieces = 0  # the same for _pieces

    def add(self, text: str, *, parse_json: bool) -> None:
        normal = _normal_text(text)
        if normal:
            self.texts.append(normal)
        if parse_json:
            self._json.append(text)

    @property
    def pieces(self) -> list[str]:
        """The normalised keys and leaf values of the tool answers so far."""
        for text in self._json:
            self._pieces.extend(_normal_json_pieces(text))
        self._json.clear()
        return self._pieces

    @property
    def numbers(self) -> set[Decimal]:
        for normal in self.texts[self._unread :]:
            self._numbers.update(_numbers_in(normal))
        self._unread = len(self.texts)
        return self._numbers

    def has_text(self, value: str) -> bool:
        wanted = _normal(value)
        if not wanted:
            return True
        starts, ends = _word(wanted[0]), _word(wanted[-1])
        return any(_holds(text, wanted, starts, ends) for text in self.texts if wanted in text) or any(
            _holds(text, wanted, starts, ends) for text in self.pieces if wanted in text
        )

    def has_number(self, value: Decimal) -> bool:
        if value in self.numbers:
            return True
        pieces = self.pieces
        for normal in pieces[self._unread_pieces :]:
            self._piece_numbers.update(_numbers_in(normal))
        self._unread_pieces = len(pieces)
        return value in self._piece_numbers


@cached_for_short_texts(maxsize=2048)
def _normal_text(text: str) -> str:
    return _normal(text)


@cached_for_short_texts(maxsize=2048)
def _normal_json_pieces(text: str) -> tuple[str, ...]:
    """The non-empty normalised keys and leaf values of a tool's JSON answer (none when
    it is not JSON)."""
    pieces: list[str] = []
    try:
        _json_pieces(json.loads(text), pieces)
    except ValueError:
        pass
    return tuple(normal for normal in map(_normal, pieces) if normal)


@cached_for_short_texts(maxsize=8192)
def _numbers_in(normal: str) -> frozenset[Decimal]:
    return frozenset(_numbers(normal))


def _json_pieces(value: Any, out: list[str]) -> None:
    """Keys and leaf values of decoded JSON, as text (strings unescaped), added to ``out``
    in document order."""
    if isinstance(value, dict):
        for key, item in value.items():
            out.append(str(key))
            _json_pieces(item, out)
    elif isinstance(value, list):
        for item in value:
            _json_pieces(item, out)
    elif isinstance(value, str):
        out.append(value)
    elif value is not None and not isinstance(value, bool):
        out.append(json.dumps(value))


def _normal(text: str) -> str:
    """Casefolded, every run of whitespace one space, none at the ends (``str.split``'s
    whitespace is the regular expressions' ``\\s``)."""
    return " ".join(text.casefold().split())


def _holds(text: str, token: str, starts: bool, ends: bool) -> bool:
    """Whether ``text`` holds ``token`` as a whole token: where the token starts (ends) with
    a word character, none just before (after) it. Found with ``str.find``, compiling
    nothing (a value is looked for once or twice)."""
    at = text.find(token)
    while at >= 0:
        stop = at + len(token)
        if not (starts and at and _word(text[at - 1])) and not (
            ends and stop < len(text) and _word(text[stop])
        ):
            return True
        at = text.find(token, at + 1)
    return False


def _word(char: str) -> bool:
    r"""``\w`` of a regular expression on ``str``: alphanumeric or ``_``."""
    return char.isalnum() or char == "_"


def _numbers(text: str) -> Iterator[Decimal]:
    for pattern in (_NUMBER, _GROUPED):
        for match in pattern.finditer(text):
            number = _decimal(match.group(0))
            if number is not None:
                yield number


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


# ---------------------------------------------------------------------------- checks


def _ungrounded_leaves(
    value: Any, schema: dict[str, Any] | None, path: str, evidence: _Evidence
) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        properties = _sub_schemas(schema, "properties")
        for key, item in value.items():
            yield from _ungrounded_leaves(item, properties.get(key), f"{path}.{key}", evidence)
        return
    if isinstance(value, list):
        items = _items_schema(schema)
        for i, item in enumerate(value):
            yield from _ungrounded_leaves(item, items, f"{path}[{i}]", evidence)
        return
    if not _leaf_grounded(value, schema, evidence):
        yield path, value


def _leaf_grounded(value: Any, schema: dict[str, Any] | None, evidence: _Evidence) -> bool:
    if value is None or value == "" or isinstance(value, bool):
        return True
    if schema is not None and _offered(value, schema):
        return True
    if isinstance(value, int | float):
        return evidence.has_number(Decimal(str(value)))
    if not isinstance(value, str):
        return False
    if evidence.has_text(value):
        return True
    stripped = value.strip()
    if _PLAIN_NUMBER.fullmatch(stripped):  # "12.50" where 12.5 was said
        number = _decimal(stripped)
        return number is not None and evidence.has_number(number)
    return False


def _offered(value: Any, schema: dict[str, Any]) -> bool:
    """The value is one the schema itself offers: an enum or const value, or the default."""
    for alternative in _alternatives(schema):
        choices = list(alternative.get("enum") or [])
        if "const" in alternative:
            choices.append(alternative["const"])
        if "default" in alternative:
            choices.append(alternative["default"])
        if any(_same(value, choice) for choice in choices):
            return True
    return False


def _same(a: Any, b: Any) -> bool:
    """JSON equality of leaves: numbers by value, but a boolean is not a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b


def _alternatives(schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The schema and its ``anyOf`` / ``oneOf`` / ``allOf`` branches."""
    yield schema
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in schema.get(key) or []:
            if isinstance(branch, dict):
                yield from _alternatives(branch)


def _sub_schemas(schema: dict[str, Any] | None, key: str) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for alternative in _alternatives(schema) if schema else []:
        if isinstance(alternative.get(key), dict):
            merged.update(alternative[key])
    return merged


def _items_schema(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    for alternative in _alternatives(schema) if schema else []:
        items = alternative.get("items")
        if isinstance(items, dict):
            return items
    return None


def _composed_grounded(text: str, evidence: _Evidence) -> bool:
    """Every number and digit-bearing token of the agent's own text was said before."""
    for token in _TOKEN.findall(text):
        if not _DIGIT.search(token):
            continue
        bare = token.lstrip("#")
        if _PLAIN_NUMBER.fullmatch(bare):
            number = _decimal(bare)
            if number is None or not evidence.has_number(number):
                return False
        elif not evidence.has_text(token) and not evidence.has_text(bare):
            return False
    return True


# ---------------------------------------------------------------------------- messages


def content_text(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part if isinstance(part, str) else str(part.get("text", ""))
            for part in content
            if isinstance(part, str | dict)
        )
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def parse_arguments(raw: Any) -> dict[str, Any] | None:
    """A tool call's arguments as an object: a dict as it is, a JSON string parsed (an
    empty string is no arguments); None when they are not a JSON object (malformed)."""
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        return None
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None
