"""MCP-Atlas-style evaluation across linked servers (issue 15).

``compose`` builds cross-server tasks (a chain whose outputs on one server feed another
server's parameters, per-server gold final states, tools of several servers offered
namespaced ``<server>__<tool>``); ``claims`` scores the answer claim by claim
(deterministic normalisation, optionally a model judge); ``taxonomy`` names what went
wrong in a failed episode; ``runner`` plays episodes and scores them; ``report`` writes
the results table (terminal, JSON, HTML). ``demo_envs`` holds small linked
environments (crm, billing, shipping and distractors) for tests and the benchmark.
"""

from __future__ import annotations

from envfactory_mcp._exports import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it as True)

if TYPE_CHECKING:
    from envfactory_mcp.eval.compose import EvalTask, read_eval_set, write_eval_set
    from envfactory_mcp.eval.main import EvalConfig, evaluate
    from envfactory_mcp.eval.report import write_results
    from envfactory_mcp.eval.runner import EvalResult, run_eval

# Loaded on first use (the runner loads the MCP stack only for served transports).
_EXPORTS = {
    "EvalConfig": "envfactory_mcp.eval.main",
    "EvalResult": "envfactory_mcp.eval.runner",
    "EvalTask": "envfactory_mcp.eval.compose",
    "evaluate": "envfactory_mcp.eval.main",
    "read_eval_set": "envfactory_mcp.eval.compose",
    "run_eval": "envfactory_mcp.eval.runner",
    "write_eval_set": "envfactory_mcp.eval.compose",
    "write_results": "envfactory_mcp.eval.report",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "EvalConfig",
    "EvalResult",
    "EvalTask",
    "evaluate",
    "read_eval_set",
    "run_eval",
    "write_eval_set",
    "write_results",
]
