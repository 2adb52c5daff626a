"""Words, not identifiers (issue 31): the policy an agent reads and the reasons it gives
for a refusal are prose. No library environment's policy text (outside `code spans`,
which name tools) or rule reason holds a snake_case word, read from the built spec."""

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
    assert {k: v for k, v in found.items() if v} == {}
