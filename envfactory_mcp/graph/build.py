"""The tool dependency graph, built from spec declarations only (never from tool code).

Nodes (kept as plain dicts; ``ToolGraph.g`` is the same graph as a networkx
``MultiDiGraph``, built on first use, so sampling tasks never imports networkx):

* ``tool`` nodes, id ``"<server>/<tool>"``, with ``server``, ``tool``, ``effect``, ``intent``;
* ``param`` nodes, id ``"<server>/<tool>:<param>"``, with ``entity``, ``user_provided``
  (the user would type it: an email, a zip code, an order number from a receipt) and
  ``required``.

Edges, each with a ``kind``:

* ``input``: param -> its tool;
* ``data``: tool A -> param p of tool B when an output path of A carries the entity type
  p needs (``path`` and ``entity`` on the edge; ``array`` when the path goes through a
  list, so A yields several candidates);
* ``state``: tool A -> tool B when A writes a table B reads (``tables`` on the edge).

Several servers can share one graph: data edges cross servers only for entity types
named in ``shared_entities`` (the same user id means the same person in both).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from envfactory_mcp.spec import EnvSpec

if TYPE_CHECKING:
    import networkx as nx

Edge = tuple[str, str, dict[str, Any]]


@dataclass(frozen=True)
class Producer:
    """An output of ``tool`` that can fill a parameter: the value(s) at ``path``."""

    tool: str  # node id "<server>/<tool>"
    path: str
    entity: str
    array: bool


@dataclass(frozen=True)
class Param:
    node: str
    name: str
    entity: str | None
    user_provided: bool
    required: bool


def tool_id(server: str, tool: str) -> str:
    return f"{server}/{tool}"


def split_tool_id(node: str) -> tuple[str, str]:
    server, _, tool = node.partition("/")
    return server, tool


class ToolGraph:
    """The graph plus the lookups the sampler and the oracle need."""

    def __init__(self, specs: Mapping[str, EnvSpec], shared_entities: Iterable[str] = ()) -> None:
        self.specs = dict(specs)
        self.shared = frozenset(shared_entities)
        self.nodes: dict[str, dict[str, Any]] = {}  # node -> its attributes, in insertion order
        self.edges: list[Edge] = []  # (from, to, attributes), in insertion order
        self._in: dict[str, list[Edge]] = {}
        self._out: dict[str, list[Edge]] = {}
        # Lookups, remembered (the graph does not change once built); callers get copies.
        self._params: dict[str, tuple[Param, ...]] = {}
        self._producers: dict[str, tuple[Producer, ...]] = {}
        self._successors: dict[str, tuple[tuple[str, Param, Producer], ...]] = {}
        for server, spec in self.specs.items():
            for tool in spec.tools:
                node = tool_id(server, tool.name)
                self._add_node(
                    node, kind="tool", server=server, tool=tool.name, effect=tool.effect, intent=tool.intent
                )
                required = set(tool.input_schema.get("required", []))
                for name in tool.input_schema.get("properties", {}):
                    info = tool.params.get(name)
                    pnode = f"{node}:{name}"
                    self._add_node(
                        pnode,
                        kind="param",
                        tool=node,
                        name=name,
                        entity=info.entity if info else None,
                        user_provided=bool(info and info.user_provided),
                        required=name in required,
                    )
                    self._add_edge(pnode, node, kind="input")
        for a_server, a_spec in self.specs.items():
            for a in a_spec.tools:
                a_node = tool_id(a_server, a.name)
                for b_server, b_spec in self.specs.items():
                    for b in b_spec.tools:
                        b_node = tool_id(b_server, b.name)
                        if a_node == b_node:
                            continue
                        self._data_edges(a_server, a_node, a.outputs, b_server, b_node)
                        if a_server == b_server:
                            tables = sorted(set(a.writes) & (set(b.reads) | set(b.writes)))
                            if tables:
                                self._add_edge(a_node, b_node, kind="state", tables=tables)

    def _add_node(self, node: str, **attrs: Any) -> None:
        self.nodes.setdefault(node, {}).update(attrs)

    def _add_edge(self, a: str, b: str, **attrs: Any) -> None:
        edge = (a, b, attrs)
        self.edges.append(edge)
        self._out.setdefault(a, []).append(edge)
        self._in.setdefault(b, []).append(edge)

    @cached_property
    def g(self) -> nx.MultiDiGraph:
        """The graph as a networkx ``MultiDiGraph`` (nodes and edges added in the order
        they were found), for export and inspection."""
        import networkx as nx

        graph: nx.MultiDiGraph = nx.MultiDiGraph()
        for node, attrs in self.nodes.items():
            graph.add_node(node, **attrs)
        for a, b, attrs in self.edges:
            graph.add_edge(a, b, **attrs)
        return graph

    def _data_edges(
        self, a_server: str, a_node: str, outputs: Mapping[str, str], b_server: str, b_node: str
    ) -> None:
        for param in self.params(b_node):
            if param.entity is None:
                continue
            if a_server != b_server and param.entity not in self.shared:
                continue
            for path, entity in outputs.items():
                if entity == param.entity:
                    self._add_edge(
                        a_node, param.node, kind="data", path=path, entity=entity, array="[]" in path
                    )

    # ---------------------------------------------------------------- lookups

    def tools(self) -> list[str]:
        return sorted(n for n, d in self.nodes.items() if d["kind"] == "tool")

    def effect(self, node: str) -> str:
        return str(self.nodes[node]["effect"])

    def claims(self, node: str) -> list[str]:
        """The output paths the tool declares the agent must tell the user."""
        server, name = split_tool_id(node)
        return list(next(t for t in self.specs[server].tools if t.name == name).claims)

    def params(self, node: str) -> list[Param]:
        """The tool's parameters in schema order."""
        cached = self._params.get(node)
        if cached is not None:
            return list(cached)
        server, name = split_tool_id(node)
        tool = next(t for t in self.specs[server].tools if t.name == name)
        found = []
        for pname in tool.input_schema.get("properties", {}):
            d = self.nodes[f"{node}:{pname}"]
            found.append(Param(f"{node}:{pname}", pname, d["entity"], d["user_provided"], d["required"]))
        self._params[node] = tuple(found)
        return found

    def producers(self, param: Param) -> list[Producer]:
        """Tools whose outputs can fill ``param``, sorted for determinism."""
        cached = self._producers.get(param.node)
        if cached is not None:
            return list(cached)
        found = [
            Producer(src, d["path"], d["entity"], d["array"])
            for src, _, d in self._in.get(param.node, [])
            if d["kind"] == "data"
        ]
        found.sort(key=lambda p: (p.tool, p.path))
        self._producers[param.node] = tuple(found)
        return found

    def data_successors(self, node: str) -> list[tuple[str, Param, Producer]]:
        """(tool, its param, how ``node`` fills it) for every data edge out of ``node``."""
        cached = self._successors.get(node)
        if cached is not None:
            return list(cached)
        found = []
        for _, pnode, d in self._out.get(node, []):
            if d["kind"] != "data":
                continue
            target = self.nodes[pnode]["tool"]
            param = next(p for p in self.params(target) if p.node == pnode)
            found.append((target, param, Producer(node, d["path"], d["entity"], d["array"])))
        found.sort(key=lambda t: (t[0], t[1].name, t[2].path))
        self._successors[node] = tuple(found)
        return found

    def tool_edges(self) -> list[tuple[str, str, str, str]]:
        """Tool-to-tool edges (a, b, kind, label): data edges collapsed onto tools, and state edges."""
        found = set()
        for a, b, d in self.edges:
            if d["kind"] == "data":
                found.add((a, self.nodes[b]["tool"], "data", f"{d['path']} -> {self.nodes[b]['name']}"))
            elif d["kind"] == "state":
                found.add((a, b, "state", ", ".join(d["tables"])))
        return sorted(found)


def build_graph(specs: Mapping[str, EnvSpec] | EnvSpec, shared_entities: Iterable[str] = ()) -> ToolGraph:
    """A graph over one spec (served as its own name) or several ``{server: spec}``."""
    if isinstance(specs, EnvSpec):
        specs = {specs.name: specs}
    return ToolGraph(specs, shared_entities)
