"""Import-and-verify benchmark: time from an OpenAPI document (or SQL DDL) to a verified package.

    python bench/bench_synth.py [--rounds 3] [FILE ...]

For each resource (default: every document in tests/synth/openapi/ and examples/), the
time of import (document -> spec, tool code, seed rows), assembly (seed loaded and
checked) and verification (sandboxed probes and the package over stdio), median of
several rounds, next to the same figures for the hand-written retail blueprint.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.build import emit_verified
from envfactory_mcp.env import assemble_env, build_env
from envfactory_mcp.synth.resource import import_resource

ROOT = Path(__file__).resolve().parent.parent


def once(path: Path | None, out: Path) -> tuple[float, float, int, int]:
    """(import seconds, verify seconds, tools, probes) for one resource (None: retail)."""
    t0 = time.perf_counter()
    if path is None:
        env = build_env(load_blueprint("retail"))
    else:
        imported = import_resource(path)
        env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    t1 = time.perf_counter()
    built = emit_verified(env, out / env.spec.name)
    return t1 - t0, time.perf_counter() - t1, len(env.spec.tools), built.report.probes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args()
    files = args.files or sorted(
        [
            *(ROOT / "tests" / "synth" / "openapi").glob("*"),
            *(ROOT / "examples").rglob("*.yaml"),
            *(ROOT / "examples").rglob("*.json"),
            *(ROOT / "examples").rglob("*.sql"),
        ]
    )
    print(f"{'resource':<34} {'tools':>5} {'probes':>6} {'import s':>9} {'verify s':>9} {'total s':>8}")
    for path in [None, *files]:
        imports, verifies = [], []
        tools = probes = 0
        for _ in range(args.rounds):
            with tempfile.TemporaryDirectory() as tmp:
                seconds_import, seconds_verify, tools, probes = once(path, Path(tmp))
            imports.append(seconds_import)
            verifies.append(seconds_verify)
        label = (
            "retail (blueprint, baseline)"
            if path is None
            else str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
        )
        a, b = statistics.median(imports), statistics.median(verifies)
        print(f"{label[:34]:<34} {tools:>5} {probes:>6} {a:>9.3f} {b:>9.2f} {a + b:>8.2f}")


if __name__ == "__main__":
    main()
