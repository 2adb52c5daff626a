"""The standing eval set (issue 28): tasks over the library's flagships and services,
versioned, rebuilt deterministically and checked against a committed manifest.

Every environment ``blueprints.blueprint_names()`` lists (hand-crafted flagships and
library services), in an order drawn from ``STANDING_VERSION``, is put in groups of three
(the last group takes what is left); each group gives ``PER_GROUP`` tasks from
``compose_eval_set`` (shared-entity chains where the group's servers share entities,
value-flow chains where a value read on one fits a tool of another, the rest
single-server tasks with the group's other servers as distractors), seed 0. The set is
not committed (it is large); ``standing_manifest.json`` is: per group its servers, task
count and the sha256 of its tasks, and the whole set's sha256. ``build_standing`` checks
every group it builds against it, so a change to the library, the task generator or the
composer that changes the set is caught (bump ``STANDING_VERSION`` and rewrite the
manifest with ``eval-standing --write-manifest`` when the change is meant).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from envfactory_mcp import files
from envfactory_mcp.env import Environment
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.eval.compose import KINDS, EvalTask
from envfactory_mcp.eval.sets import compose_eval_set

STANDING_VERSION = 8  # 2: value-flow chains (eval.valueflow), counted apart; 3: dates said as a person says them, flow sentences that read as needs; 4: library policies in words (issue 31); 5: flow needs without a form frame, prompts checked against every offered server and for "then" (issue 28); 6: library business rules and the agent's wording changed the generated tasks (issues 26, 31); 7: tasks refuse what a declared business rule forbids, and no object is named by a choice a write recorded (issues 31, 26); 8: the oracle draws a write's candidate calls around objects in a state its declared refusals allow (issue 32)
PER_GROUP = 15
GROUP_SIZE = 3
MANIFEST = Path(__file__).with_name("standing_manifest.json")


def standing_groups(names: list[str]) -> list[list[str]]:
    """The groups of servers, from the sorted names and the version."""
    order = sorted(names)
    random.Random(f"standing:{STANDING_VERSION}").shuffle(order)
    return [order[i : i + GROUP_SIZE] for i in range(0, len(order), GROUP_SIZE)]


def digest(tasks: list[EvalTask]) -> str:
    text = "".join(
        json.dumps(t.model_dump(mode="json"), sort_keys=True, ensure_ascii=False) + "\n" for t in tasks
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def build_standing(
    load: Callable[[str], Environment],
    names: list[str],
    only: list[int] | None = None,
    manifest: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[EvalTask], dict[str, Any]]:
    """The standing set's tasks (of the groups ``only`` names, by index, or all) and the
    manifest they make; checked against ``manifest`` when given (``EnvFactoryError`` naming
    the first group that differs)."""
    from envfactory_mcp.eval.main import declared_shared

    groups = standing_groups(names)
    picked = range(len(groups)) if only is None else only
    tasks: list[EvalTask] = []
    rows: list[dict[str, Any]] = []
    for done, index in enumerate(picked):
        envs = [load(name) for name in groups[index]]
        built = compose_eval_set(envs, PER_GROUP, seed=0, shared_entities=declared_shared(envs))
        row: dict[str, Any] = {
            "index": index,
            "servers": groups[index],
            "tasks": len(built.tasks),
            "kinds": built.counts,
            "sha256": digest(built.tasks),
        }
        if manifest is not None:
            stored = manifest["groups"][index]
            if stored != row:
                raise EnvFactoryError(
                    f"standing set group {index} ({', '.join(groups[index])}) is not the manifest's"
                    f" (tasks {row['tasks']} vs {stored['tasks']}, sha256 {row['sha256'][:12]} vs"
                    f" {stored['sha256'][:12]}): the library, task generator or composer changed;"
                    " bump STANDING_VERSION and rewrite the manifest if that is meant"
                )
        rows.append(row)
        tasks.extend(built.tasks)
        if progress is not None:
            progress(done + 1, len(picked))
    made = {
        "standing_version": STANDING_VERSION,
        "per_group": PER_GROUP,
        "groups": rows,
        "tasks": len(tasks),
        "kinds": {k: sum(r["kinds"][k] for r in rows) for k in KINDS},
        "sha256": digest(tasks),
    }
    return tasks, made


def read_manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    if data.get("standing_version") != STANDING_VERSION:
        raise EnvFactoryError(
            f"{MANIFEST}: version {data.get('standing_version')}, expected {STANDING_VERSION}"
        )
    return data


def write_manifest(manifest: dict[str, Any]) -> None:
    files.write_json(MANIFEST, manifest, sort_keys=True)
