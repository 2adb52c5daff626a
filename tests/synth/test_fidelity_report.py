"""The fidelity report of an import: the importer's figures, every ignored part grouped by kind, one-line --strict.

The report's figures are ``ImportedEnv.coverage`` and ``ImportedEnv.ignored``; the last
test holds the importers to the document itself: on corpus documents, the operations the
report counts are those of the document, and each is either served or ignored.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]
from rich.console import Console

from envfactory_mcp.crud.model import Ignored, ImportedEnv
from envfactory_mcp.synth.report import FIDELITY_FORMAT, FidelityReport, fidelity_relpath, render_fidelity
from envfactory_mcp.synth.resource import import_resource

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"  # beside the checkout (issue 27)
NEEDS_CORPUS = pytest.mark.skipif(
    not (CORPUS / "sources.json").is_file(),
    reason=f"no public corpus at {CORPUS} (../shared/corpus beside the checkout)",
)
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def _report(**overrides: object) -> FidelityReport:
    values: dict[str, object] = {
        "resource": "shop.yaml",
        "kind": "openapi",
        "operations": 12,
        "served": 8,
        "tools": 8,
        "tables": 3,
        "fields": 40,
        "fields_kept": 35,
        "ignored": [
            Ignored("#/paths/~1login/post", "operation", "login/token/auth endpoints are not state"),
            Ignored("#/paths/~1logout/post", "operation", "login/token/auth endpoints are not state"),
            Ignored("#/paths/~1items~1{id}~1print/post", "operation", "no effect on the state"),
            Ignored("#/paths/~1oauth~1token/post", "operation", "login/token/auth endpoints are not state"),
            Ignored("#/components/schemas/Item/properties/blob", "field", "binary content is not stored"),
        ],
    }
    values.update(overrides)
    return FidelityReport(**values)  # type: ignore[arg-type]


def _text(renderable: object) -> str:
    console = Console(record=True, width=200, color_system=None)
    console.print(renderable)
    return console.export_text()


@NEEDS_CORPUS
def test_the_report_is_the_importers_figures_and_every_ignored_part():
    path = CORPUS / "openapi" / "oai_petstore_expanded.json"
    imported: ImportedEnv = import_resource(path)
    report = FidelityReport.of(imported, path)
    coverage = imported.coverage
    assert (report.resource, report.kind) == ("oai_petstore_expanded.json", "openapi")
    assert (report.operations, report.served, report.fields, report.fields_kept) == (
        coverage.operations,
        coverage.served,
        coverage.fields,
        coverage.fields_kept,
    )
    assert (report.tools, report.tables) == (len(imported.spec.tools), len(imported.spec.tables))
    data = json.loads(report.to_json())
    assert data["format"] == FIDELITY_FORMAT and data["ignored"] == len(imported.ignored)
    listed = {(i["where"], kind, i["reason"]) for kind, items in data["ignored_parts"].items() for i in items}
    assert listed == {(i.where, i.kind, i.reason) for i in imported.ignored}
    assert data["fields_dropped"] == coverage.fields - coverage.fields_kept
    assert fidelity_relpath(imported.spec.name).endswith("/data/fidelity.json")


def test_the_table_shows_the_figures_and_the_ignored_parts_by_kind_with_counts_and_reasons():
    text = _text(render_fidelity(_report()))
    for label, value in [
        ("operations in the document", 12),
        ("served as tools", 8),
        ("tools", 8),
        ("fields kept", 35),
        ("fields dropped", 5),
        ("ignored", 5),
    ]:
        assert re.search(rf"{label}\s*│\s*{value}\b", text), (label, text)
    assert re.search(r"operation\s*│\s*4\s*│", text) and re.search(r"field\s*│\s*1\s*│", text)
    assert "login/token/auth endpoints are not state (x3, #/paths/~1login/post)" in text
    assert "no effect on the state (x1, #/paths/~1items~1{id}~1print/post)" in text
    assert text.index("operation ") < text.index("field ")  # the most numerous kind first
    sql = _text(render_fidelity(_report(kind="sql", ignored=[])))
    assert "CREATE TABLE statements in the document" in sql and "served as tables" in sql
    assert "ignored, by kind" not in sql


def test_the_table_shows_a_few_reasons_per_kind_and_says_how_many_more():
    many = [Ignored(f"line {n}", "statement", f"statement {n} is not state") for n in range(30)]
    text = _text(render_fidelity(_report(kind="sql", ignored=many)))
    assert "and 24 more reason(s)" in text and text.count("is not state (x1") == 6


def test_strict_refuses_in_one_line_with_the_counts_and_the_first_part():
    line = _report().strict_failure()
    assert line is not None and "\n" not in line
    assert line.startswith("shop.yaml: 5 part(s) ignored (4 operation, 1 field)")
    assert "#/components/schemas/Item/properties/blob: binary content is not stored" in line
    assert _report(ignored=[]).strict_failure() is None


def _document_operations(path: Path) -> list[str]:
    """The JSON pointers of the document's operations (SQL: one ``line N`` per CREATE TABLE)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".sql":
        starts = re.finditer(r"^\s*CREATE\s+TABLE\b", text, re.IGNORECASE | re.MULTILINE)
        return [f"line {text.count(chr(10), 0, m.start()) + 1}" for m in starts]
    document = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    return [
        "#/paths/" + p.replace("~", "~0").replace("/", "~1") + f"/{method}"
        for p, item in document["paths"].items()
        for method in METHODS
        if method in item
    ]


@NEEDS_CORPUS
@pytest.mark.parametrize(
    "name",
    [
        "openapi/oai_petstore.yaml",
        "openapi/oai_petstore_expanded.json",
        "openapi/redocly_museum.yaml",
        "openapi/swagger_petstore3.yaml",
        pytest.param("sql/chinook_sqlite.sql", marks=pytest.mark.slow),  # 15,000 rows to import
        "sql/sakila_sqlite.sql",
    ],
)
def test_the_report_counts_every_operation_of_the_document_as_served_or_ignored(name: str):
    path = CORPUS / name
    imported = import_resource(path)
    report = FidelityReport.of(imported, path)
    operations = _document_operations(path)
    assert report.operations == len(operations)
    # an operation left out is named by its pointer; parameters, fields and schemas are parts of one
    parts = ("parameter", "field", "schema")
    ignored = {i.where for i in imported.ignored if i.kind not in parts and i.where in operations}
    assert report.served + len(ignored) == report.operations, "operations neither served nor ignored"
    assert report.served > 0
