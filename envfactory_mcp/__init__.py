"""envfactory-mcp: manufacture verified, stateful MCP tool environments for agent training.

Stages live in subpackages named after them (``spec``, ``blueprints``, ``env``, ``emit``,
``runtime``); the command line is ``envfactory_mcp.cli``. Importing this package is cheap:
nothing heavy (litellm, the MCP server stack) loads until a stage needs it.
"""

__version__ = "0.1.0"
