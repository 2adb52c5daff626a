"""CREATE TABLE statements become a verified server with CRUD tools; anything unsupported names its line."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from envfactory_mcp.build import BuildResult, VerificationFailed, emit_verified
from envfactory_mcp.emit.render import package_name
from envfactory_mcp.env.environment import assemble_env
from envfactory_mcp.synth.crud import ResourceImportError
from envfactory_mcp.synth.resource import import_resource
from envfactory_mcp.synth.sqlddl import import_sql

pytestmark = pytest.mark.slow  # the shop is verified in the sandbox and over stdio

SHOP = Path(__file__).resolve().parents[2] / "examples" / "sql" / "shop.sql"


def _text(result: CallToolResult) -> str:
    """The text of a tool result (an error message)."""
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


def _build(dest: Path) -> BuildResult:
    imported = import_resource(SHOP, None, 0)
    env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    try:
        return emit_verified(env, dest / env.spec.name)
    except VerificationFailed as exc:
        pytest.fail("shop failed verification:\n" + "\n".join(exc.report.failures()))


def test_shop_tables_keep_their_constraints() -> None:
    imported = import_sql(SHOP.read_text(), "shop")
    spec = imported.spec
    customers, orders, lines = spec.table("customers"), spec.table("orders"), spec.table("order_lines")
    assert customers is not None and orders is not None and lines is not None
    assert customers.column("email").unique and not customers.column("email").nullable  # type: ignore[union-attr]
    assert orders.column("status").enum == ["pending", "paid", "shipped", "cancelled"]  # type: ignore[union-attr]
    assert orders.column("customer_id").references == "customers.id"  # type: ignore[union-attr]
    assert lines.primary_key == ["order_id", "line_no"]
    assert lines.column("product_sku").references == "products.sku"  # type: ignore[union-attr]
    create_line = spec.tool("create_order_line")
    assert create_line is not None and {"order_id", "line_no", "product_sku"} <= set(
        create_line.input_schema["required"]
    )
    assert create_line.input_schema["properties"]["line_no"]["maximum"] == 50
    list_orders = spec.tool("list_orders")
    assert list_orders is not None and {"customer_id", "status"} <= set(
        list_orders.input_schema["properties"]
    )
    create_order = spec.tool("create_order")
    assert create_order is not None and "placed_at" not in create_order.input_schema["properties"]
    assert any("CREATE INDEX" in note for note in imported.notes())
    assert any("ON DELETE CASCADE" in note for note in imported.notes())


async def test_shop_is_a_verified_stateful_server(tmp_path: Path) -> None:
    result = await anyio.to_thread.run_sync(_build, tmp_path)
    folder = str(result.package_dir)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    server = importlib.import_module(f"{package_name('shop')}.server").build_server()
    async with Client(server) as client:
        customer = await client.call_tool(
            "create_customer", {"email": "new@example.com", "full_name": "Nia Ng"}
        )
        assert not customer.is_error, customer.content
        cid = customer.structured_content["id"]
        duplicate = await client.call_tool("create_customer", {"email": "new@example.com", "full_name": "X"})
        assert duplicate.is_error and "must be unique" in _text(duplicate)
        order = await client.call_tool("create_order", {"customer_id": cid})
        assert order.structured_content["status"] == "pending"
        oid = order.structured_content["id"]
        line = await client.call_tool(
            "create_order_line", {"order_id": oid, "line_no": 1, "product_sku": "product_0002", "quantity": 3}
        )
        assert not line.is_error, line.content
        blocked = await client.call_tool("delete_order", {"order_id": oid})
        assert blocked.is_error and "still has 1 order lines" in _text(blocked)
        paid = await client.call_tool("update_order", {"order_id": oid, "status": "paid"})
        assert paid.structured_content["status"] == "paid"
        listed = await client.call_tool("list_orders", {"customer_id": cid, "status": "paid"})
        assert [o["id"] for o in listed.structured_content["items"]] == [oid]
        await client.call_tool("delete_order_line", {"order_id": oid, "line_no": 1})
        deleted = await client.call_tool("delete_order", {"order_id": oid})
        assert deleted.structured_content == {"id": oid, "deleted": True}
        gone = await client.call_tool("get_order", {"order_id": oid})
        assert gone.is_error and _text(gone) == f"Order {oid} not found."


@pytest.mark.parametrize(
    ("ddl", "message"),
    [
        (
            "CREATE TABLE a (id INTEGER PRIMARY KEY);\nDROP TABLE a;",
            "line 2: unsupported statement 'DROP TABLE a'",
        ),
        (
            "CREATE TABLE a (\n  id INTEGER PRIMARY KEY,\n  img BLOB\n);",
            "line 3: column img: unsupported type 'BLOB'",
        ),
        (
            "CREATE TABLE a (\n  id INTEGER PRIMARY KEY GENERATED ALWAYS\n);",
            "line 2: column id: unsupported syntax",
        ),
        ("CREATE TABLE a (\n  name TEXT\n);", "line 1: table a has no PRIMARY KEY"),
        (
            "CREATE TABLE a (id INTEGER PRIMARY KEY, b_id INTEGER REFERENCES b (id));",
            "references unknown table 'b'",
        ),
    ],
)
def test_unsupported_sql_is_rejected_naming_the_line(ddl: str, message: str) -> None:
    with pytest.raises(ResourceImportError) as caught:
        import_sql(ddl, "broken")
    assert message in str(caught.value)


def test_unevaluated_defaults_and_checks_are_listed_as_ignored() -> None:
    imported = import_sql(
        "CREATE TABLE t (\n  id TEXT PRIMARY KEY,\n  n INTEGER NOT NULL DEFAULT (1 + 1) CHECK (n % 2 = 0)\n);",
        "t",
    )
    assert "line 3: DEFAULT (1 + 1) of n (not evaluated)" in imported.notes()
    assert any(note.startswith("line 3: CHECK (n") for note in imported.notes())
    assert imported.rows["t"][0]["id"] == "t_0001"
