"""The simulated user inside verl 0.9's multi-turn rollout: an agent loop.

verl 0.8 removed interactions (``verl.interactions``, ``multi_turn.interaction_config_path``)
and its ``ToolAgentLoop`` ends a trajectory as soon as the model replies without a tool
call. What took their place is the agent loop itself: any ``AgentLoopBase`` subclass,
registered by name (verl's ``@register``, or a YAML list of ``{name, _target_, ...}`` at
``actor_rollout_ref.rollout.agent.agent_loop_config_path``) and chosen per row by the
dataset's ``agent_name`` column. ``EnvFactoryAgentLoop`` (``envfactory_agent``) is verl's
``ToolAgentLoop`` (tool calls parsed from the generated tokens by the configured parser, run
through the ``EnvFactoryTool`` of ``tools.yaml`` in the trajectory's MCP session, results
merged as context tokens) plus the user's turn: when the model replies without a tool call,
the simulated user (``EnvFactoryInteraction``, started with the row's ``interaction_kwargs``
under the trajectory's request id, so it sees what the tools did) answers; its reply is
merged as a user message (``response_mask`` 0) and generation goes on, until the user's
stop token, ``multi_turn.max_assistant_turns`` / ``max_user_turns`` or the response
length. The model's texts and the user's replies are kept in ``extra_fields``
(``dialogue``, each placed after the tool calls run before it; ``final_text``, the last
text) for ``compute_score``, which scores that conversation (the confirmation asked
before a write included) rather than verl's ``solution_str``, the whole decoded response.

    write_verl_files("retail", "tasks.jsonl", "verl_retail/")     # agent_loop.yaml too
    actor_rollout_ref.rollout.agent.agent_loop_config_path=verl_retail/agent_loop.yaml
    actor_rollout_ref.rollout.multi_turn.tool_config_path=verl_retail/tools.yaml
    actor_rollout_ref.rollout.multi_turn.format=hermes     # the model's tool-call format

The rows of ``train.parquet`` name ``envfactory_agent``. The YAML entry may carry
``user_model`` / ``user_api_base`` (a litellm model for the user; the scripted one by
default). Needs verl 0.9 (the ``verl`` extra).
"""

from __future__ import annotations

from typing import Any

from envfactory_mcp.rl.verl_adapter import (
    AGENT_NAME,
    DIALOGUE_KEY,
    FINAL_TEXT_KEY,
    STATE_KEY,
    EnvFactoryInteraction,
)

try:
    from verl.experimental.agent_loop.agent_loop import register  # type: ignore[import-not-found,unused-ignore]
    from verl.experimental.agent_loop.tool_agent_loop import (  # type: ignore[import-not-found,unused-ignore]
        AgentData,
        AgentState,
        ToolAgentLoop,
    )
except ImportError as exc:  # pragma: no cover - depends on the extra
    raise ImportError(
        "envfactory_mcp.rl.verl_agent_loop needs verl 0.9: pip install 'envfactory-mcp[verl]'"
    ) from exc

AGENT_LOOP_CLASS = "envfactory_mcp.rl.verl_agent_loop.EnvFactoryAgentLoop"


@register(AGENT_NAME)  # type: ignore[untyped-decorator,unused-ignore]
class EnvFactoryAgentLoop(ToolAgentLoop):  # type: ignore[misc,valid-type,unused-ignore]
    """verl's tool agent loop with the simulated user answering the model's text."""

    def __init__(
        self,
        *args: Any,
        user_model: str | None = None,
        user_api_base: str | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        config: dict[str, Any] = {"user_model": user_model, "user_api_base": user_api_base}
        self.user = EnvFactoryInteraction(config={k: v for k, v in config.items() if v})
        self._user_kwargs: dict[str, Any] = {}
        self._trajectory: str | None = None
        self._user_started = False

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> Any:
        extra_info = kwargs.get("extra_info") or {}
        user_kwargs = dict(kwargs.get("interaction_kwargs") or extra_info.get("interaction_kwargs") or {})
        user_kwargs.pop("name", None)
        if "tasks_path" not in user_kwargs and extra_info.get("tasks_path"):
            user_kwargs["tasks_path"] = extra_info["tasks_path"]
        if "task_id" not in user_kwargs and extra_info.get("task_id"):
            user_kwargs["task_id"] = extra_info["task_id"]
        self._user_kwargs = user_kwargs
        try:
            return await super().run(sampling_params, **kwargs)
        finally:
            if self._user_started:
                await self.user.finalize_interaction(self._trajectory)

    async def _handle_pending_state(self, agent_data: AgentData, sampling_params: dict[str, Any]) -> Any:
        self._trajectory = agent_data.request_id  # the tools key the episode by it
        return await super()._handle_pending_state(agent_data, sampling_params)

    async def _handle_generating_state(
        self, agent_data: AgentData, sampling_params: dict[str, Any], ignore_termination: bool = False
    ) -> Any:
        before = len(agent_data.messages)
        state = await super()._handle_generating_state(agent_data, sampling_params, ignore_termination)
        if state != AgentState.TERMINATED or agent_data.tool_calls or len(agent_data.messages) == before:
            return state  # tool calls to run, or a limit ended it before the reply was read
        # the reply as text, without the end-of-turn token the tool parser's decode keeps
        text = self.tokenizer.decode(agent_data.response_ids, skip_special_tokens=True)
        agent_data.extra_fields[FINAL_TEXT_KEY] = str(text).strip()
        self._said(agent_data, "assistant", str(text).strip())
        return await self._user_turn(agent_data)

    @staticmethod
    def _said(agent_data: AgentData, role: str, content: str) -> None:
        """Keep a turn of the conversation for the scorer, placed after the calls run so far."""
        calls = len((agent_data.extra_fields.get(STATE_KEY) or {}).get("calls", []))
        agent_data.extra_fields.setdefault(DIALOGUE_KEY, []).append(
            {"calls": calls, "role": role, "content": content}
        )

    async def _user_turn(self, agent_data: AgentData) -> Any:
        """The simulated user answers the model's text; a stop token ends the trajectory."""
        if not self._user_kwargs.get("task_id"):
            return AgentState.TERMINATED  # a row without a task: the tool agent's behaviour
        if self.max_user_turns and agent_data.user_turns >= self.max_user_turns:
            return AgentState.TERMINATED
        if not self._user_started:
            await self.user.start_interaction(agent_data.request_id, **self._user_kwargs)
            self._user_started = True
        done, reply, _, _ = await self.user.generate_response(agent_data.request_id, agent_data.messages)
        agent_data.extra_fields["user_turns"] = int(agent_data.extra_fields.get("user_turns", 0)) + 1
        if done:
            return AgentState.TERMINATED
        self._said(agent_data, "user", reply)
        previous = list(agent_data.messages)
        agent_data.messages.append({"role": "user", "content": reply})
        schemas = getattr(agent_data, "_active_tool_schemas", self.tool_schemas)
        merged, response_mask, response_logprobs = await self.ct_merge_context_msg(
            previous,
            agent_data.messages,
            agent_data.prompt_ids,
            agent_data.response_mask,
            agent_data.response_logprobs or None,
            tools=schemas,
        )
        if len(response_mask) >= self.response_length:
            return AgentState.TERMINATED
        agent_data.prompt_ids = merged.token_ids
        agent_data.response_mask = response_mask
        if agent_data.response_logprobs:
            agent_data.response_logprobs = response_logprobs or []
        agent_data.user_turns += 1
        return AgentState.GENERATING


__all__ = ["AGENT_LOOP_CLASS", "EnvFactoryAgentLoop"]
