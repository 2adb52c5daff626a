"""Online RL: envfactory environments inside a trainer.

``EnvFactoryEnv`` (``rl.env``) is the plain ``reset`` / ``step`` API any trainer can
drive; ``rl.verifiers_v1`` (verifiers 0.4) and ``rl.verifiers_env`` (0.2), ``rl.openenv_env``,
``rl.skyrl_env`` and ``rl.art_env`` adapt it to those libraries; ``rl.verl_adapter`` writes
the configuration, data and reward module verl's multi-turn rollout reads, and
``rl.verl_agent_loop`` is the agent loop that puts the simulated user in it. Each adapter
imports its library itself (one extra each; see rl/DESIGN.md).
"""

from envfactory_mcp.rl.env import EnvFactoryEnv, EnvFactoryServers, EnvOptions, agent_turn

__all__ = ["EnvFactoryEnv", "EnvFactoryServers", "EnvOptions", "agent_turn"]
