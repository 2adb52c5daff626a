"""OpenAPI documents in six styles each become a verified server that an MCP client uses statefully."""

from __future__ import annotations

import importlib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from envfactory_mcp.build import BuildResult, VerificationFailed, emit_verified
from envfactory_mcp.emit.render import package_name
from envfactory_mcp.env.environment import assemble_env
from envfactory_mcp.synth.crud import ResourceImportError
from envfactory_mcp.synth.openapi import import_openapi
from envfactory_mcp.synth.resource import import_resource
from envfactory_mcp.verify.static_gate import check_tool_code

pytestmark = pytest.mark.slow  # each document is verified in the sandbox and over stdio (~1.5 s)

DOCS = Path(__file__).parent / "openapi"
UUID_1 = "00000000-0000-4000-8000-000000000001"


@dataclass(frozen=True)
class Scenario:
    """One create -> get -> update -> list -> delete -> get round trip over MCP."""

    create: tuple[str, dict[str, Any]]
    get: str
    update: tuple[str, dict[str, Any]]
    listing: tuple[str, dict[str, Any]]
    delete: str
    id_arg: str
    scope: dict[str, Any] = field(default_factory=dict)  # parent key arguments of nested paths


SCENARIOS = {
    "todo_flat.yaml": Scenario(
        create=("create_todo", {"title": "Buy oat milk", "due": "2026-06-02"}),
        get="get_todo",
        update=("update_todo", {"title": "Buy oat milk and bread", "done": True}),
        listing=("list_todos", {"done": True}),
        delete="delete_todo",
        id_arg="todo_id",
    ),
    "petstore_nested.json": Scenario(
        create=("add_pet", {"name": "Rex", "species": "dog", "tags": ["good"]}),
        get="get_pet",
        update=("update_pet", {"name": "Rexy", "weight_kg": 12.5}),
        listing=("list_owner_pets", {"species": "dog"}),
        delete="remove_pet",
        id_arg="pet_id",
        scope={"owner_id": 1},
    ),
    "orders_enums.yaml": Scenario(
        create=("place_order", {"customer_id": UUID_1, "total": 42.5, "delivery_method": "pickup"}),
        get="get_order",
        update=("update_order", {"status": "paid"}),
        listing=("list_orders", {"status": "paid", "customer_id": UUID_1}),
        delete="cancel_order",
        id_arg="order_id",
    ),
    "pagination.yaml": Scenario(
        create=("publish_article", {"title": "Zebra crossings", "author_id": 1, "body": "On stripes."}),
        get="get_article",
        update=("replace_article", {"title": "Zebra crossings, revised", "author_id": 2, "body": "More."}),
        listing=("list_articles", {"q": "Zebra", "limit": 5, "offset": 0}),
        delete="delete_article",
        id_arg="article_id",
    ),
    "path_params.yaml": Scenario(
        create=("create_task", {"title": "Write the changelog"}),
        get="get_task",
        update=("update_task", {"state": "done"}),
        listing=("list_tasks", {"state": "done"}),
        delete="delete_task",
        id_arg="task_id",
        scope={"project_id": "project_0001"},
    ),
    "auth_headers.yaml": Scenario(
        create=("create_note", {"title": "Door code", "body": "4711"}),
        get="get_note",
        update=("edit_note", {"pinned": True}),
        listing=("list_notes", {"pinned": True}),
        delete="delete_note",
        id_arg="note_id",
    ),
}


def _text(result: CallToolResult) -> str:
    """The text of a tool result (an error message)."""
    first = result.content[0]
    assert isinstance(first, TextContent)
    return first.text


def _build(document: str, dest: Path) -> BuildResult:
    """Import, assemble and emit verified (in a worker thread: the stdio stage runs its own event loop)."""
    imported = import_openapi(DOCS / document)
    assert check_tool_code(imported.tools_source) == []
    env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    started = time.perf_counter()
    try:
        result = emit_verified(env, dest / env.spec.name)  # a report with stdio "not run" never passes
    except VerificationFailed as exc:
        pytest.fail(f"{document} failed verification:\n" + "\n".join(exc.report.failures()))
    print(f"{document}: verified in {time.perf_counter() - started:.2f} s")
    return result


def _server(package_dir: Path, env_name: str) -> Any:
    if str(package_dir) not in sys.path:
        sys.path.insert(0, str(package_dir))
    return importlib.import_module(f"{package_name(env_name)}.server").build_server()


@pytest.mark.parametrize("document", sorted(SCENARIOS))
async def test_document_becomes_a_verified_stateful_server(document: str, tmp_path: Path) -> None:
    result = await anyio.to_thread.run_sync(_build, document, tmp_path)
    s = SCENARIOS[document]
    async with Client(_server(result.package_dir, result.env.spec.name)) as client:

        async def call(tool: str, arguments: dict[str, Any]) -> Any:
            return await client.call_tool(tool, {**s.scope, **arguments})

        created = await call(*s.create)
        assert not created.is_error, created.content
        row = created.structured_content
        assert row is not None
        key = {s.id_arg: row["id"]}
        fetched = await call(s.get, key)
        assert fetched.structured_content == row
        updated = await call(s.update[0], {**key, **s.update[1]})
        assert not updated.is_error, updated.content
        for name, value in s.update[1].items():
            assert updated.structured_content[name] == value
        again = await call(s.get, key)
        assert again.structured_content == updated.structured_content  # the change is visible in the session
        listed = await call(*s.listing)
        assert not listed.is_error, listed.content
        page = listed.structured_content
        assert row["id"] in [item["id"] for item in page["items"]]
        assert page["total"] >= len(page["items"])
        deleted = await call(s.delete, key)
        assert deleted.structured_content["deleted"] is True
        gone = await call(s.get, key)
        assert gone.is_error and "not found" in _text(gone)


async def test_nested_resources_are_scoped_to_their_parent(tmp_path: Path) -> None:
    imported = import_openapi(DOCS / "petstore_nested.json")
    spec = imported.spec
    pets = spec.table("pets")
    assert pets is not None and pets.column("owner_id") is not None
    assert pets.column("owner_id").references == "owners.id"  # type: ignore[union-attr]
    add_pet = spec.tool("add_pet")
    assert add_pet is not None and add_pet.params["owner_id"].entity == "owner"
    assert add_pet.params["owner_id"].user_provided is False and add_pet.params["name"].user_provided is True
    delete_owner = spec.tool("delete_owner")
    assert delete_owner is not None and "pets" in delete_owner.reads
    result = await anyio.to_thread.run_sync(_build, "petstore_nested.json", tmp_path)
    async with Client(_server(result.package_dir, spec.name)) as client:
        with_pets = await client.call_tool("delete_owner", {"owner_id": 2})
        wrong_owner = await client.call_tool("get_pet", {"owner_id": 1, "pet_id": 1})
        missing_owner = await client.call_tool("list_owner_pets", {"owner_id": 999})
    assert with_pets.is_error and "still has" in _text(with_pets)
    assert wrong_owner.is_error and "not found for owner_id 1" in _text(wrong_owner)
    assert missing_owner.is_error and "Owner 999 not found" in _text(missing_owner)


def test_enums_formats_and_one_of_become_columns() -> None:
    spec = import_openapi(DOCS / "orders_enums.yaml").spec
    orders = spec.table("orders")
    assert orders is not None
    status = orders.column("status")
    assert status is not None and status.enum == ["pending", "paid", "shipped", "delivered", "cancelled"]
    method = orders.column("delivery_method")  # oneOf object variants merged; enums united
    assert method is not None and not method.nullable
    store = orders.column("delivery_store")  # required by no variant
    assert store is not None and store.nullable
    customer = orders.column("customer_id")  # an <entity>_id property becomes a foreign key
    assert customer is not None and customer.references == "customers.id" and customer.type == "TEXT"
    place = spec.tool("place_order")
    assert (
        place is not None and "placed_at" not in place.input_schema["properties"]
    )  # readOnly: set by the clock
    assert place.claims == ["id", "status"]
    email = spec.tool("create_customer").input_schema["properties"]["email"]  # type: ignore[union-attr]
    assert email["format"] == "email"


def test_pagination_styles_shape_the_list_tools() -> None:
    spec = import_openapi(DOCS / "pagination.yaml").spec
    authors, articles = spec.tool("list_authors"), spec.tool("list_articles")
    assert authors is not None and articles is not None
    assert set(authors.output_schema["properties"]) == {"items", "total", "page", "per_page"}
    assert set(articles.output_schema["properties"]) == {"items", "total", "limit", "offset"}
    assert set(articles.input_schema["properties"]) == {"limit", "offset", "q", "author_id"}
    assert articles.outputs == {"items[].id": "article", "items[].author_id": "author"}


def test_auth_headers_and_security_schemes_are_listed_as_ignored() -> None:
    imported = import_openapi((DOCS / "auth_headers.yaml").read_text())
    ignored = "\n".join(imported.notes())
    assert "#/components/securitySchemes/bearerAuth" in ignored
    assert "#/components/securitySchemes/apiKey" in ignored
    assert "header parameter 'Authorization'" in ignored and "header parameter 'X-API-Key'" in ignored
    assert "cookie parameter 'session'" in ignored
    for tool in imported.spec.tools:
        assert not {"authorization", "x_api_key", "session"} & set(tool.input_schema["properties"])


def test_path_level_parameters_reach_every_operation_of_the_path() -> None:
    spec = import_openapi(DOCS / "path_params.yaml").spec
    for name in ("get_task", "update_task", "delete_task", "list_tasks", "create_task"):
        tool = spec.tool(name)
        assert tool is not None and "project_id" in tool.input_schema["required"], name


def test_a_remote_ref_is_never_fetched_and_named_in_the_one_line_error() -> None:
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "Remote", "version": "1"},
        "paths": {
            "/things": {
                "get": {
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "https://example.com/common.yaml#/Thing"}
                                }
                            },
                        }
                    }
                }
            }
        },
    }
    with pytest.raises(ResourceImportError) as caught:
        import_openapi(doc)
    assert caught.value.where == "#/paths"
    message = str(caught.value)
    assert "nothing stateful remains" in message and "\n" not in message
    assert (
        "#/paths/~1things/get" in message
        and "remote $ref 'https://example.com/common.yaml' is not fetched" in message
    )


def test_mixed_unions_are_json_columns_and_swagger_2_is_refused() -> None:
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Shapes", "version": "1"},
        "paths": {
            "/shapes": {
                "post": {
                    "requestBody": {
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Shape"}}}
                    },
                    "responses": {"201": {"description": "ok"}},
                }
            }
        },
        "components": {
            "schemas": {
                "Shape": {
                    "type": "object",
                    "properties": {"size": {"oneOf": [{"type": "integer"}, {"type": "string"}]}},
                }
            }
        },
    }
    spec = import_openapi(doc).spec
    create = spec.tool("create_shape")
    assert create is not None and create.input_schema["properties"]["size"] == {}  # any JSON value
    shapes = spec.table("shapes")
    assert shapes is not None and shapes.column("size") is not None
    doc["openapi"] = "2.0"
    with pytest.raises(ResourceImportError, match="#/openapi: only OpenAPI 3.0.x and 3.1.x"):
        import_openapi(doc)


def test_import_is_deterministic_and_chooses_the_importer_by_suffix(tmp_path: Path) -> None:
    first = import_resource(DOCS / "todo_flat.yaml", None, 7)
    second = import_resource(DOCS / "todo_flat.yaml", None, 7)
    assert first == second and first.spec.seed.seed == 7
    assert import_resource(DOCS / "todo_flat.yaml", None, 8).rows != first.rows
    plain = tmp_path / "notes.yaml"
    plain.write_text("title: not an API\n")
    with pytest.raises(ResourceImportError, match="no top-level 'openapi' key"):
        import_resource(plain, None, 0)
    with pytest.raises(ResourceImportError, match="unknown resource type '.txt'"):
        import_resource(tmp_path / "x.txt", None, 0)
