# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""MCP over this process's stdin and stdout, where every request line gets an answer.

The SDK's stdio transport drops a line it cannot parse (nested deeper than its JSON
parser's limit of 200 levels, not JSON, not a JSON-RPC message) with a debug log, so the
client waits for an answer forever. Here such a line is answered with a JSON-RPC error
carrying the request's id when the id can be read from the line (``null`` otherwise, as
JSON-RPC prescribes), and a line longer than ``max_line_bytes`` is refused the same way
without ever being held in memory whole.

As in the SDK, the wire moves to private descriptors while serving: fd 0 reads the null
device and fd 1 writes to stderr, so a stray ``input()`` or ``print()`` cannot corrupt
the protocol stream.
"""

from __future__ import annotations

import json
import os
import re
import select
import stat
import sys
from collections.abc import Awaitable, Callable
from typing import IO, TYPE_CHECKING, Any, NamedTuple, Protocol

from .limits import DEFAULT_MAX_LINE_BYTES

if TYPE_CHECKING:
    import anyio
    from mcp.shared.message import SessionMessage

_ID_SCAN_BYTES = 64 * 1024  # an over-long line's id is looked for in its first 64 KiB
_CHUNK = 64 * 1024

# One JSON token: a string, a structural character, or a run of anything else (numbers,
# literals). Enough to walk a line's top level without parsing what is nested below it.
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}:,]|[^\[\]{}:,"\s]+')


class LeanAnswers(Protocol):
    """A server's own answers to some requests (``calls.LeanCalls``)."""

    async def answer(self, message: Any) -> bytes | None: ...

    def handover(self) -> bytes | None: ...


class LeanAnswersNow(Protocol):
    """``LeanAnswers`` answered without an event loop (``calls.LeanCalls.answer_now``)."""

    def answer_now(self, message: Any) -> bytes | None: ...


class Resume(NamedTuple):
    """Where ``serve_lean_now`` stopped, for ``serve_stdio`` to go on from: the claimed
    wire, what was read of it and not served yet, and the line the SDK reads first (with
    ``too_long``, the head of an over-long line already read to its end), if any."""

    wire_in: IO[bytes]
    wire_out: IO[bytes]
    pending: bytes = b""
    first: bytes | None = None
    too_long: bool = False


def serve_lean_now(lean: LeanAnswersNow, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Resume | None:
    """Serve stdio as ``serve_stdio`` does with ``lean``, with no event loop, for as long
    as the lean path answers every line: None once the client closed its end, every
    request answered (a host that discovers, lists and calls is served whole here);
    otherwise where ``serve_stdio`` goes on (``Resume``), at the first line the SDK must
    read, or at once when the wire is not pipes at both ends.

    A server whose calls never wait (tools in this process, sessions in memory) does the
    same work here as on the event loop, line for line and answer for answer, without
    importing ``asyncio`` and anyio's backend (~0.1 s of CPU, most of a server's start:
    issue 32). Reads and writes block; the answers to lines read together leave in one
    write, once no whole request is left unanswered in the buffer, as there."""
    wire_in, wire_out = _claim(0, "rb"), _claim(1, "wb")
    if not (_is_pipe(wire_in) and _is_pipe(wire_out)):
        return Resume(wire_in, wire_out)
    fd_in, fd_out = wire_in.fileno(), wire_out.fileno()
    pending = bytearray()
    scanned = 0  # bytes of ``pending`` known to hold no newline
    held: list[bytes] = []

    def readline(limit: int) -> bytes:
        nonlocal scanned
        while True:
            end = pending.find(b"\n", scanned, limit)
            if end >= 0 or len(pending) >= limit:
                cut = end + 1 if end >= 0 else limit
                line = bytes(pending[:cut])
                del pending[:cut]
                scanned = 0
                return line
            scanned = len(pending)
            try:
                chunk = os.read(fd_in, _CHUNK)
            except BlockingIOError:  # a descriptor shared with a non-blocking reader
                select.select([fd_in], [], [])
                continue
            if not chunk:
                line = bytes(pending)
                pending.clear()
                scanned = 0
                return line
            pending.extend(chunk)

    def flush() -> None:
        if held:
            data = memoryview(b"".join(held))
            held.clear()
            while data:
                try:
                    data = data[os.write(fd_out, data) :]
                except BlockingIOError:
                    select.select([], [fd_out], [])

    while True:
        if pending.find(b"\n", scanned) < 0:
            flush()
        line = readline(max_line_bytes + 1)
        if not line:
            flush()
            return None
        if len(line) > max_line_bytes and not line.endswith(b"\n"):
            while not (rest := readline(_CHUNK)).endswith(b"\n") and rest:
                pass  # the rest of the over-long line is read and thrown away
            flush()
            return Resume(wire_in, wire_out, bytes(pending), line[:_ID_SCAN_BYTES], too_long=True)
        if not line.strip():
            continue
        try:
            parsed = json.loads(line)
        except (ValueError, RecursionError):
            parsed = None
        answer = lean.answer_now(parsed)
        if answer is not None:
            held.append(answer)
            continue
        flush()
        return Resume(wire_in, wire_out, bytes(pending), line)


async def serve_stdio(
    sdk_server: Callable[[], Any],
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    lean: LeanAnswers | None = None,
    resume: Resume | None = None,
) -> None:
    """Serve MCP over stdin/stdout until the client closes stdin; a line that is not a
    usable JSON-RPC message is answered with an error here and never reaches the server.

    With ``lean`` (and pipes at both ends, ``_pipe_io``), every line is first offered
    to ``lean.answer`` as parsed by ``json``; a line it answers is written at once and
    never reaches the SDK. The SDK's server (``sdk_server()``, which may import the SDK
    and build it only then) is started on the first line the lean path leaves to it,
    after the line ``lean.handover()`` gives it, if any, whose answer is dropped; a
    client the lean path serves whole never loads the SDK. With ``resume``, serving goes
    on from where ``serve_lean_now`` stopped."""
    import anyio

    if resume is None:
        wire_in, wire_out = _claim(0, "rb"), _claim(1, "wb")
        resume = Resume(wire_in, wire_out)
    wire_in, wire_out = resume.wire_in, resume.wire_out
    readline, write, more = _pipe_io(wire_in, wire_out, resume.pending)
    if not (_is_pipe(wire_in) and _is_pipe(wire_out)):
        lean = None  # the threaded writer could interleave with a second writer
    # Lean answers to requests that arrived together (concurrent clients' lines read in one
    # chunk) leave in one write, once no whole request is left unanswered in the buffer.
    held: list[bytes] = []

    async def flush() -> None:
        if held:
            data = b"".join(held)
            held.clear()
            await write(data)

    async with anyio.create_task_group() as tg:
        sdk: _Sdk | None = None

        async def to_sdk() -> _Sdk:
            nonlocal sdk
            await flush()
            if sdk is None:
                opening = lean.handover() if lean is not None else None
                sdk = _Sdk(tg, sdk_server(), write)
                if opening is not None:
                    await sdk.line(opening)
            return sdk

        try:
            if resume.first is not None:
                if resume.too_long:
                    await (await to_sdk()).too_long(resume.first, max_line_bytes)
                else:
                    await (await to_sdk()).line(resume.first)
            while True:
                if not more():
                    await flush()
                line = await readline(max_line_bytes + 1)
                if not line:
                    return
                if len(line) > max_line_bytes and not line.endswith(b"\n"):
                    while not (rest := await readline(_CHUNK)).endswith(b"\n") and rest:
                        pass  # the rest of the over-long line is read and thrown away
                    await (await to_sdk()).too_long(line[:_ID_SCAN_BYTES], max_line_bytes)
                    continue
                if not line.strip():
                    continue
                if lean is not None:
                    try:
                        parsed = json.loads(line)
                    except (ValueError, RecursionError):
                        parsed = None
                    answer = await lean.answer(parsed)
                    if answer is not None:
                        held.append(answer)
                        continue
                await (await to_sdk()).line(line)
        finally:
            await flush()
            if sdk is not None:
                await sdk.close()  # the server ends when its input does, then the writer


class _Sdk:
    """The SDK's server running on this connection: ``line`` hands it a line, its
    answers are written by its own task."""

    def __init__(self, tg: Any, server: Any, write: Callable[[bytes], Awaitable[None]]) -> None:
        import anyio
        from mcp.shared.message import SessionMessage

        from .calls import ERA_REQUEST_ID

        self._message = SessionMessage
        read_send, read_receive = anyio.create_memory_object_stream[Any](0)
        write_send, write_receive = anyio.create_memory_object_stream[Any](0)
        self._read_send = read_send
        self._answers = write_send.clone()  # refusals go out with the rest

        async def writer() -> None:
            async with write_receive:
                async for item in write_receive:
                    if getattr(item.message, "id", None) == ERA_REQUEST_ID:
                        continue  # the answer to ``handover``'s line
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await write(data.encode("utf-8") + b"\n")

        async def run() -> None:
            try:
                await server.run(read_receive, write_send, server.create_initialization_options())
            finally:
                await self._answers.aclose()

        tg.start_soon(writer)
        tg.start_soon(run)

    async def line(self, line: bytes) -> None:
        import mcp_types as types

        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except Exception as exc:  # noqa: BLE001 - every unreadable line is answered, whatever the parser raised
            refusal = _refusal(line, exc)
            if refusal is not None:
                await self._answers.send(refusal)
            return
        await self._read_send.send(self._message(message))

    async def too_long(self, head: bytes, max_line_bytes: int) -> None:
        import mcp_types as types

        message = f"Request refused: a message is at most {max_line_bytes} bytes on one line."
        await self._answers.send(_error(head, types.INVALID_REQUEST, message))

    async def close(self) -> None:
        await self._read_send.aclose()


def _pipe_io(
    wire_in: IO[bytes], wire_out: IO[bytes], read: bytes = b""
) -> tuple[Callable[[int], Awaitable[bytes]], Callable[[bytes], Awaitable[None]], Callable[[], bool]]:
    """``readline(limit)`` (``IO.readline``'s meaning: at most ``limit`` bytes, up to and
    including a newline; ``b""`` at the end), ``write(data)`` on the wire, and ``more()``:
    whether a whole line is already read and waiting (so ``readline`` returns at once).

    When both ends are pipes or sockets (what an MCP client gives a server it spawns, and
    so not shared with anyone else), they are made non-blocking and served on the event
    loop: no thread hop per request or answer, which is most of what a stdio call costs
    beyond the tool. Anything else (a terminal, a file, another platform) keeps blocking
    reads and writes in a worker thread, as the SDK does, so a terminal shared with a
    shell is never switched to non-blocking mode. ``read``: what was read of ``wire_in``
    already (by ``serve_lean_now``), served first (only pipes are read ahead).
    """
    import anyio
    import anyio.to_thread

    if _is_pipe(wire_in) and _is_pipe(wire_out):
        fd_in, fd_out = wire_in.fileno(), wire_out.fileno()
        os.set_blocking(fd_in, False)
        os.set_blocking(fd_out, False)
        pending = bytearray(read)
        scanned = 0  # bytes of ``pending`` known to hold no newline

        async def read_pipe(limit: int) -> bytes:
            nonlocal scanned
            while True:
                end = pending.find(b"\n", scanned, limit)
                if end >= 0 or len(pending) >= limit:
                    cut = end + 1 if end >= 0 else limit
                    line = bytes(pending[:cut])
                    del pending[:cut]
                    scanned = 0
                    return line
                scanned = len(pending)
                try:
                    chunk = os.read(fd_in, _CHUNK)
                except BlockingIOError:
                    await anyio.wait_readable(fd_in)
                    continue
                if not chunk:  # the client closed its end: what is left, then b""
                    line = bytes(pending)
                    pending.clear()
                    scanned = 0
                    return line
                pending.extend(chunk)

        # Two tasks write (the SDK's writer and the reader's lean answers): a line goes
        # out whole with one ``os.write`` when the pipe takes it; otherwise what is left
        # waits in ``backlog``, where later lines queue behind it in order, and the
        # writer that started it drains it while the others wait for it to empty.
        backlog = bytearray()
        drained: list[anyio.Event] = []

        async def write_pipe(data: bytes) -> None:
            if backlog:
                backlog.extend(data)
                if drained:
                    await drained[-1].wait()
                    return
            else:
                try:
                    sent = os.write(fd_out, data)
                except BlockingIOError:
                    sent = 0
                if sent == len(data):
                    return
                backlog.extend(memoryview(data)[sent:])
            done = anyio.Event()
            drained.append(done)
            try:
                while backlog:
                    await anyio.wait_writable(fd_out)
                    try:
                        sent = os.write(fd_out, backlog)
                    except BlockingIOError:
                        continue
                    del backlog[:sent]
            finally:
                drained.remove(done)
                done.set()

        def more() -> bool:
            return pending.find(b"\n", scanned) >= 0

        return read_pipe, write_pipe, more

    async def read_thread(limit: int) -> bytes:
        # Abandoned on cancel: a thread blocked on a pipe cannot be interrupted, and it
        # ends with the process.
        return await anyio.to_thread.run_sync(wire_in.readline, limit, abandon_on_cancel=True)

    def write_line(data: bytes) -> None:
        wire_out.write(data)
        wire_out.flush()

    async def write_thread(data: bytes) -> None:
        await anyio.to_thread.run_sync(write_line, data)

    return read_thread, write_thread, lambda: False


def _is_pipe(handle: IO[bytes]) -> bool:
    if sys.platform == "win32":
        return False
    try:
        mode = os.fstat(handle.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _refusal(line: bytes, exc: Exception) -> SessionMessage | None:
    """The error answer to a line the parser refused; None for a broken notification or
    response (JSON-RPC answers neither)."""
    import mcp_types as types

    text = str(exc)
    if "recursion limit" in text:
        return _error(line, types.INVALID_REQUEST, "Request refused: JSON nested deeper than 200 levels.")
    try:
        decoded = json.loads(line)
    except (ValueError, RecursionError):
        return _error(line, types.PARSE_ERROR, "Parse error: the line is not valid JSON.")
    if isinstance(decoded, dict) and "id" in decoded and "method" in decoded:
        return _error(line, types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 request object.")
    if isinstance(decoded, dict) and ("method" in decoded or "result" in decoded or "error" in decoded):
        return None
    return _error(line, types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message.")


def _error(line: bytes, code: int, message: str) -> SessionMessage:
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    error = types.JSONRPCError(
        jsonrpc="2.0", id=request_id(line), error=types.ErrorData(code=code, message=message)
    )
    return SessionMessage(error)


def request_id(line: bytes) -> int | str | None:
    """The top-level ``"id"`` of a JSON-RPC request that could not be parsed, if it is a
    string or an integer that can be read; None otherwise. Walks tokens, so nesting of
    any depth costs no recursion."""
    depth, key, after_colon = 0, b"", False
    for match in _TOKEN.finditer(line):
        token = match.group()
        if token in (b"{", b"["):
            if depth == 1 and after_colon and key == b'"id"':
                return None
            depth += 1
            after_colon = False
        elif token in (b"}", b"]"):
            depth -= 1
        elif depth != 1:
            continue
        elif token == b":":
            after_colon = True
        elif token == b",":
            key, after_colon = b"", False
        elif after_colon:
            if key == b'"id"':
                try:
                    value = json.loads(token)
                except ValueError:
                    return None
                return value if isinstance(value, int | str) and not isinstance(value, bool) else None
            after_colon = False
        else:
            key = token
    return None


def _claim(fd: int, mode: str) -> IO[Any]:
    """A private handle on standard descriptor ``fd``, which is pointed elsewhere (stdin at
    the null device, stdout at stderr). Where descriptors cannot be moved, the standard
    stream itself."""
    stream = sys.stdin if fd == 0 else sys.stdout
    try:
        import fcntl

        private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        if fd == 0:
            stand_in = os.open(os.devnull, os.O_RDONLY)
            os.dup2(stand_in, 0)
            os.close(stand_in)
        else:
            os.dup2(2, 1)
    except (ImportError, OSError, ValueError):
        return stream.buffer
    # closefd=False: the process ends when serving ends; nothing else may reuse the number.
    return os.fdopen(private, mode, closefd=False)
