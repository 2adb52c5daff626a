"""MCP-Atlas-style evaluation over any set of servers (issues 15, 28).

``sets`` builds the eval set (single-server tasks with the other servers offered as
distractors; ``compose``'s shared-entity chains and ``valueflow``'s value-flow chains
across servers), each a plain task the host plays as it is; ``main`` runs a set through the host's rollout (the one episode loop,
agents, users, records and run store: resumable, ``--retry-failed``, ``view``);
``claims`` reports the answer claim by claim (the reward's claim checker, optionally a
model judge for what it missed); ``taxonomy`` names what went wrong in a failed episode;
``report`` reads the records (terminal, JSON, HTML, two runs side by side); ``standing``
is the versioned standing eval set over the library. ``demo_envs`` holds small linked
environments (crm, billing, shipping and distractors) for tests and the benchmark.
"""

from __future__ import annotations

from envfactory_mcp._exports import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it as True)

if TYPE_CHECKING:
    from envfactory_mcp.eval.compose import EvalTask, read_eval_set, write_eval_set
    from envfactory_mcp.eval.main import EvalConfig, evaluate
    from envfactory_mcp.eval.report import EvalResult, write_results

# Loaded on first use (the host loads the MCP stack only when episodes are played).
_EXPORTS = {
    "EvalConfig": "envfactory_mcp.eval.main",
    "EvalResult": "envfactory_mcp.eval.report",
    "EvalTask": "envfactory_mcp.eval.compose",
    "evaluate": "envfactory_mcp.eval.main",
    "read_eval_set": "envfactory_mcp.eval.compose",
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
    "write_eval_set",
    "write_results",
]
