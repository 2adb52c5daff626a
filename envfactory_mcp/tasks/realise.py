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
``calibrate.check_message`` is the judge. The word tables live in ``tasks.phrasings``.
All randomness comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from envfactory_mcp.tasks import phrasings as P
from envfactory_mcp.tasks.addresses import format_us_address
from envfactory_mcp.tasks.model import Fact, GoalKind

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


@dataclass(frozen=True)
class OpeningPlan:
    style: str  # one of tasks.scenario.STYLES
    name: str | None
    identity: list[Fact]  # email; or first_name, last_name, zip: volunteered or not
    goals: list[GoalPlan]  # 1-3, in order
    withheld: bool  # the user holds some details back (they are in no goal's facts)


class _Picker:
    """``random.Random`` choices that avoid repeating a phrase within one message."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def random(self) -> float:
        return self.rng.random()

    def choice(self, options: Sequence[str]) -> str:
        fresh = [o for o in options if o not in self.used]
        chosen = self.rng.choice(fresh or list(options))
        self.used.add(chosen)
        return chosen


@dataclass(frozen=True)
class _Piece:
    """One sentence; ``lower_ok``: its first word may be lower-cased after "Hi," or "Also,"."""

    text: str
    lower_ok: bool


@dataclass
class _Roles:
    """A goal's facts by the part they play in the message."""

    objects: list[Fact] = field(default_factory=list)  # orders, reservations: what the goal acts on
    items: list[Fact] = field(default_factory=list)
    new_items: list[Fact] = field(default_factory=list)
    payments: list[Fact] = field(default_factory=list)
    reasons: list[Fact] = field(default_factory=list)
    addresses: dict[str, dict[str, Fact]] = field(default_factory=dict)  # tool -> part -> fact
    details: list[Fact] = field(default_factory=list)


def realise_opening(plan: OpeningPlan, rng: random.Random) -> tuple[str, list[str]]:
    """The opening message and the calibration operations applied (names such as
    'implicit_reference', 'woven_goals', 'omitted_parameters', 'contingent_goal', 'withheld_information')."""
    voice = P.VOICES.get(plan.style, P.VOICES[P.DEFAULT_STYLE])
    pick = _Picker(rng)
    operations = ["implied_steps"]
    if any(f.kind == "reference" and not _is_raw(f) for g in plan.goals for f in g.facts):
        operations.append("implicit_reference")
    if len(plan.goals) > 1:
        operations.append("woven_goals")
    bodies = [_realise_goal(goal, voice, pick) for goal in plan.goals]
    if any(goal.kind == "contingent" for goal in plan.goals):
        operations.append("contingent_goal")

    greeting = pick.choice(voice.greetings)
    opening: list[_Piece] = [_piece(greeting)] if greeting else []
    if voice.moods and pick.random() < 0.2:
        opening.append(_piece(pick.choice(voice.moods)))
    identity = (
        _identity(plan.identity, pick) if plan.identity and pick.random() < voice.identity_rate else None
    )
    if plan.identity and identity is None:
        operations.append("omitted_parameters")  # the agent has to ask who the user is
    identity_first = identity is not None and pick.random() < 0.5
    names = _names(plan.name)
    if identity_first and identity is not None:
        opening.append(identity)
    elif names and identity is None and pick.random() < 0.15:
        opening.append(_piece(pick.choice(P.NAME_INTROS), **names))
    if len(bodies) > 1 and pick.random() < 0.35:
        count = P.NUMBER_WORDS.get(len(bodies), str(len(bodies)))
        opening.append(_piece(pick.choice(P.ANNOUNCEMENTS), n=count))

    pieces = list(opening)
    for index, body in enumerate(bodies):
        if index > 0:
            body = _lead_in(body, pick)
        pieces.extend(body)
    if plan.withheld:
        operations.append("withheld_information")
        pieces.append(_piece(pick.choice(P.WITHHELD)))
    if identity is not None and not identity_first:
        pieces.append(identity)
    closer = pick.choice(voice.closers)
    signoff = pick.choice(voice.signoffs).format(**names) if names and pick.random() < 0.35 else ""
    if closer and not (_thanks(closer) and _thanks(signoff)):  # not "Thanks. Thanks, Zoe"
        pieces.append(_piece(closer))
    if signoff:
        pieces.append(_Piece(signoff, lower_ok=False))
    return _join(pieces), operations


# ---------------------------------------------------------------- goals


def _realise_goal(goal: GoalPlan, voice: P.Voice, rng: _Picker) -> list[_Piece]:
    roles = _roles(goal.facts)
    if goal.kind == "transfer":
        return _transfer(goal, roles, rng)
    if goal.kind == "contingent":
        return _contingent(goal, roles, voice, rng)
    return _request(goal, roles, voice, rng)


def _request(goal: GoalPlan, roles: _Roles, voice: P.Voice, rng: _Picker) -> list[_Piece]:
    """act, refuse (asked like any request: the user does not know the answer) and ask."""
    do = _intent(goal.intent, rng)
    after: list[_Piece] = []
    do, items_said, old = _work_in_items(do, roles, rng, after)
    topic = None
    for role, facts in _by_role(roles.objects):
        phrase = _join_words([_reference(f, role, rng) for f in facts])
        pattern = _noun_pattern(role)
        if _merged(facts, old):
            continue  # "return the Skateboard I received" already says which order
        if pattern.search(do):
            if topic is None and rng.random() < 0.25:
                topic = phrase  # "Regarding order #W1, I'd like to cancel it."
                do = _replace_first(pattern, do, "it")
            else:
                do = _replace_first(pattern, do, phrase)
        elif items_said:
            many = len(roles.items) > 1
            after.append(_piece(rng.choice(P.ITEMS_FROM_MANY if many else P.ITEMS_FROM_ONE), order=phrase))
        else:
            after.insert(0, _reference_sentence(facts, role, phrase, rng))
    do = _work_in_payment(do, roles, goal, rng, after)
    do = _work_in_address(do, roles, goal, rng, after)
    do = _work_in_new_items(do, roles, items_said, old, rng, after)
    for fact in roles.details:
        after.append(_detail(fact, rng))
    frames = voice.asks if goal.kind == "ask" else voice.requests
    common = P.COMMON_ASKS if goal.kind == "ask" else P.COMMON_REQUESTS
    frame = rng.choice(frames if rng.random() < P.STYLE_SHARE else common)
    main = _piece(frame, do=re.sub(r"\bthe ([a-z ]+?) of it\b", r"its \1", do))  # "its shipping address"
    if topic is not None:
        lead = _piece(rng.choice(P.TOPICS), ref=topic)
        # "About order #W1: could you ..." runs on; "It's about order #W1. Could you ..." does not.
        main = _Piece(lead.text + (main.text if lead.text.endswith(". ") else _lower(main)), lead.lower_ok)
    pieces = _with_reasons(main, roles.reasons, voice, rng, after)
    if len(after) > 1 and rng.random() < 0.25:
        after = after[1:] + after[:1]  # people give details in no fixed order
    return pieces + after


def _transfer(goal: GoalPlan, roles: _Roles, rng: _Picker) -> list[_Piece]:
    if goal.request:
        pieces = [_piece(rng.choice(P.OUT_OF_SCOPE), request=goal.request.strip().rstrip("."))]
        if rng.random() < 0.3:
            pieces.append(_piece(rng.choice(P.OUT_OF_SCOPE_TAIL)))
    else:
        pieces = [_piece(rng.choice(P.HUMAN))]
    return pieces + _plain(roles, rng)


def _contingent(goal: GoalPlan, roles: _Roles, voice: P.Voice, rng: _Picker) -> list[_Piece]:
    """'If it's still pending, cancel it; otherwise I'd like to return the Desk Lamp I received.'"""
    then = _intent(goal.intent, rng)
    other = (goal.otherwise or "tell me what you find").strip().rstrip(".")
    after: list[_Piece] = []
    items_in_other = bool(_item_pattern().search(other)) and not _item_pattern().search(then)
    worked, items_said, old = _work_in_items(other if items_in_other else then, roles, rng, after)
    if items_in_other:
        other = worked
    else:
        then = worked
    obj, then_obj = "", then
    for role, facts in _by_role(roles.objects):
        pattern = _noun_pattern(role)
        phrase = _join_words([_reference(f, role, rng) for f in facts])
        if _merged(facts, old):
            continue
        if not obj and pattern.search(then):
            obj = phrase
            then_obj = _replace_first(pattern, then, phrase)
            then = _replace_first(pattern, then, "it")
        else:
            after.insert(0, _reference_sentence(facts, role, phrase, rng))
    if not obj:
        noun = re.search(r"\b(?:an?|my|the)\s+(\w+)", then)
        obj = f"my {noun.group(1)}" if noun else "it"
    agent_directed = other.split(" ", 1)[0].lower() in P.AGENT_VERBS
    other = rng.choice(P.OTHERWISE_ASK if agent_directed else P.OTHERWISE_ACT).format(x=other)
    condition = (goal.condition or "possible").strip()
    main = _piece(
        rng.choice(P.CONTINGENT), obj=obj, cond=condition, then=then, then_obj=then_obj, other=other
    )
    _work_in_new_items("", roles, items_said, old, rng, after)
    after.extend(_plain(roles, rng, references=False))
    return _with_reasons(main, roles.reasons, voice, rng, after, inline=False) + after


def _plain(roles: _Roles, rng: _Picker, references: bool = True) -> list[_Piece]:
    """Sentences for facts that are not worked into a request: everything for a transfer;
    payments, addresses and details only (``references=False``) for a contingent goal."""
    pieces: list[_Piece] = []
    if references:
        for role, facts in _by_role(roles.objects):
            pieces.append(
                _reference_sentence(facts, role, _join_words([_reference(f, role, rng) for f in facts]), rng)
            )
        if roles.items:
            many = len(roles.items) > 1
            phrase = _join_words([_item(f, rng) for f in roles.items])
            pieces.append(_piece(rng.choice(P.ITEMS_ALONE_MANY if many else P.ITEMS_ALONE_ONE), items=phrase))
        if roles.new_items:
            phrase = _join_words([_item(f, rng) for f in roles.new_items])
            pieces.append(_piece(rng.choice(P.NEW_NO_OLD), new=phrase))
    for fact in roles.payments:
        pieces.append(_piece(rng.choice(P.PAY_METHOD), pay=_payment(fact, rng)))
    for parts in roles.addresses.values():
        pieces.append(_piece(rng.choice(P.ADDRESS_HOME), addr=_address(parts)))
    pieces.extend(_detail(fact, rng) for fact in roles.details)
    return pieces


# ---------------------------------------------------------------- working facts into a request


def _work_in_items(do: str, roles: _Roles, rng: _Picker, after: list[_Piece]) -> tuple[str, bool, str]:
    """Puts the items into the verb phrase ("return items I received" -> "return the
    Skateboard I received"); returns the phrase, whether the items were said, and their text."""
    if not roles.items:
        return do, False, ""
    phrase = _join_words([_item(f, rng) for f in roles.items])
    match = _item_pattern().search(do)
    if match is None:
        many = len(roles.items) > 1
        if not roles.new_items:
            after.append(_piece(rng.choice(P.ITEMS_ALONE_MANY if many else P.ITEMS_ALONE_ONE), items=phrase))
            return do, True, phrase
        return do, False, phrase  # the swap sentence names them
    rest = do[match.end() :]
    rest = re.sub(r"^ of ", " in ", rest)  # "the Desk Lamp in my order", not "of my order"
    return do[: match.start()] + phrase + rest, True, phrase


def _work_in_payment(do: str, roles: _Roles, goal: GoalPlan, rng: _Picker, after: list[_Piece]) -> str:
    for fact in roles.payments:
        pay = _payment(fact, rng)
        method = re.search(
            r"\b(?:an?|another)\s+(?:different\s+|new\s+|other\s+)?(?:payment\s+)?(?:method|card)\b", do
        )
        if method is not None:
            do = do[: method.start()] + pay + do[method.end() :] + (" instead" if rng.random() < 0.4 else "")
            continue
        words = goal.intent.lower()
        if "return" in words or "refund" in words:
            frames = P.PAY_REFUND
        elif roles.new_items or any(v in words.split() for v in P.SWAP_VERBS):
            frames = P.PAY_DIFFERENCE
        else:
            frames = P.PAY_METHOD
        after.append(_piece(rng.choice(frames), pay=pay))
    return do


def _work_in_address(do: str, roles: _Roles, goal: GoalPlan, rng: _Picker, after: list[_Piece]) -> str:
    shipping = bool(re.search(r"\b(ship|shipping|deliver|delivery|order)\b", goal.intent))
    for parts in roles.addresses.values():
        line = _address(parts)
        if do.endswith("address") and rng.random() < 0.5:
            do = f"{do} to {line}"
        else:
            after.append(_piece(rng.choice(P.ADDRESS_SHIP if shipping else P.ADDRESS_HOME), addr=line))
    return do


def _work_in_new_items(
    do: str, roles: _Roles, items_said: bool, old: str, rng: _Picker, after: list[_Piece]
) -> str:
    if not roles.new_items:
        return do
    olds, news = roles.items, roles.new_items
    if len(olds) > 1 and len(olds) == len(news):
        pairs = [
            rng.choice(P.NEW_PAIR).format(new=_item(n, rng), old=_item(o, rng))
            for o, n in zip(olds, news, strict=True)
        ]
        after.append(_piece(rng.choice(P.NEW_PAIRS), pairs=_join_words(pairs, ", and ")))
        return do
    new = _join_words([_new_item(n, olds, rng) for n in news])
    verb = do.split(" ", 1)[0].lower()
    if items_said and verb in P.INLINE_SWAP_VERBS and rng.random() < 0.5:
        return do + rng.choice(P.NEW_INLINE).format(new=new)
    if items_said:
        frames = P.NEW_NO_OLD + P.NEW_WITH_OLD
        after.append(_piece(rng.choice(frames), new=new, old="them" if len(olds) > 1 else "it"))
    else:
        if not old:
            after.append(_piece(rng.choice(P.NEW_NO_OLD), new=new))
        else:
            full = _join_words(
                [_item(n, rng) for n in news]
            )  # the old item is not said yet: no "one in black"
            after.append(_piece(rng.choice(P.NEW_WITH_OLD + P.NEW_NAMED_OLD), new=full, old=old))
    return do


def _with_reasons(
    main: _Piece, reasons: list[Fact], voice: P.Voice, rng: _Picker, after: list[_Piece], inline: bool = True
) -> list[_Piece]:
    if not reasons:
        return [main]
    clauses = [_reason(f, voice, rng) for f in reasons]
    clause = _join_words(clauses)
    plain = not any(
        c.startswith(("the reason", "my reason")) for c in clauses
    )  # "because the reason is" reads badly
    where = rng.random()
    if inline and plain and where < 0.35 and main.text[-1:] in ".?!" and not main.text.endswith(")."):
        tail = rng.choice(P.REASON_AFTER).format(r=clause)
        return [_Piece(main.text[:-1] + tail + main.text[-1], main.lower_ok)]
    if inline and plain and where < 0.6 and main.lower_ok:
        return [_piece(rng.choice(P.REASON_BEFORE), r=clause, s=_lower(main))]
    # Said on its own, a reason follows the request: "It was ordered by mistake." needs its "it".
    after.insert(0, _piece(rng.choice(P.REASON_ALONE if plain else ("{r}.",)), r=clause))
    return [main]


def _lead_in(body: list[_Piece], rng: _Picker) -> list[_Piece]:
    """'Also, I need to ...' for a later goal; a sentence of its own when the first word
    must keep its capital."""
    first = body[0]
    connector = rng.choice(P.CONNECTORS)
    if first.lower_ok:
        return [_Piece(connector + _lower(first), False), *body[1:]]
    if first.text.split(" ", 1)[0] in P.I_WORDS:
        return [_Piece(connector + first.text, False), *body[1:]]
    return [_piece(rng.choice(P.TRANSITIONS)), *body]


# ---------------------------------------------------------------- phrases for facts


def _roles(facts: list[Fact]) -> _Roles:
    roles = _Roles()
    for fact in facts:
        key = fact.key.lower()
        if fact.kind == "reference":
            role = _role(key)
            if key.startswith("new_"):
                roles.new_items.append(fact)
            elif role == "item":
                roles.items.append(fact)
            elif "payment" in key:
                roles.payments.append(fact)
            else:
                roles.objects.append(fact)
            continue
        tool, _, param = key.rpartition(".")
        if param in P.ADDRESS_PARTS and fact.kind == "detail":
            roles.addresses.setdefault(tool, {})[param] = fact
        elif "reason" in param and fact.kind == "detail":
            roles.reasons.append(fact)
        else:
            roles.details.append(fact)
    return roles


def _role(key: str) -> str:
    return re.sub(r"_ids?$", "", key.rpartition(".")[2]).replace("_", " ")


def _intent(intent: str, rng: _Picker) -> str:
    """The goal's intent, or another way to say it."""
    intent = intent.strip().rstrip(".")
    return rng.choice(P.INTENT_PARAPHRASES.get(intent, (intent,)))


def _by_role(facts: list[Fact]) -> list[tuple[str, list[Fact]]]:
    grouped: dict[str, list[Fact]] = {}
    for fact in facts:
        grouped.setdefault(_role(fact.key), []).append(fact)
    return list(grouped.items())


def _is_raw(fact: Fact) -> bool:
    """The user quotes the value itself (an order number), not a description."""
    return fact.text == str(fact.value)


def _safe(phrase: str, fact: Fact) -> str:
    """``phrase`` if it carries every must string of ``fact``, else the fact's own text."""
    lowered = phrase.lower()
    return phrase if all(m.lower() in lowered for m in fact.must) else fact.text


def _reference(fact: Fact, role: str, rng: _Picker) -> str:
    if _is_raw(fact):
        forms = [f"{role} {fact.text}", f"my {role} {fact.text}"]
        if role in P.NUMBERED_ROLES:
            forms.append(f"{role} number {fact.text}")
        return rng.choice(forms)
    described = re.match(
        rf"^the (?P<pre>(?:[\w-]+ )*?){re.escape(role)} with the (?P<contents>.+?)(?P<date> from [A-Z][a-z]+ \d{{1,2}})?$",
        fact.text,
    )
    if described is not None:
        parts = {
            "pre": described["pre"],
            "role": role,
            "contents": described["contents"],
            "date": described["date"] or "",
        }
        return _safe(rng.choice(P.DESCRIBED_OBJECT).format(**parts), fact)
    if fact.text.startswith("the ") and rng.random() < 0.4:
        return _safe("my " + fact.text[4:], fact)
    return fact.text


def _reference_sentence(facts: list[Fact], role: str, phrase: str, rng: _Picker) -> _Piece:
    if len(facts) == 1 and _is_raw(facts[0]):
        frames = P.NUMBERED_REFERENCE if role in P.NUMBERED_ROLES else P.RAW_REFERENCE
        return _piece(rng.choice(frames), role=role, id=facts[0].text)
    return _piece(rng.choice(P.REFERENCE), ref=phrase, role=role)


def _merged(order_facts: list[Fact], items_text: str) -> bool:
    """Whether the items already say which order: every must string of the order's
    description is in the items' text ('the order with the Skateboard' and 'the Skateboard')."""
    lowered = items_text.lower()
    return bool(items_text) and all(
        not _is_raw(f) and all(m.lower() in lowered for m in f.must) for f in order_facts
    )


_DESCRIBED_ITEM = re.compile(r"^the (?P<name>[^()]+?)(?: \((?P<options>[^()]+)\))?$")


def _parse_item(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """'the T-Shirt (color: blue, size: M)' -> ('T-Shirt', [('color', 'blue'), ('size', 'M')])."""
    match = _DESCRIBED_ITEM.match(text)
    if match is None:
        return None
    options = []
    for part in (match["options"] or "").split(", ") if match["options"] else []:
        key, sep, value = part.partition(": ")
        if not sep:
            return None
        options.append((key, value))
    return match["name"], options


def _item(fact: Fact, rng: _Picker) -> str:
    if _is_raw(fact):
        return f"item {fact.text}"
    parsed = _parse_item(fact.text)
    if parsed is None or not parsed[1]:
        return (
            _safe("my " + fact.text[4:], fact)
            if fact.text.startswith("the ") and rng.random() < 0.3
            else fact.text
        )
    name, options = parsed
    forms = [fact.text, f"the {name} with {_options(options)}"]
    colors = [v for k, v in options if k in ("color", "colour")]
    if colors:
        rest = [(k, v) for k, v in options if k not in ("color", "colour")]
        forms.append(f"the {colors[0]} {name}" + (f" with {_options(rest)}" if rest else ""))
    return _safe(rng.choice(forms), fact)


def _new_item(fact: Fact, olds: list[Fact], rng: _Picker) -> str:
    """The new item; 'one in black' when it is another variant of the one item being swapped."""
    parsed = _parse_item(fact.text)
    old_names = [p[0] for p in (_parse_item(o.text) for o in olds) if p is not None]
    if parsed is None or not parsed[1] or old_names != [parsed[0]] or rng.random() < 0.4:
        return _item(fact, rng)
    name, options = parsed
    if len(options) == 1 and options[0][0] in ("color", "colour"):
        forms = [f"one in {options[0][1]}", f"the {options[0][1]} one"]
    else:
        forms = [f"one with {_options(options)}", f"the one with {_options(options)}"]
    phrase = rng.choice(forms)
    # The name is said with the old item; the option values must be said here.
    return phrase if all(m.lower() in (phrase + " " + name).lower() for m in fact.must) else fact.text


def _options(options: list[tuple[str, str]]) -> str:
    return _join_words([f"{k} {v}" for k, v in options])


def _payment(fact: Fact, rng: _Picker) -> str:
    """'my Amex credit card' from must ['credit card', 'amex'], not 'the credit card amex payment method'."""
    if _is_raw(fact):
        return f"payment method {fact.text}"
    kind = brand = digits = None
    for must in fact.must:
        low = must.lower()
        if low in P.PAYMENT_KINDS:
            kind = low
        elif low in P.CARD_BRANDS:
            brand = low
        elif re.fullmatch(r"\d{4}", must):
            digits = must
        else:
            return fact.text
    if kind is None:
        return fact.text
    words = ([P.CARD_BRANDS[brand]] if brand else []) + [P.PAYMENT_KINDS[kind]]
    phrase = ("the " if rng.random() < 0.3 else "my ") + " ".join(words)
    if digits:
        phrase += rng.choice([" ending in ", " that ends in "]) + digits
    return _safe(phrase, fact)


def _address(parts: dict[str, Fact]) -> str:
    text = {k: f.text for k, f in parts.items()}
    return format_us_address(**{k: text.get(k, "") for k in P.ADDRESS_PARTS})


def _reason(fact: Fact, voice: P.Voice, rng: _Picker) -> str:
    value = fact.text.strip().rstrip(".")
    first = value.split(" ", 1)[0].lower()
    if first in ("no", "not", "never") or value.lower().startswith("no longer"):
        clause = rng.choice(P.REASON_NEGATIVE)
    elif first.endswith("ed") or first in ("bought", "sent", "got", "made"):
        clause = rng.choice(P.REASON_PARTICIPLE)
    else:
        return rng.choice(P.REASON_OTHER).format(v=value)
    hedged = voice.hedges and clause.startswith(("it's {v}", "it is", "it was {v}")) and rng.random() < 0.5
    return (rng.choice(voice.hedges) if hedged else "") + clause.format(v=value)


def _detail(fact: Fact, rng: _Picker) -> _Piece:
    words = fact.key.rpartition(".")[2].replace("_", " ")
    return _piece(rng.choice(P.DETAILS), words=words, text=fact.text)


def _identity(facts: list[Fact], rng: _Picker) -> _Piece:
    by_key = {f.key: f.text for f in facts}
    if set(by_key) == {"email"}:
        return _piece(rng.choice(P.EMAIL), email=by_key["email"])
    if set(by_key) == {"first_name", "last_name", "zip"}:
        return _piece(
            rng.choice(P.NAME_ZIP), first=by_key["first_name"], last=by_key["last_name"], zip=by_key["zip"]
        )
    sentences = [_piece(P.IDENTITY[0], words=f.key.replace("_", " "), text=f.text).text for f in facts]
    return _Piece(" ".join(sentences), True)


# ---------------------------------------------------------------- words and sentences


def _noun_pattern(role: str) -> re.Pattern[str]:
    return re.compile(rf"\b(?:an?|my|the|this|that|some)\s+{re.escape(role)}s?\b")


def _replace_first(pattern: re.Pattern[str], text: str, phrase: str) -> str:
    """``text`` with the first match of ``pattern`` replaced by ``phrase`` taken literally."""
    match = pattern.search(text)
    return text if match is None else text[: match.start()] + phrase + text[match.end() :]


def _item_pattern() -> re.Pattern[str]:
    return re.compile(r"\b(?:(?:the|my|some|an?)\s+)?items?\b")


def _join_words(words: list[str], last: str = " and ") -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + last + words[-1]


def _names(name: str | None) -> dict[str, str]:
    if not name or not name.strip():
        return {}
    return {"first": name.split()[0], "full": name.strip()}


def _id_like(word: str) -> bool:
    return any(c.isdigit() or c in "@_#" for c in word)


def _piece(template: str, **fields: str) -> _Piece:
    """A sentence from a frame, its first letter capitalised (unless it starts with a value
    such as an email, which keeps its case)."""
    text = template.format(**fields)
    first = text.split(" ", 1)[0]
    if template.startswith("{"):
        lower_ok = text[:1].islower() and not _id_like(first)
    else:
        lower_ok = first.strip(",.:;!?") not in P.I_WORDS
    if text[:1].islower() and not _id_like(first):
        text = text[0].upper() + text[1:]
    return _Piece(text, lower_ok)


def _thanks(text: str) -> bool:
    return text.lower().startswith(("thank", "thx", "ty"))


def _lower(piece: _Piece) -> str:
    return piece.text[0].lower() + piece.text[1:] if piece.lower_ok else piece.text


def _join(pieces: list[_Piece]) -> str:
    """One paragraph; after a greeting that ends in a comma the next sentence runs on in
    lower case ("Hi, could you ...") or the comma becomes a full stop."""
    texts: list[str] = []
    for piece in pieces:
        if texts and texts[-1].endswith(","):
            if piece.lower_ok:
                texts.append(_lower(piece))
                continue
            if piece.text.split(" ", 1)[0].strip(",.:;!?") not in P.I_WORDS:
                texts[-1] = texts[-1][:-1] + "."
        texts.append(piece.text)
    return " ".join(t for t in texts if t)
