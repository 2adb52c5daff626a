"""The ``envfactory-mcp`` command: parse flags, build ``Settings``, call one stage function.

One module per group of commands (environments, synth, tasks, runs); importing them registers
the commands on ``app``. Heavy imports (the MCP stack, litellm) happen inside commands,
so ``--help`` stays fast.
"""

from envfactory_mcp.cli import environments, synth, tasks, runs  # noqa: F401, I001 - registers the commands, in help order
from envfactory_mcp.cli import eval as _eval  # noqa: F401 - registers the eval command
from envfactory_mcp.cli.app import app, own_process


def main() -> None:
    own_process()
    app()


__all__ = ["app", "main"]
