"""What environments exist: blueprints that can be built and packages already emitted."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from envfactory_mcp.blueprints import blueprint_names, load_blueprint
from envfactory_mcp.emit.render import package_name
from envfactory_mcp.settings import Settings
from envfactory_mcp.verify.verifier import verification_status


@dataclass(frozen=True)
class EnvEntry:
    name: str
    domain: str
    tools: int
    tables: int
    source: str  # "blueprint" or what generated it
    emitted: bool
    # "passed" (the only one that runs, see packages.py), "failed", "stale", "not verified",
    # "unreadable report", "unreadable package", "not built"
    verification: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def list_environments(settings: Settings) -> list[EnvEntry]:
    """Every emitted package under ``settings.servers_dir`` plus every blueprint not yet built."""
    entries: dict[str, EnvEntry] = {}
    if settings.servers_dir.is_dir():
        for folder in sorted(p for p in settings.servers_dir.iterdir() if p.is_dir()):
            data = folder / package_name(folder.name) / "data"
            spec_path = data / "spec.json"
            if not spec_path.is_file():
                continue
            spec = json.loads(spec_path.read_text(encoding="utf-8"))
            entries[folder.name] = EnvEntry(
                name=spec["name"],
                domain=spec["domain"],
                tools=len(spec["tools"]),
                tables=len(spec["tables"]),
                source=spec["seed"]["generator"],
                emitted=True,
                verification=verification_status(folder),
            )
    for name in blueprint_names():
        if name not in entries:
            spec = load_blueprint(name).build_spec(0)
            entries[name] = EnvEntry(
                name=name,
                domain=spec.domain,
                tools=len(spec.tools),
                tables=len(spec.tables),
                source=f"blueprint:{name}",
                emitted=False,
                verification="not built",
            )
    return [entries[k] for k in sorted(entries)]
