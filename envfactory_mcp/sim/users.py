"""Simulated users: a deterministic rule-based one and a model-backed one (tau2 style).

    ScriptedUser  keyword rules over the agent's last message: stop when the goal is met,
                  reveal identity when asked (progressively), confirm, restate known
                  facts, otherwise nudge; gives up after ``max_nudges`` fruitless nudges
    LLMUser       any ``LLMClient`` playing the customer from the task's scenario, with a
                  guard against stopping a write task before anything was written

Both implement ``sim.types.UserSimulator``: ``start`` returns the task's calibrated
opening message; ``reply`` sees the conversation from the agent's side (OpenAI chat
format) and an ``EpisodeView``. A reply containing a stop token (``###STOP###``,
``###TRANSFER###``) ends the episode.
"""

from __future__ import annotations

import functools
import random
import re
from typing import Any

from envfactory_mcp.llm import LLMClient
from envfactory_mcp.scoring.policy import asks_confirmation, offers_more_help
from envfactory_mcp.sim.types import STOP, TRANSFER, EpisodeView, Message, UserTurn
from envfactory_mcp.tasks.addresses import ADDRESS_PARTS
from envfactory_mcp.tasks.model import Fact, Task
from envfactory_mcp.tasks.phrasings import DEFAULT_STYLE, VOICES
from envfactory_mcp.tasks.wording import (
    Picker,
    clean_intent,
    role_of,
    say_address,
    say_details,
    say_item,
    say_payment,
    say_reason,
    say_reference,
)

GOAL_MET_REPLY = f"Thanks, that's all. {STOP}"
CONFIRM_REPLY = "Yes, please go ahead."
ACKNOWLEDGE = "Okay, thank you."

# Keyword cues, matched in the agent's lower-cased text.
EMAIL_CUES = ("email", "e-mail")
NAME_ZIP_CUES = ("name", "zip", "postcode", "postal code")
IDENTITY_CUES = (*EMAIL_CUES, *NAME_ZIP_CUES, "account", "who you are", "verify", "authenticate")
# The agent says it handed the user to a person: "transferred you to a human agent", "handed
# your case to a representative". Money transfers, which banking agents talk about all the
# time, are not hand-offs.
HANDOFF = re.compile(
    r"\b(?:transferr?(?:ed|ing)?|hand(?:ed|ing)?|pass(?:ed|ing)?|connect(?:ed|ing)?|escalat(?:ed|ing))\b"
    r"[^.!?]{0,60}?\b(?:to|with)\s+(?:a|an|our|the)?\s*(?:human|live|real)?\s*"
    r"(?:human|agent|representative|colleague|specialist|person|team)\b",
    re.IGNORECASE,
)
CONFIRM_CUES = (
    "confirm",
    "shall i",
    "should i",
    "do you want",
    "would you like",
    "proceed",
    "go ahead",
    "is that correct",
    "yes or no",
)
REQUEST_CUES = (
    "please provide",
    "please share",
    "please tell",
    "tell me",
    "let me know",
    "could you",
    "can you",
)
# An open question ("which items...?") wants facts, not a yes.
OPEN_QUESTION = re.compile(r"\b(which|what|where|when|who|how)\b")
# Words too common to tie a question to a fact.
STOPWORDS = frozenset(
    "the and with for from this that your you are was have has can could would will please "  # noqa: SIM905
    "any all one not but about into".split()
)


def last_agent_text(messages: list[Message]) -> str:
    """The text of the agent's last message that has any (tool-call-only turns have none)."""
    for message in reversed(messages):
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, str) and content.strip():
            return content
    return ""


def fact_label(fact: Fact) -> str:
    """What a fact is about, from its key: ``order_id`` -> ``order``,
    ``modify_user_address.zip`` -> ``zip``, ``payment_method_id`` -> ``payment method``."""
    words = re.findall(r"[a-z]+", fact.key.rsplit(".", 1)[-1].lower())
    return " ".join(w for w in words if w not in ("id", "ids")) or fact.key


def identity_sentence(facts: list[Fact]) -> str:
    """Identity facts as the user says them: "My name is A B and my zip code is 12345."."""
    values = {f.key: f.text for f in facts}
    parts: list[str] = []
    for fact in facts:
        if fact.key == "first_name":
            parts.append(f"my name is {' '.join(v for v in (fact.text, values.get('last_name')) if v)}")
        elif fact.key == "last_name" and "first_name" in values:
            continue
        else:
            label = "zip code" if fact.key == "zip" else fact_label(fact)
            parts.append(f"my {label} is {fact.text}")
    sentence = parts[-1] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return sentence[0].upper() + sentence[1:] + "."


ANSWER_FRAMES = {
    "address": ("It's {x}.", "The address is {x}.", "That would be {x}.", "Please use {x}.", "I'm at {x}."),
    "payment": ("Let's use {x}.", "Please use {x}.", "{x}, please.", "Put it on {x}.", "I'd go with {x}."),
    "reason": ("Well, {x}.", "Honestly, {x}.", "{x}.", "Basically, {x}.", "To be honest, {x}."),
    "reference": ("It's {x}.", "I mean {x}.", "That would be {x}.", "The one I mean is {x}.", "{x}."),
}


def facts_sentence(facts: list[Fact], rng: random.Random | None = None) -> str:
    """Facts restated as a person says them (never an internal id the user does not know,
    never "Label: value"): identity in one sentence, the parts of an address as one
    address, a reason as a reason, a payment method as a card, an object by what it is, the
    other details as phrases ("No insurance, and 0 bags in total.")."""
    pick = Picker(rng or random.Random(0))
    identity = [f for f in facts if f.kind == "identity"]
    parts = {f.key.rsplit(".", 1)[-1]: f for f in facts if f.kind == "detail"}
    address = {k: parts[k] for k in ADDRESS_PARTS if k in parts and parts[k].text}
    sentences: list[str] = []
    details: list[Fact] = []
    for fact in facts:
        last = fact.key.rsplit(".", 1)[-1]
        if fact.kind == "identity" or (fact.kind == "detail" and last in ADDRESS_PARTS):
            continue
        if fact.kind == "detail" and "reason" in last:
            clause = say_reason(fact, VOICES[DEFAULT_STYLE], pick)
            sentences.append(_frame(pick.choice(ANSWER_FRAMES["reason"]), clause))
        elif fact.kind == "detail":
            details.append(fact)
        elif "payment" in fact.key:
            sentences.append(_frame(pick.choice(ANSWER_FRAMES["payment"]), say_payment(fact, pick)))
        elif role_of(fact.key) == "item":
            sentences.append(_frame(pick.choice(ANSWER_FRAMES["reference"]), say_item(fact, pick)))
        else:
            phrase = say_reference(fact, role_of(fact.key), pick)
            sentences.append(_frame(pick.choice(ANSWER_FRAMES["reference"]), phrase))
    if len(address) > 1:
        sentences.insert(0, _frame(pick.choice(ANSWER_FRAMES["address"]), say_address(address)))
    elif address:
        details.extend(address.values())
    sentences += [s.text for s in say_details(details, pick)]
    if identity:
        sentences.insert(0, identity_sentence(identity))
    return " ".join(sentences)


def _frame(frame: str, phrase: str) -> str:
    text = frame.format(x=phrase)
    return text[0].upper() + text[1:]


def _with_group(hits: list[Fact], facts: list[Fact]) -> list[Fact]:
    """The hits plus the other details of the same call of the same goal (all the parts
    of one address)."""
    calls = {(f.goal, f.key.rsplit(".", 1)[0]) for f in hits if f.kind == "detail" and "." in f.key}
    extra = [
        f
        for f in facts
        if f.kind == "detail" and (f.goal, f.key.rsplit(".", 1)[0]) in calls and f not in hits
    ]
    return hits + extra


def goal_phrase(task: Task) -> str:
    """The reason for the call as the user would say it: "I want to A and B."."""
    wants = [clean_intent(part) for part in task.user_scenario.reason_for_call.split("; ")]
    return f"I want to {' and '.join(wants)}."


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> frozenset[str]:
    """Content words of ``text``, lower-cased, a plural ``s`` dropped (a pure function of
    the text, remembered: the same facts are matched against every question)."""
    found = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if len(word) >= 3 and word not in STOPWORDS:
            found.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return frozenset(found)


def questions_of(text: str) -> list[str]:
    """Every question of the agent's message, in order ("...?"); a message that asks
    something without a question mark ("Please share your email.") is one question; none
    when it asks nothing."""
    return list(_questions(text)) if len(text) <= 4096 else list(_find_questions(text))


@functools.lru_cache(maxsize=2048)
def _questions(text: str) -> tuple[str, ...]:
    """``questions_of`` remembered by text (a trial of a task sees the same messages again)."""
    return _find_questions(text)


_SENTENCE_END = re.compile(r"([.!?\n])")


def _find_questions(text: str) -> tuple[str, ...]:
    # Each run of text up to a question mark (the pattern ``[^.!?\n]*\?`` would find the
    # same, but a long message without any of those marks costs it quadratic time).
    parts = _SENTENCE_END.split(text)  # run, mark, run, mark, ..., run
    asked = (parts[i - 1] + "?" for i in range(1, len(parts), 2) if parts[i] == "?")
    found = [q.strip() for q in asked if q.strip(" ?")]
    if found:
        return tuple(found)
    return (text,) if any(cue in text.lower() for cue in REQUEST_CUES) else ()


class ScriptedUser:
    """A deterministic rule-based user. ``view.goal_met()`` -> thanks and ``###STOP###``; a
    hand-off to a person announced (``HANDOFF``) -> ``###TRANSFER###``; a message that asks
    nothing -> identity if a statement asks for it, else "Okay, thank you.". Otherwise every
    question of the agent's message (``questions_of``) is answered, in order, in one reply;
    each question by the first rule that applies:

    1. identity asked (email, name, zip, account, verify, ... in the question, which is not
       a request for consent) -> the identity facts asked for and not yet given (email, or
       name and zip; all of them when the request does not say which);
    2. a detail the user held back (``in_opening`` false: a payment method, a new address, a
       reason) named in a question that is no request for consent -> that detail, with the
       rest of its call's details (a whole address);
    3. identity asked again -> restated;
    4. a request for consent (``scoring.policy.asks_confirmation``: "shall I go ahead?",
       "does that sound right?"), or a yes/no question that is no offer of more help ("did
       you need anything further?" is answered by the request restated) -> "Yes, please go
       ahead.";
    5. an open question (which/what/...) or a request about known facts -> those facts
       restated.

    A yes is dropped when other answers go with it (a detail such as "no insurance" beside
    it would read as a no). A reply it already gave since the last progress becomes a
    nudge instead, so an agent cannot keep it confirming forever. Progress is a write done
    since the previous reply or identity newly revealed; after ``max_nudges`` nudges without
    progress the user says ``###STOP###``.
    """

    name = "scripted"

    def __init__(self, max_nudges: int = 3) -> None:
        self.max_nudges = max_nudges
        self._task: Task | None = None
        self._revealed: set[int] = set()  # indices into known_info
        self._told: set[tuple[int, str]] = set()  # (goal, key) of held-back facts already given
        self._given: set[str] = set()  # replies since the last progress
        self._nudges = 0
        self._writes = 0

    def start(self, task: Task) -> str:
        self._task = task
        opening = task.user_scenario.opening_message.casefold()
        self._revealed = {  # identity already given in the opening message
            i
            for i, f in enumerate(task.user_scenario.known_info)
            if f.kind == "identity" and all(m.casefold() in opening for m in f.must)
        }
        self._told = set()
        self._given = set()
        self._nudges = 0
        self._writes = 0
        return task.user_scenario.opening_message

    async def reply(self, messages: list[Message], view: EpisodeView) -> UserTurn:
        task = self._task
        if task is None:
            raise RuntimeError("ScriptedUser.reply() before start()")
        if await view.goal_met():
            return UserTurn(GOAL_MET_REPLY)
        text = last_agent_text(messages)
        lowered = text.lower()
        if HANDOFF.search(text):
            return UserTurn(TRANSFER)
        writes = view.writes_done()
        if writes > self._writes:
            self._writes = writes
            self._progress()
        facts = task.user_scenario.known_info
        questions = questions_of(text)
        if not questions:
            # Nothing asked: identity may still be requested in a statement.
            identity = self._identity_asked(facts, lowered)
            new = [i for i in identity if i not in self._revealed]
            if new:
                return self._say(self._reveal(facts, new)) or self._nudge(task)
            return self._say(ACKNOWLEDGE) or self._nudge(task)
        answers: list[str] = []
        for question in questions:
            answer = self._answer(question, facts, messages)
            if answer and answer not in answers:
                answers.append(answer)
        # A yes stands alone: beside a detail ("no insurance") it would read as a no, so
        # with other answers it is left for the agent to ask again.
        if CONFIRM_REPLY in answers and len(answers) > 1:
            answers.remove(CONFIRM_REPLY)
        reply = " ".join(answers)
        return (self._say(reply) if reply else None) or self._nudge(task)

    def _answer(self, question: str, facts: list[Fact], messages: list[Message]) -> str | None:
        """The user's answer to one question of the agent's (None: nothing to say to it)."""
        lowered = question.lower()
        # Identity is asked in the question itself; a proposal restating an action that
        # mentions a zip code or a name is not asking who the user is.
        consent = asks_confirmation(question if question.rstrip().endswith("?") else question + "?")
        identity = [] if consent else self._identity_asked(facts, lowered)
        new = [i for i in identity if i not in self._revealed]
        if new:
            return self._reveal(facts, new)
        others = [f for f in facts if f.kind != "identity"]
        asked = _words(question)
        hits = [f for f in others if _words(f"{fact_label(f)} {f.text}") & asked]
        held = [f for f in hits if not f.in_opening and (f.goal, f.key) not in self._told]
        if held and not consent:  # a detail the user kept back, now asked for: the current goal's first
            current = min(f.goal for f in held)
            given = _with_group([f for f in held if f.goal == current], others)
            self._told.update((f.goal, f.key) for f in given)
            self._progress()
            return facts_sentence(given, self._rng(messages))
        if identity:
            return identity_sentence([facts[i] for i in identity])
        if not consent and offers_more_help(question):
            return None  # "anything else?" while the goal is unmet: the request is restated
        if consent or (
            not OPEN_QUESTION.search(lowered)
            and (question.rstrip().endswith("?") or any(cue in lowered for cue in CONFIRM_CUES))
        ):
            return CONFIRM_REPLY
        return facts_sentence(hits, self._rng(messages)) if hits else None

    def _reveal(self, facts: list[Fact], new: list[int]) -> str:
        self._revealed.update(new)
        self._progress()
        return identity_sentence([facts[i] for i in new])

    def _say(self, answer: str) -> UserTurn | None:
        """``answer``, unless it was already given since the last progress (then None)."""
        if answer in self._given:
            return None
        self._given.add(answer)
        return UserTurn(answer)

    def _rng(self, messages: list[Message]) -> random.Random:
        """The wording's randomness: the same task at the same turn says the same thing."""
        task_id = self._task.task_id if self._task is not None else ""
        return random.Random(f"user:{task_id}:{len(messages)}")

    def _identity_asked(self, facts: list[Fact], lowered: str) -> list[int]:
        """Indices of the identity facts the text asks for ([] when it asks for none): by
        the usual cues (email; name and zip), or by a fact's own label ("date of birth",
        "ssn last four"), so a service that verifies people otherwise is answered too."""
        identity = [i for i, f in enumerate(facts) if f.kind == "identity"]
        said = _words(lowered)
        named = [i for i in identity if _words(fact_label(facts[i])) <= said]
        if not any(cue in lowered for cue in IDENTITY_CUES):
            return named
        email = [i for i in identity if "email" in facts[i].key]
        name_zip = [i for i in identity if i not in email]
        asked = (email if any(c in lowered for c in EMAIL_CUES) else []) + (
            name_zip if any(c in lowered for c in NAME_ZIP_CUES) else []
        )
        return sorted(set(asked) | set(named)) or identity

    def _progress(self) -> None:
        self._given = set()
        self._nudges = 0

    def _nudge(self, task: Task) -> UserTurn:
        if self._nudges >= self.max_nudges:
            return UserTurn(STOP)
        self._nudges += 1
        return UserTurn(f"Could you please take care of it? {goal_phrase(task)}")


def known_info_line(fact: Fact) -> str:
    """One line of what the simulated user knows, by the fact's text (reference facts are
    descriptions, never internal ids the user does not know)."""
    label = fact_label(fact)
    if fact.kind == "identity":
        return f"- your {'zip code' if fact.key == 'zip' else label}: {fact.text}"
    if fact.kind == "reference":
        return f"- the {label}: {fact.text}"
    return f"- {label}: {fact.text}"


def user_system_prompt(task: Task) -> str:
    """The simulated user's instructions for ``task`` (persona, goal, what it knows and
    does not know, how to behave and when to say a stop token)."""
    scenario = task.user_scenario
    known = "\n".join(known_info_line(f) for f in scenario.known_info) or "- nothing beyond your goal"
    unknown = "\n".join(f"- {item}" for item in scenario.unknown_info) or "- nothing in particular"
    return f"""You are a customer talking to a customer service agent. You are NOT the agent.

Persona: {scenario.persona}
Why you are contacting the agent: {scenario.reason_for_call}

What you know (share each piece only when the agent asks for it or needs it):
{known}

What you do not know (if the agent asks, say you do not know it):
{unknown}

Rules:
- Speak only as the customer, in the first person, one short message at a time.
- Reveal information only when the agent asks for it; do not volunteer everything at once.
- Never invent ids, numbers, names or other details that are not listed above.
- Say what you know in your own sentences ("no insurance, and I won't check any bags"),
  never as "label: value" and never as a code with underscores.
- If the agent asks you to confirm an action that matches your goal, confirm it.
- Do not do the agent's work and do not describe tools or internal systems.
- When your goal is complete, reply with exactly {STOP} and nothing else.
- If the agent transfers you to a human agent, reply with exactly {TRANSFER}.
"""


def user_view(messages: list[Message]) -> list[Message]:
    """The conversation from the user's side: the agent's texts become ``user`` messages,
    the user's own become ``assistant`` ones; tool messages and tool calls are dropped,
    and consecutive messages of one side are joined."""
    roles = {"assistant": "user", "user": "assistant"}
    view: list[Message] = []
    for message in messages:
        role = roles.get(str(message.get("role")))
        content = message.get("content")
        if role is None or not isinstance(content, str) or not content.strip():
            continue
        if view and view[-1]["role"] == role:
            view[-1]["content"] += "\n\n" + content
        else:
            view.append({"role": role, "content": content})
    return view


class LLMUser:
    """A simulated user backed by an ``LLMClient`` (tau2-bench style).

    Each reply is one completion over ``user_system_prompt(task)`` and ``user_view`` of
    the conversation. Guard against stopping early: when the model says ``###STOP###``
    on a write task while no write was done and the goal is not met, the reply is
    replaced by a nudge to complete the request, at most ``max_guard`` times per episode
    (then the stop goes through). An ``LLMError`` propagates for the host to record.
    """

    name = "llm"

    def __init__(
        self,
        client: LLMClient,
        max_guard: int = 2,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> None:
        self.client = client
        self.max_guard = max_guard
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._task: Task | None = None
        self._prompt = ""
        self.guards = 0  # early stops replaced by a nudge in this episode

    def start(self, task: Task) -> str:
        self._task = task
        self._prompt = user_system_prompt(task)
        self.guards = 0
        return task.user_scenario.opening_message

    async def reply(self, messages: list[Message], view: EpisodeView) -> UserTurn:
        task = self._task
        if task is None:
            raise RuntimeError("LLMUser.reply() before start()")
        request: list[dict[str, Any]] = [{"role": "system", "content": self._prompt}, *user_view(messages)]
        response = await self.client.complete(
            request, temperature=self.temperature, max_tokens=self.max_tokens
        )
        content = response.content or ""
        if STOP in content and await self._stops_too_early(task, view):
            self.guards += 1
            content = f"Sorry, before we finish: my request is not done yet. Could you please complete it? {goal_phrase(task)}"
        return UserTurn(content, usage=response.usage, cost_usd=response.cost_usd)

    async def _stops_too_early(self, task: Task, view: EpisodeView) -> bool:
        return (
            self.guards < self.max_guard
            and task.kind == "write"
            and view.writes_done() == 0
            and not await view.goal_met()
        )
