"""Online RL: envfactory environments inside a trainer.

``EnvFactoryEnv`` (``rl.env``) is the plain ``reset`` / ``step`` API any trainer can
drive; ``rl.verifiers_env`` adapts it to the ``verifiers`` library and ``rl.verl`` writes
the configuration, data and reward module verl's multi-turn rollout reads. The adapters
import their libraries lazily (``pip install envfactory-mcp[rl]``).
"""

from envfactory_mcp.rl.env import EnvFactoryEnv, EnvFactoryServers, EnvOptions, agent_turn

__all__ = ["EnvFactoryEnv", "EnvFactoryServers", "EnvOptions", "agent_turn"]
