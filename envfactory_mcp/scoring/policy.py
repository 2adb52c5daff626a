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
  previous write (or the start), an assistant message asking for consent
  (``asks_confirmation``: a question asking permission or agreement, "shall I go ahead?",
  "does that sound right?", "OK to proceed?", "can I cancel it for you?", or a request for a
  yes, "let me know if I should go ahead"; a question for information such as "what is
  your email?" or an offer of more help is not one) answered by the next user message
  affirming it (it starts with yes / yeah / yep / sure / ok / correct ..., or says "go
  ahead", "please do", "that's right" ...; a message that also says no / don't / wait is not
  a yes). A write whose result is a tool error changed nothing, so the confirmation still
  holds for the retry.

Tools are resolved as grounding does (``<spec name>__<tool>`` included); tools the
spec does not know are not governed by its policy. With several servers offered
(``others``: the other servers' specs by name), a namespaced call ``<server>__<tool>`` is
judged against its own server's spec and policy: authentication is per server (signing in
on one server authenticates nothing on another), and a write needs a yes given since the
previous write on any server (one yes, one write). "One tool call at a time" is not
checked (optional in the policy text).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from envfactory_mcp.records.trajectory import TOOL_ERROR_PREFIX
from envfactory_mcp.scoring.grounding import (
    NAMESPACE_SEPARATOR,
    Call,
    cached_for_short_texts,
    content_text,
    resolve_tool,
    tool_calls,
)
from envfactory_mcp.spec import ToolSpec
from envfactory_mcp.spec.models import EnvSpec

NOT_AUTHENTICATED = "not authenticated"
NO_CONFIRMATION = "no confirmation"

# Asking for consent: a question (or a request for a reply) that asks the user to agree to
# something the agent proposes, in any of the ways people ask: "shall I go ahead?", "does that
# sound right?", "OK to proceed?", "happy for me to do that?", "can I cancel it for you?",
# "would you like the refund on your card?", "do I have your go-ahead?". A question for
# information ("what is your email?", "could you confirm your email address?", "which card
# would you like to use?") and an offer of more help ("anything else I can do?") are not.
_CONSENT_WORDS = re.compile(
    r"\b(?:proceed|go ahead|go on|carry on|continue|move forward|confirm|approve|agree|authori[sz]e|"
    r"permission|consent|go-ahead|green light|your ok|your okay|yes or no|yes/no|say the word)\b"
)
# "is that right / okay / alright ...", "does that sound good", "does this look right", "how
# does that sound", "does that work for you", "are you happy with that", "okay with you".
_AGREEMENT = re.compile(
    r"\b(?:(?:is|was|would|will) (?:that|this|it|everything|all (?:of )?that) (?:be |all )?"
    r"(?:right|correct|accurate|ok|okay|alright|all right|fine|acceptable|agreeable|good|what you(?: want| wanted| need| meant| had in mind| asked for|'d like| would like))"
    r"|(?:does|do|would|will) (?:that|this|it|everything|the plan|these|those) (?:all )?(?:sound|look|seem|work)"
    r"|(?:sound|sounds|look|looks|seem|seems) (?:right|good|okay|ok|fine|correct|alright|all right)"
    r"|how does (?:that|this|it) sound"
    r"|(?:ok|okay|alright|all right|fine|good) (?:with|by|for) you"
    r"|(?:ok|okay|alright|all right|fine|good|happy) with (?:that|this|it|the plan)"
    r"|(?:are|r) (?:you|we) (?:happy|okay|ok|fine|alright|all right|comfortable|good|sure|set)\b"
    r"|(?:happy|ok|okay|alright|all right|fine|good|clear|cleared|ready) (?:for me )?to (?:go|proceed|do|make|finalise|finalize|submit|continue|carry|place|book|cancel|send|process|apply|change|update)"
    r"|(?:ok|okay|alright|all right|fine|good)(?: then)?,? (?:if|for) (?:i|me|we)\b"
    r"|(?:mind|object) if i\b|any objections?"
    r"|good to go|shall we\b(?! (?:look|talk|check|see|move on to|go over) (?:at )?(?:something|anything)))"
)
_BARE_OK = re.compile(
    r"^\W*(?:so |and )?(?:ok|okay|alright|all right|fine|good|right)\W*$"
)  # "OK?", "Alright?"
# The agent offering to act: "shall I ...", "can I cancel it?", "do you want me to ...",
# "would you like the refund on your card?", "want me to ...".
_OFFER = re.compile(
    r"^(?:\W*(?:so|and|then|now|great|ok|okay|alright|all right|right|perfect|thanks|good)\b[,!.]?\s*)*"
    r"(?:(?:shall|should|can|could|may|might) (?:i|we)\b(?! ask\b)"
    r"(?! (?:have|get|know|see|take|confirm|verify|check|double-check|trouble you for) (?:your|you|a few|some|"
    r"the (?:email|name|zip|date|phone|number|address|reason|details?)))"
    r"|(?:do|would) you (?:want|like|prefer|wish)\b(?! to (?:tell|share|give|provide|send|let|spell|use|pick|choose|add|try))"
    r"|(?:you )?want me to\b|(?:is|would) it (?:be )?(?:ok|okay|alright|all right|fine)\b"
    r"|(?:ready|alright|all right|ok|okay) (?:for me )?to\b)"
)
# Questions that ask for information, or offer more help, whatever else they say.
_INFO_QUESTION = re.compile(
    r"^\W*(?:(?:what|which|where|when|who|whom|whose|why)\b"
    r"|how (?!does (?:that|this|it) sound)"
    r"|(?:can|could|would|will) you (?:please )?(?:provide|share|tell|give|send|let me know|spell|remind|describe|list)\b"
    r"|(?:can|could|would|will) you (?:please )?(?:confirm|verify|double-check) (?:your|the (?:email|name|zip|address|phone|date))\b"
    r"|(?:do|did) you (?:have|know|remember|recall|still have|receive|get)\b)"
)
_MORE_HELP = re.compile(
    r"\b(?:anything|something|nothing|what) (?:else|more|further)\b|\bany(?:thing)? other\b|\bfurther (?:help|questions?)\b"
    r"|\bother questions?\b|\bis that everything\b|\bcover what you needed\b|\bhelp with (?:today|anything)\b"
)
# Asking for a reply without a question mark: "please confirm and I'll proceed", "let me know
# if I should go ahead", "reply yes to continue", "I'll need your OK first".
_REQUEST_FOR_CONSENT = re.compile(
    r"\b(?:please (?:confirm|approve|reply|answer|say|let me know)|let me know (?:if|whether|when|once)|"
    r"(?:reply|answer|say|type|respond with) (?:\"|')?yes\b|(?:need|have|get|want) your (?:ok|okay|go-ahead|confirmation|"
    r"permission|consent|approval|agreement|green light)|once you (?:confirm|agree|say|approve|give)|"
    r"(?:if|when) you (?:confirm|agree|approve|give me the go-ahead|say (?:so|yes|the word))|"
    r"\(yes/no\)|\(yes or no\)|yes or no\b)"
)
_STATEMENT_CONSENT_CUE = re.compile(
    r"\b(?:proceed|go ahead|go on|carry on|continue|confirm|approve|agree|permission|consent|go-ahead|ok|okay|"
    r"yes|green light|do (?:it|that|this)|make the change|finali[sz]e|i should)\b"
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


@cached_for_short_texts(maxsize=4096)  # the trials of a task say the same things again
def affirms(text: str) -> bool:
    """The user's message is a clear yes (and says no "no", "don't" or "wait")."""
    normal = _normal(text)
    if not normal or _NO.search(normal):
        return False
    return bool(_YES_START.search(normal) or _YES_ANYWHERE.search(normal))


def _normal(text: str) -> str:
    return " ".join(text.casefold().replace("\u2019", "'").split())


@cached_for_short_texts(maxsize=4096)  # the trials of a task say the same things again
def asks_confirmation(text: str) -> bool:
    """The assistant's text asks the user for consent to something: a question asking
    permission or agreement ("shall I go ahead?", "does that sound right?", "OK to proceed?",
    "happy for me to do that?", "can I cancel order #W1 for you?", "would you like the refund
    on your card?", "is that what you want?", "how does that sound?", "do I have your
    go-ahead?", "(yes/no)"), or a sentence asking for a yes ("please confirm and I'll
    proceed", "let me know if I should go ahead", "I'll need your OK first"). Not one: a
    question for information ("what is your email?", "could you confirm your email
    address?", "which card would you like to use?", "do you have the order number?"), an
    offer of more help ("is there anything else I can do?", "shall we look at something
    else?") and a statement ("I'll go ahead and cancel it", "your order is confirmed")."""
    for sentence in _sentences(_normal(text)):
        if sentence.endswith("?"):
            if _consent_question(sentence.rstrip("?").strip()):
                return True
        elif _REQUEST_FOR_CONSENT.search(sentence) and _STATEMENT_CONSENT_CUE.search(sentence):
            return True
    return False


def offers_more_help(question: str) -> bool:
    """Whether a question offers more help ("anything else I can do?", "is that
    everything?"): neither a request for consent nor a yes/no question about the task."""
    return bool(_MORE_HELP.search(_normal(question)))


def _sentences(text: str) -> list[str]:
    """Sentences with their end mark (an end is a ".", "!" or "?" before white space, so
    "$20.00" and "1.7L" stay inside theirs); a question runs to its "?"."""
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _consent_question(question: str) -> bool:
    """Whether one question (lower case, no "?") asks for consent (see ``asks_confirmation``)."""
    if _MORE_HELP.search(question):
        return False
    # Its clauses: a lead-in may ask ("what do you think, shall I go ahead") or only frame
    # a question for information ("before I go ahead, what is the new address").
    parts = [p.strip() for p in re.split(r"[:;,\u2014\u2013]\s+|\s+-\s+", question) if p.strip()]
    if _BARE_OK.match(question) or any(_AGREEMENT.search(p) or _OFFER.match(p) for p in parts):
        return True
    if any(_INFO_QUESTION.match(p) for p in parts):
        return False  # "what is your email, so I can proceed"
    return bool(_CONSENT_WORDS.search(question))


def policy_violations(
    messages: list[dict[str, Any]],
    spec: EnvSpec,
    others: Mapping[str, EnvSpec] | None = None,
    made: Sequence[Call] | None = None,
) -> list[str]:
    """One ``"call <i> <tool>: <what>"`` per violation, in call order: each call judged by
    the policy of its server (``spec``'s, or for ``<server>__<tool>`` the spec in ``others``
    of that name). ``made``: the conversation's ``tool_calls``, when the caller has them."""
    specs = {spec.name: spec, **(others or {})}
    calls: dict[int, list[Call]] = {}
    for call in tool_calls(messages) if made is None else made:
        calls.setdefault(call.position, []).append(call)
    # Calls awaiting their result, by id: the server, the plain tool name and, for a write,
    # whether the user's yes was held when it was called (a failed write gives it back).
    pending: dict[str, tuple[str, str, bool]] = {}
    # Calls made before authentication on their server, by id: a violation once answered
    # without an error.
    unauthenticated: dict[str, tuple[int, int, str]] = {}
    authenticated: set[str] = set()  # servers signed in on
    asked = confirmed = False
    violations: list[tuple[int, int, str]] = []  # (call index, kind's rank, text)
    resolved: dict[str, tuple[str, ToolSpec] | None] = {}
    for position, message in enumerate(messages):
        role = message.get("role")
        text = content_text(message.get("content"))
        if role == "tool":
            call_id = str(message.get("tool_call_id"))
            found = pending.pop(call_id, None)
            answered = (*found, call_id) if found else _by_name(pending, message)
            if answered is None:
                continue
            server, answered_tool, held, call_id = answered
            early = unauthenticated.pop(call_id, None)
            if not text.startswith(TOOL_ERROR_PREFIX):
                rules = specs[server].policy_rules
                if rules.authentication and answered_tool in rules.authentication.tools:
                    authenticated.add(server)
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
            if call.name not in resolved:  # each name looked up once a conversation
                resolved[call.name] = _resolve(call.name, spec, specs)
            found_tool = resolved[call.name]
            if found_tool is None:
                continue
            server, tool = found_tool
            rules = specs[server].policy_rules
            key = str(call.id) if call.id is not None else f"#{call.index}"
            if rules.needs_authentication(tool.name) and server not in authenticated:
                unauthenticated[key] = (call.index, 0, f"call {call.index} {call.name}: {NOT_AUTHENTICATED}")
            held = False
            if tool.effect == "write":
                if tool.name in rules.confirm and not confirmed:
                    violations.append((call.index, 1, f"call {call.index} {call.name}: {NO_CONFIRMATION}"))
                held, confirmed = confirmed, False
            pending[key] = (server, tool.name, held)
    violations.extend(unauthenticated.values())  # never answered: it may have done anything
    return [text for _, _, text in sorted(violations)]


def _resolve(name: str, spec: EnvSpec, specs: Mapping[str, EnvSpec]) -> tuple[str, ToolSpec] | None:
    """The server and tool a call names: ``<server>__<tool>`` on that server when it is
    one of ``specs``, else ``spec``'s own tool (plain or namespaced with its name)."""
    server, sep, plain = name.partition(NAMESPACE_SEPARATOR)
    if sep and server in specs and server != spec.name:
        tool = specs[server].tool(plain)
        return (server, tool) if tool is not None else None
    own = resolve_tool(name, spec)
    return (spec.name, own) if own is not None else None


def _by_name(
    pending: dict[str, tuple[str, str, bool]], message: dict[str, Any]
) -> tuple[str, str, bool, str] | None:
    """A result whose call id is unknown answers the oldest pending call of its tool name."""
    name = message.get("name")
    if name is None:
        return None
    for call_id, (server, tool, held) in pending.items():
        if (
            name == tool
            or str(name) == f"{server}{NAMESPACE_SEPARATOR}{tool}"
            or str(name).endswith(f"__{tool}")
        ):
            del pending[call_id]
            return server, tool, held, call_id
    return None
