# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Who may reach a server over HTTP: loopback, bearer tokens, Host and Origin checks.

On loopback (127.0.0.1, ::1, localhost) the SDK's DNS-rebinding checks are enough: only
this machine can connect, and a web page it visits cannot pass the Host and Origin
checks. Beyond loopback anyone on the network can connect, so a bearer token is
required (checked on every HTTP request, in constant time) and the Host/Origin checks
stay on with an explicit list of names (the SDK turns them off for any other bind
address).
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any

TOKEN_ENV = "ENVFACTORY_MCP_AUTH_TOKEN"
MIN_TOKEN_CHARS = 16
_WILDCARDS = {"0.0.0.0", "::", ""}
_LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"]


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_host_names(bind_host: str, extra: Iterable[str] = ()) -> list[str]:
    """The Host header names (without port) a server bound to ``bind_host`` accepts: the
    loopback names, the bind address itself, ``extra``, and for a wildcard bind with no
    ``extra`` this machine's own names."""
    extra = list(extra)
    names = list(_LOOPBACK_NAMES)
    if bind_host not in _WILDCARDS and not is_loopback(bind_host):
        names.append(f"[{bind_host}]" if ":" in bind_host else bind_host)
    names.extend(extra)
    if bind_host in _WILDCARDS and not extra:
        names.extend(n for n in (socket.gethostname(), socket.getfqdn()) if n)
    return list(dict.fromkeys(names))


def transport_security(names: list[str]) -> Any:
    """The SDK's DNS-rebinding settings accepting ``names``, with or without a port."""
    from mcp.server.transport_security import TransportSecuritySettings

    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[h for n in names for h in (n, f"{n}:*")],
        allowed_origins=[
            o for scheme in ("http", "https") for n in names for o in (f"{scheme}://{n}", f"{scheme}://{n}:*")
        ],
    )


def token_problem(token: str | None, bind_host: str) -> str | None:
    """Why ``token`` cannot guard a server bound to ``bind_host``, or None."""
    if token is None:
        if is_loopback(bind_host):
            return None
        return (
            f"--host {bind_host} listens beyond this machine's loopback interface, so every request "
            f"must carry a bearer token: pass --auth-token or set {TOKEN_ENV} (make one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    if len(token) < MIN_TOKEN_CHARS or not token.isprintable() or any(c.isspace() for c in token):
        return f"the bearer token must be at least {MIN_TOKEN_CHARS} printable characters without spaces"
    return None


class BearerAuth:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` gets 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorised(scope):
            from starlette.responses import Response

            response = Response(
                "Unauthorized: this server needs 'Authorization: Bearer <token>'.\n",
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="mcp"'},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _authorised(self, scope: Any) -> bool:
        values = [v for k, v in scope.get("headers", []) if k.lower() == b"authorization"]
        if len(values) != 1:
            return False
        scheme, _, credentials = values[0].partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self._token)


def exposure_warning(prog: str, host: str, port: int, names: list[str], control: bool) -> str:
    """The lines printed to stderr when a server listens beyond loopback."""
    reach = "every tool and the control plane (--control)" if control else "every tool"
    return "\n".join(
        [
            f"WARNING: {prog} is listening on {host}:{port}, beyond this machine's loopback interface.",
            f"WARNING: anyone who can reach that address and holds the bearer token can call {reach}.",
            f"WARNING: accepted Host/Origin names: {', '.join(names)} (add more with --allowed-host).",
            "WARNING: the token guards access, not the traffic: on an untrusted network put TLS in front.",
        ]
    )
