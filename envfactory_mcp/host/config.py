"""What a rollout is asked to do: ``RolloutConfig``, refused at construction when it cannot
run (``ConfigError``, one line naming the fields), and the fixed choices it names
(``AgentKind``, ``UserKind``, ``RolloutTransport``) as enums that the command line's
options use too (``--agent``, ``--user``, ``--transport``: typer lists them in ``--help``
and refuses any other value). Light on imports: the command line reads it at start-up.
``host.rollout`` builds the agents and users these kinds name (``make_agent``,
``make_user``) and runs the configuration.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.ray_cluster import BACKENDS, Backend
from envfactory_mcp.settings import (
    CONCURRENCY,
    DEFAULT_SERVERS_DIR,
    EPISODE_TIMEOUT_S,
    MAX_ERRORS,
    MAX_STEPS,
    REWARD_BASIS,
)

if TYPE_CHECKING:
    from envfactory_mcp.host.connection import Transport


class AgentKind(StrEnum):
    """Who plays the agent (``make_agent`` builds each): ``rollout --agent``, ``RolloutConfig.agent``."""

    demonstrator = "demonstrator"  # decides from the user's words and tool outputs only: the SFT source
    gold_replay = "gold-replay"  # the same procedure following the gold's calls: a reference
    oracle = "oracle"  # replays the gold: a consistency check
    noop = "noop"
    random = "random"
    llm = "llm"  # a model (``agent_model``)


class UserKind(StrEnum):
    """Who plays the user (``make_user`` builds each): ``--user``, ``RolloutConfig.user``."""

    scripted = "scripted"
    llm = "llm"  # a model (``user_model``)


class RolloutTransport(StrEnum):
    """How a rollout reaches its servers, as the command line says it (serve's spelling);
    ``RolloutConfig.transport`` keeps the host's name (``connection.Transport``: ``http``)."""

    stdio = "stdio"  # a server subprocess per environment
    streamable_http = "streamable-http"  # servers already running (``urls``), started with serve --control
    memory = "memory"  # in this process
    http = "http"  # the old spelling of streamable-http

    @property
    def host_name(self) -> Transport:
        return "http" if self in (RolloutTransport.streamable_http, RolloutTransport.http) else self.value  # type: ignore[return-value]


AGENTS = tuple(kind.value for kind in AgentKind)
USERS = tuple(kind.value for kind in UserKind)
# Keyword arguments of a model request that the host sets itself (not --agent-args).
RESERVED_MODEL_ARGS = ("model", "messages", "tools", "api_base", "api_key", "stream")


class ConfigError(EnvFactoryError, ValueError):
    """A configuration that cannot run (``RolloutConfig``, ``eval.config.EvalConfig``), in one
    line. Its template names the fields at fault by slot (``{model}``) and ``fields`` maps
    each slot to its field: ``str()`` says the fields' names, ``said(names)`` another name
    for each field (the command line's flags), so both users read the same rule."""

    def __init__(self, template: str, **fields: str) -> None:
        self.template = template
        self.fields = fields
        super().__init__(self.said({}))

    def said(self, names: Mapping[str, str]) -> str:
        return self.template.format_map({slot: names.get(name, name) for slot, name in self.fields.items()})


def verbatim(text: object) -> str:
    """``text`` inside a ``ConfigError`` template."""
    return str(text).replace("{", "{{").replace("}", "}}")


def parse_model_args(name: str, value: Mapping[str, Any] | str | None) -> dict[str, Any]:
    """A model's request keyword arguments (``agent_args``, ``user_args``): a mapping, or
    its JSON text (``--agent-args``); the keys the host sets itself are refused, and a
    ``timeout`` (each request's deadline) is a number of seconds above 0."""
    if value is None:
        return {}
    example = " e.g. {args} '" + verbatim('{"temperature": 0}') + "'"
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise ConfigError(f"{{args}}: not valid JSON ({verbatim(exc)});{example}", args=name) from None
    if not isinstance(value, Mapping):
        raise ConfigError(f"{{args}}: expected a JSON object,{example}", args=name)
    reserved = sorted(set(value) & set(RESERVED_MODEL_ARGS))
    if reserved:
        raise ConfigError(f"{{args}}: {', '.join(reserved)} are set by the host; leave them out", args=name)
    timeout = value.get("timeout")
    if "timeout" in value and (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ConfigError(
            f"{{args}}: timeout must be a number of seconds above 0, not {verbatim(repr(timeout))}", args=name
        )
    return dict(value)


def check_participant(
    side: str,
    kind: str,
    model: str | None,
    temperature: float | None,
    max_tokens: int | None,
    args: Mapping[str, Any],
    timeout: str,
) -> None:
    """The rules of one side of an episode (``side``: agent or user; its fields
    ``<side>_model`` and so on): a model plays an llm side; its sampling settings apply to
    an llm side only, each given once; a request deadline (held by the field ``timeout``)
    needs a model. Shared by ``RolloutConfig`` and ``eval.config.EvalConfig``."""
    model_f, args_f = f"{side}_model", f"{side}_args"
    sampling = {f"{side}_temperature": temperature, f"{side}_max_tokens": max_tokens}
    if kind == "llm" and not model:
        raise ConfigError("{kind} llm needs {model} (a litellm model string)", kind=side, model=model_f)
    for (field_name, value), key in zip(sampling.items(), ("temperature", "max_tokens"), strict=True):
        if value is not None and key in args:
            raise ConfigError(f"{{setting}} and {key} in {{args}}: give one", setting=field_name, args=args_f)
    if temperature is not None and not temperature >= 0:
        raise ConfigError(f"{{value}} must be 0 or more, not {temperature}", value=f"{side}_temperature")
    if max_tokens is not None and max_tokens < 1:
        raise ConfigError(f"{{value}} must be 1 or more, not {max_tokens}", value=f"{side}_max_tokens")
    given = [name for name, value in sampling.items() if value is not None]
    if any(key != "timeout" for key in args):
        given.append(args_f)
    if given and kind != "llm":
        slots = {f"f{i}": name for i, name in enumerate(given)}
        raise ConfigError(
            f"{', '.join(f'{{{slot}}}' for slot in slots)} apply to an llm {side} only ({{kind}} llm)",
            **slots,
            kind=side,
        )
    if "timeout" in args and not model:
        raise ConfigError(
            f"{{timeout}} applies to {'an' if side == 'agent' else 'a'} {side} with a model ({{model}})",
            timeout=timeout,
            model=model_f,
        )


def _at_least(config: object, minimum: int, *names: str) -> None:
    for name in names:
        value = getattr(config, name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < minimum):
            raise ConfigError(
                f"{{value}} must be a whole number, {minimum} or more, not {verbatim(repr(value))}",
                value=name,
            )


@dataclass(frozen=True)
class RolloutConfig:
    envs: list[str]
    tasks_path: str
    agent: str = "oracle"
    agent_model: str | None = None
    agent_api_base: str | None = None
    agent_temperature: float | None = None  # None: the endpoint's default
    agent_max_tokens: int | None = None
    user: str = "scripted"
    user_model: str | None = None
    user_api_base: str | None = None
    user_temperature: float | None = None
    user_max_tokens: int | None = None
    trials: int = 1
    concurrency: int = CONCURRENCY
    max_steps: int = MAX_STEPS
    max_errors: int = MAX_ERRORS
    episode_timeout_s: float = EPISODE_TIMEOUT_S
    transport: Transport = "stdio"
    servers_dir: str = str(DEFAULT_SERVERS_DIR)
    urls: dict[str, str] = field(default_factory=dict)  # env -> URL, for the http transport
    seed: int = 0
    reward_basis: tuple[str, ...] = REWARD_BASIS
    max_tasks: int | None = None  # the first N tasks of the file (after task_ids)
    task_ids: tuple[str, ...] | None = None  # only these tasks, in the file's order
    # Further keyword arguments of each model's requests (JSON text is read at construction).
    agent_args: dict[str, Any] = field(default_factory=dict)
    user_args: dict[str, Any] = field(default_factory=dict)
    # Re-run recorded episodes whose last record is a harness failure. What this session
    # does, not configuration: not in the metadata.
    retry_failed: bool = False
    # Leave to start packages whose verification report is missing, failed or stale. A
    # permission, not configuration: it is not in the metadata (a run resumes either way).
    allow_unverified: bool = False
    # Leave to run a package's tool code in this process though it is not shipped with
    # envfactory-mcp (otherwise it runs jailed). A permission too: not in the metadata.
    trust: bool = False
    # Bearer token for servers reached over HTTP beyond loopback (``serve --auth-token``).
    # A secret, not configuration: never written to the metadata.
    http_token: str | None = field(default=None, repr=False)
    # Where episodes run (``host.backends``): "local" (this process) or "ray" (a Ray
    # cluster at ``ray_address``: None starts a private one, "auto" joins this machine's).
    # Recorded, but a run may resume on another backend: the records are the same.
    backend: Backend = "local"
    ray_address: str | None = None
    # The agents ``agent`` may name: those ``make_agent`` builds (eval's configuration widens
    # it to its own scorer checks, which its agent factory builds).
    agent_kinds: ClassVar[type[StrEnum]] = AgentKind

    def __post_init__(self) -> None:
        """Refuses a configuration that cannot run (``ConfigError``, one line naming the
        fields), before anything is started or written: the command line's checks are
        these. Enum members and JSON text of the model arguments are kept as plain values."""
        set_ = functools.partial(object.__setattr__, self)
        if (
            isinstance(self.envs, str)
            or not self.envs
            or not all(isinstance(e, str) and e for e in self.envs)
        ):
            raise ConfigError(f"{{envs}} names no environment: {verbatim(repr(self.envs))}", envs="envs")
        for name, kinds in (("agent", self.agent_kinds), ("user", UserKind)):
            value = getattr(self, name)
            if value not in set(kinds):
                choices = ", ".join(kind.value for kind in kinds)
                raise ConfigError(f"{{kind}} {verbatim(repr(value))}: choose one of {choices}", kind=name)
            set_(name, str(value))
        transport: str = self.transport
        if transport == RolloutTransport.streamable_http or transport == RolloutTransport.http:
            transport = "http"
        elif transport not in (RolloutTransport.stdio, RolloutTransport.memory):
            choices = ", ".join(t.value for t in RolloutTransport if t is not RolloutTransport.http)
            raise ConfigError(
                f"{{transport}} {verbatim(repr(transport))}: choose one of {choices}", transport="transport"
            )
        set_("transport", str(transport))
        if self.backend not in BACKENDS:
            raise ConfigError(
                f"{{backend}} {verbatim(repr(self.backend))}: choose one of {', '.join(BACKENDS)}",
                backend="backend",
            )
        set_("backend", str(self.backend))
        if self.ray_address is not None and self.backend != "ray":
            raise ConfigError("{address} goes with {backend} ray", address="ray_address", backend="backend")
        _at_least(self, 1, "trials", "concurrency", "max_steps", "max_errors", "max_tasks")
        timeout = self.episode_timeout_s
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0:
            raise ConfigError(
                f"{{timeout}} must be more than 0 seconds, not {verbatim(repr(timeout))}",
                timeout="episode_timeout_s",
            )
        for side in ("agent", "user"):
            args = parse_model_args(f"{side}_args", getattr(self, f"{side}_args"))
            set_(f"{side}_args", args)
            check_participant(
                side,
                getattr(self, side),
                getattr(self, f"{side}_model"),
                getattr(self, f"{side}_temperature"),
                getattr(self, f"{side}_max_tokens"),
                args,
                timeout=f"{side}_args['timeout']",
            )
        if self.task_ids is not None:
            ids = (self.task_ids,) if isinstance(self.task_ids, str) else tuple(self.task_ids)
            if not ids or not all(isinstance(i, str) and i for i in ids):
                raise ConfigError(
                    "{ids}: give task ids, e.g. retail-0001,retail-0002; not "
                    + verbatim(repr(self.task_ids)),
                    ids="task_ids",
                )
            set_("task_ids", ids)
        basis = (self.reward_basis,) if isinstance(self.reward_basis, str) else tuple(self.reward_basis)
        from envfactory_mcp.scoring.reward import BASES

        unknown = sorted(set(basis) - set(BASES))
        if unknown or not basis:
            raise ConfigError(
                f"{{basis}}: unknown {verbatim(unknown)}: use {', '.join(BASES)}", basis="reward_basis"
            )
        set_("reward_basis", basis)
        if self.transport == "http" and (missing := [e for e in self.envs if e not in self.urls]):
            raise ConfigError(
                f"{{transport}} streamable-http needs {{urls}} {verbatim(missing[0])}=URL for each environment",
                transport="transport",
                urls="urls",
            )

    def metadata(self, run_id: str, tasks_bytes: bytes | None = None) -> dict[str, Any]:
        """What a resumed run must match: the configuration and the exact task file (read
        from ``tasks_path`` unless its content is given)."""
        import hashlib

        data = asdict(self)
        data["reward_basis"] = list(self.reward_basis)
        data["task_ids"] = list(self.task_ids) if self.task_ids is not None else None
        # Absolute, so export, rescore and view find them from any directory.
        data["tasks_path"] = str(Path(self.tasks_path).resolve())
        data["servers_dir"] = str(Path(self.servers_dir).resolve())
        del data["allow_unverified"], data["trust"], data["http_token"], data["retry_failed"]
        for key in ("agent_args", "user_args"):  # left out when empty, as runs before them were
            if not data[key]:
                del data[key]
        content = Path(self.tasks_path).read_bytes() if tasks_bytes is None else tasks_bytes
        digest = hashlib.sha256(content).hexdigest()
        return {"run_id": run_id, "tasks_sha256": digest, **data}
