# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Serve any package folder with this runtime: ``python -m <runtime> PACKAGE_DIR [options]``.

``PACKAGE_DIR`` is a package's ``<name>_mcp`` folder (the one holding ``tools.py`` and
``data/``); the options are those of ``cli.parse_args``. Only that folder's data files
and ``tools.py`` are used (with ``--jail``, the tool code runs in jailed workers), so a
host that trusts this runtime need not trust the rest of the package: this is how
``envfactory-mcp`` starts a package over stdio.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .cli import serve

if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    print("usage: python -m <runtime> PACKAGE_DIR [server options]", file=sys.stderr)
    raise SystemExit(2)
serve(Path(sys.argv[1]), prog=f"{Path(sys.argv[1]).name} (served by {__package__})", argv=sys.argv[2:])
