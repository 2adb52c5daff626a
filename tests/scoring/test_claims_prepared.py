"""What ``claims_communicated`` makes of the claims alone is kept per claim list and spec
(``claims._prepared``, issue 32): what it gives back must be what working it out afresh
gives, for every task and for claims that differ in any one part (tool, path, the value
or only its type) or are read with another spec."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.scoring import claims as claims_module
from envfactory_mcp.scoring.claims import _prepare, _prepared, claims_communicated
from envfactory_mcp.tasks.model import Claim, Task


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    claims_module._prepared_cache.clear()


def test_kept_values_are_the_fresh_ones(
    retail_env: Environment, retail_tasks: Callable[..., list[Task]]
) -> None:
    spec = retail_env.spec
    tasks = [t for t in retail_tasks(40, seed=0) if t.gold.claims]
    assert tasks
    for task in tasks:
        for given in (spec, None):
            first = _prepared(task.gold.claims, given)
            assert first == _prepare(task.gold.claims, given)
            assert _prepared(task.gold.claims, given) is first  # kept, not worked out again


def _variants(claim: Claim, other_tool: str) -> list[Claim]:
    return [
        claim.model_copy(update={"tool": other_tool}),
        claim.model_copy(update={"path": claim.path + "_other"}),
        claim.model_copy(update={"path": "totals.refunded"}),
        claim.model_copy(update={"value": 1}),
        claim.model_copy(update={"value": 1.0}),
        claim.model_copy(update={"value": True}),
        claim.model_copy(update={"value": "1"}),
        claim.model_copy(update={"value": "cancelled"}),
    ]


def test_a_claim_differing_in_any_part_is_not_given_anothers_values(retail_env: Environment) -> None:
    spec = retail_env.spec
    base = Claim(tool="get_order_details", path="status", value="pending", text="pending")
    claims = [base, *_variants(base, "cancel_pending_order")]
    for claim in claims:  # every one kept first, then each asked again: none answered by another
        _prepared([claim], spec)
    for claim in claims:
        assert _prepared([claim], spec) == _prepare([claim], spec), claim
    # The tool matters where only its output's schema makes the value an enum's.
    schema = {"type": "object", "properties": {"status": {"enum": ["On Hold", "Let Go"]}}}
    tools = [
        t.model_copy(update={"output_schema": schema}) if t.name == "get_order_details" else t
        for t in spec.tools
    ]
    odd = spec.model_copy(update={"tools": tools})
    on_hold = Claim(tool="get_order_details", path="status", value="On Hold", text="On Hold")
    elsewhere = on_hold.model_copy(update={"tool": "get_user_details"})
    assert _prepare([on_hold], odd) != _prepare([elsewhere], odd)
    _prepared([on_hold], odd)
    assert _prepared([elsewhere], odd) == _prepare([elsewhere], odd)
    # Another spec (a copy: equal, not the same object) is worked out with its own words.
    other = spec.model_copy(deep=True)
    assert _prepared([base], other) is not _prepared([base], spec)
    assert _prepared([base], other) == _prepare([base], other)


def test_claims_told_alike_with_and_without_the_cache(
    retail_env: Environment, retail_tasks: Callable[..., list[Task]]
) -> None:
    spec = retail_env.spec
    for task in retail_tasks(40, seed=0):
        if not task.gold.claims:
            continue
        reply = " and ".join(str(c.value) for c in task.gold.claims[::2])
        messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": f"Done: {reply}."}]
        claims_module._prepared_cache.clear()
        fresh = claims_communicated(task.gold.claims, messages, spec)
        assert claims_communicated(task.gold.claims, messages, spec) == fresh  # from the cache
