"""Imported environments mean what their documents say, through a real MCP client over
stdio, each package run as ``python -m <package>`` (issue 27, faithful semantics and
policies): a partial update touches only the fields given, a batch create adds its rows to
the resource's own table, requests take nested objects as the document writes them, a
lifecycle operation moves the item's status, and the policy is written from the document
(destructive operations need the user's yes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from envfactory_mcp.spec.models import EnvSpec
from envfactory_mcp.synth.resource import import_resource

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"  # beside the checkout (issue 27)
INCIDENTS = Path(__file__).parent / "openapi" / "incidents.yaml"
corpus = pytest.mark.skipif(
    not (CORPUS / "sources.json").is_file(),
    reason=f"no public corpus at {CORPUS} (../shared/corpus beside the checkout)",
)
BACKSTOP = 600  # seconds: a far wall-clock backstop (a busy machine makes a server slow, not wrong)


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    result = await client.call_tool(tool, arguments)
    text = " ".join(getattr(b, "text", "") for b in result.content)
    return result.is_error, result.structured_content if not result.is_error else text


@corpus
async def test_a_partial_sql_update_leaves_columns_with_defaults_as_they_were(stdio):
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(CORPUS / "sql" / "sakila_sqlite.sql")) as client:
            failed, before = await call(client, "get_customer", {"customer_id": 1})
            assert not failed
            failed, after = await call(client, "update_customer", {"customer_id": 1, "last_name": "NEWNAME"})
            assert not failed and after["last_name"] == "NEWNAME"
            assert {k: v for k, v in after.items() if k != "last_name"} == {
                k: v for k, v in before.items() if k != "last_name"
            }  # first name, email, active (DEFAULT 'Y') untouched


async def test_a_patch_leaves_fields_with_defaults_and_nested_fields_alone(stdio):
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(INCIDENTS)) as client:
            made = {"title": "Disk full", "urgency": "low", "reporter": {"name": "Ann", "email": "ann@x.org"}}
            failed, row = await call(client, "create_incident", made)
            assert not failed, row
            failed, after = await call(client, "update_incident", {"id": row["id"], "title": "Disk 99%"})
            assert not failed and after["title"] == "Disk 99%"
            assert after["urgency"] == "low" and after["reporter"]["email"] == "ann@x.org"
            failed, after = await call(
                client, "update_incident", {"id": row["id"], "reporter": {"name": "Bo"}}
            )
            assert not failed and after["reporter"] == {"name": "Bo", "email": "ann@x.org"}


@corpus
async def test_a_batch_create_adds_its_items_to_the_resources_own_table(stdio):
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(CORPUS / "openapi" / "swagger_petstore3.yaml")) as client:
            users = [
                {"firstName": "Ada", "email": "ada@x.org"},
                {"firstName": "Alan", "email": "alan@x.org"},
            ]
            failed, made = await call(client, "create_users_with_list_input", {"items": users})
            assert not failed and made["total"] == 2, made
            for item, user in zip(made["items"], users, strict=True):
                failed, read = await call(client, "get_user_by_name", {"username": item["username"]})
                assert not failed and read["email"] == user["email"]
    imported = import_resource(CORPUS / "openapi" / "swagger_petstore3.yaml")
    create = imported.spec.tool("create_users_with_list_input")
    assert create is not None and create.writes == ["user"]  # not action_log


async def test_a_bulk_create_with_its_rows_in_a_property_creates_them(stdio):
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(INCIDENTS)) as client:
            rows = [{"title": f"Outage {i}", "reporter": {"name": "Cy"}} for i in range(3)]
            failed, made = await call(client, "bulk_create_incidents", {"incidents": rows})
            assert not failed and [r["title"] for r in made["items"]] == ["Outage 0", "Outage 1", "Outage 2"]
            failed, listed = await call(client, "list_incidents", {})
            assert not failed and {"Outage 0", "Outage 2"} <= {r["title"] for r in listed["items"]}


@corpus
async def test_nested_request_objects_are_taken_as_the_document_writes_them(stdio):
    document = CORPUS / "openapi" / "paypal_invoicing_v2.json"
    create = import_resource(document).spec.tool("invoices_create")
    assert create is not None
    schema = create.input_schema
    detail = schema["properties"]["detail"]
    assert detail["type"] == "object" and "currency_code" in detail["properties"]
    assert detail["properties"]["payment_term"]["type"] == "object"
    assert not any(name.startswith("detail_") for name in schema["properties"])
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(document)) as client:
            failed, made = await call(
                client,
                "invoices_create",
                {
                    "detail": {"currency_code": "USD", "invoice_number": "INV-27", "note": "Thanks"},
                    "invoicer": {"email_address": "shop@x.org"},
                    "amount": {"currency_code": "USD", "value": "10.00"},
                },
            )
            assert not failed, made
            assert (made["detail"]["invoice_number"], made["invoicer"]["email_address"]) == (
                "INV-27",
                "shop@x.org",
            )
            failed, _ = await call(client, "invoices_create", {"detail_currency_code": "USD"})
            assert failed  # the flat form is not the document's


async def test_lifecycle_operations_move_the_status_instead_of_adding_rows(stdio):
    imported = import_resource(INCIDENTS)
    assert "action_log" not in {t.name for t in imported.spec.tables}
    assert "acknowledge" not in {t.name for t in imported.spec.tables}
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(INCIDENTS)) as client:
            failed, row = await call(client, "create_incident", {"title": "CPU", "reporter": {"name": "Di"}})
            assert not failed
            failed, acked = await call(client, "acknowledge_incident", {"id": row["id"]})
            assert not failed and acked["status"] == "acknowledged"
            failed, done = await call(client, "resolve_incident", {"id": row["id"]})
            assert not failed and done["status"] == "resolved"
            failed, again = await call(client, "resolve_incident", {"id": row["id"]})
            assert failed and "already resolved" in again


@corpus
@pytest.mark.slow  # OpenAI's document: 182 paths
async def test_archiving_a_project_sets_its_free_text_status_and_time(stdio):
    document = CORPUS / "openapi" / "openai.yaml"
    imported = import_resource(document)
    archive = imported.spec.tool("archive_project")
    assert archive is not None and archive.writes == ["projects"]
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(document)) as client:
            project = imported.rows["projects"][0]["id"]
            failed, done = await call(client, "archive_project", {"project_id": project})
            assert not failed and done["status"] == "archived" and isinstance(done["archived_at"], int)


@corpus
@pytest.mark.slow  # Mastodon's document: 210 operations
async def test_creating_a_singleton_sets_what_it_is_given_and_needs_nothing_more(stdio):
    """Mastodon's ``POST /api/v1/push/subscription`` ("the old subscription is replaced"),
    whose body requires nothing: served, and a call giving part of it is taken (it was
    dropped by verification as a patch that must be given something)."""
    document = CORPUS / "openapi" / "mastodon.json"
    subscription = {"endpoint": "https://push.example/27", "keys": {"p256dh": "BCk", "auth": "c2Vj"}}
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(document)) as client:
            failed, made = await call(
                client,
                "create_push_subscription",
                {"subscription": subscription, "data": {"alerts": {"mention": True}}},
            )
            assert not failed, made
            assert made["subscription"]["endpoint"] == "https://push.example/27"
            assert made["data"]["alerts"]["mention"] is True
            failed, read = await call(client, "get_push_subscription", {})
            assert not failed and read == made
            failed, again = await call(client, "create_push_subscription", {})
            assert not failed, again


def _rules(spec: EnvSpec) -> tuple[str, list[str]]:
    return spec.policy, list(spec.policy_rules.confirm)


def test_the_policy_is_written_from_the_document():
    spec = import_resource(INCIDENTS).spec
    text, confirm = _rules(spec)
    assert text.startswith("# Incidents: agent policy") and "on-call service" in text
    assert "bearerAuth (http bearer)" in text and "## Authentication" in text
    assert confirm == ["delete_incident"] and "`delete_incident`" in text
    assert "Change only the fields the user asks to change" in text


@corpus
def test_corpus_policies_differ_and_confirm_their_destructive_operations():
    paypal = import_resource(CORPUS / "openapi" / "paypal_invoicing_v2.json").spec
    chinook = import_resource(CORPUS / "sql" / "chinook_sqlite.sql").spec
    assert paypal.policy != chinook.policy
    assert {"invoices_cancel", "invoices_delete"} <= set(paypal.policy_rules.confirm)
    assert "invoices_send" not in paypal.policy_rules.confirm
    assert "## Authentication" in paypal.policy and "## Authentication" not in chinook.policy
    assert {t.name for t in chinook.tools if t.name.startswith("delete_")} == set(
        chinook.policy_rules.confirm
    )


@corpus
async def test_a_whole_object_put_with_the_id_in_its_body_updates_that_item(stdio):
    """Swagger petstore's ``PUT /pet``: the pet, id and all, in the body; it replaces that
    pet (no new row, no request log), and the other pets stay as they were."""
    document = CORPUS / "openapi" / "swagger_petstore3.yaml"
    tool = import_resource(document).spec.tool("update_pet")
    assert tool is not None
    assert (
        "id" in tool.input_schema["properties"] and "pet" in tool.writes and "action_log" not in tool.writes
    )
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(document)) as client:
            failed, listed = await call(client, "find_pets_by_status", {"status": "available"})
            assert not failed and len(listed["items"]) >= 2, listed
            pet, other = listed["items"][:2]
            whole = {"id": pet["id"], "name": "Rex", "photoUrls": ["rex.png"], "status": "sold"}
            failed, after = await call(client, "update_pet", whole)
            assert not failed, after
            failed, read = await call(client, "get_pet_by_id", {"petId": pet["id"]})
            assert not failed and (read["id"], read["name"], read["status"]) == (pet["id"], "Rex", "sold")
            assert read["photoUrls"] == ["rex.png"]
            failed, untouched = await call(client, "get_pet_by_id", {"petId": other["id"]})
            assert not failed and untouched == other
            failed, now = await call(client, "find_pets_by_status", {"status": "available"})
            assert not failed and pet["id"] not in {p["id"] for p in now["items"]}
            failed, _ = await call(client, "update_pet", whole | {"id": 987654})
            assert failed  # no such pet: refused, not created
