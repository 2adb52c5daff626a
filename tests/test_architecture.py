"""The package's shape, checked: no import cycle between its parts, nor between the files
of one part (but the known ones listed below, each with its owner).

A *part* is a subpackage of ``envfactory_mcp`` (``scoring``, ``host`` ...) or a top-level
module (``build``, ``catalog`` ...). Every import counts, at module level or inside a
function, ``TYPE_CHECKING`` ones too: a function-level import hides a cycle from Python's
import machinery, not from the design. The package root (``envfactory_mcp/__init__.py``,
the façade of the public API) and ``__main__`` stand above every part and are left out.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import networkx as nx
from paths import ROOT

PACKAGE = "envfactory_mcp"
ABOVE_ALL = {"__init__", "__main__"}  # the façade and the entry point: they may import anything


def _module_name(path: Path, root: Path) -> tuple[str, bool]:
    """Dotted name of a source file, and whether it is a package's ``__init__``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        return ".".join(parts[:-1]), True
    return ".".join(parts), False


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, root: Path) -> list[str]:
    """The modules (of any package) an import statement names, resolved to absolute names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    # ``from pkg import name``: ``name`` is a module when a file or folder says so.
    names = []
    for alias in node.names:
        candidate = root.parent.joinpath(*f"{target}.{alias.name}".split("."))
        if candidate.with_suffix(".py").is_file() or (candidate / "__init__.py").is_file():
            names.append(f"{target}.{alias.name}")
    return names or [target]


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def import_graph(root: Path) -> tuple[nx.DiGraph, dict[tuple[str, str], list[str]]]:
    """The graph of imports between the parts of the package at ``root``, and where each
    edge comes from (``path:line``)."""
    package = root.name
    graph: nx.DiGraph = nx.DiGraph()
    sites: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        module, is_package = _module_name(path, root)
        source = _part(module)
        if source in ABOVE_ALL:
            continue
        graph.add_node(source)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _imported(node, module, is_package, root):
                if target != package and not target.startswith(f"{package}."):
                    continue
                part = _part(target)
                if part != source and part not in ABOVE_ALL:
                    graph.add_edge(source, part)
                    sites[(source, part)].append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return graph, sites


def cycles(root: Path) -> list[str]:
    """One line per import cycle between parts, each edge with the imports that make it."""
    graph, sites = import_graph(root)
    found = []
    for cycle in sorted(nx.simple_cycles(graph), key=lambda c: (len(c), c)):
        edges = zip(cycle, [*cycle[1:], cycle[0]], strict=True)
        found.append(
            " -> ".join(f"{a} ({', '.join(sites[(a, b)][:3])})" for a, b in edges) + f" -> {cycle[0]}"
        )
    return found


def file_graphs(root: Path) -> tuple[dict[str, nx.DiGraph], dict[tuple[str, str], list[str]]]:
    """For each part that is a folder, the graph of imports between its files (dotted names
    under the part, ``openapi.importer``), and where each edge comes from. A package's
    ``__init__`` is its façade, as the root's is for the parts: not a node; an import of a
    package (``from envfactory_mcp.crud import Thing``) is an import of its façade."""
    package = root.name
    graphs: dict[str, nx.DiGraph] = defaultdict(nx.DiGraph)
    sites: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        module, is_package = _module_name(path, root)
        part = _part(module)
        if is_package or part in ABOVE_ALL or module.count(".") < 2:
            continue
        source = module.split(".", 2)[2]
        graphs[part].add_node(source)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for target in _imported(node, module, is_package, root):
                parts = target.split(".")
                if parts[0] != package or len(parts) < 3 or parts[1] != part:
                    continue
                if not root.parent.joinpath(*parts).with_suffix(".py").is_file():
                    continue  # a package's façade, or a name that is no module
                name = ".".join(parts[2:])
                if name != source:
                    graphs[part].add_edge(source, name)
                    sites[(f"{part}.{source}", f"{part}.{name}")].append(
                        f"{path.relative_to(root.parent)}:{node.lineno}"
                    )
    return dict(graphs), sites


def file_cycles(root: Path) -> dict[frozenset[str], str]:
    """Each import cycle between the files of one part: its files (``part.module``) and a
    line naming each edge with the imports that make it."""
    graphs, sites = file_graphs(root)
    found = {}
    for part, graph in sorted(graphs.items()):
        for cycle in sorted(nx.simple_cycles(graph), key=lambda c: (len(c), c)):
            names = [f"{part}.{name}" for name in cycle]
            edges = zip(names, [*names[1:], names[0]], strict=True)
            found[frozenset(names)] = (
                " -> ".join(f"{a} ({', '.join(sites[(a, b)][:3])})" for a, b in edges) + f" -> {names[0]}"
            )
    return found


# Cycles between the files of one part that stand today, each with the issue whose helper
# is taking it apart. Any other cycle fails the test, and so does one of these once gone
# (then take it off the list).
KNOWN_FILE_CYCLES: dict[frozenset[str], str] = {}


def test_no_import_cycle_between_the_files_of_a_part() -> None:
    found = file_cycles(ROOT / PACKAGE)
    new = [line for files, line in found.items() if files not in KNOWN_FILE_CYCLES]
    assert not new, f"{len(new)} import cycle(s) between the files of a part:\n" + "\n".join(new[:20])
    gone = [sorted(files) for files in KNOWN_FILE_CYCLES if files not in found]
    assert not gone, f"known cycles no longer there (take them off KNOWN_FILE_CYCLES): {gone}"


def test_the_file_graph_sees_cycles_inside_a_part_and_not_through_facades(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "part" / "deep").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "part" / "__init__.py").write_text("from pkg.part.a import thing\n")  # the façade
    (root / "part" / "deep" / "__init__.py").write_text("")
    (root / "part" / "a.py").write_text("from pkg.part import deep\nfrom .deep import b\nthing = 1\n")
    (root / "part" / "deep" / "b.py").write_text("def late():\n    from .. import a\n")
    (root / "part" / "c.py").write_text("from pkg.part import thing\n")  # through the façade: no edge
    (root / "other.py").write_text("from pkg.part import a\n")  # between parts: the other test's
    graphs, sites = file_graphs(root)
    assert set(graphs) == {"part"}
    assert set(graphs["part"].edges) == {("a", "deep.b"), ("deep.b", "a")}
    assert sites[("part.deep.b", "part.a")] == ["pkg/part/deep/b.py:2"]
    assert list(file_cycles(root)) == [frozenset({"part.a", "part.deep.b"})]
    (root / "part" / "deep" / "b.py").write_text("import json\n")
    assert file_cycles(root) == {}


def test_no_import_cycle_between_parts() -> None:
    found = cycles(ROOT / PACKAGE)
    assert not found, f"{len(found)} import cycle(s) between parts of {PACKAGE}:\n" + "\n".join(found[:20])


def test_the_graph_sees_imports_of_every_kind(tmp_path: Path) -> None:
    """A cycle made of a module-level import, a relative import inside a function and a
    ``from package import module`` is found, with the line of each."""
    root = tmp_path / "pkg"
    for folder in ("low", "high", "mid"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text("from pkg.high import thing\n")  # the façade: not an edge
    (root / "low" / "model.py").write_text("import json\n\n\ndef late():\n    from ..high import thing\n")
    (root / "high" / "thing.py").write_text("from pkg.mid import tools\n")
    (root / "mid" / "tools.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.low.model\n"
    )
    graph, sites = import_graph(root)
    assert set(graph.edges) == {("low", "high"), ("high", "mid"), ("mid", "low")}
    assert sites[("low", "high")] == ["pkg/low/model.py:5"]
    assert sites[("mid", "low")] == ["pkg/mid/tools.py:3"]
    assert len(cycles(root)) == 1
    (root / "low" / "model.py").write_text("import json\n")
    assert cycles(root) == []


def test_the_real_graph_has_the_known_layers() -> None:
    """The graph of the real package is not empty: the command line sits on the host, the
    host on scoring, scoring on the records."""
    graph, _ = import_graph(ROOT / PACKAGE)
    for edge in (("cli", "host"), ("host", "scoring"), ("scoring", "records"), ("trajectories", "records")):
        assert edge in graph.edges, edge
