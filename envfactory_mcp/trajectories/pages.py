"""The viewer's pages on disk: one run's pages (``view.render_pages``) or, for several runs,
their comparison (``compare.render_comparison``), each page written atomically."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from envfactory_mcp import files
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.trajectories.compare import render_comparison
from envfactory_mcp.trajectories.view import render_pages


def write_view(run_dir: Path | Sequence[Path], out: Path, failures_only: bool = False) -> Path:
    """Write the pages of ``run_dir`` next to ``out`` (``render_pages`` with ``out``'s
    stem) atomically, or for several run directories their comparison
    (:func:`~envfactory_mcp.trajectories.compare.render_comparison`, each run's own pages
    beside it); returns ``out``, the main page."""
    out = Path(out)
    if not isinstance(run_dir, str | Path):
        dirs = [Path(d) for d in run_dir]
        if not dirs:
            raise EnvFactoryError("no run directory to view")
        if len(dirs) > 1:
            return _write_pages(render_comparison(dirs, out.stem, failures_only), out)
        run_dir = dirs[0]
    return _write_pages(render_pages(run_dir, out.stem, failures_only), out)


def _write_pages(pages: dict[str, str], out: Path) -> Path:
    """Each page beside ``out``, then ``out`` itself, each written atomically."""
    out.parent.mkdir(parents=True, exist_ok=True)
    for name, text in pages.items():
        if name != f"{out.stem}.html":
            files.write_text(out.parent / name, text)
    files.write_text(out, pages[f"{out.stem}.html"])
    return out
