"""Issue 25, part 6: the verifier fails packages that carry something harmful beside
their tools, each with a reason naming it: files the emitter never writes (modules that
shadow the standard library, installed packages or envfactory_mcp itself for a launcher
started in the package folder, .pth files, start-up hooks, symlinks), tool code that
reaches the process's descriptors, and SQL in the data or in tool strings that calls
beyond SQLite's core functions, attaches, changes the connection or makes virtual
tables. A clean package still passes every check.

Each case is a real package (a library service rendered and written as ``build`` does),
changed in one way and verified end to end (sandbox included, stdio left out but for
the clean package: the checks named here all come before it)."""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.emit.render import emitted_paths
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.verify.package_files import unexpected_files
from envfactory_mcp.verify.report import ENVIRONMENT_CHECKS, VerificationReport
from envfactory_mcp.verify.sql_gate import check_data_sql, check_sql_text
from envfactory_mcp.verify.verifier import VerifyOptions, verify_package

ENV = "dog_walking"  # a library service: verified in about a second
PKG = f"{ENV}_mcp"
NO_STDIO = VerifyOptions(stdio=False)
EXTENSION = EXTENSION_SUFFIXES[0]  # e.g. .cpython-311-x86_64-linux-gnu.so


@pytest.fixture(scope="module")
def env() -> Environment:
    return build_env(load_blueprint(ENV))


def package(env: Environment, folder: Path, change: Callable[[Path], None] | None = None) -> Path:
    root = write_package(render_package(env), folder / ENV)
    if change is not None:
        change(root)
    return root


def failed_reason(report: VerificationReport, check: str) -> str:
    found = next(c for c in report.environment if c.check == check)
    assert found.status == "failed", (check, report.failures())
    assert not report.passed
    return found.reason


def write(rel: str, text: str = "") -> Callable[[Path], None]:
    def change(root: Path) -> None:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")

    return change


def append(rel: str, text: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        with (root / rel).open("a", encoding="utf-8") as fh:
            fh.write(text)

    return change


# ------------------------------------------------------------------------------ clean


@pytest.mark.slow
def test_a_clean_package_passes_every_check_and_its_report_is_signed(env: Environment, tmp_path: Path):
    report = verify_package(package(env, tmp_path))
    assert report.passed, report.failures()
    assert [c.check for c in report.environment] == list(ENVIRONMENT_CHECKS)
    assert {"package_files", "data_sql"} <= {c.check for c in report.environment if c.status == "passed"}
    assert report.signature.startswith("hmac-sha256:") and report.signed_here()


def test_the_allowlist_is_the_emitters_own_list(env: Environment, tmp_path: Path):
    assert set(render_package(env)) == emitted_paths(ENV)
    root = package(env, tmp_path)
    assert unexpected_files(root, ENV) == []
    # What Python and pytest write while running it is no defect.
    (root / PKG / "__pycache__").mkdir()
    (root / PKG / "__pycache__" / "tools.cpython-311.pyc").write_bytes(b"\0")
    (root / ".pytest_cache").mkdir()
    (root / ".pytest_cache" / "README.md").write_text("cache", encoding="utf-8")
    assert unexpected_files(root, ENV) == []
    (root / PKG / "__pycache__" / "argparse.cpython-311.pyc").write_bytes(b"\0")  # no argparse.py beside it
    assert unexpected_files(root, ENV) == [
        f"{PKG}/__pycache__/argparse.cpython-311.pyc: not bytecode of a module the emitter writes beside it"
    ]


# ------------------------------------------------------------------------------ files


FILE_DEFECTS = {
    "envfactory_mcp-at-the-root": (
        write("envfactory_mcp/__init__.py", "import os\nos.write(1, b'{}')\n"),
        ["envfactory_mcp", "shadows envfactory-mcp itself"],
    ),
    "envfactory_mcp-module-in-the-package": (
        write(f"{PKG}/envfactory_mcp.py", "X = 1\n"),
        [f"{PKG}/envfactory_mcp.py", "shadows envfactory-mcp itself"],
    ),
    "argparse.py-at-the-root": (
        write("argparse.py", "import os\n"),
        ["argparse.py", "the standard library's argparse"],
    ),
    "json-package-beside-the-code": (
        write(f"{PKG}/json/__init__.py", "loads = None\n"),
        [f"{PKG}/json", "the standard library's json"],
    ),
    "mcp-package-at-the-root": (
        write("mcp/__init__.py", ""),
        ["mcp", "the installed package"],
    ),
    "native-module": (
        write(f"typing{EXTENSION}", ""),
        [f"typing{EXTENSION}", "the standard library's typing"],
    ),
    "pth-file": (
        write("zz_envfactory.pth", "import os; os.system('true')\n"),
        ["zz_envfactory.pth", ".pth file runs code"],
    ),
    "sitecustomize": (
        write(f"{PKG}/sitecustomize.py", "import os\n"),
        [f"{PKG}/sitecustomize.py", "sitecustomize runs code when Python starts"],
    ),
    "sourceless-bytecode": (
        write(f"{PKG}/argparse.pyc", ""),
        [f"{PKG}/argparse.pyc", "the standard library's argparse"],
    ),
    "extra-data": (
        write(f"{PKG}/data/extra.sql", "SELECT 1;\n"),
        [f"{PKG}/data/extra.sql", "not a file the emitter writes"],
    ),
    "symlinked-readme": (
        lambda root: ((root / "README.md").unlink(), (root / "README.md").symlink_to("/etc/hostname")),
        ["README.md", "a symlink"],
    ),
    "symlinked-folder": (
        lambda root: (root / PKG / "helpers").symlink_to(root / PKG / "runtime", target_is_directory=True),
        [f"{PKG}/helpers", "a symlink"],
    ),
    "fifo": (
        lambda root: os.mkfifo(root / PKG / "data" / "pipe"),
        [f"{PKG}/data/pipe", "not a regular file"],
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("defect", list(FILE_DEFECTS))
def test_a_file_the_emitter_does_not_write_fails_package_files(defect: str, env: Environment, tmp_path: Path):
    change, words = FILE_DEFECTS[defect]
    report = verify_package(package(env, tmp_path, change), NO_STDIO)
    reason = failed_reason(report, "package_files")
    for word in words:
        assert word in reason, (word, reason)


@pytest.mark.parametrize("defect", list(FILE_DEFECTS))
def test_each_file_defect_is_named_without_running_anything(defect: str, env: Environment, tmp_path: Path):
    change, words = FILE_DEFECTS[defect]
    problems = unexpected_files(package(env, tmp_path, change), ENV)
    assert len(problems) == 1 and all(word in problems[0] for word in words), problems


# ------------------------------------------------------------------------------ tool code

TOOL_DEFECTS = {
    "os.write-to-an-inherited-descriptor": (
        '\n\ndef _frame(ctx):\n    import os\n    os.write(3, b\'{"jsonrpc": "2.0", "id": 1, "result": {}}\\n\')\n',
        "import os is not allowed",
    ),
    "a-descriptor-of-a-known-object": ("\n\ndef _frame(ctx):\n    return ctx.db.fileno()\n", ".fileno"),
    "proc-self-fd": ("\n\nFD = '/proc/self/fd/3'\n", "/proc/"),
    "dev-stdout": ("\n\nOUT = '/dev/stdout'\n", "/dev/stdout"),
    "fdopen": ("\n\ndef _frame(ctx, f):\n    return f.fdopen(3, 'wb')\n", ".fdopen"),
    "socket.fromfd": ("\n\ndef _frame(ctx, s):\n    return s.fromfd(3, 1, 1)\n", ".fromfd"),
    "gc.get_objects": ("\n\ndef _frame(ctx, g):\n    return g.get_objects()\n", ".get_objects"),
    "sys._getframe": ("\n\ndef _frame(ctx, s):\n    return s._getframe(1)\n", "._getframe"),
    "ctypes": ("\n\nimport ctypes\n", "import ctypes is not allowed"),
    "open-a-descriptor": ("\n\ndef _frame(ctx):\n    return open(3, 'wb')\n", "open is not allowed"),
    "sql-readfile": (
        "\n\ndef _leak(ctx):\n    return ctx.one(\"SELECT readfile('/etc/passwd') AS data\")\n",
        "readfile",
    ),
    "sql-unknown-function": (
        '\n\ndef _leak(ctx, x):\n    return ctx.scalar(f"SELECT edit({x}) FROM walks")\n',
        "edit()",
    ),
    "sql-fts3-tokenizer-in-prose": ("\n\nHINT = \"fts3_tokenizer('simple')\"\n", "fts3_tokenizer"),
    "sql-pragma": ("\n\ndef _p(ctx):\n    return ctx.all('PRAGMA writable_schema = 1')\n", "PRAGMA"),
    "sql-attach": ("\n\ndef _p(ctx):\n    return ctx.execute(\"ATTACH DATABASE '/tmp/x' AS x\")\n", "ATTACH"),
}


@pytest.mark.slow
@pytest.mark.parametrize("defect", list(TOOL_DEFECTS))
def test_tool_code_reaching_the_process_or_beyond_sql_fails_the_static_gate(
    defect: str, env: Environment, tmp_path: Path
):
    code, words = TOOL_DEFECTS[defect]
    report = verify_package(package(env, tmp_path, append(f"{PKG}/tools.py", code)), NO_STDIO)
    reason = failed_reason(report, "static_gate")
    assert words in reason, reason


# ------------------------------------------------------------------------------ data SQL

SQL_DEFECTS = {
    "fts3_tokenizer-in-the-seed": (
        "seed.sql",
        'INSERT INTO "walk_packs" ("walk_pack_id") VALUES (fts3_tokenizer(\'simple\'));\n',
        "fts3_tokenizer",
    ),
    "a-select-in-the-seed": ("seed.sql", "SELECT fts3_tokenizer('simple', X'00');\n", "only INSERT INTO"),
    "load_extension": ("seed.sql", "SELECT load_extension('/tmp/evil.so');\n", "load_extension"),
    "readfile-in-a-value": (
        "seed.sql",
        'INSERT INTO "walk_packs" ("name") VALUES ("readfile"(\'/etc/passwd\'));\n',
        "readfile",
    ),
    "writefile-in-a-check": (
        "schema.sql",
        'CREATE TABLE "x" ("a" TEXT CHECK (writefile(\'/tmp/x\', a) > 0));\n',
        "writefile",
    ),
    "edit": ("seed.sql", "INSERT INTO \"walk_packs\" (\"name\") VALUES (edit('x', 'vi'));\n", "edit()"),
    "attach": ("seed.sql", "ATTACH DATABASE '/tmp/x.db' AS x;\n", "ATTACH opens another database file"),
    "pragma": ("seed.sql", "PRAGMA writable_schema = ON;\n", "PRAGMA changes the connection"),
    "virtual-table": ("schema.sql", "CREATE VIRTUAL TABLE notes USING fts3(body);\n", "virtual table"),
    "pragma-table-valued": (
        "seed.sql",
        'INSERT INTO "walk_packs" ("name") SELECT name FROM pragma_function_list;\n',
        "pragma_function_list",
    ),
    "trigger": (
        "schema.sql",
        "CREATE TRIGGER t AFTER INSERT ON walks BEGIN DELETE FROM walks; END;\n",
        "only CREATE TABLE and CREATE INDEX",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("defect", list(SQL_DEFECTS))
def test_sql_beyond_the_emitters_fails_data_sql(defect: str, env: Environment, tmp_path: Path):
    file, sql, words = SQL_DEFECTS[defect]
    report = verify_package(package(env, tmp_path, append(f"{PKG}/data/{file}", sql)), NO_STDIO)
    reason = failed_reason(report, "data_sql")
    assert words in reason and f"{PKG}/data/{file}:" in reason, reason


@pytest.mark.parametrize("defect", list(SQL_DEFECTS))
def test_each_sql_defect_is_named_without_running_anything(defect: str, env: Environment):
    file, sql, words = SQL_DEFECTS[defect]
    data = {"seed.sql": env.seed_sql, "schema.sql": env.schema_sql}[file]
    assert check_data_sql(data, file) == []
    problems = check_data_sql(data + sql, file)
    assert problems and any(words in p.message for p in problems), problems
    assert {p.line for p in problems} == {data.count("\n") + 1}


def test_the_shipped_packages_sql_passes(env: Environment):
    assert check_data_sql(env.schema_sql, "schema.sql") == check_data_sql(env.seed_sql, "seed.sql") == []
    for text in (
        "SELECT COUNT(*) AS n, COALESCE(SUM(x), 0) FROM t JOIN u USING (id) WHERE a IN (SELECT b FROM v)",
        "INSERT INTO orders (a, b) VALUES (?, ?) ON CONFLICT (a) DO UPDATE SET b = excluded.b",
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n FROM c",
        "SELECT CAST(x AS INTEGER), strftime('%Y', d), json_extract(j, '$.a') FROM t",
        "Order (pending) cannot be edited; attach a note instead",
    ):
        assert check_sql_text(text, statement=False) == [], text
