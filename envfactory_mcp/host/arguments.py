"""What tool-call arguments the host agrees to send to a server.

A model's tool call is untrusted input, and it travels over a connection that every
concurrent episode on that server shares. Some arguments cannot travel at all: the MCP
client refuses to serialise values nested deeper than about 250 levels, a stdio server
drops a request nested deeper than about 200 levels without answering (the client then
waits out its timeout), and a lone surrogate (``"\\ud800"`` in the model's JSON) breaks
the stdio writer or the server's validator. Sending any of them would cost the
connection, and with it every other episode's session. ``check_arguments`` is the one
place that decides, before anything is sent; what it rejects is answered to the agent
as a tool error (the agent's mistake, scored), never sent.

The limits sit far below what breaks and far above what a real tool needs (retail's
deepest parameter is three levels).
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class ArgumentLimits:
    """How deep and how large one call's arguments may be."""

    max_depth: int = 32  # containers inside one another, the arguments object being level 1
    max_bytes: int = 1 << 20  # the arguments as UTF-8 JSON


DEFAULT_LIMITS = ArgumentLimits()


def check_arguments(arguments: object, limits: ArgumentLimits = DEFAULT_LIMITS) -> str | None:
    """Why ``arguments`` must not be sent, as a phrase for the agent, or None when they may.

    Goes in: a tool call's parsed arguments (any Python value; the host sends only a
    JSON object). Comes out: None, or e.g. ``"nested more than 32 levels deep"``. Never
    raises and never recurses, whatever the value (a cycle counts as too deep)."""
    return checked_json(arguments, limits)[0]


def checked_json(arguments: object, limits: ArgumentLimits = DEFAULT_LIMITS) -> tuple[str | None, str]:
    """``check_arguments`` and, when the arguments may be sent, their JSON text: ``(None,
    text)``, or ``(why not, "")``. The text is ``json.dumps(arguments, ensure_ascii=False)``,
    what the stdio client writes for them on the wire, so the connection sends the text
    the check wrote instead of writing it again (issue 32)."""
    if not isinstance(arguments, dict):
        return f"not a JSON object (got {type(arguments).__name__})", ""
    if _deeper_than(arguments, limits.max_depth):
        return f"nested more than {limits.max_depth} levels deep", ""
    try:
        text = _CHECK_JSON.encode(arguments)
    except ValueError:
        return "a number JSON cannot hold (NaN, an infinity or an integer too long to write out)", ""
    except TypeError as exc:
        return f"a value that is not JSON ({exc})", ""
    try:
        size = len(text) if text.isascii() else len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return "text that is not valid Unicode: a lone surrogate such as \\ud800", ""
    if size > limits.max_bytes:
        return f"{size:,} bytes of JSON, more than the {limits.max_bytes:,} a call may carry", ""
    return None, text


# ``json.dumps(value, ensure_ascii=False, allow_nan=False)`` without an encoder built per call
# (once the arguments passed, the same text as ``allow_nan=True`` writes: they hold no NaN)
_CHECK_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
_CONTAINERS = (dict, list, tuple)


def _deeper_than(value: object, limit: int) -> bool:
    """Whether containers nest more than ``limit`` levels in ``value`` (iteratively, stopping
    at the first path that does, so a hostile value costs at most its size to check)."""
    if limit >= 1 and isinstance(value, dict) and not any(isinstance(v, _CONTAINERS) for v in value.values()):
        return False  # a flat object, as most calls' arguments are: one level
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend(
                (child, depth + 1) for child in item.values() if isinstance(child, dict | list | tuple)
            )
        elif isinstance(item, list | tuple):
            stack.extend((child, depth + 1) for child in item if isinstance(child, dict | list | tuple))
    return False
