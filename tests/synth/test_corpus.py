"""The public corpus (``../shared/corpus`` beside the checkout): its sources are recorded,
every SQL file and Swagger 2.0 document in it imports, and hostile documents
(``tests/corpus/hostile``, hand-made) fail in one line.

The corpus is data, not part of the project (issue 27): fetched public documents live in
``../shared/corpus/`` with ``sources.json`` and their licences. Where it is absent its
tests skip, saying where they looked. ``sources.json`` and the files agree both ways,
every committed document has a licence that allows redistribution and its repository's
licence file, and the corpus has what issue 12 asks of it. Hostile documents (a ``$ref``
loop, malformed YAML and JSON, a path with 100 parameters, a ~50 MB document, binary
garbage, ...) get one ``error:`` line naming the place from ``synthesize --resource``, and
a ``ResourceImportError`` from ``import_resource``: never a traceback, a hang or a server.
"""

from __future__ import annotations

import json
import os
import random
import re
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"  # beside the checkout
HOSTILE = Path(__file__).resolve().parents[1] / "corpus" / "hostile"
NEEDS_CORPUS = pytest.mark.skipif(
    not (CORPUS / "sources.json").is_file(),
    reason=f"no public corpus at {CORPUS} (../shared/corpus beside the checkout)",
)
SOURCES: list[dict[str, Any]] = (
    json.loads((CORPUS / "sources.json").read_text(encoding="utf-8"))
    if (CORPUS / "sources.json").is_file()
    else []
)
REDISTRIBUTABLE = {
    "MIT",
    "Apache-2.0",
    "BSD-2-Clause",
    "BSD-3-Clause",
    "CC0-1.0",
    "CC-BY-4.0",
    "CC-BY-SA-3.0",
}
REDISTRIBUTABLE |= {"CC-BY-SA-4.0", "PostgreSQL", "MS-PL", "ISC", "Unlicense"}


def _committed_files() -> set[str]:
    """Every file under openapi/ and sql/, relative to the corpus folder."""
    return {
        p.relative_to(CORPUS).as_posix()
        for top in ("openapi", "sql")
        for p in (CORPUS / top).rglob("*")
        if p.is_file()
    }


@NEEDS_CORPUS
def test_every_committed_corpus_file_is_listed_with_its_licence_and_commit_and_vice_versa():
    names = [e["name"] for e in SOURCES]
    assert len(names) == len(set(names)), "names repeat in sources.json"
    covered: set[str] = set()
    for entry in SOURCES:
        where = entry["name"]
        assert entry["kind"] in ("openapi", "sql"), where
        assert entry.get("dialect") in (
            ("sqlite", "mysql", "postgres") if entry["kind"] == "sql" else (None,)
        ), where
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", entry["repository"]), where
        assert entry["path"] and re.fullmatch(r"[0-9a-f]{40}", entry["commit"]), where
        assert entry["licence"], where
        path = CORPUS / entry["file"]
        if entry["committed"]:
            assert entry["licence"] in REDISTRIBUTABLE, (
                f"{where}: {entry['licence']} is not known to allow it"
            )
            assert entry["file"].startswith(f"{entry['kind']}/"), where
            assert path.is_file(), f"{where}: {entry['file']} is missing"
            licence_file = CORPUS / "licences" / (entry["repository"].replace("/", "__") + ".txt")
            assert licence_file.is_file() and licence_file.stat().st_size > 100, (
                f"{where}: no {licence_file.name}"
            )
            if "directory" in entry:  # a document split across files: all of its folder
                folder = entry["directory"].rstrip("/") + "/"
                assert entry["file"].startswith(folder), where
                covered |= {f for f in _committed_files() if f.startswith(folder)}
            else:
                covered.add(entry["file"])
        else:
            assert entry["file"].startswith("fetched/"), (
                f"{where}: documents not committed are fetched into fetched/"
            )
            assert entry.get("note"), f"{where}: say why it is not committed"
    assert _committed_files() == covered, (
        "files in the corpus that sources.json does not list (or lists twice)"
    )


@NEEDS_CORPUS
def test_the_committed_corpus_is_what_issue_12_asks_for():
    committed = [e for e in SOURCES if e["committed"]]
    openapi = [e for e in committed if e["kind"] == "openapi"]
    sql = [e for e in committed if e["kind"] == "sql"]
    assert len(openapi) >= 30 and len(sql) >= 8
    assert {e["dialect"] for e in sql} == {"sqlite", "mysql", "postgres"}
    assert any("directory" in e for e in openapi), "a document split across files"
    suffixes = {Path(e["file"]).suffix for e in openapi}
    assert ".json" in suffixes and suffixes & {".yaml", ".yml"}
    versions = set()
    for entry in openapi:
        text = (CORPUS / entry["file"]).read_text(encoding="utf-8")
        match = re.search(r"""^(?:openapi|\s*"openapi")\s*:\s*["']?(3\.[01])""", text, re.MULTILINE)
        assert match, f"{entry['name']}: no openapi version"
        versions.add(match.group(1))
    assert versions == {"3.0", "3.1"}
    assert all((CORPUS / e["file"]).stat().st_size < 5_000_000 for e in committed)


@NEEDS_CORPUS
@pytest.mark.parametrize(
    ("root", "operations"),
    [("openapi/digitalocean/DigitalOcean-public.v2.yaml", 659), ("openapi/sendgrid/oas_v3.json", 355)],
    ids=["digitalocean", "sendgrid"],
)
def test_documents_split_across_files_are_imported_through_their_root(root: str, operations: int):
    from envfactory_mcp.synth.resource import import_resource

    imported = import_resource(CORPUS / root)
    coverage = imported.coverage
    assert coverage.operations == operations
    auth = imported.spec.policy_rules.authentication
    steps = len(auth.tools) if auth else 0  # the security schemes' authentication step (issue 27)
    assert coverage.served >= 0.9 * operations and len(imported.spec.tools) == coverage.served + steps
    method = r"#/paths/[^/]+/(get|put|post|delete|patch|head|options|trace)"
    left_out = {
        i.where
        for i in imported.ignored
        if i.kind not in ("parameter", "field", "schema") and re.fullmatch(method, i.where)
    }
    assert coverage.served + len(left_out) == operations, "operations neither served nor ignored"


def _present(kind: str) -> list[Any]:
    """The corpus documents of ``kind`` that are here (a skip with its reason when none is)."""
    found = [e for e in SOURCES if e["kind"] == kind and (CORPUS / e["file"]).is_file()]
    reason = f"no {kind} document in {CORPUS} (../shared/corpus beside the checkout)"
    return [pytest.param(e, id=e["name"]) for e in found] or [
        pytest.param(None, marks=pytest.mark.skip(reason=reason))
    ]


def _swagger2() -> list[Any]:
    found = []
    for entry in SOURCES:
        path = CORPUS / entry["file"]
        if entry["kind"] == "openapi" and path.is_file():
            head = path.read_text(encoding="utf-8", errors="replace")[:4000]
            if re.search(r"""^\s*["']?swagger["']?\s*:\s*["']?2""", head, re.MULTILINE):
                found.append(pytest.param(entry, id=entry["name"]))
    reason = f"no Swagger 2.0 document in {CORPUS} (../shared/corpus beside the checkout)"
    return found or [pytest.param(None, marks=pytest.mark.skip(reason=reason))]


@pytest.mark.slow  # Chinook's 15,000 rows, three times
@pytest.mark.parametrize("entry", _present("sql"))
def test_every_sql_file_of_the_corpus_imports(entry: dict[str, Any]):
    from envfactory_mcp.synth.resource import import_resource

    imported = import_resource(CORPUS / entry["file"])
    assert imported.spec.tables and imported.coverage.served >= 0.8 * imported.coverage.operations


@pytest.mark.parametrize("entry", _swagger2())
def test_every_swagger_2_document_of_the_corpus_imports(entry: dict[str, Any]):
    from envfactory_mcp.synth.resource import import_resource

    imported = import_resource(CORPUS / entry["file"])
    assert imported.coverage.served >= 0.7 * imported.coverage.operations


# --------------------------------------------------------------------------- hostile documents


def _params_100(folder: Path) -> Path:
    path = "/things/" + "/".join(f"{{p{i}}}" for i in range(100))
    parameters = [
        {"name": f"p{i}", "in": "path", "required": True, "schema": {"type": "string"}} for i in range(100)
    ]
    document = {
        "openapi": "3.0.3",
        "info": {"title": "A hundred path parameters", "version": "1"},
        "paths": {
            path: {
                "get": {
                    "parameters": parameters,
                    "responses": {
                        "200": {
                            "description": "a thing",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        }
                    },
                }
            }
        },
    }
    target = folder / "params_100.json"
    target.write_text(json.dumps(document), encoding="utf-8")
    return target


def _huge(folder: Path) -> Path:
    """~50 MB of valid OpenAPI: 5,000 resources with long descriptions."""
    target = folder / "huge.json"
    filler = "lorem ipsum " * 800  # ~9.6 kB a resource, in two descriptions
    with target.open("w", encoding="utf-8") as out:
        out.write('{"openapi": "3.0.3", "info": {"title": "Huge", "version": "1"}, "paths": {')
        for i in range(5000):
            schema = {"type": "object", "description": filler, "properties": {"id": {"type": "integer"}}}
            item = {
                "get": {
                    "description": filler,
                    "responses": {
                        "200": {"description": "ok", "content": {"application/json": {"schema": schema}}}
                    },
                }
            }
            out.write(("," if i else "") + json.dumps(f"/things{i}") + ":" + json.dumps(item))
        out.write("}}")
    assert target.stat().st_size > 45_000_000
    return target


def _garbage(suffix: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        target = folder / f"garbage{suffix}"
        target.write_bytes(random.Random(12).randbytes(64 * 1024))
        return target

    return make


def _deep(folder: Path) -> Path:
    """Valid JSON nested 200,000 levels deep inside an otherwise fine document."""
    target = folder / "deep.json"
    nested = "[" * 200_000 + "]" * 200_000
    target.write_text(
        '{"openapi": "3.0.3", "info": {"title": "Deep", "version": "1"}, "x-deep": '
        + nested
        + ', "paths": {}}',
        encoding="utf-8",
    )
    return target


def _committed(name: str) -> Callable[[Path], Path]:
    return lambda _folder: HOSTILE / name


# (the document, what the error line must also name besides the file: any one of these)
HOSTILE_CASES = [
    pytest.param(_committed("ref_loop.yaml"), ("#/components/schemas/", "#/paths/"), id="ref_loop"),
    pytest.param(
        _committed("ref_loop_files_a.yaml"),
        ("#/paths/~1items", "ref_loop_files_b.yaml"),
        id="ref_loop_across_files",
    ),
    pytest.param(_committed("malformed.yaml"), ("line",), id="malformed_yaml"),
    pytest.param(_committed("malformed.json"), ("line",), id="malformed_json"),
    pytest.param(_committed("not_openapi.json"), ("openapi",), id="not_openapi_json"),
    pytest.param(_committed("swagger12.json"), ("Swagger 1.2",), id="swagger_1_2"),
    pytest.param(_committed("empty.sql"), ("",), id="empty_sql"),
    pytest.param(_committed("no_tables.sql"), ("",), id="sql_without_tables"),
    pytest.param(_params_100, ("#/paths/",), id="path_with_100_parameters"),
    pytest.param(_garbage(".json"), ("",), id="binary_garbage_json"),
    pytest.param(_garbage(".yaml"), ("",), id="binary_garbage_yaml"),
    pytest.param(_garbage(".sql"), ("",), id="binary_garbage_sql"),
    pytest.param(_deep, ("",), id="nested_200000_deep"),
    pytest.param(_huge, ("",), id="document_of_50_mb", marks=pytest.mark.slow),  # ~50 MB written and read
]

_IMPORT_IN_A_CHILD = """
import json, sys
from pathlib import Path
from envfactory_mcp.crud.model import ResourceImportError
from envfactory_mcp.synth.resource import import_resource
try:
    imported = import_resource(Path(sys.argv[1]))
except ResourceImportError as exc:
    print(json.dumps({"raised": "ResourceImportError", "message": str(exc)}))
else:
    print(json.dumps({"raised": None, "tools": len(imported.spec.tools)}))
"""


def _limited() -> None:  # a hostile document must not take the machine down with it
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "400", "NO_COLOR": "1"}
    try:
        return subprocess.run(
            args,
            capture_output=True,
            text=True,
            timeout=180,
            cwd=cwd,
            env=env,
            preexec_fn=_limited,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within 180 s: {' '.join(args[-4:])}")


@pytest.mark.slow  # two interpreters per document (the importer in a child, then the command)
@pytest.mark.parametrize(("make", "names"), HOSTILE_CASES)
def test_hostile_documents_get_one_line_errors(
    make: Callable[[Path], Path], names: tuple[str, ...], tmp_path: Path
):
    document = make(tmp_path)
    case = document.name
    # The importer itself: a ResourceImportError, on one line, naming the place.
    child = _run([sys.executable, "-c", _IMPORT_IN_A_CHILD, str(document)], tmp_path)
    assert "Traceback" not in child.stderr, f"{case}: import_resource raised:\n{child.stderr[-3000:]}"
    answer = json.loads(child.stdout.strip().splitlines()[-1])
    assert answer["raised"] == "ResourceImportError", f"{case}: imported ({answer}) instead of refusing"
    assert "\n" not in answer["message"] and len(answer["message"]) < 2000
    # The command: exit 1, one 'error:' line naming the file and the place, no package.
    out = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "envfactory_mcp",
        "synthesize",
        "--resource",
        str(document),
        "-o",
        str(out),
    ]
    done = _run(command, tmp_path)
    assert done.returncode == 1, f"{case}: exit {done.returncode}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, f"{case}:\n{done.stderr[-3000:]}"
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, f"{case}: expected one error line:\n{done.stderr[-3000:]}"
    assert document.name in errors[0], f"{case}: the error does not name the file: {errors[0]}"
    assert any(name in errors[0] for name in names), f"{case}: the error does not name the place: {errors[0]}"
    assert not list(out.glob("*/*/data/spec.json")), f"{case}: a package was written"


@pytest.mark.slow  # the command in a child process
def test_a_yaml_alias_bomb_neither_hangs_nor_exhausts_memory(tmp_path: Path):
    # Nine levels of aliases: 387 million strings if expanded. PyYAML shares them on load, so
    # what matters is that nothing downstream expands them: the command ends, under the
    # memory limit, with a verified package or one error line, never a traceback.
    document = HOSTILE / "yaml_aliases.yaml"
    out = tmp_path / "out"
    done = _run(
        [sys.executable, "-m", "envfactory_mcp", "synthesize", "--resource", str(document), "-o", str(out)],
        tmp_path,
    )
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr[-3000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    if done.returncode == 0:
        assert not errors and len(list(out.glob("*/*/data/spec.json"))) == 1
    else:
        result = json.loads(done.stdout) if done.stdout.strip().startswith("[") else None
        assert len(errors) == 1 or (result and result[0]["status"] == "failed"), done.stderr[-3000:]
        assert len(done.stdout) < 1_000_000 and len(done.stderr) < 1_000_000
