"""The library: small real-world services composed from reusable parts, shipped beside the
hand-crafted blueprints (``envfactory_mcp.blueprints``) and built, verified and served the
same way.

Each module of :mod:`envfactory_mcp.library.services` is one domain and defines
``SERVICES``, a list of :class:`~envfactory_mcp.library.service.Service`; nothing lists
them by hand. ``service_names()`` and ``load_service(name)`` find them;
``as_blueprint(service)`` is what ``envfactory_mcp.blueprints.load_blueprint`` hands out.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from dataclasses import replace
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
def _tools_module(name: str) -> tuple[str, ModuleType]:
    """The service's tool code, as source and as a module (it is generated, never a file)."""
    source = load_service(name).build()[1]
    module = ModuleType(f"envfactory_mcp.library.tools.{name}")
    exec(compile(source, f"<library {name} tools.py>", "exec"), module.__dict__)  # noqa: S102 - our own generator's code
    return source, module


def as_blueprint(service: Service):  # type: ignore[no-untyped-def]  # returns blueprints.Blueprint
    from envfactory_mcp.blueprints import Blueprint

    source, module = _tools_module(service.name)

    def build_spec(seed: int):  # type: ignore[no-untyped-def]
        return replace(service, seed=seed).build()[0]

    def generate_seed(rng: random.Random):  # type: ignore[no-untyped-def]
        return service.build(rows_seed=rng.randrange(2**31))[2]

    return Blueprint(
        name=service.name,
        build_spec=build_spec,
        tools_module=module,
        generate_seed=generate_seed,
        default_seed=service.seed,
        tools_source=source,
    )


__all__ = ["Foreign", "Service", "Shared", "as_blueprint", "load_service", "service_names"]
