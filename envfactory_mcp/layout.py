"""Where an emitted package keeps its files, and the spec it ships read without running
anything: the little the host, scoring, the eval and the RL adapters need of a package.

It stands just above ``spec`` (whose models it reads), below everything that builds
packages (``emit``, ``verify``, ``build``, ``packages``, ``catalog``), so what only reads a
package's spec does not sit above the build chain.
"""

from __future__ import annotations

from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: emit.render imports this
if TYPE_CHECKING:
    from envfactory_mcp.spec import EnvSpec


def package_name(env_name: str) -> str:
    """The import name of the package that serves ``env_name``: ``<env_name>_mcp``."""
    return f"{env_name}_mcp"


def spec_path(servers_dir: Path, env_name: str) -> Path:
    """Where the package ``<servers_dir>/<env_name>/`` keeps its spec."""
    return Path(servers_dir) / env_name / package_name(env_name) / "data" / "spec.json"


def package_spec(servers_dir: Path, env_name: str) -> EnvSpec | None:
    """The spec an emitted package ships (``<pkg>/data/spec.json``), or None when there is
    no such package here or its spec does not parse (scoring then skips what needs it).
    Parsed without the cross-reference checks: a package verified under older rules
    still describes its own tools."""
    from pydantic import ValidationError

    from envfactory_mcp.spec import EnvSpec

    try:
        return EnvSpec.model_validate_json(spec_path(servers_dir, env_name).read_bytes())
    except (OSError, ValidationError):
        return None
