"""With several servers offered (distractors), the blind demonstrator calls its own
environment's tool, ``<env>__<name>``, whatever the interpreter's hash seed: it once took
the first match in a set's order, so a rollout of clinic with telecom beside it called
``telecom__transfer_to_human_agents`` under one PYTHONHASHSEED and ``clinic__...`` under
another, and the same run could not be reproduced."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from paths import SERVERS_DIR

SERVERS = ["airline", "banking", "clinic", "dog_walking", "hair_salon", "retail", "telecom", "travel"]

CHOOSE = """
import json, sys
from pathlib import Path
from envfactory_mcp.catalog import load_environment
from envfactory_mcp.sim.planner import BlindDemonstrator
from envfactory_mcp.tasks.generate import generate_tasks

env = load_environment("clinic", Path(sys.argv[2])).env
task = generate_tasks(env, 1, seed=4)[0][0]
servers = json.loads(sys.argv[1])
names = [t.name for t in env.spec.tools]
tools = [{"type": "function", "function": {"name": f"{s}__{n}"}} for s in servers for n in names]
agent = BlindDemonstrator(seed=0, spec=env.spec)
agent.start(task, tools, "")
print(json.dumps([agent._call(n, {}).tool_calls[0].name for n in names]))
"""


def _chosen(servers: list[str], hash_seed: str) -> list[str]:
    environ = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", CHOOSE, json.dumps(servers), str(SERVERS_DIR)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("hash_seed", ["0", "1", "2"])
def test_the_own_servers_tool_is_called_under_any_hash_seed(hash_seed: str) -> None:
    chosen = _chosen(SERVERS, hash_seed)
    assert chosen and all(name.startswith("clinic__") for name in chosen), chosen


def test_without_its_own_server_the_first_listed_match_is_called() -> None:
    others = ["telecom", "banking", "retail"]
    assert {tuple(_chosen(others, seed)) for seed in ("0", "1", "2")} == {
        tuple(name.replace("clinic__", "telecom__") for name in _chosen(["clinic"], "0"))
    }
