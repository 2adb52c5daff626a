"""``envfactory-mcp demo``: a verified environment (built unless already there), served over
stdio, driven by a scripted session.

The README's shorter tour beside ``pipeline``: one scripted customer session that walks
the path a user relies on, blueprint -> spec -> sandbox verification -> emitted package ->
subprocess MCP server -> tool calls -> canonical state diff.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import anyio

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.build import ensure_blueprint
from envfactory_mcp.env import diff_states
from envfactory_mcp.errors import BlueprintError
from envfactory_mcp.settings import Settings


@dataclass(frozen=True)
class DemoCall:
    tool: str
    arguments: dict[str, Any]
    is_error: bool
    output: Any


@dataclass(frozen=True)
class DemoResult:
    env_name: str
    package_dir: str
    calls: list[DemoCall]
    state_hash_before: str
    state_hash_after: str
    diff: dict[str, Any]
    verified_probes: int
    verify_seconds: float
    reused: bool = False  # the verified package was already there; not built or verified again


async def run_demo(settings: Settings, env_name: str, timeout_s: float = 120.0) -> DemoResult:
    """Build and emit ``env_name``, start it over stdio and replay its blueprint's demo session."""
    from mcp import Client

    from envfactory_mcp.host.launch import stdio_params

    blueprint = load_blueprint(env_name)
    if blueprint.demo_calls is None:
        raise BlueprintError(f"blueprint {env_name!r} has no scripted demo session")
    # A verified package: the one already there when it is this installation's rendering of
    # the blueprint and its verdict passes (nothing rewritten), else built and verified now
    # (VerificationFailed and nothing emitted). In a worker thread: verification drives its
    # own event loop for the stdio stage.
    built = await anyio.to_thread.run_sync(lambda: ensure_blueprint(settings, env_name, reverify=False))
    env, dest = built.env, built.package_dir
    script = blueprint.demo_calls(env.seed_state)
    calls: list[DemoCall] = []
    with anyio.fail_after(timeout_s):
        async with Client(stdio_params(settings.servers_dir, env_name, control=True)) as client:
            before = (await client.call_tool("control.state", {})).structured_content or {}
            for tool, arguments in script:
                result = await client.call_tool(tool, arguments)
                output = result.structured_content
                if output is None:
                    output = "\n".join(getattr(c, "text", "") for c in result.content)
                calls.append(DemoCall(tool, arguments, bool(result.is_error), output))
            after = (await client.call_tool("control.state", {})).structured_content or {}
    return DemoResult(
        env_name=env_name,
        package_dir=str(dest),
        calls=calls,
        state_hash_before=before["state_hash"],
        state_hash_after=after["state_hash"],
        diff=diff_states(before["state"], after["state"], env.primary_keys),
        verified_probes=built.report.probes,
        verify_seconds=built.report.timings.get("total", 0.0),
        reused=built.reused,
    )


def format_output(output: Any, limit: int = 300) -> str:
    text = output if isinstance(output, str) else json.dumps(output, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."
