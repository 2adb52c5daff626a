"""synthesize --resource on real documents: the fidelity table, fidelity.json in the verified package, --strict,
and a document with hundreds of operations verified with limits that grow with it and progress shown.

(DigitalOcean's 659 operations verify too, in about 5 minutes here: bench/bench_import.py
measures that; tests/synth/test_corpus.py imports it.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from envfactory_mcp.cli import app
from envfactory_mcp.synth.report import FidelityReport, fidelity_relpath
from envfactory_mcp.synth.resource import import_resource
from envfactory_mcp.verify.provenance import read_report, verification_status

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"  # beside the checkout (issue 27)
NEEDS_CORPUS = pytest.mark.skipif(
    not (CORPUS / "sources.json").is_file(),
    reason=f"no public corpus at {CORPUS} (../shared/corpus beside the checkout)",
)
runner = CliRunner()

pytestmark = pytest.mark.slow  # every emitted package is verified in the sandbox and over stdio


def _synthesize(*args: str) -> tuple[int, list[dict[str, object]] | None, str]:
    """(exit code, the JSON result on stdout or None, stderr) of ``envfactory-mcp synthesize ARGS``."""
    result = runner.invoke(app, ["synthesize", *args], env={"COLUMNS": "200"})
    stdout = result.stdout.strip()
    return result.exit_code, json.loads(stdout) if stdout.startswith("[") else None, result.stderr


@NEEDS_CORPUS
def test_the_fidelity_table_is_printed_and_written_into_the_verified_package(tmp_path: Path):
    resource = CORPUS / "openapi" / "oai_petstore_expanded.json"
    code, results, stderr = _synthesize("--resource", str(resource), "-o", str(tmp_path))
    assert code == 0, stderr
    assert results is not None
    (made,) = results
    expected = FidelityReport.of(import_resource(resource), resource)
    # the table, on stderr (stdout stays the JSON result)
    assert "fidelity: oai_petstore_expanded.json" in stderr
    assert re.search(rf"operations in the document\s*│\s*{expected.operations}\b", stderr)
    assert re.search(rf"tools\s*│\s*{expected.tools}\b", stderr)
    assert re.search(rf"ignored\s*│\s*{len(expected.ignored)}\b", stderr)
    for kind, items in expected.by_kind().items():
        assert re.search(rf"{kind}\s*│\s*{len(items)}\s*│", stderr), kind
        assert items[0].reason[:40] in stderr
    assert "verifying" in stderr and "tools probed in the sandbox" in stderr
    # the same, in the JSON result and in the package, covered by the verification report
    assert made["status"] == "emitted" and made["fidelity"] == expected.summary()
    package = Path(str(made["package"]))
    written = package / fidelity_relpath(str(made["name"]))
    assert written.read_text(encoding="utf-8") == expected.to_json()
    report = read_report(package)
    assert report is not None and fidelity_relpath(str(made["name"])) in report.subject
    assert verification_status(package) == "passed"
    written.write_text(written.read_text(encoding="utf-8").replace('"served"', '"served" '), encoding="utf-8")
    assert verification_status(package) == "stale"


@NEEDS_CORPUS
def test_strict_fails_in_one_line_when_the_importer_ignored_anything(tmp_path: Path):
    # The Swagger petstore has /user/login and /user/logout: not state, so ignored (issue 12).
    resource = CORPUS / "openapi" / "swagger_petstore3.yaml"
    code, results, stderr = _synthesize("--strict", "--resource", str(resource), "-o", str(tmp_path))
    assert code == 1 and results is None
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, stderr
    assert "swagger_petstore3.yaml" in errors[0] and "--strict" in errors[0] and "ignored" in errors[0]
    assert "#/paths/~1user~1login" in stderr  # the table before it shows what was ignored
    assert not list(tmp_path.glob("*/*/data/spec.json")), "nothing is written"


def test_strict_lets_a_document_with_nothing_ignored_through(tmp_path: Path):
    document = tmp_path / "notes.yaml"
    document.write_text(
        """openapi: 3.0.3
info: {title: Notes, version: "1"}
paths:
  /notes:
    get:
      responses:
        "200":
          description: notes
          content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/Note"}}}}
    post:
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/Note"}}}
      responses:
        "201":
          description: made
          content: {application/json: {schema: {$ref: "#/components/schemas/Note"}}}
  /notes/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
    get:
      responses:
        "200":
          description: a note
          content: {application/json: {schema: {$ref: "#/components/schemas/Note"}}}
    delete:
      responses: {"204": {description: deleted}}
components:
  schemas:
    Note:
      type: object
      required: [text]
      properties:
        id: {type: integer, readOnly: true}
        text: {type: string}
""",
        encoding="utf-8",
    )
    code, results, stderr = _synthesize("--strict", "--resource", str(document), "-o", str(tmp_path / "out"))
    assert code == 0, stderr
    assert results is not None and results[0]["status"] == "emitted"
    assert results[0]["fidelity"]["ignored"] == 0  # type: ignore[index]


def _flat_document(resources: int) -> dict[str, object]:
    """``resources`` collections with list, create, get, replace and delete: 5 operations each."""
    paths: dict[str, object] = {}
    schemas: dict[str, object] = {}
    for i in range(resources):
        ref = {"$ref": f"#/components/schemas/Part{i}"}
        body = {"required": True, "content": {"application/json": {"schema": ref}}}
        one = {"description": "a part", "content": {"application/json": {"schema": ref}}}
        many = {
            "description": "parts",
            "content": {"application/json": {"schema": {"type": "array", "items": ref}}},
        }
        schemas[f"Part{i}"] = {
            "type": "object",
            "required": ["label"],
            "properties": {"id": {"type": "integer", "readOnly": True}, "label": {"type": "string"}},
        }
        paths[f"/parts{i}"] = {
            "get": {"responses": {"200": many}},
            "post": {"requestBody": body, "responses": {"201": one}},
        }
        paths[f"/parts{i}/{{id}}"] = {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "get": {"responses": {"200": one}},
            "put": {"requestBody": body, "responses": {"200": one}},
            "delete": {"responses": {"204": {"description": "deleted"}}},
        }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Warehouse parts", "version": "1"},
        "paths": paths,
        "components": {"schemas": schemas},
    }


def test_a_document_with_hundreds_of_operations_verifies_with_limits_grown_for_it(tmp_path: Path):
    document = tmp_path / "parts.json"
    document.write_text(json.dumps(_flat_document(60)), encoding="utf-8")  # 300 operations
    code, results, stderr = _synthesize("--resource", str(document), "-o", str(tmp_path / "out"))
    assert code == 0, stderr
    assert results is not None
    (made,) = results
    assert made["status"] == "emitted", made["failures"]
    report = read_report(Path(str(made["package"])))
    assert report is not None and len(report.tools) == 300
    assert report.sandbox.limits["cpu_seconds"] > 20 and report.sandbox.limits["wall_seconds"] > 30
    progress = re.search(r"verifying warehouse_parts: 300 tools .*limits (\d+) s CPU", stderr)
    assert progress and int(progress.group(1)) == report.sandbox.limits["cpu_seconds"]
    assert re.search(r"verified warehouse_parts in [\d.]+ s", stderr)
