"""Imported corpus documents stay faithful where a client following the real API docs
notices (issue 27, build items 4 and 5), through a real MCP client over stdio: the
document's security schemes become an authentication step its tasks' gold starts with,
arguments carry the document's names (``photoUrls``, ``petId``, not ``photo_urls``),
nested objects and arrays of objects are taken and shown as the document writes them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from envfactory_mcp.emit import render_package, write_package
from envfactory_mcp.env import assemble_env
from envfactory_mcp.layout import package_name
from envfactory_mcp.synth.resource import import_resource

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"  # beside the checkout (issue 27)
pytestmark = pytest.mark.skipif(
    not (CORPUS / "sources.json").is_file(),
    reason=f"no public corpus at {CORPUS} (../shared/corpus beside the checkout)",
)
PETSTORE = CORPUS / "openapi" / "swagger_petstore3.yaml"
INVOICING = CORPUS / "openapi" / "paypal_invoicing_v2.json"


def packaged(document: Path, folder: Path) -> tuple[Any, StdioServerParameters]:
    """The imported environment, and how to serve its package over stdio."""
    imported = import_resource(document)
    env = assemble_env(imported.spec, imported.tools_source, imported.rows, load_code=True)
    package = write_package(render_package(env), folder / imported.spec.name)
    module = package_name(imported.spec.name)
    server = StdioServerParameters(
        command=sys.executable, args=["-m", module], env={"PYTHONPATH": str(package)}
    )
    return imported, server


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    result = await client.call_tool(tool, arguments)
    text = " ".join(getattr(b, "text", "") for b in result.content)
    return result.is_error, result.structured_content if not result.is_error else text


# ------------------------------------------------------------------ security as a step


async def test_security_schemes_become_an_authentication_step_served_over_stdio(tmp_path):
    imported, server = packaged(PETSTORE, tmp_path)
    rules = imported.spec.policy_rules
    auth = rules.authentication
    assert auth is not None and auth.entity == "user" and auth.tools == ["find_user_id_by_email"]
    # Petstore's /user operations declare no security: they need no authentication; its
    # pet operations require petstore_auth and do.
    assert {"create_user", "get_user_by_name"} <= set(auth.exempt)
    assert rules.needs_authentication("add_pet") and rules.needs_authentication("delete_pet")
    assert "Authenticate first" in imported.spec.policy and "`find_user_id_by_email`" in imported.spec.policy
    someone = imported.rows["user"][0]
    with anyio.fail_after(120):
        async with Client(server) as client:
            failed, found = await call(client, "find_user_id_by_email", {"email": someone["email"]})
            assert not failed and found == {"username": someone["username"]}
            failed, refused = await call(client, "find_user_id_by_email", {"email": "nobody@nowhere.example"})
            assert failed and "No user" in refused


def test_a_document_without_security_gets_no_authentication_step():
    spec = import_resource(CORPUS / "openapi" / "oai_petstore_expanded.json").spec
    assert spec.policy_rules.authentication is None and "## Authentication" not in spec.policy


@pytest.mark.slow  # generates tasks over the imported environment
def test_the_gold_of_a_task_on_secured_operations_starts_with_the_authentication_step():
    from envfactory_mcp.tasks import generate_tasks

    imported = import_resource(PETSTORE)
    env = assemble_env(imported.spec, imported.tools_source, imported.rows, load_code=True)
    rules = env.spec.policy_rules
    tasks, report = generate_tasks(env, 12, seed=3)
    # Petstore's pets belong to no user: any user may ask for them, so no task is lost for
    # want of one (was 33 of 83 draws rejected as no_persona)
    assert report.rejected["no_persona"] == 0, report.rejected
    secured = [t for t in tasks if any(rules.needs_authentication(a.name) for a in t.gold.actions)]
    assert secured, "no task uses an operation the document secures"
    for task in secured:
        first = task.gold.actions[0]
        assert first.name == "find_user_id_by_email", [a.name for a in task.gold.actions]
        assert first.output.get("username") is not None


# ------------------------------------------------------------------ names and shapes


async def test_a_client_following_the_petstore_docs_is_accepted_and_answered_in_their_shape(tmp_path):
    """Swagger's Petstore 3 writes ``petId``, ``photoUrls``, a nested ``category`` and an
    array of ``tags`` objects: the tools take and show exactly that."""
    imported, server = packaged(PETSTORE, tmp_path)
    add = imported.spec.tool("add_pet")
    assert add is not None
    props = add.input_schema["properties"]
    assert {"photoUrls", "category", "tags"} <= set(props) and "photo_urls" not in props
    assert props["tags"]["type"] == "array" and props["tags"]["items"]["type"] == "object"
    assert props["category"]["type"] == "object" and set(props["category"]["properties"]) == {"id", "name"}
    get = imported.spec.tool("get_pet_by_id")
    assert get is not None and list(get.input_schema["properties"]) == ["petId"]
    assert not any("_" in name for name in get.output_schema["properties"])  # no flattened prefixes
    pet = {
        "name": "Rex",
        "photoUrls": ["https://x/rex.png"],
        "category": {"id": 7, "name": "Dogs"},
        "tags": [{"id": 1, "name": "good"}, {"id": 2, "name": "loud"}],
        "status": "available",
    }
    with anyio.fail_after(120):
        async with Client(server) as client:
            failed, made = await call(client, "add_pet", pet)
            assert not failed, made
            assert {k: made[k] for k in pet} == pet  # read back as it was written, arrays and all
            failed, read = await call(client, "get_pet_by_id", {"petId": made["id"]})
            assert not failed and read == made
            failed, refused = await call(client, "get_pet_by_id", {"pet_id": made["id"]})
            assert failed and "'pet_id' was unexpected" in refused  # the flattened name is not the document's
            failed, refused = await call(client, "add_pet", {"name": "Flat", "photo_urls": ["x"]})
            assert failed and "photoUrls" in refused  # the document's name is the one required
            failed, user = await call(
                client, "create_user", {"firstName": "Ada", "lastName": "Lovelace", "email": "ada@x.org"}
            )
            assert not failed and (user["firstName"], user["lastName"]) == ("Ada", "Lovelace"), user
            failed, changed = await call(
                client, "update_user", {"username": user["username"], "userStatus": 2}
            )
            assert not failed and changed["userStatus"] == 2 and changed["firstName"] == "Ada"


async def test_invoice_line_items_keep_their_nested_amounts_in_and_out(tmp_path):
    """PayPal's invoice: ``detail`` and ``amount`` objects, and ``items``, an array of
    objects each holding a ``unit_amount`` object, as the API reference writes them."""
    imported, server = packaged(INVOICING, tmp_path)
    create = imported.spec.tool("invoices_create")
    assert create is not None
    items = create.input_schema["properties"]["items"]
    assert items["type"] == "array"
    assert items["items"]["properties"]["unit_amount"]["type"] == "object"
    invoice = {
        "detail": {"currency_code": "USD", "invoice_number": "INV-2701", "note": "Thanks"},
        "invoicer": {"email_address": "shop@x.org"},
        "items": [
            {"name": "Widget", "quantity": "2", "unit_amount": {"currency_code": "USD", "value": "5.00"}},
            {"name": "Gadget", "quantity": "1", "unit_amount": {"currency_code": "USD", "value": "7.50"}},
        ],
    }
    with anyio.fail_after(120):
        async with Client(server) as client:
            failed, made = await call(client, "invoices_create", invoice)
            assert not failed, made
            assert made["detail"]["invoice_number"] == "INV-2701"
            assert made["invoicer"]["email_address"] == "shop@x.org"
            assert [(i["name"], i["unit_amount"]) for i in made["items"]] == [
                ("Widget", {"currency_code": "USD", "value": "5.00"}),
                ("Gadget", {"currency_code": "USD", "value": "7.50"}),
            ]
            failed, read = await call(client, "invoices_get", {"invoice_id": made["id"]})
            assert not failed and read["items"] == made["items"] and read["detail"] == made["detail"]
            flat = {"name": "Flat", "quantity": "1", "unit_amount_value": "1.00"}
            failed, _ = await call(client, "invoices_create", {**invoice, "items": [flat]})
            assert failed  # an element flattened into prefixed names is not the document's


async def test_query_form_and_path_parameters_are_taken_under_the_documents_names(stdio):
    """The names a client reads in the API reference, whatever Python makes of them:
    Twilio's form fields ``FriendlyName`` and ``Timers.Inactive`` (the response says
    ``friendly_name``) and its query ``State`` and ``PageSize``; Ory Keto's query
    ``subject_set.namespace`` (a nested property's column); Mastodon's ``{id}`` paths."""
    twilio = CORPUS / "openapi" / "twilio_conversations_v1.json"
    create = import_resource(twilio).spec.tool("create_conversation")
    assert create is not None
    assert {"FriendlyName", "Timers.Inactive"} <= set(create.input_schema["properties"])
    assert not {"friendly_name", "timers_inactive"} & set(create.input_schema["properties"])
    conversation = {"FriendlyName": "Support", "UniqueName": "support-27", "Timers.Inactive": "PT5M"}
    with anyio.fail_after(600):
        async with Client(stdio(twilio)) as client:
            failed, made = await call(client, "create_conversation", {**conversation, "State": "closed"})
            assert not failed, made
            assert (made["friendly_name"], made["timers_inactive"]) == ("Support", "PT5M")
            failed, read = await call(client, "fetch_conversation", {"Sid": made["sid"]})
            assert not failed and read == made
            failed, listed = await call(client, "list_conversation", {"State": "closed", "PageSize": 100})
            assert not failed and made["sid"] in {c["sid"] for c in listed["items"]}
            assert {c["state"] for c in listed["items"]} == {"closed"} and listed["per_page"] == 100
            failed, refused = await call(client, "create_conversation", {"friendly_name": "Flat"})
            assert failed and "'friendly_name' was unexpected" in refused
            failed, refused = await call(client, "list_conversation", {"state": "closed"})
            assert failed and "'state' was unexpected" in refused

    keto = CORPUS / "openapi" / "ory_keto.json"
    tuples = import_resource(keto).rows["relation_tuples"]
    wanted = tuples[0]["subject_set_namespace"]
    with anyio.fail_after(600):
        async with Client(stdio(keto)) as client:
            failed, found = await call(client, "get_relationships", {"subject_set.namespace": wanted})
            assert not failed and found["total"] == sum(t["subject_set_namespace"] == wanted for t in tuples)
            assert {t["subject_set"]["namespace"] for t in found["items"]} == {wanted}
            failed, refused = await call(client, "get_relationships", {"subject_set_namespace": wanted})
            assert failed and "'subject_set_namespace' was unexpected" in refused

    mastodon = CORPUS / "openapi" / "mastodon.json"
    status = import_resource(mastodon).rows["statuses"][0]["id"]
    with anyio.fail_after(600):
        async with Client(stdio(mastodon)) as client:
            failed, read = await call(client, "get_status", {"id": status})  # GET /api/v1/statuses/{id}
            assert not failed and read["id"] == status
            failed, refused = await call(client, "get_status", {"status_id": status})
            assert failed and "'status_id' was unexpected" in refused


# ------------------------------------------------------------------ load-independent budgets


@pytest.mark.slow  # verifies one document twice, once beside busy loops
def test_the_same_document_serves_the_same_tools_beside_a_cpu_hog(tmp_path):
    """Verification budgets are CPU time, so a busy machine makes verification slower but
    serves the same tools: a loop spinning on every CPU beside it changes nothing."""
    import os
    import subprocess

    from envfactory_mcp.build import emit_verified
    from envfactory_mcp.verify import VerifyOptions
    from envfactory_mcp.verify.dropping import keep_what_verifies

    imported = import_resource(INVOICING)

    def served(where: Path) -> tuple[bool, set[str], set[str]]:
        env = assemble_env(imported.spec, imported.tools_source, imported.rows)

        def build(current: Any, dropped: Any) -> Any:
            return emit_verified(current, where / imported.spec.name, VerifyOptions(dropped=dropped))

        built = keep_what_verifies(env, build)
        return (
            built.report.passed,
            {t.tool for t in built.report.tools},
            {d.tool for d in built.report.dropped},
        )

    quiet = served(tmp_path / "quiet")
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        busy = served(tmp_path / "busy")
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert quiet[0] and busy[0]
    assert busy == quiet
    assert len(quiet[1]) == len(imported.spec.tools)  # nothing dropped, quiet or busy
