"""The library: small real-world services composed from reusable parts, shipped beside the
hand-crafted blueprints (``envfactory_mcp.blueprints``) and built, verified and served the
same way.

Each module of :mod:`envfactory_mcp.library.services` is one domain and defines
``SERVICES``, a list of :class:`~envfactory_mcp.library.service.Service`; nothing lists
them by hand. ``service_names()`` and ``load_service(name)`` find them;
``envfactory_mcp.blueprints.load_blueprint`` hands a service out as a blueprint (its
tool code from ``tools_module``). The library knows nothing of blueprints.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType

from envfactory_mcp.errors import BlueprintError

from .service import Foreign, Service, Shared


@cache
def _services() -> dict[str, Service]:
    from . import services as package

    found: dict[str, Service] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for service in getattr(module, "SERVICES", []):
            if service.name in found:
                raise BlueprintError(f"library service {service.name!r} is defined twice ({info.name})")
            found[service.name] = service
    return found


def service_names() -> list[str]:
    return sorted(_services())


def load_service(name: str) -> Service:
    try:
        return _services()[name]
    except KeyError:
        raise BlueprintError(f"unknown library service {name!r}") from None


@cache
def tools_module(name: str) -> tuple[str, ModuleType]:
    """The service's tool code, as source and as a module (it is generated, never a file)."""
    source = load_service(name).build()[1]
    module = ModuleType(f"envfactory_mcp.library.tools.{name}")
    exec(compile(source, f"<library {name} tools.py>", "exec"), module.__dict__)  # noqa: S102 - our own generator's code
    return source, module


__all__ = ["Foreign", "Service", "Shared", "load_service", "service_names", "tools_module"]
