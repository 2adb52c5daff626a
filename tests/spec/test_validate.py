"""A bad spec fails with a SpecError that names the exact place."""

from __future__ import annotations

import json

import mini_env
import pytest

from envfactory_mcp.errors import SpecError
from envfactory_mcp.spec import dump_spec, load_spec, parse_spec


def broken(mutate) -> dict:
    data = mini_env.spec_dict()
    mutate(data)
    return data


def tool(data: dict, name: str) -> dict:
    return next(t for t in data["tools"] if t["name"] == name)


@pytest.mark.parametrize(
    ("mutate", "where", "message"),
    [
        (
            lambda d: tool(d, "transfer")["writes"].append("ledger"),
            "tools[transfer].writes[2]",
            "unknown table 'ledger'",
        ),
        (
            lambda d: tool(d, "get_account")["reads"].append("users"),
            "tools[get_account].reads[1]",
            "unknown table 'users'",
        ),
        (lambda d: d["tools"].append(dict(tool(d, "noop"))), "tools[7]", "duplicate tool 'noop'"),
        (
            lambda d: tool(d, "transfer")["input_schema"]["properties"].__setitem__(
                "amount_cents", {"type": "money"}
            ),
            "tools[transfer].input_schema/properties/amount_cents/type",
            "invalid JSON Schema",
        ),
        (
            lambda d: d["tables"][1]["columns"][1].__setitem__("references", "owners.owner_id"),
            "tables[transfers].columns[from_account].references",
            "dangling foreign key: no table 'owners'",
        ),
        (
            lambda d: d["tables"][1]["columns"][1].__setitem__("references", "accounts.iban"),
            "tables[transfers].columns[from_account].references",
            "table 'accounts' has no column 'iban'",
        ),
        (
            lambda d: tool(d, "get_account")["writes"].append("accounts"),
            "tools[get_account].writes",
            "read tool cannot",
        ),
        (lambda d: tool(d, "transfer").__setitem__("writes", []), "tools[transfer].writes", "at least one"),
        (
            lambda d: tool(d, "transfer")["params"].pop("amount_cents"),
            "tools[transfer].params",
            "'amount_cents' has no ParamSpec",
        ),
        (
            lambda d: d["tables"][0].__setitem__("primary_key", ["id"]),
            "tables[accounts].primary_key[0]",
            "unknown column 'id'",
        ),
        (
            lambda d: d["tables"][0]["columns"][2].__setitem__("enum", ["checking", 3]),
            "tables[accounts].columns[kind].enum[1]",
            "not a TEXT",
        ),
        (
            lambda d: tool(d, "get_account").__setitem__("effect", "maybe"),
            "tools[get_account].effect",
            "Input should be 'read' or 'write'",
        ),
        (
            lambda d: tool(d, "get_account").__setitem__("colour", "red"),
            "tools[get_account].colour",
            "Extra inputs are not permitted",
        ),
        (
            lambda d: tool(d, "get_account").__setitem__("outputs", {"nope[]": "x"}),
            "tools[get_account].outputs[nope[]]",
            "does not exist",
        ),
        (
            lambda d: tool(d, "noop")["output_schema"].__setitem__("type", "array"),
            "tools[noop].output_schema.type",
            "must be 'object'",
        ),
    ],
)
def test_bad_specs_name_the_place(mutate, where, message):
    with pytest.raises(SpecError) as info:
        parse_spec(broken(mutate))
    assert info.value.where == where
    assert message in info.value.message


def test_spec_round_trips_through_json(tmp_path):
    spec = parse_spec(mini_env.spec_dict())
    path = tmp_path / "spec.json"
    path.write_text(dump_spec(spec))
    assert load_spec(path) == spec
    assert dump_spec(load_spec(path)) == dump_spec(spec)


def test_unreadable_files_are_spec_errors(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text("{not json")
    with pytest.raises(SpecError, match=r"spec.json:1:2: not JSON"):
        load_spec(path)
    path.write_text(json.dumps([1]))
    with pytest.raises(SpecError, match="top level must be a JSON object"):
        load_spec(path)
    with pytest.raises(SpecError, match="no such file"):
        load_spec(tmp_path / "missing.json")


# ---------------------------------------------------------------- policy rules


def retail_with(rules_patch) -> dict:
    from envfactory_mcp.blueprints import load_blueprint

    data = json.loads(dump_spec(load_blueprint("retail").build_spec(7)))
    rules_patch(data["policy_rules"])
    return data


@pytest.mark.parametrize(
    ("patch", "where", "message"),
    [
        (
            lambda r: r["authentication"]["tools"].append("get_product_details"),
            "policy_rules.authentication.tools[2]",
            "does not return a 'user' id",
        ),
        (lambda r: r["confirm"].append("get_order_details"), "policy_rules.confirm[7]", "is a read tool"),
        (lambda r: r["confirm"].append("refund_everything"), "policy_rules.confirm[7]", "unknown tool"),
        (
            lambda r: r["refusals"][0].__setitem__("path", "totals"),
            "policy_rules.refusals[0].path",
            "is not one value",
        ),
        (
            lambda r: r["refusals"][0].__setitem__("column", "colour"),
            "policy_rules.refusals[0].column",
            "no column",
        ),
        (
            lambda r: r["refusals"][0].__setitem__("entity", "parcel"),
            "policy_rules.refusals[0].entity",
            "no table",
        ),
        (
            lambda r: r["transfer"].__setitem__("tool", "call_a_human"),
            "policy_rules.transfer.tool",
            "unknown tool",
        ),
        (
            lambda r: r.__setitem__("calculator", "get_user_details"),
            "policy_rules.calculator",
            "'expression'",
        ),
    ],
)
def test_policy_rules_name_real_tools_tables_and_paths(patch, where, message):
    with pytest.raises(SpecError) as caught:
        parse_spec(retail_with(patch))
    assert caught.value.where == where and message in str(caught.value)


def test_the_retail_policy_rules_round_trip_and_say_what_the_policy_text_says():
    from envfactory_mcp.blueprints import load_blueprint

    spec = load_blueprint("retail").build_spec(7)
    assert parse_spec(json.loads(dump_spec(spec))).policy_rules == spec.policy_rules
    rules = spec.policy_rules
    for tool in rules.confirm:  # every write the text says to confirm, and only writes
        declared = spec.tool(tool)
        assert f"`{tool}`" in spec.policy and declared is not None and declared.effect == "write"
    assert {t.name for t in spec.tools if t.effect == "write"} == set(rules.confirm)
    assert rules.needs_authentication("get_order_details") and not rules.needs_authentication(
        "list_all_product_types"
    )
