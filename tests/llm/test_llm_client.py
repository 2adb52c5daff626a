"""The LLM layer end to end: litellm over real HTTP to a scripted OpenAI server on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from typing import Any

import anyio
import pytest
from llm_server import SCRIPTED_USAGE, openai_server

from envfactory_mcp.llm import (
    LiteLLMClient,
    LLMError,
    LLMResponse,
    ScriptedLLM,
    ScriptExhaustedError,
    TokenCounts,
    ToolCall,
)
from envfactory_mcp.llm.litellm_client import load_litellm

pytestmark = pytest.mark.slow  # importing litellm alone takes seconds

MODEL = "openai/scripted-model"
HELLO = [{"role": "user", "content": "hello"}]
LOOKUP_TOOL = {
    "type": "function",
    "function": {
        "name": "get_order",
        "description": "Look up an order.",
        "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
    },
}


@pytest.fixture(autouse=True, scope="module")
def _litellm_imported() -> None:
    """Pay litellm's import once up front, so timing assertions measure only the calls."""
    load_litellm()


def client(base_url: str, *, timeout_s: float = 5.0, max_retries: int = 3) -> LiteLLMClient:
    """A client with short backoff, so retry tests stay fast."""
    return LiteLLMClient(
        MODEL, api_base=base_url, timeout_s=timeout_s, max_retries=max_retries, backoff_s=0.01
    )


async def test_text_reply_carries_usage_and_model() -> None:
    with openai_server([{"content": "hi there"}]) as server:
        reply = await client(server.base_url).complete(HELLO)
    assert reply.content == "hi there"
    assert reply.tool_calls == []
    assert reply.usage == TokenCounts(SCRIPTED_USAGE["prompt_tokens"], SCRIPTED_USAGE["completion_tokens"])
    assert reply.finish_reason == "stop"
    assert reply.model == "scripted-model"
    assert reply.cost_usd is None  # litellm has no price for it
    assert 0 < reply.latency_s < 5


async def test_request_body_holds_messages_tools_and_bare_model_name() -> None:
    with openai_server([{"content": "ok"}]) as server:
        await client(server.base_url).complete(HELLO, tools=[LOOKUP_TOOL], temperature=0.25, max_tokens=64)
    (body,) = server.requests
    assert body["model"] == "scripted-model"
    assert body["messages"] == HELLO
    assert body["tools"] == [LOOKUP_TOOL]
    assert body["temperature"] == 0.25
    assert body["max_tokens"] == 64
    assert not body.get("stream")


async def test_tool_calls_are_parsed() -> None:
    calls = [
        {"name": "get_order", "arguments": '{"order_id": "O-1"}'},
        {"name": "list_orders", "arguments": ""},
    ]
    with openai_server(
        [{"tool_calls": calls, "usage": {"prompt_tokens": 3, "completion_tokens": 2}}]
    ) as server:
        reply = await client(server.base_url).complete(HELLO, tools=[LOOKUP_TOOL])
    assert reply.finish_reason == "tool_calls"
    assert reply.usage == TokenCounts(3, 2)
    first, second = reply.tool_calls
    assert (first.name, first.arguments, first.error) == ("get_order", {"order_id": "O-1"}, None)
    assert first.arguments_json == '{"order_id": "O-1"}'
    assert first.id and first.id != second.id
    assert (second.name, second.arguments, second.error) == ("list_orders", {}, None)


async def test_malformed_tool_arguments_are_data_not_errors() -> None:
    calls = [
        {"name": "get_order", "arguments": '{"order_id": "O-1"'},
        {"name": "get_order", "arguments": "[1, 2]"},
    ]
    with openai_server([{"tool_calls": calls}]) as server:
        reply = await client(server.base_url).complete(HELLO, tools=[LOOKUP_TOOL])
    broken, not_object = reply.tool_calls
    assert broken.arguments is None
    assert broken.arguments_json == '{"order_id": "O-1"'
    assert broken.error is not None and broken.error.startswith("arguments are not valid JSON")
    assert not_object.arguments is None
    assert not_object.error == "arguments are not a JSON object: got list"


async def test_concurrent_completions_each_get_their_reply() -> None:
    with openai_server([{"content": "same"}] * 8) as server:
        llm = client(server.base_url)
        replies: list[str | None] = []

        async def ask() -> None:
            replies.append((await llm.complete(HELLO)).content)

        async with anyio.create_task_group() as group:
            for _ in range(8):
                group.start_soon(ask)
    assert replies == ["same"] * 8
    assert len(server.requests) == 8


async def test_server_error_then_success_is_retried() -> None:
    with openai_server([{"status": 500}, {"content": "recovered"}]) as server:
        reply = await client(server.base_url, max_retries=2).complete(HELLO)
    assert reply.content == "recovered"
    assert len(server.requests) == 2


async def test_server_error_on_every_attempt_raises_server_kind() -> None:
    script: list[dict[str, Any]] = [{"status": 500}] * 3 + [{"content": "too late"}]
    with openai_server(script) as server, pytest.raises(LLMError) as caught:
        await client(server.base_url, max_retries=2).complete(HELLO)
    assert caught.value.kind == "server"
    assert caught.value.attempts == 3
    assert len(server.requests) == 3
    assert MODEL in str(caught.value) and "scripted error 500" in str(caught.value)


async def test_slow_reply_times_out_after_retries() -> None:
    replies = [{"delay": 3.0, "content": "late"}] * 2
    with openai_server(replies) as server:
        started = time.monotonic()
        with pytest.raises(LLMError) as caught:
            await client(server.base_url, timeout_s=0.5, max_retries=1).complete(HELLO)
        elapsed = time.monotonic() - started
    assert (caught.value.kind, caught.value.attempts) == ("timeout", 2)
    assert len(server.requests) == 2
    assert elapsed < 3.0  # each attempt was cut at timeout_s, not at the reply's delay


async def test_trickling_reply_is_bounded_by_the_attempt_deadline() -> None:
    # Every byte arrives well within timeout_s, so only the whole-attempt deadline stops it.
    with openai_server([{"trickle": 0.05, "content": "drip"}]) as server:
        started = time.monotonic()
        with pytest.raises(LLMError) as caught:
            await client(server.base_url, timeout_s=0.3, max_retries=0).complete(HELLO)
        elapsed = time.monotonic() - started
    assert (caught.value.kind, caught.value.attempts) == ("timeout", 1)
    assert elapsed < 3.0


async def test_rate_limit_is_retried_then_reported() -> None:
    with openai_server([{"status": 429}] * 2) as server, pytest.raises(LLMError) as caught:
        await client(server.base_url, max_retries=1).complete(HELLO)
    assert (caught.value.kind, caught.value.attempts) == ("rate_limit", 2)
    assert len(server.requests) == 2


async def test_bad_request_is_not_retried() -> None:
    script: list[dict[str, Any]] = [{"status": 400}, {"content": "would have worked"}]
    with openai_server(script) as server, pytest.raises(LLMError) as caught:
        await client(server.base_url, max_retries=3).complete(HELLO)
    assert (caught.value.kind, caught.value.attempts) == ("bad_request", 1)
    assert server.remaining == 1


@pytest.mark.parametrize("status", [401, 403, 404])
async def test_a_refused_key_model_or_url_is_access_not_retried_and_an_endpoint_failure(status: int) -> None:
    script: list[dict[str, Any]] = [{"status": status}, {"content": "unused"}]
    with openai_server(script) as server, pytest.raises(LLMError) as caught:
        await client(server.base_url, max_retries=3).complete(HELLO)
    assert (caught.value.kind, caught.value.attempts) == ("access", 1)
    assert caught.value.endpoint_failed and server.remaining == 1


async def test_only_an_endpoint_that_could_not_answer_is_an_endpoint_failure() -> None:
    script: list[dict[str, Any]] = [
        {"status": 200, "body": "not a completion"},  # the endpoint broke: litellm reports a 500
        {"status": 400},  # the request was refused as it was made
        {
            "status": 200,
            "body": {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []},
        },
    ]
    kinds = []
    with openai_server(script) as server:
        for _ in script:
            with pytest.raises(LLMError) as caught:
                await client(server.base_url, max_retries=0).complete(HELLO)
            kinds.append((caught.value.kind, caught.value.endpoint_failed))
    assert kinds == [("server", True), ("bad_request", False), ("other", False)]


async def test_context_window_error_has_its_own_kind() -> None:
    body = {
        "error": {
            "message": "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    script: list[dict[str, Any]] = [{"status": 400, "body": body}, {"content": "unused"}]
    with openai_server(script) as server, pytest.raises(LLMError) as caught:
        await client(server.base_url, max_retries=3).complete(HELLO)
    assert (caught.value.kind, caught.value.attempts) == ("context_window", 1)
    assert server.remaining == 1


async def test_a_refused_connection_is_reported_at_once_not_retried() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago, with nobody listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(LLMError) as caught:
        await client(f"http://127.0.0.1:{port}/v1", max_retries=3).complete(HELLO)
    assert (caught.value.kind, caught.value.attempts) == ("connection", 1)


async def test_a_timeout_in_the_completion_args_is_the_attempts_deadline() -> None:
    """``--agent-args '{"timeout": ...}'`` lets a slow model be waited for: it is the
    client's own deadline, not only litellm's, and it is not sent twice."""
    with openai_server([{"delay": 1.5, "content": "slow but fine"}]) as server:
        slow = LiteLLMClient(MODEL, api_base=server.base_url, timeout_s=0.2, completion_args={"timeout": 30})
        assert slow.timeout_s == 30.0 and "timeout" not in slow.completion_args
        reply = await slow.complete(HELLO)
    assert reply.content == "slow but fine"


async def test_exhausted_server_script_answers_500() -> None:
    with openai_server([]) as server, pytest.raises(LLMError) as caught:
        await client(server.base_url, max_retries=0).complete(HELLO)
    assert caught.value.kind == "server"
    assert "script exhausted" in str(caught.value)


def test_local_endpoint_gets_a_placeholder_key() -> None:
    assert LiteLLMClient(MODEL, api_base="http://127.0.0.1:1/v1").api_key == "not-needed"
    assert LiteLLMClient(MODEL, api_base="http://127.0.0.1:1/v1", api_key="k").api_key == "k"
    assert LiteLLMClient("gpt-4o").api_key is None  # litellm reads the provider's own variable


def test_backoff_jitter_is_seeded() -> None:
    def delays(seed: int) -> list[float]:
        llm = LiteLLMClient(MODEL, backoff_s=1.0, seed=seed)
        return [llm._backoff(attempt) for attempt in (1, 2, 3)]

    assert delays(7) == delays(7) != delays(8)
    assert all(2 ** (n - 1) <= d < 1.5 * 2 ** (n - 1) for n, d in enumerate(delays(7), start=1))


def test_importing_the_package_does_not_import_litellm() -> None:
    code = "import sys, envfactory_mcp.llm; sys.exit('litellm' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False, timeout=60).returncode == 0


def test_tool_call_parse() -> None:
    assert ToolCall.parse("c1", "f", '{"a": 1}') == ToolCall("c1", "f", '{"a": 1}', {"a": 1}, None)
    assert ToolCall.parse("c1", "f", "  ").arguments == {}
    bad = ToolCall.parse("c1", "f", "{nope")
    assert bad.arguments is None and bad.error and "not valid JSON" in bad.error
    # Hostile but well-formed JSON the parser cannot take: the model's malformed call, not a crash.
    deep = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    too_deep = ToolCall.parse("c1", "f", deep)
    assert too_deep.arguments is None and too_deep.error and "RecursionError" in too_deep.error
    huge = ToolCall.parse("c1", "f", '{"n": ' + "9" * 5000 + "}")
    assert huge.arguments is None and huge.error and "ValueError" in huge.error


async def test_scripted_llm_plays_back_and_records() -> None:
    boom = LLMError("scripted", "server", 1, "scripted outage")
    llm = ScriptedLLM([LLMResponse(content="first"), boom])
    messages = [{"role": "user", "content": "hi"}]
    first = await llm.complete(messages, tools=[LOOKUP_TOOL], temperature=0.0)
    messages.append({"role": "assistant", "content": "first"})
    with pytest.raises(LLMError) as caught:
        await llm.complete(messages, max_tokens=5)
    assert first.content == "first"
    assert caught.value is boom
    assert [len(r.messages) for r in llm.requests] == [1, 2]  # copies, not the caller's growing list
    assert llm.requests[0].tools == [LOOKUP_TOOL] and llm.requests[0].temperature == 0.0
    assert llm.requests[1].max_tokens == 5
    with pytest.raises(ScriptExhaustedError, match="ran out of replies: request 3"):
        await llm.complete(messages)
    assert llm.remaining == 0
