"""An envfactory episode as an OpenPipe ART rollout (``openpipe-art`` 0.5).

    import art
    from envfactory_mcp.rl import EnvFactoryServers
    from envfactory_mcp.rl.art_env import rollout
    async with EnvFactoryServers(["retail"], transport="stdio") as servers:
        groups = await art.gather_trajectory_groups(
            art.TrajectoryGroup(rollout(model, task, servers) for _ in range(8)) for task in tasks
        )
        await model.train(groups)        # a TrainableModel with its backend

ART leaves the rollout function to the user: ``rollout`` is that function over one
``EnvFactoryEnv`` episode. Each turn asks ``model.openai_client()`` (ART's managed
inference client: vLLM or any OpenAI-protocol server) with the conversation and the
environment's tools, keeps the ``Choice`` in the trajectory (ART trains on choices),
and steps the episode with the message; tool results and the simulated user's replies
go into the trajectory as messages. ``trajectory.reward`` is the scorer's at the end (the
reward a rollout records for the same conversation); a harness failure raises
``HarnessFailure`` (ART's gather records it as the group's exception, with the record)
so it is never trained on as the policy's 0.

Needs ``pip install 'envfactory-mcp[art]'`` (CPU: the client side of ART; training
needs ART's own backend).
"""

from __future__ import annotations

from typing import Any

from envfactory_mcp.errors import HarnessFailure
from envfactory_mcp.rl.env import EnvFactoryEnv, EnvFactoryServers, EnvOptions
from envfactory_mcp.tasks.model import Task

try:
    import art  # type: ignore[import-not-found,import-untyped,unused-ignore]
except ImportError as exc:  # pragma: no cover - depends on the extra
    raise ImportError("envfactory_mcp.rl.art_env needs ART: pip install 'envfactory-mcp[art]'") from exc


def _message(choice: Any) -> dict[str, Any]:
    data: dict[str, Any] = choice.message.model_dump(exclude_none=True)
    return {k: v for k, v in data.items() if k in ("role", "content", "tool_calls")}


async def rollout(
    model: Any,
    task: Task,
    servers: EnvFactoryServers,
    options: EnvOptions | None = None,
    **completion_kwargs: Any,
) -> Any:
    """One episode of ``task`` played by ``model`` (an ``art.Model``): an ``art.Trajectory``
    with the choices, tool results, user replies, the offered tools and the reward."""
    env = EnvFactoryEnv(servers, task, options=options or EnvOptions(run_id=f"art-{task.env}"))
    try:
        obs = await env.reset()
        trajectory = art.Trajectory(
            messages_and_choices=list(obs["messages"]),
            tools=obs["tools"],
            metadata={"task_id": task.task_id, "env": task.env},
        )
        messages: list[dict[str, Any]] = list(obs["messages"])
        tools = obs["tools"]
        client = model.openai_client()
        done, reward = env.record is not None, None
        while not done:
            completion = await client.chat.completions.create(
                model=model.get_inference_name(),
                messages=messages,
                tools=tools,
                **completion_kwargs,
            )
            choice = completion.choices[0]
            trajectory.messages_and_choices.append(choice)
            move = _message(choice)
            obs, reward, done, _ = await env.step(move)
            messages += [move, *obs["messages"]]
            trajectory.messages_and_choices.extend(obs["messages"])
        record = env.record
        assert record is not None  # the episode is over
        if reward is None:
            raise HarnessFailure(record)
        trajectory.reward = float(reward)
        trajectory.metrics["steps"] = record.steps
        trajectory.metadata["termination"] = str(record.termination)
        return trajectory
    finally:
        await env.close()
