"""Agents: the scripted ones that run with no model endpoint, and the model-backed one.

    OracleAgent   replays the task's gold actions, asking the user's yes before each one the
                  policy wants confirmed, then states every claim (a consistency check of
                  environment, task and scoring: it should score 1.0)
    NoopAgent     never calls a tool (the floor: it must score 0 on write tasks)
    RandomAgent   schema-valid calls to random tools, deterministic per seed and task
    LLMAgent      any ``LLMClient``: the policy as system prompt, the offered tools

Every agent implements ``sim.types.Agent``: ``start`` once per episode, then ``act`` on
the conversation so far (OpenAI chat format, from the agent's side, without the system
prompt). Tool results come back as ``tool`` messages; the host writes a failed call as
a tool message whose content starts with ``TOOL_ERROR_PREFIX``.
"""

from __future__ import annotations

import importlib
import json
import random
import re
import string
from typing import Any

import jsonschema_rs

from envfactory_mcp.llm import LLMClient, ToolCall
from envfactory_mcp.records.trajectory import TOOL_ERROR_PREFIX
from envfactory_mcp.sim.types import AgentTurn, Message
from envfactory_mcp.tasks.model import GoldAction, Task

NOOP_MESSAGE = "Thank you for reaching out. I'm sorry, but I am not able to help with this request."
RANDOM_DONE_MESSAGE = "I have done what I can for now. Thank you for your patience."


def _is_tool_error(message: Message) -> bool:
    content = message.get("content")
    return (
        message.get("role") == "tool" and isinstance(content, str) and content.startswith(TOOL_ERROR_PREFIX)
    )


class OracleAgent:
    """Replays ``task.gold.actions`` one tool call per ``act``, then one closing message
    that states every claim (``"Done. status: cancelled; refunded: 219.82."``).

    Before a gold action the policy wants confirmed (``GoldAction.confirm``) it says one
    message asking for the user's yes (``confirmation_request``) and makes the call on
    its next turn, after the user's reply, whatever the reply (a reply that is not a yes
    shows up as the scorer's "no confirmation" violation, not as a call left out).

    A gold call that fails does not stop it: it is a consistency check, not a solver.
    The failures it saw are kept in ``tool_errors`` (a failing gold action means the
    server and the task disagree).
    """

    name = "oracle"

    def __init__(self) -> None:
        self._task: Task | None = None
        self._next = 0
        self._asked = -1  # the gold action whose confirmation was asked for
        self._offered: set[str] = set()
        self.tool_errors: list[str] = []

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self._task = task
        self._next = 0
        self._asked = -1
        self._offered = {t["function"]["name"] for t in tools}
        self.tool_errors = []

    async def act(self, messages: list[Message]) -> AgentTurn:
        task = self._task
        if task is None:
            raise RuntimeError("OracleAgent.act() before start()")
        if messages and _is_tool_error(messages[-1]):
            self.tool_errors.append(str(messages[-1]["content"]))
        if self._next < len(task.gold.actions):
            action = task.gold.actions[self._next]
            if action.confirm and self._asked != self._next:
                self._asked = self._next
                return AgentTurn(content=confirmation_request(action))
            # With several servers offered, tool names are namespaced "<server>__<tool>".
            namespaced = f"{action.server}__{action.name}"
            name = namespaced if namespaced in self._offered else action.name
            call = ToolCall.parse(f"call_{self._next}", name, json.dumps(action.arguments))
            self._next += 1
            return AgentTurn(tool_calls=[call])
        return AgentTurn(content=self.closing(task, messages))

    def closing(self, task: Task, messages: list[Message]) -> str:
        """The closing message once every gold action is made (a subclass may tell what its
        own calls returned instead)."""
        return closing_message(task)


def confirmation_request(action: GoldAction) -> str:
    """The oracle's question before a call the policy wants confirmed: the call, then
    ``"Shall I go ahead?"`` (``scoring.policy.asks_confirmation`` reads it as one)."""
    details = ", ".join(
        f"{key.replace('_', ' ')} {_value_text(value)}" for key, value in action.arguments.items()
    )
    return (
        f"I'm about to call {action.name}" + (f" with {details}" if details else "") + ". Shall I go ahead?"
    )


def _value_text(value: Any) -> str:
    """A string as it is (an empty one as ``""``), anything else as JSON."""
    return value if isinstance(value, str) and value else json.dumps(value, ensure_ascii=False)


def closing_message(task: Task) -> str:
    """``"Done."`` followed by every claim as ``<label>: <text>`` (label: the claim path's
    last part, ``totals.refunded`` -> ``refunded``)."""
    parts = [f"{claim.path.rsplit('.', 1)[-1].replace('_', ' ')}: {claim.text}" for claim in task.gold.claims]
    return "Done. " + "; ".join(parts) + "." if parts else "Done."


class NoopAgent:
    """Never calls a tool; answers every turn with the same polite refusal."""

    name = "noop"

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        """Nothing to prepare."""

    async def act(self, messages: list[Message]) -> AgentTurn:
        return AgentTurn(content=NOOP_MESSAGE)


class RandomAgent:
    """Each ``act`` calls one random offered tool with random schema-valid arguments, for
    ``max_calls`` calls per episode, then answers with text.

    Arguments come from ``value_from_schema``; strings that miss their schema's
    ``pattern`` are redrawn from the pattern itself, and the whole call is checked against
    the tool's parameters schema. A tool without a valid draw after
    ``DRAWS_PER_TOOL`` tries is passed over. Randomness comes from
    ``random.Random(f"{seed}:{task_id}")``, so a seed gives the same episode every time.
    """

    name = "random"
    DRAWS_PER_TOOL = 5

    def __init__(self, seed: int = 0, max_calls: int = 3) -> None:
        self.seed = seed
        self.max_calls = max_calls
        self._rng = random.Random()
        self._tools: list[dict[str, Any]] = []
        self._calls = 0

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self._rng = random.Random(f"{self.seed}:{task.task_id}")
        self._tools = tools
        self._calls = 0

    async def act(self, messages: list[Message]) -> AgentTurn:
        if self._calls < self.max_calls:
            call = self._random_call()
            if call is not None:
                self._calls += 1
                return AgentTurn(tool_calls=[call])
        return AgentTurn(content=RANDOM_DONE_MESSAGE)

    def _random_call(self) -> ToolCall | None:
        """A schema-valid call to a random tool, or None when no tool gets one."""
        for tool in self._rng.sample(self._tools, len(self._tools)):
            function = tool["function"]
            schema = function.get("parameters") or {"type": "object"}
            validator = jsonschema_rs.Draft202012Validator(schema)
            for _ in range(self.DRAWS_PER_TOOL):
                arguments = random_arguments(schema, self._rng)
                if isinstance(arguments, dict) and validator.is_valid(arguments):
                    return ToolCall.parse(f"call_{self._calls}", function["name"], json.dumps(arguments))
        return None


def random_arguments(schema: dict[str, Any], rng: random.Random) -> Any:
    """``value_from_schema``, with strings that miss their ``pattern`` redrawn to match it."""
    from envfactory_mcp.seeddata import value_from_schema  # only the random agent draws values

    return _fit_patterns(schema, value_from_schema(schema, rng), rng)


def _fit_patterns(schema: dict[str, Any], value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        props = schema.get("properties", {})
        return {k: _fit_patterns(props[k], v, rng) if k in props else v for k, v in value.items()}
    if isinstance(value, list):
        items = schema.get("items", {})
        return [_fit_patterns(items, v, rng) for v in value]
    pattern = schema.get("pattern")
    if isinstance(value, str) and isinstance(pattern, str) and not re.search(pattern, value):
        try:
            return string_matching(pattern, rng)
        except ValueError:
            return value  # a construct we cannot draw from: the schema check rejects the call
    return value


# ---------------------------------------------------------------- strings from a pattern

# Characters drawn for ``.``, negated classes and categories: printable and JSON-safe.
_ALPHABET = string.ascii_letters + string.digits + "_-."
_CATEGORIES = {
    "CATEGORY_DIGIT": string.digits,
    "CATEGORY_NOT_DIGIT": string.ascii_letters + "_-.",
    "CATEGORY_WORD": string.ascii_letters + string.digits + "_",
    "CATEGORY_NOT_WORD": "-. ",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": _ALPHABET,
}
_EXTRA_REPEATS = 3  # an unbounded repeat (``+``, ``*``) draws at most this many beyond its minimum


def string_matching(pattern: str, rng: random.Random) -> str:
    """A random string that ``pattern`` matches, for the constructs schemas use (literals,
    classes, categories, groups, alternation, repeats, anchors); ``ValueError`` for others
    (look-arounds, back-references)."""
    # re._parser is Python's own regex parser (public as sre_parse, which is deprecated).
    parser = importlib.import_module("re._parser")
    try:
        tree = parser.parse(pattern)
    except re.error as exc:
        raise ValueError(f"not a regular expression: {pattern!r}: {exc}") from None
    return _draw(list(tree), rng)


def _draw(items: list[tuple[Any, Any]], rng: random.Random) -> str:
    out: list[str] = []
    for op, arg in items:
        kind = str(op)
        if kind == "LITERAL":
            out.append(chr(arg))
        elif kind == "NOT_LITERAL":
            out.append(rng.choice(_ALPHABET.replace(chr(arg), "")))
        elif kind == "ANY":
            out.append(rng.choice(_ALPHABET))
        elif kind == "IN":
            out.append(rng.choice(_class_chars(arg)))
        elif kind == "BRANCH":
            out.append(_draw(list(rng.choice(arg[1])), rng))
        elif kind == "SUBPATTERN":
            out.append(_draw(list(arg[3]), rng))
        elif kind == "ATOMIC_GROUP":
            out.append(_draw(list(arg), rng))
        elif kind in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            count = rng.randint(low, min(high, low + _EXTRA_REPEATS))
            out.extend(_draw(list(sub), rng) for _ in range(count))
        elif kind != "AT":  # anchors match the empty string
            raise ValueError(f"cannot draw a string for regex construct {kind}")
    return "".join(out)


def _class_chars(members: list[tuple[Any, Any]]) -> str:
    """The characters of a ``[...]`` class (negated classes within ``_ALPHABET``)."""
    chars: set[str] = set()
    negate = False
    for op, arg in members:
        kind = str(op)
        if kind == "NEGATE":
            negate = True
        elif kind == "LITERAL":
            chars.add(chr(arg))
        elif kind == "RANGE":
            chars.update(chr(c) for c in range(arg[0], arg[1] + 1))
        elif kind == "CATEGORY" and str(arg) in _CATEGORIES:
            chars.update(_CATEGORIES[str(arg)])
        else:
            raise ValueError(f"cannot draw a character for class member {kind} {arg}")
    pool = sorted(set(_ALPHABET) - chars) if negate else sorted(chars)
    if not pool:
        raise ValueError("a character class with nothing to draw from")
    return "".join(pool)


class LLMAgent:
    """An agent backed by an ``LLMClient``.

    The ``system_prompt`` given to ``start`` (the host passes the domain policy) goes
    first, then the conversation; the offered tools go with every request. The model's
    turn is returned as is: tool calls with broken arguments stay in it
    (``arguments is None``, ``error`` set) for the host to answer with a tool error, and
    an ``LLMError`` propagates for the host to record as the termination reason. Retries
    are the client's.
    """

    name = "llm"

    def __init__(
        self, client: LLMClient, temperature: float | None = None, max_tokens: int | None = None
    ) -> None:
        self.client = client
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._system_prompt = ""
        self._tools: list[dict[str, Any]] = []

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self._system_prompt = system_prompt
        self._tools = tools

    async def act(self, messages: list[Message]) -> AgentTurn:
        response = await self.client.complete(
            [{"role": "system", "content": self._system_prompt}, *messages],
            tools=self._tools or None,  # some endpoints refuse an empty tools list
            temperature=self.temperature,
            max_tokens=self.max_tokens,
        )
        return AgentTurn(
            content=response.content,
            tool_calls=list(response.tool_calls),
            usage=response.usage,
            cost_usd=response.cost_usd,
        )
