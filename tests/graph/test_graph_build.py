"""The tool graph built from the retail spec's declarations, on one server and on two."""

from __future__ import annotations

from typing import Any

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.graph import Param, ToolGraph, build_graph
from envfactory_mcp.spec import EnvSpec, validate_spec


@pytest.fixture(scope="module")
def spec() -> EnvSpec:
    return validate_spec(load_blueprint("retail").build_spec(7))


@pytest.fixture(scope="module")
def graph(spec: EnvSpec) -> ToolGraph:
    return build_graph(spec)


def edges(graph: ToolGraph, u: str, v: str, kind: str) -> list[dict[str, Any]]:
    data = graph.g.get_edge_data(u, v) or {}
    return [d for d in data.values() if d["kind"] == kind]


def param(graph: ToolGraph, tool: str, name: str) -> Param:
    return next(p for p in graph.params(tool) if p.name == name)


def test_one_spec_is_served_under_its_own_name(graph: ToolGraph, spec: EnvSpec) -> None:
    assert set(graph.specs) == {"retail"}
    assert graph.tools() == sorted(f"retail/{t.name}" for t in spec.tools)


def test_every_param_feeds_its_own_tool(graph: ToolGraph) -> None:
    for tool in graph.tools():
        for p in graph.params(tool):
            assert graph.g.nodes[p.node]["tool"] == tool
            assert len(edges(graph, p.node, tool, "input")) == 1


def test_a_user_id_flows_from_the_lookup_into_get_user_details(graph: ToolGraph) -> None:
    found = edges(graph, "retail/find_user_id_by_email", "retail/get_user_details:user_id", "data")
    assert found == [{"kind": "data", "path": "user_id", "entity": "user", "array": False}]


def test_a_users_order_list_fills_cancel_with_several_candidates(graph: ToolGraph) -> None:
    found = edges(graph, "retail/get_user_details", "retail/cancel_pending_order:order_id", "data")
    assert [(d["path"], d["entity"], d["array"]) for d in found] == [("orders[]", "order", True)]


def test_cancelling_changes_the_orders_that_get_order_details_reads(graph: ToolGraph) -> None:
    found = edges(graph, "retail/cancel_pending_order", "retail/get_order_details", "state")
    assert len(found) == 1
    assert "orders" in found[0]["tables"]


def test_no_data_edge_enters_a_param_without_entity(graph: ToolGraph) -> None:
    for _, target, d in graph.g.edges(data=True):
        if d["kind"] == "data":
            assert graph.g.nodes[target]["kind"] == "param"
            assert graph.g.nodes[target]["entity"] is not None
            assert graph.g.nodes[target]["entity"] == d["entity"]


def test_both_user_lookups_produce_the_user_id_of_get_user_details(graph: ToolGraph) -> None:
    producers = graph.producers(param(graph, "retail/get_user_details", "user_id"))
    tools = [p.tool for p in producers]
    assert {"retail/find_user_id_by_email", "retail/find_user_id_by_name_zip"} <= set(tools)
    assert producers == sorted(producers, key=lambda p: (p.tool, p.path))


def test_tool_edges_collapse_data_edges_onto_tools(graph: ToolGraph) -> None:
    collapsed = graph.tool_edges()
    assert (
        "retail/find_user_id_by_email",
        "retail/get_user_details",
        "data",
        "user_id -> user_id",
    ) in collapsed
    assert all(kind in {"data", "state"} for _, _, kind, _ in collapsed)


def cross_server(graph: ToolGraph) -> list[tuple[str, str, dict[str, Any]]]:
    def server(node: str) -> str:
        return node.partition("/")[0]

    return [(u, v, d) for u, v, d in graph.g.edges(data=True) if server(u) != server(v)]


def test_two_servers_do_not_share_ids_by_default(spec: EnvSpec) -> None:
    graph = build_graph({"a": spec, "b": spec})
    assert len(graph.tools()) == 2 * len(spec.tools)
    assert cross_server(graph) == []


def test_shared_user_entity_links_a_lookup_on_one_server_to_the_other(spec: EnvSpec) -> None:
    graph = build_graph({"a": spec, "b": spec}, shared_entities=["user"])
    assert edges(graph, "a/find_user_id_by_email", "b/get_user_details:user_id", "data")
    crossing = cross_server(graph)
    assert crossing
    assert {(d["kind"], d["entity"]) for _, _, d in crossing} == {("data", "user")}
