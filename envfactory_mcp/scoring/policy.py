"""The policy check: did the agent follow the enforceable part of the policy?

:func:`policy_violations` reads ``spec.policy_rules`` (:class:`~envfactory_mcp.spec.PolicyRules`)
over an OpenAI chat-format conversation and returns one short string per violation,
``"call <i> <tool>: <what>"`` (``i`` counts tool calls as
:func:`~envfactory_mcp.scoring.grounding.tool_calls` does):

* ``not authenticated``: a tool that ``needs_authentication`` was called before any
  authentication tool had succeeded (a ``tool`` message answering it that does not start
  with ``Error:``), and the call did something: a call answered with a tool error (refused
  by the server, or never sent) showed nothing and changed nothing, so it is no violation.
  A call in the same assistant turn as the authentication is before it: its result was
  not known yet.
* ``no confirmation``: a write listed in ``confirm`` was called without, since the
  previous write (or the start), an assistant message asking for confirmation ("confirm",
  "proceed", "go ahead", "shall I" ...; a bare question such as "what is your email?" is
  not one) answered by the next user message affirming it (it starts
  with yes / yeah / yep / sure / ok / correct ..., or says "go ahead", "please do",
  "that's right" ...; a message that also says no / don't / wait is not a yes). A write
  whose result is a tool error changed nothing, so the confirmation still holds for the
  retry.

Tools are resolved as grounding does (``<spec name>__<tool>`` included); tools the
spec does not know are not governed by its policy. "One tool call at a time" is not
checked (optional in the policy text).
"""

from __future__ import annotations

import re
from typing import Any

from envfactory_mcp.records.trajectory import TOOL_ERROR_PREFIX
from envfactory_mcp.scoring.grounding import Call, content_text, resolve_tool, tool_calls
from envfactory_mcp.spec.models import EnvSpec

NOT_AUTHENTICATED = "not authenticated"
NO_CONFIRMATION = "no confirmation"

# Asking for a yes: a bare question ("what is your email?") is not one.
_ASKS = re.compile(
    r"\b(confirm|proceed|go ahead|shall i|should i|do you want me to|would you like me to|want me to|"
    r"are you sure|is (that|this) (right|correct|ok|okay|alright|all right|fine)|yes or no|yes/no|"
    r"ok to|okay to|good to go|sound good|sounds good)\b"
)
# A yes/no question proposing something ("Can I cancel order #W1 for you?", "Would you like
# the refund on your card?"), not a question for information ("What is your email?",
# "Could you share your zip code?").
_YES_NO_START = re.compile(
    r"^(?:so|and|great|ok|okay|alright|perfect|thanks)?[,!.]?\s*(?:shall|should|can|may|do|does|would|will|want|ready|ok|okay)\b"
)
_INFO_REQUEST = re.compile(
    r"^\W*(?:can|could|would|will) you (?:please )?(?:provide|share|tell|give|send|let me know|spell)\b"
)
_YES_START = re.compile(
    r"^\W*(yes|yeah|yep|yup|yes please|sure|ok|okay|correct|confirm(ed)?|right|absolutely|definitely|"
    r"of course|please do|please proceed|go ahead|please go ahead|do it|sounds good|"
    r"that'?s (right|correct)|that is (right|correct))\b"
)
_YES_ANYWHERE = re.compile(
    r"\b(yes|go ahead|please (do|proceed|go ahead)|i confirm|confirmed|"
    r"that'?s (right|correct)|that is (right|correct)|you can proceed)\b"
)
# "no longer needed" is a cancel reason, not a refusal.
_NO = re.compile(
    r"\b(no(?!\s+(longer|problem|worries))|nope|nah|don'?t|do not|wait|hold on|not yet|not sure|"
    r"never ?mind)\b"
)


def affirms(text: str) -> bool:
    """The user's message is a clear yes (and says no "no", "don't" or "wait")."""
    normal = _normal(text)
    if not normal or _NO.search(normal):
        return False
    return bool(_YES_START.search(normal) or _YES_ANYWHERE.search(normal))


def _normal(text: str) -> str:
    return " ".join(text.casefold().replace("\u2019", "'").split())


def asks_confirmation(text: str) -> bool:
    """The assistant's text asks the user to confirm: it says confirm, proceed, go ahead,
    shall I ..., or asks a yes/no question proposing something ("Can I cancel order #W1 for
    you?"), not one asking for information ("Could you share your email?")."""
    lowered = text.casefold()
    if _ASKS.search(lowered):
        return True
    for question in re.findall(r"[^.!?\n]*\?", lowered):
        question = question.strip()
        if _YES_NO_START.match(question) and not _INFO_REQUEST.match(question):
            return True
    return False


def policy_violations(messages: list[dict[str, Any]], spec: EnvSpec) -> list[str]:
    """One ``"call <i> <tool>: <what>"`` per violation of ``spec.policy_rules``, in call order."""
    rules = spec.policy_rules
    calls: dict[int, list[Call]] = {}
    for call in tool_calls(messages):
        calls.setdefault(call.position, []).append(call)
    # Calls awaiting their result, by id: the plain tool name and, for a write, whether
    # the user's yes was held when it was called (a failed write gives it back).
    pending: dict[str, tuple[str, bool]] = {}
    # Calls made before authentication, by id: a violation once answered without an error.
    unauthenticated: dict[str, tuple[int, int, str]] = {}
    auth_tools = set(rules.authentication.tools) if rules.authentication else set()
    authenticated = False
    asked = confirmed = False
    violations: list[tuple[int, int, str]] = []  # (call index, kind's rank, text)
    for position, message in enumerate(messages):
        role = message.get("role")
        text = content_text(message.get("content"))
        if role == "tool":
            call_id = str(message.get("tool_call_id"))
            found = pending.pop(call_id, None)
            answered = (*found, call_id) if found else _by_name(pending, message)
            if answered is None:
                continue
            answered_tool, held, call_id = answered
            early = unauthenticated.pop(call_id, None)
            if not text.startswith(TOOL_ERROR_PREFIX):
                authenticated = authenticated or answered_tool in auth_tools
                if early is not None:
                    violations.append(early)
            elif held:
                confirmed = True  # the write changed nothing: the yes still stands for the retry
            continue
        if role == "user":
            if asked and affirms(text):
                confirmed = True
            elif _NO.search(_normal(text)):
                confirmed = False
            asked = False
            continue
        if role != "assistant":
            continue
        if text:
            asked = asks_confirmation(text)
        for call in calls.get(position, []):
            tool = resolve_tool(call.name, spec)
            if tool is None:
                continue
            key = str(call.id) if call.id is not None else f"#{call.index}"
            if rules.needs_authentication(tool.name) and not authenticated:
                unauthenticated[key] = (call.index, 0, f"call {call.index} {call.name}: {NOT_AUTHENTICATED}")
            held = False
            if tool.effect == "write":
                if tool.name in rules.confirm and not confirmed:
                    violations.append((call.index, 1, f"call {call.index} {call.name}: {NO_CONFIRMATION}"))
                held, confirmed = confirmed, False
            pending[key] = (tool.name, held)
    violations.extend(unauthenticated.values())  # never answered: it may have done anything
    return [text for _, _, text in sorted(violations)]


def _by_name(pending: dict[str, tuple[str, bool]], message: dict[str, Any]) -> tuple[str, bool, str] | None:
    """A result whose call id is unknown answers the oldest pending call of its tool name."""
    name = message.get("name")
    if name is None:
        return None
    for call_id, (tool, held) in pending.items():
        if name == tool or str(name).endswith(f"__{tool}"):
            del pending[call_id]
            return tool, held, call_id
    return None
