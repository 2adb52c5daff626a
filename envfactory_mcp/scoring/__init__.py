"""Scoring: gold replay, rewards from final state, claims and actions (values compared by
meaning: ``words.py`` the language, ``meaning.py`` a value's kind and words, ``said.py`` what
a text states, ``free_text.py`` free text and diffs, ``claims.py`` what the agent told); grounding and policy
checks; scoring a record and re-scoring a run; pass^k and run summaries.

(``rescore``, which re-scores a run directory in place, is ``scoring.rescore.rescore``,
and ``envfactory_mcp.rescore``: here the name is its module's.)
"""

from envfactory_mcp.scoring.claims import claims_communicated
from envfactory_mcp.scoring.gold import GoldCache, GoldServer
from envfactory_mcp.scoring.grounding import UngroundedValue, ungrounded_calls
from envfactory_mcp.scoring.passk import harness_failures, pass_at_k, pass_hat_k, run_summary, summarize
from envfactory_mcp.scoring.policy import policy_violations
from envfactory_mcp.scoring.rescore import score_record
from envfactory_mcp.scoring.reward import (
    REWARD_VERSION,
    action_match,
    reward_from,
    score_episode,
    trace_state_reward,
)

__all__ = [
    "REWARD_VERSION",
    "GoldCache",
    "GoldServer",
    "UngroundedValue",
    "action_match",
    "claims_communicated",
    "harness_failures",
    "pass_at_k",
    "pass_hat_k",
    "policy_violations",
    "reward_from",
    "run_summary",
    "score_episode",
    "score_record",
    "summarize",
    "trace_state_reward",
    "ungrounded_calls",
]
