"""The offline realiser: an opening message a real customer could have written, from a plan.

A plan says who writes (persona style, name, identity), what they came for (1-3 goals of
five kinds: act, ask, refuse, transfer, contingent) and which facts each goal's words must
carry. The realiser works the references into the request ("cancel order #W0012345",
"return the Skateboard I received"), says reasons as reasons ("since it was ordered by
mistake"), marks the new items of a swap as the new ones, writes an address in US order,
and varies everything else: greeting or none, identity first, last or not at all, frames
by persona style, reasons before or after, questions or statements, sign-offs.

Every phrasing of a fact is checked against the fact's ``must`` strings before it is used
(otherwise the fact's own text is used), so the message carries every fact by construction;
``calibrate.check_message`` is the judge. The word tables live in ``tasks.phrasings``, the
wording of single facts and sentences in ``tasks.wording``.
All randomness comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace

from envfactory_mcp.tasks import phrasings as P
from envfactory_mcp.tasks.model import Fact, GoalKind
from envfactory_mcp.tasks.values import words_in
from envfactory_mcp.tasks.wording import (
    Picker,
    Roles,
    Sentence,
    by_role,
    covers,
    is_raw,
    is_thanks,
    item_pattern,
    join_words,
    names_of,
    noun_pattern,
    own_intent,
    paragraph,
    plain_item,
    reference_sentence,
    replace_first,
    run_on,
    say_address,
    say_details,
    say_identity,
    say_intent,
    say_item,
    say_new_item,
    say_payment,
    say_reason,
    say_reference,
    sentence,
    situation,
    sort_roles,
)

__all__ = ["GoalKind", "GoalPlan", "OpeningPlan", "realise_opening"]


@dataclass(frozen=True)
class GoalPlan:
    kind: GoalKind
    intent: str  # the goal tool's user phrase: "cancel an order", "check on my order"
    tool: str  # the goal tool; for "refuse" the requested write tool, for "transfer" the transfer tool
    facts: list[Fact]  # facts the opening must carry for this goal (all in_opening)
    condition: str | None = None  # "contingent": the state the user hopes for ("pending")
    otherwise: str | None = None  # "contingent": the fallback as the user puts it
    request: str | None = None  # "transfer": the out-of-scope request, or None to ask for a human
    ask: bool = False  # "transfer": a request is followed by an ask for a person, always


@dataclass(frozen=True)
class OpeningPlan:
    style: str  # one of tasks.scenario.STYLES
    name: str | None
    identity: list[Fact]  # email; or first_name, last_name, zip: volunteered or not
    goals: list[GoalPlan]  # 1-3, in order
    withheld: bool  # the user holds some details back (they are in no goal's facts)
    say_identity: bool = False  # identity always in the message (an evaluation prompt has one turn)
    plain_heads: bool = False  # details named by one word only: no field's words in a row


def realise_opening(
    plan: OpeningPlan, rng: random.Random, wants: list[str] | None = None
) -> tuple[str, list[str]]:
    """The opening message and the calibration operations applied (names such as
    'implicit_reference', 'woven_goals', 'omitted_parameters', 'contingent_goal', 'withheld_information').
    ``wants``: what the user needs to be told, in words ("the carrier", "my account number"),
    asked as part of a need (an evaluation prompt's answer)."""
    voice = P.VOICES.get(plan.style, P.VOICES[P.DEFAULT_STYLE])
    pick = Picker(rng, plain_heads=plan.plain_heads)
    operations = ["implied_steps"]
    if any(f.kind == "reference" and not is_raw(f) for g in plan.goals for f in g.facts):
        operations.append("implicit_reference")
    if len(plan.goals) > 1:
        operations.append("woven_goals")
    bodies = [_realise_goal(goal, voice, pick) for goal in plan.goals]
    if any(goal.kind == "contingent" for goal in plan.goals):
        operations.append("contingent_goal")

    greeting = _greeting(voice, pick)
    opening: list[Sentence] = [sentence(greeting)] if greeting else []
    if voice.moods and pick.random() < 0.2:
        opening.append(sentence(pick.choice(voice.moods)))
    identity = (
        say_identity(plan.identity, pick)
        if plan.identity and (plan.say_identity or pick.random() < voice.identity_rate)
        else None
    )
    if plan.identity and identity is None:
        operations.append("omitted_parameters")  # the agent has to ask who the user is
    identity_first = identity is not None and pick.random() < 0.5
    # A name that is part of the identity the user holds back stays out of intros and sign-offs too.
    named = identity is None and any(f.key in ("first_name", "last_name") for f in plan.identity)
    names = {} if named else names_of(plan.name)
    if identity_first and identity is not None:
        opening.append(identity)
    elif names and identity is None and pick.random() < 0.15:
        opening.append(sentence(pick.choice(P.NAME_INTROS), **names))
    if len(bodies) > 1 and pick.random() < P.ANNOUNCE_SHARE:
        count = P.NUMBER_WORDS.get(len(bodies), str(len(bodies)))
        opening.append(sentence(pick.choice(P.ANNOUNCEMENTS), n=count))

    pieces = list(opening)
    for index, body in enumerate(bodies):
        if index > 0:
            body = _lead_in(body, pick)
        pieces.extend(body)
    if wants:
        pieces.append(sentence(pick.choice(P.WANTS), x=join_words(wants)))
    if plan.withheld:
        operations.append("withheld_information")
        if pick.random() < P.WITHHELD_SHARE:
            pieces.append(sentence(pick.choice(P.WITHHELD)))
    if identity is not None and not identity_first:
        pieces.append(identity)
    closer = _closer(voice, pick)
    signoff = pick.choice(voice.signoffs).format(**names) if names and pick.random() < 0.2 else ""
    if closer and not (is_thanks(closer) and is_thanks(signoff)):  # not "Thanks. Thanks, Zoe"
        pieces.append(sentence(closer))
    if signoff:
        pieces.append(Sentence(signoff, lower_ok=False))
    return paragraph(pieces), operations


def _greeting(voice: P.Voice, rng: Picker) -> str:
    """The voice's greeting, a short one running on into the message ("Hi, ..."); a greeting
    with a sentence of its own ("Hello, I'm a bit lost.") now and then, else its salutation."""
    greeting = rng.choice(voice.greetings)
    words = greeting.split()
    if greeting and len(words) <= 3 and greeting[-1] in ".!":
        return greeting[:-1] + ","
    if len(words) > 3:
        head, _, rest = greeting.partition(" ")
        if rng.random() < 0.6 or head[-1:] not in ",.!" or not rest:
            first = re.split(r"(?<=[,.!])\s", greeting, maxsplit=1)[0]
            return first if first.endswith(",") else first.rstrip(".!") + ","
        # "Hello. I'd like to make sure ..." as one sentence: "Hello, I'd like to make sure ..."
        rest = rest if rest.split(" ", 1)[0] in P.I_WORDS else rest[0].lower() + rest[1:]
        return head.rstrip(",.!") + ", " + rest
    return greeting


def _closer(voice: P.Voice, rng: Picker) -> str:
    """The voice's own closer, a thanks with a tail, or none."""
    roll = rng.random()
    if roll >= P.CLOSER_SHARE:
        return ""
    if roll < P.CLOSER_SHARE / 2:
        return rng.choice(voice.closers)
    text = rng.choice(P.THANKS) + rng.choice(P.THANKS_TAILS)
    return text[0].upper() + text[1:] + ("!" if voice.moods and rng.random() < 0.3 else ".")


# ---------------------------------------------------------------- goals


def _realise_goal(goal: GoalPlan, voice: P.Voice, rng: Picker) -> list[Sentence]:
    goal = replace(goal, intent=own_intent(goal.intent, goal.tool))
    roles = sort_roles(goal.facts)
    if goal.kind == "transfer":
        return _transfer(goal, roles, rng)
    if goal.kind == "contingent":
        return _contingent(goal, roles, voice, rng)
    return _request(goal, roles, voice, rng)


_TOPIC = "\x00"  # where the request says "it" for an order named up front


def _request(goal: GoalPlan, roles: Roles, voice: P.Voice, rng: Picker) -> list[Sentence]:
    """act, refuse (asked like any request: the user does not know the answer) and ask."""
    do = say_intent(goal.intent, rng)
    after: list[Sentence] = []
    do, items_said, old = _work_in_items(do, roles, rng, after)
    topic = None
    for role, facts in by_role(roles.objects):
        phrase = join_words([say_reference(f, role, rng) for f in facts])
        pattern = noun_pattern(role)
        if covers(facts, old):
            continue  # "return the Skateboard I received" already says which order
        if pattern.search(do):
            if topic is None and rng.random() < 0.25:
                topic = phrase  # "Regarding order #W1, I'd like to cancel it."
                do = replace_first(pattern, do, _TOPIC)
            else:
                do = replace_first(pattern, do, phrase)
        elif items_said:
            many = len(roles.items) > 1
            after.append(sentence(rng.choice(P.ITEMS_FROM_MANY if many else P.ITEMS_FROM_ONE), order=phrase))
        elif rng.random() < P.REFERENCE_TAIL_SHARE:  # "buy extra data for my line 3053112248"
            do = do + rng.choice(P.REFERENCE_TAILS).format(ref=phrase)
        else:
            after.insert(0, reference_sentence(facts, role, phrase, rng))
    do = _work_in_payment(do, roles, goal, rng, after)
    do = _work_in_address(do, roles, goal, rng, after)
    do = _work_in_new_items(do, roles, items_said, old, rng, after)
    after.extend(say_details(roles.details, rng))
    frames = voice.asks if goal.kind == "ask" else voice.requests
    common = P.COMMON_ASKS if goal.kind == "ask" else P.COMMON_REQUESTS
    frame = rng.choice(frames if rng.random() < P.STYLE_SHARE else common)
    main = sentence(frame, do=_its(do.replace(_TOPIC, "it")))
    if topic is not None:
        lead = sentence(rng.choice(P.TOPICS), ref=topic)
        if lead.text.endswith(". "):  # "It's about order #W1. Could you ..."
            main = Sentence(lead.text + main.text, lead.lower_ok)
        elif main.lower_ok or main.text.startswith(P.I_WORDS):  # "About order #W1: could you ..."
            main = Sentence(lead.text + run_on(main), lead.lower_ok)
        else:  # "So here's the thing" cannot follow a lead-in: name the order in the request
            main = sentence(frame, do=do.replace(_TOPIC, topic))
            topic = None
    pieces = _with_reasons(main, roles.reasons, voice, rng, after, before=topic is None)
    if len(after) > 1 and rng.random() < 0.25:
        after = after[1:] + after[:1]  # people give details in no fixed order
    why = situation(goal.intent, roles, rng)
    if why is not None and (why.text in {p.text for p in after} or rng.random() < P.SITUATION_SHARE):
        after = [p for p in after if p.text != why.text]
        pieces = [why, *pieces]
    return pieces + after


def _transfer(goal: GoalPlan, roles: Roles, rng: Picker) -> list[Sentence]:
    if goal.request:
        request = words_in(goal.request.strip().rstrip("."))
        pieces = [sentence(rng.choice(P.OUT_OF_SCOPE), request=request)]
        if rng.random() < 0.3 or goal.ask:
            pieces.append(sentence(rng.choice(P.OUT_OF_SCOPE_TAIL)))
    else:
        pieces = [sentence(rng.choice(P.HUMAN))]
    return pieces + _plain(roles, rng)


def _contingent(goal: GoalPlan, roles: Roles, voice: P.Voice, rng: Picker) -> list[Sentence]:
    """'If it's still pending, cancel it; otherwise I'd like to return the Desk Lamp I received.'"""
    then = say_intent(goal.intent, rng)
    other = say_intent(
        re.sub(r"^(?:just|please|simply) ", "", (goal.otherwise or "tell me what you find")), rng
    )
    after: list[Sentence] = []
    items_in_other = bool(item_pattern().search(other)) and not item_pattern().search(then)
    worked, items_said, old = _work_in_items(other if items_in_other else then, roles, rng, after)
    bare_then = then  # before the items are worked in: its own noun says what "it" is
    if items_in_other:
        other = worked
    else:
        then = worked
    obj, then_obj = "", then
    for role, facts in by_role(roles.objects):
        pattern = noun_pattern(role)
        phrase = join_words([say_reference(f, role, rng) for f in facts])
        # No merging with the items here: they belong to one branch, the order to both.
        if obj:
            after.insert(0, reference_sentence(facts, role, phrase, rng))
            continue
        obj = phrase
        if pattern.search(then):
            then_obj = replace_first(pattern, then, phrase)
            then = replace_first(pattern, then, "it")
        other = replace_first(pattern, other, "it")  # "otherwise change the shipping address of it"
    if not obj:
        noun = re.search(r"\b(?:an?|my|the|this)\s+(\w+)", bare_then)
        obj = f"my {noun.group(1)}" if noun and not items_said else "it"
        if noun and not items_said:
            then_obj = re.sub(r"\b(?:an?|this)\s+(?=\w)", "my ", then, count=1)
            then = replace_first(noun_pattern(noun.group(1)), then, "it")
    agent_directed = other.split(" ", 1)[0].lower() in P.AGENT_VERBS
    other = rng.choice(P.OTHERWISE_ASK if agent_directed else P.OTHERWISE_ACT).format(x=other)
    condition = (goal.condition or "possible").strip()
    reached = condition.split(" ")[-1].endswith("ed")  # "delivered": hoped to have happened already
    frames: tuple[str, ...] = P.CONTINGENT_REACHED if reached else P.CONTINGENT
    if obj not in then_obj:  # the frames that say the object only through {then_obj} would drop it
        frames = tuple(f for f in frames if "{obj}" in f)
    main = sentence(
        rng.choice(frames),
        obj=obj,
        cond=condition,
        then=_its(then),
        then_obj=_its(then_obj),
        other=_its(other),
    )
    _work_in_new_items("", roles, items_said, old, rng, after)
    _work_in_payment("", roles, goal, rng, after)  # "please send the refund to my gift card"
    after.extend(_plain(roles, rng, references=False))
    return _with_reasons(main, roles.reasons, voice, rng, after, inline=False) + after


def _its(text: str) -> str:
    """'change the shipping address of it' -> 'change its shipping address'."""
    return re.sub(r"\bthe ([a-z ]+?) of it\b", r"its \1", text)


def _plain(roles: Roles, rng: Picker, references: bool = True) -> list[Sentence]:
    """Sentences for facts that are not worked into a request: everything for a transfer;
    addresses and details only (``references=False``) for a contingent goal."""
    pieces: list[Sentence] = []
    if references:
        for role, facts in by_role(roles.objects):
            pieces.append(
                reference_sentence(facts, role, join_words([say_reference(f, role, rng) for f in facts]), rng)
            )
        if roles.items:
            many = len(roles.items) > 1
            phrase = join_words([say_item(f, rng) for f in roles.items])
            pieces.append(
                sentence(rng.choice(P.ITEMS_ALONE_MANY if many else P.ITEMS_ALONE_ONE), items=phrase)
            )
        if roles.new_items:
            phrase = join_words([say_item(f, rng) for f in roles.new_items])
            pieces.append(sentence(rng.choice(P.NEW_NO_OLD), new=phrase))
        for fact in roles.payments:
            pieces.append(sentence(rng.choice(P.PAY_METHOD), pay=say_payment(fact, rng)))
    for parts in roles.addresses.values():
        pieces.append(sentence(rng.choice(P.ADDRESS_HOME), addr=say_address(parts)))
    pieces.extend(say_details(roles.details, rng))
    return pieces


# ---------------------------------------------------------------- working facts into a request


def _work_in_items(do: str, roles: Roles, rng: Picker, after: list[Sentence]) -> tuple[str, bool, str]:
    """Puts the items into the verb phrase ("return items I received" -> "return the
    Skateboard I received"); returns the phrase, whether the items were said, and their text."""
    if not roles.items:
        return do, False, ""
    phrase = join_words([say_item(f, rng) for f in roles.items])
    match = item_pattern().search(do)
    if match is None:
        many = len(roles.items) > 1
        if not roles.new_items:
            after.append(
                sentence(rng.choice(P.ITEMS_ALONE_MANY if many else P.ITEMS_ALONE_ONE), items=phrase)
            )
            return do, True, phrase
        return do, False, phrase  # the swap sentence names them
    rest = do[match.end() :]
    rest = re.sub(r"^ of ", " in ", rest)  # "the Desk Lamp in my order", not "of my order"
    if re.search(r"\b(\w+) \1\b", phrase[-12:] + rest[:12]):  # "length 34 in in my order"
        phrase = join_words([plain_item(f) for f in roles.items])
    return do[: match.start()] + phrase + rest, True, phrase


def _work_in_payment(do: str, roles: Roles, goal: GoalPlan, rng: Picker, after: list[Sentence]) -> str:
    for fact in roles.payments:
        pay = say_payment(fact, rng)
        method = re.search(
            r"\b(?:an?|another)\s+(?:different\s+|new\s+|other\s+)?(?:payment\s+)?(?:method|card)\b", do
        )
        if method is not None:
            do = do[: method.start()] + pay + do[method.end() :] + (" instead" if rng.random() < 0.4 else "")
            continue
        words = goal.intent.lower()
        frames: tuple[str, ...]
        if "return" in words or "refund" in words:
            frames = P.PAY_REFUND
        elif roles.new_items or any(v in words.split() for v in P.SWAP_VERBS):
            frames = P.PAY_DIFFERENCE
        else:
            frames = P.PAY_METHOD
        after.append(sentence(rng.choice(frames), pay=pay))
    return do


def _work_in_address(do: str, roles: Roles, goal: GoalPlan, rng: Picker, after: list[Sentence]) -> str:
    shipping = bool(re.search(r"\b(ship|shipping|deliver|delivery|order)\b", goal.intent))
    for parts in roles.addresses.values():
        line = say_address(parts)
        elsewhere = re.search(r"\b(?:a different|another|a new) address$", do)
        if elsewhere is not None:  # "send my order to a different address" -> "... to 1743 Chestnut St, ..."
            do = do[: elsewhere.start()] + line
        elif do.endswith("address") and rng.random() < 0.5:
            do = f"{do} to {line}"
        else:
            after.append(sentence(rng.choice(P.ADDRESS_SHIP if shipping else P.ADDRESS_HOME), addr=line))
    return do


def _work_in_new_items(
    do: str, roles: Roles, items_said: bool, old: str, rng: Picker, after: list[Sentence]
) -> str:
    if not roles.new_items:
        return do
    olds, news = roles.items, roles.new_items
    if len(olds) > 1 and len(olds) == len(news):
        pairs = [
            rng.choice(P.NEW_PAIR).format(new=say_item(n, rng), old=say_item(o, rng))
            for o, n in zip(olds, news, strict=True)
        ]
        after.append(sentence(rng.choice(P.NEW_PAIRS), pairs=join_words(pairs, ", and ")))
        return do
    new = join_words([say_new_item(n, olds, rng) for n in news])
    verb = do.split(" ", 1)[0].lower()
    if items_said and verb in P.INLINE_SWAP_VERBS and rng.random() < 0.5:
        return do + rng.choice(P.NEW_INLINE).format(new=new)
    if items_said:
        frames = P.NEW_NO_OLD + P.NEW_WITH_OLD
        after.append(sentence(rng.choice(frames), new=new, old="them" if len(olds) > 1 else "it"))
    else:
        if not old:
            after.append(sentence(rng.choice(P.NEW_NO_OLD), new=new))
        else:
            full = join_words(
                [say_item(n, rng) for n in news]
            )  # the old item is not said yet: no "one in black"
            after.append(sentence(rng.choice(P.NEW_WITH_OLD + P.NEW_NAMED_OLD), new=full, old=old))
    return do


def _with_reasons(
    main: Sentence,
    reasons: list[Fact],
    voice: P.Voice,
    rng: Picker,
    after: list[Sentence],
    inline: bool = True,
    before: bool = True,
) -> list[Sentence]:
    if not reasons:
        return [main]
    clauses = [say_reason(f, voice, rng) for f in reasons]
    clause = join_words(clauses)
    plain = not any(
        c.startswith(("the reason", "my reason")) for c in clauses
    )  # "because the reason is" reads badly
    where = rng.random()
    if inline and plain and where < 0.35 and main.text[-1:] in ".?!" and not main.text.endswith(")."):
        tail = rng.choice(P.REASON_AFTER).format(r=clause)
        return [Sentence(main.text[:-1] + tail + main.text[-1], main.lower_ok)]
    if inline and before and plain and where < 0.6 and (main.lower_ok or main.text.startswith(P.I_WORDS)):
        return [sentence(rng.choice(P.REASON_BEFORE), r=clause, s=run_on(main))]
    # Said on its own, a reason follows the request: "It was ordered by mistake." needs its "it".
    after.insert(0, sentence(rng.choice(P.REASON_ALONE if plain else ("{r}.",)), r=clause))
    return [main]


def _lead_in(body: list[Sentence], rng: Picker) -> list[Sentence]:
    """'Also, I need to ...' for a later goal; a sentence of its own when the first word
    must keep its capital."""
    first = body[0]
    connector = rng.choice(P.CONNECTORS)
    if first.lower_ok:
        return [Sentence(connector + run_on(first), False), *body[1:]]
    if first.text.split(" ", 1)[0] in P.I_WORDS:
        return [Sentence(connector + first.text, False), *body[1:]]
    return [sentence(rng.choice(P.TRANSITIONS)), *body]
