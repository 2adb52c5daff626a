"""The CRUD core: resources and CRUD operations -> an environment (importers and library).

An OpenAPI document and a set of CREATE TABLE statements describe the same thing: tables
of records and the usual operations on them. Both importers translate their input into
this small model (``Resource``, ``Field``, ``Operation``) and ``build_imported`` alone
turns it into the three parts of an environment: the spec's ``TableSpec`` and ``ToolSpec``
declarations with exact JSON Schemas and entity annotations (``declarations``, the tools'
arguments from ``arguments``, the resources' links from ``tables``, how values are said
from ``words``), the tool module source (``tool_code``, rendered from
``templates/crud_tools.py.tmpl``), and deterministic seed rows (``seed_rows``, fitted to
the environment by ``rows``). Keeping one back end means one set of conventions, checked
once by the verifier:

* list tools return ``{"items": [...], "total": n}`` plus their pagination fields;
* create and update return the stored row; delete returns the key and ``deleted: true``;
* new single-column keys come from the state (``MAX + 1``, or ``ctx.next_id``), never
  from the client, so the same call on the same state gives the same row;
* rows that others point at cannot be deleted (foreign keys are enforced by SQLite, and
  the tools check first so the agent gets a clear message).
"""

from __future__ import annotations

from envfactory_mcp.crud.declarations import table_spec, tool_spec
from envfactory_mcp.crud.model import Coverage, Ignored, ImportedEnv, Operation, Resource, Rows
from envfactory_mcp.crud.rows import agree_with_inputs, fit_rows
from envfactory_mcp.crud.seed_rows import generate_rows
from envfactory_mcp.crud.tables import Tables
from envfactory_mcp.crud.tool_code import render_tools
from envfactory_mcp.spec import EnvSpec, SeedSpec


def build_imported(
    *,
    name: str,
    title: str,
    description: str,
    source: str,
    generator: str,
    seed: int,
    resources: list[Resource],
    operations: list[Operation],
    ignored: list[Ignored],
    coverage: Coverage | None = None,
    given: Rows | None = None,
) -> ImportedEnv:
    """The spec, tool source and seed rows of ``resources`` served by ``operations``."""
    by_name = Tables(resources)
    tools = [tool_spec(op, by_name) for op in operations]
    spec = EnvSpec(
        name=name,
        title=title,
        domain=title,
        description=description or title,
        tables=[table_spec(r, by_name) for r in resources],
        tools=tools,
        policy="Act only on records the user asks about; confirm before deleting anything.",
        seed=SeedSpec(generator=generator, seed=seed),
    )
    source_text = render_tools(title, source, resources, operations)
    rows = agree_with_inputs(tools, resources, fit_rows(resources, generate_rows(resources, seed, given)))
    return ImportedEnv(spec, source_text, rows, sorted(set(ignored)), coverage or Coverage())
