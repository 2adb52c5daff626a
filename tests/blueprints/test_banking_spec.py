"""The banking spec: declarations that downstream tooling relies on."""

from __future__ import annotations

import ast
import inspect
import json
import sys

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.spec import dump_spec, parse_spec, validate_spec

INTERNAL_IDS = {
    "customer_id",
    "account_id",
    "from_account_id",
    "to_account_id",
    "card_id",
    "transaction_id",
    "payee_id",
    "schedule_id",
}


def _spec():
    blueprint = load_blueprint("banking")
    return validate_spec(blueprint.build_spec(blueprint.default_seed))


def test_spec_basics_and_round_trip():
    spec = _spec()
    assert spec.name == "banking" and spec.seed.generator == "blueprint:banking"
    assert spec.policy.startswith("# Banking agent policy")
    reads = [t for t in spec.tools if t.effect == "read"]
    writes = [t for t in spec.tools if t.effect == "write"]
    assert len(spec.tools) >= 12 and len(reads) >= 6 and len(writes) >= 6
    assert parse_spec(json.loads(dump_spec(spec))) == spec


def test_every_tool_has_code_and_the_policy_names_every_write():
    spec = _spec()
    module = load_blueprint("banking").tools_module
    for tool in spec.tools:
        fn = getattr(module, tool.name)
        params = [p for p in inspect.signature(fn).parameters if p != "ctx"]
        assert sorted(params) == sorted(tool.input_schema["properties"]), tool.name
    for tool in spec.tools:
        if tool.effect == "write":
            assert f"`{tool.name}`" in spec.policy, tool.name


def test_policy_rules_cover_every_write():
    spec = _spec()
    rules = spec.policy_rules
    writes = {t.name for t in spec.tools if t.effect == "write"}
    assert set(rules.confirm) == writes
    assert rules.authentication is not None and rules.authentication.entity == "customer"
    assert rules.transfer is not None and len(rules.transfer.out_of_scope) >= 5
    assert len(rules.refusals) >= 8
    for rule in rules.refusals:
        assert rule.reason in spec.policy or rule.tool in spec.policy


def test_param_roles():
    spec = _spec()
    for tool in spec.tools:
        for name, param in tool.params.items():
            if name in INTERNAL_IDS:
                assert param.entity is not None and not param.user_provided, (tool.name, name)
            else:
                assert param.user_provided, (tool.name, name)


def test_every_write_and_most_reads_make_claims():
    spec = _spec()
    with_claims = {t.name for t in spec.tools if t.claims}
    assert {
        "get_account_details",
        "get_card_details",
        "get_transaction_details",
        "get_statement",
    } <= with_claims
    assert {"file_dispute", "waive_fee", "report_card_lost", "send_to_payee"} <= with_claims


def test_tool_code_imports_only_the_standard_library():
    source = load_blueprint("banking").code()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            continue
        for name in names:
            root = name.split(".")[0]
            assert root in sys.stdlib_module_names or name == "envfactory_mcp.runtime", name
