"""Hand-crafted environments. Each subpackage exposes ``BLUEPRINT``; nothing lists them by hand."""

from __future__ import annotations

import importlib
import pkgutil
import random
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from envfactory_mcp.errors import BlueprintError
from envfactory_mcp.spec.models import EnvSpec

__all__ = ["Blueprint", "blueprint_names", "handcrafted_names", "load_blueprint"]


@dataclass(frozen=True)
class Blueprint:
    """A domain written by hand: spec builder, tool code and seed generator.

    ``tools_module`` holds one function per tool, ``fn(ctx, **arguments) -> dict``; it may
    import only the standard library, because its source is copied into the generated
    server as ``tools.py``.
    """

    name: str
    build_spec: Callable[[int], EnvSpec]
    tools_module: ModuleType
    generate_seed: Callable[[random.Random], dict[str, list[dict[str, Any]]]]
    default_seed: int = 0
    # Source of ``tools_module`` when it was not imported from a file (e.g. built with exec).
    tools_source: str | None = None
    # A short scripted customer session, (tool, arguments) pairs chosen from the seed
    # state; the quick-start demo replays it against the emitted server.
    demo_calls: Callable[[dict[str, list[dict[str, Any]]]], list[tuple[str, dict[str, Any]]]] | None = None

    def code(self) -> str:
        """The source text of the tool code, as shipped."""
        import inspect

        return self.tools_source or inspect.getsource(self.tools_module)


def handcrafted_names() -> list[str]:
    """The blueprints written by hand, one subpackage each."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)


def blueprint_names() -> list[str]:
    """Every environment shipped with envfactory-mcp: the hand-crafted blueprints and the
    library's composed services (``envfactory_mcp.library``)."""
    from envfactory_mcp.library import service_names

    return sorted({*handcrafted_names(), *service_names()})


def load_blueprint(name: str) -> Blueprint:
    if name not in handcrafted_names():
        from envfactory_mcp.library import service_names

        if name in service_names():
            return _service_blueprint(name)
    if name not in blueprint_names():
        known = ", ".join(blueprint_names()) or "none"
        raise BlueprintError(f"unknown blueprint {name!r} (known: {known})")
    module = importlib.import_module(f"{__name__}.{name}")
    blueprint = getattr(module, "BLUEPRINT", None)
    if not isinstance(blueprint, Blueprint):
        raise BlueprintError(f"{module.__name__} does not define BLUEPRINT")
    return blueprint


def _service_blueprint(name: str) -> Blueprint:
    """A library service handed out as a blueprint: its generated tool code (a module built
    from source, never a file) and its own spec and seed builders."""
    from dataclasses import replace

    from envfactory_mcp.library import load_service, tools_module

    service = load_service(name)
    source, module = tools_module(name)

    def build_spec(seed: int) -> EnvSpec:
        return replace(service, seed=seed).build()[0]

    def generate_seed(rng: random.Random) -> dict[str, list[dict[str, Any]]]:
        return service.build(rows_seed=rng.randrange(2**31))[2]

    return Blueprint(
        name=service.name,
        build_spec=build_spec,
        tools_module=module,
        generate_seed=generate_seed,
        default_seed=service.seed,
        tools_source=source,
    )
