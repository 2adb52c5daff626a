"""SQL gate: the SQL a package carries reaches nothing beyond its own tables.

A package's ``schema.sql`` and ``seed.sql`` are executed wherever the package is served
(the seed image is built in the serving process, jailed tool code or not), and its tool
code hands SQL strings to the database. SQLite can do more than tables: load native
extensions (``load_extension``), read and write files (``readfile``, ``writefile``,
``edit`` in some builds), reach internals through FTS3's tokenizer pointer
(``fts3_tokenizer``), open other database files (``ATTACH``), change the connection
(``PRAGMA``) and run module code through virtual tables (``CREATE VIRTUAL TABLE ... USING
fts3(...)``, table-valued functions such as ``pragma_*`` or ``fsdir``). None of that is
ever written by the emitter, so the verifier refuses it before anything runs.

The SQL is read, never executed: tokenized as SQLite does (strings, quoted identifiers,
comments), every name followed by ``(`` that is not a table or column list is a function
call and must be one of SQLite's ordinary functions the runtime allows
(``runtime.database.SAFE_SQL_FUNCTIONS``, the one list both use). ``check_data_sql`` also
requires the statements the emitter writes (``env/ddl.py``: ``CREATE TABLE``, ``CREATE
INDEX``; ``env/seed.py``: ``INSERT INTO`` and its own ``PRAGMA defer_foreign_keys =
ON``), so triggers, views and every other statement are refused too. For tool code the
static gate calls ``check_sql_text`` on string literals: text that starts like a
statement is checked in full, any other text only for the names above (it may be prose).
This is a filter with precise messages; the boundary at run time is the runtime's SQLite
authorizer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from envfactory_mcp.runtime.database import SAFE_SQL_FUNCTIONS


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# What SQL may call: the runtime's own list (``runtime/database.py``), which its seed
# guard and the toolbox's authorizer enforce at run time, so the verifier refuses what
# the server would (SQLite's scalar, date and time, aggregate, window, math and JSON
# functions; not load_extension, fts3_tokenizer and the FTS/R-Tree helpers, the shell's
# readfile/writefile/edit, sqlite_* introspection, printf/format, json_each/json_tree).
SAFE_FUNCTIONS = SAFE_SQL_FUNCTIONS
# Names that are never SQL an environment needs, looked for even in text that may be
# prose (a tool's message): functions and table-valued functions that reach files,
# extensions or the database's internals.
DANGEROUS_NAMES = _words(
    "load_extension fts3_tokenizer readfile writefile fsdir zipfile sqlar_compress sqlar_uncompress "
    "sqlite_dbpage sqlite_dbdata sqlite_dbptr sqlite_stmt dbstat shell_escape_crnl"
)
# SQL keywords a "(" may follow without making a function call.
_KEYWORDS_BEFORE_PAREN = _words(
    "ALL AND AS BETWEEN BY CASE CAST CHECK CONFLICT DEFAULT DISTINCT DO ELSE EXCEPT EXISTS FILTER FROM "
    "GLOB GROUP HAVING IN INTERSECT IS JOIN KEY LIKE LIMIT MATCH NOT OFFSET ON OR ORDER OVER PARTITION "
    "RAISE REGEXP RETURNING SELECT SET THEN UNION UNIQUE USING VALUES WHEN WHERE WINDOW WITH"
)
# After these, ``name (`` is a table (or view, index, trigger) and its column list.
_NAME_INTRODUCERS = _words("TABLE INTO REFERENCES INDEX VIEW TRIGGER RECURSIVE")
_STATEMENT_WORDS = _words(
    "SELECT INSERT UPDATE DELETE REPLACE WITH VALUES CREATE DROP ALTER PRAGMA ATTACH DETACH VACUUM "
    "ANALYZE REINDEX BEGIN COMMIT END ROLLBACK SAVEPOINT RELEASE EXPLAIN"
)
# The statements the emitter writes into each data file (env/ddl.py, env/seed.py).
EMITTED_STATEMENTS = {
    "schema.sql": ("CREATE TABLE", "CREATE INDEX"),
    "seed.sql": ("INSERT INTO",),
}
EMITTED_PRAGMAS = {"seed.sql": ("PRAGMA defer_foreign_keys = ON",)}
_VIRTUAL = "a virtual table runs its module's code"
_WHY = {
    "ATTACH": "ATTACH opens another database file",
    "DETACH": "DETACH changes the connection's databases",
    "PRAGMA": "PRAGMA changes the connection (only the emitter's own is allowed)",
    "VACUUM": "VACUUM INTO writes a database file",
}

_LOOKS_LIKE_SQL = re.compile(
    r"\s*\(?\s*(?:"
    + "|".join(sorted(_STATEMENT_WORDS))
    + r")\b.*\b(?:FROM|INTO|SET|VALUES|WHERE|TABLE|AS|SELECT)\b",
    re.DOTALL,
)
_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>--[^\n]*|/\*(?:.|\n)*?(?:\*/|\Z))
  | (?P<blob>[xX]'[^']*'?)
  | (?P<string>'(?:[^']|'')*'?)
  | (?P<quoted>"(?:[^"]|"")*"?|`(?:[^`]|``)*`?|\[[^\]]*\]?)
  | (?P<number>(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F_]+)
  | (?P<ident>[A-Za-z_\u0080-\U0010ffff][\w$\u0080-\U0010ffff]*)
  | (?P<param>[?:@$][\w]*)
  | (?P<op>->>|->|\|\||<<|>>|<=|>=|==|!=|<>|.)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # ident, quoted, string, blob, number, param, op
    text: str
    line: int

    @property
    def word(self) -> str:
        """An identifier's upper-case text ('' for anything else)."""
        return self.text.upper() if self.kind == "ident" else ""

    @property
    def name(self) -> str:
        """The name an identifier (quoted or not) stands for, lower-case."""
        if self.kind == "quoted":
            inner = self.text[1:-1] if len(self.text) > 1 else ""
            return inner.replace(self.text[0] * 2, self.text[0]).lower()
        return self.text.lower() if self.kind == "ident" else ""


@dataclass(frozen=True, slots=True)
class SqlProblem:
    line: int  # 1-based, in the text checked
    message: str


def check_data_sql(text: str, file: str) -> list[SqlProblem]:
    """Problems of a package's ``schema.sql`` or ``seed.sql`` (``file`` is the name):
    statements the emitter does not write, and calls beyond SQLite's core functions."""
    problems: list[SqlProblem] = []
    allowed = EMITTED_STATEMENTS.get(file, ())
    pragmas = EMITTED_PRAGMAS.get(file, ())
    for statement in _statements(_tokens(text)):
        head = _head(statement)
        if head.startswith("PRAGMA") and _flat(statement) in pragmas:
            continue
        if not any(head.startswith(kind) for kind in allowed):
            first = statement[0].word or statement[0].text
            if head == "CREATE VIRTUAL":
                why = _VIRTUAL
            else:
                why = _WHY.get(
                    first, f"{file} holds only {' and '.join(allowed)} statements, as the emitter writes it"
                )
            problems.append(SqlProblem(statement[0].line, f"{_shown(statement)}: {why}"))
        problems.extend(_calls(statement))
    return problems


def looks_like_sql(text: str) -> bool:
    """Text that starts with an upper-case statement keyword and has another upper-case
    clause keyword later (``SELECT ... FROM``, ``UPDATE ... SET``): SQL, not prose."""
    return _LOOKS_LIKE_SQL.match(text) is not None


def check_sql_text(text: str, statement: bool) -> list[SqlProblem]:
    """Problems of a string from tool code: all of them when it is SQL (``statement``:
    the caller knows it is, e.g. the SQL argument of ``ctx.all``, or it looks like SQL),
    else only the dangerous names (``DANGEROUS_NAMES``, ``pragma_*``, ATTACH DATABASE,
    virtual tables): it may be prose."""
    tokens = list(_tokens(text))
    if statement or looks_like_sql(text):
        problems: list[SqlProblem] = []
        for part in _statements(tokens):
            first = part[0].word
            if first in _WHY:
                problems.append(SqlProblem(part[0].line, f"{_shown(part)}: {_WHY[first]}"))
            else:
                problems.extend(_calls(part))
        return problems
    return _dangerous_names(tokens)


# ---------------------------------------------------------------------------------- reading


def _tokens(text: str) -> Iterator[_Token]:
    line = 1
    for match in _TOKEN.finditer(text):
        kind, value = match.lastgroup or "op", match.group()
        if kind not in ("space", "comment"):
            yield _Token(kind, value, line)
        line += value.count("\n")


def _statements(tokens: Iterator[_Token] | list[_Token]) -> Iterator[list[_Token]]:
    statement: list[_Token] = []
    for token in tokens:
        if token.kind == "op" and token.text == ";":
            if statement:
                yield statement
            statement = []
        else:
            statement.append(token)
    if statement:
        yield statement


def _head(statement: list[_Token]) -> str:
    """The statement's leading keywords, e.g. ``CREATE UNIQUE INDEX`` -> ``CREATE INDEX``."""
    words = [t.word for t in statement[:4] if t.kind == "ident"]
    words = [w for w in words if w not in ("TEMP", "TEMPORARY", "UNIQUE", "OR")]
    return " ".join(words[:2])


def _flat(statement: list[_Token]) -> str:
    return " ".join(t.text for t in statement)


def _shown(statement: list[_Token]) -> str:
    text = " ".join(t.text for t in statement[:6])
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------------------------- judging


def _calls(statement: list[_Token]) -> list[SqlProblem]:
    """Every function call in one statement that is not a core function, every virtual
    table and every dangerous table-valued function named in it."""
    problems: list[SqlProblem] = []
    head = _head(statement)
    for i, token in enumerate(statement):
        if token.kind not in ("ident", "quoted"):
            continue
        if token.word == "VIRTUAL" and head.startswith("CREATE"):
            problems.append(SqlProblem(token.line, f"CREATE VIRTUAL TABLE: {_VIRTUAL}"))
            continue
        prev = statement[i - 1] if i else None
        if prev is not None and prev.word == "USING" and head.startswith("CREATE"):
            problems.append(SqlProblem(token.line, f"USING {token.text}: {_VIRTUAL}"))
            continue
        name = token.name
        if name in DANGEROUS_NAMES or name.startswith("pragma_"):
            problems.append(SqlProblem(token.line, f"{token.text}: {_dangerous_why(name)}"))
            continue
        following = statement[i + 1] if i + 1 < len(statement) else None
        if following is None or following.kind != "op" or following.text != "(":
            continue
        if token.kind == "ident" and token.word in _KEYWORDS_BEFORE_PAREN:
            continue
        if _names_a_table(statement, i, head):
            continue
        if name not in SAFE_FUNCTIONS:
            problems.append(
                SqlProblem(
                    token.line,
                    f"{token.text}(): calls a function the runtime does not allow (SAFE_SQL_FUNCTIONS)",
                )
            )
    return problems


def _names_a_table(statement: list[_Token], i: int, head: str) -> bool:
    """Whether the name at ``i``, followed by ``(``, is a table (view, index, common
    table expression) and the column list after it, not a function call."""
    j = i - 1
    if j >= 1 and statement[j].text == "." and statement[j - 1].kind in ("ident", "quoted"):
        j -= 2  # schema.table
    prev = statement[j] if j >= 0 else None
    if prev is None:
        return False
    if prev.word in _NAME_INTRODUCERS:
        return True
    if prev.word == "ON" and head == "CREATE INDEX":
        return True
    if prev.word == "EXISTS" and head.startswith("CREATE"):
        return True
    if prev.word == "WITH" or (prev.kind == "op" and prev.text == ","):
        return _is_cte(statement, i)
    return False


def _is_cte(statement: list[_Token], i: int) -> bool:
    """``name (columns) AS (`` / ``AS [NOT] MATERIALIZED``: a common table expression."""
    depth, k = 0, i + 1
    while k < len(statement):
        if statement[k].text == "(":
            depth += 1
        elif statement[k].text == ")":
            depth -= 1
            if depth == 0:
                break
        k += 1
    after = statement[k + 1 : k + 3]
    return (
        len(after) == 2
        and after[0].word == "AS"
        and (after[1].text == "(" or after[1].word in ("MATERIALIZED", "NOT"))
    )


def _dangerous_names(tokens: list[_Token]) -> list[SqlProblem]:
    problems: list[SqlProblem] = []
    for i, token in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        name = token.name
        if token.kind in ("ident", "quoted") and (name in DANGEROUS_NAMES or name.startswith("pragma_")):
            problems.append(SqlProblem(token.line, f"{token.text}: {_dangerous_why(name)}"))
        elif token.word == "VIRTUAL" and nxt is not None and nxt.word == "TABLE":
            problems.append(SqlProblem(token.line, f"VIRTUAL TABLE: {_VIRTUAL}"))
        elif token.word == "ATTACH" and nxt is not None and (nxt.word == "DATABASE" or nxt.kind == "string"):
            problems.append(SqlProblem(token.line, f"ATTACH: {_WHY['ATTACH']}"))
        elif token.text == "PRAGMA" and nxt is not None and nxt.kind in ("ident", "quoted"):
            problems.append(SqlProblem(token.line, f"PRAGMA {nxt.text}: {_WHY['PRAGMA']}"))
    return problems


def _dangerous_why(name: str) -> str:
    if name.startswith("pragma_"):
        return "a PRAGMA as a table-valued function reaches the connection's settings and internals"
    if name in ("load_extension",):
        return "loads native code into the process"
    if name == "fts3_tokenizer":
        return "hands out FTS3's tokenizer pointers, a way into the process's memory"
    if name in ("readfile", "writefile", "fsdir", "zipfile", "sqlar_compress", "sqlar_uncompress"):
        return "reaches files outside the database"
    return "reaches the database's internals"
