"""Eval's own scripted agents (no model endpoint), checks of the scorer beside ``sim.agents``
(``eval.main.agent_factory`` adds ``coinflip`` to the host's agents).

CoinFlipAgent   for each task a seeded draw decides how many gold steps it makes (0
                to all) and then states the claims those steps showed: a scorer
                check that lands between noop and the oracle
WrongToolAgent  replays the gold but calls ``swap[tool]`` instead of a tool the task
                needs (same arguments), then says it is done: the "wrong tool"
                failure class on purpose
"""

from __future__ import annotations

import json
import random
from typing import Any

from envfactory_mcp.llm import ToolCall
from envfactory_mcp.sim.types import AgentTurn, Message
from envfactory_mcp.tasks.model import Task

SEP = "__"


def _claims_text(task: Task, upto: int) -> str:
    tools = {a.name for a in task.gold.actions[:upto]}
    parts = [
        f"{c.path.rsplit('.', 1)[-1].replace('_', ' ')}: {c.text}"
        for c in task.gold.claims
        if c.tool in tools
    ]
    return "Done. " + "; ".join(parts) + "." if parts else "Done."


class CoinFlipAgent:
    name = "coinflip"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._task: Task | None = None
        self._steps = 0
        self._next = 0
        self._offered: set[str] = set()

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self._task = task
        self._steps = random.Random(f"coinflip:{self.seed}:{task.task_id}").randint(0, len(task.gold.actions))
        self._next = 0
        self._offered = {t["function"]["name"] for t in tools}

    async def act(self, messages: list[Message]) -> AgentTurn:
        task = self._task
        if task is None:
            raise RuntimeError("act() before start()")
        if self._next < self._steps:
            action = task.gold.actions[self._next]
            name = f"{action.server}{SEP}{action.name}"
            call = ToolCall.parse(
                f"call_{self._next}",
                name if name in self._offered else action.name,
                json.dumps(action.arguments),
            )
            self._next += 1
            return AgentTurn(tool_calls=[call])
        return AgentTurn(content=_claims_text(task, self._steps) if self._steps else "I could not do this.")


class WrongToolAgent:
    """``swap`` maps a needed tool (namespaced) to the tool called instead."""

    name = "wrong_tool"

    def __init__(self, swap: dict[str, str]) -> None:
        self.swap = swap
        self._task: Task | None = None
        self._next = 0

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self._task = task
        self._next = 0

    async def act(self, messages: list[Message]) -> AgentTurn:
        task = self._task
        if task is None:
            raise RuntimeError("act() before start()")
        if self._next < len(task.gold.actions):
            action = task.gold.actions[self._next]
            name = f"{action.server}{SEP}{action.name}"
            call = ToolCall.parse(
                f"call_{self._next}", self.swap.get(name, name), json.dumps(action.arguments)
            )
            self._next += 1
            return AgentTurn(tool_calls=[call])
        return AgentTurn(content="Done.")
