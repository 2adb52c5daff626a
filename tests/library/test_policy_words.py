"""Words, not identifiers (issue 31): the policy an agent reads and the reasons it gives
for a refusal are prose. No library environment's policy text (outside `code spans`,
which name tools) or rule reason (status refusals and the rules beyond status) holds a snake_case word, read from the built spec."""

from __future__ import annotations

import re

import pytest

from envfactory_mcp.library import load_service, service_names
from envfactory_mcp.library.kit import choice, said

_CODE = re.compile(r"`[^`]*`")
_SNAKE = re.compile(r"\b[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b")


def snake_words(text: str) -> list[str]:
    return _SNAKE.findall(_CODE.sub("", text))


def test_the_check_catches_an_identifier_and_passes_prose():
    assert snake_words("only `cancel_booking` works while out_on_slopes") == ["out_on_slopes"]
    assert snake_words("only proof_readys can be published") == ["proof_readys"]
    assert snake_words("only `publish_proof` works for proofs that are proof ready") == []


def test_enum_values_are_said_in_words():
    assert said("out_on_slopes") == "out on the slopes"
    assert said("pencilled_in") == "pencilled in"
    column = choice("status", ("pencilled_in", "out_on_slopes", "returned"))
    assert column.labels is not None
    assert {v: label.display for v, label in column.labels.items()} == {
        "pencilled_in": "pencilled in",
        "out_on_slopes": "out on the slopes",
        "returned": "returned",
    }


@pytest.mark.parametrize("name", service_names())
def test_policy_and_reasons_are_prose(name: str):
    spec = load_service(name).build()[0]
    rules = spec.policy_rules
    assert rules is not None
    found = {"policy": snake_words(spec.policy)}
    for rule in rules.refusals:
        found[f"{rule.tool} reason"] = snake_words(rule.reason)
    for business in rules.rules:  # the rules beyond status too
        found[f"{business.tool} {business.kind} reason"] = snake_words(business.reason)
    assert {k: v for k, v in found.items() if v} == {}


@pytest.mark.parametrize("name", service_names())
def test_realised_language_is_prose(name: str):
    """What the simulated user is given to say (the opening message, the reason for the
    call, the facts as said) holds no generator identifier in snake_case either (an enum
    value, a column, table or tool name), on a few tasks per service."""
    from envfactory_mcp.blueprints import load_blueprint
    from envfactory_mcp.env import build_env
    from envfactory_mcp.tasks.generate import generate_tasks

    env = build_env(load_blueprint(name))
    tasks, _ = generate_tasks(env, 4, seed=1)
    assert tasks
    # Generator identifiers: enum values, column, table and tool names. A value a person
    # really has (a file named flyer_final.pdf) may be written with underscores.
    spec = env.spec
    identifiers = {t.name for t in spec.tools} | {t.name for t in spec.tables}
    for table in spec.tables:
        for column in table.columns:
            identifiers |= {column.name, *(str(v) for v in column.enum or ())}
    found: dict[str, list[str]] = {}
    for task in tasks:
        scenario = task.user_scenario
        texts = {
            "opening": scenario.opening_message or "",
            "reason": scenario.reason_for_call or "",
            **{f"fact {f.key}": f.text for f in scenario.known_info if f.kind != "identity"},
        }
        for where, text in texts.items():
            words = [w for w in snake_words(text) if w in identifiers]
            if words:
                found[f"{task.task_id} {where}"] = words
    assert found == {}
