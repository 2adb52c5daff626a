"""Per-tool verdicts: a tool that fails verification is dropped with its reason, the rest
of the document is verified again, signed and served; --strict keeps all or nothing."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import envfactory_mcp.synth.resource as resource_module
from envfactory_mcp.cli import app
from envfactory_mcp.emit.render import package_name
from envfactory_mcp.spec import load_spec
from envfactory_mcp.synth.report import fidelity_relpath
from envfactory_mcp.verify.dropping import droppable, remove_functions
from envfactory_mcp.verify.provenance import read_report, verification_status
from envfactory_mcp.verify.report import CheckResult, SandboxInfo, ToolReport, VerificationReport

BROKEN = "delete_parts1"
runner = CliRunner()


def parts_document(resources: int) -> dict[str, Any]:
    """An OpenAPI document the importer takes whole (nothing ignored): ``resources``
    collections with list, create, get, replace and delete, 5 operations each
    (``list_parts0``, ``create_parts0``, ``get_parts0``, ``update_parts0``, ``delete_parts0``, ...)."""
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
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


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "parts.json"
    path.write_text(json.dumps(parts_document(2)), encoding="utf-8")  # 10 operations
    return path


def _with_a_broken_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The importer's output, with ``BROKEN`` redefined to crash on every call."""
    real = resource_module.import_resource

    def broken(*args: Any, **kwargs: Any) -> Any:
        imported = real(*args, **kwargs)
        assert BROKEN in [t.name for t in imported.spec.tools]
        crash = f"\n\ndef {BROKEN}(ctx, **arguments):\n    raise RuntimeError('deliberately broken')\n"
        return replace(imported, tools_source=imported.tools_source + crash)

    monkeypatch.setattr(resource_module, "import_resource", broken)


def _synthesize(*args: str) -> tuple[int, list[dict[str, Any]] | None, str]:
    result = runner.invoke(app, ["synthesize", *args], env={"COLUMNS": "200"})
    stdout = result.stdout.strip()
    return result.exit_code, json.loads(stdout) if stdout.startswith("[") else None, result.stderr


@pytest.mark.slow
def test_a_failing_tool_is_dropped_with_its_reason_and_the_rest_is_served(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, document: Path
):
    _with_a_broken_tool(monkeypatch)
    out = tmp_path / "out"
    code, results, stderr = _synthesize("--resource", str(document), "-o", str(out))
    assert code == 0, stderr
    assert results is not None
    (made,) = results
    assert made["status"] == "emitted", made["failures"]
    # the user is told plainly, on stderr and in the JSON result
    assert f"1 of 10 tools failed verification and are dropped ({BROKEN})" in stderr
    assert "deliberately broken" in stderr
    assert [d["tool"] for d in made["dropped"]] == [BROKEN]
    assert "no_internal_error" in made["dropped"][0]["reason"]
    assert made["fidelity"]["tools"] == 9 and made["fidelity"]["served"] == 9
    package = Path(str(made["package"]))
    name = str(made["name"])
    # the report: passed, signed, about the nine tools that are there, naming the dropped one
    report = read_report(package)
    assert report is not None and report.passed and report.signed_here()
    assert len(report.tools) == 9 and BROKEN not in {t.tool for t in report.tools}
    assert [(d.tool, d.effect) for d in report.dropped] == [(BROKEN, "write")]
    assert "deliberately broken" in report.dropped[0].reason
    assert verification_status(package) == "passed"
    # the fidelity table in the package names it, with the reason
    fidelity = json.loads((package / fidelity_relpath(name)).read_text(encoding="utf-8"))
    dropped_parts = [p for p in fidelity["ignored_parts"]["operation"] if p["where"] == f"tool {BROKEN}"]
    assert dropped_parts and "failed verification" in dropped_parts[0]["reason"]
    # what is served: the spec (which the stdio stage checked the server lists) and the code
    pkg = package / package_name(name)
    assert BROKEN not in [t.name for t in load_spec(pkg / "data" / "spec.json").tools]
    assert f"def {BROKEN}(" not in (pkg / "tools.py").read_text(encoding="utf-8")
    listed = runner.invoke(app, ["list", "--servers-dir", str(out)], env={"COLUMNS": "200"})
    assert listed.exit_code == 0 and name in listed.stdout


@pytest.mark.slow
def test_strict_keeps_all_or_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, document: Path):
    _with_a_broken_tool(monkeypatch)
    out = tmp_path / "out"
    code, results, stderr = _synthesize("--strict", "--resource", str(document), "-o", str(out))
    assert code == 1
    assert results is not None
    (made,) = results
    assert made["status"] == "failed" and made["package"] is None
    assert any(line.startswith(f"{BROKEN}: no_internal_error: ") for line in made["failures"])
    assert "deliberately broken" in stderr and "are dropped" not in stderr
    assert not (out / str(made["name"])).exists()  # nothing written


# --------------------------------------------------------------------------- pure parts


def _report(
    tools: dict[str, list[CheckResult]], environment: list[CheckResult] | None = None
) -> VerificationReport:
    return VerificationReport(
        env="shop",
        passed=False,
        envfactory_version="0",
        sandbox=SandboxInfo(network_isolated=True),
        environment=environment or [CheckResult(check="spec", status="passed")],
        tools=[ToolReport(tool=name, effect="read", checks=checks) for name, checks in tools.items()],
    )


def test_only_a_tools_own_failure_is_droppable(retail_env: Any):
    ok = [CheckResult(check="reachable", status="passed")]
    bad = [CheckResult(check="reachable", status="failed", reason="none of 96 valid calls succeeded")]
    names = [t.name for t in retail_env.spec.tools]
    plain = next(n for n in names if n.startswith("list_"))
    failing, why = droppable(_report({plain: bad, names[0]: ok}), retail_env.spec)
    assert failing == {plain: "reachable: none of 96 valid calls succeeded"} and why == ""
    # an attempt to get out of the sandbox fails the environment: nothing is dropped
    escaped = [CheckResult(check="sandbox", status="failed", reason="tools broke the sandbox's rules")]
    failing, why = droppable(_report({plain: bad}, escaped), retail_env.spec)
    assert failing is None and "'sandbox'" in why
    # a tool the policy needs (authentication, the hand-off) cannot go
    auth = retail_env.spec.policy_rules.authentication.tools[0]
    failing, why = droppable(_report({auth: bad}), retail_env.spec)
    assert failing is None and auth in why
    # nor can every tool
    failing, why = droppable(_report(dict.fromkeys(names, bad)), retail_env.spec)
    assert failing is None


def test_a_dropped_tools_function_leaves_the_code_unless_something_else_uses_it():
    source = (
        "import json\n\n\ndef helper(x):\n    return x\n\n\n@staticmethod\ndef gone(ctx):\n    return {}\n\n\n"
        "def kept(ctx):\n    return helper({})\n\n\ndef used(ctx):\n    return {}\n\n\nALIASES = {'u': used}\n"
    )
    out = remove_functions(source, {"gone", "used"})
    assert "def gone" not in out and "@staticmethod" not in out
    assert "def used" in out  # ALIASES names it
    assert "def kept" in out and "def helper" in out
    compile(out, "tools.py", "exec")


# --------------------------------------------------------------------------- the policy after drops

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"  # beside the checkout (issue 27)


@pytest.mark.skipif(
    not (CORPUS / "sources.json").is_file(),
    reason=f"no public corpus at {CORPUS} (../shared/corpus beside the checkout)",
)
@pytest.mark.parametrize("document", ["openapi/paypal_invoicing_v2.json", "openapi/swagger_petstore3.yaml"])
def test_the_policy_never_names_a_dropped_tool(document: str):
    from envfactory_mcp.env import assemble_env
    from envfactory_mcp.synth.resource import import_resource
    from envfactory_mcp.verify.dropping import without_tools

    imported = import_resource(CORPUS / document)
    env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    rules = env.spec.policy_rules
    names = [t.name for t in env.spec.tools]
    named = [n for n in names if f"`{n}`" in env.spec.policy]
    assert rules.confirm and set(rules.confirm) <= set(named)  # the document's destructive operations
    # drop every confirmed tool but one, and a tool the text does not name
    gone = set(rules.confirm[1:]) | {next(n for n in names if n not in named)}
    reduced = without_tools(env, gone)
    served = {t.name for t in reduced.spec.tools}
    assert served == set(names) - gone
    for name in gone:
        assert re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", reduced.spec.policy) is None, name
    assert reduced.spec.policy_rules.confirm == rules.confirm[:1]
    assert f"`{rules.confirm[0]}`" in reduced.spec.policy  # the one left is still confirmed in words
    # dropping every confirmed tool takes the whole confirmation sentence away, nothing else
    bare = without_tools(env, set(rules.confirm)).spec.policy
    assert "explicit yes" not in bare and not bare_mentions(bare, set(rules.confirm))
    assert "## Changes" in bare and "Change only the fields the user asks to change" in bare
    assert re.search(r"\(\s*\)|,\s*,|\(\s*,", bare) is None  # no empty or broken list left


def bare_mentions(text: str, names: set[str]) -> list[str]:
    return [n for n in names if re.search(rf"(?<![\w.]){re.escape(n)}(?!\w)", text)]


def test_policy_without_takes_a_tool_out_of_lists_and_sentences():
    from envfactory_mcp.verify.dropping import policy_without

    text = (
        "# Shop\n\n## Reads\n\nThese need no authentication: `list_a` and `list_b`.\n\n## Changes\n\n"
        "- Confirm first (`delete_a`, `cancel_b`, `void_c`), then act.\n- Use get_x to look. Then change it.\n"
    )
    out = policy_without(text, {"list_a", "list_b", "cancel_b", "get_x"})
    assert "## Reads" not in out and "list_" not in out  # its only sentence went, then the heading
    assert "- Confirm first (`delete_a`, `void_c`), then act." in out
    assert "- Then change it." in out and "get_x" not in out
    assert policy_without(text, set()) == text
