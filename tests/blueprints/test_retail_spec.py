"""The retail spec: declarations that downstream tooling relies on."""

from __future__ import annotations

import ast
import inspect
import json
import sys

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.spec import dump_spec, parse_spec, validate_spec

ID_PARAMS = {"user_id", "item_ids", "new_item_ids", "product_id", "payment_method_id"}
USER_PARAMS = {
    "email",
    "first_name",
    "last_name",
    "zip",
    "address1",
    "address2",
    "city",
    "state",
    "country",
    "order_id",
    "reason",
    "expression",
    "summary",
}


def _spec():
    blueprint = load_blueprint("retail")
    return validate_spec(blueprint.build_spec(blueprint.default_seed))


def _walk(schema, path="$"):
    yield path, schema
    for name, sub in schema.get("properties", {}).items():
        yield from _walk(sub, f"{path}.{name}")
    if isinstance(schema.get("items"), dict):
        yield from _walk(schema["items"], f"{path}[]")


def test_spec_basics():
    spec = _spec()
    assert spec.name == "retail"
    assert spec.seed.generator == "blueprint:retail"
    assert spec.policy.startswith("# Retail agent policy")
    assert len(spec.tools) >= 14
    assert {t.name for t in spec.tables} >= {
        "users",
        "payment_methods",
        "products",
        "items",
        "orders",
        "payments",
    }


def test_seed_number_is_recorded():
    blueprint = load_blueprint("retail")
    assert blueprint.build_spec(42).seed.seed == 42


def test_read_tools_declare_no_writes_and_write_tools_some():
    for tool in _spec().tools:
        if tool.effect == "read":
            assert tool.writes == [], tool.name
        else:
            assert tool.writes, tool.name
            assert set(tool.writes) <= set(tool.reads), tool.name


def test_input_schemas_are_closed_and_bounded():
    for tool in _spec().tools:
        schema = tool.input_schema
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False, tool.name
        assert sorted(schema["required"]) == sorted(schema["properties"]), tool.name
        for path, node in _walk(schema):
            if node.get("type") == "string" and "enum" not in node:
                assert "maxLength" in node, f"{tool.name} {path}"
            if node.get("type") == "array":
                assert {"minItems", "maxItems", "uniqueItems"} <= set(node), f"{tool.name} {path}"


def test_output_schemas_are_objects_with_required_properties():
    for tool in _spec().tools:
        schema = tool.output_schema
        assert schema["type"] == "object", tool.name
        assert schema["properties"], tool.name
        assert schema["required"], tool.name


def test_params_say_what_the_user_knows():
    for tool in _spec().tools:
        assert set(tool.params) == set(tool.input_schema["properties"]), tool.name
        for name, param in tool.params.items():
            if name in ID_PARAMS:
                assert param.user_provided is False, f"{tool.name}.{name}"
            if name in USER_PARAMS:
                assert param.user_provided is True, f"{tool.name}.{name}"


def test_outputs_name_the_entities_tools_produce():
    spec = _spec()
    assert spec.tool("find_user_id_by_email").outputs == {"user_id": "user"}
    assert spec.tool("get_user_details").outputs["orders[]"] == "order"
    assert spec.tool("get_user_details").outputs["payment_methods[].payment_method_id"] == "payment_method"
    assert spec.tool("get_order_details").outputs["items[].item_id"] == "item"
    assert spec.tool("get_product_details").outputs["variants[].item_id"] == "item"
    assert spec.tool("list_all_product_types").outputs["products[].product_id"] == "product"


def test_hints():
    spec = _spec()
    assert spec.tool("modify_user_address").is_idempotent
    assert spec.tool("cancel_pending_order").is_destructive
    assert not spec.tool("transfer_to_human_agents").is_destructive
    assert spec.tool("calculate").reads == [] and spec.tool("transfer_to_human_agents").reads == []


def test_round_trips_through_dump_and_parse():
    spec = _spec()
    text = dump_spec(spec)
    again = parse_spec(json.loads(text))
    assert again == spec
    assert dump_spec(again) == text


def test_every_declared_tool_is_implemented():
    blueprint = load_blueprint("retail")
    for tool in _spec().tools:
        fn = getattr(blueprint.tools_module, tool.name)
        params = inspect.signature(fn).parameters
        assert next(iter(params)) == "ctx"
        assert set(list(params)[1:]) == set(tool.input_schema["properties"]), tool.name


def test_tool_code_imports_only_the_standard_library():
    source = inspect.getsource(load_blueprint("retail").tools_module)
    # The emitter rewrites the ToolContext import line; it must sit under a TYPE_CHECKING guard.
    block = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from envfactory_mcp.runtime import ToolContext\n"
    assert block in source or block.replace("\n\n", "\n") in source
    assert source.count("envfactory_mcp") == 1
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top == "envfactory_mcp":
                assert name == "envfactory_mcp.runtime" and [a.name for a in node.names] == ["ToolContext"]
            else:
                assert top in sys.stdlib_module_names or top == "__future__", name
    for banned in ("random", "time", "datetime"):
        assert f"import {banned}" not in source
