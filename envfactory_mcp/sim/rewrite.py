"""An optional rewrite of the demonstrator's text by a model, that must keep every grounded value.

``RewritingAgent`` wraps an agent (the demonstrator): each turn with text is sent to a
model through the project's ``LLMClient`` (``llm/``) with the instruction to say the same
thing in other words. The rewrite is checked before it replaces the original
(``check_rewrite``): every value of the original (ids, amounts, numbers, dates, emails, quoted
text, names; and every value the agent's speaker put in the turn, enum words included) must
still be there, and no new value-like token may appear. A rewrite that drops or invents a
value, or a failed request, is rejected: the original is kept and the rejection is logged
(``rejections``, and the ``envfactory_mcp.sim.rewrite`` logger) with its reason.
Tool calls pass through untouched. Off by default: ``--agent demonstrator --agent-model M``
turns it on (``host.rollout.make_agent``).
"""

from __future__ import annotations

import dataclasses
import logging
import re
from dataclasses import dataclass
from typing import Any

from envfactory_mcp.llm import LLMClient, LLMError
from envfactory_mcp.sim.types import AgentTurn, Message

logger = logging.getLogger(__name__)

PROMPT = (
    "You rewrite a customer-service agent's message so it reads naturally, as a skilled human "
    "agent would write it. Keep its meaning and every fact exactly: every id, number, amount, "
    "date, time, email, name and status word must appear exactly as written; add no fact, "
    "value, promise or question that is not in the message. Speak as the agent, to the "
    'customer ("you", "your"). Answer with the rewritten message only.'
)

# Value-like tokens: anything with a digit (ids, amounts, dates, times, phone numbers),
# emails, '#' references, and quoted text.
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DIGITS = re.compile(r"[$#]?[A-Za-z]*\d[\w$#.,:/-]*")
_QUOTED = re.compile(r"\"([^\"]+)\"")
# A capitalised word not at a sentence's start: a name (of a person, product, place).
_NAME = re.compile(r"(?<![.!?:]\s)(?<!^)(?<![\"(])\b([A-Z][a-z]+(?:[ -][A-Z][a-z]+)*)\b")
_COMMON_CAPS = frozenset({"I", "I'm", "I'll", "I've", "I'd", "OK", "Okay", "Yes", "No"})


def _clean(token: str) -> str:
    return token.rstrip(".,:;!?)").casefold()


def value_tokens(text: str) -> set[str]:
    """The value-like tokens of ``text`` (case folded, trailing punctuation dropped)."""
    found = {_clean(m.group(0)) for m in _EMAIL.finditer(text)}
    plain = _EMAIL.sub(" ", text)
    found |= {_clean(m.group(0)) for m in _DIGITS.finditer(plain)}
    found |= {q.casefold() for q in _QUOTED.findall(plain)}
    return {t for t in found if t}


def names(text: str) -> set[str]:
    """Capitalised words that are not a sentence's first word (names of people, products, places)."""
    plain = _EMAIL.sub(" ", text)
    found = set()
    for sentence in re.split(r"(?<=[.!?:])\s+|\n", plain):
        words = sentence.split()
        for word in words[1:]:
            word = word.strip(".,;:!?()\"'")
            if word[:1].isupper() and word not in _COMMON_CAPS and not any(c.isdigit() for c in word):
                found.add(word.casefold())
    return found


def _present(value: str, text: str) -> bool:
    """``value`` in ``text`` as a whole (not inside a longer word or number), case-insensitive."""
    pattern = r"(?<![\w$#])" + re.escape(value.casefold()) + r"(?![\w])"
    return re.search(pattern, text.casefold()) is not None


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str = ""


def check_rewrite(original: str, rewrite: str, values: list[str] | tuple[str, ...] = ()) -> Verdict:
    """Whether ``rewrite`` keeps every grounded value of ``original`` and adds none:
    ``values`` (what the speaker put in the text: enum words, names, amounts as said) and the
    original's value-like tokens must all be in the rewrite (case-insensitive); the rewrite's
    value-like tokens and names must all be in the original."""
    if not rewrite.strip():
        return Verdict(False, "empty rewrite")
    for value in values:
        if value and _present(value, original) and not _present(value, rewrite):
            return Verdict(False, f"dropped value {value!r}")
    before, after = value_tokens(original), value_tokens(rewrite)
    for token in sorted(before):
        if token not in after and not _present(token, rewrite):
            return Verdict(False, f"dropped value {token!r}")
    for token in sorted(after):
        if token not in before and not _present(token, original):
            return Verdict(False, f"invented value {token!r}")
    for name in sorted(names(rewrite) - names(original)):
        if not _present(name, original):
            return Verdict(False, f"invented name {name!r}")
    return Verdict(True)


@dataclass(frozen=True)
class Rejection:
    original: str
    rewrite: str
    reason: str


class RewritingAgent:
    """``inner`` with its text rewritten by ``client`` where the rewrite keeps every value
    (see the module doc). ``accepted`` counts rewrites used; ``rejections`` holds the others."""

    def __init__(self, inner: Any, client: LLMClient, temperature: float | None = None) -> None:
        self.inner = inner
        self.client = client
        self.temperature = temperature
        self.name = getattr(inner, "name", "demonstrator")
        self.accepted = 0
        self.rejections: list[Rejection] = []

    def start(self, task: Any, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self.inner.start(task, tools, system_prompt)

    async def act(self, messages: list[Message]) -> AgentTurn:
        turn: AgentTurn = await self.inner.act(messages)
        speech = getattr(self.inner, "_speech", None)
        values = speech.take_said() if speech is not None and hasattr(speech, "take_said") else []
        if not turn.content or turn.tool_calls:
            return turn
        return dataclasses.replace(turn, content=await self.rewrite(turn.content, values))

    async def rewrite(self, text: str, values: list[str] | tuple[str, ...] = ()) -> str:
        """The rewrite of ``text`` if it passes ``check_rewrite``, else ``text`` (logged)."""
        request = [{"role": "system", "content": PROMPT}, {"role": "user", "content": text}]
        try:
            response = await self.client.complete(request, temperature=self.temperature)
        except LLMError as exc:
            return self._reject(text, "", f"request failed: {exc}")
        candidate = " ".join((response.content or "").split())
        verdict = check_rewrite(text, candidate, values)
        if not verdict.ok:
            return self._reject(text, candidate, verdict.reason)
        self.accepted += 1
        return candidate

    def _reject(self, text: str, candidate: str, reason: str) -> str:
        self.rejections.append(Rejection(text, candidate, reason))
        logger.warning("rewrite rejected (%s): kept %r", reason, text[:120])
        return text
