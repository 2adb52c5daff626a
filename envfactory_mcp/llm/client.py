"""The one interface every stage uses to talk to a language model.

Stages (spec proposal, task synthesis, agents, user simulators) depend on the
``LLMClient`` protocol only, so they run against the litellm adapter in production and
against ``ScriptedLLM`` in tests and offline runs. Messages and tools are in OpenAI chat
format; a response comes back as plain frozen values, with tool-call arguments already
parsed (or the reason they could not be).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from envfactory_mcp.errors import EnvFactoryError

LLMErrorKind = Literal[
    "timeout", "rate_limit", "server", "connection", "access", "bad_request", "context_window", "other"
]

# The endpoint could not give the model a chance to answer: down, overloaded, too slow, or
# refusing us (wrong key, model or URL). Whoever uses the model is not to blame for these;
# the host records them as a harness failure, never as the agent's reward 0.
ENDPOINT_FAILURES: frozenset[LLMErrorKind] = frozenset(
    {"timeout", "rate_limit", "server", "connection", "access"}
)


@dataclass(frozen=True)
class ToolCall:
    """One tool call as the model sent it.

    ``arguments_json`` is the raw string, kept so a trajectory records exactly what the
    model produced. ``arguments`` is its parse, or None with ``error`` saying why: a model
    that emits broken JSON is an agent mistake to score, not a harness crash.
    """

    id: str
    name: str
    arguments_json: str
    arguments: dict[str, Any] | None
    error: str | None = None

    @classmethod
    def parse(cls, id: str, name: str, arguments_json: str) -> ToolCall:
        """Build a call from the raw arguments string; never raises on bad arguments.

        An empty string counts as no arguments (``{}``): some servers send it for tools
        without parameters.
        """
        try:
            parsed = json.loads(arguments_json) if arguments_json.strip() else {}
        except json.JSONDecodeError as exc:
            return cls(id, name, arguments_json, None, f"arguments are not valid JSON: {exc}")
        except (RecursionError, ValueError) as exc:
            # Nested too deep for the parser, or an integer over Python's digit limit: the
            # model's malformed call, answered as such (never an error of the harness).
            return cls(id, name, arguments_json, None, f"arguments cannot be read: {type(exc).__name__}")
        if not isinstance(parsed, dict):
            return cls(
                id,
                name,
                arguments_json,
                None,
                f"arguments are not a JSON object: got {type(parsed).__name__}",
            )
        return cls(id, name, arguments_json, parsed)


@dataclass(frozen=True)
class TokenCounts:
    """Token counts of one completion; 0 when the endpoint did not report them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class LLMResponse:
    """One assistant turn: text, tool calls, or both.

    ``cost_usd`` is None when the price of the model is unknown (local and scripted
    models). ``model`` is the name the endpoint reported, ``latency_s`` the wall time of
    the successful attempt.
    """

    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: TokenCounts = TokenCounts()
    cost_usd: float | None = None
    model: str = ""
    latency_s: float = 0.0
    finish_reason: str | None = None


class LLMError(EnvFactoryError):
    """A completion failed for good, after any retries.

    ``kind`` says what went wrong (``timeout``, ``rate_limit``, ``server``, ``connection``,
    ``access`` for 401/403/404, ``bad_request``, ``context_window`` or ``other``) so a
    caller can record it as the episode's termination reason rather than score it;
    ``attempts`` counts the requests made. ``endpoint_failed`` is True for the kinds in
    ``ENDPOINT_FAILURES``: the endpoint, not the model's answer, was the problem.
    """

    def __init__(self, model: str, kind: LLMErrorKind, attempts: int, cause: str) -> None:
        self.model = model
        self.kind: LLMErrorKind = kind
        self.attempts = attempts
        self.cause = cause
        plural = "" if attempts == 1 else "s"
        super().__init__(f"model {model!r} failed ({kind}) after {attempts} attempt{plural}: {cause}")

    @property
    def endpoint_failed(self) -> bool:
        return self.kind in ENDPOINT_FAILURES


class LLMClient(Protocol):
    """An async chat-completion endpoint for one model."""

    model: str

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> LLMResponse:
        """Send OpenAI-format ``messages`` (and ``tools``), return the assistant's turn.

        Raises ``LLMError`` when the endpoint cannot produce one; ``None`` options are
        left to the endpoint's defaults.
        """
        ...
