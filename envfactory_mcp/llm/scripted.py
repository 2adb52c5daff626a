"""``ScriptedLLM``: a test and offline double of ``LLMClient`` that plays back a script.

It never talks to a model. Each ``complete`` call returns (or raises) the next scripted
reply and records what it was asked, so tests can drive agents, user simulators and
synthesis loops deterministically and then check the prompts they sent.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.llm.client import LLMResponse


class ScriptExhaustedError(EnvFactoryError):
    """The code under test asked a ``ScriptedLLM`` for more replies than were scripted.

    Deliberately not an ``LLMError``: it is a bug in the test or script, and must not be
    mistaken for an endpoint failure and recorded as a termination reason.
    """


@dataclass(frozen=True)
class ScriptedRequest:
    """One call a ``ScriptedLLM`` received; ``messages`` and ``tools`` are deep copies."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    temperature: float | None
    max_tokens: int | None


class ScriptedLLM:
    """Returns ``replies`` in order; an ``Exception`` in the script is raised instead.

    ``requests`` lists every call received, including the one that hits the end of the
    script, which raises ``ScriptExhaustedError``.
    """

    def __init__(self, replies: list[LLMResponse | Exception], model: str = "scripted") -> None:
        self.model = model
        self._replies = list(replies)
        self.requests: list[ScriptedRequest] = []

    @property
    def remaining(self) -> int:
        return len(self._replies)

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> LLMResponse:
        """Record the request, then return or raise the next scripted reply."""
        # Copies, because callers usually keep appending to the same message list.
        self.requests.append(
            ScriptedRequest(copy.deepcopy(messages), copy.deepcopy(tools), temperature, max_tokens)
        )
        if not self._replies:
            raise ScriptExhaustedError(
                f"ScriptedLLM {self.model!r} ran out of replies: request {len(self.requests)} "
                f"has no scripted answer (the script had {len(self.requests) - 1})"
            )
        reply = self._replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply
