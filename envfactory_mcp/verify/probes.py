"""Probe calls for every tool, built from its input schema and the seed data.

Kinds of probe, and what the verifier expects of them:

* ``valid``: schema-valid calls whose ids and values come from the seed state. Values are
  drawn from rows *related* to an anchor row (rows that share an entity value with it, up
  to three hops: an order, its user, the user's payment methods, the order's items and
  their sibling variants), so calls that need several consistent ids (this order's items,
  this user's card) succeed often enough to prove a write tool can succeed at all.
* ``boundary``: schema-valid extremes (longest and shortest strings, minimum and maximum
  numbers, fullest arrays, optional parameters left out).
* ``missing``, ``wrong_type``: schema violations the runtime must refuse.
* ``unknown_id``: id-shaped values (a real id with its digits changed) that are in no row.
* ``hostile``: SQL injection, control and bidirectional characters, format strings and
  very long strings in every free-text parameter.
* ``refused``: for a write the spec's ``policy_rules.refusals`` restrict, calls on objects
  in a state the rule does not allow (a delivered order, for a cancellation); the policy
  says they are refused, so each must end in a tool error.

Any probe may fail with a tool error; none may crash the tool, break its declared table
access, leave a failed call half-applied or give a different answer on a second run.

Pure and deterministic (same spec, state and seed give the same probes); it runs inside
the sandbox worker, so it imports only the standard library and ``jsonschema_rs``.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from envfactory_mcp.seeddata import (
    ParamInfo,
    SeedData,
    State,
    tool_params,
    valid_arguments,
)

Probe = dict[str, Any]  # {"id", "tool", "kind", "arguments"}

HOSTILE_STRINGS = (
    "x' OR '1'='1",
    "'); DROP TABLE {table}; --",
    "nul\x00byte \u202eevil\u202c 🧨 Zoë",
    "%s%n{0}${x}../../etc/passwd",
)
LONG_STRING_CHARS = 10_000


@dataclass(frozen=True)
class ProbeBudget:
    """How many probes to run per tool. Valid calls are drawn until ``enough_successes``
    of them succeed or ``valid_attempts`` have been tried."""

    valid_attempts: int = 96
    enough_successes: int = 4
    attempts_before_dead: int = 400  # while nothing has succeeded yet
    per_kind: int = 4


class ToolProber:
    """Probes for one tool. Valid calls come first and lazily, so the caller can stop
    drawing once enough have succeeded; the other kinds are built around a call that
    succeeded (hostile text then reaches the code behind the id checks)."""

    def __init__(
        self, tool: dict[str, Any], spec: dict[str, Any], data: SeedData, seed: int, budget: ProbeBudget
    ) -> None:
        self.tool, self.name, self.budget, self.data = tool, tool["name"], budget, data
        self.params = tool_params(tool)
        self.rng = random.Random(f"{seed}:{self.name}")
        self.validator = jsonschema_rs.Draft202012Validator(tool["input_schema"])
        self.first_table = spec["tables"][0]["name"] if spec["tables"] else "items"
        self.counts: dict[str, int] = defaultdict(int)
        self.succeeded = 0  # the caller counts valid calls that succeeded here

    def probe(self, kind: str, arguments: dict[str, Any]) -> Probe:
        self.counts[kind] += 1
        return {
            "id": f"{self.name}/{kind}-{self.counts[kind]}",
            "tool": self.name,
            "kind": kind,
            "arguments": arguments,
        }

    def valid(self) -> Iterator[Probe]:
        """Distinct schema-valid calls from the seed data: ``budget.valid_attempts`` of them,
        or up to ``budget.attempts_before_dead`` while the caller reports no success."""
        seen: set[str] = set()
        for _ in range(self.budget.attempts_before_dead * 3):
            limit = self.budget.valid_attempts if self.succeeded else self.budget.attempts_before_dead
            if len(seen) >= limit:
                return
            args = valid_arguments(self.params, self.data, self.rng)
            key = repr(sorted(args.items()))
            if key in seen or not self.validator.is_valid(args):
                continue
            seen.add(key)
            yield self.probe("valid", args)

    def others(self, base: dict[str, Any]) -> list[Probe]:
        """Boundary, missing, wrong-type, unknown-id and hostile probes around ``base``."""
        params, budget = self.params, self.budget
        out = [
            self.probe("boundary", args)
            for args in _boundary_arguments(params, base, self.data, self.rng)
            if self.validator.is_valid(args)
        ][: budget.per_kind * 2]
        for param in [p for p in params if p.required][: budget.per_kind]:
            out.append(self.probe("missing", {k: v for k, v in base.items() if k != param.name}))
        for param in params[: budget.per_kind]:
            out.append(self.probe("wrong_type", {**base, param.name: _wrong_type(param.schema)}))
        for param in [p for p in params if p.entity][: budget.per_kind]:
            out.append(self.probe("unknown_id", {**base, param.name: _unknown_id(param, self.data)}))
        for param in [p for p in params if _is_free_text(p.schema)][: budget.per_kind]:
            for text in HOSTILE_STRINGS:
                out.append(
                    self.probe("hostile", {**base, param.name: text.replace("{table}", self.first_table)})
                )
            out.append(self.probe("hostile", {**base, param.name: "A" * LONG_STRING_CHARS}))
        return out

    def refused(self, rules: list[dict[str, Any]]) -> list[Probe]:
        """Schema-valid calls on objects whose state ``rules`` (refusal rules of this
        tool, as JSON) do not allow: the rest of each call drawn around the object."""
        out: list[Probe] = []
        for rule in rules:
            owner = self.data.owner.get(rule["entity"])
            names = [p.name for p in self.params if p.entity == rule["entity"]]
            if owner is None or not names:
                continue
            table, pk = owner
            anchors = [
                i
                for i in self.data.by_table.get(table, [])
                if self.data.rows[i][1].get(rule["column"]) not in rule["allowed"]
            ]
            for anchor in self.rng.sample(anchors, min(len(anchors), self.budget.per_kind * 3)):
                args = valid_arguments(self.params, self.data, self.rng, anchor=anchor)
                args[names[0]] = self.data.rows[anchor][1][pk]
                if self.validator.is_valid(args):
                    out.append(self.probe("refused", args))
        return out


def probers(
    spec: dict[str, Any],
    state: State,
    seed: int = 0,
    budget: ProbeBudget = ProbeBudget(),
    only: list[str] | None = None,
) -> list[ToolProber]:
    """One prober per tool of ``spec`` (a spec as JSON) over the data of ``state``; with
    ``only``, for those tools alone. A tool's probes depend on the spec, the state, the
    seed and its own name, never on which other tools are probed with it, so the tools
    can be probed in chunks, in any order, with the same probes."""
    data = SeedData(spec, state)
    wanted = None if only is None else set(only)
    return [
        ToolProber(tool, spec, data, seed, budget)
        for tool in spec["tools"]
        if wanted is None or tool["name"] in wanted
    ]


# ---------------------------------------------------------------- boundary and invalid values


def _boundary_arguments(
    params: list[ParamInfo], base: dict[str, Any], data: SeedData, rng: random.Random
) -> list[dict[str, Any]]:
    if not base and any(p.required for p in params):
        return []
    found: list[dict[str, Any]] = []
    required_only = {k: v for k, v in base.items() if any(p.name == k and p.required for p in params)}
    if required_only != base:
        found.append(required_only)
    for param in params:
        schema = param.schema
        kind = schema.get("type")
        if _is_free_text(schema):
            high = schema.get("maxLength")
            if high is not None:
                found.append({**base, param.name: "x" * int(high)})
            found.append({**base, param.name: "y" * int(schema.get("minLength", 0))})
        elif kind in ("integer", "number") and "enum" not in schema:
            for bound in ("minimum", "maximum"):
                if bound in schema:
                    found.append({**base, param.name: schema[bound]})
        elif kind == "array" and param.entity and "maxItems" in schema:
            pool = data.values_of(param.entity)
            item_schema = schema.get("items", {})
            pool = [v for v in pool if data.fits(item_schema, v)]
            count = int(schema["maxItems"])
            if len(pool) >= count:
                current = [v for v in base.get(param.name, []) if v in pool]
                rest = [v for v in pool if v not in current]
                found.append({**base, param.name: (current + rng.sample(rest, count))[:count]})
    return found


def _is_free_text(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "string" and not ({"enum", "const", "pattern", "format"} & schema.keys())


def _wrong_type(schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    return {
        "string": 12345,
        "integer": "twelve",
        "number": "a lot",
        "boolean": "yes",
        "array": "not a list",
        "object": ["not", "an", "object"],
        "null": 0,
    }.get(str(kind), {"unexpected": True})


def _unknown_id(param: ParamInfo, data: SeedData) -> Any:
    """A value shaped like a real id of ``param.entity`` (digits changed) that no row has."""
    assert param.entity is not None
    known = data.known(param.entity)
    is_array = param.schema.get("type") == "array"
    sample = next(iter(sorted(known, key=repr)), None)
    candidate: Any
    if isinstance(sample, int) and not isinstance(sample, bool):
        candidate = max(known) + 1000
    elif isinstance(sample, str):
        candidate = None
        for digit in "9876543210":
            changed = re.sub(r"[0-9]", digit, sample)
            if changed not in known:
                candidate = changed
                break
        if candidate is None:
            candidate = sample + "-unknown"
    else:
        candidate = "unknown-id"
    return [candidate] if is_array else candidate
