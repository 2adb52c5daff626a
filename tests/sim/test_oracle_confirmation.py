"""The oracle asks for the user's yes before every write the policy wants confirmed, and
makes the call only after the user's reply: with the scripted user, its episodes break no
confirmation rule of the policy check (issue 24: the reward will count that rule)."""

from __future__ import annotations

import json

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.scoring.policy import NO_CONFIRMATION, affirms, asks_confirmation, policy_violations
from envfactory_mcp.sim.agents import OracleAgent, confirmation_request
from envfactory_mcp.sim.types import EpisodeView, Message, UserSimulator, UserTurn
from envfactory_mcp.sim.users import CONFIRM_REPLY, ScriptedUser
from envfactory_mcp.tasks.model import Task


class CountingView:
    """An ``EpisodeView`` over the conversation so far: writes are the write calls made."""

    def __init__(self, env: Environment, messages: list[Message]) -> None:
        self.writes = {t.name for t in env.spec.tools if t.effect == "write"}
        self.messages = messages

    async def goal_met(self) -> bool:
        return False

    def writes_done(self) -> int:
        return sum(
            call["function"]["name"] in self.writes
            for m in self.messages
            for call in m.get("tool_calls") or []
        )


class Refuser:
    """A user who answers every question with a no."""

    name = "refuser"

    def start(self, task: Task) -> str:
        return task.user_scenario.opening_message

    async def reply(self, messages: list[Message], view: EpisodeView) -> UserTurn:
        return UserTurn("No, wait, don't do that.")


async def episode(env: Environment, task: Task, user: UserSimulator) -> list[Message]:
    """The oracle and ``user`` the way the host runs them: a tool call is answered with the
    gold output, a text by the user, until the oracle's closing message."""
    agent = OracleAgent()
    agent.start(task, [], "policy")
    messages: list[Message] = [{"role": "user", "content": user.start(task)}]
    outputs = iter(task.gold.actions)
    for _ in range(60):
        turn = await agent.act(list(messages))
        messages.append(turn.as_message())
        for call in turn.tool_calls:
            content = json.dumps(next(outputs).output)
            messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": content})
        if turn.tool_calls:
            continue
        if turn.content and turn.content.startswith("Done."):
            return messages
        messages.append(
            {"role": "user", "content": (await user.reply(messages, CountingView(env, messages))).content}
        )
    raise AssertionError("the oracle never finished")


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    made = retail_tasks(24, seed=5)
    assert sum(a.confirm for t in made for a in t.gold.actions) >= 10
    return made


def test_the_confirmation_request_is_one_the_policy_check_reads_as_asking(tasks: list[Task]):
    for action in (a for t in tasks for a in t.gold.actions if a.confirm):
        text = confirmation_request(action)
        assert asks_confirmation(text) and text.endswith("Shall I go ahead?")
        assert action.name in text and all(
            str(v) in text for v in action.arguments.values() if isinstance(v, str) and v
        )
    assert affirms(CONFIRM_REPLY)


async def test_with_the_scripted_user_every_confirmed_write_has_its_yes(
    retail_env: Environment, tasks: list[Task]
):
    for task in tasks:
        messages = await episode(retail_env, task, ScriptedUser())
        calls = [c["function"]["name"] for m in messages for c in m.get("tool_calls") or []]
        assert calls == [a.name for a in task.gold.actions], task.task_id
        assert policy_violations(messages, retail_env.spec) == [], task.task_id
        for i, message in enumerate(messages):
            call = (message.get("tool_calls") or [{}])[0].get("function", {}).get("name")
            if call in retail_env.spec.policy_rules.confirm:
                # Asked, answered yes, then called: the turn right before the call.
                ask, reply = messages[i - 2], messages[i - 1]
                assert ask["role"] == "assistant" and asks_confirmation(ask["content"]), task.task_id
                assert reply["role"] == "user" and affirms(reply["content"]), (task.task_id, reply)


async def test_a_write_the_user_does_not_agree_to_is_still_made_after_the_reply(
    retail_env: Environment, tasks: list[Task]
):
    task = next(t for t in tasks if any(a.confirm for a in t.gold.actions))
    messages = await episode(retail_env, task, Refuser())
    calls = [c["function"]["name"] for m in messages for c in m.get("tool_calls") or []]
    assert calls == [a.name for a in task.gold.actions]  # a consistency check leaves nothing out
    violations = policy_violations(messages, retail_env.spec)
    assert violations and all(v.endswith(NO_CONFIRMATION) for v in violations)
    assert len(violations) == sum(a.confirm for a in task.gold.actions)
