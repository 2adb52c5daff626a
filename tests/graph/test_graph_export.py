"""Exports of the retail tool graph: node-link JSON, Graphviz DOT and the self-contained HTML page."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from itertools import pairwise

import networkx as nx
import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.graph import ToolGraph, build_graph
from envfactory_mcp.graph.export import FORMAT, layers, layout, to_dot, to_html, to_json
from envfactory_mcp.spec import EnvSpec, validate_spec

EMAIL = "retail/find_user_id_by_email"
USER = "retail/get_user_details"


@pytest.fixture(scope="module")
def spec() -> EnvSpec:
    return validate_spec(load_blueprint("retail").build_spec(7))


@pytest.fixture(scope="module")
def graph(spec: EnvSpec) -> ToolGraph:
    return build_graph(spec)


# ------------------------------------------------------------------------------------------ JSON


def test_json_round_trips_through_networkx(graph: ToolGraph) -> None:
    back = nx.node_link_graph(json.loads(to_json(graph)), edges="edges")
    assert isinstance(back, nx.MultiDiGraph)
    assert dict(back.nodes(data=True)) == dict(graph.g.nodes(data=True))
    assert sorted(back.edges(keys=True, data=True)) == sorted(graph.g.edges(keys=True, data=True))


def test_json_is_sorted_tagged_and_deterministic(graph: ToolGraph, spec: EnvSpec) -> None:
    text = to_json(graph)
    data = json.loads(text)
    assert data["format"] == FORMAT
    assert data["servers"] == ["retail"]
    assert data["shared_entities"] == []
    ids = [n["id"] for n in data["nodes"]]
    assert ids == sorted(ids)
    ends = [(e["source"], e["target"], e["key"]) for e in data["edges"]]
    assert ends == sorted(ends)
    assert to_json(build_graph(spec)) == text


# ------------------------------------------------------------------------------------------- DOT

_DOT_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|->|[{}\[\];,=]|[A-Za-z_][A-Za-z0-9_.]*|-?\d+(?:\.\d+)?|\S')
_DOT_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*|-?\d+(?:\.\d+)?")
_DOT_KEYWORDS = {"digraph", "subgraph", "graph", "node", "edge"}


class Dot:
    """A strict little reader for the DOT subset the exporter writes; raises on anything else."""

    def __init__(self, text: str) -> None:
        self.tokens = _DOT_TOKEN.findall(text)
        self.i = 0
        self.nodes: dict[str, dict[str, str]] = {}
        self.edges: list[tuple[str, str, dict[str, str]]] = []
        self.clusters: dict[str, set[str]] = {}
        self._take("digraph")
        if self._peek() != "{":
            self._id()
        self._block(None)
        assert self.i == len(self.tokens), f"trailing tokens {self.tokens[self.i :]}"

    def _peek(self) -> str:
        return self.tokens[self.i] if self.i < len(self.tokens) else ""

    def _take(self, expected: str | None = None) -> str:
        token = self._peek()
        assert token, "unexpected end of DOT"
        assert expected is None or token == expected, f"expected {expected!r}, got {token!r}"
        self.i += 1
        return token

    def _id(self) -> str:
        token = self._take()
        if token.startswith('"'):
            return re.sub(r"\\(.)", lambda m: "\n" if m[1] == "n" else m[1], token[1:-1])
        assert _DOT_BARE_ID.fullmatch(token) and token not in _DOT_KEYWORDS, f"bad id {token!r}"
        return token

    def _attrs(self) -> dict[str, str]:
        self._take("[")
        found = {}
        while self._peek() != "]":
            key = self._id()
            self._take("=")
            found[key] = self._id()
            if self._peek() in {",", ";"}:
                self._take()
        self._take("]")
        return found

    def _block(self, cluster: str | None) -> None:
        self._take("{")
        while self._peek() != "}":
            self._statement(cluster)
            if self._peek() == ";":
                self._take(";")
        self._take("}")

    def _statement(self, cluster: str | None) -> None:
        if self._peek() == "subgraph":
            self._take()
            name = self._id()
            self.clusters[name] = set()
            self._block(name)
        elif self._peek() in {"graph", "node", "edge"}:
            self._take()
            self._attrs()
        else:
            first = self._id()
            if self._peek() == "=":
                self._take()
                self._id()
                return
            chain = [first]
            while self._peek() == "->":
                self._take()
                chain.append(self._id())
            attrs = self._attrs() if self._peek() == "[" else {}
            if len(chain) == 1:
                assert first not in self.nodes, f"node {first!r} declared twice"
                self.nodes[first] = attrs
                if cluster is not None:
                    self.clusters[cluster].add(first)
            else:
                self.edges += [(a, b, attrs) for a, b in pairwise(chain)]


def _braces_balance(text: str) -> bool:
    depth = 0
    for char in re.sub(r'"(?:[^"\\]|\\.)*"', "", text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def test_dot_is_well_formed_and_declares_every_node_in_its_server_cluster(graph: ToolGraph) -> None:
    text = to_dot(graph)
    assert _braces_balance(text)
    dot = Dot(text)
    assert set(dot.nodes) == set(graph.g.nodes)
    assert dot.clusters == {"cluster_retail": set(graph.g.nodes)}
    assert all(a in dot.nodes and b in dot.nodes for a, b, _ in dot.edges)
    assert sorted((a, b) for a, b, _ in dot.edges) == sorted((a, b) for a, b in graph.g.edges())


def test_dot_styles_tools_params_and_edges_by_kind(graph: ToolGraph) -> None:
    dot = Dot(to_dot(graph))
    cancel, details = dot.nodes["retail/cancel_pending_order"], dot.nodes[USER]
    assert cancel["shape"] == details["shape"] == "box"
    assert cancel["fillcolor"] != details["fillcolor"]
    email, user_id = dot.nodes[f"{EMAIL}:email"], dot.nodes[f"{USER}:user_id"]
    assert email["shape"] == user_id["shape"] == "ellipse"
    assert email["style"] != user_id["style"]
    assert "user" in user_id["label"].split("\n")[1]

    def edge(a: str, b: str) -> dict[str, str]:
        return next(attrs for u, v, attrs in dot.edges if (u, v) == (a, b))

    assert "label" not in edge(f"{USER}:user_id", USER)
    assert edge(EMAIL, f"{USER}:user_id")["label"] == "user_id"
    state = edge("retail/cancel_pending_order", "retail/get_order_details")
    assert state["style"] == "dashed"
    assert "orders" in state["label"].split(", ")


def test_dot_quotes_ids_with_quotes_and_backslashes(spec: EnvSpec) -> None:
    server = 'we"ird\\srv'
    text = to_dot(build_graph({server: spec}))
    assert _braces_balance(text)
    dot = Dot(text)
    assert f"{server}/get_user_details:user_id" in dot.nodes
    assert list(dot.clusters) == [f"cluster_{server}"]


def test_dot_is_deterministic_and_has_one_cluster_per_server(spec: EnvSpec) -> None:
    graph = build_graph({"a": spec, "b": spec}, shared_entities=["user"])
    text = to_dot(graph)
    assert text == to_dot(build_graph({"a": spec, "b": spec}, shared_entities=["user"]))
    dot = Dot(text)
    assert set(dot.clusters) == {"cluster_a", "cluster_b"}
    assert all(n.startswith("b/") for n in dot.clusters["cluster_b"])
    assert any(a == "a/find_user_id_by_email" and b == "b/get_user_details:user_id" for a, b, _ in dot.edges)


# ---------------------------------------------------------------------------------------- layout


def test_layers_follow_the_shallowest_producers(graph: ToolGraph) -> None:
    depth = layers(graph)
    assert set(depth) == set(graph.tools())
    assert depth[EMAIL] == 0 and depth[USER] == 1
    for tool, k in depth.items():
        needs = [
            min(depth[p.tool] for p in graph.producers(param))
            for param in graph.params(tool)
            if param.required and not param.user_provided and graph.producers(param)
        ]
        assert k == (max(needs) + 1 if needs else 0), tool


def test_layout_puts_producers_left_of_consumers(graph: ToolGraph) -> None:
    pos = layout(graph)
    assert set(pos) == set(graph.g.nodes)
    assert pos[EMAIL][0] < pos[USER][0]
    assert pos[f"{USER}:user_id"][0] == pos[USER][0]
    assert pos[f"{USER}:user_id"][1] > pos[USER][1]


# ------------------------------------------------------------------------------------------ HTML


_VOID = frozenset({"meta", "input", "br", "link", "img", "hr"})


class _Balance(HTMLParser):
    """Checks that every non-void element is closed in order."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()


def _svg(page: str) -> ET.Element:
    match = re.search(r'<svg class="graph".*?</svg>', page, re.DOTALL)
    assert match
    return ET.fromstring(match[0])


def _tool_boxes(svg: ET.Element) -> dict[str, ET.Element]:
    return {g.get("data-tool", ""): g for g in svg.iter("g") if "tool" in g.get("class", "").split()}


def _translate(element: ET.Element) -> tuple[int, int]:
    match = re.fullmatch(r"translate\((-?\d+),(-?\d+)\)", element.get("transform", ""))
    assert match
    return int(match[1]), int(match[2])


def test_html_is_one_deterministic_self_contained_page(graph: ToolGraph) -> None:
    page = to_html(graph, "Retail tools")
    assert page == to_html(graph, "Retail tools")
    assert page.startswith("<!DOCTYPE html>")
    assert "<svg" in page and "<table>" in page
    assert "http://" not in page and "https://" not in page
    assert "<script src" not in page and "<link" not in page and "@import" not in page
    assert all(ref.startswith("url(#") for ref in re.findall(r"url\([^)]*\)", page))
    checker = _Balance()
    checker.feed(page)
    checker.close()
    assert checker.stack == []


def test_html_draws_every_tool_where_layout_puts_it(graph: ToolGraph) -> None:
    page = to_html(graph, "Retail tools")
    svg = _svg(page)
    pos = layout(graph)
    boxes = _tool_boxes(svg)
    assert set(boxes) == set(graph.tools())
    for tool, box in boxes.items():
        assert _translate(box) == pos[tool]
        assert graph.g.nodes[tool]["tool"] in page
        assert graph.effect(tool) in box.get("class", "").split()
    for tool in graph.tools():
        assert f'<tr id="tool-{tool}">' in page


def test_html_boxes_in_one_column_do_not_overlap(graph: ToolGraph) -> None:
    svg = _svg(to_html(graph, "Retail tools"))
    columns: dict[int, list[tuple[int, int]]] = {}
    for box in _tool_boxes(svg).values():
        x, y = _translate(box)
        frame = next(r for r in box.iter("rect") if r.get("class") == "frame")
        columns.setdefault(x, []).append((y, y + int(frame.get("height", "0"))))
    assert len(columns) == max(layers(graph).values()) + 1
    for boxes in columns.values():
        boxes.sort()
        assert all(bottom < next_top for (_, bottom), (next_top, _) in pairwise(boxes))


def test_html_marks_who_fills_each_parameter(graph: ToolGraph) -> None:
    svg = _svg(to_html(graph, "Retail tools"))
    boxes = _tool_boxes(svg)

    def dots(tool: str) -> list[str]:
        return [c.get("class", "") for c in boxes[tool].iter("circle")]

    assert dots(EMAIL) == ["dot user"]
    assert dots(USER) == ["dot tool-made"]
    assert "user" in [t.text for t in boxes[USER].iter("text") if t.get("class") == "entity"]


def test_html_draws_data_and_state_edges_with_hover_titles(graph: ToolGraph) -> None:
    svg = _svg(to_html(graph, "Retail tools"))
    edges = [g for g in svg.iter("g") if "edge" in g.get("class", "").split()]
    data = [
        e
        for e in edges
        if e.get("class") == "edge data" and (e.get("data-src"), e.get("data-dst")) == (EMAIL, USER)
    ]
    assert len(data) == 1
    title = data[0].find("title")
    assert title is not None and title.text is not None and "via user_id" in title.text
    state = [e for e in edges if e.get("class") == "edge state"]
    assert ("retail/cancel_pending_order", "retail/get_order_details") in {
        (e.get("data-src"), e.get("data-dst")) for e in state
    }


def test_html_escapes_spec_text_and_title(spec: EnvSpec) -> None:
    evil = '<script>alert("x")</script> & co'
    first, *rest = spec.tools
    tampered = spec.model_copy(update={"tools": [first.model_copy(update={"intent": evil}), *rest]})
    page = to_html(build_graph(tampered), "<Retail & co>")
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co" in page
    assert "<title>&lt;Retail &amp; co&gt;</title>" in page
    _svg(page)  # still well-formed XML


def test_html_shows_both_servers_and_their_shared_links(spec: EnvSpec) -> None:
    page = to_html(build_graph({"a": spec, "b": spec}, shared_entities=["user"]), "two shops")
    svg = _svg(page)
    assert {"a/get_user_details", "b/get_user_details"} <= set(_tool_boxes(svg))
    links = {(g.get("data-src"), g.get("data-dst")) for g in svg.iter("g") if g.get("class") == "edge data"}
    assert ("a/find_user_id_by_email", "b/get_user_details") in links
