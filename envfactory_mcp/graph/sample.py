"""Tool-chain samplers over a ``ToolGraph``.

``TopologySampler`` (the method's sampler): choose a goal tool, then walk backwards: every
required parameter is either typed by the user (``user_provided``) or bound to an output
of an earlier step, adding the producing step (recursively) when no step in the chain
already yields that entity. A parameter the user could type (an order number) is
sometimes looked up instead, because people often do not have it at hand. Then the
chain may be extended forwards with a step that consumes the goal's output, and may get
a second goal that reuses the steps already there (several goals woven together).

``RandomWalkSampler`` is the ablation baseline: a random walk along data and state edges
with whatever bindings happen to exist; parameters nothing binds are left ``missing``,
and the oracle rejects such chains.

Both are deterministic for a given seed and graph.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from envfactory_mcp.graph.build import Param, Producer, ToolGraph

Source = Literal["user", "step", "missing"]


@dataclass(frozen=True)
class Binding:
    """Where one parameter's value comes from."""

    param: str
    source: Source
    step: int | None = None  # the producing step, for source == "step"
    path: str | None = None  # the output path of that step


@dataclass(frozen=True)
class Step:
    tool: str  # graph node id, "<server>/<tool>"
    bindings: tuple[Binding, ...]
    goal: bool = False


@dataclass(frozen=True)
class Chain:
    steps: tuple[Step, ...]
    sampler: str

    @property
    def tools(self) -> tuple[str, ...]:
        return tuple(s.tool for s in self.steps)

    def structure(self) -> str:
        """The chain's shape: tools and where each parameter comes from (no values)."""
        parts = []
        for step in self.steps:
            binds = ",".join(f"{b.param}<{b.source}{'' if b.step is None else b.step}" for b in step.bindings)
            parts.append(f"{step.tool}({binds}){'*' if step.goal else ''}")
        return " > ".join(parts)


@dataclass
class SamplerConfig:
    min_length: int = 1
    max_length: int = 6
    write_ratio: float = 0.7  # share of chains whose goal is a write tool
    lookup_prob: float = 0.5  # a user-providable id is looked up instead of typed
    extend_prob: float = 0.3  # add a step that consumes the goal's output
    second_goal_prob: float = 0.2  # weave in a second write goal
    max_share: float = 0.05  # no chain structure more than this share of the requested chains
    expected: int = 500  # how many chains the caller will ask for (for max_share)


@dataclass
class TopologySampler:
    graph: ToolGraph
    seed: int = 0
    config: SamplerConfig = field(default_factory=SamplerConfig)

    def __post_init__(self) -> None:
        self.rng = random.Random(f"topology:{self.seed}")
        self.goal_counts: Counter[str] = Counter()
        self.structures: Counter[str] = Counter()
        self._second_goal = False
        # The graph's lookups, as the sampler reads them (the graph does not change): a
        # tool's parameters, and per parameter node its producers and those that are reads.
        self._params: dict[str, tuple[Param, ...]] = {}
        self._producers: dict[str, tuple[tuple[Producer, ...], tuple[Producer, ...]]] = {}

    def sample(self, goal: str | None = None) -> Chain | None:
        """One chain, or None when this draw could not satisfy the constraints. With
        ``goal`` (a tool node id) the chain serves that tool and nothing else is woven in:
        the caller composes goals itself."""
        rng, cfg = self.rng, self.config
        if goal is not None:
            steps: list[Step] = []
            if not self._satisfy(goal, steps, (), goal=True):
                return None
            if rng.random() < cfg.extend_prob:
                self._extend(steps)
            return Chain(tuple(steps), "topology")
        tools = self.graph.tools()
        writes = [t for t in tools if self.graph.effect(t) == "write"]
        # A read goal must leave the user something to be told (declared claims); otherwise
        # an agent that does nothing could not be told apart from one that did the task.
        reads = [t for t in tools if self.graph.effect(t) == "read" and self.graph.claims(t)]
        pool = writes if writes and (rng.random() < cfg.write_ratio or not reads) else reads
        # Prefer goals used least so far: every tool gets its turn.
        weights = [1.0 / (1 + self.goal_counts[t]) for t in pool]
        goal = rng.choices(pool, weights)[0]
        steps = []
        if not self._satisfy(goal, steps, (), goal=True):
            return None
        if rng.random() < cfg.second_goal_prob and writes:
            second = rng.choice(writes)
            if second not in [s.tool for s in steps]:
                trial = list(steps)
                self._second_goal = True
                if self._satisfy(second, trial, (), goal=True):
                    steps = trial
                self._second_goal = False
        if rng.random() < cfg.extend_prob:
            self._extend(steps)
        chain = Chain(tuple(steps), "topology")
        if not cfg.min_length <= len(steps) <= cfg.max_length:
            return None
        cap = max(1, int(cfg.max_share * cfg.expected))
        if self.structures[chain.structure()] >= cap:
            return None
        self.structures[chain.structure()] += 1
        self.goal_counts[goal] += 1
        return chain

    def _satisfy(self, tool: str, steps: list[Step], stack: tuple[str, ...], goal: bool = False) -> bool:
        """Append ``tool`` to ``steps`` after the steps its required parameters need.

        ``stack`` holds the tools being satisfied further up, which cannot be producers
        here (that would be a cycle)."""
        if len(stack) > self.config.max_length:
            return False
        bindings: list[Binding] = []
        bound_entities: set[str] = set()
        params = self._params.get(tool)
        if params is None:
            params = self._params[tool] = tuple(self.graph.params(tool))
        for param in params:
            if not param.required:
                continue
            # A second parameter of an entity already bound in this call (new_item_ids after
            # item_ids) names a different object: it gets its own lookup.
            fresh = param.entity in bound_entities
            binding = self._bind(param, steps, (*stack, tool), fresh=fresh)
            if binding is None:
                return False
            bindings.append(binding)
            if param.entity:
                bound_entities.add(param.entity)
        steps.append(Step(tool, tuple(bindings), goal=goal))
        return len(steps) <= self.config.max_length

    def _bind(
        self, param: Param, steps: list[Step], stack: tuple[str, ...], fresh: bool = False
    ) -> Binding | None:
        producers, read_producers = self._producers_of(param) if param.entity else ((), ())
        # An earlier lookup already yields this entity. Outputs of goals are not reused: a
        # second goal acts on its own object (found by its own lookup), not the first one's.
        existing = None if fresh else _existing(producers, steps, self._second_goal, skip_goals=True)
        if existing is not None:
            return Binding(param.name, "step", existing.step, existing.path)
        if param.user_provided and (not producers or self.rng.random() >= self.config.lookup_prob):
            return Binding(param.name, "user")
        taken = set(stack).union([s.tool for s in steps])
        reads = [p for p in read_producers if p.tool not in taken]
        if not reads:
            return Binding(param.name, "user") if param.user_provided else None
        producer = self.rng.choice(reads)
        if not self._satisfy(producer.tool, steps, stack):
            return None
        return Binding(param.name, "step", len(steps) - 1, producer.path)

    def _producers_of(self, param: Param) -> tuple[tuple[Producer, ...], tuple[Producer, ...]]:
        """``graph.producers(param)``, and those of them that are reads, remembered."""
        found = self._producers.get(param.node)
        if found is None:
            producers = tuple(self.graph.producers(param))
            reads = tuple(p for p in producers if self.graph.effect(p.tool) == "read")
            found = self._producers[param.node] = (producers, reads)
        return found

    def _extend(self, steps: list[Step]) -> None:
        """Append a read step that consumes the goal's output (checking the result)."""
        last = len(steps) - 1
        options = [
            (tool, param, producer)
            for tool, param, producer in self.graph.data_successors(steps[last].tool)
            if self.graph.effect(tool) == "read"
            and tool not in [s.tool for s in steps]
            and not producer.array
        ]
        self.rng.shuffle(options)
        for tool, param, producer in options:
            bindings = []
            for other in self.graph.params(tool):
                if not other.required:
                    continue
                if other.name == param.name:
                    bindings.append(Binding(other.name, "step", last, producer.path))
                    continue
                found = _existing(self.graph.producers(other), steps) if other.entity else None
                if found is None and not other.user_provided:
                    break
                bindings.append(
                    Binding(other.name, "step", found.step, found.path)
                    if found
                    else Binding(other.name, "user")
                )
            else:
                steps.append(Step(tool, tuple(bindings)))
                return


def _existing(
    producers: Sequence[Producer], steps: list[Step], lists_only: bool = False, skip_goals: bool = False
) -> Binding | None:
    """The latest step that yields the entity ``producers`` describe. With ``lists_only``,
    only list outputs count (a second goal picks its own object from a list, not the
    object an earlier step looked up for the first goal); with ``skip_goals``, goal steps
    yield nothing."""
    for index in range(len(steps) - 1, -1, -1):
        step = steps[index]
        if skip_goals and step.goal:
            continue
        for producer in producers:
            if producer.tool == step.tool and (producer.array or not lists_only):
                return Binding("", "step", index, producer.path)
    return None


@dataclass
class RandomWalkSampler:
    """Ablation baseline: a random walk over data and state edges, bindings as they fall."""

    graph: ToolGraph
    seed: int = 0
    config: SamplerConfig = field(default_factory=SamplerConfig)

    def __post_init__(self) -> None:
        self.rng = random.Random(f"random-walk:{self.seed}")

    def sample(self) -> Chain | None:
        rng, cfg = self.rng, self.config
        length = rng.randint(cfg.min_length, cfg.max_length)
        current = rng.choice(self.graph.tools())
        visited = [current]
        while len(visited) < length:
            successors = sorted(
                {b for a, b, _, _ in self.graph.tool_edges() if a == current and b not in visited}
            )
            if not successors:
                break
            current = rng.choice(successors)
            visited.append(current)
        steps: list[Step] = []
        for tool in visited:
            bindings = []
            for param in self.graph.params(tool):
                if not param.required:
                    continue
                found = _existing(self.graph.producers(param), steps) if param.entity else None
                if found is not None:
                    bindings.append(Binding(param.name, "step", found.step, found.path))
                elif param.user_provided:
                    bindings.append(Binding(param.name, "user"))
                else:
                    bindings.append(Binding(param.name, "missing"))
            steps.append(Step(tool, tuple(bindings), goal=tool == visited[-1]))
        return Chain(tuple(steps), "random_walk")
