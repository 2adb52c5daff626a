"""Static gate: refuse tool code that is unsafe or nondeterministic before it ever runs.

Code written by a language model passes this gate before it is executed. The gate is a
fast first filter, not the boundary: the boundary is the jail the sandboxed worker runs
in (``runtime/jail.py``: namespaces, uid 65534, no capabilities, seccomp), behind which
the worker's rlimits and audit hook catch what no static check can (runaway loops,
huge allocations, names built at run time). The gate matters because a precise
``tools.py:LINE:COL: message`` is something a repair loop can fix, and because a
generated server still runs the same code unjailed when it is served.

Rules, with the ``code`` of their violations and why they exist:

* ``syntax``: the source must parse, and be shallow enough to check.
* ``import``: only pure, deterministic standard-library modules, plus ``from
  envfactory_mcp.runtime import ToolContext, ToolError``. ``random``, ``time``, ``uuid``
  and ``secrets`` would make results irreproducible; the rest reach the OS, the
  interpreter or native code. Attribute chains from allowed modules are followed, so
  ``ast.sys`` and ``from statistics import random`` are refused as well.
* ``name``: builtins that run code, do I/O or reflect by string (``eval``, ``open``,
  ``getattr``, ``attrgetter``, ``get_type_hints``...), and exceptions that would bypass
  the runtime's error handling (``raise SystemExit``).
* ``dunder``: ``.__x__`` attributes, ``__x__`` names, strings holding a dunder and
  ``case C(__x__=...)`` patterns: the road from any object to ``object.__subclasses__()``
  and from there to every loaded module.
* ``format``: ``.format()`` / ``.format_map()`` on anything but a string literal, and
  ``string.Formatter``: a format string built at run time (``"{0." + "_" * 2 + ...``)
  reaches attributes by name, past the dunder rule. Literal format strings and f-strings
  are fine: the gate reads their fields.
* ``internals``: frame and code attributes (``gen.gi_frame.f_back.f_globals``), private
  standard-library attributes, and connection management on ``ctx.db`` (``commit`` would
  defeat the runtime's per-call rollback, ``load_extension`` loads native code).
* ``process``: the process itself, past what the imports already refuse (``os``, ``sys``,
  ``gc``, ``socket``, ``ctypes`` and ``open`` never get this far): descriptor methods
  (``.fileno()``, ``.fdopen``, ``.fromfd``, ``.dup``), the collector's and the
  interpreter's views of every object and frame (``.get_objects``, ``._getframe``), and
  strings naming ``/proc/...`` or ``/dev/fd``-like paths. A tool that writes pre-formed
  frames to an inherited descriptor speaks for the server; a tool has no business there.
* ``sql``: SQL in string literals (``verify/sql_gate.py``): the SQL argument of
  ``ctx.one/all/scalar/execute`` and any literal that reads as a statement may call only
  SQLite's core functions and may not ATTACH, PRAGMA or make virtual tables; any other
  literal may not name ``load_extension``, ``fts3_tokenizer``, ``readfile``,
  ``writefile``, ``pragma_*`` table-valued functions and the like.
* ``determinism``: ``.now()``, ``.today()``, ``.utcnow()`` read the real clock; tools use ``ctx.now``.
* ``scope``: ``global`` / ``nonlocal``: a tool is a function of ``ctx`` and its arguments.
* ``toplevel``: importing the module has no side effects. Only imports, defs, classes,
  docstrings, ``if TYPE_CHECKING:`` and constant assignments (literals, names, operators,
  comprehensions and a few pure calls such as ``frozenset`` or ``re.compile``); decorators,
  defaults and class bodies, which also run at import time, follow the same rule.
* ``async``: no ``async def``; the runtime calls tools synchronously.
* ``loop``: ``while True:`` with no ``break``, ``return`` or ``raise`` is an obvious hang.
* ``except``: a bare ``except:`` or ``except BaseException`` would swallow cancellation.

Columns are 1-based. The code under test is parsed, never imported; allowed standard-library
modules are imported here only to follow attribute chains.
"""

from __future__ import annotations

import ast
import importlib
import re
import threading
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, overload

from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.verify.sql_gate import check_sql_text


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


ALLOWED_MODULES = _words(
    "__future__ typing dataclasses json re math decimal fractions datetime itertools functools "
    "collections string ast enum statistics operator textwrap hashlib base64 copy bisect heapq"
)
RUNTIME_MODULE, RUNTIME_NAMES = "envfactory_mcp.runtime", _words("ToolContext ToolError")
EXIT_EXCEPTIONS = _words("BaseException SystemExit KeyboardInterrupt GeneratorExit")
NONDETERMINISTIC = {"random": "", "secrets": "", "uuid": "", "time": "; use ctx.now for the clock"}
FORBIDDEN_NAMES: dict[str, str] = {
    **dict.fromkeys(_words("eval exec compile __import__ breakpoint"), "runs arbitrary code"),
    **dict.fromkeys(_words("open input help exit quit"), "does I/O or ends the process"),
    **dict.fromkeys(
        _words("globals locals vars getattr setattr delattr memoryview attrgetter methodcaller"),
        "reaches objects by name, past the gate",
    ),
    **dict.fromkeys(_words("__builtins__ __loader__ __spec__"), "exposes the interpreter's internals"),
    **dict.fromkeys(_words("get_type_hints ForwardRef"), "evaluates strings as code"),
    **dict.fromkeys(_words("Formatter"), "reaches attributes named by a string built at run time"),
    **dict.fromkeys(EXIT_EXCEPTIONS, "escapes the runtime's error handling"),
}
FORBIDDEN_ATTRIBUTES = _words("attrgetter methodcaller get_type_hints ForwardRef Formatter")
FORMAT_METHODS = _words("format format_map")
FRAME_ATTRIBUTES = _words(
    "gi_frame gi_code gi_yieldfrom cr_frame cr_code cr_await cr_origin ag_frame ag_code ag_await f_back "
    "f_globals f_locals f_builtins f_code f_trace tb_frame tb_next co_code co_consts co_names"
)
CONNECTION_ATTRIBUTES = _words(
    "enable_load_extension load_extension set_authorizer set_progress_handler set_trace_callback "
    "create_function create_aggregate create_collation create_window_function setlimit executescript "
    "commit rollback close isolation_level row_factory text_factory"
)
PROCESS_ATTRIBUTES = _words(
    "fileno fdopen fromfd fromshare dup dup2 dup3 openpty forkpty get_objects get_referrers get_referents "
    "_getframe _current_frames _current_exceptions settrace setprofile"
)
SQL_METHODS = _words("one all scalar execute executemany")  # ctx's SQL helpers (and a cursor's)
CLOCK_METHODS = _words("now today utcnow")
TOPLEVEL_CALLS = _words(
    "frozenset set tuple dict list str int float bool bytes range sorted reversed len min max sum abs round "
    "enumerate zip re.compile re.escape Decimal decimal.Decimal Fraction fractions.Fraction timedelta "
    "datetime.timedelta date datetime.date datetime datetime.datetime TypeVar typing.TypeVar NewType "
    "typing.NewType cast typing.cast namedtuple collections.namedtuple field dataclasses.field"
)
DECORATORS = _words(
    "dataclass dataclasses.dataclass staticmethod classmethod property total_ordering "
    "functools.total_ordering unique enum.unique overload typing.overload final typing.final"
)
_TYPE_CHECKING = ("TYPE_CHECKING", "typing.TYPE_CHECKING")
_DUNDER = re.compile(r"__[A-Za-z]\w*?__")
_FRAME_IN_STRING = re.compile(r"\.(" + "|".join(sorted(FRAME_ATTRIBUTES)) + r")\b")
_PROCESS_PATH = re.compile(r"/proc/|/dev/(?:fd|std(?:in|out|err)|tcp|udp|shm|mem|kmem|tty|pts|ptmx)\b")


# CPython 3.11 (3.11.7 here) keeps the recursion depth of ``ast.parse``'s tree building in
# interpreter-wide state, so two threads parsing at once can fail with "SystemError: AST
# constructor recursion depth mismatch" (gh-106905; seen in a stress run of the suite).
# Verification runs in worker threads (``synth`` verifies several environments at once), so
# every parse of tool code takes turns.
_PARSE_LOCK = threading.Lock()


@overload
def parse_python(source: str, filename: str = ..., mode: Literal["exec"] = ...) -> ast.Module: ...
@overload
def parse_python(source: str, filename: str = ..., *, mode: Literal["eval"]) -> ast.Expression: ...
def parse_python(
    source: str, filename: str = "<unknown>", mode: Literal["exec", "eval"] = "exec"
) -> ast.Module | ast.Expression:
    """``ast.parse(source, filename, mode)``, one thread at a time (see ``_PARSE_LOCK``)."""
    with _PARSE_LOCK:
        tree = ast.parse(source, filename=filename, mode=mode)
    assert isinstance(tree, ast.Module | ast.Expression)
    return tree


@dataclass(frozen=True, slots=True)
class GateViolation:
    """One broken rule; ``str()`` gives ``tools.py:LINE:COL: message``."""

    line: int
    col: int
    code: str
    message: str
    filename: str = "tools.py"

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}: {self.message}"


class UnsafeCodeError(EnvFactoryError):
    """Tool code failed the static gate; the message lists every violation, one per line."""

    def __init__(self, violations: list[GateViolation]) -> None:
        self.violations = violations
        super().__init__("tool code failed the static gate:\n" + "\n".join(map(str, violations)))


def check_tool_code(source: str, filename: str = "tools.py") -> list[GateViolation]:
    """Every violation of the gate's rules in source order; an empty list means the code passes."""
    try:
        tree = parse_python(source, filename)
    except SyntaxError as exc:
        line, col = exc.lineno or 1, exc.offset or 1
        return [GateViolation(line, col, "syntax", f"syntax error: {exc.msg}", filename)]
    except (ValueError, RecursionError, MemoryError) as exc:
        return [GateViolation(1, 1, "syntax", f"source cannot be parsed ({type(exc).__name__})", filename)]
    gate = _Gate(filename)
    try:
        gate.run(tree)
    except RecursionError:
        gate.report(tree, "syntax", "source is too deeply nested to check")
    return sorted(set(gate.violations), key=lambda v: (v.line, v.col, v.code, v.message))


def require_safe(source: str, filename: str = "tools.py") -> None:
    """Raise ``UnsafeCodeError`` listing every violation unless the code passes the gate."""
    if violations := check_tool_code(source, filename):
        raise UnsafeCodeError(violations)


class _Gate(ast.NodeVisitor):
    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.violations: list[GateViolation] = []
        self.bindings: dict[str, Any] = {}  # names bound by allowed imports -> the real objects
        self.skip: set[int] = set()  # nodes another rule has judged: docstrings, caught exception types
        self.annotations: set[int] = set()  # string constants in annotations: code in disguise
        self.owners: set[int] = set()  # names used as ``name.attribute``, the only allowed use of a module
        self.parsed: list[ast.AST] = []  # string annotations parsed as code, kept alive so ids stay unique
        self.sql: set[int] = set()  # string literals known to be SQL: the first argument of ctx.all(...)
        self.sql_checked: set[int] = set()  # constants of f-strings, checked with their f-string

    def report(self, node: ast.AST, code: str, message: str) -> None:
        line, col = getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1
        self.violations.append(GateViolation(line, col, code, message, self.filename))

    def run(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                self.skip.add(id(node.value))
            for annotation in _annotations_of(node):
                self.annotations.update(id(n) for n in ast.walk(annotation) if isinstance(n, ast.Constant))
            if isinstance(node, ast.Import | ast.ImportFrom):
                self._bind(node)
        self._toplevel(tree.body, module=True)
        self.visit(tree)

    # ------------------------------------------------------------------ imports

    def _bind(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if (module := _load(alias.name)) is not None:
                    self.bindings[alias.asname or top] = module if alias.asname else _load(top)
        elif node.level == 0 and node.module and (module := _load(node.module)) is not None:
            for alias in node.names:
                value = _attr(module, alias.name)
                if value is None:  # a submodule not yet imported: from collections import abc
                    value = _load(f"{node.module}.{alias.name}")
                self.bindings[alias.asname or alias.name] = value

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._check_module(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module, names = node.module or "", [alias.name for alias in node.names]
        if node.level:
            self.report(node, "import", "relative imports are not allowed; tools.py stands alone")
        elif module == RUNTIME_MODULE:
            for name in sorted(set(names) - RUNTIME_NAMES):
                self.report(node, "import", f"only ToolContext and ToolError come from {module}, not {name}")
        elif self._check_module(node, module):
            for name in names:
                if name == "*":
                    self.report(node, "import", f"from {module} import * is not allowed; name what you use")
                elif name in FORBIDDEN_NAMES:
                    self.report(node, "name", f"{name} is not allowed: it {FORBIDDEN_NAMES[name]}")
                elif name.startswith("_") and module != "__future__":
                    self.report(node, "internals", f"{module}.{name} is private to the standard library")
                else:
                    self._check_reached(node, f"{module}.{name}", _attr(_load(module), name))

    def _check_module(self, node: ast.AST, name: str) -> bool:
        top = name.split(".")[0]
        if top in NONDETERMINISTIC:
            message = f"tools must be deterministic{NONDETERMINISTIC[top]}"
        elif top == "envfactory_mcp":
            message = f"use 'from {RUNTIME_MODULE} import ToolContext'"
        elif top not in ALLOWED_MODULES:
            message = f"allowed modules are {', '.join(sorted(ALLOWED_MODULES))}"
        elif any(part.startswith("_") for part in name.split(".")[1:]):
            message = "it is private to the standard library"
        else:
            return True
        self.report(node, "import", f"import {name} is not allowed: {message}")
        return False

    def _check_reached(self, node: ast.AST, path: str, target: Any) -> None:
        if isinstance(target, ModuleType) and target.__name__.split(".")[0] not in ALLOWED_MODULES:
            self.report(node, "import", f"{path} reaches module {target.__name__}, which is not allowed")

    # ------------------------------------------------------------------ names, attributes, strings

    def visit_Name(self, node: ast.Name) -> None:
        if id(node) in self.skip:
            return
        if node.id in FORBIDDEN_NAMES:
            self.report(node, "name", f"{node.id} is not allowed: it {FORBIDDEN_NAMES[node.id]}")
        elif _DUNDER.fullmatch(node.id):
            self.report(node, "dunder", f"the name {node.id} is not allowed: no dunder names in tool code")
        elif isinstance(self.bindings.get(node.id), ModuleType) and id(node) not in self.owners:
            self.report(node, "import", f"module {node.id} may only be used as {node.id}.<name>, not passed")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr, owner = node.attr, self._resolve(node.value)
        self.owners.add(id(node.value))
        if _DUNDER.fullmatch(attr):
            self.report(node, "dunder", f"attribute .{attr} is not allowed: dunder access reaches internals")
        elif attr in FORBIDDEN_ATTRIBUTES:
            self.report(node, "name", f".{attr} is not allowed: it {FORBIDDEN_NAMES[attr]}")
        elif attr in FRAME_ATTRIBUTES:
            self.report(node, "internals", f"attribute .{attr} reaches frames or code objects")
        elif attr in CONNECTION_ATTRIBUTES:
            self.report(node, "internals", f".{attr} manages the database connection; tools only run SQL")
        elif attr in PROCESS_ATTRIBUTES:
            self.report(node, "process", f".{attr} reaches the process's descriptors or objects directly")
        elif isinstance(owner, ModuleType) and attr.startswith("_"):
            self.report(node, "internals", f"{owner.__name__}.{attr} is private to the standard library")
        else:
            self._check_reached(node, _dotted(node) or attr, _attr(owner, attr))
        self.generic_visit(node)

    def _resolve(self, node: ast.AST) -> Any:
        """The real object an attribute chain rooted at an allowed import refers to, if known."""
        if isinstance(node, ast.Name):
            return self.bindings.get(node.id)
        if isinstance(node, ast.Attribute) and not node.attr.startswith("_"):
            return _attr(self._resolve(node.value), node.attr)
        return None

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in SQL_METHODS and node.args:
            self.sql.add(id(node.args[0]))
        if isinstance(func, ast.Attribute) and func.attr in CLOCK_METHODS:
            self.report(node, "determinism", f".{func.attr}() reads the real clock; use ctx.now")
        if (
            isinstance(func, ast.Attribute)
            and func.attr in FORMAT_METHODS
            and not (isinstance(func.value, ast.Constant) and isinstance(func.value.value, str))
        ):
            self.report(
                node,
                "format",
                f".{func.attr}() on a string built at run time can reach any attribute; "
                "use an f-string or a literal format string",
            )
        self.generic_visit(node)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        for attr in node.kwd_attrs:  # case C(name=...) reads the attribute ``name``
            if _DUNDER.fullmatch(attr):
                self.report(
                    node,
                    "dunder",
                    f"pattern attribute {attr}= is not allowed: dunder access reaches internals",
                )
            elif attr in FRAME_ATTRIBUTES:
                self.report(node, "internals", f"pattern attribute {attr}= reaches frames or code objects")
            elif attr in CONNECTION_ATTRIBUTES:
                self.report(node, "internals", f"pattern attribute {attr}= manages the database connection")
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        """An f-string's SQL is judged whole: its fields stand in as parameters."""
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
                self.sql_checked.add(id(value))
            else:
                parts.append("?")
        self._check_sql(node, "".join(parts))
        self.generic_visit(node)

    def _check_sql(self, node: ast.AST, text: str) -> None:
        for problem in check_sql_text(text, statement=id(node) in self.sql):
            line = getattr(node, "lineno", 1) + problem.line - 1
            col = getattr(node, "col_offset", 0) + 1 if problem.line == 1 else 1
            self.violations.append(GateViolation(line, col, "sql", f"SQL {problem.message}", self.filename))

    def visit_Constant(self, node: ast.Constant) -> None:
        if not isinstance(node.value, str) or id(node) in self.skip:
            return
        if match := _DUNDER.search(node.value):
            self.report(node, "dunder", f"string mentions {match.group()}: no reflective access by name")
        if match := _FRAME_IN_STRING.search(node.value):
            self.report(node, "internals", f"string mentions .{match.group(1)}, which reaches frames")
        if match := _PROCESS_PATH.search(node.value):
            self.report(
                node, "process", f"string mentions {match.group()}: tool code does not reach the process"
            )
        if id(node) not in self.sql_checked:
            self._check_sql(node, node.value)
        if id(node) in self.annotations:  # typing.get_type_hints would evaluate it: judge it as code
            try:
                expr = parse_python(node.value.strip(), mode="eval")
            except (SyntaxError, ValueError):
                return
            ast.increment_lineno(expr, node.lineno - 1)
            self.parsed.append(expr)
            self.visit(expr)

    # ------------------------------------------------------------------ statements

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        keyword = type(node).__name__.lower()
        self.report(node, "scope", f"{keyword} is not allowed: a tool is a function of ctx and its arguments")

    visit_Nonlocal = visit_Global

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self.report(node, "async", f"async def {node.name} is not allowed: tools are called synchronously")
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        if isinstance(node.test, ast.Constant) and node.test.value and not any(_exits(s) for s in node.body):
            self.report(node, "loop", "while True without break, return or raise never ends")
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is None:
            self.report(node, "except", "bare except: would swallow cancellation; catch Exception")
        for exc in node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]:
            if isinstance(exc, ast.Name) and exc.id in EXIT_EXCEPTIONS:
                self.skip.add(id(exc))
                self.report(exc, "except", f"except {exc.id} would swallow cancellation; catch Exception")
        self.generic_visit(node)

    # ------------------------------------------------------------------ import-time side effects

    def _toplevel(self, body: list[ast.stmt], module: bool) -> None:
        """Statements that run when the module, or a class body in it, is executed."""
        for stmt in body:
            docstring = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            importing = module and isinstance(stmt, ast.Import | ast.ImportFrom)
            if docstring or importing or isinstance(stmt, ast.Pass):
                continue
            if module and isinstance(stmt, ast.If) and _dotted(stmt.test) in _TYPE_CHECKING:
                self._toplevel(stmt.body + stmt.orelse, module=True)
            elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                self._definition(stmt)
            elif isinstance(stmt, ast.Assign | ast.AnnAssign) and all(
                isinstance(n, ast.Name | ast.Tuple | ast.List | ast.Starred | ast.expr_context)
                for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                for n in ast.walk(target)
            ):
                self._require_pure([stmt.value, *_annotations_of(stmt)])
            else:
                allowed = "imports, defs, classes, docstrings and constant assignments"
                self.report(stmt, "toplevel", f"{_snippet(stmt)} runs at import time; keep to {allowed}")

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            name = _dotted(call.func if call else decorator) or _snippet(decorator)
            if name not in DECORATORS and name.rpartition(".")[2] not in ("setter", "getter", "deleter"):
                self.report(decorator, "toplevel", f"decorator {name} runs at import time and is not allowed")
            if call:
                self._require_pure([*call.args, *(k.value for k in call.keywords)])
        if isinstance(node, ast.ClassDef):
            for keyword in node.keywords:
                if keyword.arg == "metaclass":
                    self.report(keyword.value, "toplevel", "a metaclass runs code at import time")
            self._require_pure([*node.bases, *(k.value for k in node.keywords)])
            self._toplevel(node.body, module=False)
        else:
            self._require_pure([*node.args.defaults, *node.args.kw_defaults, *_annotations_of(node)])

    def _require_pure(self, exprs: list[ast.expr | None]) -> None:
        for expr in exprs:
            if expr is not None and (bad := _impure(expr)) is not None:
                allowed = "literals, names and pure calls such as frozenset(...) or re.compile(...)"
                self.report(bad, "toplevel", f"{_snippet(bad)} runs at import time; use {allowed}")


_PURE_NODES = (
    ast.Constant,
    ast.Name,
    ast.Attribute,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Subscript,
    ast.Slice,
    ast.Starred,
    ast.JoinedStr,
    ast.FormattedValue,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.comprehension,
    ast.keyword,
    ast.expr_context,
    ast.operator,
    ast.unaryop,
    ast.boolop,
    ast.cmpop,
)


def _impure(node: ast.AST) -> ast.AST | None:
    """The first part of an import-time expression that could have a side effect, or None."""
    children: list[ast.AST]
    if isinstance(node, ast.Lambda):  # the body runs when called; only the defaults run now
        children = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
    elif isinstance(node, ast.Call):
        func = node.func
        literal_method = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Constant)
        if _dotted(func) not in TOPLEVEL_CALLS and not literal_method:  # "a b".split() is fine
            return node
        children = [*node.args, *node.keywords]
    elif isinstance(node, _PURE_NODES):
        children = list(ast.iter_child_nodes(node))
    else:
        return node
    return next((bad for child in children if (bad := _impure(child)) is not None), None)


def _exits(node: ast.AST, in_inner_loop: bool = False) -> bool:
    """Whether ``node`` can leave the enclosing loop: its own break, return, raise or ctx.fail(...)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
        return False
    if isinstance(node, ast.Return | ast.Raise) or (isinstance(node, ast.Break) and not in_inner_loop):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "fail":
        return True
    inner = in_inner_loop or isinstance(node, ast.For | ast.While | ast.AsyncFor)
    return any(_exits(child, inner) for child in ast.iter_child_nodes(node))


def _annotations_of(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.AnnAssign):
        return [node.annotation]
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return []
    a = node.args
    args = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
    found = [arg.annotation for arg in args if arg and arg.annotation]
    return found + ([node.returns] if node.returns else [])


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := _dotted(node.value)) is not None:
        return f"{base}.{node.attr}"
    return None


def _snippet(node: ast.AST) -> str:
    text = ast.unparse(node).splitlines()[0]
    return text if len(text) <= 40 else text[:37] + "..."


def _attr(owner: Any, name: str) -> Any:
    if owner is None:
        return None
    try:
        return getattr(owner, name, None)
    except Exception:  # noqa: BLE001 - a deprecated alias that warns, a descriptor that raises: unknown
        return None


def _load(name: str) -> ModuleType | None:
    """An allowed standard-library module, imported here so attribute chains can be followed."""
    parts = name.split(".")
    if parts[0] not in ALLOWED_MODULES or any(part.startswith("_") for part in parts[1:]):
        return None
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - not a module (from typing import Any), or one that fails to load
        return None
