"""Scoring: rewards from final state, claims and actions; grounding and policy checks;
pass^k and run summaries."""

from envfactory_mcp.scoring.grounding import UngroundedValue, ungrounded_calls
from envfactory_mcp.scoring.passk import pass_at_k, pass_hat_k, summarize
from envfactory_mcp.scoring.policy import policy_violations
from envfactory_mcp.scoring.reward import (
    action_match,
    claims_communicated,
    reward_from,
    score_episode,
    trace_state_reward,
)

__all__ = [
    "UngroundedValue",
    "action_match",
    "claims_communicated",
    "pass_at_k",
    "pass_hat_k",
    "policy_violations",
    "reward_from",
    "score_episode",
    "summarize",
    "trace_state_reward",
    "ungrounded_calls",
]
