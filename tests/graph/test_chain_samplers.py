"""Chain samplers: topology chains are well-formed and diverse; the random walk is the baseline."""

from __future__ import annotations

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.graph import build_graph
from envfactory_mcp.graph.sample import RandomWalkSampler, SamplerConfig, TopologySampler


@pytest.fixture(scope="module")
def graph(retail_env: Environment):
    return build_graph(retail_env.spec)


def draw(sampler, n: int) -> list:
    return [c for c in (sampler.sample() for _ in range(n)) if c is not None]


def test_topology_chains_bind_every_required_parameter(graph):
    for chain in draw(TopologySampler(graph, 3), 400):
        assert len(set(chain.tools)) == len(chain.tools)  # no tool twice, no cycles
        assert chain.steps[-1].goal or chain.steps[-2].goal  # a goal, possibly followed by one check
        for i, step in enumerate(chain.steps):
            params = {p.name: p for p in graph.params(step.tool)}
            required = {name for name, p in params.items() if p.required}
            assert {b.param for b in step.bindings} == required
            for b in step.bindings:
                assert b.source in ("user", "step")
                if b.source == "user":
                    assert params[b.param].user_provided
                else:
                    assert b.step is not None and b.step < i
                    producer = chain.steps[b.step].tool
                    assert any(p.tool == producer for p in graph.producers(params[b.param]))


def test_topology_sampling_is_seeded_and_respects_its_controls(graph):
    first = [c.structure() for c in draw(TopologySampler(graph, 7), 200)]
    assert first == [c.structure() for c in draw(TopologySampler(graph, 7), 200)]
    config = SamplerConfig(min_length=2, max_length=3, write_ratio=1.0, second_goal_prob=0.0, expected=100)
    chains = draw(TopologySampler(graph, 7, config), 300)
    assert chains and all(2 <= len(c.steps) <= 3 for c in chains)
    assert all(graph.effect(next(s.tool for s in c.steps if s.goal)) == "write" for c in chains)
    structures = [c.structure() for c in chains]
    assert max(structures.count(s) for s in structures) <= 5  # max_share 5% of 100


def test_read_goals_need_something_to_tell(graph):
    config = SamplerConfig(write_ratio=0.0, second_goal_prob=0.0)
    goals = {next(s.tool for s in c.steps if s.goal) for c in draw(TopologySampler(graph, 1, config), 200)}
    assert goals and all(graph.claims(g) for g in goals)


def test_the_random_walk_leaves_parameters_missing(graph):
    chains = draw(RandomWalkSampler(graph, 2), 200)
    assert any(b.source == "missing" for c in chains for s in c.steps for b in s.bindings)


def test_no_lookup_reads_a_goal_steps_output(graph):
    """A goal's output is never what another goal or a lookup is bound to (a second goal
    acts on an object of its own, found by its own lookup): only the check step that may
    follow the chain reads the goal's result. Goals served one at a time and woven."""
    chains = draw(TopologySampler(graph, 3), 300)
    woven = TopologySampler(graph, 5, SamplerConfig(second_goal_prob=1.0))
    chains += draw(woven, 300)
    for seed in (0, 1):
        sampler = TopologySampler(graph, seed)
        chains += [c for t in graph.tools() for c in [sampler.sample(goal=t)] if c is not None]
    assert sum(sum(s.goal for s in c.steps) > 1 for c in chains) >= 20  # woven goals among them
    for chain in chains:
        for i, step in enumerate(chain.steps):
            for b in step.bindings:
                if b.source == "step" and chain.steps[b.step].goal:
                    assert i == len(chain.steps) - 1 and not step.goal, chain.structure()
