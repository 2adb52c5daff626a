"""Eval's own scripted agents (no model endpoint), checks of the scorer beside ``sim.agents``
(``eval.main.agent_factory`` adds ``coinflip`` to the host's agents).

CoinFlipAgent   for each task a seeded draw decides how many gold steps it makes (0
                to all) and then states the claims those steps showed: a scorer
                check that lands between noop and the oracle
SkipReadAgent   replays the gold but skips the reads on the server a value flows from
                (``eval.valueflow``) and guesses the value instead (a day later,
                one more, another address), then tells what its own calls showed:
                a value-flow task must fail it
WrongToolAgent  replays the gold but calls ``swap[tool]`` instead of a tool the task
                needs (same arguments), then says it is done: the "wrong tool"
                failure class on purpose
"""

from __future__ import annotations

import json
import random
from typing import Any

from envfactory_mcp.llm import ToolCall
from envfactory_mcp.sim.agents import OracleAgent
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


class SkipReadAgent(OracleAgent):
    """The oracle without the read a value-flow task needs: the gold actions on the task's
    own server (where a value-flow chain reads its value) are left out; an argument of a
    later call on another server that only those reads showed (not the user's message) is
    guessed instead (``valueflow.guess``). Confirmations are asked as the oracle asks them,
    and the closing message tells what its own calls returned at the claims' paths."""

    name = "skip-read"

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        from envfactory_mcp.eval.valueflow import guess

        actions = task.gold.actions
        said = task.user_scenario.opening_message
        skipped = [a for a in actions if a.server == task.env]
        kept = [a for a in actions if a.server != task.env] if len(skipped) < len(actions) else actions
        seen = json.dumps([a.output for a in skipped], default=str) if kept is not actions else ""
        played = []
        for action in kept:
            arguments = {
                key: guess(value) if _only_read(value, seen, said) else value
                for key, value in action.arguments.items()
            }
            played.append(action.model_copy(update={"arguments": arguments}))
        super().start(
            task.model_copy(update={"gold": task.gold.model_copy(update={"actions": played})}),
            tools,
            system_prompt,
        )

    def closing(self, task: Task, messages: list[Message]) -> str:
        return _told(task, messages)


def _only_read(value: Any, seen: str, said: str) -> bool:
    """A value the skipped reads showed and the user never said (not an id: ids the agent
    could not reach are left as they are, a guess would not make them)."""
    if isinstance(value, bool) or value in (None, "") or isinstance(value, dict | list):
        return False
    text = json.dumps(value)
    return text in seen and str(value) not in said and not str(value).rsplit("_", 1)[-1].isdigit()


def _told(task: Task, messages: list[Message]) -> str:
    """The claims as its own tool results hold them: ``Done. <label>: <value>; ...``."""
    from envfactory_mcp.eval.compose import values_at

    names: dict[str, str] = {}
    results: dict[str, list[Any]] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            names[str(call.get("id"))] = str(call["function"]["name"]).rsplit(SEP, 1)[-1]
        if message.get("role") == "tool":
            tool = names.get(str(message.get("tool_call_id")))
            try:
                output = json.loads(str(message.get("content")))
            except ValueError:
                continue
            if tool:
                results.setdefault(tool, []).append(output)
    parts = []
    for claim in task.gold.claims:
        for output in results.get(claim.tool, [])[-1:]:
            for value, _, _ in values_at(output, claim.path)[:1]:
                parts.append(f"{claim.path.rsplit('.', 1)[-1].replace('_', ' ')}: {value}")
    return "Done. " + "; ".join(parts) + "." if parts else "Done."
