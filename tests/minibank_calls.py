"""Calls on the mini bank test environment (``mini_env``) shared by the session tests."""

from __future__ import annotations

from mcp import Client

from envfactory_mcp.runtime import SESSION_META_KEY

TRANSFER = {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": 250}
ACC = {"account_id": "acc_001"}


def key(name: str) -> dict[str, str]:
    """The ``_meta`` naming session ``name``."""
    return {SESSION_META_KEY: name}


def text(result) -> str:  # type: ignore[no-untyped-def]
    return " ".join(block.text for block in result.content)


async def balance(client: Client, **kw) -> int | None:  # type: ignore[no-untyped-def]
    """acc_001's balance in the session ``kw`` names, or None when the call is refused."""
    result = await client.call_tool("get_account", ACC, **kw)
    return None if result.is_error else result.structured_content["balance_cents"]
