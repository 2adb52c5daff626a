"""Calls on the mini bank test environment (``mini_env``) shared by the session tests."""

from __future__ import annotations

from typing import Any

from mcp import Client
from tool_calls import key as key
from tool_calls import text as text

TRANSFER = {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": 250}
ACC = {"account_id": "acc_001"}


async def balance(client: Client, **kw: Any) -> int | None:
    """acc_001's balance in the session ``kw`` names, or None when the call is refused."""
    result = await client.call_tool("get_account", ACC, **kw)
    if result.is_error:
        return None
    assert result.structured_content is not None
    cents: int = result.structured_content["balance_cents"]
    return cents
