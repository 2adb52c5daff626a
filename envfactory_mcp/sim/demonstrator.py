"""The demonstrator: a scripted agent whose episodes are fit to be SFT data.

It knows the task's gold plan (which calls, in which order) but behaves as a careful human
agent following the policy would, so a model trained on its episodes learns the behaviour
and not the privilege:

* it asks the user for what the next call needs and the user has not said yet (who they
  are, before the authentication call; a detail the user held back, before the write
  that uses it), and never types a value that did not come from the user or a tool;
* before every call the policy wants confirmed (``GoldAction.confirm``), it states the
  exact action and waits for an explicit yes;
* after each goal it tells the user what happened in words (every claim of that goal);
  a refused request is explained with the policy's reason; a request no tool serves is
  handed to a human;
* one tool call per turn, and never text in the same turn as a call.

It follows the gold's calls, so it is correct by construction but privileged: it opens a
described object directly. The default source of demonstrations is
``sim.planner.BlindDemonstrator``, which decides from the user's side and the tools'
outputs only; this one stays under the agent name ``gold-replay`` (``--agent gold-replay``)
as a guaranteed-correct reference for tests and consistency checks, and under the
metamorphic agents. Its phrasing varies with a per-task seed.
"""

from __future__ import annotations

import json
import random
from typing import Any

from envfactory_mcp.llm import ToolCall
from envfactory_mcp.sim.speech import PlainSpeaker, Speaker
from envfactory_mcp.sim.types import AgentTurn, Message
from envfactory_mcp.tasks.addresses import ADDRESS_PARTS
from envfactory_mcp.tasks.model import Claim, Fact, GoalOutcome, GoldAction, Task
from envfactory_mcp.tasks.oracle import leaves

ASK_LIMIT = 2  # times the same question is asked before going on without an answer


class DemonstratorAgent:
    """Scripted, policy-following agent (see the module doc)."""

    name = "demonstrator"

    def __init__(self, seed: int = 0, voice: str = "varied", spec: Any = None) -> None:
        self.seed = seed
        self.voice = voice  # "varied" (sim/speech.Speaker) or "plain" (the fixed frames)
        self.spec = spec  # the environment's, for enum values' display words
        self._speech: Speaker | PlainSpeaker = PlainSpeaker(random.Random())
        self._task: Task | None = None
        self._offered: set[str] = set()
        self._rng = random.Random()
        self._next = 0
        self._asked: dict[str, int] = {}
        self._awaiting_yes: int | None = None
        self._confirmed: int | None = None
        self._told: set[int] = set()
        self._greeted = False

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self._task = task
        self._offered = {t["function"]["name"] for t in tools}
        self._rng = random.Random(f"demonstrator:{self.seed}:{task.task_id}")
        self._speech = (
            PlainSpeaker(self._rng) if self.voice == "plain" else Speaker(self.seed, task.task_id, self.spec)
        )
        self._next = 0
        self._asked = {}
        self._awaiting_yes = None
        self._confirmed = None
        self._told = set()
        self._greeted = False

    async def act(self, messages: list[Message]) -> AgentTurn:
        task = self._task
        if task is None:
            raise RuntimeError("DemonstratorAgent.act() before start()")
        said = _user_text(messages)
        if self._awaiting_yes is not None:
            if _last_user_affirms(messages):
                self._confirmed = self._awaiting_yes
            self._awaiting_yes = None
        report = self._report_finished(task)
        actions = task.gold.actions
        if self._next >= len(actions):
            return self._say([*report, self._speech.close()])
        action = actions[self._next]
        missing = self._unstated(task, action, said)
        if missing:
            missing = [f for f in missing if f.kind == "identity"] or _group(missing)[0]
            key = "|".join(f.key for f in missing)
            if self._asked.get(key, 0) < ASK_LIMIT:
                self._asked[key] = self._asked.get(key, 0) + 1
                return self._say([*report, self._question(missing)])
        goal = self._goal_of(task, self._next)
        if action.confirm and self._confirmed != self._next:
            self._awaiting_yes = self._next
            lead = self._before_write(task, goal, action)
            intent = goal.intent if goal is not None and goal.tool == action.name else None
            text = self._speech.confirm(action, messages, intent)
            return self._say(report + lead + [text])
        if report:
            return self._say(report)  # results before the next call: never text and a call in one turn
        return self._call(action)

    # ---------------------------------------------------------------- turns

    def _say(self, parts: list[str]) -> AgentTurn:
        if not self._greeted and self._next == 0:  # a greeting only as the first thing said
            parts = [self._speech.greeting(), *parts]
        self._greeted = True
        return AgentTurn(content=" ".join(p for p in parts if p))

    def _call(self, action: GoldAction) -> AgentTurn:
        namespaced = f"{action.server}__{action.name}"
        name = namespaced if namespaced in self._offered else action.name
        call = ToolCall.parse(f"call_{self._next}", name, json.dumps(action.arguments))
        self._next += 1
        return AgentTurn(tool_calls=[call])

    # ---------------------------------------------------------------- what to ask

    def _unstated(self, task: Task, action: GoldAction, said: str) -> list[Fact]:
        """Facts the next call depends on that the user has not said: its own argument
        values, and, before a goal's first write, every detail of that goal."""
        values = {json.dumps(v, default=str) for v in leaves(action.arguments)}
        goal = self._goal_of(task, self._next)
        first_write = action.confirm and not any(
            task.gold.actions[i].confirm for i in (goal.actions if goal else []) if i < self._next
        )
        missing: list[Fact] = []
        own = self._goal_index(task, goal) if goal is not None else None
        for fact in task.user_scenario.known_info:
            uses = json.dumps(fact.value, default=str) in values
            held = first_write and fact.goal == own and not fact.in_opening
            if (uses or held) and not _stated(fact, said):
                missing.append(fact)
        return missing

    def _question(self, facts: list[Fact]) -> str:
        identity = [f for f in facts if f.kind == "identity"]
        if identity:
            return self._speech.identity(identity)
        return self._speech.ask_for(_group(facts)[0])  # one question at a time

    # ---------------------------------------------------------------- what to tell

    def _goal_of(self, task: Task, action_index: int) -> GoalOutcome | None:
        return next((g for g in task.gold.goals if action_index in g.actions), None)

    def _goal_index(self, task: Task, goal: GoalOutcome) -> int:
        return task.gold.goals.index(goal)

    def _report_finished(self, task: Task) -> list[str]:
        """A sentence for every goal whose calls are all done and that was not told yet."""
        parts: list[str] = []
        for index, goal in enumerate(task.gold.goals):
            if index in self._told or any(i >= self._next for i in goal.actions):
                continue
            self._told.add(index)
            parts.append(self._result(task, index, goal))
        return [p for p in parts if p]

    def _result(self, task: Task, index: int, goal: GoalOutcome) -> str:
        main = _main_action(task, goal)
        claims = self._claims_of(task, index, goal)
        subject = self._speech.subject(main)
        if goal.kind == "transfer":
            return self._speech.transfer(goal.request or "this")
        lead = goal.kind not in ("refuse", "contingent") or goal.taken == "then"
        element = next(
            (
                f.text
                for f in reversed(task.user_scenario.known_info)
                if f.goal == index and f.kind == "reference"
            ),
            None,
        )
        facts = self._speech.claims(claims, subject, main, lead=lead, element=element)
        if goal.kind == "refuse" or (
            goal.kind == "contingent"
            and goal.taken == "otherwise"
            and goal.otherwise
            and not _is_write_goal(task, goal)
        ):
            requested = goal.requested or "do that"
            return (
                f"{facts} {self._speech.refusal(requested, goal.reason or '')}"
                if goal.kind == "refuse"
                else f"{facts} {self._speech.unmet(goal.condition or '', requested)}"
            )
        return facts

    def _claims_of(self, task: Task, index: int, goal: GoalOutcome) -> list[Claim]:
        return [c for c in task.gold.claims if c.goal == index]

    def _before_write(self, task: Task, goal: GoalOutcome | None, action: GoldAction) -> list[str]:
        """For a contingent goal: what the agent found, and which branch that means."""
        if goal is None or goal.kind != "contingent" or action.name != goal.tool:
            return []
        if goal.taken == "then":
            return [self._speech.met(self._speech.subject(action), goal.condition or "")]
        return [self._speech.instead(self._speech.subject(action), goal.otherwise or "")]


# ---------------------------------------------------------------- phrasing helpers


def _user_text(messages: list[Message]) -> str:
    return "\n".join(
        str(m.get("content"))
        for m in messages
        if m.get("role") == "user" and isinstance(m.get("content"), str)
    ).casefold()


def _last_user_affirms(messages: list[Message]) -> bool:
    from envfactory_mcp.scoring.policy import affirms

    for message in reversed(messages):
        if message.get("role") == "user":
            return affirms(str(message.get("content") or ""))
    return False


def _stated(fact: Fact, said: str) -> bool:
    return all(m.casefold() in said for m in fact.must)


def _group(facts: list[Fact]) -> list[list[Fact]]:
    """Facts asked together: the parts of one address, else one by one."""
    groups: list[list[Fact]] = []
    address: list[Fact] = []
    for fact in facts:
        if fact.key.rsplit(".", 1)[-1] in ADDRESS_PARTS:
            address.append(fact)
        else:
            groups.append([fact])
    return ([address] if address else []) + groups


def _main_action(task: Task, goal: GoalOutcome) -> GoldAction | None:
    """The goal's own call (lookups before it and checks after it aside)."""
    own = [task.gold.actions[i] for i in goal.actions if task.gold.actions[i].name == goal.tool]
    return own[-1] if own else None


def _is_write_goal(task: Task, goal: GoalOutcome) -> bool:
    return any(task.gold.actions[i].confirm for i in goal.actions)
