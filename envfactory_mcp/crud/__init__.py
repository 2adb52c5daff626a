"""The CRUD core: a small model of resources and operations, and everything it derives.

An OpenAPI document, a set of CREATE TABLE statements and a library service all describe
tables of records and the usual operations on them. The importers (``synth.openapi``,
``synth.sqlddl``) and the library (``envfactory_mcp.library``) translate their input into
``Resource``, ``Field``, ``Operation`` and ``Guard`` (``model``); ``core.build_imported``
turns that into an environment's spec (``declarations``: tables, and tools with their
``arguments``), tool module (``tool_code``) and seed rows (``seed_rows``, fitted by ``rows``);
``tables`` holds how resources hang together, ``words`` how values are said. It stands below both, so
the library never depends on synthesis.
"""

from envfactory_mcp.crud.core import build_imported
from envfactory_mcp.crud.model import (
    NOW,
    Field,
    Guard,
    Ignored,
    ImportedEnv,
    Operation,
    Resource,
    ResourceImportError,
    Rows,
    snake,
)
from envfactory_mcp.crud.seed_rows import extra_rows, generate_rows

__all__ = [
    "NOW",
    "Field",
    "Guard",
    "Ignored",
    "ImportedEnv",
    "Operation",
    "Resource",
    "ResourceImportError",
    "Rows",
    "build_imported",
    "extra_rows",
    "generate_rows",
    "snake",
]
