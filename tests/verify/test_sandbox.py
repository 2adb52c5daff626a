"""Sandbox attacks have no effect outside the sandbox, and the parent keeps running."""

from __future__ import annotations

import json
import os
import socket
import uuid
from pathlib import Path
from typing import Any

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime.jail import JailSupport
from envfactory_mcp.spec import dump_spec
from envfactory_mcp.verify import sandbox
from envfactory_mcp.verify.sandbox import (
    SandboxLimits,
    SandboxResult,
    network_namespace_available,
    run_in_sandbox,
)

pytestmark = pytest.mark.slow
FAST = SandboxLimits(cpu_seconds=2, wall_seconds=15, memory_bytes=1 << 30)


def job(env: Environment, noop_body: str, module_prelude: str = "") -> dict:
    """The mini bank with its ``noop`` tool replaced by ``noop_body``, probed once."""
    source = env.tools_source.replace("def noop(ctx):\n    return {}\n", "")
    source = (
        module_prelude
        + source
        + "\ndef noop(ctx):\n"
        + "".join(f"    {line}\n" for line in noop_body.splitlines())
    )
    return {
        "kind": "probes",
        "spec": json.loads(dump_spec(env.spec)),
        "schema_sql": env.schema_sql,
        "seed_sql": env.seed_sql,
        "tools_source": source,
        "probes": [{"id": "attack", "tool": "noop", "arguments": {}}],
    }


def answer_of(result: SandboxResult) -> dict[str, Any]:
    """The child's answer, which the test needs it to have given."""
    assert result.answer is not None, result.failure
    return result.answer


def only_result(answer: dict) -> dict:
    assert answer["stage"] == "done", answer
    (result,) = answer["results"]
    return result


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_well_behaved_code_runs_and_reports_state_hashes(mini_env: Environment):
    result = run_in_sandbox(job(mini_env, "return {}"), FAST)
    assert result.ok and result.network_isolated == (result.jail is not None or network_namespace_available())
    answer = answer_of(result)
    assert answer["seed_state_hash"] == mini_env.seed_hash
    assert only_result(answer)["ok"] is True and gone(result.pid)


@pytest.mark.parametrize(
    ("connect", "event"),
    [
        ("socket.create_connection(('127.0.0.1', {port}), timeout=2)", "socket.getaddrinfo"),
        ("socket.socket().connect(('127.0.0.1', {port}))", "socket.__new__"),
    ],
)
def test_opening_a_network_connection_reaches_nobody(mini_env: Environment, connect: str, event: str):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        body = f"import socket\n{connect.format(port=port)}\nreturn {{}}"
        result = run_in_sandbox(job(mini_env, body), FAST)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever connected
    outcome = only_result(answer_of(result))
    assert outcome["internal"] and f"sandbox: {event} is not allowed" in outcome["error"]


def test_writing_outside_the_sandbox_directory_is_refused(mini_env: Environment, tmp_path: Path):
    target = tmp_path / f"escape-{uuid.uuid4().hex}.txt"
    result = run_in_sandbox(job(mini_env, f"open({str(target)!r}, 'w').write('x')\nreturn {{}}"), FAST)
    assert not target.exists()
    outcome = only_result(answer_of(result))
    assert outcome["internal"] and "sandbox: writing" in outcome["error"]


@pytest.mark.parametrize(
    "body",
    [
        "import os\nos.system('touch {target}')\nreturn {{}}",
        "import subprocess\nsubprocess.run(['touch', '{target}'])\nreturn {{}}",
        "import os\nif os.fork() == 0:\n    open('{target}', 'w')\nreturn {{}}",
    ],
)
def test_spawning_processes_is_refused(mini_env: Environment, tmp_path: Path, body: str):
    target = tmp_path / f"spawned-{uuid.uuid4().hex}"
    result = run_in_sandbox(job(mini_env, body.format(target=target)), FAST)
    assert not target.exists()
    outcome = only_result(answer_of(result))
    assert outcome["internal"] and "sandbox:" in outcome["error"] and "is not allowed" in outcome["error"]


def test_an_infinite_loop_is_interrupted_and_the_next_probe_still_runs(mini_env: Environment):
    hang = job(mini_env, "while True:\n    pass")
    hang["call_seconds"] = 0.5
    hang["probes"].append({"id": "after", "tool": "get_account", "arguments": {"account_id": "acc_001"}})
    result = run_in_sandbox(hang, FAST)
    first, after = answer_of(result)["results"]
    assert first["timeout"] and "no answer within 0.5 s" in first["error"]
    assert after["ok"] and gone(result.pid)


def test_a_loop_inside_sqlite_is_interrupted_too(mini_env: Environment):
    body = "ctx.scalar('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c')\nreturn {}"
    hang = job(mini_env, body)
    hang["call_seconds"] = 0.5
    hang["probes"].append({"id": "after", "tool": "get_account", "arguments": {"account_id": "acc_001"}})
    result = run_in_sandbox(hang, FAST)
    outcome, after = answer_of(result)["results"]
    # Whichever fires first ends it: SQLite's progress handler ("interrupted") or the
    # call timer, whose signal Python delivers inside that handler (a timeout).
    assert not outcome["ok"]
    assert outcome.get("timeout") or (outcome["fault"] == "exception" and "interrupted" in outcome["error"])
    assert after["ok"]


def test_a_hang_the_timer_cannot_interrupt_is_killed_and_the_parent_goes_on(mini_env: Environment):
    # A signal handler runs only between bytecodes; one huge C-level operation outlasts it,
    # so the CPU limit and the wall-clock kill are what stop it.
    hang = job(mini_env, "import hashlib\nhashlib.pbkdf2_hmac('sha256', b'x', b'y', 10 ** 9)\nreturn {}")
    hang["call_seconds"] = 0.5
    result = run_in_sandbox(hang, FAST)
    assert not result.ok
    assert "CPU time limit" in (result.failure or "") or "timed out" in (result.failure or "")
    assert gone(result.pid)
    assert run_in_sandbox(job(mini_env, "return {}"), FAST).ok  # the parent is fine


def test_allocating_ten_gigabytes_fails_inside_the_sandbox(mini_env: Environment):
    result = run_in_sandbox(job(mini_env, "block = bytearray(10 * 1024 ** 3)\nreturn {}"), FAST)
    outcome = only_result(answer_of(result))
    assert outcome["internal"] and "MemoryError" in outcome["error"]
    assert gone(result.pid)


def test_attacks_at_import_time_are_caught_while_loading(mini_env: Environment, tmp_path: Path):
    target = tmp_path / "at-import"
    prelude = f"import os\nos.system('touch {target}')\n"
    result = run_in_sandbox(job(mini_env, "return {}", module_prelude=prelude), FAST)
    assert answer_of(result)["stage"] == "load"
    assert "sandbox: os.system is not allowed" in answer_of(result)["error"]
    assert not target.exists()


def test_a_seed_that_breaks_a_foreign_key_is_reported(mini_env: Environment):
    bad = job(mini_env, "return {}")
    bad["seed_sql"] += "INSERT INTO transfers VALUES ('t', 'acc_404', 'acc_001', 1);\n"
    result = run_in_sandbox(bad, FAST)
    assert (
        answer_of(result)["stage"] == "seed" and "FOREIGN KEY constraint failed" in answer_of(result)["error"]
    )


needs_jail = pytest.mark.skipif(
    not sandbox.jail_support().available, reason=f"no working jail here: {sandbox.jail_support().reason}"
)


@needs_jail
def test_a_jailed_run_records_every_layer_it_saw(mini_env: Environment):
    result = run_in_sandbox(job(mini_env, "return {}"), FAST)
    assert result.ok and result.jail and "bubblewrap" in result.jail
    assert result.layers == dict.fromkeys(result.layers, True)
    assert "jail" not in answer_of(result)  # taken out of the answer, into the result


@needs_jail
def test_what_the_audit_hook_cannot_see_the_jail_kills(mini_env: Environment, tmp_path: Path):
    tmp_path.chmod(0o777)
    target = tmp_path / "fifo"
    result = run_in_sandbox(job(mini_env, f"import os\nos.mkfifo({str(target)!r})\nreturn {{}}"), FAST)
    assert not target.exists()
    assert result.failure and "SIGSYS" in result.failure and "seccomp" in result.failure
    assert gone(result.pid)


def test_without_bubblewrap_the_old_sandbox_runs_and_says_so(
    mini_env: Environment, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(sandbox, "jail_support", lambda: JailSupport(False, "not here"))
    result = run_in_sandbox(job(mini_env, "return {}"), FAST)
    assert result.ok and result.jail is None
    assert (
        result.layers["jail"] is False and result.layers["seccomp"] is False and result.layers["audit_hook"]
    )


def test_an_answer_without_the_nonce_is_refused(mini_env: Environment):
    body = "import json, os, sys\nsys.stdout.write(json.dumps({'stage': 'done', 'results': []}))\nsys.stdout.flush()\nos._exit(0)"
    result = run_in_sandbox(job(mini_env, body), FAST)
    assert result.answer is None and result.failure and "forged" in result.failure
