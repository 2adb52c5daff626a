"""What an eval run is asked to do: ``EvalConfig``, refused at construction when it cannot
run (``host.config.ConfigError``, one line naming the fields), and its fixed choices
(``EvalAgent``, ``EvalTransport``) as enums that ``eval``'s options use too. Light on
imports: the command line reads it at start-up; ``eval.main`` runs it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum

from envfactory_mcp.host.config import AgentKind, ConfigError, UserKind, check_participant, verbatim
from envfactory_mcp.settings import CONCURRENCY, DEFAULT_SERVERS_DIR, MAX_STEPS

# The agents eval plays (``eval --agent``, ``EvalConfig.agent``): the host's
# (``host.config.AgentKind``, built by ``host.rollout.make_agent``) and eval's own scripted scorer
# checks (``eval.agents``, built by ``agent_factory``).
EvalAgent = StrEnum(  # type: ignore[misc]
    "EvalAgent",
    [*((kind.name, kind.value) for kind in AgentKind), ("coinflip", "coinflip"), ("skip_read", "skip-read")],
)
AGENTS = tuple(kind.value for kind in EvalAgent)


class EvalTransport(StrEnum):
    """How eval reaches its servers (``eval --transport``, ``EvalConfig.transport``): the
    packages over MCP, in this process or as subprocesses."""

    memory = "memory"
    stdio = "stdio"


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
    # Entity types whose ids mean the same on every server (None: those the servers declare
    # shared, and the demo servers' own when a linked demo server is given).
    shared_entities: list[str] | None = None
    transport: str = "memory"  # the packages over MCP: memory (in this process) or stdio
    servers_dir: str = str(DEFAULT_SERVERS_DIR)
    retry_failed: bool = False  # what this session does, not configuration
    # Seconds one request to each model may take (None: llm.MODEL_TIMEOUT_S), each attempt's
    # deadline: the agent's and user's are their requests' ``timeout`` (as rollout records it).
    agent_timeout: float | None = None
    user_timeout: float | None = None
    judge_timeout: float | None = None

    def __post_init__(self) -> None:
        """Refuses a configuration that cannot run (``host.config.ConfigError``, one line
        naming the fields), before any task is built: the command line's checks are these,
        and the rollout's own (``RolloutConfig``) for the sides of an episode."""
        set_ = functools.partial(object.__setattr__, self)
        if isinstance(self.envs, str) or not all(isinstance(e, str) and e for e in self.envs):
            raise ConfigError(f"{{envs}}: server names, not {verbatim(repr(self.envs))}", envs="envs")
        if not self.envs and not self.tasks_path:
            raise ConfigError(
                "{envs} names no server: give servers, e.g. crm,billing (or a fixed eval set, {tasks})",
                envs="envs",
                tasks="tasks_path",
            )
        for name, kinds in (("agent", EvalAgent), ("user", UserKind), ("transport", EvalTransport)):
            value = getattr(self, name)
            if value not in set(kinds):
                choices = ", ".join(kind.value for kind in kinds)
                raise ConfigError(f"{{kind}} {verbatim(repr(value))}: choose one of {choices}", kind=name)
            set_(name, str(value))
        for name, low, high in (("n", 1, None), ("trials", 1, None), ("max_chain", 2, 8), ("max_steps", 1, None),
                                ("concurrency", 1, None)):  # fmt: skip
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or value < low
                or (high and value > high)
            ):
                bound = f"from {low} to {high}" if high else f"{low} or more"
                raise ConfigError(
                    f"{{value}} must be a whole number {bound}, not {verbatim(repr(value))}", value=name
                )
        for side in ("agent", "user"):
            timeout = getattr(self, f"{side}_timeout")
            check_participant(
                side,
                getattr(self, side),
                getattr(self, f"{side}_model"),
                getattr(self, f"{side}_temperature", None),
                getattr(self, f"{side}_max_tokens", None),
                {} if timeout is None else {"timeout": timeout},
                timeout=f"{side}_timeout",
            )
        for side in ("agent", "user", "judge"):
            timeout = getattr(self, f"{side}_timeout")
            if timeout is not None and not timeout > 0:
                raise ConfigError(
                    f"{{timeout}} must be more than 0 seconds, not {timeout}", timeout=f"{side}_timeout"
                )
        if self.judge_timeout is not None and not self.judge_model:
            raise ConfigError(
                "{timeout} applies to a judge with a model ({model})",
                timeout="judge_timeout",
                model="judge_model",
            )
