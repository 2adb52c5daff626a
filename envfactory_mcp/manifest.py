"""The digests of every shipped environment's package, so a checkout need not commit them.

The repository commits a few golden packages (``GOLDEN``) and builds the rest on first use
(``packages.ensure_shipped``) or with ``envfactory-mcp build --all``. What proves those
builds are the packages the project means is ``generated_servers/MANIFEST.json``: for
each shipped blueprint, the number of files and one sha256 over every file ``build``
writes but the verification report (whose timings and signature belong to the machine
that verified). Rendering is deterministic, so the same source gives the same digests on
any machine. It is also half of the shipped-code lookup (``shipped.py``): a package whose
files match its entry runs in process without a signature (the other half is this user's
own build records).

    python -m envfactory_mcp.manifest --check      # render each blueprint, compare
    python -m envfactory_mcp.manifest --check --build DIR   # build + verify into DIR, compare
    python -m envfactory_mcp.manifest --write      # after a deliberate change

Exit 0 when every digest matches, 1 with one line per environment that differs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from envfactory_mcp.emit.render import package_name
from envfactory_mcp.shipped import MANIFEST_FILE, MANIFEST_FORMAT, entry

# Committed whole in the checkout: the README's flagship and a composed library service.
GOLDEN = ("retail", "hair_salon")
FORMAT = MANIFEST_FORMAT


def _entry(files: Mapping[str, str], env: str) -> dict[str, object]:
    """The manifest's entry for a package's files, its verification report left out."""
    return entry(files, package_name(env))


def rendered(names: Iterable[str] | None = None) -> dict[str, dict[str, object]]:
    """What this installation renders for each shipped blueprint (all by default)."""
    from envfactory_mcp.blueprints import blueprint_names, load_blueprint
    from envfactory_mcp.emit.render import render_package
    from envfactory_mcp.env import build_env

    chosen = sorted(names) if names is not None else blueprint_names()
    return {name: _entry(render_package(build_env(load_blueprint(name))), name) for name in chosen}


def on_disk(servers_dir: Path, names: Iterable[str]) -> dict[str, dict[str, object]]:
    """The same for packages written under ``servers_dir``."""
    from envfactory_mcp.emit.write import read_package

    return {name: _entry(read_package(servers_dir / name), name) for name in sorted(names)}


def read_manifest(path: Path) -> dict[str, dict[str, object]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file")
    packages: dict[str, dict[str, object]] = data["packages"]
    return packages


def manifest_text(packages: Mapping[str, Mapping[str, object]]) -> str:
    return json.dumps({"format": FORMAT, "packages": dict(sorted(packages.items()))}, indent=1) + "\n"


def differences(
    expected: Mapping[str, Mapping[str, object]], actual: Mapping[str, Mapping[str, object]]
) -> list[str]:
    """One line per environment whose digest differs, is missing or is new."""
    lines = []
    for name in sorted(expected.keys() | actual.keys()):
        if name not in actual:
            lines.append(f"{name}: in the manifest, not produced")
        elif name not in expected:
            lines.append(f"{name}: produced, not in the manifest")
        elif expected[name] != actual[name]:
            lines.append(
                f"{name}: {actual[name]['digest']} ({actual[name]['files']} files), manifest says {expected[name]['digest']} ({expected[name]['files']} files)"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    from envfactory_mcp.packages import checkout_servers_dir

    parser = argparse.ArgumentParser(
        prog="python -m envfactory_mcp.manifest", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--manifest", type=Path, default=None, help="default: the checkout's generated_servers/MANIFEST.json"
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--check", action="store_true", help="compare with the manifest")
    action.add_argument(
        "--write", action="store_true", help="write the manifest from this installation's renderings"
    )
    parser.add_argument(
        "--build",
        type=Path,
        metavar="DIR",
        help="with --check: build and verify every package into DIR and compare what was written",
    )
    args = parser.parse_args(argv)
    servers = checkout_servers_dir()
    path = args.manifest or (servers / MANIFEST_FILE if servers else None)
    if path is None:
        parser.error("not a checkout: name the manifest with --manifest")
    if args.write:
        from envfactory_mcp import files

        files.write_text(path, manifest_text(rendered()))
        print(f"wrote {path}")
        return 0
    expected = read_manifest(path)
    if args.build is not None:
        from envfactory_mcp.build import build_all
        from envfactory_mcp.settings import Settings

        outcomes = build_all(Settings(servers_dir=args.build), sorted(expected), jobs=1)
        built = [o.name for o in outcomes if o.ok]
        failed = [f"{o.name}: not built: {o.error}" for o in outcomes if not o.ok]
        lines = failed + differences({n: expected[n] for n in built}, on_disk(args.build, built))
    else:
        lines = differences(expected, rendered())
    for line in lines:
        print(line)
    print(f"{len(expected) - len(lines)} of {len(expected)} packages as the manifest says ({path})")
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
