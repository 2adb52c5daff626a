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
    tasks, _ = generate_tasks(env, 12, seed=3)
    secured = [t for t in tasks if any(rules.needs_authentication(a.name) for a in t.gold.actions)]
    assert secured, "no task uses an operation the document secures"
    for task in secured:
        first = task.gold.actions[0]
        assert first.name == "find_user_id_by_email", [a.name for a in task.gold.actions]
        assert first.output.get("username") is not None
