"""Scoring: rewards from final state, claims and actions; pass^k and run summaries."""
