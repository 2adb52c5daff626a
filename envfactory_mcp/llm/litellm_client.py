"""The ``LLMClient`` for any model litellm reaches (hosted APIs, vLLM, local servers).

This is the only module in the package that imports litellm, and it does so on first
use: the import takes seconds and, without ``LITELLM_LOCAL_MODEL_COST_MAP``, fetches a
price list from the network. Retries are ours, not litellm's (its own and the OpenAI
SDK's are switched off), so ``max_retries`` means exactly what it says.
"""

from __future__ import annotations

import json
import os
import random
import time
import warnings
from types import ModuleType
from typing import Any

import anyio

from envfactory_mcp.llm.client import LLMError, LLMErrorKind, LLMResponse, TokenCounts, ToolCall

RETRYABLE: frozenset[LLMErrorKind] = frozenset({"timeout", "rate_limit", "server", "connection"})

# litellm's own timeout limits each socket read, so a server that trickles bytes could
# hold an attempt far past ``timeout_s``; this outer deadline bounds the whole attempt
# and sits a little later so that litellm normally reports the timeout itself.
DEADLINE_SLACK_S = 1.0
# Seconds one attempt may take when the caller does not say (``--agent-timeout``,
# ``--user-timeout``, ``--judge-timeout``, ``--model-timeout`` say).
MODEL_TIMEOUT_S = 60.0


# litellm's ``acompletion`` makes the provider's coroutine in a worker thread and awaits it
# after; an attempt cancelled in between (our deadline, an episode's timeout, Ctrl-C) leaves
# that coroutine unawaited and Python warns when it is collected. Nothing ran and nothing
# leaks (no request was sent), so the warning is noise: it is silenced by its exact text.
UNAWAITED_PROVIDER_CALL = r"coroutine '\w+\.acompletion' was never awaited"


def load_litellm() -> ModuleType:
    """Import litellm quietly and without network access to fetch its cost map."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    warnings.filterwarnings("ignore", message=UNAWAITED_PROVIDER_CALL, category=RuntimeWarning)
    import litellm

    litellm.suppress_debug_info = True
    return litellm


class LiteLLMClient:
    """Chat completions through ``litellm.acompletion``, with retries and error kinds.

    ``model`` is a litellm model string (``openai/<name>`` for any OpenAI-compatible
    server at ``api_base``). Each attempt is bounded by ``timeout_s`` (default
    ``MODEL_TIMEOUT_S``); timeouts, rate
    limits, dropped connections and 5xx answers are retried up to ``max_retries`` times
    with exponential backoff from ``backoff_s`` and jitter drawn from
    ``random.Random(seed)``; other failures are not retried, nor is a refused connection
    (nothing listens at ``api_base``: waiting will not start it, so the caller hears at
    once). ``completion_args`` are further keyword arguments of every request (``top_p``,
    ``seed``, ``temperature``...: ``rollout --agent-args``); the per-call ``temperature``
    and ``max_tokens`` win, and a ``timeout`` there is ``timeout_s`` (the whole attempt's
    deadline too, so a slow model can be waited for).
    """

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout_s: float | None = None,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        seed: int = 0,
        completion_args: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.completion_args = dict(completion_args or {})
        if "timeout" in self.completion_args:  # --agent-args '{"timeout": 240}': the deadline too
            timeout_s = float(self.completion_args.pop("timeout"))
        self.api_base = api_base
        # OpenAI-compatible local servers ignore the key but the SDK insists on one.
        self.api_key = api_key if api_key is not None or api_base is None else "not-needed"
        self.timeout_s = MODEL_TIMEOUT_S if timeout_s is None else float(timeout_s)
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._rng = random.Random(seed)

    async def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> LLMResponse:
        """Send one chat completion, retrying transient failures; raises ``LLMError``."""
        litellm = load_litellm()
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": self.timeout_s,
            "num_retries": 0,
            "max_retries": 0,
        }
        request.update(self.completion_args)
        optional = {
            "api_base": self.api_base,
            "api_key": self.api_key,
            "tools": tools,
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        request.update({key: value for key, value in optional.items() if value is not None})
        attempt = 0
        while True:
            attempt += 1
            started = time.monotonic()
            try:
                with anyio.fail_after(self.timeout_s + DEADLINE_SLACK_S):
                    raw = await litellm.acompletion(**request)
            except Exception as exc:
                kind = classify_error(exc)
                if kind not in RETRYABLE or attempt > self.max_retries or refused(exc):
                    raise LLMError(self.model, kind, attempt, describe_error(exc)) from exc
                await anyio.sleep(self._backoff(attempt))
                continue
            if not raw.choices:
                raise LLMError(self.model, "other", attempt, "the endpoint returned no choices")
            return to_response(litellm, raw, self.model, time.monotonic() - started)

    def _backoff(self, attempt: int) -> float:
        """Seconds to wait after failed ``attempt``: doubling, times a jitter in [1, 1.5)."""
        return float(self.backoff_s * 2 ** (attempt - 1) * (1 + self._rng.random() / 2))


def classify_error(exc: BaseException) -> LLMErrorKind:
    """Map an exception from litellm (or our deadline) to an ``LLMError`` kind.

    Order matters: litellm's ``Timeout`` is a connection error with status 408, a
    context-window error is a 400, and a refused connection arrives as an
    ``InternalServerError`` (status 500) whose cause is the SDK's connection error.
    A 200 whose body is not a completion also arrives as a 500 (``server``).
    """
    import openai  # a litellm dependency, loaded with it

    litellm = load_litellm()
    if isinstance(exc, openai.APITimeoutError | TimeoutError):
        return "timeout"
    if isinstance(exc, litellm.ContextWindowExceededError):
        return "context_window"
    status = getattr(exc, "status_code", None)
    if isinstance(exc, openai.RateLimitError) or status == 429:
        return "rate_limit"
    if any(isinstance(link, openai.APIConnectionError | ConnectionError) for link in _chain(exc)):
        return "connection"
    if isinstance(status, int) and status >= 500:
        return "server"
    if status in (401, 403, 404):
        return "access"  # a wrong key, model name or URL: retrying will not help
    if isinstance(status, int) and 400 <= status < 500:
        return "bad_request"
    return "other"


def refused(exc: BaseException) -> bool:
    """Whether ``exc`` is, underneath, a refused connection (nobody listens there)."""
    return any(isinstance(link, ConnectionRefusedError) for link in _chain(exc))


def describe_error(exc: BaseException) -> str:
    """A one-line cause: the exception's class and the first line of its message."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _chain(exc: BaseException) -> list[BaseException]:
    links: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in links:
        links.append(link)
        link = link.__cause__ or link.__context__
    return links


def to_response(litellm: ModuleType, raw: Any, model: str, latency_s: float) -> LLMResponse:
    """Turn litellm's ``ModelResponse`` into an ``LLMResponse``; bad tool arguments stay data."""
    choice = raw.choices[0]
    message = choice.message
    tool_calls = [
        ToolCall.parse(
            str(call.id),
            str(call.function.name),
            _arguments_text(call.function.arguments),
        )
        for call in message.tool_calls or []
    ]
    usage = getattr(raw, "usage", None)
    return LLMResponse(
        content=message.content,
        tool_calls=tool_calls,
        usage=TokenCounts(
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        ),
        cost_usd=_cost(litellm, raw),
        model=str(raw.model or model),
        latency_s=latency_s,
        finish_reason=choice.finish_reason,
    )


def _arguments_text(arguments: Any) -> str:
    """The arguments as JSON text: some providers hand them back already decoded."""
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _cost(litellm: ModuleType, raw: Any) -> float | None:
    """The price of this completion in USD, or None for models litellm has no price for."""
    try:
        return float(litellm.completion_cost(completion_response=raw))
    except Exception:  # noqa: BLE001 - litellm raises several unrelated types for "no price"
        return None
