"""The seed splitter (``database.sql_statements``) cuts a script where SQLite would end a
statement and nowhere else: at a ';' outside quoted text, quoted identifiers and comments,
and only once the statement is complete (a trigger body holds inner ';'). It is compared
here with the plainest walk that does the same, one lexeme at a time, on scripts built
from the characters that can hide a ';'."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from envfactory_mcp.runtime.database import _MAX_INNER_SEMICOLONS, build_seed_image, sql_statements

_LEXEME = re.compile(
    r"""'[^']*(?:'|\Z)|"[^"]*(?:"|\Z)|`[^`]*(?:`|\Z)|\[[^\]]*(?:\]|\Z)|--[^\n]*|/\*.*?(?:\*/|\Z)|;""", re.S
)


def by_lexemes(script: str) -> Iterator[str]:
    """Every lexeme that can hide a ';' in turn, each ';' outside them a candidate end."""
    start, inner = 0, 0
    for lexeme in _LEXEME.finditer(script):
        if lexeme.group() != ";":
            continue
        end = lexeme.end()
        if sqlite3.complete_statement(script[start:end]):
            yield script[start:end]
            start, inner = end, 0
        else:
            inner += 1
            if inner > _MAX_INNER_SEMICOLONS:
                break
    if script[start:].strip():
        yield script[start:]


_pieces = st.sampled_from(
    [";", "'", '"', "`", "[", "]", "-", "--", "/", "*", "/*", "*/", "\n", " ", "x", "1", "''", "END", "BEGIN",
     "CREATE TRIGGER t AFTER INSERT ON a BEGIN ", "INSERT INTO a VALUES (1);", "SELECT 'a;b';"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_pieces, max_size=40).map("".join))
def test_statements_end_where_the_lexeme_walk_ends_them(script: str) -> None:
    assert list(sql_statements(script)) == list(by_lexemes(script))


def test_a_seed_of_many_rows_with_tricky_values_loads_row_for_row() -> None:
    rows = [f"INSERT INTO t VALUES ({i}, 'it''s; -- not a comment /* nor this', \"q;\");" for i in range(500)]
    script = "-- header; with a semicolon\n" + "\n".join(rows) + "\n/* trailing; comment"
    assert len(list(sql_statements(script))) == 501  # the rows, then the trailing comment
    image = build_seed_image("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT);", "\n".join(rows))
    db = sqlite3.connect(":memory:")
    db.deserialize(image)
    assert db.execute("SELECT count(*), min(a), max(b) FROM t").fetchone() == (
        500,
        "it's; -- not a comment /* nor this",
        "q;",
    )


def test_a_script_with_no_end_is_one_statement_and_read_once() -> None:
    script = "x" * 200_000 + "'" + "a;" * 50_000  # no ';' outside the open quote
    assert list(sql_statements(script)) == [script]
