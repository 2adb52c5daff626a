"""Typed helpers over the MCP SDK's client side, shared by the tests that call tools."""

from __future__ import annotations

from typing import cast

from mcp.types import CallToolResult, ContentBlock, RequestParamsMeta, TextContent

from envfactory_mcp.runtime import SESSION_META_KEY


def key(name: str) -> RequestParamsMeta:
    """The ``_meta`` naming session ``name``."""
    # RequestParamsMeta is an open TypedDict (PEP 728 extra_items) that mypy does not read
    # yet, so it takes no key beyond the reserved ones; the SDK casts the same way (peer.py).
    return cast(RequestParamsMeta, {SESSION_META_KEY: name})


def block_text(block: ContentBlock) -> str:
    """The text of a content block that must be text (the runtime answers only in text)."""
    assert isinstance(block, TextContent), f"not a text block: {block!r}"
    return block.text


def text(result: CallToolResult) -> str:
    """A result's text blocks, joined by spaces."""
    return " ".join(block_text(block) for block in result.content)
