"""Servers built from corpus documents behave statefully as their documents say, through a
real MCP client over stdio (issues 12, 27): create, read back, update, search, delete, and
a deleted record is gone. Swagger's Petstore 3 (OpenAPI) and Chinook (SQLite DDL with its data)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from envfactory_mcp.synth.resource import import_resource

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"  # beside the checkout (issue 27)
pytestmark = pytest.mark.skipif(
    not (CORPUS / "sources.json").is_file(),
    reason=f"no public corpus at {CORPUS} (../shared/corpus beside the checkout)",
)
BACKSTOP = 600  # seconds: a far wall-clock backstop (a busy machine makes a server slow, not wrong)


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[bool, Any]:
    result = await client.call_tool(tool, arguments)
    text = " ".join(getattr(b, "text", "") for b in result.content)
    return result.is_error, result.structured_content if not result.is_error else text


async def test_petstore3_pets_are_created_read_updated_found_and_deleted(stdio):
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(CORPUS / "openapi" / "swagger_petstore3.yaml")) as client:
            failed, pet = await call(
                client, "add_pet", {"name": "Rex", "photoUrls": ["https://x/rex.png"], "status": "available"}
            )
            assert not failed and pet["name"] == "Rex" and isinstance(pet["id"], int)
            failed, read = await call(client, "get_pet_by_id", {"petId": pet["id"]})
            assert not failed and read == pet
            failed, updated = await call(
                client, "update_pet_with_form", {"petId": pet["id"], "name": "Rex II", "status": "sold"}
            )
            assert not failed and (updated["name"], updated["status"]) == ("Rex II", "sold")
            failed, sold = await call(client, "find_pets_by_status", {"status": "sold"})
            assert not failed and pet["id"] in [p["id"] for p in sold["items"]]
            assert all(p["status"] == "sold" for p in sold["items"])
            failed, _ = await call(client, "find_pets_by_status", {"status": "available"})
            assert not failed
            failed, _ = await call(client, "delete_pet", {"petId": pet["id"]})
            assert not failed
            failed, gone = await call(client, "get_pet_by_id", {"petId": pet["id"]})
            assert failed and "not found" in gone


@pytest.mark.slow  # imports Chinook with its 15,000 rows
async def test_chinook_albums_keep_their_artist_and_go_when_deleted(stdio):
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(CORPUS / "sql" / "chinook_sqlite.sql")) as client:
            failed, artist = await call(client, "create_artist", {"name": "The Test Band"})
            assert not failed and artist["name"] == "The Test Band"
            failed, album = await call(
                client, "create_album", {"title": "First Light", "artist_id": artist["artist_id"]}
            )
            assert not failed and album["artist_id"] == artist["artist_id"]
            failed, albums = await call(client, "list_albums", {"artist_id": artist["artist_id"]})
            assert not failed and [a["album_id"] for a in albums["items"]] == [album["album_id"]]
            failed, renamed = await call(
                client, "update_album", {"album_id": album["album_id"], "title": "Second Light"}
            )
            assert not failed and renamed["title"] == "Second Light"
            failed, read = await call(client, "get_album", {"album_id": album["album_id"]})
            assert not failed and read["title"] == "Second Light"
            failed, refused = await call(client, "create_album", {"title": "Nobody's", "artist_id": 10**6})
            assert failed and "artist" in refused.lower()  # the document's foreign key holds
            failed, _ = await call(client, "delete_album", {"album_id": album["album_id"]})
            assert not failed
            failed, gone = await call(client, "get_album", {"album_id": album["album_id"]})
            assert failed and "not found" in gone.lower()


async def test_paypal_invoices_act_through_their_action_endpoints(stdio):
    """POST /v2/invoicing/invoices/{invoice_id}/send and /cancel are state transitions."""
    with anyio.fail_after(BACKSTOP):
        async with Client(stdio(CORPUS / "openapi" / "paypal_invoicing_v2.json")) as client:
            failed, listed = await call(client, "invoices_list", {})
            assert not failed and listed["items"]
            invoice = listed["items"][0]["id"]
            failed, sent = await call(client, "invoices_send", {"invoice_id": invoice})
            assert not failed and sent["status"] == "SENT"
            failed, read = await call(client, "invoices_get", {"invoice_id": invoice})
            assert not failed and read["status"] == "SENT"
            failed, cancelled = await call(client, "invoices_cancel", {"invoice_id": invoice})
            assert not failed and cancelled["status"] == "CANCELLED"
            failed, again = await call(client, "invoices_cancel", {"invoice_id": invoice})
            assert failed and "already CANCELLED" in again
            failed, found = await call(client, "invoices_search_invoices", {"status": "CANCELLED"})
            assert not failed and invoice in [i["id"] for i in found["items"]]


@pytest.mark.slow  # imports Chinook twice, with and without its rows
def test_an_sql_files_own_rows_seed_it_unless_asked_not_to():
    chinook = CORPUS / "sql" / "chinook_sqlite.sql"
    own = import_resource(chinook)
    generated = import_resource(chinook, use_inserts=False)
    names = {row["name"] for row in own.rows["artist"]}
    assert "AC/DC" in names  # the file's first artist
    assert "AC/DC" not in {row["name"] for row in generated.rows["artist"]}
