"""Last stage: start the emitted package over real stdio and use it as an MCP client would.

The package runs under the same sandbox as the probes (worker ``serve_main``: the jail
where bubblewrap works, with the package folder bound read-only; limits, audit hook,
empty network namespace, a private directory). The client lists the tools
and compares them with the spec, then replays one successful probe per tool, each from a
reset session, and requires the same structured output and the same canonical state hash
the sandboxed probe produced: the package a user installs behaves as verified.

The server's stderr goes to a file in the stage's private directory, never to this
process's ``sys.stderr``: that may have no descriptor (typer's CliRunner, Jupyter, an
``io.StringIO``), and a child process can only be handed a real file. Its last lines are
appended to the reason when the stage fails, and the file goes with the directory.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any, TextIO

import anyio

from envfactory_mcp.verify.report import CheckResult, FailedProbe
from envfactory_mcp.verify.sandbox import SandboxLimits, worker_launch


class _Mismatch(Exception):
    def __init__(self, reason: str, probe: dict[str, Any] | None = None) -> None:
        super().__init__(reason)
        self.probe = probe


def check_over_stdio(
    package_root: Path,
    package: str,
    spec: dict[str, Any],
    replays: list[dict[str, Any]],
    limits: SandboxLimits,
) -> CheckResult:
    """Run the stdio stage; never raises for what the package does."""
    workdir = tempfile.mkdtemp(prefix="envfactory-stdio-")
    try:
        request = {
            "package_root": str(package_root),
            "package": package,
            "limits": asdict(limits),
            "argv": ["--control"],
        }
        reason: str | None = None
        failed: FailedProbe | None = None
        # An anonymous file outside the jail's work directory (the server cannot read or
        # grow it), never sys.stderr, which may have no descriptor (CliRunner, Jupyter).
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            try:
                anyio.run(_drive, workdir, request, spec, replays, limits, errlog)
            except _Mismatch as exc:
                probe = exc.probe
                if probe:
                    failed = FailedProbe(id=probe["id"], kind=probe["kind"], arguments=probe["arguments"])
                reason = str(exc)
            except TimeoutError:
                reason = f"no answer within {limits.wall_seconds:g} s"
            except Exception as exc:  # noqa: BLE001 - a broken server shows up as any client error
                leaf = _first_leaf(exc)
                reason = f"{type(leaf).__name__}: {leaf}"[:400]
            tail = _tail(errlog) if reason is not None else ""
        if reason is None:
            return CheckResult(check="stdio", status="passed")
        if tail:
            reason = f"{reason}; the server's stderr ended: {tail}"
        return CheckResult(check="stdio", status="failed", reason=reason, probe=failed)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


_STDERR_TAIL_CHARS = 800


def _tail(errlog: IO[str]) -> str:
    """The last lines of the server's stderr, at most ``_STDERR_TAIL_CHARS``, on one line."""
    try:
        errlog.flush()
        fd = errlog.fileno()
        size = os.fstat(fd).st_size
        start = max(0, size - _STDERR_TAIL_CHARS * 4)
        text = os.pread(fd, size - start, start).decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    joined = " | ".join(lines)
    return joined if len(joined) <= _STDERR_TAIL_CHARS else "…" + joined[-_STDERR_TAIL_CHARS:]


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _drive(
    workdir: str,
    request: dict[str, Any],
    spec: dict[str, Any],
    replays: list[dict[str, Any]],
    limits: SandboxLimits,
    errlog: TextIO,
) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from envfactory_mcp.runtime import CONTROL_PREFIX

    # The stdio client cannot pass a descriptor, so a jail is started through its launcher.
    # Only the import package is bound: the folder above it may be private (write_package
    # makes it with mkdtemp, mode 0700), and the jail's uid only needs what it imports.
    launch = worker_launch(
        "serve_main(sys.argv[1])",
        workdir,
        (f"{request['package_root']}/{request['package']}",),
        launcher=True,
        work_bytes=limits.work_bytes,
        request=request,
    )
    command = launch.argv
    params = StdioServerParameters(command=command[0], args=command[1:], env=launch.env, cwd=launch.cwd)
    # A transport, not the parameters: the server's stderr is a file of our own (see the
    # module's note), and mcp 2.0's Client (a trainer's venv) takes no StdioServerParameters.
    with anyio.fail_after(limits.wall_seconds):
        async with Client(stdio_client(params, errlog=errlog)) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            served = {name for name in listed if not name.startswith(CONTROL_PREFIX)}
            declared = {tool["name"] for tool in spec["tools"]}
            if served != declared:
                missing, extra = sorted(declared - served), sorted(served - declared)
                raise _Mismatch(
                    f"tools listed over stdio differ from the spec: missing {missing}, unexpected {extra}"
                )
            for tool in spec["tools"]:
                if listed[tool["name"]].input_schema != tool["input_schema"]:
                    raise _Mismatch(f"{tool['name']}: the input schema served differs from the spec's")
            for replay in replays:
                await _replay(client, replay)


async def _replay(client: Any, replay: dict[str, Any]) -> None:
    await client.call_tool("control.reset", {})
    result = await client.call_tool(replay["tool"], replay["arguments"])
    if result.is_error:
        text = " ".join(getattr(block, "text", "") for block in result.content)
        raise _Mismatch(
            f"{replay['tool']}: failed over stdio ({text[:200]}) but succeeded in the sandbox", replay
        )
    if result.structured_content != replay["output"]:
        raise _Mismatch(f"{replay['tool']}: output over stdio differs from the sandboxed run's", replay)
    state = (await client.call_tool("control.state_hash", {})).structured_content or {}
    if state.get("state_hash") != replay["state_hash"]:
        raise _Mismatch(
            f"{replay['tool']}: state after the call over stdio differs from the sandboxed run's", replay
        )
