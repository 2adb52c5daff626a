"""Fixtures for the eval tests: the linked demo servers and tasks over them, built once."""

from __future__ import annotations

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.eval.compose import EvalTask, LinkedComposer
from envfactory_mcp.eval.demo_envs import SHARED_ENTITIES, linked_envs


@pytest.fixture(scope="session")
def linked() -> list[Environment]:
    """crm, billing, shipping (linked by customer and invoice ids) and one distractor."""
    return linked_envs(4)


@pytest.fixture(scope="session")
def eval_tasks(linked: list[Environment]) -> list[EvalTask]:
    return LinkedComposer(linked, seed=3, shared_entities=SHARED_ENTITIES).compose(16)
