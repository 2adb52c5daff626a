"""Scoring: rewards from final state, claims and actions; pass^k and run summaries."""

from envfactory_mcp.scoring.passk import pass_at_k, pass_hat_k, summarize
from envfactory_mcp.scoring.reward import (
    action_match,
    claims_communicated,
    reward_from,
    score_episode,
    trace_state_reward,
)

__all__ = [
    "action_match",
    "claims_communicated",
    "pass_at_k",
    "pass_hat_k",
    "reward_from",
    "score_episode",
    "summarize",
    "trace_state_reward",
]
