"""What text-in / text-out trainers need around ``EnvFactoryEnv``: the policy's decoded
text as an assistant message (tool calls in the Hermes / Qwen ``<tool_call>`` form), and
a private event loop in a thread for trainers whose environments are synchronous
(SkyRL's ``step``, OpenEnv's ``Environment``).

A ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` block is a tool call; the
text outside the blocks is the message's content. A block whose JSON cannot be read
still goes to the episode as a call with its raw text as arguments, so the episode
answers it with a tool error, as it answers a model's malformed call.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_NAME = re.compile(r'"name"\s*:\s*"([^"]*)"')


def parse_text_action(text: str) -> dict[str, Any]:
    """The policy's decoded text as an OpenAI assistant message."""
    calls: list[dict[str, Any]] = []
    for index, match in enumerate(_CALL.finditer(text)):
        body = match.group(1)
        try:
            data = json.loads(body)
        except ValueError:
            named = _NAME.search(body)
            name, arguments = (named.group(1) if named else ""), body
        else:
            if not isinstance(data, dict):
                name, arguments = "", body
            else:
                name = str(data.get("name", ""))
                raw = data.get("arguments", data.get("parameters", {}))
                arguments = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
        calls.append(
            {"id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": arguments}}
        )
    content = _CALL.sub("", text).strip()
    message: dict[str, Any] = {"role": "assistant", "content": content or None}
    if calls:
        message["tool_calls"] = calls
    return message


def tool_call_text(name: str, arguments: dict[str, Any]) -> str:
    """A tool call written as a policy writes it in text (the inverse of the parser)."""
    return (
        "<tool_call>"
        + json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
        + "</tool_call>"
    )


class LoopThread:
    """One event loop in a daemon thread: synchronous callers run coroutines on it, so the
    MCP connections opened there live as long as the loop (one per process is enough)."""

    def __init__(self, name: str = "envfactory-rl") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        if _running_loop() is self.loop:
            raise RuntimeError("LoopThread.run called from its own loop")
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


_SHARED: LoopThread | None = None
_SHARED_LOCK = threading.Lock()


def shared_loop() -> LoopThread:
    """The process's loop thread for synchronous adapters."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = LoopThread()
        return _SHARED
