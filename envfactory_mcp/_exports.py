"""Public names of a package that load when first used (PEP 562).

A package lists its public API as ``{name: module}`` and gets back the module-level
``__getattr__`` and ``__dir__`` that import ``module`` the first time ``name`` is asked
for (and keep the value on the package, so the next access is a plain attribute). Importing
the package itself stays free: the package root is imported by every server process and
every sandboxed verification worker, which must not load the MCP stack, litellm or the
verifier on the way. Type checkers read the same names from the package's
``if TYPE_CHECKING:`` imports (a test checks the two agree).
"""

from __future__ import annotations

import importlib
import sys

TYPE_CHECKING = False  # not typing's: importing typing would double the cost of importing the package
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` publishing ``exports`` (name -> module)."""

    def __getattr__(name: str) -> Any:
        try:
            module = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return __getattr__, __dir__
