"""Trajectories: what a run becomes, read from its run directory (``envfactory_mcp.records``).

``export``
    The episodes that reached a reward bar as training data (OpenAI fine-tuning, TRL,
    LLaMA-Factory sharegpt, verl).
``view``
    The run as a static HTML report.
``language``
    Whether the episodes' language is worth imitating (issue 26's figures; imported on its own).
"""

from envfactory_mcp.trajectories.export import FORMATS, ExportStats, export_records, export_run
from envfactory_mcp.trajectories.pages import write_view
from envfactory_mcp.trajectories.view import render_run

__all__ = ["FORMATS", "ExportStats", "export_records", "export_run", "render_run", "write_view"]
