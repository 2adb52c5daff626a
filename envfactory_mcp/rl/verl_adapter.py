"""verl multi-turn RL over envfactory servers: a tool config, a dataset, a reward function.

    from envfactory_mcp.rl.verl_adapter import write_verl_files
    write_verl_files("retail", "tasks.jsonl", "verl_retail/")   # tools.yaml, train.parquet, ...

then, in verl's trainer configuration::

    actor_rollout_ref.rollout.multi_turn.enable=true
    actor_rollout_ref.rollout.multi_turn.tool_config_path=verl_retail/tools.yaml
    actor_rollout_ref.rollout.agent.agent_loop_config_path=verl_retail/agent_loop.yaml
    data.train_files=verl_retail/train.parquet
    reward.custom_reward_function.path=<this file>  reward.custom_reward_function.name=compute_score

*Tools* (``tools.yaml``): one native tool per environment tool, each an
``EnvFactoryTool`` (verl's ``BaseTool``) with the tool's own OpenAI schema. verl's
``ToolAgentLoop`` creates and releases a tool instance around every call, so the episode
is keyed by the trajectory (``agent_data.request_id``): its first call opens an MCP session
on the environment's server (``control.reset``, in the rollout worker's process, the
server in-process or a stdio subprocess), every call runs in it, and what the episode did
(calls, results, the state hash after each call) goes into ``agent_data.extra_fields``,
which verl hands to the reward function as part of ``extra_info``.

*Dataset* (``train.parquet``): one row per task in verl's RL format (the same columns as
``envfactory-mcp export --format verl``, plus ``agent_name: envfactory_agent`` and the paths
the reward needs).

*Reward* (``compute_score``): our scorer on the episode: the state the tools left (the
final state hash; no call means the seed), the tool calls as executed and the decoded
response as the agent's final text (claims), against the task's gold; the same parts and
product as a rollout's reward.

*Simulated user*: in verl 0.9 an agent loop, ``rl.verl_agent_loop``'s
``EnvFactoryAgentLoop`` (``agent_loop.yaml``; the rows name it): verl's ``ToolAgentLoop``
whose text replies the simulated user answers, until its stop token (verl 0.8 removed
interactions, and its ``ToolAgentLoop`` alone ends at the model's first text). For the verl
releases that have ``verl.interactions`` (up to 0.7.1: ``multi_turn.interaction_config_path``,
loaded by ``initialize_interactions_from_config``; rows from ``dataset_rows(...,
agent_name="tool_agent")``)
``interaction.yaml`` names ``EnvFactoryInteraction``, verl's ``BaseInteraction`` over the same
user simulator; the agent loop uses that class too.
"""

from __future__ import annotations

import json
import secrets
from collections import OrderedDict
from functools import cache
from pathlib import Path
from typing import Any

from envfactory_mcp import files
from envfactory_mcp.host.connection import Transport
from envfactory_mcp.records.trajectory import TOOL_ERROR_PREFIX
from envfactory_mcp.rl.env import EnvFactoryServers
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR, REWARD_BASIS
from envfactory_mcp.tasks.model import Task, read_tasks
from envfactory_mcp.trajectories.export import USER_INTERACTION

STATE_KEY = "envfactory"
TOOL_CLASS = "envfactory_mcp.rl.verl_adapter.EnvFactoryTool"
INTERACTION_CLASS = "envfactory_mcp.rl.verl_adapter.EnvFactoryInteraction"
AGENT_NAME = "envfactory_agent"  # verl 0.9's agent loop with the simulated user (rl.verl_agent_loop)
AGENT_LOOP_CLASS = "envfactory_mcp.rl.verl_agent_loop.EnvFactoryAgentLoop"
FINAL_TEXT_KEY = "final_text"  # extra_fields: the model's last text, the claims compute_score reads
DIALOGUE_KEY = "dialogue"  # extra_fields: the model's texts and the user's replies, in order

try:  # verl is optional: the files can be written without it
    from verl.tools.base_tool import BaseTool  # type: ignore[import-not-found,unused-ignore]
    from verl.tools.schemas import ToolResponse  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - depends on the extra
    BaseTool = object  # type: ignore[misc,assignment,unused-ignore]
    ToolResponse = None  # type: ignore[misc,assignment,unused-ignore]


# ---------------------------------------------------------------- files


def tool_config(
    env: str, tools: list[dict[str, Any]], servers_dir: str, transport: Transport = "memory"
) -> dict[str, Any]:
    """verl's tool configuration (``tools:`` list of native tools) for ``tools``."""
    config = {"type": "native", "env": env, "servers_dir": str(servers_dir), "transport": transport}
    return {
        "tools": [{"class_name": TOOL_CLASS, "config": dict(config), "tool_schema": tool} for tool in tools]
    }


def agent_loop_config(
    user_model: str | None = None, user_api_base: str | None = None
) -> list[dict[str, Any]]:
    """verl 0.9's agent loop configuration (``rollout.agent.agent_loop_config_path``): the
    tool agent with the simulated user (``rl.verl_agent_loop``)."""
    entry: dict[str, Any] = {"name": AGENT_NAME, "_target_": AGENT_LOOP_CLASS}
    if user_model:
        entry["user_model"] = user_model
    if user_api_base:
        entry["user_api_base"] = user_api_base
    return [entry]


def dataset_rows(
    tasks: list[Task],
    system_prompt: str | None,
    tool_names: list[str],
    tasks_path: str,
    servers_dir: str,
    reward_basis: tuple[str, ...] = REWARD_BASIS,
    agent_name: str = AGENT_NAME,
) -> list[dict[str, Any]]:
    """One verl RL row per task (``agent_name``: the agent loop verl runs it with)."""
    rows = []
    for index, task in enumerate(tasks):
        create = {
            "env": task.env,
            "task_id": task.task_id,
            "initial_state_hash": task.initial_state.state_hash,
        }
        system = [{"role": "system", "content": system_prompt}] if system_prompt else []
        rows.append(
            {
                "data_source": f"envfactory/{task.env}",
                "agent_name": agent_name,
                "prompt": [*system, {"role": "user", "content": task.user_scenario.opening_message}],
                "ability": "tool_use",
                "reward_model": {
                    "style": "rule",
                    "ground_truth": {"gold_state_hash": task.gold.final_state_hash, "task_id": task.task_id},
                },
                "extra_info": {
                    "index": index,
                    "task_id": task.task_id,
                    "env": task.env,
                    "tasks_path": str(tasks_path),
                    "servers_dir": str(servers_dir),
                    "reward_basis": list(reward_basis),
                    "need_tools_kwargs": True,
                    "tools_kwargs": {name: {"create_kwargs": dict(create)} for name in tool_names},
                    "interaction_kwargs": {"name": USER_INTERACTION, "task_id": task.task_id},
                },
            }
        )
    return rows


def write_verl_files(
    env: str,
    tasks_path: str,
    out_dir: str | Path,
    servers_dir: str = str(DEFAULT_SERVERS_DIR),
    transport: Transport = "memory",
    reward_basis: tuple[str, ...] = REWARD_BASIS,
) -> dict[str, Path]:
    """Write ``tools.yaml``, ``agent_loop.yaml``, ``interaction.yaml``, ``train.parquet``
    (and ``train.jsonl``) for ``env``'s tasks."""
    import pandas as pd  # type: ignore[import-untyped,import-not-found,unused-ignore]
    import yaml  # type: ignore[import-untyped,unused-ignore]

    from envfactory_mcp.rl.env import describe_server

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tasks = [t for t in read_tasks(tasks_path) if t.env == env]
    instructions, tools = describe_server(env, transport, Path(servers_dir))
    paths = {
        "tools": out / "tools.yaml",
        "interaction": out / "interaction.yaml",
        "agent_loop": out / "agent_loop.yaml",
        "parquet": out / "train.parquet",
        "jsonl": out / "train.jsonl",
    }
    files.write_text(
        paths["interaction"],
        yaml.safe_dump(interaction_config(str(Path(tasks_path).resolve())), sort_keys=False),
    )
    files.write_text(paths["agent_loop"], yaml.safe_dump(agent_loop_config(), sort_keys=False))
    files.write_text(
        paths["tools"],
        yaml.safe_dump(tool_config(env, tools, str(Path(servers_dir).resolve()), transport), sort_keys=False),
    )
    rows = dataset_rows(
        tasks,
        instructions,
        [t["function"]["name"] for t in tools],
        str(Path(tasks_path).resolve()),
        str(Path(servers_dir).resolve()),
        reward_basis,
    )
    files.write_bytes(paths["parquet"], pd.DataFrame(rows).to_parquet())  # no path: the bytes
    files.write_text(paths["jsonl"], "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return paths


# ---------------------------------------------------------------- the tool

_SERVERS: dict[tuple[str, str, str], EnvFactoryServers] = {}
# trajectory -> (connection's server, session): sessions open in this process, oldest first
_OPEN: OrderedDict[str, tuple[Any, str]] = OrderedDict()
_EPISODES: dict[str, dict[str, Any]] = {}  # trajectory -> what its tools did (as in extra_fields)
MAX_OPEN_SESSIONS = 800  # under the server's 1,000 keys per connection: the oldest is ended past it


def _servers(env: str, transport: str, servers_dir: str) -> EnvFactoryServers:
    key = (env, transport, servers_dir)
    if key not in _SERVERS:
        _SERVERS[key] = EnvFactoryServers([env], transport=transport, servers_dir=servers_dir)  # type: ignore[arg-type]
    return _SERVERS[key]


class EnvFactoryTool(BaseTool):  # type: ignore[misc,valid-type,unused-ignore]
    """One environment tool for verl's ``ToolAgentLoop``, run over MCP in the trajectory's
    session (see the module doc)."""

    def __init__(self, config: dict[str, Any], tool_schema: Any) -> None:
        super().__init__(config, tool_schema)
        self.env = str(config["env"])
        self.servers_dir = str(config.get("servers_dir", DEFAULT_SERVERS_DIR))
        self.transport = str(config.get("transport", "memory"))
        self._created: dict[str, dict[str, Any]] = {}

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, Any]:
        instance_id = instance_id or secrets.token_hex(8)
        self._created[instance_id] = dict(kwargs.get("create_kwargs") or {})
        return instance_id, ToolResponse()

    async def execute(
        self, instance_id: str, parameters: dict[str, Any], **kwargs: Any
    ) -> tuple[Any, float, dict[str, Any]]:
        create = self._created.get(instance_id, {})
        agent_data = kwargs.get("agent_data")
        trajectory = str(getattr(agent_data, "request_id", None) or instance_id)
        fields = getattr(agent_data, "extra_fields", None)
        extra: dict[str, Any] = fields if isinstance(fields, dict) else {}  # the same dict: verl reads it
        conn = await _servers(self.env, self.transport, self.servers_dir).get(self.env)
        episode = extra.get(STATE_KEY)
        if episode is None or trajectory not in _OPEN:
            session = f"verl/{create.get('task_id', '')}/{trajectory}/{secrets.token_urlsafe(12)}"
            initial = await conn.reset(session)
            episode = extra[STATE_KEY] = {
                "env": self.env,
                "task_id": create.get("task_id"),
                "initial_state_hash": initial,
                "final_state_hash": initial,
                "calls": [],
            }
            _OPEN[trajectory] = (conn, session)
            _EPISODES[trajectory] = episode
            while len(_OPEN) > MAX_OPEN_SESSIONS:
                old, (old_conn, old_session) = _OPEN.popitem(last=False)
                _EPISODES.pop(old, None)
                await old_conn.end(old_session)
        session = _OPEN[trajectory][1]
        result = await conn.call(self.name, parameters, session)
        text = f"{TOOL_ERROR_PREFIX} {result.text}" if result.is_error else result.text
        episode["calls"].append({"name": self.name, "arguments": parameters, "content": text})
        read_only = next((t.read_only for t in conn.tools if t.name == self.name), True)
        if not result.is_error and not read_only:
            episode["writes"] = episode.get("writes", 0) + 1
        episode["final_state_hash"] = await conn.state_hash(session)
        return ToolResponse(text=text), 0.0, {"is_error": result.is_error}

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        self._created.pop(instance_id, None)


# ---------------------------------------------------------------- the simulated user

try:  # verl releases with interactions (up to 0.7.1; removed in 0.8)
    from verl.interactions.base import BaseInteraction  # type: ignore[import-not-found,unused-ignore]
except ImportError:
    BaseInteraction = object  # type: ignore[misc,assignment,unused-ignore]


def interaction_config(
    tasks_path: str, user_model: str | None = None, user_api_base: str | None = None
) -> dict[str, Any]:
    """verl's interaction configuration (``interaction:`` list) naming the simulated user."""
    config: dict[str, Any] = {"tasks_path": str(tasks_path)}
    if user_model:
        config.update(user_model=user_model, user_api_base=user_api_base)
    return {"interaction": [{"name": USER_INTERACTION, "class_name": INTERACTION_CLASS, "config": config}]}


class _TrajectoryView:
    """What the simulated user may ask about the trajectory (``sim.types.EpisodeView``):
    the state its tools left, read from their session in this process, and the calls they
    ran (verl's messages carry the model's tool calls as decoded text, not as
    ``tool_calls``, so the tools' own record is what counts)."""

    def __init__(self, trajectory: str, task: Task, messages: list[dict[str, Any]]) -> None:
        self.trajectory, self.task, self.messages = trajectory, task, messages

    async def goal_met(self) -> bool:
        from envfactory_mcp.scoring.claims import claims_communicated, message_text
        from envfactory_mcp.scoring.reward import agent_calls

        entry = _OPEN.get(self.trajectory)
        state = await entry[0].state_hash(entry[1]) if entry else self.task.initial_state.state_hash
        if state != self.task.gold.final_state_hash:
            return False
        episode = _EPISODES.get(self.trajectory)
        called = {c["name"] for c in (episode or {}).get("calls", [])}
        called |= {name for name, _ in agent_calls(self.messages)}
        if any(tool not in called for tool in self.task.gold.required_calls):
            return False
        # the tools' results, then what the agent said (as the reward reads the episode)
        said = [
            {"role": "assistant", "content": message_text(m)}
            for m in self.messages
            if m.get("role") == "assistant" and message_text(m)
        ]
        conversation = episode_messages(self.task, episode, "")[:-1] + said
        return not claims_communicated(self.task.gold.claims, conversation)[1]

    def writes_done(self) -> int:
        return int(_EPISODES.get(self.trajectory, {}).get("writes", 0))


MAX_USERS = 10_000  # simulated users kept per interaction: the oldest is dropped past it


class EnvFactoryInteraction(BaseInteraction):  # type: ignore[misc,valid-type,unused-ignore]
    """The simulated user as a verl interaction (``BaseInteraction``'s methods): started per
    trajectory with the row's ``interaction_kwargs`` (``task_id``), it answers the agent's
    text with the scripted user (or ``user_model``) and ends the rollout on a stop token.
    The trajectory id must be the one the tools see as ``agent_data.request_id``."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.name = str(config.get("name", USER_INTERACTION))
        # verl 0.7's ToolAgentLoop never calls finalize_interaction: bounded, oldest out
        self._users: OrderedDict[str, tuple[Any, Task]] = OrderedDict()

    async def start_interaction(self, instance_id: str | None = None, **kwargs: Any) -> str:
        instance_id = instance_id or secrets.token_hex(8)
        task = _tasks(str(kwargs.get("tasks_path") or self.config["tasks_path"]))[str(kwargs["task_id"])]
        user: Any
        if self.config.get("user_model"):
            from envfactory_mcp.llm import LiteLLMClient
            from envfactory_mcp.sim.users import LLMUser

            user = LLMUser(
                LiteLLMClient(self.config["user_model"], api_base=self.config.get("user_api_base"))
            )
        else:
            from envfactory_mcp.sim.users import ScriptedUser

            user = ScriptedUser()
        user.start(task)
        self._users[instance_id] = (user, task)
        while len(self._users) > MAX_USERS:
            self._users.popitem(last=False)
        return instance_id

    async def generate_response(
        self, instance_id: str, messages: list[dict[str, Any]], **kwargs: Any
    ) -> tuple[bool, str, float, dict[str, Any]]:
        user, task = self._users[instance_id]
        conversation = [m for m in messages if m.get("role") != "system"]
        reply = await user.reply(conversation, _TrajectoryView(instance_id, task, conversation))
        return reply.stop_token is not None, reply.content, 0.0, {"stop_token": reply.stop_token}

    async def calculate_score(self, instance_id: str | None = None, **kwargs: Any) -> float:
        return 0.0  # the episode's reward is compute_score's, at the end

    async def finalize_interaction(self, instance_id: str | None = None, **kwargs: Any) -> None:
        if instance_id is not None:
            self._users.pop(instance_id, None)


# ---------------------------------------------------------------- the reward


@cache
def _tasks(tasks_path: str) -> dict[str, Task]:
    return {t.task_id: t for t in read_tasks(tasks_path)}


@cache
def _spec(servers_dir: str, env: str) -> Any:
    from envfactory_mcp.layout import package_spec

    return package_spec(Path(servers_dir), env)


def episode_messages(
    task: Task,
    episode: dict[str, Any] | None,
    final_text: str,
    dialogue: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The conversation the scorer reads: the opening, each tool call as executed and its
    result, then the agent's final text. With ``dialogue`` (the agent loop's: the model's
    texts and the user's replies, each with the number of calls run before it) those turns
    go in their places, the last of the model's texts being the final one."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": task.user_scenario.opening_message}]
    turns = sorted(dialogue or [], key=lambda t: int(t.get("calls", 0)))  # stable: in order said

    def said(upto: int) -> None:
        while turns and int(turns[0].get("calls", 0)) <= upto:
            turn = turns.pop(0)
            messages.append({"role": str(turn["role"]), "content": str(turn.get("content") or "")})

    for index, call in enumerate((episode or {}).get("calls", [])):
        said(index)
        call_id = f"call_{index}"
        arguments = json.dumps(call["arguments"], ensure_ascii=False)
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": call["name"], "arguments": arguments},
                    }
                ],
            }
        )
        messages.append(
            {"role": "tool", "tool_call_id": call_id, "name": call["name"], "content": call["content"]}
        )
    if dialogue:
        said(len((episode or {}).get("calls", [])))
        if messages[-1]["role"] != "assistant" or messages[-1].get("tool_calls"):
            messages.append({"role": "assistant", "content": final_text})
        return messages
    messages.append({"role": "assistant", "content": final_text})
    return messages


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: dict[str, Any],
    extra_info: dict[str, Any] | None = None,
    **kwargs: Any,
) -> float:
    """verl's custom reward function: the episode's reward from envfactory's scorer."""
    from envfactory_mcp.scoring.reward import reward_from, score_episode

    info = extra_info or {}
    task = _tasks(str(info["tasks_path"]))[str(ground_truth["task_id"])]
    episode = info.get(STATE_KEY)
    final = episode["final_state_hash"] if episode else task.initial_state.state_hash
    basis = tuple(info.get("reward_basis") or REWARD_BASIS)
    spec = _spec(str(info["servers_dir"]), task.env) if info.get("servers_dir") else None
    # the agent loop's (rl.verl_agent_loop): its final text (solution_str is then the whole
    # decoded response) and the turns with the simulated user
    final_text = info.get(FINAL_TEXT_KEY)
    dialogue = info.get(DIALOGUE_KEY)
    parts = score_episode(
        task,
        episode_messages(
            task,
            episode,
            solution_str if final_text is None else str(final_text),
            [dict(t) for t in dialogue] if dialogue is not None else None,
        ),
        final,
        str(ground_truth["gold_state_hash"]),
        basis=basis,
        spec=spec,
    )
    return float(reward_from(parts))


async def close_sessions() -> None:
    """End every session this process opened and close its servers (tests, shutdown)."""
    while _OPEN:
        conn, session = _OPEN.popitem(last=False)[1]
        await conn.end(session)
    _EPISODES.clear()
    for servers in _SERVERS.values():
        await servers.close()
    _SERVERS.clear()


__all__ = [
    "AGENT_NAME",
    "EnvFactoryInteraction",
    "EnvFactoryTool",
    "agent_loop_config",
    "close_sessions",
    "compute_score",
    "dataset_rows",
    "interaction_config",
    "tool_config",
    "write_verl_files",
]
