"""Shared fixtures: the retail environment built once per test session."""

from __future__ import annotations

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env


@pytest.fixture(scope="session")
def retail_env() -> Environment:
    return build_env(load_blueprint("retail"))


@pytest.fixture(scope="session")
def mini_env() -> Environment:
    import mini_env as mini

    return build_env(mini.BLUEPRINT)
