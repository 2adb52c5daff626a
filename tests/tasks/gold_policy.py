"""Shared by the policy-consistency tests: tasks of one environment, held to its policy."""

from __future__ import annotations

import zlib
from collections import Counter
from functools import cache

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import build_env
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.stats import policy_problems


@cache
def checked(name: str, n: int) -> tuple[dict[str, list[str]], Counter[str]]:
    """``n`` tasks of environment ``name``, generated from a seed of its own (environments
    share no draw sequence): the policy problems of each task that has any, and how many
    goals of each kind the tasks hold (what the check was exercised on)."""
    env = build_env(load_blueprint(name))
    tasks, _ = generate_tasks(env, n, seed=zlib.crc32(name.encode()) % 10_000)
    assert tasks, f"{name}: no task generated"
    problems = {t.task_id: found for t in tasks if (found := policy_problems(t, env.spec))}
    return problems, Counter(g.kind for t in tasks for g in t.gold.goals)
