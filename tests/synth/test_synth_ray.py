"""``synthesize --from-list --backend ray`` on a local Ray cluster (``ray start --head`` on
127.0.0.1), the model a scripted OpenAI-protocol server on 127.0.0.1 that the Ray workers
reach over HTTP: the driver is killed with SIGKILL once the first description is done,
the same command resumes with only the missing ones, and every file in the output folder
is the local backend's (timings and the folder's own path aside). Needs the ``ray``
extra (``pip install -e '.[test,ray]'``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_server import ScriptedOpenAIServer
from ray_cluster import NO_RAY, RAY_ENV, actor_processes, ray_cluster
from synth.test_model_synthesis import MODEL, SCRIPTED_CODE, SCRIPTED_CRASHING, SCRIPTED_PROPOSAL
from typer.testing import CliRunner

from envfactory_mcp.cli import app

DESCRIPTIONS = [
    ("library", "A lending library desk: members borrow and return books, with a per-member loan limit."),
    ("library_broken", "A library desk whose code never verifies."),
    ("library_annex", "The annex of the same library."),
    ("library_east", "The east wing of the same library."),
]
TIMINGS = {"seconds", "latency_s", "timings"}


class RoutedServer(ScriptedOpenAIServer):
    """Answers by conversation, not by arrival order (descriptions run in any order on the
    cluster): a proposal to a propose conversation (slowly, so the run is long enough to
    be killed halfway), the crashing module to ``library_broken``'s implement and repair
    conversations, the library's module to the others."""

    def __init__(self) -> None:
        super().__init__([])

    def take_reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any] | None]:
        with self._lock:
            self.requests.append(body)
            number = len(self.requests)
        messages = body["messages"]
        if str(messages[0]["content"]).startswith("You design"):
            return number, {**SCRIPTED_PROPOSAL, "delay": 1.0}
        return number, SCRIPTED_CRASHING if "library_broken" in json.dumps(messages) else SCRIPTED_CODE


@pytest.fixture()
def model_server() -> Iterator[RoutedServer]:
    server = RoutedServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def proposed_names(requests: list[dict[str, Any]]) -> list[str]:
    """The descriptions whose propose conversation the model was asked for."""
    asked = [str(r["messages"][-1]["content"]) for r in requests if "You design" in str(r["messages"][0])]
    return sorted(
        name for name, _ in DESCRIPTIONS if any(f"Name the environment '{name}'" in a for a in asked)
    )


def comparable(root: Path) -> dict[str, Any]:
    """Every file under ``root``: JSON with timings left out and ``root`` written as <OUT>;
    a build log as its last attempt (from its last ``start`` line); other files as bytes."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in TIMINGS}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    root = root.resolve()
    files: dict[str, Any] = {}
    for path in sorted(root.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        content: Any = path.read_bytes()
        if path.suffix in (".json", ".jsonl"):
            text = content.decode().replace(str(root), "<OUT>")
            if path.suffix == ".jsonl":
                lines = [json.loads(line) for line in text.splitlines()]
                last = max(i for i, line in enumerate(lines) if line["event"] == "start")
                content = [strip(line) for line in lines[last:]]
            else:
                content = strip(json.loads(text))
        files[str(path.relative_to(root))] = content
    return files


def starts(log: Path) -> int:
    return sum(json.loads(line)["event"] == "start" for line in log.read_text().splitlines())


def test_the_backend_is_local_or_ray_and_the_address_goes_with_ray(tmp_path: Path):
    listing = tmp_path / "list.txt"
    listing.write_text("a bakery\n", encoding="utf-8")
    base = ["synthesize", "--from-list", str(listing), "-o", str(tmp_path / "out"), "--model", "openai/m"]
    for extra, said in (
        (
            ["--backend", "spark"],
            "error: Invalid value for '--backend': Value error, 'spark' is not one of 'local', 'ray'",
        ),
        (["--address", "auto"], "error: --address goes with --backend ray"),
    ):
        result = CliRunner().invoke(app, [*base, *extra])
        assert result.exit_code == 2, result.output
        assert said in result.output.splitlines()[-1], result.output  # one line, said last
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    pytest.importorskip("ray", reason=NO_RAY)
    with ray_cluster() as address:
        yield address


@pytest.mark.slow
def test_ray_synthesis_killed_halfway_resumes_with_the_local_backends_files(
    cluster: str, model_server: RoutedServer, tmp_path: Path
):
    listing = tmp_path / "list.jsonl"
    listing.write_text("".join(json.dumps({"name": n, "description": d}) + "\n" for n, d in DESCRIPTIONS))

    def command(backend: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "envfactory_mcp",
            "synthesize",
            "--from-list",
            str(listing),
            "-o",
            "out",  # relative: the Ray workers write where the driver would
            "--model",
            MODEL,
            "--api-base",
            model_server.base_url,
            "--concurrency",
            "1",
            *(["--backend", "ray", "--address", cluster] if backend == "ray" else []),
        ]

    (tmp_path / "ray").mkdir()
    out = tmp_path / "ray" / "out"
    driver = subprocess.Popen(
        command("ray"),
        cwd=tmp_path / "ray",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=RAY_ENV,
    )

    def finished() -> set[str]:
        return {
            name
            for name, _ in DESCRIPTIONS
            if (out / name / f"{name}_mcp" / "data" / "verification.json").is_file()
            or (out / f"{name}.failed.json").is_file()
        }

    def settled() -> bool:
        # A package is verified (its verification.json written) a moment before its build
        # log's last lines (the verify check, the result); kill between descriptions, not
        # in that moment, so the finished ones' logs are whole. At concurrency 1 the next
        # description takes seconds of model calls and verification before it can finish.
        done = finished()
        return bool(done) and all(
            (out / f"{name}.build.jsonl").is_file()
            and '"event": "result"' in (out / f"{name}.build.jsonl").read_text().splitlines()[-1]
            for name in done
        )

    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and driver.poll() is None and not settled():
        time.sleep(0.05)
    assert driver.poll() is None, (driver.stderr.read() if driver.stderr else b"")[-2000:]
    os.killpg(driver.pid, signal.SIGKILL)
    driver.wait()
    if driver.stderr is not None:
        driver.stderr.close()  # read above only on failure; closed, not left to the GC
    # The workers are the cluster's processes, not the driver's: Ray ends them when it
    # sees their driver gone; wait for that, so nothing writes behind the resumed run.
    deadline = time.monotonic() + 60
    while actor_processes("SynthWorker") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not actor_processes("SynthWorker")
    before = finished()
    assert 1 <= len(before) < len(DESCRIPTIONS)
    asked_before = len(model_server.requests)

    resumed = subprocess.run(
        command("ray"),
        cwd=tmp_path / "ray",
        capture_output=True,
        text=True,
        timeout=300,
        env=RAY_ENV,
        check=False,
    )
    assert resumed.returncode == 1, resumed.stderr[-2000:]  # library_broken never verifies
    summary = {r["name"]: r for r in json.loads(resumed.stdout)}
    assert {n for n, r in summary.items() if r["resumed"]} == before
    assert proposed_names(model_server.requests[asked_before:]) == sorted(set(summary) - before)
    assert {n: r["status"] for n, r in summary.items()} == {
        "library": "emitted",
        "library_broken": "failed",
        "library_annex": "emitted",
        "library_east": "emitted",
    }
    for name in before:  # done before the kill: one attempt, not redone
        assert starts(out / f"{name}.build.jsonl") == 1

    (tmp_path / "local").mkdir()
    local = subprocess.run(
        command("local"), cwd=tmp_path / "local", capture_output=True, text=True, timeout=300, check=False
    )
    assert local.returncode == 1, local.stderr[-2000:]
    reference = comparable(tmp_path / "local" / "out")
    assert any(path.endswith("tools.py") for path in reference)
    assert comparable(out) == reference
