"""The static gate passes real tool code and refuses unsafe or nondeterministic code, naming the line."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envfactory_mcp
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.verify.static_gate import (
    ALLOWED_MODULES,
    GateViolation,
    UnsafeCodeError,
    check_tool_code,
    require_safe,
)

RETAIL_TOOLS = Path(envfactory_mcp.__file__).parent / "blueprints" / "retail" / "tools.py"


def codes_and_lines(source: str) -> set[tuple[str, int]]:
    return {(v.code, v.line) for v in check_tool_code(source)}


def test_retail_tools_pass_unchanged() -> None:
    source = RETAIL_TOOLS.read_text()
    assert check_tool_code(source) == []
    require_safe(source)


def test_mini_bank_tools_pass() -> None:
    import mini_env

    assert check_tool_code(mini_env.TOOLS_SOURCE) == []


def try_except(clause: str) -> str:
    return f"def t(ctx):\n    try:\n        return {{}}\n    {clause}:\n        return {{}}"


HOSTILE = [
    # imports
    ("import os", "import", 1),
    ("import subprocess as sp", "import", 1),
    ("from socket import socket", "import", 1),
    ("import random", "import", 1),
    ("import time", "import", 1),
    ("from . import x", "import", 1),
    ("import importlib", "import", 1),
    ("import ctypes", "import", 1),
    ("import pickle", "import", 1),
    ("import os.path", "import", 1),
    ("def t(ctx):\n    import sys\n    return {}", "import", 2),
    ("from typing import *", "import", 1),
    ("import re._compiler", "import", 1),
    ("import envfactory_mcp.runtime", "import", 1),
    ("from envfactory_mcp.runtime import SessionDatabase", "import", 1),
    ("from envfactory_mcp.verify import sandbox", "import", 1),
    # allowed modules re-export forbidden ones
    ("import ast\n\ndef t(ctx):\n    return ast.sys.modules", "import", 4),
    ("import typing as ty\n\ndef t(ctx):\n    return ty.sys", "import", 4),
    ("import dataclasses\n\ndef t(ctx):\n    return dataclasses.builtins", "import", 4),
    ("from statistics import random", "import", 1),
    ("from dataclasses import inspect", "import", 1),
    ("import ast\n\ndef t(ctx):\n    m = ast\n    return m.sys", "import", 4),
    ("import json\n\ndef t(ctx):\n    return json._default_encoder", "internals", 4),
    # forbidden names
    ("def t(ctx):\n    return __import__('os')", "name", 2),
    ("def t(ctx):\n    return eval('1')", "name", 2),
    ("def t(ctx):\n    exec('x=1')", "name", 2),
    ("def t(ctx):\n    return compile('1', 'f', 'eval')", "name", 2),
    ("def t(ctx):\n    return open('/etc/passwd').read()", "name", 2),
    ("def t(ctx):\n    return getattr(ctx, 'db')", "name", 2),
    ("def t(ctx):\n    breakpoint()", "name", 2),
    ("def t(ctx):\n    return __builtins__['eval']('1')", "name", 2),
    ("def t(ctx):\n    run = eval\n    return run('1')", "name", 2),
    ("def t(ctx):\n    return vars(ctx)", "name", 2),
    ("def t(ctx):\n    raise SystemExit(0)", "name", 2),
    ("from operator import attrgetter", "name", 1),
    ("import operator\n\ndef t(ctx, f):\n    return operator.attrgetter('x')(f)", "name", 4),
    ("import typing\n\ndef t(ctx):\n    return typing.get_type_hints(t)", "name", 4),
    ("def t(ctx, x: 'eval(\"1\")'):\n    return {}", "name", 1),
    # dunders
    ("def t(ctx):\n    return ().__class__.__bases__[0].__subclasses__()", "dunder", 2),
    ("def t(ctx, f):\n    return f.__globals__", "dunder", 2),
    ("def t(ctx):\n    return __name__", "dunder", 2),
    ("def t(ctx, f):\n    return '{0.__globals__}'.format(f)", "dunder", 2),
    # the bypasses: a match pattern reads attributes, a run-time format string too
    ("def t(ctx):\n    match t:\n        case object(__builtins__=b):\n            return b", "dunder", 3),
    ("def t(ctx, g):\n    match g:\n        case object(gi_frame=f):\n            return f", "internals", 3),
    ("def t(ctx, f):\n    return ('{0.' + '_' * 2 + 'globals' + '_' * 2 + '}').format(f)", "format", 2),
    ("def t(ctx, f):\n    spec = '{0.x}'\n    return spec.format_map({'0': f})", "format", 3),
    ("import string\n\ndef t(ctx, f):\n    return string.Formatter().get_field('0.x', (f,), {})", "name", 4),
    ("from string import Formatter", "name", 1),
    # frames, private attributes, the connection
    ("def t(ctx):\n    g = (x for x in ())\n    return g.gi_frame.f_back", "internals", 3),
    ("def t(ctx):\n    ctx.db.commit()", "internals", 2),
    ("def t(ctx):\n    ctx.db.enable_load_extension(True)", "internals", 2),
    ("def t(ctx):\n    ctx.db.executescript('DELETE FROM users')", "internals", 2),
    # the real clock
    ("import datetime\n\ndef t(ctx):\n    return datetime.datetime.now().isoformat()", "determinism", 4),
    ("from datetime import date\n\ndef t(ctx):\n    return str(date.today())", "determinism", 4),
    # scope
    ("X = 1\n\ndef t(ctx):\n    global X\n    X = 2", "scope", 4),
    ("def t(ctx):\n    n = 0\n    def inner():\n        nonlocal n\n        n += 1", "scope", 4),
    # import-time side effects
    ("print('hi')", "toplevel", 1),
    ("CACHE = {}\nCACHE['a'] = 1", "toplevel", 2),
    ("if True:\n    X = 1", "toplevel", 1),
    ("FUNCS = []\nX = [f() for f in FUNCS]", "toplevel", 2),
    ("def t(ctx, x=print('hi')):\n    return {}", "toplevel", 1),
    ("@lru_cache\ndef t(ctx):\n    return {}", "toplevel", 1),
    ("class A(metaclass=M):\n    pass", "toplevel", 1),
    ("class A:\n    print('x')", "toplevel", 2),
    ("try:\n    X = 1\nexcept ValueError:\n    X = 2", "toplevel", 1),
    # async, loops, exceptions
    ("async def t(ctx):\n    return {}", "async", 1),
    ("def t(ctx):\n    while True:\n        pass", "loop", 2),
    ("def t(ctx):\n    while 1:\n        for i in range(3):\n            break", "loop", 2),
    (try_except("except BaseException"), "except", 4),
    (try_except("except"), "except", 4),
    (try_except("except (ValueError, KeyboardInterrupt)"), "except", 4),
    # syntax
    ("def t(ctx:\n    return {}", "syntax", 1),
    ("def t(ctx):\n    return (1 +\n", "syntax", 2),
]


@pytest.mark.parametrize(("source", "code", "line"), HOSTILE)
def test_hostile_snippet_is_refused_at_its_line(source: str, code: str, line: int) -> None:
    assert codes_and_lines(source) == {(code, line)}


def test_nondeterministic_imports_say_why() -> None:
    (random_,) = check_tool_code("import random")
    (time_,) = check_tool_code("import time")
    assert "deterministic" in random_.message
    assert "deterministic" in time_.message and "ctx.now" in time_.message


BENIGN = [
    """
    def t(ctx, *, ids: list[str]) -> dict:
        rows = {i: ctx.one("SELECT * FROM x WHERE id = ?", (i,)) for i in ids}
        seen = {r["kind"] for r in rows.values() if r}
        return {"n": len(rows), "kinds": sorted(seen), "ids": [i.upper() for i in ids]}
    """,
    """
    import re

    PATTERN = re.compile(r"^[a-z]+$")

    def t(ctx, *, s: str) -> dict:
        return {"ok": bool(PATTERN.match(s))}
    """,
    """
    import ast
    import operator

    _OPS = {ast.Add: operator.add, ast.Sub: operator.sub}
    _UNARY = {ast.USub: operator.neg}
    """,
    """
    from dataclasses import dataclass, field

    @dataclass(frozen=True)
    class Line:
        "One order line; __init__ is generated."

        item_id: str
        tags: list = field(default_factory=list)

        @property
        def label(self) -> str:
            return f"{self.item_id}:{len(self.tags)}"
    """,
    """
    def t(ctx, *, n: int) -> dict:
        def square(x: int) -> int:
            return x * x

        def evens():
            for i in range(n):
                if i % 2 == 0:
                    yield i

        key = lambda v: -v
        return {"values": sorted((square(i) for i in evens()), key=key)}
    """,
    """
    def t(ctx) -> dict:
        x = 0
        while x < 3:
            x += 1
        return {"x": x}
    """,
    """
    def t(ctx, *, s: str) -> dict:
        try:
            return {"n": int(s)}
        except ValueError:
            ctx.fail("not a number")
        except (KeyError, TypeError) as exc:
            ctx.fail(str(exc))
    """,
    """
    def t(ctx) -> dict:
        n = 0
        while True:
            n += 1
            if n > 3:
                break
        return {"n": n}
    """,
    """
    def t(ctx) -> dict:
        while True:
            row = ctx.one("SELECT 1")
            if row:
                return row
    """,
    """
    def t(ctx) -> dict:
        while True:
            ctx.fail("never")
    """,
    """
    from __future__ import annotations

    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from envfactory_mcp.runtime import ToolContext

    def t(ctx: ToolContext) -> dict:
        return {}
    """,
    """
    from envfactory_mcp.runtime import ToolContext, ToolError

    def t(ctx: ToolContext) -> dict:
        raise ToolError("no")
    """,
    """
    from datetime import datetime, timedelta
    from decimal import Decimal

    CENT = Decimal("0.01")
    WINDOW = timedelta(days=30)
    MAX = 10 * 100
    ALLOWED = frozenset({"a", "b"})
    WORDS = "a b c".split()
    LIMITS: dict[str, int] = {"x": MAX}

    def t(ctx) -> dict:
        due = datetime.fromisoformat(ctx.now) + WINDOW
        return {"due": due.isoformat(), "now": ctx.now}
    """,
    """
    import enum

    class Status(enum.Enum):
        PENDING = "pending"
        DONE = "done"
    """,
    """
    import collections.abc
    import json.decoder
    from collections import Counter, defaultdict

    def t(ctx, *, m: collections.abc.Mapping) -> dict:
        try:
            json.loads("{")
        except json.decoder.JSONDecodeError:
            pass
        return {"c": dict(Counter(m)), "d": dict(defaultdict(list)), "sep": "a__b", "rule": "_____"}
    """,
    """
    def t(ctx, *, order: dict) -> dict:
        match order:
            case {"status": "pending", "id": order_id}:
                label = "Order {} is pending".format(order_id)
            case Point(x=0):
                label = "at the origin"
            case _:
                label = f"{order['id']}"
        return {"label": label}
    """,
    """
    def t(ctx, *, item_id: str) -> dict:
        ctx.execute("UPDATE items SET n = n + 1 WHERE id = ?", (item_id,))
        new_id = ctx.next_id("items", "id", "it_")
        return {"id": new_id, "n": ctx.scalar("SELECT COUNT(*) FROM items")}
    """,
]


@pytest.mark.parametrize("source", BENIGN)
def test_benign_snippet_passes(source: str) -> None:
    assert check_tool_code(textwrap.dedent(source)) == []


def test_require_safe_lists_every_violation_with_file_line_col() -> None:
    source = "import os\n\ndef t(ctx):\n    return eval('1')\n"
    violations = check_tool_code(source, "gen/tools.py")
    assert [(v.line, v.col, v.code) for v in violations] == [(1, 1, "import"), (4, 12, "name")]
    with pytest.raises(UnsafeCodeError) as caught:
        require_safe(source, "gen/tools.py")
    assert isinstance(caught.value, EnvFactoryError)
    assert caught.value.violations == violations
    message = str(caught.value)
    assert "gen/tools.py:1:1: import os is not allowed" in message
    assert "gen/tools.py:4:12: eval is not allowed" in message


def test_violation_str_and_order() -> None:
    assert str(GateViolation(3, 5, "name", "eval is not allowed")) == "tools.py:3:5: eval is not allowed"
    found = check_tool_code("def t(ctx):\n    exec('1')\nimport os\n")
    assert [v.line for v in found] == [2, 3]


def test_too_deep_to_check_fails_closed() -> None:
    (violation,) = check_tool_code("def t(ctx):\n    return " + "1+" * 3000 + "1\n")
    assert violation.code == "syntax"


REJECTED_STDLIB = sorted(set(sys.stdlib_module_names) - ALLOWED_MODULES)
IMPORT_FORMS = ["import {}", "import {} as m", "from {} import x"]


@given(name=st.sampled_from(REJECTED_STDLIB), form=st.sampled_from(IMPORT_FORMS))
def test_any_other_stdlib_module_is_rejected(name: str, form: str) -> None:
    violations = check_tool_code(form.format(name))
    assert violations and {v.code for v in violations} == {"import"}


@given(name=st.sampled_from(sorted(ALLOWED_MODULES)), form=st.sampled_from(IMPORT_FORMS[:2]))
def test_allowed_modules_are_accepted(name: str, form: str) -> None:
    assert check_tool_code(form.format(name)) == []


@settings(max_examples=200)
@given(source=st.text())
def test_gate_never_raises(source: str) -> None:
    assert isinstance(check_tool_code(source), list)
