"""MCP-Atlas-style evaluation across linked servers (issue 15).

``compose`` builds cross-server tasks (a chain whose outputs on one server feed another
server's parameters, per-server gold final states, tools of several servers offered
namespaced ``<server>__<tool>``); ``claims`` scores the answer claim by claim
(deterministic normalisation, optionally a model judge); ``taxonomy`` names what went
wrong in a failed episode; ``runner`` plays episodes and scores them; ``report`` writes
the results table (terminal, JSON, HTML). ``demo_envs`` holds small linked
environments (crm, billing, shipping and distractors) for tests and the benchmark.
"""
