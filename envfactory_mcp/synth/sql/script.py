"""An SQL script -> its dialect and its statements, each with the line it starts on.

Splitting comes before parsing: a dump mixes DDL with things no parser should see
(``DELIMITER`` blocks, psql meta-commands, SQL*Plus commands, ``COPY ... FROM stdin``
data), and one statement a parser cannot read must not cost the others. Comments are
blanked out (their line breaks kept, so positions inside a statement still map to lines
of the file); MySQL's ``/*!40101 ... */`` conditional comments are code MySQL runs, so
their text is kept. Client commands are lines, not statements: psql's ``\\connect``, and
SQL*Plus's ``REM``, ``PROMPT``, ``SPOOL``, ``@file``, a ``/`` line (and in an Oracle
script ``SET``, ``DEFINE``, ``EXEC``, ``CONNECT``, ...); an Oracle PL/SQL block runs to
its ``/`` line. ``CREATE SCHEMA name CREATE TABLE ... CREATE VIEW ...`` is one statement
holding several: each element becomes a statement of its own.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Literal

Dialect = Literal["sqlite", "mysql", "postgres", "oracle"]
DIALECTS: tuple[Dialect, ...] = ("sqlite", "mysql", "postgres", "oracle")

# Signals of each dialect, counted in the raw text; each signal counts at most 3 times,
# so one construct repeated a thousand times does not outvote the others.
_SIGNALS: dict[Dialect, tuple[re.Pattern[str], ...]] = {
    "mysql": tuple(
        re.compile(p, re.IGNORECASE | re.MULTILINE)
        for p in (
            r"`\w+`",
            r"\bENGINE\s*=",
            r"\bAUTO_INCREMENT\b",
            r"^\s*#",
            r"/\*!\d*",
            r"^\s*DELIMITER\s",
            r"\bUNSIGNED\b",
            r"\bLOCK TABLES\b",
            r"\bDEFAULT CHARSET\b",
            r"\b(?:TINY|MEDIUM|LONG)TEXT\b",
            r"\bENUM\s*\(",
        )
    ),
    "postgres": tuple(
        re.compile(p, re.IGNORECASE | re.MULTILINE)
        for p in (
            r"\$\w*\$",
            r"::\w",
            r"\b(?:BIG|SMALL)?SERIAL\b",
            r"\bCREATE SEQUENCE\b",
            r"\bOWNER TO\b",
            r"\bnextval\s*\(",
            r"^COPY\s.*\bFROM\s+stdin",
            r"\bAS ENUM\b",
            r"\bCREATE EXTENSION\b",
            r"\bsearch_path\b",
            r"\btime zone\b",
            r"\bcharacter varying\b",
            r"\b(?:bytea|jsonb|timestamptz|tsvector)\b",
            r"\bALTER TABLE ONLY\b",
            r"^\\[a-z]+",
        )
    ),
    "sqlite": tuple(
        re.compile(p, re.IGNORECASE | re.MULTILINE)
        for p in (
            r"\bAUTOINCREMENT\b",
            r"\bWITHOUT ROWID\b",
            r"^\s*PRAGMA\b",
            r"\[\w+\]\s",
            r"\bBEGIN TRANSACTION\b",
            r"\)\s*STRICT\b",
        )
    ),
    "oracle": tuple(
        re.compile(p, re.IGNORECASE | re.MULTILINE)
        for p in (
            r"\bN?VARCHAR2\b",
            r"\bNUMBER\s*\(",
            r"^\s*REM(?:ARK)?\b",
            r"^\s*PROMPT\b",
            r"^\s*/\s*$",
            r"^\s*SPOOL\b",
            r"^\s*WHENEVER\s+(?:SQL|OS)ERROR\b",
            r"\bN?CLOB\b",
            r"\bSYSDATE\b",
            r"\bNOCACHE\b",
            r"\bNOCYCLE\b",
            r"\bTO_DATE\s*\(",
            r"\bPLS_INTEGER\b",
        )
    ),
}


def detect_dialect(text: str) -> Dialect:
    """The dialect whose signals the text shows most (SQLite, the most lenient, on a tie)."""
    scores = {d: sum(min(len(p.findall(text)), 3) for p in pats) for d, pats in _SIGNALS.items()}
    best = max(scores.values())
    return next(d for d in ("sqlite", "postgres", "mysql", "oracle") if scores[d] == best)


@dataclass
class Statement:
    """One statement of a script: its text (comments blanked), the line it starts on, and
    for ``COPY ... FROM stdin`` the data lines that follow it."""

    text: str
    line: int
    data: list[str] = field(default_factory=list)

    def words(self, count: int = 4) -> list[str]:
        """The first ``count`` words, upper case (for telling statements apart)."""
        return [w.upper() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", self.text[:400])[:count]]


_DELIMITER = re.compile(r"[ \t]*DELIMITER[ \t]+(\S+)[ \t]*(?:\r?\n|$)", re.IGNORECASE)
_DOLLAR = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")
_CONDITIONAL = re.compile(r"/\*!\d*")
_COPY_STDIN = re.compile(r"^\s*COPY\b.*\bFROM\s+stdin\b", re.IGNORECASE | re.DOTALL)


def split_statements(text: str, dialect: Dialect) -> tuple[list[Statement], list[tuple[int, str]]]:
    """The statements of ``text``, and the client commands skipped (line, why).

    Quotes ('...', "...", `...`), comments (``--``, ``/* */``, MySQL ``#``), Postgres
    dollar quotes, MySQL ``DELIMITER`` changes and Oracle's ``/`` lines are honoured, so a
    ``;`` inside a function body or a string never ends a statement.
    """
    out: list[Statement] = []
    meta_lines: list[tuple[int, str]] = []
    delimiter = ";"
    ordinary = _ordinary(delimiter)
    buf: list[str] = []
    content = False  # whether buf holds anything but blanked comments
    start_line = line = 1
    i, n = 0, len(text)
    backslash_escapes = dialect == "mysql"

    def flush() -> None:
        body = "".join(buf).strip()
        if body:
            out.append(Statement(body, start_line))
        buf.clear()

    while i < n:
        if not content:
            # Between statements: skip blank space, noting where the next one starts.
            while i < n and text[i] in " \t\r\n":
                line += text[i] == "\n"
                i += 1
            if i >= n:
                break
            buf.clear()  # blanked comments before the statement
            start_line = line
            if dialect == "mysql" and (m := _DELIMITER.match(text, i)):
                delimiter, ordinary = m.group(1), _ordinary(m.group(1))
                line += m.group(0).count("\n")
                i = m.end()
                continue
            client = _client_command(text, i, dialect)
            if client is not None:  # a psql or SQL*Plus command: the rest of the line
                if client:  # (a REM line is a comment)
                    meta_lines.append((line, client))
                end = text.find("\n", i)
                i = n if end < 0 else end
                continue
            if dialect == "oracle" and _PLSQL.match(text, i):  # a PL/SQL block: up to its "/" line
                slash = _SLASH_LINE.search(text, i)
                if slash is not None:
                    out += _block(text[i : slash.start()], start_line, dialect)
                    line += text.count("\n", i, slash.end())
                    i = slash.end()
                    continue
        if m := ordinary.match(text, i):
            buf.append(m.group(0))
            content = True
            i = m.end()
            continue
        c = text[i]
        if text.startswith(delimiter, i):
            statement_text = "".join(buf)
            if delimiter == ";" and _open_block(statement_text):  # ; inside BEGIN ... END
                buf.append(";")
                i += 1
                continue
            i += len(delimiter)
            flush()
            content = False
            if _COPY_STDIN.match(statement_text):  # the data lines, up to "\."
                i, line = _copy_data(text, i, line, out[-1])
            continue
        if (c == "-" and text.startswith("--", i)) or (c == "#" and dialect == "mysql"):
            end = text.find("\n", i)
            i = n if end < 0 else end
            buf.append(" ")
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            stop = n if end < 0 else end + 2
            conditional = _CONDITIONAL.match(text, i) if dialect == "mysql" else None
            if conditional:  # MySQL runs what is inside: keep it
                inner = text[conditional.end() : max(conditional.end(), stop - 2)]
                buf.append(" " + inner + " ")
                content = content or bool(inner.strip())
            else:
                buf.append(" " + "\n" * text.count("\n", i, stop))
            line += text.count("\n", i, stop)
            i = stop
            continue
        if c in "'\"`":
            stop = _quote_end(text, i, backslash_escapes and c != "`")
        elif c == "$" and dialect == "postgres" and (m := _DOLLAR.match(text, i)) and _word_start(text, i):
            close = text.find(m.group(0), m.end())
            stop = n if close < 0 else close + len(m.group(0))
        else:
            stop = i + 1
        buf.append(text[i:stop])
        content = content or not text[i:stop].isspace()
        line += text.count("\n", i, stop)
        i = stop
    flush()
    return [part for st in out for part in schema_elements(st)], meta_lines


# SQL*Plus commands: a line each, whatever the dialect (no SQL statement starts so), and in
# an Oracle script the ones that share a first word with SQL elsewhere (SET, EXEC, ...).
_SQLPLUS_ANY = re.compile(
    r"(?:REM(?:ARK)?|PRO(?:MPT)?|SPO(?:OL)?|WHENEVER)(?=\s|$)|@@?|/[ \t]*(?:\r?\n|$)", re.IGNORECASE
)
_SQLPLUS_ORACLE = re.compile(
    r"(?:SET|DEF(?:INE)?|UNDEF(?:INE)?|EXEC(?:UTE)?|CONN(?:ECT)?|DISC(?:ONNECT)?|EXIT|QUIT|"
    r"ACC(?:EPT)?|PAU(?:SE)?|COL(?:UMN)?|TTI(?:TLE)?|BTI(?:TLE)?|BRE(?:AK)?|COMP(?:UTE)?|"
    r"CL(?:EAR)?|SHO(?:W)?|DESC(?:RIBE)?|HO(?:ST)?|VAR(?:IABLE)?|PRI(?:NT)?|TIMI(?:NG)?|"
    r"STA(?:RT)?|STORE|RUN|PASSW(?:ORD)?|ARCHIVE|RECOVER|STARTUP|SHUTDOWN)(?=\s|;|$)",
    re.IGNORECASE,
)
_PLSQL = re.compile(
    r"(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:(?:NON)?EDITIONABLE\s+)?"
    r"(?:PROCEDURE|FUNCTION|PACKAGE|TRIGGER|TYPE|LIBRARY|JAVA)\b|DECLARE\b|BEGIN\b)",
    re.IGNORECASE,
)
_REMARK = re.compile(r"REM(?:ARK)?(?=\s|$)", re.IGNORECASE)
_ANONYMOUS = re.compile(r"^\s*BEGIN\b(.*)\bEND\s*;?\s*$", re.IGNORECASE | re.DOTALL)
_SLASH_LINE = re.compile(r"^[ \t]*/[ \t]*(?:\r?\n|$)", re.MULTILINE)


def _block(text: str, line: int, dialect: Dialect) -> list[Statement]:
    """A PL/SQL block: an anonymous ``BEGIN ... END;`` of plain statements (the way Oracle's
    sample schemas load their data) is those statements; any other block is one statement."""
    match = _ANONYMOUS.match(text)
    if match is None:
        return [Statement(text.strip(), line)]
    inner, _ = split_statements(match.group(1), dialect)
    first = line + text.count("\n", 0, match.start(1))
    if any(
        _PLSQL.match(st.text) or re.match(r"(?:IF|FOR|LOOP|WHILE)\b", st.text, re.IGNORECASE) for st in inner
    ):
        return [Statement(text.strip(), line)]
    for statement in inner:
        statement.line += first - 1
    return inner


def _client_command(text: str, i: int, dialect: Dialect) -> str | None:
    """Why the line at ``i`` is a client command and not SQL, or None when it is SQL."""
    if text[i] == "\\":
        return "psql meta-command (\\connect, \\set, ...): a client command"
    if _REMARK.match(text, i):
        return ""
    if _SQLPLUS_ANY.match(text, i) or (dialect == "oracle" and _SQLPLUS_ORACLE.match(text, i)):
        word = re.match(r"\S+", text[i:])
        return f"SQL*Plus command {word.group(0)[:20] if word else '/'}: a client command"
    return None


_SCHEMA_HEAD = re.compile(r"\s*CREATE\s+SCHEMA\b", re.IGNORECASE)
_ELEMENT = re.compile(r"(?:CREATE|GRANT)\b", re.IGNORECASE)


def schema_elements(statement: Statement) -> list[Statement]:
    """``CREATE SCHEMA s CREATE TABLE a (...) CREATE VIEW v AS ...``: the schema and each
    element as a statement of its own (split at a top-level ``CREATE`` or ``GRANT``)."""
    text = statement.text
    if not _SCHEMA_HEAD.match(text):
        return [statement]
    cuts, depth, i, n = [], 0, _SCHEMA_HEAD.match(text).end(), len(text)  # type: ignore[union-attr]
    while i < n:
        c = text[i]
        if c in "'\"`":
            i = _quote_end(text, i, False)
            continue
        depth += (c == "(") - (c == ")")
        if depth == 0 and c.isalpha() and _word_start(text, i) and _ELEMENT.match(text, i):
            cuts.append(i)
        i += 1
    if not cuts:
        return [statement]
    bounds = [0, *cuts, n]
    return [
        Statement(
            text[a:b].strip(), statement.line + text.count("\n", 0, a), statement.data if a == 0 else []
        )
        for a, b in itertools.pairwise(bounds)
        if text[a:b].strip()
    ]


_COMPOUND = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:TEMP\w*\s+)?"
    r"(?:TRIGGER|PROCEDURE|FUNCTION|EVENT)\b",
    re.IGNORECASE,
)
_BLOCK_WORDS = re.compile(r"\b(BEGIN|CASE|END)\b", re.IGNORECASE)


def _open_block(statement: str) -> bool:
    """A trigger or routine whose ``BEGIN`` has no ``END`` yet (SQLite triggers, MySQL
    routines written without ``DELIMITER``): its ``;`` are inside the body."""
    if not _COMPOUND.match(statement):
        return False
    depth = 0
    for word in _BLOCK_WORDS.findall(statement):
        depth += -1 if word.upper() == "END" else 1
    return depth > 0


def _ordinary(delimiter: str) -> re.Pattern[str]:
    """A run of characters that cannot start a quote, comment or the delimiter."""
    return re.compile("[^'\"`$\\-/#\n" + re.escape(delimiter[0]) + "]+")


def _word_start(text: str, i: int) -> bool:
    return i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")


def _quote_end(text: str, i: int, backslash_escapes: bool) -> int:
    """The index after the quoted text starting at ``i`` (a doubled quote is one quote)."""
    quote, j, n = text[i], i + 1, len(text)
    while j < n:
        if backslash_escapes and text[j] == "\\":
            j += 2
        elif text[j] == quote:
            if j + 1 < n and text[j + 1] == quote:
                j += 2
            else:
                return j + 1
        else:
            j += 1
    return n


def _copy_data(text: str, i: int, line: int, statement: Statement) -> tuple[int, int]:
    """Read the data lines after ``COPY ... FROM stdin;`` (up to ``\\.``) into ``statement``."""
    n = len(text)
    end = text.find("\n", i)
    i, line = (n, line) if end < 0 else (end + 1, line + 1)
    while i < n:
        end = text.find("\n", i)
        row = text[i : n if end < 0 else end].rstrip("\r")
        i, line = (n, line) if end < 0 else (end + 1, line + 1)
        if row == "\\.":
            break
        statement.data.append(row)
    return i, line
