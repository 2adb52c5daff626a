"""tests/host in an interpreter whose mcp cannot serve environments (issue 33).

The host's client side runs on mcp 2.0 (a trainer's venv: verifiers 0.4 pins
``mcp==2.0.0``), the environment servers need mcp>=2.3 (``rl.env.RUNTIME_MCP``). The tests
named here start servers in this interpreter (in-process, or over stdio or HTTP from
``sys.executable``), so in such a venv they are skipped with that reason instead of
failing on the servers' start (``Server.__init__() got an unexpected keyword argument``).
The rest of this folder runs there; so does tests/rl, whose servers run over stdio from
``ENVFACTORY_SERVER_PYTHON`` (``host.launch``). With mcp>=2.3 nothing is skipped.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest

from envfactory_mcp.rl.env import RUNTIME_MCP, runtime_in_process

HERE = Path(__file__).resolve().parent
EVERY_TEST = None
# module -> the tests of it that start a server here (EVERY_TEST: all of them)
STARTS_SERVERS: dict[str, frozenset[str] | None] = {
    "test_harness_failures.py": EVERY_TEST,
    "test_hash_requests.py": EVERY_TEST,
    "test_retail_server.py": EVERY_TEST,
    "test_request_costs.py": EVERY_TEST,
    "test_rollout.py": EVERY_TEST,
    "test_throughput.py": EVERY_TEST,
    "test_transports.py": EVERY_TEST,
    "test_hostile_model.py": frozenset(
        {
            "test_an_episode_whose_session_was_lost_to_a_reconnect_is_a_harness_failure_not_a_score",
            "test_arguments_a_connection_cannot_carry_cost_the_call_not_the_connection",
            "test_one_hostile_model_reply_fails_only_its_own_call_and_the_other_episodes_score_normally",
        }
    ),
    "test_lean_client.py": frozenset(
        {
            "test_a_stdio_connection_loads_no_mcp_sdk_in_the_host",
            "test_an_error_answer_keeps_the_connection_and_a_dead_server_breaks_it",
            "test_concurrent_requests_get_their_own_answers",
            "test_lean_and_sdk_clients_list_and_answer_alike",
        }
    ),
    "test_unverified_launch.py": frozenset({"test_the_package_runtime_copy_never_runs"}),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if runtime_in_process():
        return
    needed = ".".join(map(str, RUNTIME_MCP))
    skip = pytest.mark.skip(
        reason=f"this interpreter's mcp {version('mcp')} is older than {needed}, which the "
        f"environment servers this test starts in it need (a trainer's venv; the host's client "
        f"side is tested there by tests/rl with ENVFACTORY_SERVER_PYTHON)"
    )
    for item in items:
        path = Path(str(item.path)).resolve()
        if path.parent != HERE or path.name not in STARTS_SERVERS:
            continue
        names = STARTS_SERVERS[path.name]
        if names is EVERY_TEST or getattr(item, "originalname", item.name) in names:
            item.add_marker(skip)
