"""The synthesize command: new environments from resources (no model needed) or descriptions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from envfactory_mcp.cli.app import app, fail, usage
from envfactory_mcp.cli.progress import Quiet, Reporter, emit_json
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.ray_cluster import Backend

if TYPE_CHECKING:
    from envfactory_mcp.synth.report import FidelityReport
    from envfactory_mcp.verify.report import DroppedTool


@app.command()
def synthesize(
    output: Annotated[
        Path,
        typer.Option(
            "-o",
            "--output",
            "--servers-dir",  # the name every other command gives the packages' folder
            help="Folder for the packages and build logs (other commands' --servers-dir).",
        ),
    ],
    description: Annotated[list[str] | None, typer.Option(help="Describe a system; needs --model.")] = None,
    resource: Annotated[
        list[Path] | None, typer.Option(help="An OpenAPI document (.json/.yaml) or SQL DDL (.sql).")
    ] = None,
    from_list: Annotated[
        Path | None,
        typer.Option(help="A file of descriptions: one per line, or JSON lines {name, description}."),
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="Environment name (one description or resource only).")
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="litellm model string; without it, resources are imported as they are.")
    ] = None,
    api_base: Annotated[str | None, typer.Option(help="Base URL of an OpenAI-compatible endpoint.")] = None,
    concurrency: Annotated[
        int, typer.Option(min=1, help="Descriptions synthesised at once (with --backend ray: per worker).")
    ] = 4,
    seed: Annotated[int, typer.Option(help="Seed for generated seed data.")] = 0,
    strict: Annotated[
        bool,
        typer.Option(
            help="All or nothing: fail (exit 1) when an importer leaves any part of a resource out (see "
            "its fidelity table) or any tool fails verification. Without it, a tool that fails "
            "verification is dropped, with its reason, and the rest is verified again and written."
        ),
    ] = False,
    inserts: Annotated[
        bool,
        typer.Option(
            "--inserts/--no-inserts",
            help="Seed from an SQL file's own INSERT/COPY rows (capped at 1,000 a table; other tables generated).",
        ),
    ] = True,
    overwrite: Annotated[
        bool,
        typer.Option("--overwrite", help="Replace a package of the same name in -o (refused otherwise)."),
    ] = False,
    backend: Annotated[
        Backend,
        typer.Option(
            help="Where descriptions are synthesised: local (this process) or ray (a Ray cluster, one "
            "worker per CPU; pip install 'envfactory-mcp[ray]'; -o at the same path on every node). "
            "Resources are imported here either way."
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            help="Ray cluster to join with --backend ray: auto (this machine's, from ray start) or "
            "host:port; default: a private local cluster for the run."
        ),
    ] = None,
    quiet: Quiet = False,
) -> None:
    """Synthesise verified environments: import resources, or have a model propose, implement and repair them.

    Every package is verified in the sandbox before it is written. An imported resource's fidelity table (operations in the document, served, ignored with reasons, fields kept and dropped) goes to stderr and into the package as <package>/data/fidelity.json. A tool of an imported resource that fails verification is dropped (listed with its reason in the fidelity table and in the report's "dropped") and the rest is written, unless --strict. With a model, up to 3 repair rounds feed the verifier's failures back; every prompt and response goes into <output>/<name>.build.jsonl.
    """
    import anyio

    if address is not None and backend != "ray":
        raise usage("--address goes with --backend ray")
    descriptions = list(description or [])
    descriptions_from_file = _read_list(from_list) if from_list is not None else []
    resources = list(resource or [])
    if not (descriptions or descriptions_from_file or resources):
        raise usage("give --description, --resource or --from-list")
    if (descriptions or descriptions_from_file) and not model:
        raise usage("a description needs a model: pass --model (and --api-base for a local endpoint)")
    if name and len(descriptions) + len(descriptions_from_file) + len(resources) > 1:
        raise usage("--name applies to a single description or resource")
    if name and (output / name).exists() and not overwrite:
        raise fail(_exists(output / name))
    results: list[dict[str, Any]] = []
    try:
        for path in resources:
            results.append(
                _resource(path, name, seed, output, model, api_base, strict, inserts, overwrite, quiet)
            )
        if descriptions or descriptions_from_file:
            pairs = [(name or _name_for(text), text) for text in descriptions] + descriptions_from_file
            results += anyio.run(
                _describe, pairs, output, model, api_base, concurrency, seed, backend, address
            )
    except EnvFactoryError as exc:
        raise fail(exc) from None
    emit_json(results)
    made = [r["package"] for r in results if r["status"] == "emitted"]
    Reporter(quiet).say(
        f"{len(made)} of {len(results)} packages written to {output}"
        + (f": {', '.join(made)}" if made else "")
    )
    if any(r["status"] != "emitted" for r in results):
        raise typer.Exit(code=1)


def _exists(package: Path) -> EnvFactoryError:
    return EnvFactoryError(
        f"{package}: a package of that name exists; add --overwrite to replace it, or choose another -o or --name"
    )


def _resource(
    path: Path,
    name: str | None,
    seed: int,
    output: Path,
    model: str | None,
    api_base: str | None,
    strict: bool = False,
    inserts: bool = True,
    overwrite: bool = True,
    quiet: bool = False,
) -> dict[str, Any]:
    import time
    from dataclasses import replace

    import anyio
    from rich.console import Console
    from rich.markup import escape

    from envfactory_mcp.build import BuildResult, VerificationFailed, emit_verified
    from envfactory_mcp.crud.model import ResourceImportError
    from envfactory_mcp.env import assemble_env
    from envfactory_mcp.synth.report import FidelityReport, fidelity_relpath, render_fidelity
    from envfactory_mcp.synth.resource import import_resource
    from envfactory_mcp.verify.dropping import keep_what_verifies
    from envfactory_mcp.verify.verifier import VerifyOptions

    console = Console(stderr=True, quiet=quiet, soft_wrap=True)  # --quiet: the result JSON only
    console.print(f"importing {escape(str(path))} ...", highlight=False)
    started = time.perf_counter()
    try:
        imported = import_resource(path, name, seed, use_inserts=inserts)
    except ResourceImportError as exc:  # name the file when the importer names only a line
        if str(exc).startswith(str(path)):
            raise
        raise ResourceImportError(f"{path}: {exc.where}", exc.message) from None
    except (Exception, RecursionError) as exc:  # noqa: BLE001 (an importer's bug is still one line for the user)
        text = " ".join(str(exc).split())[:300] or "(no message)"
        raise ResourceImportError(str(path), f"cannot be imported ({type(exc).__name__}: {text})") from None
    fidelity = FidelityReport.of(imported, path)
    console.print(
        f"imported {escape(imported.spec.name)}: {fidelity.tools} tools over {fidelity.tables} tables "
        f"in {time.perf_counter() - started:.1f} s",
        highlight=False,
    )
    console.print(render_fidelity(fidelity))
    refusal = fidelity.strict_failure() if strict else None
    if refusal:
        raise EnvFactoryError(refusal)
    if (output / imported.spec.name).exists() and not overwrite:
        raise _exists(output / imported.spec.name)
    if model:
        from envfactory_mcp.llm import LiteLLMClient
        from envfactory_mcp.synth.model import synthesize_from_description

        client = LiteLLMClient(model, api_base=api_base, seed=seed)
        task = f"Enrich the environment imported from {path.name} with realistic business rules."
        result = anyio.run(
            lambda: synthesize_from_description(
                client, task, output, name=imported.spec.name, seed=seed, base_spec=imported.spec
            )
        )
        return _summary(
            result.name,
            result.status,
            result.package_dir,
            result.failures,
            imported.notes(),
            fidelity=fidelity,
        )
    env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    started = time.perf_counter()

    def say(line: str) -> None:
        console.print(escape(line), highlight=False)

    options = VerifyOptions(progress=say)
    kept = fidelity

    def build(current: Any, dropped: tuple[DroppedTool, ...]) -> BuildResult:
        nonlocal kept
        kept = fidelity_after_dropping(fidelity, imported.spec, dropped)
        extra = {fidelity_relpath(imported.spec.name): kept.to_json()}
        return emit_verified(
            current, output / imported.spec.name, replace(options, dropped=dropped), extra_files=extra
        )

    try:
        with _verifying(console, imported.spec.name, len(imported.spec.tools), len(env.seed_sql.encode())):
            built = keep_what_verifies(env, build, strict=strict, progress=say)
    except VerificationFailed as exc:
        failures = exc.report.failures()
        console.print(
            f"{escape(imported.spec.name)} failed verification ({len(failures)} failure(s)); nothing was written"
            + (f"; first: {escape(failures[0])}" if failures else ""),
            highlight=False,
        )
        return _summary(
            imported.spec.name, "failed", None, exc.report.failures(), imported.notes(), fidelity=kept
        )
    dropped_note = ""
    if built.report.dropped:
        console.print(render_fidelity(kept))
        dropped_note = (
            f"; {len(built.report.dropped)} tool(s) failed and were dropped (not served): "
            + "; ".join(built.report.dropped_lines()[:10])
        )
    console.print(
        f"verified {escape(imported.spec.name)} in {time.perf_counter() - started:.1f} s "
        f"({built.report.probes} probes, {len(built.report.tools)} tools); fidelity report: "
        f"{escape(fidelity_relpath(imported.spec.name))}{escape(dropped_note)}",
        highlight=False,
    )
    summary = _summary(imported.spec.name, "emitted", built.package_dir, [], imported.notes(), fidelity=kept)
    summary["dropped"] = [d.model_dump() for d in built.report.dropped]
    return summary


def fidelity_after_dropping(
    fidelity: FidelityReport, spec: Any, dropped: tuple[DroppedTool, ...]
) -> FidelityReport:
    """The fidelity table once ``dropped`` tools are left out: each an ignored operation
    with its reason, the tools and what is served counted without them (an operation per
    tool for a document; for SQL, a table no remaining tool reads or writes)."""
    from dataclasses import replace as copy

    from envfactory_mcp.crud.model import Ignored

    if not dropped:
        return fidelity
    gone = {d.tool for d in dropped}
    if fidelity.kind == "sql":

        def touched(tools: list[Any]) -> set[str]:
            return {table for t in tools for table in (*t.reads, *t.writes)}

        before = touched(spec.tools)
        after = touched([t for t in spec.tools if t.name not in gone])
        served = fidelity.served - len(before - after)
    else:
        served = fidelity.served - len(gone)
    notes = [
        Ignored(
            where=f"tool {d.tool}",
            kind="operation",
            reason=f"dropped: failed verification ({d.reason[:300]})",
        )
        for d in dropped
    ]
    return copy(
        fidelity,
        served=max(0, served),
        tools=fidelity.tools - len(gone),
        ignored=sorted([*fidelity.ignored, *notes]),
    )


@contextmanager
def _verifying(console: Any, env_name: str, tools: int, seed_bytes: int) -> Iterator[None]:
    """A progress line (spinner and elapsed time, on a terminal) while ``env_name`` is verified."""
    from rich.markup import escape
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from envfactory_mcp.verify.budget import verification_budget

    budget = verification_budget([f"t{i}" for i in range(tools)], seed_bytes)
    console.print(
        f"verifying {escape(env_name)}: {tools} tools probed in the sandbox, then the package over stdio "
        f"(limits {budget.cpu_seconds} s CPU in {len(budget.chunks)} chunk(s), {budget.jobs} at a time; "
        "wall-clock time only as a far backstop) ...",
        highlight=False,
    )
    if not console.is_terminal:  # a log or a pipe: the line above is the progress
        yield
        return
    columns = (SpinnerColumn(), TextColumn("verifying {task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        progress.add_task(escape(env_name), total=None)
        yield


async def _describe(
    pairs: list[tuple[str, str]],
    output: Path,
    model: str | None,
    api_base: str | None,
    concurrency: int,
    seed: int,
    backend: Backend = "local",
    address: str | None = None,
) -> list[dict[str, Any]]:
    from envfactory_mcp.llm import LiteLLMClient
    from envfactory_mcp.synth.model import synthesize_many

    assert model is not None
    client = LiteLLMClient(model, api_base=api_base, seed=seed)
    results = await synthesize_many(
        client, pairs, output, concurrency=concurrency, seed=seed, backend=backend, address=address
    )
    return [_summary(r.name, r.status, r.package_dir, r.failures, [], resumed=r.resumed) for r in results]


def _summary(
    name: str,
    status: str,
    package_dir: Path | None,
    failures: list[str],
    ignored: list[str],
    resumed: bool = False,
    fidelity: FidelityReport | None = None,
) -> dict[str, Any]:
    summary: dict[str, Any] = {
        "name": name,
        "status": status,
        "package": str(package_dir) if package_dir else None,
        "failures": failures[:20],
        "ignored": ignored,
        "resumed": resumed,
    }
    if fidelity is not None:
        summary["fidelity"] = fidelity.summary()
    return summary


def _read_list(path: Path) -> list[tuple[str, str]]:
    """(name, description) pairs from a file: JSON lines with both, or one description per line."""
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("{"):
            try:
                item = json.loads(text)
                pairs.append((str(item["name"]), str(item["description"])))
            except (ValueError, KeyError) as exc:
                raise EnvFactoryError(f'{path}:{number}: expected {{"name", "description"}}: {exc}') from None
        else:
            pairs.append((_name_for(text), text))
    return pairs


def _name_for(description: str) -> str:
    from envfactory_mcp.synth.model import provisional_name

    return provisional_name(description)
