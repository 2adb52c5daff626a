"""The runtime's version, which every generated package carries.

``RUNTIME_VERSION`` names this copy of the runtime; it moves with its content (a test
keeps a table of each version's digest, so a change to any runtime file without a new
version fails). A package records the version and content digest it was rendered with in
``<package>/runtime/stamp.json``; ``envfactory-mcp list`` and ``verify`` compare that with
the installed runtime, and ``envfactory-mcp upgrade`` re-renders an older package.
"""

RUNTIME_VERSION = "1.13.0"
STAMP_FILE = "stamp.json"  # beside the vendored runtime in a package: {"version", "digest"}
