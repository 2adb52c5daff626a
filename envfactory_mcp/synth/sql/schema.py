"""Statements of an SQL script -> table drafts: columns, keys, foreign keys, checks.

Each statement is parsed on its own with sqlglot in the script's dialect, so one the
parser cannot read costs only itself (it is listed in ``ignored`` with its line). A
``CREATE TABLE`` sqlglot refuses is retried without its table options, then column by
column, keeping every column that parses. ``ALTER TABLE`` adds keys, foreign keys,
uniques, checks, columns and ``nextval`` defaults to tables read earlier;
``CREATE TYPE ... AS ENUM`` and ``CREATE DOMAIN`` define types later columns use;
``CREATE [UNIQUE] INDEX`` marks list filters and unique columns; ``COMMENT ON`` becomes
descriptions. Every other statement is listed with a reason.

The work is split by responsibility: ``parsing`` (sqlglot, one statement at a time),
``drafts`` (the ``Schema`` and ``TableDraft`` being built), ``statements`` (which statement
is what; ALTER, INDEX, TYPE, DOMAIN, COMMENT), ``tables`` (CREATE TABLE), ``columns``
(column definitions and defaults), ``constraints`` (table-level keys and options) and
``checks`` (CHECK -> enums and bounds). This module keeps the names the importer uses.
"""

from __future__ import annotations

from envfactory_mcp.synth.sql.checks import apply_checks
from envfactory_mcp.synth.sql.columns import converted, literal
from envfactory_mcp.synth.sql.drafts import ForeignDraft, Schema, TableDraft
from envfactory_mcp.synth.sql.parsing import parse, parse_error
from envfactory_mcp.synth.sql.statements import read_statement

__all__ = [
    "ForeignDraft",
    "Schema",
    "TableDraft",
    "apply_checks",
    "converted",
    "literal",
    "parse",
    "parse_error",
    "read_statement",
]
