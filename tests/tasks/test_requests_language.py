"""Requests a person could have written (issue 26, points 4 and 5), over a few hundred tasks of
flagship and library environments: no generator word (``broken_binding``) in any request or
answer of the scripted user, no "Label: value" form, stock sentences (shared by 3% of the
tasks or more) at most 5% of the sentences, every fact still carried; evaluation prompts from
the same realiser never name a tool or a field and never chain steps with "then"."""

from __future__ import annotations

import random
import re
from functools import cache

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.eval.compose import LinkedComposer
from envfactory_mcp.eval.demo_envs import SHARED_ENTITIES, linked_envs
from envfactory_mcp.sim.users import facts_sentence
from envfactory_mcp.tasks.calibrate import missing_facts
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import Task
from envfactory_mcp.tasks.naturalness import (
    field_dumps,
    names_tool_or_field,
    snake_case_tokens,
    stock_sentence_share,
    stock_sentences,
    then_chains,
)
from envfactory_mcp.tasks.wording import Picker, detail_phrase, say_identity

pytestmark = pytest.mark.slow

# Flagships, and library services whose values are generator words (ski_rental's
# ``out_on_slopes``), file names, money, times and free text.
ENVS = ("retail", "airline", "telecom", "ski_rental", "inkwell_print_shop", "pet_grooming", "golf_tee_times")
N = 250
STOCK_LIMIT = 0.05


@cache
def env_of(name: str) -> Environment:
    return build_env(load_blueprint(name))


@cache
def tasks_of(name: str) -> tuple[Task, ...]:
    tasks, _ = generate_tasks(env_of(name), N, seed=9)
    return tuple(tasks)


def fields_of(env: Environment) -> set[str]:
    return {k for t in env.spec.tools for k in t.input_schema.get("properties", {})}


def own_values(task: Task) -> str:
    """The user's own values (a file name with an underscore is theirs to write)."""
    return " ".join(m for f in task.user_scenario.known_info for m in f.must).lower()


@pytest.mark.parametrize("name", ENVS)
def test_requests_read_as_a_person_writes(name: str) -> None:
    env, tasks = env_of(name), tasks_of(name)
    assert len(tasks) >= 100, name
    openings = [t.user_scenario.opening_message for t in tasks]
    for task, text in zip(tasks, openings, strict=True):
        words = [w for w in snake_case_tokens(text) if w not in own_values(task)]
        assert words == [], (task.task_id, words, text)
        assert field_dumps(text, fields_of(env)) == [], (task.task_id, text)
        assert then_chains(text) == [], (task.task_id, text)
        assert missing_facts(text, task.user_scenario.known_info) == [], task.task_id
    share = stock_sentence_share(openings)
    assert share <= STOCK_LIMIT, (
        name,
        share,
        stock_sentences(openings).top[:8],
    )


@pytest.mark.parametrize("name", ENVS)
def test_a_held_back_detail_is_given_in_words_when_asked(name: str) -> None:
    """What the scripted user says when the agent asks: every must string of the facts asked
    for, worded as a person would (no code, no form)."""
    env = env_of(name)
    held = 0
    for task in tasks_of(name):
        facts = task.user_scenario.known_info
        for fact in facts:
            if fact.kind == "identity" or fact.in_opening:
                continue
            held += 1
            answer = facts_sentence([fact], random.Random(task.task_id))
            assert all(m.lower() in answer.lower() for m in fact.must), (task.task_id, fact, answer)
            assert field_dumps(answer, fields_of(env)) == [], (task.task_id, answer)
            assert [w for w in snake_case_tokens(answer) if w not in own_values(task)] == [], answer
        identity = [f for f in facts if f.kind == "identity"]
        if identity:
            said = say_identity(identity, Picker(random.Random(task.task_id))).text
            assert all(m.lower() in said.lower() for f in identity for m in f.must), said
    assert held, name  # some act goals keep their details back for the agent to ask


def test_values_are_said_in_words() -> None:
    """An enum value is a word ("broken binding"), a yes/no a choice ("no insurance"), a count
    a count ("3 bags in total"): never "The damage is broken_binding" or "Insurance: no."."""
    damage = next(
        f
        for t in tasks_of("ski_rental")
        for f in t.user_scenario.known_info
        if f.key.endswith(".damage") and " " in f.text
    )
    assert "_" not in damage.text and damage.must == [damage.text]
    from envfactory_mcp.tasks.model import Fact

    def said(key: str, text: str) -> str:
        fact = Fact(key=key, kind="detail", value=text, text=text, must=[text], in_opening=True)
        return detail_phrase(fact, Picker(random.Random(1)))

    assert re.search(r"\bno\b.*insurance|insurance.*\bno\b", said("book_reservation.insurance", "no"))
    assert re.fullmatch(r".*\b3 bags\b.*", said("update_reservation_bags.total_bags", "3"))
    assert "131 cm" in said("update_skier.height_cm", "131")
    for key, text in [
        ("x.insurance", "no"),
        ("x.total_bags", "0"),
        ("x.cabin", "business"),
        ("x.date", "2026-06-02"),
    ]:
        assert ":" not in said(key, text) and not said(key, text).lower().startswith("for the")


def eval_prompt_sets() -> dict[str, list[tuple[str, set[str], set[str]]]]:
    """Evaluation prompts with their servers' tool and field names (inputs, outputs, columns)."""
    sets = {
        "demo": (linked_envs(4), SHARED_ENTITIES),
        "airline+retail": ([env_of("airline"), env_of("retail")], ()),
        "telecom": ([env_of("telecom")], ()),
        "ski_rental": ([env_of("ski_rental")], ()),
    }
    found: dict[str, list[tuple[str, set[str], set[str]]]] = {}
    for label, (envs, shared) in sets.items():
        tools = {t.name for e in envs for t in e.spec.tools}
        fields: set[str] = set()
        values: set[str] = set()

        def walk(schema: object, fields: set[str] = fields, values: set[str] = values) -> None:
            if isinstance(schema, dict):
                values.update(v for v in schema.get("enum") or [] if isinstance(v, str))
                for key, sub in (schema.get("properties") or {}).items():
                    fields.add(key)
                    walk(sub)
                walk(schema.get("items"))

        for e in envs:
            for t in e.spec.tools:
                walk(t.input_schema)
                walk(t.output_schema)
            fields |= {c.name for table in e.spec.tables for c in table.columns}
        fields -= values  # an enum value ("basic_economy") is said, as a value
        composed = LinkedComposer(envs, seed=3, shared_entities=shared).compose(30)
        found[label] = [(t.task.user_scenario.opening_message, tools, fields) for t in composed]
    return found


def test_evaluation_prompts_are_one_natural_message() -> None:
    prompts = eval_prompt_sets()
    assert sum(len(p) for p in prompts.values()) >= 60
    for label, items in prompts.items():
        for text, tools, fields in items:
            assert names_tool_or_field(text, tools, fields) == [], (label, text)
            assert then_chains(text) == [] and not re.search(r"\bthen\b", text, re.IGNORECASE), (label, text)
            assert snake_case_tokens(text) == [], (label, text)
            assert field_dumps(text, fields) == [], (label, text)
