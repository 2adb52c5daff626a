"""examples/README's commands do what they say (issue 33).

The commands of its first ``sh`` block run as written, one after another, in a fresh
folder holding a copy of ``examples/`` (as in a clone): each exits 0 and writes what it
names, and a run whose folder is named after an agent (``runs/<env>-oracle``) was played
by that agent, which the issue found it was not (no ``--agent``: the demonstrator).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

from envfactory_mcp.host.rollout import AGENTS

pytestmark = pytest.mark.slow  # synthesises, verifies, makes tasks and rolls them out

README = ROOT / "examples" / "README.md"


def readme_commands() -> list[list[str]]:
    block = re.search(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert block, "examples/README.md has a sh block of commands"
    commands = [shlex.split(line, comments=True) for line in block.group(1).splitlines()]
    return [c for c in commands if c]


def option(command: list[str], *names: str) -> str | None:
    for i, word in enumerate(command[:-1]):
        if word in names:
            return command[i + 1]
    return None


@pytest.fixture(scope="module")
def ran(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, list[tuple[list[str], subprocess.CompletedProcess[str]]]]:
    folder = tmp_path_factory.mktemp("examples-readme")
    shutil.copytree(ROOT / "examples", folder / "examples")
    done = []
    for command in readme_commands():
        assert command[0] == "envfactory-mcp", command
        result = subprocess.run(
            [sys.executable, "-m", "envfactory_mcp", *command[1:]],
            cwd=folder,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=1800,  # a far backstop: a busy machine is slower, not a failure
            check=False,
        )
        done.append((command, result))
        if result.returncode != 0:
            break
    return folder, done


def test_every_command_runs_and_a_run_named_for_an_agent_was_played_by_it(ran):
    folder, done = ran
    assert len(done) == len(readme_commands())
    for command, result in done:
        assert result.returncode == 0, (command, result.stderr[-3000:])
    rollouts = [c for c, _ in done if c[1] == "rollout"]
    assert rollouts, "the README rolls out what it made"
    for command in rollouts:
        out = option(command, "-o", "--output")
        assert out is not None
        played = json.loads((folder / out / "metadata.json").read_text(encoding="utf-8"))["agent"]
        named = [agent for agent in AGENTS if Path(out).name.endswith(f"-{agent}")]
        assert named == [played] or not named, (out, played)
        tasks = folder / str(option(command, "--tasks"))
        records = (folder / out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(records) == len(tasks.read_text(encoding="utf-8").splitlines())


def test_the_oracle_run_reaches_the_gold_on_every_task(ran):
    """At the default concurrency too: the jailed server keeps one process per session
    (runtime/front.py; concurrent starts once dropped sessions and their writes)."""
    folder, done = ran
    for command, _ in done:
        out = option(command, "-o", "--output")
        if command[1] == "rollout" and out and out.endswith("-oracle"):
            lines = (folder / out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
            rewards = [json.loads(line)["reward"] for line in lines]
            assert rewards == [1.0] * len(rewards), rewards
