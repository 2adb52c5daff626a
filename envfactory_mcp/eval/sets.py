"""An eval set over any servers: how many tasks of each kind ``compose_eval_set`` builds
(shared-entity chains from ``eval.compose``, value-flow chains from ``eval.valueflow``, the
rest single-server tasks from the task generator with the other servers as distractors),
and the sentence that says so."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from envfactory_mcp.env import Environment
from envfactory_mcp.eval.claims import claim_of
from envfactory_mcp.eval.compose import (
    KINDS,
    MAX_CLAIMS,
    MIN_CLAIMS,
    EvalTask,
    LinkedComposer,
    offered_name,
    prompt_flaws,
    set_vocabulary,
    state_of,
)
from envfactory_mcp.eval.valueflow import ValueFlowComposer
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import InitialState, Task


@dataclass
class ComposedSet:
    """An eval set as built, with how many tasks of each kind and why chains are missing."""

    tasks: list[EvalTask]
    notes: list[str] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {kind: sum(1 for t in self.tasks if t.kind == kind) for kind in KINDS}

    def statement(self) -> str:
        """One sentence: how many tasks of each kind were built, over which servers."""
        counts = self.counts
        servers = list(dict.fromkeys(s for t in self.tasks for s in t.offered))
        text = (
            f"built {len(self.tasks)} tasks over {len(servers)} servers: {counts['single']} on one server"
            f" with the others offered as distractors, {counts['chain']} shared-entity chains (an id"
            f" read on one server used on another), {counts['flow']} value-flow chains (a value that is"
            " not an id, read on one server, needed by a tool of another)"
        )
        return text + "".join(f"; {note}" for note in self.notes)


def compose_eval_set(
    envs: list[Environment],
    n: int,
    seed: int = 0,
    shared_entities: Iterable[str] = (),
    max_chain: int = 4,
) -> ComposedSet:
    """``n`` tasks over ``envs``: shared-entity chains where the servers share an entity
    (up to a third of the set, half without value flows), value-flow chains where a value
    read on one server fills a parameter of another's tool (``eval.valueflow``, up to a
    third, half without shared entities), the rest single-server tasks with the other
    servers as distractors, spread evenly over the servers. Deterministic for ``(envs, n,
    seed, shared_entities)``."""
    notes: list[str] = []
    chains: list[EvalTask] = []
    flows: list[EvalTask] = []
    shared = list(shared_entities)
    # No shared entity: no id can cross (and the composer's oracles are not built).
    composer = LinkedComposer(envs, seed=seed, shared_entities=shared) if len(envs) > 1 and shared else None
    linked = composer is not None and composer.linked
    flow = ValueFlowComposer(envs, seed=seed) if len(envs) > 1 else None
    flowing = flow is not None and bool(flow.pairs)
    share = 3 if linked and flowing else 2
    if flow is not None and flowing:
        flows = flow.compose(n // share if n > 1 else n, max_steps=max_chain)
    elif len(envs) > 1:
        notes.append("no value-flow chain: no value read on one of these servers fits a tool of another")
    if composer is not None and linked:
        chains = composer.compose(n // share if n > 1 else n, max_steps=max_chain)
    elif len(envs) > 1:
        notes.append("no shared-entity chain: these servers share no entity")
    singles = single_tasks(envs, n - len(chains) - len(flows), seed)
    if len(chains) + len(flows) + len(singles) < n and flow is not None and flowing:
        # Fewer single-server tasks than asked for (few claims to check): more chains.
        flows = flow.compose(n - len(singles) - len(chains), max_steps=max_chain)
    if len(chains) + len(flows) + len(singles) < n and composer is not None and linked:
        chains = composer.compose(n - len(singles) - len(flows), max_steps=max_chain)
    total = len(chains) + len(flows) + len(singles)
    if total < n:
        notes.append(f"only {total} of the {n} tasks asked for could be built")
    return ComposedSet(tasks=chains + flows + singles, notes=notes)


POOL_GROWTH = 4  # a server's pool grows to at most this many times its first size


def single_tasks(envs: list[Environment], n: int, seed: int = 0) -> list[EvalTask]:
    """``n`` tasks spread evenly over ``envs`` (the first servers take the remainder; a
    server with too few usable tasks, even from a pool grown ``POOL_GROWTH`` times, leaves its
    share to the others), each
    one server's task from the task generator with every other server offered beside it.
    Only tasks with ``MIN_CLAIMS`` to ``MAX_CLAIMS`` claims whose request names no tool or
    field of any server of the set and lists no steps (``compose.prompt_flaws``) are kept."""
    if n <= 0:
        return []
    names = [e.spec.name for e in envs]
    seeds = {e.spec.name: e.seed_hash for e in envs}
    wanted = {name: n // len(envs) + (1 if i < n % len(envs) else 0) for i, name in enumerate(names)}
    # Every server of the set is offered with the task: none of their names may be said.
    vocabulary = set_vocabulary(envs)
    usable: dict[str, list[Task]] = {}
    for env in envs:
        name = env.spec.name
        if not wanted[name]:
            continue
        # A larger pool where too few are usable: the generator's first tasks are the same
        # for any pool size from one seed, so a larger pool only adds to the choice.
        size = 4 * wanted[name] + 8
        while True:
            pool, _ = generate_tasks(env, size, seed=seed)
            usable[name] = [
                t
                for t in pool
                if MIN_CLAIMS <= len(t.gold.claims) <= MAX_CLAIMS
                # a request that names a tool or field of any offered server ("the pickup
                # time"), or lists steps ("then"), is not an eval prompt
                and not prompt_flaws(t.user_scenario.opening_message, vocabulary)
            ]
            if (
                len(usable[name]) >= wanted[name]
                or len(pool) < size
                or size >= POOL_GROWTH * (4 * wanted[name] + 8)
            ):
                break
            size *= 2
    taken = {name: min(wanted[name], len(found)) for name, found in usable.items()}
    # A server with too few usable tasks leaves its share to the others, in order.
    short = n - sum(taken.values())
    while short > 0:
        spare = [name for name in usable if len(usable[name]) > taken[name]]
        if not spare:
            break
        for name in spare[:short]:
            taken[name] += 1
            short -= 1
    tasks: list[EvalTask] = []
    for name, found in usable.items():
        offered = [name] + [other for other in names if other != name]
        for i, task in enumerate(found[: taken[name]]):
            tasks.append(_single(task, offered, seeds, f"eval-{name}-single-s{seed}-{i}"))
    return tasks


def _single(task: Task, offered: list[str], seeds: dict[str, str], task_id: str) -> EvalTask:
    """A generated one-server task played with ``offered`` servers (its own first)."""
    server = task.env
    initial = {s: seeds[s] for s in offered}
    gold = {**initial, server: task.gold.final_state_hash}
    claims = [claim_of(f"c{i}", c.path, c.value, server, c.tool) for i, c in enumerate(task.gold.claims)]
    played = task.model_copy(
        update={
            "task_id": task_id,
            "servers": offered,
            "initial_state": InitialState(state_hash=state_of(initial)),
            "gold": task.gold.model_copy(update={"final_state_hash": state_of(gold)}),
        }
    )
    return EvalTask(
        kind="single",
        task=played,
        offered=offered,
        initial_hashes=initial,
        gold_hashes=gold,
        relevant_tools=list(dict.fromkeys(offered_name(server, a.name, offered) for a in task.gold.actions)),
        claims=claims,
        reference_answer="; ".join(c.text for c in claims) + ".",
    )
