"""One eval run: build (or reuse) the cross-server tasks, play them, score, write results."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from envfactory_mcp import files
from envfactory_mcp.env import Environment
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.eval.claims import ClaimJudge
from envfactory_mcp.eval.compose import EvalTask, LinkedComposer, read_eval_set, write_eval_set
from envfactory_mcp.eval.report import summarize, write_results
from envfactory_mcp.eval.runner import EpisodeSettings, EvalResult, run_eval
from envfactory_mcp.settings import CONCURRENCY, DEFAULT_SERVERS_DIR, MAX_STEPS
from envfactory_mcp.sim.types import Agent, UserSimulator

AGENTS = ("oracle", "noop", "random", "coinflip", "llm")


@dataclass(frozen=True)
class EvalConfig:
    envs: list[str]
    agent: str = "oracle"
    agent_model: str | None = None
    agent_api_base: str | None = None
    agent_temperature: float | None = None
    agent_max_tokens: int | None = None
    judge_model: str | None = None
    judge_api_base: str | None = None
    user: str = "scripted"
    user_model: str | None = None
    user_api_base: str | None = None
    n: int = 20
    trials: int = 1
    seed: int = 0
    max_chain: int = 4
    max_steps: int = MAX_STEPS
    concurrency: int = CONCURRENCY
    tasks_path: str | None = None  # a fixed eval set to re-run
    # Entity types whose ids mean the same on every server (None: the demo servers' own,
    # when every server is a demo server, else none).
    shared_entities: list[str] | None = None
    transport: str = "local"  # local (in this process), memory or stdio (the packages over MCP)
    servers_dir: str = str(DEFAULT_SERVERS_DIR)


def make_agent(config: EvalConfig, task: EvalTask) -> Agent:
    from envfactory_mcp.eval.agents import CoinFlipAgent
    from envfactory_mcp.sim import agents

    if config.agent == "oracle":
        return agents.OracleAgent()
    if config.agent == "noop":
        return agents.NoopAgent()
    if config.agent == "random":
        return agents.RandomAgent(seed=config.seed)
    if config.agent == "coinflip":
        return CoinFlipAgent(seed=config.seed)
    if config.agent == "llm":
        if not config.agent_model:
            raise EnvFactoryError("the llm agent needs --agent-model")
        from envfactory_mcp.llm import LiteLLMClient

        return agents.LLMAgent(
            LiteLLMClient(config.agent_model, api_base=config.agent_api_base, seed=config.seed),
            temperature=config.agent_temperature,
            max_tokens=config.agent_max_tokens,
        )
    raise EnvFactoryError(f"unknown agent {config.agent!r}: use one of {', '.join(AGENTS)}")


def make_user(config: EvalConfig, task: EvalTask) -> UserSimulator:
    from envfactory_mcp.sim import users

    if config.user == "scripted":
        return users.ScriptedUser()
    if config.user == "llm":
        if not config.user_model:
            raise EnvFactoryError("the llm user needs --user-model")
        from envfactory_mcp.llm import LiteLLMClient

        return users.LLMUser(
            LiteLLMClient(config.user_model, api_base=config.user_api_base, seed=config.seed)
        )
    raise EnvFactoryError(f"unknown user {config.user!r}: use scripted or llm")


def make_judge(config: EvalConfig) -> ClaimJudge | None:
    if not config.judge_model:
        return None
    from envfactory_mcp.llm import LiteLLMClient

    return ClaimJudge(LiteLLMClient(config.judge_model, api_base=config.judge_api_base, seed=config.seed))


# Where eval serves its environments: in this process, or the packages over MCP.
EvalTransport = Literal["local", "memory", "stdio"]
TRANSPORTS: tuple[EvalTransport, ...] = get_args(EvalTransport)


def transport_of(name: str) -> EvalTransport:
    for transport in TRANSPORTS:
        if name == transport:
            return transport
    raise EnvFactoryError(f"unknown transport {name!r}: use one of {', '.join(TRANSPORTS)}")


def eval_tasks(config: EvalConfig, envs: list[Environment]) -> list[EvalTask]:
    """The fixed eval set when given, else ``config.n`` new tasks over ``envs``."""
    if config.tasks_path:
        return read_eval_set(Path(config.tasks_path))
    from envfactory_mcp.eval import demo_envs

    shared = config.shared_entities
    if shared is None:
        demo = all(e.spec.domain == "eval" and e.spec.name in demo_envs.LINKED for e in envs)
        shared = list(demo_envs.SHARED_ENTITIES) if demo else declared_shared(envs)
    composer = LinkedComposer(envs, seed=config.seed, shared_entities=shared)
    tasks = composer.compose(config.n, max_steps=config.max_chain)
    if not tasks:
        raise EnvFactoryError(f"no cross-server task could be built over {', '.join(config.envs)}")
    return tasks


def declared_shared(envs: list[Environment]) -> list[str]:
    """Entities at least two of ``envs`` declare shared (``EnvSpec.shared_entities``):
    linked services, whose ids mean the same thing on each."""
    from collections import Counter

    counts = Counter(entity for e in envs for entity in set(e.spec.shared_entities))
    return sorted(entity for entity, n in counts.items() if n >= 2)


async def evaluate(
    config: EvalConfig,
    envs: list[Environment],
    out: Path,
    progress: Any = None,
    allow_unverified: bool = False,
    trust: bool = False,
) -> tuple[dict[str, Any], list[EvalResult]]:
    """Tasks, episodes, scores; writes ``eval_set.jsonl``, ``config.json``, ``results.json``,
    ``episodes.jsonl`` and ``report.html`` into ``out``; returns the summary and results."""

    transport_of(config.transport)  # refused before anything is built
    tasks = eval_tasks(config, envs)
    out.mkdir(parents=True, exist_ok=True)
    digest = write_eval_set(tasks, out / "eval_set.jsonl")
    files.write_json(out / "config.json", {**asdict(config), "eval_set_sha256": digest})
    judge = make_judge(config)
    started = time.perf_counter()
    results = await run_eval(
        tasks,
        envs,
        lambda t: make_agent(config, t),
        lambda t: make_user(config, t),
        judge_factory=lambda: ClaimJudge(judge.client, judge.max_tokens) if judge else None,
        trials=config.trials,
        concurrency=config.concurrency,
        settings=EpisodeSettings(max_steps=config.max_steps),
        progress=progress,
        transport=transport_of(config.transport),
        servers_dir=Path(config.servers_dir),
        allow_unverified=allow_unverified,
        trust=trust,
    )
    summary = summarize(results, time.perf_counter() - started)
    summary["eval_set_sha256"] = digest
    write_results(out, results, summary)
    return summary, results
