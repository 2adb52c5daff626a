"""A real HTTP server that speaks OpenAI chat completions with scripted replies, for tests.

Tests of the LLM path go through litellm and real HTTP to this server on 127.0.0.1, so
they exercise what a real endpoint exercises (status codes, timeouts, JSON shapes)
without a model. Standard library only; the server runs in a background thread.

Each scripted reply answers one ``POST /v1/chat/completions``, in order:

- ``{"content": "text"}``: an assistant message;
- ``{"tool_calls": [{"name": ..., "arguments": "<raw JSON string>"}], "content": ...}``:
  tool calls, the arguments sent exactly as given (possibly malformed);
- ``{"status": 500, "body": ...}``: an error status (429, 400, ...) with an optional body
  (a dict sent as JSON, a string sent as is; a default OpenAI-style error otherwise);
- ``"delay": seconds`` in any reply: sleep before answering, to provoke client timeouts;
- ``"trickle": seconds`` in any reply: send the headers at once, then the body one byte
  per interval, so no single read is slow but the whole answer is;
- ``"usage": {...}`` in a successful reply: replaces the default token counts.

When the script runs out the server answers 500 with an error saying so, unless it has
a ``responder``: a function of the request body that returns a reply as above, so a
scripted agent can answer each request from the conversation it is sent (the reward
bench's agents behind the protocol). ``record=False`` keeps no request bodies (long runs).
``down_base_url()`` gives an endpoint that is down (a closed port).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SCRIPTED_USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


class ScriptedOpenAIServer(ThreadingHTTPServer):
    """The server and its script; read ``base_url``, ``requests`` and ``remaining``."""

    daemon_threads = True

    def __init__(
        self,
        replies: list[dict[str, Any]],
        responder: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        record: bool = True,
    ) -> None:
        super().__init__(("127.0.0.1", 0), _ScriptedHandler)
        self._script = list(replies)
        self._lock = threading.Lock()
        self.responder = responder
        self.record = record
        self.answered = 0  # requests taken, recorded or not
        self.requests: list[dict[str, Any]] = []
        # Set on shutdown so handlers sleeping through a scripted delay wake up at once.
        self.stopping = threading.Event()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def take_reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any] | None]:
        """Record one request and pop its reply (or ask the responder); ``(number, None)``
        when the script is spent and there is no responder."""
        with self._lock:
            if self.record:
                self.requests.append(body)
            self.answered += 1
            number = self.answered
            if self._script or self.responder is None:
                return number, (self._script.pop(0) if self._script else None)
        try:
            return number, self.responder(body)
        except Exception as exc:  # noqa: BLE001 - the client is told, as a server error
            return number, {"status": 500, "body": _error_body(f"responder failed: {exc!r}", 500)}


class _ScriptedHandler(BaseHTTPRequestHandler):
    server: ScriptedOpenAIServer

    def do_POST(self) -> None:
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        except (ValueError, UnicodeDecodeError) as exc:
            self._send(400, _error_body(f"request body is not JSON: {exc}", 400))
            return
        if not isinstance(body, dict):
            self._send(400, _error_body("request body is not a JSON object", 400))
            return
        if body.get("stream"):
            self._send(400, _error_body("the scripted server does not stream", 400))
            return
        number, reply = self.server.take_reply(body)
        if reply is None:
            self._send(500, _error_body(f"scripted server: script exhausted at request {number}", 500))
            return
        if self.server.stopping.wait(float(reply.get("delay", 0))):
            return
        trickle = float(reply.get("trickle", 0))
        if "status" in reply:
            status = int(reply["status"])
            self._send(status, reply.get("body", _error_body(f"scripted error {status}", status)), trickle)
        else:
            self._send(200, _completion(reply, number, str(body.get("model", "scripted"))), trickle)

    def _send(self, status: int, payload: dict[str, Any] | str, trickle: float = 0.0) -> None:
        data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if not trickle:
                self.wfile.write(data)
                return
            for index in range(len(data)):
                if self.server.stopping.wait(trickle):
                    return
                self.wfile.write(data[index : index + 1])
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing left to tell it

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean


def _error_body(message: str, status: int) -> dict[str, Any]:
    return {"error": {"message": message, "type": "scripted_error", "code": status}}


def _completion(reply: dict[str, Any], number: int, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    calls = reply.get("tool_calls") or []
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_scripted_{number}_{index}",
                "type": "function",
                "function": {"name": call["name"], "arguments": call["arguments"]},
            }
            for index, call in enumerate(calls)
        ]
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": reply.get("usage", SCRIPTED_USAGE),
    }


@contextmanager
def openai_server(
    replies: list[dict[str, Any]],
    responder: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    record: bool = True,
) -> Iterator[ScriptedOpenAIServer]:
    """Serve ``replies`` (then ``responder``'s) on a free 127.0.0.1 port for the duration of the block."""
    server = ScriptedOpenAIServer(replies, responder, record)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-openai", daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def down_base_url() -> str:
    """The base URL of a 127.0.0.1 port nothing listens on (bound, then closed): an
    endpoint that is down, refusing every connection."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
