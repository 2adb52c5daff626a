"""Trajectories: the record of one episode, the run directory that stores them, exports."""

from envfactory_mcp.trajectories.record import EXCLUDED_TERMINATIONS, RewardParts, TrajectoryRecord
from envfactory_mcp.trajectories.store import MetadataMismatch, RunStore, RunStoreError

__all__ = [
    "EXCLUDED_TERMINATIONS",
    "MetadataMismatch",
    "RewardParts",
    "RunStore",
    "RunStoreError",
    "TrajectoryRecord",
]
