"""No task's gold contradicts its policy, on every library environment (issue 24): a few
tasks each, from a seed of its own, held to ``tasks.stats.policy_problems``. A module of its
own, so that it runs beside the flagships' (test_policy_consistency.py) on another worker."""

from __future__ import annotations

from collections import Counter

import pytest
from gold_policy import checked

from envfactory_mcp.library import service_names

pytestmark = pytest.mark.slow
N = 3  # tasks per library environment: 99 of them at about 0.4 s each


@pytest.mark.parametrize("name", service_names())
def test_no_library_task_has_a_gold_that_contradicts_its_policy(name: str):
    problems, _ = checked(name, N)
    assert problems == {}


def test_the_library_tasks_checked_hold_every_kind_of_goal():
    kinds = sum((checked(name, N)[1] for name in service_names()), Counter())
    assert all(kinds[k] > 0 for k in ("act", "refuse", "contingent", "transfer")), kinds
