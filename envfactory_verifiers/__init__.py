"""The verifiers 0.4 plugin's id as a module of its own: ``envfactory_verifiers``.

verifiers 0.4 finds a taskset (and its env and harness) by importing its id as a
top-level module, so a fresh process (verifiers' CLI, a trainer's config naming
``envfactory_verifiers``) finds the plugin without importing anything of ours first. It is
``envfactory_mcp.rl.verifiers_v1``, re-exported (the same classes, whichever is imported
first); it needs verifiers 0.4 (``pip install 'envfactory-mcp[verifiers]'``).
"""

from envfactory_mcp.rl.verifiers_v1 import (
    EnvFactoryHarness,
    EnvFactoryTaskset,
    EnvFactoryVerifiersEnv,
    load_environment,
)

__all__ = ["EnvFactoryHarness", "EnvFactoryTaskset", "EnvFactoryVerifiersEnv", "load_environment"]
