"""Records: the data every later stage reads, at the bottom of the package.

``trajectory``
    The trajectory record, one JSON object per episode (OpenAI chat format, reward and
    its parts, termination, state hashes, usage, timings), and the conventions of its
    messages (``TOOL_ERROR_PREFIX``).
``store``
    The run directory that keeps them: ``metadata.json``, the crash-safe
    ``trajectories.jsonl`` with resume, ``summary.json``.

Records import nothing of envfactory-mcp but ``errors``, so scoring, the host, exports and
the viewer can all stand on them (tau2-bench keeps its data model the same way).
"""

from envfactory_mcp.records.store import MetadataMismatch, RunStore, RunStoreError, read_records
from envfactory_mcp.records.trajectory import (
    EXCLUDED_TERMINATIONS,
    TOOL_ERROR_PREFIX,
    TRAJECTORY_SCHEMA_VERSION,
    Participant,
    RewardParts,
    Termination,
    ToolStats,
    TrajectoryRecord,
    Usage,
)

__all__ = [
    "EXCLUDED_TERMINATIONS",
    "TOOL_ERROR_PREFIX",
    "TRAJECTORY_SCHEMA_VERSION",
    "MetadataMismatch",
    "Participant",
    "RewardParts",
    "RunStore",
    "RunStoreError",
    "Termination",
    "ToolStats",
    "TrajectoryRecord",
    "Usage",
    "read_records",
]
