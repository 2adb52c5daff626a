"""The environment spec: tables, tools and policy, as declared data.

Everything downstream (the tool graph, MCP annotations, the verifier's contracts, task
sampling) is derived from these declarations, never from parsing tool code.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from envfactory_mcp.spec.policy import PolicyRules

SqlType = Literal["TEXT", "INTEGER", "REAL", "BLOB"]
Effect = Literal["read", "write"]
# How a column's value is compared with the gold value when an episode is scored:
# ``exact`` (ids, enum values, amounts, dates, booleans: meaning is the value) or ``text``
# (free text an agent writes in its own words, a ticket's description: compared by the
# key facts the gold text must carry, scoring/meaning.py).
Compare = Literal["exact", "text"]

NAME_PATTERN = r"^[a-z][a-z0-9_]{0,63}$"
_NAME = re.compile(NAME_PATTERN)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EnumLabel(_Model):
    """How people say one enum value: what an agent may write for it in a reply."""

    display: str = Field(
        min_length=1, description="The value in words, e.g. 'exchange requested' for 'exchange_requested'."
    )
    words: list[str] = Field(
        default_factory=list,
        description="Other words or phrases that mean this value and no other of its column, "
        "e.g. ['canceled', 'called off'] for 'cancelled'. Spelling variants and inflections are "
        "matched anyway (scoring/meaning.py).",
    )


class ColumnSpec(_Model):
    """One column of a table."""

    name: str = Field(pattern=NAME_PATTERN)
    type: SqlType
    description: str = ""
    nullable: bool = False
    unique: bool = False
    enum: list[str | int] | None = Field(
        default=None, description="Allowed values; rendered as a CHECK constraint."
    )
    check: str | None = Field(
        default=None, description="Extra SQL CHECK expression over this row, e.g. 'price_cents > 0'."
    )
    references: str | None = Field(
        default=None,
        pattern=r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$",
        description="Foreign key as 'table.column'.",
    )
    entity: str | None = Field(
        default=None, description="Entity type whose key this column holds (e.g. 'order')."
    )
    compare: Compare = Field(
        default="exact",
        description="How scoring compares this column with the gold: 'exact', or 'text' for free "
        "text the agent words itself (compared by the key facts the gold text carries).",
    )
    enum_labels: dict[str, EnumLabel] = Field(
        default_factory=dict,
        description="Per enum value (as a string), its display name and other accepted words.",
    )
    indexed: bool = Field(
        default=False,
        description="Index this column even where the spec implies no lookup by it. Foreign-key "
        "columns and columns tools look rows up by are indexed anyway (env/ddl.py index_columns).",
    )


class TableSpec(_Model):
    """A table of the environment's state."""

    name: str = Field(pattern=NAME_PATTERN)
    description: str = ""
    columns: list[ColumnSpec] = Field(min_length=1)
    primary_key: list[str] = Field(min_length=1)
    entity: str | None = Field(default=None, description="Entity type one row of this table is.")

    def column(self, name: str) -> ColumnSpec | None:
        return next((c for c in self.columns if c.name == name), None)


class ParamSpec(_Model):
    """What the spec knows about one input parameter beyond its JSON Schema."""

    entity: str | None = Field(default=None, description="Entity type of the value, e.g. 'order'.")
    user_provided: bool = Field(
        description="True when a real user would know and type this value (an email, an order "
        "number from a receipt); False when it must come from a tool (an internal id)."
    )
    composed: bool = Field(
        default=False,
        description="True when the agent writes this text itself from what it learnt (a summary for a "
        "human, an arithmetic expression): grounding checks the numbers and ids in it, not the wording.",
    )


class ToolSpec(_Model):
    """One tool: its schemas, its effect on state and the entities it consumes and produces."""

    name: str = Field(pattern=NAME_PATTERN)
    description: str = Field(min_length=1)
    intent: str = Field(min_length=1, description="Short user-facing phrase: 'cancel an order'.")
    effect: Effect
    reads: list[str] = Field(default_factory=list, description="Tables the tool reads.")
    writes: list[str] = Field(default_factory=list, description="Tables the tool may write.")
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    outputs: dict[str, str] = Field(
        default_factory=dict,
        description="Output path -> entity type. Paths use dots for objects and [] for array "
        "items: 'user_id', 'orders[]', 'payment_methods[].payment_method_id'.",
    )
    claims: list[str] = Field(
        default_factory=list,
        description="Output paths whose values the agent must tell the user after this call, "
        "e.g. 'totals.refunded' or 'status'; a path through one list ('variants[].price') is about the "
        "element the user names by its entity. Task synthesis turns them into the claims scoring checks.",
    )
    destructive: bool | None = Field(
        default=None, description="MCP destructiveHint; defaults to True for writes."
    )
    idempotent: bool | None = Field(
        default=None, description="MCP idempotentHint; defaults to True for reads."
    )

    @property
    def is_destructive(self) -> bool:
        if self.effect == "read":
            return False
        return True if self.destructive is None else self.destructive

    @property
    def is_idempotent(self) -> bool:
        if self.idempotent is not None:
            return self.idempotent
        return self.effect == "read"


class SeedSpec(_Model):
    """Where the seed state comes from."""

    generator: str = Field(description="'blueprint:<name>', 'importer:<kind>' or 'model'.")
    seed: int = 0


class EnvSpec(_Model):
    """A complete environment: state schema, tools, policy and seed provenance."""

    spec_version: Literal[1] = 1
    name: str = Field(pattern=NAME_PATTERN)
    title: str
    domain: str
    description: str
    clock: str = Field(
        default="2026-06-01T12:00:00Z",
        description="The environment's fixed 'now'; tools never read the wall clock.",
    )
    tables: list[TableSpec] = Field(min_length=1)
    tools: list[ToolSpec] = Field(min_length=1)
    policy: str = Field(default="", description="Markdown the agent must follow.")
    policy_rules: PolicyRules = Field(
        default_factory=PolicyRules, description="The enforceable part of the policy, as data."
    )
    seed: SeedSpec
    shared_entities: list[str] = Field(
        default_factory=list,
        description=(
            "Entity types whose ids mean the same thing in every environment that declares them too "
            "(linked services: the same customer id is the same customer in the shop and its payments "
            "service), so tasks can span those servers."
        ),
    )

    def table(self, name: str) -> TableSpec | None:
        return next((t for t in self.tables if t.name == name), None)

    def tool(self, name: str) -> ToolSpec | None:
        return next((t for t in self.tools if t.name == name), None)


def is_valid_name(name: str) -> bool:
    return bool(_NAME.match(name))
