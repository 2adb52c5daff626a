"""Ray, for the stages that spread over a cluster: ``build --all``, ``rollout`` and
``synthesize --from-list`` (``--backend ray``).

It sits below all three (a build must not import the host to reach Ray): the backends'
names, and Ray itself, imported on demand with one message saying which extra to
install. How each stage uses the cluster lives with the stage (``build``,
``host.backends``, ``synth.model``).
"""

from __future__ import annotations

from typing import Any, Literal, TypeGuard, get_args

from envfactory_mcp.errors import EnvFactoryError

Backend = Literal["local", "ray"]
"""Where a stage runs: this machine's processes, or a Ray cluster."""
BACKENDS: tuple[Backend, ...] = get_args(Backend)


def is_backend(value: str) -> TypeGuard[Backend]:
    return value in BACKENDS


def import_ray() -> Any:
    need = "--backend ray needs Ray on this machine and every node: pip install 'envfactory-mcp[ray]'"
    try:
        import ray  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise EnvFactoryError(need) from exc
    if not hasattr(ray, "remote"):  # a folder named ray on sys.path (Ray's own /tmp/ray, say)
        raise EnvFactoryError(f"{need} (found only a folder: {list(getattr(ray, '__path__', []))[:1]})")
    return ray
