"""How eval prompts read (issue 28): over a generated set (four groups of the standing
set, every kind of task), no prompt names a tool or field of any offered server, none
lists steps with "then", no value-flow prompt uses the "should be the same as" / "For the
X, use" frame, and every task has 2 to 6 claims. ``bench/bench_eval_prompts.py`` prints the
same figures over the whole standing set."""

from __future__ import annotations

import importlib.util
import random
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from envfactory_mcp.blueprints import blueprint_names
from envfactory_mcp.catalog import load_environment
from envfactory_mcp.eval.compose import MAX_CLAIMS, MIN_CLAIMS, EvalTask, flow_need, prompt_flaws
from envfactory_mcp.eval.shapes import value_kind
from envfactory_mcp.eval.standing import build_standing
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR

GROUPS = [0, 1, 2, 3]
_BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_eval_prompts.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_eval_prompts", _BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tasks() -> list[EvalTask]:
    built, _ = build_standing(
        # Only the specs are read (no server runs): a package's verification is not the point.
        lambda name: load_environment(name, DEFAULT_SERVERS_DIR, allow_unverified=True).env,
        blueprint_names(),
        GROUPS,
    )
    return built


@pytest.fixture(scope="module")
def figures(tasks: list[EvalTask]) -> dict[str, dict[str, Any]]:
    bench = _bench()
    result: dict[str, dict[str, Any]] = bench.figures_by_kind(tasks, bench.spec_vocabularies())
    return result


def test_the_set_holds_single_and_flow_prompts(tasks: list[EvalTask]) -> None:
    kinds = {t.kind for t in tasks}
    assert {"single", "flow"} <= kinds, kinds
    assert len(tasks) == 15 * len(GROUPS)


def test_no_prompt_names_a_tool_or_field_or_lists_steps(figures: dict[str, dict[str, Any]]) -> None:
    for kind, row in figures.items():
        assert row["naming"] == 0.0, (kind, row["naming_examples"])
        assert row["then"] == 0.0, kind


def test_flow_prompts_are_needs_not_forms(tasks: list[EvalTask], figures: dict[str, dict[str, Any]]) -> None:
    assert figures["flow"]["form"] == 0.0
    frame = re.compile(r"should be the same as|\buse the same \w+ as|^for the \w+, use", re.I | re.M)
    for task in tasks:
        if task.kind == "flow":
            message = task.task.user_scenario.opening_message
            assert not frame.search(message), message
            # The value is read on another server: the message never carries it.
            value = re.escape(str(task.claims[0].value))
            assert not re.search(rf"(?<![\w.]){value}(?![\w]|\.\d)", message), message


def test_every_task_has_two_to_six_claims(figures: dict[str, dict[str, Any]]) -> None:
    assert set(figures["all"]["claims"]) <= set(range(MIN_CLAIMS, MAX_CLAIMS + 1))


def test_a_distractors_field_in_words_is_a_flaw() -> None:
    """A single-server prompt is offered every server of its set: a field of another
    server said in words ("check in") names it as much as one of its own."""
    vocabulary = ({"book_room"}, {"check_in", "visit_on", "email"})
    assert prompt_flaws("I'd like to check in on May 3.", vocabulary) == ["names check_in"]
    assert prompt_flaws("Could I visit on Friday, then pay?", vocabulary) == ["names visit_on", "then"]
    assert prompt_flaws("Please book room 12 for me; my email is a@b.example.", vocabulary) == [
        "names book_room"
    ]
    assert prompt_flaws("I'd like a room for two nights, please.", vocabulary) == []


@pytest.mark.parametrize(
    ("kind", "field", "said"),
    [
        ("date", "due_date", "is due"),
        ("date", "issued_on", "was issued"),
        ("date", "date_of_birth", "birthday"),
        ("money", "deposit", "deposit"),
        ("money", "amount_due", "still due"),
        ("count:guest", "guests", "as many guests as"),
        ("count:count", "panel_count", "as many panels as"),
        ("address", "pickup_address", "address of the pickup"),
    ],
)
def test_a_flow_need_says_what_the_value_is_without_the_field(kind: str, field: str, said: str) -> None:
    texts = {
        flow_need(
            kind=kind,
            unit="date",
            thing="my bill of 119.48",
            owner_words=["bill"],
            field=field,
            title="GreenThumb landscaping",
            account="jo@example.com",
            target="my appointment",
            head="",
            rng=random.Random(seed),
        )
        for seed in range(12)
    }
    assert len(texts) >= 2  # worded in more than one way
    for text in texts:
        assert said in text and "GreenThumb landscaping" in text and "jo@example.com" in text, text
        if "_" in field:  # never a field's words in a row
            assert field.replace("_", " ") not in text, text
        assert not re.search(r"same \w+ as|should be the same", text), text


def test_one_shape_function() -> None:
    assert value_kind("pickup_on", {"type": "string"}) == "date"
    assert value_kind("due_date", {"type": "string", "format": "date"}) == "date"
    assert value_kind("start_time", {"type": "string"}) == "time"
    assert value_kind("late_fee", {"type": "number"}) == "money"
    assert value_kind("total_bags", {"type": "integer"}) == "count:bag"
    assert value_kind("customer_id", {"type": "string"}) is None
    assert value_kind("status", {"type": "string", "enum": ["a", "b"]}) is None
    assert value_kind("email", {"type": "string"}) is None


def test_a_server_short_of_usable_tasks_leaves_its_share_to_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server whose generator gives too few usable requests (here: citycab's pool cut to
    its first four tasks, the real generator's otherwise): the other two servers make up
    its share, and the set holds as many tasks as asked for."""
    from envfactory_mcp.eval import sets
    from envfactory_mcp.eval.sets import compose_eval_set
    from envfactory_mcp.tasks.generate import generate_tasks

    names = ("citycab_business_account", "coastline_car_rental", "cyclecity_bike_share")
    real = generate_tasks  # what eval.sets calls

    def short_for_citycab(env: Any, n: int, seed: int = 0) -> Any:
        pool, stats = real(env, n, seed=seed)
        return (pool[:4] if env.spec.name == names[0] else pool), stats

    monkeypatch.setattr(sets, "generate_tasks", short_for_citycab)
    envs = [load_environment(n, DEFAULT_SERVERS_DIR, allow_unverified=True).env for n in names]
    built = compose_eval_set(envs, 30)
    assert len(built.tasks) == 30 and "could be built" not in built.statement(), built.statement()
    singles = [t for t in built.tasks if t.kind == "single"]
    fair = len(singles) // len(names)
    per_server = {n: sum(1 for t in singles if t.task.env == n) for n in names}
    assert per_server[names[0]] <= 4 < fair, per_server
    assert all(per_server[n] >= fair for n in names[1:]), per_server
