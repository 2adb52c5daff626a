# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Command line of a generated server: ``python -m <package> [--transport ...]``."""

from __future__ import annotations

import argparse
import faulthandler
import gc
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .limits import (
    DEFAULT_CALL_SECONDS,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MAX_MEMORY_MB,
    SessionJail,
    limit_address_space,
)
from .network import (
    TOKEN_ENV,
    BearerAuth,
    allowed_host_names,
    exposure_warning,
    is_loopback,
    token_problem,
    transport_security,
)
from .sessions import SessionLimits


def parse_args(prog: str, argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=prog, description="Serve this environment over MCP.")
    limits = SessionLimits()
    parser.add_argument("--transport", choices=["stdio", "streamable-http"], default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default: 8000)")
    parser.add_argument("--path", default="/mcp", help="HTTP endpoint path (default: /mcp)")
    parser.add_argument(
        "--auth-token",
        default=None,
        help=f"bearer token every HTTP request must carry; required beyond loopback (or set {TOKEN_ENV}, "
        "which other local users cannot read from the process list)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a Host/Origin name clients use to reach this server beyond loopback (repeatable)",
    )
    parser.add_argument(
        "--db", type=Path, default=None, help="keep state in this SQLite file across restarts"
    )
    parser.add_argument(
        "--control",
        action="store_true",
        help="expose control.* tools (reset, state, state_hash, end_session) and accept "
        "_meta session keys, for hosts",
    )
    parser.add_argument(
        "--session-keys-per-connection",
        type=int,
        default=limits.keys_per_owner,
        metavar="N",
        help=f"session keys one connection may hold open (default: {limits.keys_per_owner})",
    )
    parser.add_argument(
        "--max-session-keys",
        type=int,
        default=limits.max_keys,
        metavar="N",
        help=f"session keys open at once across all connections (default: {limits.max_keys})",
    )
    parser.add_argument(
        "--session-idle-timeout",
        type=float,
        default=limits.idle_seconds,
        metavar="SECONDS",
        help=f"a session key unused this long is released (default: {limits.idle_seconds:g})",
    )
    parser.add_argument(
        "--hot-sessions",
        type=int,
        default=limits.hot_sessions,
        metavar="N",
        help="writing sessions kept as full copies; past this (or --hot-memory-mb) the least recently "
        f"used idle one keeps only the rows it changed until its next request (default: {limits.hot_sessions})",
    )
    parser.add_argument(
        "--hot-memory-mb",
        type=float,
        default=limits.hot_megabytes,
        metavar="MB",
        help=f"memory those full copies may take, estimated from the seed (default: {limits.hot_megabytes:g})",
    )
    parser.add_argument(
        "--max-request-bytes",
        type=int,
        default=DEFAULT_MAX_LINE_BYTES,
        metavar="N",
        help=f"largest request accepted, a stdio line or an HTTP body (default: {DEFAULT_MAX_LINE_BYTES})",
    )
    parser.add_argument(
        "--call-timeout",
        type=float,
        default=DEFAULT_CALL_SECONDS,
        metavar="SECONDS",
        help=f"time limit of one tool call, 0 for none (default: {DEFAULT_CALL_SECONDS:g}; with --db "
        "a loop that runs no SQL is not interrupted)",
    )
    parser.add_argument(
        "--max-memory-mb",
        type=int,
        default=DEFAULT_MAX_MEMORY_MB,
        metavar="N",
        help=f"address-space limit of the server process in MiB, 0 for none (default: {DEFAULT_MAX_MEMORY_MB}); "
        "a tool call allocating past it gets a tool error",
    )
    jailed = SessionJail()
    parser.add_argument(
        "--jail",
        action="store_true",
        help="serve the package whole from the jail: one jailed server process per session (own namespaces, "
        "uid 65534, no capabilities, a seccomp filter; needs bubblewrap), this process keeping only the "
        "protocol, auth and sessions; envfactory-mcp serve turns this on for every package not shipped "
        "with envfactory-mcp",
    )
    parser.add_argument(
        "--call-memory-mb",
        type=int,
        default=jailed.memory_mb,
        metavar="N",
        help=f"with --jail: address-space limit of each session process in MiB (default: {jailed.memory_mb})",
    )
    parser.add_argument(
        "--session-cpu-seconds",
        type=int,
        default=jailed.cpu_seconds,
        metavar="N",
        help=f"with --jail: CPU time one session process may use (default: {jailed.cpu_seconds})",
    )
    parser.add_argument(
        "--jailed-sessions",
        type=int,
        default=jailed.max_sessions,
        metavar="N",
        help=f"with --jail: session processes at once, all clients together (default: {jailed.max_sessions})",
    )
    parser.add_argument(
        "--jailed-sessions-per-client",
        type=int,
        default=jailed.sessions_per_client,
        metavar="N",
        help=f"with --jail: session processes one client may hold (default: {jailed.sessions_per_client})",
    )
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    args = parser.parse_args(argv)
    try:
        args.jailed = SessionJail(
            memory_mb=args.call_memory_mb,
            cpu_seconds=args.session_cpu_seconds,
            max_sessions=args.jailed_sessions,
            sessions_per_client=args.jailed_sessions_per_client,
        )
    except ValueError:
        parser.error("--call-memory-mb must be at least 64 and the jailed session limits positive")
    if args.jail and args.db is not None:
        parser.error(
            "--db keeps state in a file on this machine, which a jailed server cannot write; drop --jail or --db"
        )
    try:
        args.session_limits = SessionLimits(
            args.session_keys_per_connection,
            args.max_session_keys,
            args.session_idle_timeout,
            args.hot_sessions,
            args.hot_memory_mb,
        )
    except ValueError:
        parser.error("session limits must be positive numbers")
    if not 0 < args.port < 65536:
        parser.error(f"--port must be between 1 and 65535, not {args.port}")
    if args.max_request_bytes < 1024:
        parser.error("--max-request-bytes must be at least 1024")
    if not 0 <= args.call_timeout <= 86_400:  # also refuses NaN and infinity
        parser.error("--call-timeout must be 0 (none) or a positive number of seconds")
    if args.max_memory_mb < 0 or 0 < args.max_memory_mb < 256:
        parser.error("--max-memory-mb must be 0 (none) or at least 256")
    if args.transport == "streamable-http":
        args.auth_token = args.auth_token or os.environ.get(TOKEN_ENV) or None
        problem = token_problem(args.auth_token, args.host)
        if problem is not None:
            parser.error(problem)
    return args


def serve(package_dir: Path, prog: str, argv: Sequence[str] | None = None, version: str = "0.1.0") -> None:
    """Parse ``argv`` and serve the package in ``package_dir`` (``<root>/<name>_mcp``)
    until the client disconnects or the process is stopped. Its data and tool code are
    loaded here, or with ``--jail`` only in jailed session processes (``front.py``);
    nothing else of that folder runs."""
    args = parse_args(prog, argv)
    # Arguments first, the MCP stack after: --help and argument errors answer at once.
    from .bundle import Bundle
    from .cache import image_folder
    from .calls import Calls, ServerOptions
    from .isolation import IsolationError

    bundle = None
    if not args.jail:
        try:
            bundle = Bundle.from_package(package_dir, jailed=False)
        except (IsolationError, OSError, ValueError) as exc:
            print(f"{prog}: cannot serve {package_dir}: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
    # Where seed images are kept (cache.py) comes from the environment, read before it goes.
    seed_cache = None if _seccomp_filtered() else image_folder()
    forget_environment(args.auth_token)
    logging.basicConfig(
        stream=sys.stderr, level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    # A crash in C (deep C recursion, say) cannot be caught in-process: the process dies and
    # its clients see the connection close. faulthandler at least logs where, on stderr.
    faulthandler.enable()
    limit_address_space(args.max_memory_mb)
    options = ServerOptions(
        call_seconds=args.call_timeout or None,
        control=args.control,
        db_path=args.db,
        session_limits=args.session_limits,
        prefer_sessions=args.transport == "streamable-http",
        version=version,
        seed_cache=seed_cache,
    )
    stdio = args.transport == "stdio"
    server: Any = None
    try:  # a seed that does not load is a ValueError (``SeedLoadError``): one line
        if bundle is not None:
            # On stdio the SDK is imported and its server built only for a request the
            # lean path leaves to it (``stdio.serve_stdio``): most of a server's start.
            calls = Calls(bundle, options)
            server = None if stdio else _sdk_server(bundle, options, calls)
        else:
            from .front import create_jailed_server

            server = create_jailed_server(
                package_dir, options, args.jailed, max_request_bytes=args.max_request_bytes
            )
    except (RuntimeError, OSError, ValueError) as exc:  # JailedServerError is a RuntimeError
        print(f"{prog}: cannot serve {package_dir}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    # What start-up built (the spec, the tools, the MCP stack's classes when loaded) lives
    # as long as the process: kept out of the collector's full passes, which would otherwise
    # walk it again and again as calls allocate. No collection first: it would cost ~50 ms
    # of the cold start to free the little start-up garbage this keeps.
    gc.freeze()
    loop = event_loop_options(stdio=stdio)
    import anyio  # a lazy module: its parts load as an event loop uses them

    try:
        if stdio:
            if server is not None:  # jailed: the front's server, with no lean path
                built = server
                anyio.run(_serve_stdio, lambda: built, None, args.max_request_bytes, backend_options=loop)
            else:
                assert bundle is not None
                made = calls

                def sdk() -> Any:
                    found = _sdk_server(bundle, options, made)
                    gc.freeze()  # the SDK's classes and the server, as above
                    return found

                resume = None
                if made.lean is not None:
                    from .stdio import serve_lean_now

                    # Served without an event loop until a line needs the SDK: a client
                    # the lean path serves whole never loads asyncio (stdio.py).
                    made.lean.serve_stdio()
                    resume = serve_lean_now(made.lean, args.max_request_bytes)
                    if resume is None:
                        return
                anyio.run(_serve_stdio, sdk, made.lean, args.max_request_bytes, resume, backend_options=loop)
        else:
            names = allowed_host_names(args.host, args.allowed_host)
            if not is_loopback(args.host):
                print(
                    exposure_warning(prog, args.host, args.port, names, args.control),
                    file=sys.stderr,
                    flush=True,
                )
            anyio.run(_serve_http, server, args, names, prog, backend_options=loop)
    except KeyboardInterrupt:
        pass


def event_loop_options(*, stdio: bool = False) -> dict[str, Any]:
    """anyio's asyncio options for serving: over HTTP, uvloop's event loop where it is
    installed (a dependency of every generated package on CPython/POSIX), which takes
    about a quarter off the server's CPU per call there; the standard loop otherwise.
    Tool calls run on it as before: the call-time alarm (``limits.py``) is a Python
    signal handler on the main thread, which uvloop leaves to Python.

    Not on stdio: the lean stdio path (``stdio.py``) waits on its two pipes itself and
    costs the same per call on either loop, so importing uvloop (~30 ms of CPU) would
    only add to every start. Not under a seccomp filter (the verifier serves a package
    in the jail, ``jail.py``): libuv makes system calls at start that the jail's filter
    answers by killing the process, so a confined server keeps the standard loop."""
    if stdio or _seccomp_filtered():
        return {}
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return {}
    return {"use_uvloop": True}


def _seccomp_filtered() -> bool:
    """Whether this process runs under a seccomp filter (Linux; False where unknown)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Seccomp:"):
                    return line.split()[1] != "0"
    except (OSError, IndexError):
        pass
    return False


def forget_environment(token: str | None = None) -> None:
    """Drop this process's environment before serving: nothing a client can reach may read it.

    ``os.environ`` and ``posix.environ`` (the copy ``os`` was built from) are cleared, which
    clears libc's ``environ`` too, and on Linux the original strings, which
    ``/proc/self/environ`` shows, are overwritten with zeros (the area ``setproctitle``
    reuses the same way). A token given with ``--auth-token`` is blanked in ``sys.argv``.
    Only the serving process calls this; tool code imported before it saw the environment.
    """
    os.environ.clear()
    posix = sys.modules.get(os.name)
    if posix is not None and isinstance(getattr(posix, "environ", None), dict):
        posix.environ.clear()
    if token is not None:
        sys.argv[:] = ["***" if arg == token else arg for arg in sys.argv]
    if sys.platform != "linux":
        return
    try:
        import ctypes

        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        fields = stat[stat.rindex(b")") + 2 :].split()
        start, end = int(fields[47]), int(fields[48])  # env_start, env_end: proc(5) fields 50, 51
    except (OSError, ValueError, IndexError, ImportError):
        return
    if 0 < start < end and end - start < 1 << 24:
        try:
            ctypes.memset(start, 0, end - start)
        except Exception:  # noqa: BLE001 - an audit hook may refuse ctypes calls; the rest is done
            return


def _sdk_server(bundle: Any, options: Any, calls: Any) -> Any:
    from .server import create_server

    return create_server(bundle, options, calls=calls)


async def _serve_stdio(sdk_server: Any, lean: Any, max_request_bytes: int, resume: Any = None) -> None:
    """``stdio.serve_stdio``; ``lean`` already serves this stdio connection (``serve_stdio()``
    called), and ``resume`` is where ``stdio.serve_lean_now`` stopped, if it ran."""
    from .stdio import serve_stdio

    await serve_stdio(sdk_server, max_request_bytes, lean, resume)


async def _serve_http(server: Any, args: argparse.Namespace, names: list[str], prog: str) -> None:
    import anyio
    import uvicorn

    app: Any = server.streamable_http_app(
        streamable_http_path=args.path,
        host=args.host,
        transport_security=transport_security(names),
        max_request_body_size=args.max_request_bytes,
    )
    if args.auth_token is not None:
        app = BearerAuth(app, args.auth_token)
    config = uvicorn.Config(
        app, host=args.host, port=args.port, log_level=args.log_level.lower(), lifespan="on"
    )
    web = uvicorn.Server(config)
    async with anyio.create_task_group() as group:
        group.start_soon(web.serve)
        while not (web.started or web.should_exit):
            await anyio.sleep(0.02)
        if web.started:  # one line a person or a supervisor can wait for
            host = f"[{args.host}]" if ":" in args.host else args.host
            print(f"{prog}: ready at http://{host}:{args.port}{args.path}", file=sys.stderr, flush=True)
