"""Exports of a :class:`ToolGraph` for people and other tools, as pure functions returning text.

* :func:`to_json`: networkx node-link data, sorted, with the servers and a format tag;
* :func:`to_dot`: Graphviz DOT, one cluster per server (written by hand, no Graphviz bindings);
* :func:`to_html`: one self-contained page: an SVG drawing laid out in Python by
  data-dependency depth (:func:`layers`, :func:`layout`) and a table of every tool.

Every output is deterministic: the same graph always gives the same text.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from typing import Any

import networkx as nx

from envfactory_mcp.graph.build import Param, ToolGraph, split_tool_id
from envfactory_mcp.spec import ToolSpec

FORMAT = "envfactory-tool-graph/1"

# ------------------------------------------------------------------------------------------ JSON


def to_json(graph: ToolGraph) -> str:
    """Node-link JSON (``nx.node_link_graph(data, edges="edges")`` reads it back)."""
    data: dict[str, Any] = nx.node_link_data(graph.g, edges="edges")
    data["nodes"] = sorted(data["nodes"], key=lambda n: n["id"])
    data["edges"] = sorted(data["edges"], key=lambda e: (e["source"], e["target"], e["key"]))
    data["format"] = FORMAT
    data["servers"] = sorted(graph.specs)
    data["shared_entities"] = sorted(graph.shared)
    return json.dumps(data, indent=2, sort_keys=True)


# ------------------------------------------------------------------------------------------- DOT

_READ_FILL, _WRITE_FILL = "#dbeafe", "#fee2e2"
_READ_INK, _WRITE_INK = "#2563eb", "#dc2626"
_DATA_INK, _STATE_INK, _INPUT_INK = "#2563eb", "#d97706", "#9ca3af"


def _dot_str(text: str) -> str:
    """A DOT quoted string; newlines become DOT's ``\\n`` line breaks."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _dot_attrs(**attrs: str) -> str:
    return "[" + ", ".join(f"{key}={_dot_str(value)}" for key, value in attrs.items()) + "]"


def _param_caption(name: str, required: bool, entity: str | None) -> str:
    caption = name if required else f"{name}?"
    return f"{caption}\n[{entity}]" if entity else caption


def to_dot(graph: ToolGraph) -> str:
    """Graphviz DOT: a cluster per server, tools as boxes, parameters as small ellipses.

    Write tools are filled red, read tools blue; user-provided parameters are dashed. Edges:
    ``input`` (param -> tool, grey), ``data`` (tool -> param, blue, labelled with the output
    path) and ``state`` (tool -> tool, dashed amber, labelled with the tables; they do not
    constrain the ranking).
    """
    g = graph.g
    lines = [
        'digraph "tool_graph" {',
        '  graph [rankdir="LR", fontname="Helvetica", fontsize="11", ranksep="1.2", nodesep="0.15"];',
        '  node [fontname="Helvetica", fontsize="10"];',
        '  edge [fontname="Helvetica", fontsize="8", arrowsize="0.6"];',
    ]
    for server in sorted(graph.specs):
        lines.append(f"  subgraph {_dot_str('cluster_' + server)} {{")
        lines.append(f"    label={_dot_str(server)};")
        lines.append('    style="rounded";')
        for tool in (t for t in graph.tools() if split_tool_id(t)[0] == server):
            write = graph.effect(tool) == "write"
            attrs = _dot_attrs(
                shape="box",
                style="rounded,filled",
                fillcolor=_WRITE_FILL if write else _READ_FILL,
                color=_WRITE_INK if write else _READ_INK,
                label=f"{g.nodes[tool]['tool']}\n({graph.effect(tool)})",
            )
            lines.append(f"    {_dot_str(tool)} {attrs};")
            for param in graph.params(tool):
                attrs = _dot_attrs(
                    shape="ellipse",
                    fontsize="9",
                    height="0.3",
                    style="dashed" if param.user_provided else "solid",
                    label=_param_caption(param.name, param.required, param.entity),
                )
                lines.append(f"    {_dot_str(param.node)} {attrs};")
        lines.append("  }")
    for u, v, _, d in sorted(g.edges(keys=True, data=True), key=lambda e: (e[0], e[1], e[2])):
        if d["kind"] == "input":
            attrs = _dot_attrs(color=_INPUT_INK)
        elif d["kind"] == "data":
            attrs = _dot_attrs(color=_DATA_INK, fontcolor=_DATA_INK, label=d["path"])
        else:
            attrs = _dot_attrs(
                style="dashed",
                color=_STATE_INK,
                fontcolor=_STATE_INK,
                constraint="false",
                label=", ".join(d["tables"]),
            )
        lines.append(f"  {_dot_str(u)} -> {_dot_str(v)} {attrs};")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------- layout

BOX_W = 320  # tool box width
HEADER_H = 40  # tool name and intent lines
ROW_H = 18  # one parameter row
PAD = 6  # above and below the parameter rows
COL_GAP = 170  # between depth columns
BOX_GAP = 22  # between boxes in a column
MARGIN = 24
TOP = 56  # room for the column captions
LOOP = 90  # how far edges to the same or an earlier column swing out
SIDE = MARGIN + LOOP // 2  # left and right margin: room for those swings


def _needs_a_tool(graph: ToolGraph, param: Param) -> bool:
    """True when the parameter is required, the user would not know it, and some tool outputs it."""
    return param.required and not param.user_provided and bool(graph.producers(param))


def layers(graph: ToolGraph) -> dict[str, int]:
    """Each tool's data-dependency depth: how many rounds of calls must come before it.

    Depth 0 tools need nothing a tool provides (every required parameter is user-provided or
    has no producer). Otherwise a tool's depth is one more than the deepest of its needs, each
    need met by its shallowest producer. This is computed in rounds, so the many data cycles
    (write tools return the orders the read tools take) cannot push a tool deeper. Tools
    whose needs are never met sit in one last layer.
    """
    needs = {
        tool: [
            {p.tool for p in graph.producers(param)}
            for param in graph.params(tool)
            if _needs_a_tool(graph, param)
        ]
        for tool in graph.tools()
    }
    depth: dict[str, int] = {}
    level = 0
    while True:
        done = set(depth)
        ready = [t for t, sets in needs.items() if t not in done and all(s & done for s in sets)]
        if not ready:
            break
        depth.update((t, level) for t in ready)
        level += 1
    return {tool: depth.get(tool, level) for tool in needs}


def _data_digraph(graph: ToolGraph) -> nx.DiGraph[str]:
    """Tool-level data dependencies: producer -> consumer, whatever the parameter."""
    dg: nx.DiGraph[str] = nx.DiGraph()
    dg.add_nodes_from(graph.tools())
    dg.add_edges_from((a, b) for a, b, kind, _ in graph.tool_edges() if kind == "data")
    return dg


def _column_x(k: int) -> int:
    return SIDE + k * (BOX_W + COL_GAP)


def _box_height(graph: ToolGraph, tool: str) -> int:
    return HEADER_H + 2 * PAD + max(1, len(graph.params(tool))) * ROW_H


def _row_y(index: int) -> int:
    """Vertical middle of parameter row ``index``, relative to the top of its box."""
    return HEADER_H + PAD + index * ROW_H + ROW_H // 2


def layout(graph: ToolGraph) -> dict[str, tuple[int, int]]:
    """Drawing coordinates: a tool's box top-left corner; a parameter's row anchor on the box's left edge.

    Columns are :func:`layers` depths, left to right. Within a column tools are stacked by
    server, then tools with data edges before isolated ones, then by the mean height of
    their producers in earlier columns (fewer crossings), then by name.
    """
    depth = layers(graph)
    dg = _data_digraph(graph)
    columns: dict[int, list[str]] = defaultdict(list)
    for tool, k in depth.items():
        columns[k].append(tool)
    pos: dict[str, tuple[int, int]] = {}
    centre: dict[str, float] = {}
    for k in sorted(columns):

        def order(tool: str, k: int = k) -> tuple[str, bool, float, str]:
            earlier = [centre[p] for p in dg.predecessors(tool) if depth[p] < k]
            server, name = split_tool_id(tool)
            return server, dg.degree(tool) == 0, sum(earlier) / len(earlier) if earlier else 0.0, name

        x, y = _column_x(k), TOP
        for tool in sorted(columns[k], key=order):
            pos[tool] = (x, y)
            height = _box_height(graph, tool)
            centre[tool] = y + height / 2
            for i, param in enumerate(graph.params(tool)):
                pos[param.node] = (x, y + _row_y(i))
            y += height + BOX_GAP
    return pos


# ------------------------------------------------------------------------------------------ HTML

_E = html.escape

_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2937; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; }
.summary { color: #4b5563; margin: 0 0 12px; }
input + label { margin-right: 14px; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 22px; list-style: none; padding: 0; margin: 10px 0 14px;
  font-size: 13px; color: #374151; }
.legend svg { vertical-align: middle; margin-right: 6px; }
.drawing { overflow: auto; border: 1px solid #e5e7eb; border-radius: 8px; background: #f9fafb; }
svg.graph text { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
.caption { font-size: 13px; font-weight: 600; fill: #374151; }
.caption-sub { font-size: 11px; fill: #6b7280; }
.tool .frame { fill: none; stroke-width: 1.5; }
.tool.read .frame { stroke: #2563eb; } .tool.write .frame { stroke: #dc2626; }
.tool.read .head { fill: #dbeafe; } .tool.write .head { fill: #fee2e2; }
.tool.read .badge { fill: #2563eb; } .tool.write .badge { fill: #dc2626; }
.tool .body { fill: #ffffff; }
.tool:hover .frame { stroke-width: 3; }
.name { font-size: 13px; font-weight: 600; fill: #111827; }
.intent { font-size: 11px; fill: #4b5563; }
.badge-text { font-size: 10px; font-weight: 600; fill: #ffffff; }
.param { font-size: 12px; fill: #1f2937; } .param.optional { fill: #6b7280; }
.entity { font-size: 11px; font-style: italic; fill: #6b7280; }
.none { font-size: 11px; font-style: italic; fill: #9ca3af; }
.dot.user { fill: #16a34a; stroke: #16a34a; }
.dot.tool-made { fill: #ffffff; stroke: #2563eb; stroke-width: 1.5; }
.dot.free { fill: #ffffff; stroke: #9ca3af; stroke-width: 1.5; }
.edge path { fill: none; stroke-width: 1.3; stroke-opacity: 0.4; }
.edge.data path { stroke: #2563eb; }
.edge.state path { stroke: #d97706; stroke-dasharray: 6 4; }
svg.focus .edge { opacity: 0.07; }
svg.focus .edge.hot { opacity: 1; }
svg.focus .edge.hot path { stroke-opacity: 1; stroke-width: 2.2; }
#show-data:not(:checked) ~ .drawing .edge.data { display: none; }
#show-state:not(:checked) ~ .drawing .edge.state { display: none; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border: 1px solid #e5e7eb; padding: 6px 8px; text-align: left; vertical-align: top; }
th { background: #f3f4f6; }
tr:target { background: #fef9c3; }
td ul { margin: 0; padding-left: 16px; }
code { font-size: 12px; }
.tag { display: inline-block; border-radius: 8px; padding: 0 6px; font-size: 11px; color: #ffffff; }
.tag.read { background: #2563eb; } .tag.write { background: #dc2626; }
.tag.user { background: #16a34a; } .tag.tool-made { background: #6b7280; }
.muted { color: #6b7280; font-size: 12px; }
"""

# Highlights the edges of the tool under the pointer (and dims the rest).
_JS = """
(function () {
  var svg = document.querySelector("svg.graph");
  var edges = svg.querySelectorAll(".edge");
  svg.querySelectorAll(".tool").forEach(function (box) {
    var id = box.getAttribute("data-tool");
    box.addEventListener("mouseenter", function () {
      svg.classList.add("focus");
      edges.forEach(function (e) {
        var hot = e.getAttribute("data-src") === id || e.getAttribute("data-dst") === id;
        e.classList.toggle("hot", hot);
      });
    });
    box.addEventListener("mouseleave", function () { svg.classList.remove("focus"); });
  });
})();
"""

_LEGEND = [
    ('<rect x="1" y="3" width="26" height="14" rx="3" fill="#dbeafe" stroke="#2563eb"/>', "read tool"),
    ('<rect x="1" y="3" width="26" height="14" rx="3" fill="#fee2e2" stroke="#dc2626"/>', "write tool"),
    ('<circle cx="14" cy="10" r="4" fill="#16a34a"/>', "parameter the user provides (types it)"),
    (
        '<circle cx="14" cy="10" r="4" fill="#ffffff" stroke="#2563eb" stroke-width="1.5"/>',
        "parameter a tool's output must fill",
    ),
    (
        '<circle cx="14" cy="10" r="4" fill="#ffffff" stroke="#9ca3af" stroke-width="1.5"/>',
        "parameter no tool produces",
    ),
    (
        '<path d="M1 10 H24" stroke="#2563eb" stroke-width="1.5"/><path d="M20 6 L27 10 L20 14 z" fill="#2563eb"/>',
        "data: an output fills a parameter (hover for the path)",
    ),
    (
        (
            '<path d="M1 10 H24" stroke="#d97706" stroke-width="1.5" stroke-dasharray="5 3"/>'
            '<path d="M20 6 L27 10 L20 14 z" fill="#d97706"/>'
        ),
        "state: writes a table the other tool reads or writes",
    ),
]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _tool_spec(graph: ToolGraph, tool: str) -> ToolSpec:
    server, name = split_tool_id(tool)
    return next(t for t in graph.specs[server].tools if t.name == name)


def _param_kind(graph: ToolGraph, param: Param) -> str:
    """CSS class of a parameter's marker: ``user``, ``tool-made`` or ``free``."""
    if param.user_provided:
        return "user"
    return "tool-made" if graph.producers(param) else "free"


def _curve(x1: int, y1: int, x2: int, y2: int) -> str:
    """A cubic Bezier leaving rightwards and arriving from the left, looping out when going back."""
    dx = max((x2 - x1) // 2, LOOP)
    return f"M{x1},{y1} C{x1 + dx},{y1} {x2 - dx},{y2} {x2},{y2}"


def _edge(kind: str, src: str, dst: str, d: str, title: str) -> str:
    return (
        f'<g class="edge {kind}" data-src="{_E(src)}" data-dst="{_E(dst)}">'
        f'<title>{_E(title)}</title><path d="{d}" marker-end="url(#arrow-{kind})"/></g>'
    )


def _svg(graph: ToolGraph) -> str:
    """The drawing: column captions, state edges, data edges, then the tool boxes on top."""
    pos = layout(graph)
    depth = layers(graph)
    name = _display_names(graph)
    tools = graph.tools()
    columns = max(depth.values(), default=0) + 1
    width = 2 * SIDE + columns * BOX_W + (columns - 1) * COL_GAP
    height = max((pos[t][1] + _box_height(graph, t) for t in tools), default=TOP) + MARGIN
    out = [
        (
            f'<svg class="graph" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'role="img" aria-label="tool dependency graph">'
        ),
        "<defs>",
    ]
    for kind, colour in (("data", _DATA_INK), ("state", _STATE_INK)):
        out.append(
            f'<marker id="arrow-{kind}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
        )
    out.append("</defs>")
    for k in range(columns):
        x = _column_x(k)
        sub = "needs only what the user provides" if k == 0 else f"needs outputs of depth < {k}"
        out.append(f'<text class="caption" x="{x}" y="{MARGIN + 6}">depth {k}</text>')
        out.append(f'<text class="caption-sub" x="{x}" y="{MARGIN + 22}">{_E(sub)}</text>')
    for a, b, d in sorted(graph.g.edges(data=True), key=lambda e: (e[0], e[1])):
        if d["kind"] != "state":
            continue
        (ax, ay), (bx, by) = pos[a], pos[b]
        title = f"{name[a]} changes {', '.join(d['tables'])} that {name[b]} uses"
        out.append(
            _edge("state", a, b, _curve(ax + BOX_W, ay + HEADER_H // 2, bx, by + HEADER_H // 2), title)
        )
    paths: dict[tuple[str, str], list[str]] = defaultdict(list)
    for a, pnode, d in graph.g.edges(data=True):
        if d["kind"] == "data":
            paths[(a, pnode)].append(d["path"] + (" (a list: several candidates)" if d["array"] else ""))
    for (a, pnode), found in sorted(paths.items()):
        b = graph.g.nodes[pnode]["tool"]
        (ax, ay), (px, py) = pos[a], pos[pnode]
        title = f"{name[a]} \u2192 {name[b]}.{graph.g.nodes[pnode]['name']} via {', '.join(sorted(found))}"
        out.append(_edge("data", a, b, _curve(ax + BOX_W, ay + HEADER_H // 2, px, py), title))
    for tool in tools:
        out.append(_tool_box(graph, tool, pos[tool]))
    out.append("</svg>")
    return "\n".join(out)


def _tool_box(graph: ToolGraph, tool: str, at: tuple[int, int]) -> str:
    """A box: tool name, effect badge, intent (after the server when there are several), parameter rows."""
    spec = _tool_spec(graph, tool)
    server = split_tool_id(tool)[0]
    effect = graph.effect(tool)
    h = _box_height(graph, tool)
    subtitle = spec.intent if len(graph.specs) == 1 else f"{server} \u00b7 {spec.intent}"
    out = [
        f'<g class="tool {effect}" data-tool="{_E(tool)}" transform="translate({at[0]},{at[1]})">',
        f"<title>{_E(tool)} ({effect}): {_E(spec.intent)}</title>",
        f'<a href="#{_E(_row_id(tool))}">',
        f'<rect class="head" width="{BOX_W}" height="{h}" rx="6"/>',
        f'<rect class="body" x="1" y="{HEADER_H}" width="{BOX_W - 2}" height="{h - HEADER_H - 1}"/>',
        f'<rect class="frame" width="{BOX_W}" height="{h}" rx="6"/>',
        f'<text class="name" x="10" y="17">{_E(_clip(spec.name, 32))}</text>',
        f'<text class="intent" x="10" y="32">{_E(_clip(subtitle, 52))}</text>',
        f'<rect class="badge" x="{BOX_W - 54}" y="8" width="44" height="16" rx="8"/>',
        f'<text class="badge-text" x="{BOX_W - 32}" y="20" text-anchor="middle">{effect}</text>',
    ]
    params = graph.params(tool)
    for i, param in enumerate(params):
        y = _row_y(i)
        optional = "" if param.required else " optional"
        label = param.name if param.required else f"{param.name} (optional)"
        out.append(f'<circle class="dot {_param_kind(graph, param)}" cx="14" cy="{y}" r="4"/>')
        out.append(f'<text class="param{optional}" x="26" y="{y + 4}">{_E(_clip(label, 30))}</text>')
        if param.entity:
            out.append(
                f'<text class="entity" x="{BOX_W - 10}" y="{y + 4}" text-anchor="end">{_E(param.entity)}</text>'
            )
    if not params:
        out.append(f'<text class="none" x="26" y="{_row_y(0) + 4}">no parameters</text>')
    out.append("</a></g>")
    return "\n".join(out)


def _display_names(graph: ToolGraph) -> dict[str, str]:
    """Tool names alone for one server, ``server/tool`` when there are several."""
    if len(graph.specs) == 1:
        return {t: split_tool_id(t)[1] for t in graph.tools()}
    return {t: t for t in graph.tools()}


def _row_id(tool: str) -> str:
    return f"tool-{tool}"


def _bullets(items: list[str]) -> str:
    return f"<ul>{''.join(items)}</ul>" if items else '<span class="muted">none</span>'


def _table(graph: ToolGraph) -> str:
    """One row per tool: depth, effect, tables, parameters (with who fills them) and outputs."""
    depth = layers(graph)
    name = _display_names(graph)
    out = [
        "<table>",
        (
            "<thead><tr><th>Tool</th><th>Depth</th><th>Effect</th><th>Reads</th><th>Writes</th>"
            "<th>Parameters</th><th>Outputs</th></tr></thead>"
        ),
        "<tbody>",
    ]
    for tool in sorted(graph.tools(), key=lambda t: (depth[t], t)):
        spec = _tool_spec(graph, tool)
        params = []
        for param in graph.params(tool):
            kind = _param_kind(graph, param)
            entity = f" <em>{_E(param.entity)}</em>" if param.entity else ""
            optional = "" if param.required else ' <span class="muted">(optional)</span>'
            if kind == "user":
                source = '<span class="tag user">user provides</span>'
            elif kind == "tool-made":
                fillers = sorted({name[p.tool] for p in graph.producers(param)})
                source = f'<span class="tag tool-made">from a tool</span> <span class="muted">{_E(", ".join(fillers))}</span>'
            else:
                source = ""
            params.append(f"<li><code>{_E(param.name)}</code>{entity}{optional} {source}</li>")
        outputs = [
            f"<li><code>{_E(path)}</code> \u2192 <em>{_E(entity)}</em></li>"
            for path, entity in spec.outputs.items()
        ]
        out.append(
            f'<tr id="{_E(_row_id(tool))}"><td><strong>{_E(name[tool])}</strong><br>'
            f'<span class="muted">{_E(spec.intent)}</span></td>'
            f"<td>{depth[tool]}</td>"
            f'<td><span class="tag {spec.effect}">{_E(spec.effect)}</span></td>'
            f"<td>{_E(', '.join(spec.reads))}</td><td>{_E(', '.join(spec.writes))}</td>"
            f"<td>{_bullets(params)}</td><td>{_bullets(outputs)}</td></tr>"
        )
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


def to_html(graph: ToolGraph, title: str) -> str:
    """One self-contained HTML page (inline CSS, SVG and a few lines of JS; nothing fetched).

    The drawing puts tools in columns by :func:`layers` depth, each box listing its
    parameters; data edges run from a producer to the parameter row they fill, state edges
    are dashed. Hovering a box highlights its edges; checkboxes hide either edge kind. A
    table of every tool follows the drawing.
    """
    tools = graph.tools()
    writes = sum(graph.effect(t) == "write" for t in tools)
    kinds = [d["kind"] for _, _, d in graph.g.edges(data=True)]
    shared = ", ".join(sorted(graph.shared)) or "none"
    summary = (
        f"{len(tools)} tools ({len(tools) - writes} read, {writes} write) on "
        f"{len(graph.specs)} server(s): {', '.join(sorted(graph.specs))}; "
        f"{kinds.count('input')} parameters, {kinds.count('data')} data edges, "
        f"{kinds.count('state')} state edges; entity types shared across servers: {shared}."
    )
    legend = "".join(
        f'<li><svg width="28" height="20" aria-hidden="true">{swatch}</svg>{_E(text)}</li>'
        for swatch, text in _LEGEND
    )
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{_E(title)}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            f"<h1>{_E(title)}</h1>",
            f'<p class="summary">{_E(summary)}</p>',
            '<input type="checkbox" id="show-data" checked><label for="show-data">data edges</label>',
            '<input type="checkbox" id="show-state" checked><label for="show-state">state edges</label>',
            f'<ul class="legend">{legend}</ul>',
            (
                '<p class="muted">Depth: how many rounds of calls must come before a tool can be called with '
                "every parameter it cannot get from the user. Hover a tool to highlight its edges, "
                "an edge for what it carries; click a tool for its row in the table.</p>"
            ),
            f'<div class="drawing">{_svg(graph)}</div>',
            "<h2>Tools</h2>",
            _table(graph),
            f"<script>{_JS}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )
