"""Contracts between the episode loop, agents and simulated users.

Messages are OpenAI chat-format dicts from the agent's point of view:
``{"role": "system" | "user" | "assistant" | "tool", "content": ...}``; an assistant
message may carry ``tool_calls`` (``[{"id", "type": "function", "function": {"name",
"arguments": <JSON string>}}]``) and each tool result is ``{"role": "tool",
"tool_call_id", "content"}``. Tools are offered in OpenAI function format
(``{"type": "function", "function": {"name", "description", "parameters"}}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from envfactory_mcp.llm import TokenCounts, ToolCall
from envfactory_mcp.tasks.model import Task

STOP = "###STOP###"
TRANSFER = "###TRANSFER###"
OUT_OF_SCOPE = "###OUT-OF-SCOPE###"
STOP_TOKENS = (STOP, TRANSFER, OUT_OF_SCOPE)

Message = dict[str, Any]


@dataclass
class AgentTurn:
    """One agent step: text for the user, or tool calls (or both)."""

    content: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: TokenCounts | None = None
    cost_usd: float | None = None

    def as_message(self) -> Message:
        """The turn as an OpenAI assistant message (tool-call arguments as sent, a JSON string)."""
        message: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
                for c in self.tool_calls
            ]
        return message


@dataclass
class UserTurn:
    """One simulated-user message; it may contain a stop token."""

    content: str
    usage: TokenCounts | None = None
    cost_usd: float | None = None

    @property
    def stop_token(self) -> str | None:
        return next((t for t in STOP_TOKENS if t in self.content), None)


class EpisodeView(Protocol):
    """What a simulated user may ask the host beyond the conversation (scripted users
    use it to know when their goal is met; LLM users to avoid stopping too early)."""

    async def goal_met(self) -> bool: ...

    def writes_done(self) -> int: ...


class Agent(Protocol):
    name: str

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        """Called once per episode before the first ``act``."""

    async def act(self, messages: list[Message]) -> AgentTurn: ...


class UserSimulator(Protocol):
    name: str

    def start(self, task: Task) -> str:
        """Called once per episode; returns the opening message."""

    async def reply(self, messages: list[Message], view: EpisodeView) -> UserTurn: ...
