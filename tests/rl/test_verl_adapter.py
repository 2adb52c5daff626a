"""The verl files, loaded by verl's own classes (CPU only): the tool config through
``initialize_tools_from_config``, the dataset through ``RLHFDataset``, the reward function
through ``get_custom_reward_fn``; then the oracle's calls through the loaded tools, with
verl's ``AgentData``, score 1.0 and no calls 0 (verl 0.9, the ``verl`` extra). The
simulated user through ``initialize_interactions_from_config`` where verl has
interactions (up to 0.7.1; removed in 0.8). Needs verl (``pip install verl``; see the
``verl`` extra's note)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from paths import SERVERS_DIR

from envfactory_mcp.rl.verl_adapter import DIALOGUE_KEY
from envfactory_mcp.sim.agents import NOOP_MESSAGE, closing_message, confirmation_request
from envfactory_mcp.tasks.model import read_tasks, write_tasks

pytest.importorskip("verl", reason="verl is not installed: pip install verl (CPU wheels work)")


def _has_interactions() -> bool:
    import importlib.util

    return importlib.util.find_spec("verl.interactions") is not None


pytestmark = pytest.mark.slow  # builds retail and its tasks


@pytest.fixture(scope="module")
def tasks_file(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = retail_tasks(4, seed=21)
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    write_tasks([t for t in made if t.gold.actions][:2], path)
    return path


VERL_09 = pytest.mark.skipif(
    _has_interactions(), reason="written for verl 0.9's classes (the verl extra); this verl is older"
)


@VERL_09
def test_verl_loads_the_files_and_the_reward_is_ours(tasks_file: Path, tmp_path: Path):
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.tool_agent_loop import AgentData
    from verl.tools.tool_registry import initialize_tools_from_config
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from envfactory_mcp.rl import verl_adapter
    from envfactory_mcp.rl.verl_adapter import (
        EnvFactoryInteraction,
        EnvFactoryTool,
        close_sessions,
        write_verl_files,
    )

    paths = write_verl_files("retail", str(tasks_file), tmp_path / "verl", servers_dir=str(SERVERS_DIR))
    tools = {t.name: t for t in initialize_tools_from_config(str(paths["tools"]))}
    assert tools and all(isinstance(t, EnvFactoryTool) for t in tools.values())

    config = OmegaConf.create(
        {"prompt_key": "prompt", "filter_overlong_prompts": False, "max_prompt_length": 4096}
    )
    dataset = RLHFDataset(data_files=[str(paths["parquet"])], tokenizer=None, config=config)
    assert len(dataset) == 2
    tasks = read_tasks(tasks_file)
    rows = [dataset[i] for i in range(2)]
    assert rows[0]["extra_info"]["task_id"] == tasks[0].task_id
    assert set(rows[0]["tools_kwargs"]) == set(tools)
    assert rows[0]["raw_prompt"][-1]["content"] == tasks[0].user_scenario.opening_message

    reward_config = OmegaConf.create(
        {"reward": {"custom_reward_function": {"path": verl_adapter.__file__, "name": "compute_score"}}}
    )
    compute_score = get_custom_reward_fn(reward_config)
    assert compute_score is not None

    async def play(row: dict, calls: list) -> dict:
        agent_data = AgentData(
            messages=list(row["raw_prompt"]),
            image_data=[],
            video_data=[],
            audio_data=None,
            mm_processor_kwargs=None,
            metrics={},
            request_id=f"req-{row['extra_info']['task_id']}",
            tools_kwargs=row["tools_kwargs"],
        )
        for name, arguments in calls:  # what ToolAgentLoop._call_tool does for each call
            tool = tools[name]
            instance, _ = await tool.create(create_kwargs=row["tools_kwargs"][name]["create_kwargs"])
            response, _, _ = await tool.execute(instance, arguments, agent_data=agent_data)
            assert response.text and not response.text.startswith("Error")
            await tool.release(instance)
        return agent_data.extra_fields

    # the simulated user, as configured (verl 0.9.1 has no loader for it: read the YAML)
    interaction_items = OmegaConf.load(paths["interaction"]).interaction
    assert interaction_items[0].class_name.endswith("EnvFactoryInteraction")
    user_config = OmegaConf.to_container(interaction_items[0].config, resolve=True)
    assert isinstance(user_config, dict) and all(isinstance(k, str) for k in user_config)
    user = EnvFactoryInteraction(config=cast(dict[str, Any], user_config))  # its keys: YAML names

    async def ask_user(row: dict, messages: list[dict]) -> tuple[bool, str]:
        trajectory = f"req-{row['extra_info']['task_id']}"
        kwargs = {k: v for k, v in row["interaction_kwargs"].items() if k != "name"}
        await user.start_interaction(trajectory, **kwargs)
        done, text, _, _ = await user.generate_response(trajectory, messages)
        await user.finalize_interaction(trajectory)
        return done, text

    async def main() -> tuple[dict, dict, tuple[bool, str], tuple[bool, str]]:
        try:
            solved = await play(rows[0], [(a.name, a.arguments) for a in tasks[0].gold.actions])
            idle = await play(rows[1], [])
            opening = list(rows[0]["raw_prompt"])
            happy = await ask_user(
                rows[0], [*opening, {"role": "assistant", "content": closing_message(tasks[0])}]
            )
            waiting = await ask_user(
                rows[1], [*rows[1]["raw_prompt"], {"role": "assistant", "content": NOOP_MESSAGE}]
            )
            return solved, idle, happy, waiting
        finally:
            await close_sessions()

    solved, idle, happy, waiting = anyio.run(main)
    # the user is satisfied once the tools reached the gold state and the outcome was said
    assert happy[0] and "###STOP###" in happy[1]
    assert not waiting[0]

    def score(row: dict, fields: dict, text: str) -> float:
        extra_info = {**row["extra_info"], **fields}  # as verl's reward manager merges tool_extra_fields
        json.dumps(extra_info)  # what the rollout hands over is plain data
        return compute_score(
            data_source=row["data_source"],
            solution_str=text,
            ground_truth=row["reward_model"]["ground_truth"],
            extra_info=extra_info,
        )

    # The policy asks for the user's yes before a write: tools alone (verl's ToolAgentLoop,
    # no user) cannot score 1 then; the agent loop's dialogue (rl.verl_agent_loop) holds
    # the request and the yes, each placed after the calls run before it.
    asked = [i for i, a in enumerate(tasks[0].gold.actions) if a.confirm]
    dialogue = [
        turn
        for i in asked
        for turn in (
            {"calls": i, "role": "assistant", "content": confirmation_request(tasks[0].gold.actions[i])},
            {"calls": i, "role": "user", "content": "Yes, please go ahead."},
        )
    ]
    with_user = {**solved, DIALOGUE_KEY: dialogue}
    assert score(rows[0], with_user, closing_message(tasks[0])) == 1.0
    assert score(rows[0], solved, closing_message(tasks[0])) == (0.0 if asked else 1.0)
    assert score(rows[0], with_user, "Done.") < 1.0 or not tasks[0].gold.claims  # claims count
    assert score(rows[1], idle, NOOP_MESSAGE) == 0.0


def test_verl_loads_the_simulated_user_as_an_interaction(tasks_file: Path, tmp_path: Path):
    """``interaction.yaml`` through verl's ``initialize_interactions_from_config``, then
    called as verl 0.7's ``ToolAgentLoop`` calls it: started with the trajectory's request
    id and the row's ``interaction_kwargs`` (its ``name`` too), asked with the messages
    verl keeps (the model's turns as decoded text, tool calls inside it), never finalised."""
    if not _has_interactions():
        pytest.skip("this verl has no interactions (verl.interactions was removed in 0.8; 0.7.1 has it)")
    from types import SimpleNamespace

    from verl.interactions.base import BaseInteraction
    from verl.interactions.utils.interaction_registry import initialize_interactions_from_config
    from verl.tools.utils.tool_registry import initialize_tools_from_config  # verl 0.7's place

    from envfactory_mcp.rl.verl_adapter import EnvFactoryInteraction, close_sessions, write_verl_files
    from envfactory_mcp.trajectories.export import USER_INTERACTION

    paths = write_verl_files("retail", str(tasks_file), tmp_path / "verl", servers_dir=str(SERVERS_DIR))
    interactions = initialize_interactions_from_config(str(paths["interaction"]))
    user = interactions[USER_INTERACTION]
    assert isinstance(user, EnvFactoryInteraction) and isinstance(user, BaseInteraction)
    tools = {t.name: t for t in initialize_tools_from_config(str(paths["tools"]))}
    rows = [json.loads(line) for line in paths["jsonl"].read_text().splitlines()]
    tasks = read_tasks(tasks_file)

    async def episode(row: dict, calls: list, final: str) -> tuple[bool, str]:
        request_id = f"req-{row['extra_info']['task_id']}"
        kwargs = row["extra_info"]["interaction_kwargs"]
        await user.start_interaction(request_id, **kwargs)
        trajectory = SimpleNamespace(request_id=request_id, extra_fields={})  # what the tools read
        messages = list(row["prompt"])
        for name, arguments in calls:
            tool_kwargs = row["extra_info"]["tools_kwargs"][name]
            instance, _ = await tools[name].create(create_kwargs=tool_kwargs["create_kwargs"])
            response, _, _ = await tools[name].execute(instance, arguments, agent_data=trajectory)
            await tools[name].release(instance)
            call = json.dumps({"name": name, "arguments": arguments})
            messages += [
                {"role": "assistant", "content": f"<tool_call>{call}</tool_call>"},
                {"role": "tool", "content": response.text},
            ]
        messages.append({"role": "assistant", "content": final})
        done, text, _, _ = await user.generate_response(request_id, messages, **kwargs)
        return done, text

    async def main() -> tuple[tuple[bool, str], tuple[bool, str]]:
        try:
            solved = await episode(
                rows[0], [(a.name, a.arguments) for a in tasks[0].gold.actions], closing_message(tasks[0])
            )
            idle = await episode(rows[1], [], NOOP_MESSAGE)
            return solved, idle
        finally:
            await close_sessions()

    solved, idle = anyio.run(main)
    assert solved[0] and "###STOP###" in solved[1]  # the gold state reached and the outcome said
    assert not idle[0] and idle[1]  # the user goes on asking
