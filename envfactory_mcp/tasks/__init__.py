"""Task synthesis: oracle execution of sampled chains, user scenarios, calibration, statistics."""

from __future__ import annotations

from envfactory_mcp._exports import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it as True)

if TYPE_CHECKING:
    from envfactory_mcp.tasks.generate import GenerationReport, generate_tasks
    from envfactory_mcp.tasks.model import Claim, GoldAction, Task, TaskFileError, read_tasks, write_tasks
    from envfactory_mcp.tasks.stats import task_stats

# Loaded on first use (the task model is read by stages that never generate tasks).
_EXPORTS = {
    "Claim": "envfactory_mcp.tasks.model",
    "GenerationReport": "envfactory_mcp.tasks.generate",
    "GoldAction": "envfactory_mcp.tasks.model",
    "Task": "envfactory_mcp.tasks.model",
    "TaskFileError": "envfactory_mcp.tasks.model",
    "generate_tasks": "envfactory_mcp.tasks.generate",
    "read_tasks": "envfactory_mcp.tasks.model",
    "task_stats": "envfactory_mcp.tasks.stats",
    "write_tasks": "envfactory_mcp.tasks.model",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "Claim",
    "GenerationReport",
    "GoldAction",
    "Task",
    "TaskFileError",
    "generate_tasks",
    "read_tasks",
    "task_stats",
    "write_tasks",
]
