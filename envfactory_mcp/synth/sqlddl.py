"""SQL DDL (CREATE TABLE statements) -> an environment, with a small hand-written parser.

A practical subset of SQLite / PostgreSQL / MySQL table definitions is understood:
column types, PRIMARY KEY (inline or table-level, composite too), NOT NULL, UNIQUE,
DEFAULT (literals and CURRENT_TIMESTAMP / CURRENT_DATE; other expressions are listed in
``ignored``), CHECK (``col IN (...)`` becomes an enum, ``col >= n`` / ``col <= n`` /
``BETWEEN`` become bounds; other checks are listed in ``ignored``), REFERENCES and
FOREIGN KEY to a table's single-column primary key. Every table gets get / list / create
/ update / delete tools; list tools filter on foreign-key, indexed and enum columns.

Anything else (other statements, BLOB columns, unknown syntax) raises
``ResourceImportError`` naming the line, so a schema is never half-imported in silence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from envfactory_mcp.synth.crud import (
    Field,
    Ignored,
    ImportedEnv,
    Kind,
    Operation,
    Resource,
    ResourceImportError,
    build_imported,
    singular,
    snake,
)

_TOKEN = re.compile(
    r"""(?P<space>\s+)|(?P<comment>--[^\n]*|/\*.*?\*/)|(?P<string>'(?:[^']|'')*')"""
    r"""|(?P<ident>"[^"]+"|`[^`]+`|\[[^\]]+\]|[A-Za-z_][A-Za-z0-9_$.]*)"""
    r"""|(?P<number>-?\d+(?:\.\d+)?)|(?P<op><=|>=|<>|!=|\|\||[(),;=<>*+\-/%])""",
    re.DOTALL,
)
_TYPES: dict[str, tuple[Kind, str | None]] = {
    **dict.fromkeys(
        ("int", "integer", "bigint", "smallint", "tinyint", "serial", "bigserial"), ("integer", None)
    ),
    **dict.fromkeys(("real", "float", "double", "numeric", "decimal", "money"), ("number", None)),
    **dict.fromkeys(
        ("text", "varchar", "char", "character", "clob", "string", "json", "jsonb"), ("string", None)
    ),
    **dict.fromkeys(("bool", "boolean"), ("boolean", None)),
    "uuid": ("string", "uuid"),
    "date": ("string", "date"),
    **dict.fromkeys(("timestamp", "timestamptz", "datetime"), ("string", "date-time")),
}
_SKIPPED_WORDS = {
    "precision",
    "varying",
    "unsigned",
    "autoincrement",
    "auto_increment",
    "without",
    "time",
    "zone",
}


@dataclass
class _Tok:
    kind: str
    text: str
    line: int

    @property
    def word(self) -> str:
        return self.text.lower() if self.kind == "ident" else ""


def import_sql(ddl: str, name: str, seed: int = 0) -> ImportedEnv:
    """An environment from CREATE TABLE statements; ``ResourceImportError`` names the line of anything unsupported."""
    ignored: list[Ignored] = []
    tables: list[Resource] = []
    indexed: set[tuple[str, str]] = set()
    for statement in _statements(_tokens(ddl)):
        head = [t.word for t in statement[:3]]
        where = f"line {statement[0].line}"
        if head[:2] == ["create", "table"]:
            tables.append(_table(statement, ignored))
        elif head[:2] == ["create", "index"] or head[:3] == ["create", "unique", "index"]:
            words = [t for t in statement if t.kind == "ident"]
            on = next(i for i, t in enumerate(words) if t.word == "on")
            indexed.add((snake(_ident(words[on + 1])), snake(_ident(words[on + 2]))))
            ignored.append(
                Ignored(
                    where,
                    "statement",
                    "CREATE INDEX (kept as a list filter; SQLite scans seed-sized tables)",
                )
            )
        else:
            raise ResourceImportError(
                where, f"unsupported statement {' '.join(t.text for t in statement[:3])!r}"
            )
    if not tables:
        raise ResourceImportError("line 1", "no CREATE TABLE statement found")
    by_name = {t.name: t for t in tables}
    for table in tables:
        for f in table.fields:
            target = by_name.get(f.references or "")
            if f.references and target is None:
                raise ResourceImportError(table.name, f"{f.name} references unknown table {f.references!r}")
            if target is not None and len(target.keys) != 1:
                raise ResourceImportError(
                    table.name, f"{f.name} references {target.name}, whose key is composite"
                )
    operations = [op for t in tables for op in _operations(t, indexed)]
    return build_imported(
        name=name,
        title=name.replace("_", " ").title(),
        description=f"Tables {', '.join(by_name)} with create, read, update and delete tools.",
        source="SQL DDL",
        generator="importer:sql",
        seed=seed,
        resources=tables,
        operations=operations,
        ignored=ignored,
    )


def _tokens(ddl: str) -> list[_Tok]:
    out, pos, line = [], 0, 1
    while pos < len(ddl):
        match = _TOKEN.match(ddl, pos)
        if match is None:
            raise ResourceImportError(f"line {line}", f"unexpected character {ddl[pos]!r}")
        kind, text = match.lastgroup or "", match.group()
        if kind not in ("space", "comment"):
            out.append(_Tok(kind, text, line))
        line += text.count("\n")
        pos = match.end()
    return out


def _statements(tokens: list[_Tok]) -> list[list[_Tok]]:
    statements: list[list[_Tok]] = [[]]
    for tok in tokens:
        if tok.text == ";":
            statements.append([])
        else:
            statements[-1].append(tok)
    return [s for s in statements if s]


def _ident(tok: _Tok) -> str:
    return tok.text.strip('"`[]').split(".")[-1]


def _split(tokens: list[_Tok]) -> list[list[_Tok]]:
    """Top-level comma-separated parts of a parenthesised list (without its parentheses)."""
    parts: list[list[_Tok]] = [[]]
    depth = 0
    for tok in tokens:
        depth += tok.text == "("
        depth -= tok.text == ")"
        if tok.text == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(tok)
    return [p for p in parts if p]


def _group(tokens: list[_Tok], start: int) -> tuple[list[_Tok], int]:
    """The tokens inside the parentheses opening at ``start``, and the index after them."""
    depth = 0
    for i in range(start, len(tokens)):
        depth += tokens[i].text == "("
        depth -= tokens[i].text == ")"
        if depth == 0:
            return tokens[start + 1 : i], i + 1
    raise ResourceImportError(f"line {tokens[start].line}", "unbalanced parentheses")


def _table(statement: list[_Tok], ignored: list[Ignored]) -> Resource:
    i = 2
    if [t.word for t in statement[2:5]] == ["if", "not", "exists"]:
        i = 5
    name = snake(_ident(statement[i]))
    if i + 1 >= len(statement) or statement[i + 1].text != "(":
        raise ResourceImportError(f"line {statement[i].line}", f"expected '(' after CREATE TABLE {name}")
    body, end = _group(statement, i + 1)
    if end < len(statement):
        ignored.append(
            Ignored(f"line {statement[end].line}", "statement", f"table options after {name} (...)")
        )
    fields: dict[str, Field] = {}
    keys: list[str] = []
    for part in _split(body):
        if part[0].word == "constraint":
            part = part[2:]
        first = part[0].word
        if first in ("primary", "unique", "foreign", "check"):
            _table_constraint(part, fields, keys, ignored)
        else:
            column, is_key = _column(part, ignored)
            fields[column.name] = column
            keys += [column.name] if is_key else []
    if not keys:
        raise ResourceImportError(f"line {statement[0].line}", f"table {name} has no PRIMARY KEY")
    kinds = {fields[k].kind for k in keys}
    if len(keys) == 1:
        key = fields[keys[0]]
        style = "integer" if key.kind == "integer" else "uuid" if key.format == "uuid" else "prefix"
        fields[key.name] = replace(key, read_only=True, nullable=False, default=None, auto=None)
    elif not kinds <= {"integer", "string"}:
        raise ResourceImportError(
            f"line {statement[0].line}", f"key columns of {name} must be integers or text"
        )
    else:
        style = "client"
    ordered = [fields[k] for k in keys] + [f for n, f in fields.items() if n not in keys]
    return Resource(
        name=name,
        entity=singular(name),
        fields=tuple(replace(f, nullable=False) if f.name in keys else f for f in ordered),
        keys=tuple(keys),
        id_style=style,  # type: ignore[arg-type]
        description=f"Rows of the {name} table.",
    )


def _column(part: list[_Tok], ignored: list[Ignored]) -> tuple[Field, bool]:
    name, where = snake(_ident(part[0])), f"line {part[0].line}"
    type_word = part[1].word if len(part) > 1 else ""
    if type_word not in _TYPES:
        raise ResourceImportError(
            where, f"column {name}: unsupported type {part[1].text if len(part) > 1 else '(none)'!r}"
        )
    kind, fmt = _TYPES[type_word]
    values: dict[str, Any] = {"name": name, "kind": kind, "format": fmt, "nullable": True}
    is_key = False
    i = 2
    while i < len(part):
        word = part[i].word
        if part[i].text == "(":  # VARCHAR(80), NUMERIC(10, 2)
            inner, i = _group(part, i)
            if type_word in ("varchar", "char", "character") and inner and inner[0].kind == "number":
                values["max_length"] = int(inner[0].text)
            continue
        if word == "primary":
            is_key, i = True, i + 2
        elif word == "not" and i + 1 < len(part) and part[i + 1].word == "null":
            values["nullable"], i = False, i + 2
        elif word == "null":
            i += 1
        elif word == "unique":
            values["unique"], i = True, i + 1
        elif word == "default":
            i = _default(part, i + 1, values, ignored)
        elif word == "check":
            inner, i = _group(part, i + 1)
            _check(inner, values, ignored)
        elif word == "references":
            values["references"] = snake(_ident(part[i + 1]))
            i += 2
            if i < len(part) and part[i].text == "(":
                _, i = _group(part, i)
            start = i
            while i < len(part) and part[i].word in (
                "on",
                "delete",
                "update",
                "cascade",
                "restrict",
                "set",
                "no",
                "action",
            ):
                i += 1
            if i > start:  # deletes are refused while rows point at a row, whatever the action says
                ignored.append(
                    Ignored(where, "field", f"{' '.join(t.text for t in part[start:i])} on {name}")
                )
        elif word in _SKIPPED_WORDS or word == "constraint":
            i += 1 if word != "constraint" else 2
        elif word == "collate":
            ignored.append(Ignored(where, "field", f"COLLATE on {name}"))
            i += 2
        else:
            raise ResourceImportError(
                f"line {part[i].line}", f"column {name}: unsupported syntax {part[i].text!r}"
            )
    return Field(**values), is_key


def _default(part: list[_Tok], i: int, values: dict[str, Any], ignored: list[Ignored]) -> int:
    tok = part[i]
    if tok.word in ("current_timestamp", "now"):
        values["auto"] = "now"
    elif tok.word == "current_date":
        values["auto"] = "today"
    elif tok.kind == "string":
        values["default"] = tok.text[1:-1].replace("''", "'")
    elif tok.kind == "number":
        values["default"] = float(tok.text) if values["kind"] == "number" else int(float(tok.text))
    elif tok.word in ("true", "false"):
        values["default"] = tok.word == "true"
    elif tok.text == "(":
        inner, end = _group(part, i)
        ignored.append(
            Ignored(
                f"line {tok.line}",
                "field",
                f"DEFAULT ({' '.join(t.text for t in inner)}) of {values['name']} (not evaluated)",
            )
        )
        return end
    else:
        ignored.append(
            Ignored(f"line {tok.line}", "field", f"DEFAULT {tok.text} of {values['name']} (not evaluated)")
        )
    if tok.word == "now" and i + 1 < len(part) and part[i + 1].text == "(":
        return _group(part, i + 1)[1]
    return i + 1


def _check(inner: list[_Tok], values: dict[str, Any], ignored: list[Ignored]) -> None:
    text = " ".join(t.text for t in inner)
    words = [t.word or t.text for t in inner]
    literals = [t for t in inner if t.kind in ("string", "number")]
    if len(words) > 2 and words[1] == "in":
        values["enum"] = tuple(
            t.text[1:-1].replace("''", "'") if t.kind == "string" else int(float(t.text)) for t in literals
        )
    elif len(words) == 3 and words[1] in (">=", ">", "<=", "<") and inner[2].kind == "number":
        values["minimum" if words[1] in (">=", ">") else "maximum"] = float(inner[2].text)
    elif len(words) == 5 and words[1] == "between":
        values["minimum"], values["maximum"] = float(inner[2].text), float(inner[4].text)
    else:
        ignored.append(Ignored(f"line {inner[0].line}", "field", f"CHECK ({text}) is not enforced"))


def _table_constraint(
    part: list[_Tok], fields: dict[str, Field], keys: list[str], ignored: list[Ignored]
) -> None:
    where, first = f"line {part[0].line}", part[0].word
    if first == "check":
        inner, _ = _group(part, 1)
        target = fields.get(snake(_ident(inner[0])))
        if target is None:
            ignored.append(
                Ignored(where, "field", f"CHECK ({' '.join(t.text for t in inner)}) is not enforced")
            )
            return
        values = dict(target.__dict__)
        _check(inner, values, ignored)
        fields[target.name] = Field(**values)
        return
    start = next(i for i, t in enumerate(part) if t.text == "(")
    inner, end = _group(part, start)
    columns = [snake(_ident(t)) for t in inner if t.kind == "ident"]
    missing = [c for c in columns if c not in fields]
    if missing:
        raise ResourceImportError(where, f"constraint names unknown column(s) {', '.join(missing)}")
    if first == "primary":
        keys[:] = columns
    elif first == "unique" and len(columns) == 1:
        fields[columns[0]] = replace(fields[columns[0]], unique=True)
    elif first == "unique":
        ignored.append(
            Ignored(where, "field", f"UNIQUE ({', '.join(columns)}) across columns is not enforced")
        )
    else:  # FOREIGN KEY (col) REFERENCES table (col)
        if len(columns) != 1 or end + 1 >= len(part) or part[end].word != "references":
            raise ResourceImportError(
                where, "only single-column FOREIGN KEY (...) REFERENCES t (...) is supported"
            )
        fields[columns[0]] = replace(fields[columns[0]], references=snake(_ident(part[end + 1])))


def _operations(table: Resource, indexed: set[tuple[str, str]]) -> list[Operation]:
    filters = tuple(
        f.name
        for f in table.fields
        if f.name not in table.keys
        and f.kind != "array"
        and (f.references or f.enum is not None or (table.name, f.name) in indexed)
    )
    label = table.entity.replace("_", " ")
    ops = [
        Operation("get", table.name, f"get_{table.entity}", f"Get one {label} by its key."),
        Operation(
            "list",
            table.name,
            f"list_{table.name}",
            f"List {table.name.replace('_', ' ')}, filtered and paged.",
            filters=filters,
            pagination="offset",
        ),
        Operation("create", table.name, f"create_{table.entity}", f"Create a {label}."),
        Operation(
            "delete", table.name, f"delete_{table.entity}", f"Delete a {label} nothing else points at."
        ),
    ]
    if table.writable:
        ops.insert(
            3,
            Operation(
                "update",
                table.name,
                f"update_{table.entity}",
                f"Change some fields of a {label}.",
                partial=True,
            ),
        )
    return ops
