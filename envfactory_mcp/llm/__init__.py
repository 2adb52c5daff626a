"""Talking to language models: one async protocol, a litellm adapter, a scripted double.

    LLMClient            the protocol every stage depends on
    ├── LiteLLMClient    any model litellm reaches; retries; imports litellm on first use
    └── ScriptedLLM      plays back scripted replies (tests, offline runs)

Importing this package does not import litellm.
"""

from envfactory_mcp.llm.client import (
    ENDPOINT_FAILURES,
    LLMClient,
    LLMError,
    LLMErrorKind,
    LLMResponse,
    TokenCounts,
    ToolCall,
)
from envfactory_mcp.llm.litellm_client import LiteLLMClient
from envfactory_mcp.llm.scripted import ScriptedLLM, ScriptedRequest, ScriptExhaustedError

__all__ = [
    "ENDPOINT_FAILURES",
    "LLMClient",
    "LLMError",
    "LLMErrorKind",
    "LLMResponse",
    "LiteLLMClient",
    "ScriptExhaustedError",
    "ScriptedLLM",
    "ScriptedRequest",
    "TokenCounts",
    "ToolCall",
]
