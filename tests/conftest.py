"""Shared fixtures: the retail environment built once per test session, retail tasks
generated once per seed and session, and how the suite is split over pytest-xdist workers."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.tasks.model import Task, read_tasks, write_tasks

# pytest-xdist (addopts in pyproject.toml: -n auto --dist loadfile) with the scheduler
# below: each module runs whole on one worker, so its module-scoped fixtures are built
# once; the modules of one group run on one worker, one after another, because they must
# not run beside each other: the Ray tests each start a cluster and look for leftover
# actors machine-wide; the malicious variants look for their processes machine-wide. A
# key is a module or one test of a module (``path::name``, all its parameters): only the
# library's Ray test joins the Ray group, the rest of its module runs anywhere.
XDIST_GROUPS = {
    "tests/host/test_ray_backend.py": "ray",
    "tests/library/test_library.py::test_build_all_on_ray_gives_the_same_packages_as_local": "ray",
    "tests/synth/test_synth_ray.py": "ray",
    "tests/verify/malicious/test_malicious.py": "malicious",
    "tests/verify/malicious/test_malicious_serve.py": "malicious",
}
# The longest units of work, longest first, start before the rest (in collection order), so
# that no worker is left with a long one at the end. Only the order depends on this list.
# Seconds per unit from `--durations=0` of a whole run (2 workers, load average 5 to 8).
LONGEST_FIRST = [
    "malicious",  # 222
    "ray",  # 150
    "tests/cli/test_runs_recover.py",  # 146
    "tests/tasks/test_task_generation.py",  # 122 before the oracle's caches, ~60 after
    "tests/host/test_rollout.py",  # 65
    "tests/verify/test_defects.py",  # 60
    "tests/cli/test_cli.py",  # 51
    "tests/emit/test_install.py",  # 48
    "tests/library/test_library.py",  # 39 without its Ray test
    "tests/cli/test_synth_resource.py",  # 33
    "tests/runtime/test_protocol_surface.py",  # 31
    "tests/synth/test_corpus.py",  # 29
    "tests/emit/test_committed_packages.py",  # 28
    "tests/sim/test_demonstrator.py",  # 26
    "tests/runtime/test_incremental_hash.py",  # 20
    "tests/host/test_hostile_model.py",  # 18
    "tests/runtime/test_served_sessions.py",  # 17
]


# A private envfactory-mcp home for the whole run (its signing key, build records) and a
# private cache inside it, made by the first process and inherited by pytest-xdist's workers
# and every process a test starts: no test writes into the user's real home or cache, no test
# is helped by a key that signed the committed packages, and two copies of the suite running
# at once (two checkouts, or one run twice) share nothing.
TEST_HOME = "ENVFACTORY_TEST_HOME"


def pytest_configure(config: pytest.Config) -> None:
    import shutil
    import tempfile

    home = os.environ.get(TEST_HOME)
    if not home:
        home = tempfile.mkdtemp(prefix="envfactory-test-home-")
        os.environ[TEST_HOME] = home
        config.add_cleanup(lambda: shutil.rmtree(home, ignore_errors=True))
    os.environ["ENVFACTORY_MCP_HOME"] = home
    os.environ["ENVFACTORY_MCP_CACHE"] = str(Path(home) / "cache")


def work_unit(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    test = nodeid.split("[", 1)[0]
    return XDIST_GROUPS.get(test) or XDIST_GROUPS.get(module, module)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker per CPU this process may use, at most four (each worker
    builds the session fixtures again), and one more unless slow tests are left out: they
    spend much of their time waiting on subprocesses, Ray and the sandbox (on 2 CPUs the
    whole suite took 243 s with 3 workers, 356 s with 2; the fast tier 42 s and 40 s)."""
    workers = max(1, min(4, len(os.sched_getaffinity(0))))
    fast_tier = "not slow" in (config.getoption("markexpr", "") or "")
    return workers if fast_tier else workers + 1


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadfile``, with the groups above and the longest units first."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):  # type: ignore[misc]  # xdist ships no types
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            rank = {unit: i for i, unit in enumerate(LONGEST_FIRST)}
            first = min(self.workqueue, key=lambda unit: rank.get(unit, len(rank)))
            self.workqueue.move_to_end(first, last=False)
            super()._assign_work_unit(node)

    config.option.loadscopereorder = False  # after the longest, the rest in collection order
    return ModuleScheduling(config, log)


# The largest request for a seed, when its module is in the run: the first request for that
# seed makes that many at once (one generation instead of a short one, then a long one).
LARGEST_REQUEST = {5: ("tests/sim/test_demonstrator.py", 160)}
_BATCH = pytest.StashKey[dict[int, int]]()


def pytest_collection_finish(session: pytest.Session) -> None:
    modules = {item.nodeid.split("::", 1)[0] for item in session.items}
    session.config.stash[_BATCH] = {
        seed: n for seed, (module, n) in LARGEST_REQUEST.items() if module in modules
    }


@pytest.fixture(scope="session")
def retail_env() -> Environment:
    return build_env(load_blueprint("retail"))


@pytest.fixture(scope="session")
def mini_env() -> Environment:
    import mini_env as mini

    return build_env(mini.BLUEPRINT)


@pytest.fixture(scope="session")
def retail_tasks(
    retail_env: Environment, tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config
) -> Callable[..., list[Task]]:
    """``retail_tasks(n, seed=s)``: the tasks ``generate_tasks(retail_env, n, seed=s)``
    gives, generated once per seed and test run (each call starts a new oracle, which
    costs seconds whatever ``n`` is).

    A shorter run from the same seed gives exactly the first tasks of a longer one, and a
    task file reads back equal to the tasks written (both asserted in
    tests/tasks/test_task_generation.py). So ``n`` tasks are the first ``n`` of the longest
    list made for that seed so far, which the xdist workers of one run share through a file
    (the first to need it writes it, under a lock); a first request makes at least
    ``MIN_BATCH`` (or ``LARGEST_REQUEST``'s count for that seed when its module runs),
    which costs about what a few do. Each caller gets deep copies.
    """
    base = tmp_path_factory.getbasetemp()
    folder = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's, under xdist
    made: dict[int, list[Task]] = {}
    batch = pytestconfig.stash.get(_BATCH, {})

    def tasks(n: int, seed: int) -> list[Task]:
        if len(made.get(seed, ())) < n:
            made[seed] = _shared_tasks(retail_env, max(n, batch.get(seed, MIN_BATCH)), seed, folder)
        assert len(made[seed]) >= n, (seed, n, len(made[seed]))
        return [task.model_copy(deep=True) for task in made[seed][:n]]

    return tasks


MIN_BATCH = 40


@pytest.fixture(scope="session")
def shared_tasks(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, int, int], list[Task]]:
    """``shared_tasks(name, n, seed)``: the tasks ``generate_tasks`` gives for the shipped
    blueprint ``name``, made once per test run for every module and xdist worker that asks
    for the same ones (a file under the run's temporary folder, as ``retail_tasks``); each
    caller gets deep copies."""
    base = tmp_path_factory.getbasetemp()
    folder = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # the run's, under xdist
    envs: dict[str, Environment] = {}

    def tasks(name: str, n: int, seed: int) -> list[Task]:
        env = envs.get(name)
        if env is None:
            env = envs[name] = build_env(load_blueprint(name))
        made = _shared_tasks(env, n, seed, folder)
        return [task.model_copy(deep=True) for task in made[:n]]

    return tasks


def _shared_tasks(env: Environment, n: int, seed: int, folder: Path) -> list[Task]:
    from envfactory_mcp.tasks.generate import generate_tasks

    stem = f"{env.spec.name}-tasks-seed-{seed}"
    path = folder / f"{stem}.jsonl"
    with open(folder / f"{stem}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or the worker dies
        if path.exists() and len(stored := read_tasks(path)) >= n:
            return stored
        made, _ = generate_tasks(env, n, seed=seed)
        write_tasks(made, path.with_suffix(".part"))
        os.replace(path.with_suffix(".part"), path)
        return made


# In CI (.ci/run sets ENVFACTORY_REQUIRE_SYSTEM_DEPS) a test that skips fails instead, unless
# its reason is one of the few below that CI accepts: the security suites (bubblewrap's jail),
# the browser test (Chromium), the MCP conformance suite and Inspector (Node and npm packages),
# the extras CI installs and the packages' state must never go green unrun. The list names what
# may skip, not what may not, so a new skip fails in CI until it is written down here.
# ENVFACTORY_REQUIRE_JAIL (the older, narrower switch) fails only the skips that name the jail.
REQUIRE_SYSTEM_DEPS = "ENVFACTORY_REQUIRE_SYSTEM_DEPS"
REQUIRE_JAIL = "ENVFACTORY_REQUIRE_JAIL"
ALLOWED_SKIPS = {
    # verl and torch are several GB, in the verl extra, which CI does not install.
    "verl is not installed": "the verl extra",
    "this verl": "the verl extra",
    "written for verl": "the verl extra",
    # Public documents never go into the repository (../shared/corpus beside the checkout).
    "no public corpus at": "the shared corpus",
    "no Swagger 2.0 document in": "the shared corpus (a copy without its Swagger 2.0 documents)",
    # ART 0.5 pins openai<3, which takes litellm back to 1.82 for the whole install: the art
    # extra goes into a trainer's own environment, not into the test install.
    "the art extra is not installed": "the art extra",
    # verifiers 0.4 pins mcp==2.0.0 and the test install serves environments in-process on
    # mcp 2.3: the verifiers extra goes into a trainer's own environment
    # (tests/rl/test_verifiers_v1.py runs there, the servers from ENVFACTORY_SERVER_PYTHON).
    "verifiers 0.4 is not installed": "the verifiers extra",
    # Raw syscall numbers are checked on the architecture they are written for.
    "raw syscall numbers are x86_64's": "another architecture",
}
_JAIL_WORDS = ("jail", "bubblewrap", "bwrap")


def skip_is_allowed(reason: str) -> bool:
    return any(allowed.lower() in reason.lower() for allowed in ALLOWED_SKIPS)


def _reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    reason = str(report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr)
    return reason.removeprefix("Skipped: ")


def required_but_skipped(reason: str, environ: Mapping[str, str]) -> str | None:
    """The switch that makes a skip with this reason a failure, or None."""
    if environ.get(REQUIRE_SYSTEM_DEPS) and not skip_is_allowed(reason):
        return REQUIRE_SYSTEM_DEPS
    if environ.get(REQUIRE_JAIL) and any(word in reason.lower() for word in _JAIL_WORDS):
        return REQUIRE_JAIL
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    outcome = yield
    report = outcome.get_result()
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = _reason(report)
        switch = required_but_skipped(reason, os.environ)
        if switch:
            report.outcome = "failed"
            report.longrepr = (
                f"{switch} is set (CI) and this test skipped: {reason}\n"
                "install what it needs, or, if CI may rightly skip it, add its reason to "
                "ALLOWED_SKIPS in tests/conftest.py"
            )


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """A module skipped whole while collected (``pytest.importorskip`` at module level)."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped:
        reason = _reason(report)
        switch = required_but_skipped(reason, os.environ)
        if switch:
            report.outcome = "failed"
            report.longrepr = f"{switch} is set (CI) and this module skipped: {reason}"
