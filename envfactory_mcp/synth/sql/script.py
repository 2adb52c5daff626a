"""An SQL script -> its dialect and its statements, each with the line it starts on.

Splitting comes before parsing: a dump mixes DDL with things no parser should see
(``DELIMITER`` blocks, psql meta-commands, ``COPY ... FROM stdin`` data), and one statement
a parser cannot read must not cost the others. Comments are blanked out (their line
breaks kept, so positions inside a statement still map to lines of the file); MySQL's
``/*!40101 ... */`` conditional comments are code MySQL runs, so their text is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Dialect = Literal["sqlite", "mysql", "postgres"]
DIALECTS: tuple[Dialect, ...] = ("sqlite", "mysql", "postgres")

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
}


def detect_dialect(text: str) -> Dialect:
    """The dialect whose signals the text shows most (SQLite, the most lenient, on a tie)."""
    scores = {d: sum(min(len(p.findall(text)), 3) for p in pats) for d, pats in _SIGNALS.items()}
    best = max(scores.values())
    return next(d for d in ("sqlite", "postgres", "mysql") if scores[d] == best)


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


def split_statements(text: str, dialect: Dialect) -> tuple[list[Statement], list[int]]:
    """The statements of ``text``, and the lines of psql meta-commands (``\\connect``) skipped.

    Quotes ('...', "...", `...`), comments (``--``, ``/* */``, MySQL ``#``), Postgres
    dollar quotes and MySQL ``DELIMITER`` changes are honoured, so a ``;`` inside a
    function body or a string never ends a statement.
    """
    out: list[Statement] = []
    meta_lines: list[int] = []
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
            if text[i] == "\\":  # a psql meta-command: the rest of the line
                meta_lines.append(line)
                end = text.find("\n", i)
                i = n if end < 0 else end
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
    return out, meta_lines


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
