"""One eval run: build (or reuse) the eval set, play it through the host, read the records.

The episodes are the host's (``host.rollout``: the same episode loop, agents, users,
records and run store as ``rollout``), so an eval run is a run directory: resumable after
a kill (rerun the same command), ``--retry-failed``, ``view``, ``export``. What eval adds
is its own: the set (``eval.compose``), written as ``eval_set.jsonl`` (with what the report
needs) and ``tasks.jsonl`` (the plain tasks the host plays), and the MCP-Atlas reading of
the records (``eval.report``: coverage, pass, per server, failure classes), written as
``results.json`` and ``report.html`` beside the run's own files.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from envfactory_mcp import files
from envfactory_mcp.env import Environment
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.eval.claims import ClaimJudge
from envfactory_mcp.eval.compose import KINDS, EvalTask, read_eval_set, write_eval_set
from envfactory_mcp.eval.config import AGENTS as AGENTS
from envfactory_mcp.eval.config import EvalAgent, EvalTransport
from envfactory_mcp.eval.config import EvalConfig as EvalConfig
from envfactory_mcp.eval.report import EvalResult, eval_result, summarize, write_results
from envfactory_mcp.eval.sets import ComposedSet, compose_eval_set
from envfactory_mcp.host.config import RolloutConfig

if TYPE_CHECKING:
    from envfactory_mcp.host.connection import Transport

EVAL_SET = "eval_set.jsonl"
TASKS = "tasks.jsonl"
DEMO_SERVERS = "servers"  # <out>/servers: the demo packages, and links to the others


def make_judge(config: EvalConfig) -> ClaimJudge | None:
    if not config.judge_model:
        return None
    from envfactory_mcp.llm import LiteLLMClient

    client = LiteLLMClient(
        config.judge_model, api_base=config.judge_api_base, seed=config.seed, timeout_s=config.judge_timeout
    )
    return ClaimJudge(client)


TRANSPORTS = tuple(transport.value for transport in EvalTransport)


@dataclass(frozen=True)
class _EvalRollout(RolloutConfig):
    """The rollout of an eval run: its agent may also be one of eval's own."""

    agent_kinds: ClassVar[type[StrEnum]] = EvalAgent


def transport_of(name: str) -> Transport:
    """The host's transport for ``EvalConfig.transport`` (``EvalTransport``)."""
    if name == EvalTransport.stdio:
        return "stdio"
    if name == EvalTransport.memory:
        return "memory"
    raise EnvFactoryError(f"unknown transport {name!r}: use one of {', '.join(TRANSPORTS)}")


def compose_set(config: EvalConfig, envs: list[Environment]) -> ComposedSet:
    """``config.n`` new tasks over ``envs`` (chains where values flow, the rest single-server
    tasks with the others as distractors)."""
    from envfactory_mcp.eval import demo_envs

    shared = config.shared_entities
    if shared is None:
        demo = any(e.spec.domain == "eval" and e.spec.name in demo_envs.LINKED for e in envs)
        shared = sorted({*declared_shared(envs), *(demo_envs.SHARED_ENTITIES if demo else ())})
    built = compose_eval_set(
        envs, config.n, seed=config.seed, shared_entities=shared, max_chain=config.max_chain
    )
    if not built.tasks:
        raise EnvFactoryError(f"no evaluation task could be built over {', '.join(config.envs)}")
    return built


def eval_tasks(config: EvalConfig, envs: list[Environment]) -> list[EvalTask]:
    """The fixed eval set when given, else ``config.n`` new tasks over ``envs``."""
    if config.tasks_path:
        return read_eval_set(Path(config.tasks_path))
    return compose_set(config, envs).tasks


def declared_shared(envs: list[Environment]) -> list[str]:
    """Entities at least two of ``envs`` declare shared (``EnvSpec.shared_entities``):
    linked services, whose ids mean the same thing on each."""
    from collections import Counter

    counts = Counter(entity for e in envs for entity in set(e.spec.shared_entities))
    return sorted(entity for entity, n in counts.items() if n >= 2)


def prepare(config: EvalConfig, envs: list[Environment], out: Path) -> tuple[list[EvalTask], str, str]:
    """The eval set in ``out`` (built, or the fixed one copied): ``eval_set.jsonl`` and the
    plain ``tasks.jsonl`` the host plays. Returns the tasks, the set's sha256 and the
    statement of what was built. A folder holding another set's run is refused."""
    if config.tasks_path:
        tasks = read_eval_set(Path(config.tasks_path))
        statement = f"re-running the fixed eval set {config.tasks_path} ({len(tasks)} tasks)"
    else:
        built = compose_set(config, envs)
        tasks, statement = built.tasks, built.statement()
    text = "".join(t.task.to_line() + "\n" for t in tasks)
    existing = out / TASKS
    if existing.is_file() and existing.read_text(encoding="utf-8") != text:
        raise EnvFactoryError(
            f"{out} holds an eval run of another eval set ({existing} differs): use another -o,"
            " or the same options as that run to resume it"
        )
    out.mkdir(parents=True, exist_ok=True)
    digest = write_eval_set(tasks, out / EVAL_SET)
    if not existing.is_file():
        files.write_text(existing, text)
    return tasks, digest, statement


def served_dir(config: EvalConfig, envs: list[Environment], servers: list[str], out: Path) -> Path:
    """Where the host finds the packages: ``servers_dir``, or, when a demo server (not a
    package) is wanted, ``<out>/servers`` holding the demo packages (written from this
    repository's code, unverified: served with ``allow_unverified`` and ``trust``, see
    ``needs_trust``) and links to the other packages."""
    from envfactory_mcp.eval import demo_envs

    base = Path(config.servers_dir)
    demo = {e.spec.name: e for e in envs if e.spec.domain == "eval" and not (base / e.spec.name).is_dir()}
    if not demo:
        return base
    from envfactory_mcp.emit.render import render_package
    from envfactory_mcp.emit.write import write_package

    folder = out / DEMO_SERVERS
    folder.mkdir(parents=True, exist_ok=True)
    wanted = {e.spec.name: e for e in demo_envs.linked_envs(3 + _notes(servers))}
    for name in servers:
        target = folder / name
        if target.exists() or target.is_symlink():
            continue
        if name in demo or (name in wanted and not (base / name).is_dir()):
            write_package(render_package(demo.get(name) or wanted[name]), target)
        else:
            target.symlink_to((base / name).resolve(), target_is_directory=True)
    return folder


def _notes(names: list[str]) -> int:
    return max((int(n[6:]) for n in names if n.startswith("notes_") and n[6:].isdigit()), default=0)


def agent_factory(config: Any, task: Any) -> Any:
    """The host's agents (``host.rollout.make_agent``), and eval's own scripted scorer
    checks, ``coinflip`` and ``skip-read`` (``eval.agents``)."""
    from envfactory_mcp.host.rollout import make_agent

    if config.agent == "coinflip":
        from envfactory_mcp.eval.agents import CoinFlipAgent

        return CoinFlipAgent(seed=config.seed)
    if config.agent == "skip-read":
        from envfactory_mcp.eval.agents import SkipReadAgent

        return SkipReadAgent()
    return make_agent(config, task)


async def evaluate(
    config: EvalConfig,
    envs: list[Environment],
    out: Path,
    progress: Callable[[int, int], None] | None = None,
    allow_unverified: bool = False,
    trust: bool = False,
    agent_factory: Callable[[Any, Any], Any] = agent_factory,
    echo: Callable[[str], None] | None = None,
) -> tuple[dict[str, Any], list[EvalResult]]:
    """Build (or reuse) the set, play every missing (task, trial) through the host into the
    run directory ``out``, read every record; writes ``results.json`` and ``report.html``
    and returns the summary and the results."""
    from envfactory_mcp.host.rollout import make_user, rollout

    transport = transport_of(config.transport)  # refused before anything is built
    tasks, digest, statement = prepare(config, envs, out)
    if echo is not None:
        echo(statement)
    servers = sorted({s for t in tasks for s in t.offered})
    loaded = {e.spec.name for e in envs}
    if config.tasks_path and envs and not set(servers) <= loaded:
        raise EnvFactoryError(
            f"the eval set needs servers that are not loaded: {', '.join(sorted(set(servers) - loaded))}"
        )
    folder = served_dir(config, envs, servers, out)
    demo = folder != Path(config.servers_dir)
    files.write_json(
        out / "eval.json",
        {**asdict(config), "eval_set_sha256": digest, "statement": statement},
        sort_keys=True,
    )
    rollout_config = _EvalRollout(
        envs=servers,
        tasks_path=str(out / TASKS),
        agent=config.agent,
        agent_model=config.agent_model,
        agent_api_base=config.agent_api_base,
        agent_temperature=config.agent_temperature,
        agent_max_tokens=config.agent_max_tokens,
        agent_args={"timeout": config.agent_timeout} if config.agent_timeout is not None else {},
        user=config.user,
        user_model=config.user_model,
        user_api_base=config.user_api_base,
        user_args={"timeout": config.user_timeout} if config.user_timeout is not None else {},
        trials=config.trials,
        concurrency=config.concurrency,
        max_steps=config.max_steps,
        transport=transport,
        servers_dir=str(folder),
        seed=config.seed,
        retry_failed=config.retry_failed,
        allow_unverified=allow_unverified or demo,
        trust=trust or demo,
    )
    started = time.perf_counter()
    await rollout(rollout_config, out, progress, agent_factory=agent_factory, user_factory=make_user)
    seconds = time.perf_counter() - started
    results = await read_results(out, tasks, folder, make_judge(config))
    summary = summarize(results, seconds)
    summary["eval_set_sha256"] = digest
    summary["kinds"] = {kind: sum(1 for t in tasks if t.kind == kind) for kind in KINDS}
    write_results(out, results, summary)
    return summary, results


async def read_results(
    run_dir: Path, tasks: list[EvalTask], servers_dir: Path, judge: ClaimJudge | None = None
) -> list[EvalResult]:
    """Every (task, trial)'s last record in ``run_dir`` read as the eval reads it, in the
    set's order."""
    from envfactory_mcp.layout import package_spec
    from envfactory_mcp.records.store import read_records

    by_id = {t.task_id: t for t in tasks}
    order = {task_id: i for i, task_id in enumerate(by_id)}
    records = sorted(
        (r for r in read_records(run_dir) if r.task_id in by_id), key=lambda r: (order[r.task_id], r.trial)
    )
    specs = {name: package_spec(servers_dir, name) for name in {s for t in tasks for s in t.offered}}
    return [
        await eval_result(
            r, by_id[r.task_id], specs, ClaimJudge(judge.client, judge.max_tokens) if judge else None
        )
        for r in records
    ]
