"""Shared by the trainer adapters' tests: the retail tasks, the oracle's moves as a policy
sends them (OpenAI messages, or decoded text for text-in/text-out trainers), and the
records ``envfactory-mcp rollout`` writes for the same tasks with the oracle agent, whose
rewards each adapter must reproduce."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.host.launch import SERVER_PYTHON_VAR
from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.records.store import read_records
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.rl.env import default_transport, runtime_in_process
from envfactory_mcp.rl.text_actions import tool_call_text
from envfactory_mcp.sim.agents import NOOP_MESSAGE, closing_message, confirmation_request
from envfactory_mcp.tasks.model import Task

__all__ = [
    "NOOP_MESSAGE",
    "SERVERS_DIR",
    "TRANSPORT",
    "needs_servers",
    "oracle_messages",
    "oracle_script",
    "oracle_texts",
    "rollout_records",
]

# In-process servers where this interpreter's mcp can serve them; in a trainer's venv with
# an older mcp (verifiers 0.4 pins 2.0.0) the servers run over stdio from the interpreter
# ENVFACTORY_SERVER_PYTHON names (one with envfactory-mcp and mcp>=2.3).
TRANSPORT = default_transport()
needs_servers = pytest.mark.skipif(
    not runtime_in_process() and not os.environ.get(SERVER_PYTHON_VAR),
    reason=f"this venv's mcp is older than 2.3: set {SERVER_PYTHON_VAR} to a python with envfactory-mcp and mcp>=2.3",
)


def oracle_messages(task: Task) -> list[dict[str, Any]]:
    """What the oracle agent sends, as OpenAI assistant messages: each gold call, after a
    request for the user's yes when the policy wants one, then the closing words."""
    moves: list[dict[str, Any]] = []
    for i, a in enumerate(task.gold.actions):
        if a.confirm:
            moves.append({"role": "assistant", "content": confirmation_request(a)})
        call = {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": a.name, "arguments": json.dumps(a.arguments)},
        }
        moves.append({"role": "assistant", "content": None, "tool_calls": [call]})
    return [*moves, {"role": "assistant", "content": closing_message(task)}]


def oracle_script(task: Task) -> list[dict[str, Any]]:
    """The same moves as replies of the scripted OpenAI-protocol server (tests/llm_server)."""
    script: list[dict[str, Any]] = []
    for move in oracle_messages(task):
        calls = move.get("tool_calls") or []
        if calls:
            script.append({"tool_calls": [dict(c["function"]) for c in calls]})
        else:
            script.append({"content": move["content"]})
    return script


def oracle_texts(task: Task) -> list[str]:
    """The same moves as a text policy decodes them (tool calls in ``<tool_call>`` blocks)."""
    texts = []
    for move in oracle_messages(task):
        calls = move.get("tool_calls") or []
        texts.append(
            "".join(
                tool_call_text(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls
            )
            or str(move["content"])
        )
    return texts


def rollout_records(tasks_file: Path, out: Path, agent: str = "oracle") -> dict[str, TrajectoryRecord]:
    """``rollout`` of the tasks with ``agent`` (over ``TRANSPORT``), records by task."""
    config = RolloutConfig(
        envs=sorted({json.loads(line)["env"] for line in tasks_file.read_text().splitlines() if line}),
        tasks_path=str(tasks_file),
        servers_dir=str(SERVERS_DIR),
        transport=TRANSPORT,
        agent=agent,
    )
    anyio.run(rollout, config, out)
    return {r.task_id: r for r in read_records(out)}
