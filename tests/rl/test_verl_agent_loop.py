"""The simulated user inside verl 0.9's multi-turn rollout, on CPU with verl's own classes:
``EnvFactoryAgentLoop`` (verl's ``ToolAgentLoop`` plus the user's turn) runs rows read by
verl's ``RLHFDataset`` from ``write_verl_files``' parquet, with the tools loaded by
``initialize_tools_from_config``, the loop's registry entry from ``agent_loop.yaml`` (as
``AgentLoopWorker`` loads it) and verl's Continuous Token builder and Hermes tool parser
over a byte-level tokenizer built here (no model download). The LLM server is a stand-in
answering each ``generate`` with the oracle's next move as tokens. The trajectory goes
tool calls, the user's yes, the closing words, the user's stop; ``compute_score`` over
verl's output gives the reward ``envfactory-mcp rollout``'s oracle records (1.0), and a
model that only talks is answered by the user turn after turn and scores 0. Needs verl
(the ``verl`` extra)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from rl_episodes import NOOP_MESSAGE, SERVERS_DIR, TRANSPORT, needs_servers, oracle_texts, rollout_records

from envfactory_mcp.tasks.model import Task, read_tasks, write_tasks

pytest.importorskip("verl", reason="verl is not installed: pip install verl (CPU wheels work)")

pytestmark = [pytest.mark.slow, needs_servers]  # builds retail and its tasks

# A ChatML template with Hermes tool calls (the shape of Qwen's), enough for verl's builder.
CHAT_TEMPLATE = (
    "{%- if tools %}<|im_start|>system\n"
    "{%- if messages[0].role == 'system' %}{{ messages[0].content }}\n\n{%- endif %}"
    "# Tools\n<tools>{%- for tool in tools %}\n{{ tool | tojson }}{%- endfor %}\n</tools><|im_end|>\n"
    "{%- elif messages[0].role == 'system' %}<|im_start|>system\n{{ messages[0].content }}<|im_end|>\n"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'system' %}"
    "{%- elif message.role == 'assistant' %}<|im_start|>assistant\n{{ message.content or '' }}"
    "{%- for call in message.tool_calls or [] %}<tool_call>"
    '{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments | tojson }}}'
    "</tool_call>{%- endfor %}<|im_end|>\n"
    "{%- elif message.role == 'tool' %}<|im_start|>user\n<tool_response>{{ message.content }}"
    "</tool_response><|im_end|>\n"
    "{%- else %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{%- endif %}"
    "{%- endfor %}{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}"
)


def byte_tokenizer() -> Any:
    """A byte-level tokenizer (every byte a token, no merges) with ChatML's special tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast  # type: ignore[import-not-found,unused-ignore]

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    inner = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    inner.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    inner.decoder = decoders.ByteLevel()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=inner,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


class ScriptedServer:
    """Stands in for verl's ``LLMServerClient``: each ``generate`` answers with the next
    scripted text as token ids (ended by the end-of-turn token), as a model would."""

    def __init__(self, tokenizer: Any, texts: list[str]) -> None:
        self.tokenizer, self.texts, self.prompts = tokenizer, list(texts), []  # type: ignore[var-annotated]

    async def generate(self, request_id: str, *, prompt_ids: list[int], **kwargs: Any) -> Any:
        from verl.workers.rollout.replica import TokenOutput

        self.prompts.append(self.tokenizer.decode(prompt_ids))
        text = self.texts.pop(0)
        ids = [*self.tokenizer.encode(text, add_special_tokens=False), self.tokenizer.eos_token_id]
        return TokenOutput(token_ids=ids, log_probs=[0.0] * len(ids), stop_reason="completed")


@pytest.fixture(scope="module")
def tasks_file(retail_tasks: Callable[..., list[Task]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = retail_tasks(4, seed=21)
    path = tmp_path_factory.mktemp("tasks") / "tasks.jsonl"
    write_tasks([t for t in made if t.gold.actions][:2], path)
    return path


def test_the_simulated_user_runs_in_verls_agent_loop(tasks_file: Path, tmp_path: Path) -> None:
    import hydra  # type: ignore[import-not-found,unused-ignore]
    from omegaconf import OmegaConf
    from verl.experimental.agent_loop.agent_loop import (
        AgentLoopOutput,
        DictConfigWrap,
        ToolListWrap,
        _agent_loop_registry,
    )
    from verl.tools.tool_registry import initialize_tools_from_config
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from envfactory_mcp.rl.verl_adapter import AGENT_NAME, close_sessions, compute_score, write_verl_files
    from envfactory_mcp.rl.verl_agent_loop import EnvFactoryAgentLoop

    tasks = read_tasks(tasks_file)
    rolled = rollout_records(tasks_file, tmp_path / "run")
    paths = write_verl_files(
        "retail", str(tasks_file), tmp_path / "verl", servers_dir=str(SERVERS_DIR), transport=TRANSPORT
    )
    tools = initialize_tools_from_config(str(paths["tools"]))
    data_config = OmegaConf.create(
        {"prompt_key": "prompt", "filter_overlong_prompts": False, "max_prompt_length": 1 << 20}
    )
    dataset = RLHFDataset(data_files=[str(paths["parquet"])], tokenizer=None, config=data_config)
    rows = {dataset[i]["extra_info"]["task_id"]: dataset[i] for i in range(len(dataset))}
    assert {r["agent_name"] for r in rows.values()} == {AGENT_NAME}
    # what AgentLoopWorker does with rollout.agent.agent_loop_config_path
    for entry in cast(Any, OmegaConf.load(paths["agent_loop"])):
        _agent_loop_registry[entry.name] = entry
    trainer_config = OmegaConf.create(
        {
            "actor_rollout_ref": {
                "rollout": {
                    "prompt_length": 1 << 20,
                    "response_length": 1 << 20,
                    "full_determinism": False,
                    "multi_turn": {
                        "max_user_turns": None,
                        "max_assistant_turns": 12,
                        "max_parallel_calls": 1,
                        "max_tool_response_length": 1 << 16,
                        "tool_response_truncate_side": "middle",
                        "format": "hermes",
                    },
                }
            },
            "data": {"apply_chat_template_kwargs": {}},
        }
    )
    tokenizer = byte_tokenizer()

    async def trajectory(row: dict[str, Any], texts: list[str]) -> tuple[Any, ScriptedServer]:
        server = ScriptedServer(tokenizer, texts)
        loop = hydra.utils.instantiate(  # as AgentLoopWorker._run_agent_loop builds it
            config=_agent_loop_registry[row["agent_name"]],
            trainer_config=DictConfigWrap(config=trainer_config),
            server_manager=server,
            tokenizer=tokenizer,
            processor=None,
            hf_model_type=None,
            dataset_cls=RLHFDataset,
            data_config=DictConfigWrap(trainer_config.data),
            tools=ToolListWrap(tools),
        )
        assert isinstance(loop, EnvFactoryAgentLoop)
        return await loop.run({}, **row), server

    solved_task, idle_task = tasks

    async def main() -> tuple[tuple[Any, ScriptedServer], tuple[Any, ScriptedServer]]:
        try:
            solved = await trajectory(rows[solved_task.task_id], oracle_texts(solved_task))
            idle = await trajectory(rows[idle_task.task_id], [NOOP_MESSAGE] * 12)
            return solved, idle
        finally:
            await close_sessions()

    (solved, solved_server), (idle, idle_server) = anyio.run(main)

    def score(row: dict[str, Any], output: AgentLoopOutput) -> float:
        extra_info = {**row["extra_info"], **output.extra_fields}  # as verl's reward loop merges them
        json.dumps(extra_info, default=str)
        return compute_score(
            data_source=row["data_source"],
            solution_str=tokenizer.decode(output.response_ids),
            ground_truth=row["reward_model"]["ground_truth"],
            extra_info=extra_info,
        )

    record = rolled[solved_task.task_id]
    assert isinstance(solved, AgentLoopOutput)
    assert score(rows[solved_task.task_id], solved) == record.reward == 1.0
    # every scripted move was generated, the user answered in between and stopped at the end
    assert not solved_server.texts
    confirmations = sum(1 for a in solved_task.gold.actions if a.confirm)
    assert solved.extra_fields["user_turns"] == confirmations + 1
    assert solved_server.prompts[-1].count("<tool_response>") == len(solved_task.gold.actions)
    # the user's replies are context (mask 0) between the model's tokens (mask 1)
    assert 0 in solved.response_mask and 1 in solved.response_mask
    assert score(rows[idle_task.task_id], idle) == 0.0
    assert idle.extra_fields["user_turns"] >= 2 and "<|im_start|>user" in idle_server.prompts[-1]
