"""``envfactory-mcp export --format verl -o train.parquet`` writes Parquet (what verl's
``data.train_files`` reads) with the same rows as the JSONL export, one per task solved;
verl's own ``RLHFDataset`` reads it where verl is installed. Needs pandas and pyarrow
(the ``rl`` extra)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rl_episodes import needs_servers, rollout_records
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.tasks.model import read_tasks, write_tasks

pd = pytest.importorskip("pandas", reason="the rl extra is not installed: pip install -e '.[test,rl]'")
pytest.importorskip("pyarrow", reason="the rl extra is not installed: pip install -e '.[test,rl]'")

pytestmark = [pytest.mark.slow, needs_servers]  # builds retail and its tasks


@pytest.fixture(scope="module")
def run_dir(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("verl")
    made = retail_tasks(4, seed=21)
    write_tasks([t for t in made if t.gold.actions][:2], folder / "tasks.jsonl")
    rollout_records(folder / "tasks.jsonl", folder / "run")
    return folder / "run"


def _plain(value: object) -> object:
    """A Parquet cell as plain Python (arrays to lists, missing struct fields dropped)."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def test_the_cli_writes_verl_parquet_with_the_jsonl_rows(run_dir: Path, tmp_path: Path):
    runner = CliRunner()
    parquet, jsonl = tmp_path / "train.parquet", tmp_path / "train.jsonl"
    for out in (parquet, jsonl):
        # the oracle's calls use the gold's values, which no user said: kept for the test
        argv = ["export", str(run_dir), "--format", "verl", "--allow-ungrounded", "-o", str(out)]
        result = runner.invoke(app, argv)
        assert result.exit_code == 0, result.output
    assert parquet.read_bytes()[:4] == b"PAR1"
    rows = [json.loads(line) for line in jsonl.read_text().splitlines()]
    tasks = read_tasks(run_dir.parent / "tasks.jsonl")
    assert len(rows) == len(tasks) == 2  # the oracle solved both
    frame = pd.read_parquet(parquet)
    assert list(frame.columns) == list(rows[0])
    for index, row in enumerate(rows):
        cells = {column: _plain(frame[column][index]) for column in frame.columns}
        assert cells == row


def test_verls_dataset_reads_the_exported_parquet(run_dir: Path, tmp_path: Path):
    pytest.importorskip("verl", reason="verl is not installed: pip install -e '.[verl]' (CPU wheels work)")
    from omegaconf import OmegaConf
    from verl.utils.dataset.rl_dataset import RLHFDataset

    from envfactory_mcp.trajectories.export import export_run

    out = tmp_path / "train.parquet"
    export_run(run_dir, "verl", out, allow_ungrounded=True)
    config = OmegaConf.create(
        {"prompt_key": "prompt", "filter_overlong_prompts": False, "max_prompt_length": 4096}
    )
    dataset = RLHFDataset(data_files=[str(out)], tokenizer=None, config=config)
    tasks = {t.task_id: t for t in read_tasks(run_dir.parent / "tasks.jsonl")}
    assert len(dataset) == 2
    for i in range(2):
        row = dataset[i]
        task = tasks[row["extra_info"]["task_id"]]
        assert row["raw_prompt"][-1]["content"] == task.user_scenario.opening_message
