"""The synthesize command: new environments from resources (no model needed) or descriptions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from envfactory_mcp.cli.app import app, fail
from envfactory_mcp.errors import EnvFactoryError


@app.command()
def synthesize(
    output: Annotated[Path, typer.Option("-o", "--output", help="Folder for the packages and build logs.")],
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
    concurrency: Annotated[int, typer.Option(help="Descriptions synthesised at once.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed for generated seed data.")] = 0,
) -> None:
    """Synthesise verified environments: import resources, or have a model propose, implement and repair them.

    Every package is verified in the sandbox before it is written. With a model, up to 3 repair rounds feed the verifier's failures back; every prompt and response goes into <output>/<name>.build.jsonl.
    """
    import anyio

    descriptions = list(description or [])
    descriptions_from_file = _read_list(from_list) if from_list is not None else []
    resources = list(resource or [])
    if not (descriptions or descriptions_from_file or resources):
        raise fail(EnvFactoryError("give --description, --resource or --from-list"))
    if (descriptions or descriptions_from_file) and not model:
        raise fail(
            EnvFactoryError("a description needs a model: pass --model (and --api-base for a local endpoint)")
        )
    if name and len(descriptions) + len(descriptions_from_file) + len(resources) > 1:
        raise fail(EnvFactoryError("--name applies to a single description or resource"))
    results: list[dict[str, Any]] = []
    try:
        for path in resources:
            results.append(_resource(path, name, seed, output, model, api_base))
        if descriptions or descriptions_from_file:
            pairs = [(name or _name_for(text), text) for text in descriptions] + descriptions_from_file
            results += anyio.run(_describe, pairs, output, model, api_base, concurrency, seed)
    except EnvFactoryError as exc:
        raise fail(exc) from None
    typer.echo(json.dumps(results, indent=2))
    if any(r["status"] != "emitted" for r in results):
        raise typer.Exit(code=1)


def _resource(
    path: Path, name: str | None, seed: int, output: Path, model: str | None, api_base: str | None
) -> dict[str, Any]:
    import anyio

    from envfactory_mcp.build import VerificationFailed, emit_verified
    from envfactory_mcp.env import assemble_env
    from envfactory_mcp.synth.resource import import_resource

    imported = import_resource(path, name, seed)
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
        return _summary(result.name, result.status, result.package_dir, result.failures, imported.notes())
    env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    try:
        built = emit_verified(env, output / imported.spec.name)
    except VerificationFailed as exc:
        return _summary(imported.spec.name, "failed", None, exc.report.failures(), imported.notes())
    return _summary(imported.spec.name, "emitted", built.package_dir, [], imported.notes())


async def _describe(
    pairs: list[tuple[str, str]],
    output: Path,
    model: str | None,
    api_base: str | None,
    concurrency: int,
    seed: int,
) -> list[dict[str, Any]]:
    from envfactory_mcp.llm import LiteLLMClient
    from envfactory_mcp.synth.model import synthesize_many

    assert model is not None
    client = LiteLLMClient(model, api_base=api_base, seed=seed)
    results = await synthesize_many(client, pairs, output, concurrency=concurrency, seed=seed)
    return [_summary(r.name, r.status, r.package_dir, r.failures, [], resumed=r.resumed) for r in results]


def _summary(
    name: str,
    status: str,
    package_dir: Path | None,
    failures: list[str],
    ignored: list[str],
    resumed: bool = False,
) -> dict[str, Any]:
    return {
        "name": name,
        "status": status,
        "package": str(package_dir) if package_dir else None,
        "failures": failures[:20],
        "ignored": ignored,
        "resumed": resumed,
    }


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
