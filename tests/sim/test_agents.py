"""Agents on real retail tasks: the oracle replays gold, noop and random behave, the LLM agent
goes end to end through litellm to a scripted OpenAI server on 127.0.0.1."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import jsonschema
import pytest
from llm_server import SCRIPTED_USAGE, openai_server

from envfactory_mcp.env import Environment
from envfactory_mcp.llm import LiteLLMClient, LLMError, TokenCounts, ToolCall
from envfactory_mcp.records.trajectory import TOOL_ERROR_PREFIX
from envfactory_mcp.scoring.policy import asks_confirmation
from envfactory_mcp.sim.agents import (
    NOOP_MESSAGE,
    LLMAgent,
    NoopAgent,
    OracleAgent,
    RandomAgent,
    string_matching,
)
from envfactory_mcp.sim.types import AgentTurn, Message
from envfactory_mcp.sim.users import CONFIRM_REPLY
from envfactory_mcp.tasks.model import Task


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    made = retail_tasks(24, seed=5)
    assert {t.kind for t in made} == {"read", "write"}
    return made


@pytest.fixture(scope="module")
def tools(retail_env: Environment) -> list[dict[str, Any]]:
    """The retail tools in the OpenAI function format the host offers."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
        }
        for t in retail_env.spec.tools
    ]


async def drive(
    agent: Any, task: Task, tools: list[dict[str, Any]], tool_reply: str = "{}"
) -> list[AgentTurn]:
    """Run ``agent`` the way the host does, answering every call with ``tool_reply`` and
    a request for confirmation with the scripted user's yes, until it writes any other
    text (at most 30 turns)."""
    agent.start(task, tools, "policy")
    messages: list[Message] = [{"role": "user", "content": task.user_scenario.opening_message}]
    turns = []
    for _ in range(30):
        turn = await agent.act(list(messages))
        turns.append(turn)
        messages.append(turn.as_message())
        if not turn.tool_calls and asks_confirmation(turn.content or ""):
            messages.append({"role": "user", "content": CONFIRM_REPLY})
            continue
        if not turn.tool_calls:
            return turns
        for call in turn.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": tool_reply})
    raise AssertionError("the agent never wrote text")


# ---------------------------------------------------------------- oracle


async def test_oracle_emits_the_gold_calls_in_order_then_states_every_claim(tasks, tools):
    for task in tasks:
        turns = await drive(OracleAgent(), task, tools)
        *steps, final = turns
        calls = [t for t in steps if t.tool_calls]  # the others ask for confirmation
        assert len(steps) - len(calls) == sum(a.confirm for a in task.gold.actions)
        assert [len(t.tool_calls) for t in calls] == [1] * len(task.gold.actions)
        emitted = [t.tool_calls[0] for t in calls]
        assert [(c.name, c.arguments) for c in emitted] == [(a.name, a.arguments) for a in task.gold.actions]
        assert [c.id for c in emitted] == [f"call_{i}" for i in range(len(emitted))]
        assert all(json.loads(c.arguments_json) == c.arguments and c.error is None for c in emitted)
        assert final.content is not None and final.content.startswith("Done.")
        for claim in task.gold.claims:
            assert claim.text in final.content, (task.task_id, claim)


async def test_oracle_closing_message_names_each_claim_by_its_path():
    # A claim path "totals.refunded" is told as "refunded: <text>".
    task = Task.model_validate_json(
        _task_with_claims([("status", "cancelled"), ("totals.refunded", "219.82")])
    )
    agent = OracleAgent()
    agent.start(task, [], "")
    turn = await agent.act([{"role": "user", "content": "hi"}])
    assert turn.content == "Done. status: cancelled; refunded: 219.82." and not turn.tool_calls


async def test_oracle_moves_on_after_a_tool_error_and_records_it(tasks, tools):
    task = next(t for t in tasks if len(t.gold.actions) >= 3)
    error = f"{TOOL_ERROR_PREFIX} order not found"
    agent = OracleAgent()
    turns = await drive(agent, task, tools, tool_reply=error)
    assert [t.tool_calls[0].name for t in turns[:-1] if t.tool_calls] == [a.name for a in task.gold.actions]
    assert turns[-1].content is not None and not turns[-1].tool_calls
    assert agent.tool_errors == [error] * len(task.gold.actions)
    again = await drive(agent, task, tools)  # start() begins a fresh episode
    asks = sum(a.confirm for a in task.gold.actions)
    assert len(again) == len(task.gold.actions) + asks + 1 and agent.tool_errors == []


# ---------------------------------------------------------------- noop and random


async def test_noop_never_calls_tools(tasks, tools):
    agent = NoopAgent()
    assert agent.name == "noop"
    agent.start(tasks[0], tools, "policy")
    messages: list[Message] = [{"role": "user", "content": tasks[0].user_scenario.opening_message}]
    for _ in range(5):
        turn = await agent.act(messages)
        assert turn.tool_calls == [] and turn.content == NOOP_MESSAGE
        messages += [turn.as_message(), {"role": "user", "content": "Please do it."}]


async def random_calls(
    seed: int, task: Task, tools: list[dict[str, Any]], max_calls: int = 3
) -> list[ToolCall]:
    turns = await drive(RandomAgent(seed, max_calls=max_calls), task, tools)
    assert turns[-1].content and not turns[-1].tool_calls
    assert all(len(t.tool_calls) == 1 for t in turns[:-1])
    return [t.tool_calls[0] for t in turns[:-1]]


async def test_random_calls_are_schema_valid_and_offered(tasks, tools):
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    called = set()
    for seed in range(4):
        for task in tasks:
            calls = await random_calls(seed, task, tools)
            assert len(calls) == 3
            assert [c.id for c in calls] == ["call_0", "call_1", "call_2"]
            for call in calls:
                assert call.name in schemas and call.arguments is not None
                assert json.loads(call.arguments_json) == call.arguments
                jsonschema.Draft202012Validator(schemas[call.name]).validate(call.arguments)
                called.add(call.name)
    # Tools whose ids have a pattern (#W0000000, user_000000) are reached too, not only the easy ones.
    assert {"get_order_details", "get_user_details", "find_user_id_by_email"} <= called
    assert len(called) >= 10


async def test_random_is_deterministic_per_seed_and_task(tasks, tools):
    def key(calls: list[ToolCall]) -> list[tuple[str, str]]:
        return [(c.name, c.arguments_json) for c in calls]

    runs = {seed: [key(await random_calls(seed, t, tools)) for t in tasks[:8]] for seed in (1, 2)}
    assert runs[1] == [key(await random_calls(1, t, tools)) for t in tasks[:8]]
    assert runs[1] != runs[2]
    assert len({json.dumps(run) for run in runs[1]}) > 1  # the task id matters too


async def test_random_respects_max_calls_and_an_empty_tool_list(tasks, tools):
    assert len(await random_calls(0, tasks[0], tools, max_calls=1)) == 1
    assert await random_calls(0, tasks[0], [], max_calls=3) == []


@pytest.mark.parametrize(
    "pattern",
    [
        r"^[^@\s]+@[^@\s]+$",
        r"^#W[0-9]{7}$",
        r"^(credit_card|gift_card|paypal)_[0-9]{6}$",
        r"^\w+-\d{2,4}\s?\S*$",
        r"(?:ab|c)+x?.",
    ],
)
def test_string_matching_draws_strings_the_pattern_matches(pattern: str):
    rng = random.Random(7)
    drawn = {string_matching(pattern, rng) for _ in range(30)}
    assert all(re.search(pattern, s) for s in drawn)
    assert len(drawn) > 1


def test_string_matching_refuses_what_it_cannot_draw():
    with pytest.raises(ValueError, match="ASSERT"):
        string_matching(r"(?=a)b", random.Random(0))


# ---------------------------------------------------------------- the LLM agent over HTTP

MODEL = "openai/agent-model"


def llm_agent(base_url: str) -> LLMAgent:
    return LLMAgent(LiteLLMClient(MODEL, api_base=base_url, timeout_s=5, max_retries=1, backoff_s=0.01))


@pytest.mark.slow
async def test_llm_agent_turns_a_tool_call_reply_into_tool_calls_and_sends_policy_and_tools(
    tasks, tools, retail_env: Environment
):
    task = tasks[0]
    action = task.gold.actions[0]
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"name": action.name, "arguments": json.dumps(action.arguments)}]},
        {"content": "Your order is on its way."},
    ]
    policy = retail_env.spec.policy
    opening = [{"role": "user", "content": task.user_scenario.opening_message}]
    with openai_server(script) as server:
        agent = llm_agent(server.base_url)
        assert agent.name == "llm" and agent.client.model == MODEL
        agent.start(task, tools, policy)
        first = await agent.act(opening)
        second = await agent.act([*opening, first.as_message()])
    (call,) = first.tool_calls
    assert (call.name, call.arguments, call.error) == (action.name, action.arguments, None)
    assert first.content is None
    assert first.usage == TokenCounts(SCRIPTED_USAGE["prompt_tokens"], SCRIPTED_USAGE["completion_tokens"])
    assert (second.content, second.tool_calls) == ("Your order is on its way.", [])
    body = server.requests[0]
    assert body["messages"][0] == {"role": "system", "content": policy}
    assert body["messages"][1:] == opening
    assert body["tools"] == tools
    assert server.requests[1]["messages"][-1]["tool_calls"][0]["function"]["name"] == action.name


@pytest.mark.slow
async def test_llm_agent_keeps_a_malformed_call_as_data(tasks, tools):
    script = [{"tool_calls": [{"name": "get_order_details", "arguments": '{"order_id": "#W1'}]}]
    with openai_server(script) as server:
        agent = llm_agent(server.base_url)
        agent.start(tasks[0], tools, "policy")
        turn = await agent.act([{"role": "user", "content": "hi"}])
    (call,) = turn.tool_calls
    assert call.name == "get_order_details" and call.arguments is None
    assert call.arguments_json == '{"order_id": "#W1' and call.error and "JSON" in call.error


@pytest.mark.slow
async def test_llm_agent_raises_the_server_kind_when_every_attempt_fails(tasks, tools):
    with openai_server([{"status": 500}] * 3) as server:
        agent = llm_agent(server.base_url)
        agent.start(tasks[0], tools, "policy")
        with pytest.raises(LLMError) as caught:
            await agent.act([{"role": "user", "content": "hi"}])
    assert caught.value.kind == "server" and caught.value.attempts == 2
    assert len(server.requests) == 2


def _task_with_claims(claims: list[tuple[str, str]]) -> str:
    """A minimal valid task record whose gold has no actions and the given claims."""
    scenario = {
        "persona": "p",
        "known_info": [],
        "unknown_info": [],
        "reason_for_call": "check on my order",
        "instructions_overspecified": "",
        "opening_message": "hi",
        "calibration": {"method": "offline"},
    }
    gold = {
        "actions": [],
        "final_state_hash": "x",
        "diff": {},
        "claims": [{"tool": "t", "path": p, "value": v, "text": v} for p, v in claims],
    }
    return json.dumps(
        {
            "task_id": "t-1",
            "env": "retail",
            "servers": ["retail"],
            "kind": "read",
            "user_scenario": scenario,
            "initial_state": {"state_hash": "x"},
            "gold": gold,
            "provenance": {"sampler": "s", "seed": 0, "chain": [], "structure": "", "index": 0},
        }
    )
