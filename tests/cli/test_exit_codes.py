"""Issue 33, item 4: every mistake in the command line exits 2, through typer, for every
command, with no traceback and nothing written; the real CLI in a subprocess. A command
line that is well formed but names something missing (a file, a package) stays exit 1."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

# (arguments, what the error names); {tmp} is the test's folder, never written.
MISTAKES = [
    (["nosuchcommand"], "No such command"),
    (["list", "--bogus"], "--bogus"),
    (["serve"], "Missing argument"),
    (
        ["serve", "retail", "--transport", "carrier-pigeon"],
        "Invalid value for '--transport': Value error, 'carrier-pigeon' is not one of 'stdio', 'streamable-http'",
    ),
    (
        ["serve", "retail", "--log-level", "LOUD"],
        "Invalid value for '--log-level': Value error, 'LOUD' is not one of",
    ),
    (["serve", "retail", "--port", "99999"], "--port"),
    (["serve", "retail", "--port", "eighty"], "--port"),
    (["serve", "retail", "--call-timeout", "-1"], "--call-timeout"),
    (["serve", "retail", "--max-memory-mb", "10"], "--max-memory-mb must be 0 (none) or at least 256"),
    (["serve", "retail", "--jail", "--db", "{tmp}/state.db"], "drop --jail or --db"),
    (["serve", "retail", "--transport", "streamable-http", "--host", "0.0.0.0"], "--auth-token"),
    (["build"], "give an environment name or --all"),
    (["build", "retail", "--backend", "ray"], "--backend and --address apply to --all"),
    (
        ["install", "retail", "--client", "zed"],
        "Invalid value for '--client': Value error, 'zed' is not one of",
    ),
    (
        ["graph", "retail", "--format", "png"],
        "Invalid value for '--format': Value error, 'png' is not one of 'json', 'dot', 'html'",
    ),
    (["tasks", "retail", "-n", "0", "-o", "{tmp}/t.jsonl"], "-n"),
    (
        ["tasks", "retail", "--sampler", "dice", "-o", "{tmp}/t.jsonl"],
        "Invalid value for '--sampler': Value error, 'dice' is not one of 'topology'",
    ),
    (
        ["rollout", "retail", "--tasks", "{tmp}/t.jsonl", "--agent", "llm", "-o", "{tmp}/run"],
        "--agent llm needs --agent-model",
    ),
    (
        ["rollout", "retail", "--tasks", "{tmp}/t.jsonl", "--user-timeout", "5", "-o", "{tmp}/run"],
        "--user-timeout applies to a user",
    ),
    (
        ["eval", "--envs", "retail", "--agent", "wizard", "-o", "{tmp}/ev"],
        "Invalid value for '--agent': Value error, 'wizard' is not one of",
    ),
    (["eval", "--envs", "retail", "--user", "llm", "-o", "{tmp}/ev"], "--user llm needs --user-model"),
    (
        ["eval", "--envs", "retail", "--judge-timeout", "5", "-o", "{tmp}/ev"],
        "--judge-timeout applies to a judge",
    ),
    (
        ["eval", "--envs", "retail", "--transport", "pigeon", "-o", "{tmp}/ev"],
        "Invalid value for '--transport': Value error, 'pigeon' is not one of 'memory', 'stdio'",
    ),
    (["eval", "--envs", ",", "-o", "{tmp}/ev"], "--envs names no server"),
    (["eval-standing", "--groups", "one,two", "-o", "{tmp}/set.jsonl"], "--groups: not a list of numbers"),
    (
        ["export", "{tmp}", "--format", "parchment", "-o", "{tmp}/x.jsonl"],
        "'parchment' is not one of 'openai', 'trl', 'sharegpt', 'verl'",
    ),
    (["synthesize", "-o", "{tmp}/out"], "give --description, --resource or --from-list"),
    (["synthesize", "--description", "a bakery", "-o", "{tmp}/out"], "a description needs a model"),
    (["view"], "Missing argument"),
]


def cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "envfactory_mcp", *args],
        capture_output=True,
        text=True,
        timeout=600,  # a far backstop: each answers before loading anything
        cwd=cwd,
        env={**os.environ, "COLUMNS": "300"},
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_every_command_line_mistake_exits_2_through_the_real_cli(tmp_path: Path):
    cases = [([arg.format(tmp=tmp_path) for arg in args], says) for args, says in MISTAKES]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda case: cli(case[0], tmp_path), cases))
    wrong = [
        f"{' '.join(args)}: exit {result.returncode}, expected 2 naming {says!r}: {result.stderr[-600:]}"
        for (args, says), result in zip(cases, done, strict=True)
        if result.returncode != 2
        or says not in " ".join(result.stderr.split())
        or "Traceback" in result.stderr
        or "usage: envfactory-mcp serve [-h]" in result.stderr  # the runtime's argparse, not this CLI
    ]
    assert not wrong, "\n".join(wrong)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written, nothing built


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["serve", "retail", "--db", "{tmp}/no/such/folder/state.db"], "does not exist"),
        (["rollout", "retail", "--tasks", "{tmp}/none.jsonl", "-o", "{tmp}/run"], "no such tasks file"),
    ],
)
def test_a_well_formed_line_naming_something_missing_exits_1(tmp_path: Path, args: list[str], says: str):
    result = cli([arg.format(tmp=tmp_path) for arg in args], tmp_path)
    assert result.returncode == 1 and says in result.stderr and "Traceback" not in result.stderr, (
        result.stderr
    )
