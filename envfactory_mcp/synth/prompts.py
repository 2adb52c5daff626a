"""What model-driven synthesis says to the model, and how it reads the replies.

Three conversations, each kept short: *propose* (a description, or an imported spec to
enrich, becomes one JSON object ``{"spec": ..., "seed_rows": ...}``), *implement* (the
spec becomes one Python module of tools) and *repair* (a failure list becomes a
corrected module, or corrected seed rows). The spec format is given as its JSON Schema,
the tool contract and the static gate's rules as a few lines of text, and one compact
example comes from the retail blueprint, so the prompts follow the code they describe.

Replies are read leniently (a code fence around them is fine) and checked strictly:
``read_proposal`` raises ``SpecError`` naming the place at fault, which goes back to the
model as is.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from envfactory_mcp.env.environment import assemble_env
from envfactory_mcp.env.seed import SeedRows
from envfactory_mcp.errors import BlueprintError, SeedError, SpecError
from envfactory_mcp.spec import EnvSpec, dump_spec, parse_spec, spec_json_schema
from envfactory_mcp.verify.static_gate import ALLOWED_MODULES, parse_python

Message = dict[str, str]

# How much of a failure list goes back to the model: enough to act on, not a flood.
MAX_FEEDBACK_LINES = 12
MAX_FEEDBACK_CHARS = 400

_FENCE = re.compile(r"^\s*```[\w+-]*[ \t]*\n(?P<body>.*?)\n?```\s*$", re.DOTALL)

# The retail slice used as the example: one table trimmed to a few columns, one tool.
_EXAMPLE_TABLE, _EXAMPLE_COLUMNS = "users", ("user_id", "first_name", "last_name", "email")
_EXAMPLE_TOOL = "find_user_id_by_email"
_EXAMPLE_HEADER = (
    "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\n"
    "if TYPE_CHECKING:\n    from envfactory_mcp.runtime import ToolContext\n\n\n"
)
_EXAMPLE_ROWS: SeedRows = {
    "users": [
        {"user_id": "user_000001", "first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com"},
        {"user_id": "user_000002", "first_name": "Bo", "last_name": "Chen", "email": "bo@example.com"},
    ]
}


@dataclass(frozen=True)
class Proposal:
    """A proposed spec and seed rows that load into its schema."""

    spec: EnvSpec
    rows: SeedRows


# ------------------------------------------------------------------------- propose


def propose_messages(description: str, name: str | None, base_spec: EnvSpec | None) -> list[Message]:
    """The opening messages of the propose conversation."""
    example_spec, example_rows, _ = retail_example()
    example = json.dumps({"spec": example_spec, "seed_rows": example_rows}, separators=(",", ":"))
    system = (
        "You design stateful tool-use environments: SQLite tables plus the tools an AI agent calls "
        "to serve a user. Reply with ONE JSON object and nothing else: "
        '{"spec": <EnvSpec>, "seed_rows": {"<table>": [<row object>, ...]}}.\n'
        "Rules:\n"
        "- spec follows the JSON Schema below; leave out spec.seed (the pipeline sets it).\n"
        "- Every input property of a tool has a params entry. A read tool declares no writes; a write "
        "tool declares the tables it writes; reads name every table a tool queries.\n"
        "- Include write tools that enforce business rules (statuses, limits, ownership) and say so in "
        "the description and policy. Money is INTEGER cents; statuses are enums.\n"
        "- seed_rows: 3-10 rows per table satisfying every key, foreign key, enum and CHECK; every tool "
        "needs at least one call that succeeds on them.\n"
        f"EnvSpec JSON Schema: {json.dumps(compact_spec_schema(), separators=(',', ':'))}\n"
        f"Example (a slice of a retail environment): {example}"
    )
    if base_spec is None:
        task = f"Design the environment for this description:\n{description}"
    else:
        task = (
            "Enrich this imported spec into a complete environment: keep its tables and tool names, "
            "fill in descriptions, entities, policy and business rules, add tools the description calls "
            f"for, and write seed rows.\nDescription: {description}\nImported spec: {dump_spec(base_spec)}"
        )
    if name is not None:
        task += f"\nName the environment {name!r}."
    return [{"role": "system", "content": system}, {"role": "user", "content": task}]


def proposal_feedback(problem: str) -> Message:
    """The user turn that sends a rejected proposal's error back."""
    return {
        "role": "user",
        "content": f"Your reply was rejected: {problem}\nReply with the whole corrected JSON object only.",
    }


def read_proposal(text: str, *, name: str | None, seed: int) -> Proposal:
    """Parse and check a proposal reply; raise ``SpecError`` naming what is wrong.

    ``name`` (when given) and the seed provenance are ours, so they overwrite whatever the
    model wrote. The seed rows must load into the spec's schema.
    """
    data = _json_object(text)
    missing = [key for key in ("spec", "seed_rows") if key not in data]
    if missing:
        raise SpecError("reply", f"missing {' and '.join(map(repr, missing))} (got keys {sorted(data)})")
    spec_data = data["spec"]
    if not isinstance(spec_data, dict):
        raise SpecError("spec", "must be a JSON object")
    rows = check_rows(data["seed_rows"])
    spec_data = {**spec_data, "seed": {"generator": "model", "seed": seed}}
    if name is not None:
        spec_data["name"] = name
    spec = parse_spec(spec_data)
    load_rows(spec, rows)
    return Proposal(spec, rows)


# ------------------------------------------------------------------- implement, repair


def implement_messages(spec: EnvSpec) -> list[Message]:
    """The opening messages of the implement conversation."""
    _, _, example_code = retail_example()
    allowed = ", ".join(sorted(ALLOWED_MODULES - {"__future__"}))
    system = (
        "You write tools.py for an environment spec: one Python module, one function per tool, named "
        "like the tool: `def <tool>(ctx, *, <input properties>) -> dict`, returning an object that "
        "matches the tool's output_schema. Optional inputs need defaults.\n"
        "ctx: ctx.one(sql, params) -> dict | None; ctx.all(sql, params) -> list[dict]; ctx.scalar(sql, "
        "params); ctx.execute(sql, params) -> rows changed; ctx.next_id(table, column, prefix, width) -> "
        "next id; ctx.now -> the fixed clock (ISO 8601); ctx.fail(message) for an unknown id or a broken "
        "business rule (never raise anything else). The runtime runs each call in a transaction: touch "
        "only the tables the tool declares (reads and writes), never write in a read tool, never commit.\n"
        f"Static gate: import only {allowed}; no eval, exec, open, getattr, globals; no dunder "
        "names or attributes; no global statements, async functions or real clock (.now(), .today()); "
        "the top level holds only imports, functions and constants.\n"
        f"Reply with the Python source only. Example for a retail tool:\n{example_code}"
    )
    user = f"Write tools.py for this spec:\n{dump_spec(spec)}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def gate_feedback(violations: list[str]) -> Message:
    """The user turn that sends static-gate violations back."""
    return {
        "role": "user",
        "content": "The static gate rejected tools.py:\n"
        + _bullets(violations)
        + "\nReply with the whole corrected tools.py only.",
    }


def seed_feedback(problem: str) -> Message:
    """The user turn that sends a seed-loading error back."""
    return {
        "role": "user",
        "content": f"The seed rows do not load: {_clip(problem)}\n"
        'Reply with a JSON object {"seed_rows": {"<table>": [...]}} holding every table\'s corrected rows.',
    }


def verification_feedback(failures: list[str]) -> Message:
    """The user turn that sends the sandboxed verifier's failures back."""
    return {
        "role": "user",
        "content": "Verification in the sandbox failed (tool: check: reason [probe]):\n"
        + _bullets(failures)
        + "\nReply with the whole corrected tools.py only, or, if the seed data is at fault, with a "
        'JSON object {"seed_rows": {"<table>": [...]}} holding every table\'s corrected rows.',
    }


def read_fix(text: str) -> str | SeedRows:
    """A repair reply: new seed rows when it is a ``{"seed_rows": ...}`` object, else tool source.

    Raises ``SpecError`` for a ``seed_rows`` object of the wrong shape.
    """
    body = strip_fences(text)
    if body.lstrip().startswith("{"):
        try:
            data = json.loads(body)
        except json.JSONDecodeError:
            return body  # not JSON after all: let the gate report it as Python
        if isinstance(data, dict) and "seed_rows" in data:
            return check_rows(data["seed_rows"])
    return body


# --------------------------------------------------------------------------- helpers


def strip_fences(text: str) -> str:
    """The reply without a surrounding Markdown code fence."""
    match = _FENCE.match(text)
    return match.group("body") if match else text.strip()


def check_rows(rows: Any) -> SeedRows:
    """``rows`` as seed rows (table -> list of objects), or ``SpecError`` naming the bad part."""
    if not isinstance(rows, dict):
        raise SpecError("seed_rows", "must be an object mapping table names to lists of rows")
    for table, table_rows in rows.items():
        if not isinstance(table_rows, list):
            raise SpecError(f"seed_rows.{table}", "must be a list of row objects")
        for i, row in enumerate(table_rows):
            if not isinstance(row, dict):
                raise SpecError(f"seed_rows.{table}[{i}]", "must be an object (column -> value)")
    return rows


def load_rows(spec: EnvSpec, rows: SeedRows) -> None:
    """Load ``rows`` into ``spec``'s schema; a failure becomes ``SpecError`` at ``seed_rows``."""
    try:
        assemble_env(spec, "", rows)
    except SeedError as exc:
        raise SpecError("seed_rows", str(exc)) from None


def compact_spec_schema() -> dict[str, Any]:
    """The EnvSpec JSON Schema without pydantic's generated titles (a third of its size)."""

    def strip(node: Any, in_properties: bool = False) -> Any:
        if isinstance(node, dict):
            return {
                key: strip(value, key == "properties" and not in_properties)
                for key, value in node.items()
                if in_properties or not (key == "title" and isinstance(value, str))
            }
        if isinstance(node, list):
            return [strip(item) for item in node]
        return node

    return strip(spec_json_schema())  # type: ignore[no-any-return]


@cache
def retail_example() -> tuple[dict[str, Any], SeedRows, str]:
    """A compact, valid slice of the retail blueprint: (spec dict, seed rows, tool source)."""
    from envfactory_mcp.blueprints import load_blueprint

    blueprint = load_blueprint("retail")
    full = blueprint.build_spec(0)
    table, tool = full.table(_EXAMPLE_TABLE), full.tool(_EXAMPLE_TOOL)
    if table is None or tool is None:
        raise BlueprintError(f"retail no longer has table {_EXAMPLE_TABLE!r} or tool {_EXAMPLE_TOOL!r}")
    columns = [c for c in table.columns if c.name in _EXAMPLE_COLUMNS]
    spec = EnvSpec(
        name="retail_slice",
        title="Retail (slice)",
        domain="retail",
        description="Customer service for an online store (two columns and one tool of it).",
        tables=[table.model_copy(update={"columns": columns})],
        tools=[tool],
        policy="Authenticate the user by email before anything else.",
        seed=full.seed,
    )
    data = spec.model_dump(mode="json", exclude_defaults=True)
    del data["seed"]
    source = inspect.getsource(blueprint.tools_module)
    function = next(
        node
        for node in parse_python(source).body
        if isinstance(node, ast.FunctionDef) and node.name == tool.name
    )
    return data, _EXAMPLE_ROWS, _EXAMPLE_HEADER + (ast.get_source_segment(source, function) or "")


def _json_object(text: str) -> dict[str, Any]:
    body = strip_fences(text)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise SpecError("reply", f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict):
        raise SpecError("reply", f"must be a JSON object, got {type(data).__name__}")
    return data


def _clip(line: str) -> str:
    return line if len(line) <= MAX_FEEDBACK_CHARS else line[: MAX_FEEDBACK_CHARS - 3] + "..."


def _bullets(lines: list[str]) -> str:
    shown = [f"- {_clip(line)}" for line in lines[:MAX_FEEDBACK_LINES]]
    if len(lines) > MAX_FEEDBACK_LINES:
        shown.append(f"- ... and {len(lines) - MAX_FEEDBACK_LINES} more")
    return "\n".join(shown)
