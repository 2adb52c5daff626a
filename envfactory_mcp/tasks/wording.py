"""How one fact, or one sentence, of an opening message is worded (for ``tasks.realise``).

A fact is said in one of several ways, each checked against the fact's ``must`` strings
before it is used (``carrying``): an order as "order #W0012345", "my order with the Desk
Lamp" or "the order containing the Desk Lamp"; an item as "the T-Shirt (color: blue)",
"the blue T-Shirt"; the new item of a swap of the same product as "one in black"; a
payment method as "my Mastercard credit card"; an address as one line in US order; a
reason as a clause ("it was ordered by mistake"). ``Sentence`` keeps whether its first
word may be lower-cased when it runs on after "Hi," or "Also,"; ``paragraph`` joins them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from envfactory_mcp.tasks import phrasings as P
from envfactory_mcp.tasks.addresses import format_us_address
from envfactory_mcp.tasks.model import Fact


class Picker:
    """``random.Random`` choices that avoid repeating a phrase within one message."""

    def __init__(self, rng: random.Random, plain_heads: bool = False) -> None:
        self.rng = rng
        self.used: set[str] = set()
        # Details named by their last word only ("a size of 6", not "team size 6"): a prompt
        # that must name no field of its servers, even in words.
        self.plain_heads = plain_heads

    def random(self) -> float:
        return self.rng.random()

    def choice(self, options: Sequence[str]) -> str:
        fresh = [o for o in options if o not in self.used]
        chosen = self.rng.choice(fresh or list(options))
        self.used.add(chosen)
        return chosen


@dataclass(frozen=True)
class Sentence:
    """One sentence; ``lower_ok``: its first word may be lower-cased after "Hi," or "Also,"."""

    text: str
    lower_ok: bool


@dataclass
class Roles:
    """A goal's facts by the part they play in the message."""

    objects: list[Fact] = field(default_factory=list)  # orders, reservations: what the goal acts on
    items: list[Fact] = field(default_factory=list)
    new_items: list[Fact] = field(default_factory=list)
    payments: list[Fact] = field(default_factory=list)
    reasons: list[Fact] = field(default_factory=list)
    addresses: dict[str, dict[str, Fact]] = field(default_factory=dict)  # tool -> part -> fact
    details: list[Fact] = field(default_factory=list)


def sort_roles(facts: list[Fact]) -> Roles:
    """The facts of one goal by role: keys ``new_*`` are new items, ``item_ids`` items, ``*payment*``
    payment methods, other references objects; ``<tool>.address1`` ... address parts,
    ``<tool>.*reason*`` reasons, everything else details."""
    roles = Roles()
    for fact in facts:
        key = fact.key.lower()
        if fact.kind == "reference":
            role = role_of(key)
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


def role_of(key: str) -> str:
    """'order_id' -> 'order', 'item_ids' -> 'item', 'tool.flight_number' -> 'flight number'."""
    return re.sub(r"_ids?$", "", key.rpartition(".")[2]).replace("_", " ")


def say_intent(intent: str, rng: Picker) -> str:
    """The goal's intent, or another way to say it; an intent that lists fields ("update a
    skier's height cm and weight kg and ability") says "details" instead."""
    intent = clean_intent(intent.strip().rstrip("."))
    if intent in P.INTENT_PARAPHRASES:
        return rng.choice(P.INTENT_PARAPHRASES[intent])
    words = intent.split(" ")
    for size in (2, 1):
        verb = " ".join(words[:size]).lower()
        if verb in P.VERB_SYNONYMS and len(words) > size and rng.random() < P.VERB_SYNONYM_SHARE:
            return " ".join([rng.choice(P.VERB_SYNONYMS[verb]), *words[size:]])
    return intent


def own_intent(intent: str, tool: str) -> str:
    """An intent that is its tool's name in words ("get shipment for invoice") said as the
    user's own ("check on my shipment for my invoice"): no message names a tool."""
    if intent.lower().strip() != tool.replace("_", " ").lower():
        return intent
    words = intent.split()
    verb, rest = words[0].lower(), words[1:]
    if rest and rest[0] in ("up", "in", "out", "off", "on"):
        verb, rest = f"{verb} {rest[0]}", rest[1:]
    if "by" in rest:  # "find customer by email": how is the agent's business
        rest = rest[: rest.index("by")]
    rest = [w for w in rest if w not in ("id", "ids")]
    if rest and rest[0] in ("a", "an", "the", "my"):
        rest = rest[1:]
    verb = P.LOOKUP_VERBS.get(verb, verb)
    if not rest:
        return verb
    # "shipment for invoice" -> "my shipment for my invoice"
    phrase = " ".join(rest)
    phrase = re.sub(r"\b(for|of|on|from|to|with) (?!my\b|a\b|an\b|the\b)", r"\1 my ", phrase)
    return f"{verb} my {phrase}"


def clean_intent(intent: str) -> str:
    """An intent as a person says it: a list of fields after a possessive becomes "details"
    ("update a skier's details"), a phrasal verb keeps its particle after "it"."""
    match = re.search(r"'s ([a-z ]+)$", intent)
    if match is not None and (
        match.group(1).count(" and ") >= 1 or any(w in P.UNITS for w in match.group(1).split())
    ):
        intent = intent[: match.start()] + "'s details"
    return intent


def phrasal(text: str) -> str:
    """'pick up it' -> 'pick it up'."""
    return re.sub(
        r"\b(pick|turn|check|set|sign|log|hand|give|take|put|fill|drop|call|switch|bring|send|top|mark|"
        r"clear|close|open|hold|lock|back|shut|pay|cash|write|cross|print|sort|track|look|bring)"
        r" (up|out|in|off|on|down|back|over) it(?=$|[.,;:?!)]| (?:if|for|when|please|today|instead|now|as|and|so)\b)",
        r"\1 it \2",
        text,
    )


def by_role(facts: list[Fact]) -> list[tuple[str, list[Fact]]]:
    """The facts grouped by role, in first-seen order."""
    grouped: dict[str, list[Fact]] = {}
    for fact in facts:
        grouped.setdefault(role_of(fact.key), []).append(fact)
    return list(grouped.items())


def is_raw(fact: Fact) -> bool:
    """The user quotes the value itself (an order number), not a description."""
    return fact.text == str(fact.value)


def carrying(phrase: str, fact: Fact) -> str:
    """``phrase`` if it carries every must string of ``fact``, else the fact's own text
    (its options without the form's colons: "(color blue)", not "(color: blue)")."""
    lowered = phrase.lower()
    return phrase if all(m.lower() in lowered for m in fact.must) else unform(fact.text)


def unform(text: str) -> str:
    """'the Desk Lamp (color: blue, size: M)' -> 'the Desk Lamp (color blue, size M)'."""
    return re.sub(r"(?<=[(,] )?\b([A-Za-z][\w ]{0,24}): (?=[^()]*\))", r"\1 ", text)


def say_reference(fact: Fact, role: str, rng: Picker) -> str:
    """A noun phrase for a reference: 'order #W1', 'my order number #W1', 'the order containing
    the Desk Lamp'."""
    if is_raw(fact):
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
        return carrying(rng.choice(P.DESCRIBED_OBJECT).format(**parts), fact)
    if fact.text.startswith("the ") and rng.random() < 0.4:
        return carrying("my " + unform(fact.text[4:]), fact)
    return unform(fact.text)


def reference_sentence(facts: list[Fact], role: str, phrase: str, rng: Picker) -> Sentence:
    """A sentence of its own for references the request could not take in: 'The order number
    is #W1.', 'It's about the order with the Desk Lamp.'."""
    if len(facts) == 1 and is_raw(facts[0]):
        frames = P.NUMBERED_REFERENCE if role in P.NUMBERED_ROLES else P.RAW_REFERENCE
        return sentence(rng.choice(frames), role=role, id=facts[0].text)
    return sentence(rng.choice(P.REFERENCE), ref=phrase, role=role)


def covers(order_facts: list[Fact], items_text: str) -> bool:
    """Whether the items already say which order: every must string of the order's
    description is in the items' text ('the order with the Skateboard' and 'the Skateboard')."""
    lowered = items_text.lower()
    return bool(items_text) and all(
        not is_raw(f) and all(m.lower() in lowered for m in f.must) for f in order_facts
    )


_DESCRIBED_ITEM = re.compile(r"^the (?P<name>[^()]+?)(?: \((?P<options>[^()]+)\))?$")


def parse_item(text: str) -> tuple[str, list[tuple[str, str]]] | None:
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


def say_item(fact: Fact, rng: Picker) -> str:
    """An item as 'the T-Shirt (color: blue, size: M)', 'the T-Shirt with color blue and size M'
    or 'the blue T-Shirt with size M'."""
    if is_raw(fact):
        return f"item {fact.text}"
    parsed = parse_item(fact.text)
    if parsed is None or not parsed[1]:
        return (
            carrying("my " + fact.text[4:], fact)
            if fact.text.startswith("the ") and rng.random() < 0.3
            else fact.text
        )
    name, options = parsed
    bracketed = f"the {name} ({say_options(options)})"  # never "(color: blue)": that is a form
    forms = [f"the {name} with {say_options(options)}"]
    colors = [v for k, v in options if k in ("color", "colour")]
    if colors:
        rest = [(k, v) for k, v in options if k not in ("color", "colour")]
        forms.append(f"the {colors[0]} {name}" + (f" with {say_options(rest)}" if rest else ""))
    # "length 34 in" before "in place of" or "in my order" reads twice: keep the brackets then.
    forms = [f for f in forms if not f.endswith(" in")] or [bracketed]
    said = carrying(rng.choice(forms), fact)
    return bracketed if said == fact.text else said


def plain_item(fact: Fact) -> str:
    """An item with its options in brackets, without the form's colons: 'the Desk Lamp
    (color blue)'; the fact's own text when it is not an item description."""
    parsed = parse_item(fact.text)
    if parsed is None or not parsed[1]:
        return fact.text
    return f"the {parsed[0]} ({say_options(parsed[1])})"


def say_new_item(fact: Fact, olds: list[Fact], rng: Picker) -> str:
    """The new item; 'one in black' when it is another variant of the one item being swapped."""
    parsed = parse_item(fact.text)
    old_names = [p[0] for p in (parse_item(o.text) for o in olds) if p is not None]
    if parsed is None or not parsed[1] or old_names != [parsed[0]] or rng.random() < 0.4:
        return say_item(fact, rng)
    name, options = parsed
    if len(options) == 1 and options[0][0] in ("color", "colour"):
        forms = [f"one in {options[0][1]}", f"the {options[0][1]} one"]
    else:
        forms = [f"one with {say_options(options)}", f"the one with {say_options(options)}"]
    phrase = rng.choice(forms)
    # The name is said with the old item; the option values must be said here.
    return phrase if all(m.lower() in (phrase + " " + name).lower() for m in fact.must) else plain_item(fact)


def say_options(options: list[tuple[str, str]], last: str = " and ", keys: bool = True) -> str:
    """[('color', 'blue'), ('size', 'M')] -> 'color blue and size M' (without ``keys``: 'blue and M')."""
    return join_words([f"{k} {v}" if keys else v for k, v in options], last)


def say_payment(fact: Fact, rng: Picker) -> str:
    """'my Amex credit card' from must ['credit card', 'amex'], not 'the credit card amex payment method'."""
    if is_raw(fact):
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
    return carrying(phrase, fact)


def say_address(parts: dict[str, Fact]) -> str:
    """The address parts of one call as one US-ordered line."""
    text = {k: f.text for k, f in parts.items()}
    return format_us_address(**{k: text.get(k, "") for k in P.ADDRESS_PARTS})


def say_reason(fact: Fact, voice: P.Voice, rng: Picker) -> str:
    """A reason as a clause: 'it was ordered by mistake', 'it's no longer needed'; a value of
    another shape as 'the reason is ...'."""
    value = fact.text.strip().rstrip(".")
    first = value.split(" ", 1)[0].lower()
    if value.lower() in ("other", "others", "other reason"):
        return carrying(rng.choice(P.REASON_UNSAID), fact)
    if first in ("no", "not", "never") or value.lower().startswith("no longer"):
        clause = rng.choice(P.REASON_NEGATIVE)
    elif first.endswith("ed") or first in ("bought", "sent", "got", "made"):
        clause = rng.choice(P.REASON_PARTICIPLE)
    else:
        return rng.choice(P.REASON_OTHER).format(v=value)
    hedged = voice.hedges and clause.startswith(("it's {v}", "it is", "it was {v}")) and rng.random() < 0.5
    return (rng.choice(voice.hedges) if hedged else "") + clause.format(v=value)


def key_words(fact: Fact) -> list[str]:
    """The words of a fact's key, without its tool prefix and id suffix:
    ``reserve_ski_rental.pickup_date`` -> ['pickup', 'date']."""
    last = fact.key.rpartition(".")[2].lower()
    return [w for w in re.split(r"[^a-z0-9]+", last) if w and w not in ("id", "ids")]


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_FREE_TEXT_WORDS = 4  # a value of this many words or more is the user's own account of things


def is_free_text(fact: Fact) -> bool:
    """A detail the user writes in their own words (a description of a problem)."""
    return fact.kind == "detail" and len(fact.text.split()) >= _FREE_TEXT_WORDS


def detail_phrase(fact: Fact, rng: Picker) -> str:
    """One detail as part of a sentence, never as "Label: value": "3 bags in total", "no
    insurance", "pickup on 2026-11-06", "131 cm tall", "business cabin", "$35"; checked
    against the fact's ``must`` strings (else "the <words> <value>")."""
    words = key_words(fact)
    value = fact.text
    low = value.lower()
    unit = P.UNITS.get(words[-1]) if words else None
    kept = [w for w in words if w not in ("total", "num", "of", "new") and w not in P.UNITS]
    if len(kept) > 1 and kept[-1] in ("number", "code", "reference", "no"):
        kept = kept[:-1]  # "flight HAT384", not "flight number HAT384"
    head = " ".join(kept) or " ".join(words) or "detail"
    forms: list[str]
    count = (
        bool(kept)
        and re.fullmatch(r"\d+", value) is not None
        and kept[-1].endswith("s")
        and not kept[-1].endswith("ss")
    )
    if len(kept) > 1 and not _said_anyway(head) and not count:  # "2 checked bags" is a person's
        # the field's words in a row ("pickup time 10:30") are a form's, not a person's: the
        # thing and what of it ("pickup at 10:30", "lemon as the flavor of the cake")
        front, last = " ".join(kept[:-1]), kept[-1]
        if last in ("time", "hour") and not _ISO_DATE.match(value):
            forms = [f"{front} at {value}", f"the {front} at {value}", f"{value} for the {front}"]
            return carrying(rng.choice(forms), fact)
        plain_value = low not in ("yes", "no", "true", "false") and not _ISO_DATE.match(value)
        if plain_value and unit is None and not (words and words[-1] in P.MONEY_WORDS):
            forms = [f"{value} as the {last} of the {front}", f"{value} for the {last} of the {front}",
                     f"a {last} of {value} for the {front}", f"the {front}'s {last}, {value}"]  # fmt: skip
            return carrying(rng.choice(forms), fact)
        head = last  # "yes to insurance", "a fee of $35": the field's last word alone
    if head in P.DETAIL_LEXICON:
        forms = [f.format(v=value) for f in P.DETAIL_LEXICON[head]]
    elif words and words[-1] in ("with", "by", "via", "from", "to", "for", "in", "on"):
        forms = [f"{' '.join(words)} {value}"]  # "paid with cash"
    elif low in ("yes", "no", "true", "false"):
        yes = low in ("yes", "true")
        forms = [f.format(h=head) for f in (P.DETAIL_YES if yes else P.DETAIL_NO)]
    elif _ISO_DATE.match(value):
        when = " ".join(w for w in words if w not in ("date", "day"))
        forms = [f.format(h=when, v=value) for f in (P.DETAIL_DATE_OF if when else P.DETAIL_DATE)]
    elif re.fullmatch(r"-?\d+(?:\.\d+)?", value):
        number = float(value)
        if unit is not None:
            lexicon = P.UNIT_ATTRIBUTES.get(head)
            forms = [f.format(v=value, u=unit, h=head) for f in (lexicon or P.DETAIL_UNIT)]
        elif words and words[-1] in P.MONEY_WORDS:
            forms = [f.format(v=value, h=head) for f in P.DETAIL_MONEY]
        elif words and words[-1].endswith("s") and not words[-1].endswith("ss"):
            noun = words[-1][:-1] if number == 1 else words[-1]
            total = "total" in words
            forms = [f.format(v=value, n=noun) for f in (P.DETAIL_COUNT_TOTAL if total else P.DETAIL_COUNT)]
        else:
            forms = [f.format(v=value, h=head) for f in P.DETAIL_NUMBER]
    elif is_free_text(fact):
        forms = [value]
    elif re.search(r"\d", value) or value.isupper():
        forms = [f.format(v=value, h=head) for f in P.DETAIL_CODE]
    else:
        forms = [f.format(v=value, h=head) for f in P.DETAIL_WORD]
    return carrying(rng.choice(forms), fact) if forms else fact.text


def _said_anyway(words: str) -> bool:
    """Whether a field's words are what a person says anyway ("phone number", "zip code")
    or have words of their own here (``DETAIL_LEXICON``, ``UNIT_ATTRIBUTES``)."""
    from envfactory_mcp.tasks.naturalness import everyday_phrase

    return (
        words in P.EVERYDAY_PHRASES
        or everyday_phrase(words)
        or words in P.DETAIL_LEXICON
        or words in P.UNIT_ATTRIBUTES
    )


def say_details(facts: list[Fact], rng: Picker) -> list[Sentence]:
    """A goal's plain details as one sentence ("I'd want 3 bags in total, business cabin and
    no insurance."); free text the user writes in their own words is a sentence of its own."""
    free = [f for f in facts if is_free_text(f)]
    short = [detail_phrase(f, rng) for f in facts if not is_free_text(f)]
    out = [sentence(_as_sentence(f.text)) for f in free]
    if short:
        out.append(sentence(rng.choice(P.DETAILS), list=join_words(short)))
    return out


def _as_sentence(text: str) -> str:
    text = text.strip()
    return text if text[-1:] in ".!?" else text + "."


_THING = re.compile(
    r"\b(?:my|an?|the|some|this)\s+((?:[a-z'-]+\s)*?[a-z'-]+?)(?=\s+(?:of|for|to|with|in|on|from|by|and|at)\b|[?.,]|$)"
)


def intent_thing(intent: str) -> str | None:
    """What an intent is about, as the user's own: "cancel a ski rental" -> "my ski rental",
    "change the cabin of my reservation" -> "my reservation", "report a problem with my line"
    -> "my line"."""
    mine = re.findall(
        r"\bmy\s+((?:[a-z'-]+\s)*?[a-z'-]+?)(?=\s+(?:of|for|to|with|in|on|from|by|and|at)\b|[?.,]|$)", intent
    )
    if mine:
        return "my " + str(mine[-1])
    found = _THING.search(intent)
    if found is None:
        return None
    noun = found.group(1)
    of = re.match(r"\s+of\s+(?:an?|the)\s+([a-z'-]+(?:\s[a-z'-]+)?)", intent[found.end() :])
    if of is not None:  # "check the status of a flight": it is about the flight
        noun = of.group(1)
    if "'s " in noun:  # "a skier's height" is the user's own: their details
        return "my details"
    return "my " + noun


def situation(intent: str, roles: Roles, rng: Picker) -> Sentence | None:
    """What brought the customer here, from the goal's own data: the user's account of a
    problem (free text) when there is one, else a sentence of the family of the intent's
    verb about what the goal concerns ("my plans have changed and I won't need my ski
    rental after all"); None when the verb has no family or a reason already says why."""
    free = [f for f in roles.details if is_free_text(f)]
    if free:
        return sentence(_as_sentence(free[0].text))
    if roles.reasons:
        return None
    words = intent.lower().split()
    if not words:
        return None
    family = "address" if "address" in words else P.SITUATION_VERBS.get(words[0])
    if family is None:
        return None
    role = next((role for role, _ in by_role(roles.objects)), None)
    if role is not None and role.split()[-1] in P.CODE_NOUNS:
        role = None  # "my phone number" is not what a problem is about
    thing = (f"my {role}" if role else None) or intent_thing(intent.lower()) or "my account"
    if roles.items and family in ("return", "exchange"):
        thing = "something I bought" if rng.random() < 0.5 else thing
    core = rng.choice(P.SITUATIONS[family]).format(thing=thing)
    if rng.random() < P.SITUATION_TAIL_SHARE and core.endswith("."):
        core = core[:-1] + rng.choice(P.SITUATION_TAILS)
    return sentence(core)


def say_detail(fact: Fact, rng: Picker) -> Sentence:
    """One detail as a sentence of its own (see ``say_details``)."""
    return say_details([fact], rng)[0]


def say_identity(facts: list[Fact], rng: Picker) -> Sentence:
    """Who the user is, in one sentence: "I'm Zoe Xu, zip 10001.", "This is Lucia Tanaka,
    born 1960-08-17.", "My email is zoe@example.com."; any other identity fact by its words."""
    by_key = {f.key: f.text for f in facts}
    name = " ".join(by_key[k] for k in ("first_name", "last_name") if k in by_key)
    rest: list[str] = []
    for fact in facts:
        if fact.key in ("first_name", "last_name"):
            continue
        kind = next((k for k in P.IDENTITY_PARTS if k in fact.key), None)
        frames = P.IDENTITY_PARTS[kind] if kind else P.IDENTITY_OTHER
        label = " ".join(key_words(fact))
        rest.append(rng.choice(frames).format(v=fact.text, words=label))
    if name and "first_name" in by_key:
        frame = rng.choice(P.IDENTITY_NAMED)
        text = frame.format(name=name, rest=(", " + join_words(rest)) if rest else "")
    elif name:  # a last name alone
        text = rng.choice(P.IDENTITY_SURNAME).format(name=name, rest=join_words(rest) or "that's all I have")
    else:
        text = rng.choice(P.IDENTITY_PLAIN).format(rest=join_words(rest))
    if name and text.startswith(name):  # "Zoe Xu here, ..." keeps its capital after "Hi,"
        return Sentence(text, False)
    return sentence(text)


# ---------------------------------------------------------------- words and sentences


def noun_pattern(role: str) -> re.Pattern[str]:
    """'an order', 'my order', 'the orders' in an intent: where a reference can be worked in."""
    return re.compile(rf"\b(?:an?|my|the|this|that|some)\s+{re.escape(role)}s?\b")


def replace_first(pattern: re.Pattern[str], text: str, phrase: str) -> str:
    """``text`` with the first match of ``pattern`` replaced by ``phrase`` taken literally."""
    match = pattern.search(text)
    if match is None:
        return text
    rest = text[match.end() :]
    if phrase == "it" and rest.startswith("'s "):  # "change a booking's date" -> "change its date"
        return text[: match.start()] + "its" + rest[2:]
    owned = re.match(r"'s ([a-z]+)", rest)
    if owned is not None and len(phrase.split()) > 2:  # "the date of the booking from May 4"
        return text[: match.start()] + f"the {owned.group(1)} of {phrase}" + rest[owned.end() :]
    return text[: match.start()] + phrase + rest


def item_pattern() -> re.Pattern[str]:
    """'items', 'the items', 'some items' in an intent."""
    return re.compile(r"\b(?:(?:the|my|some|an?)\s+)?items?\b")


def join_words(words: list[str], last: str = " and ") -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + last + words[-1]


def names_of(name: str | None) -> dict[str, str]:
    """{'first': 'Zoe', 'full': 'Zoe Xu'} for sign-offs, or {} without a name."""
    if not name or not name.strip():
        return {}
    return {"first": name.split()[0], "full": name.strip()}


def id_like(word: str) -> bool:
    """An email, id or number, whose case must be kept."""
    return any(c.isdigit() or c in "@_#" for c in word)


def sentence(template: str, **fields: str) -> Sentence:
    """A sentence from a frame, its first letter capitalised (unless it starts with a value
    such as an email, which keeps its case)."""
    text = phrasal(template.format(**fields))
    first = text.split(" ", 1)[0]
    if template.startswith("{"):
        lower_ok = text[:1].islower() and not id_like(first)
    else:
        lower_ok = first.strip(",.:;!?") not in P.I_WORDS
    if text.lower().startswith(P.OPENING_ONLY):
        lower_ok = False  # "So here's the thing" opens a message; "Also, so here's the thing" does not
    if text[:1].islower() and not id_like(first):
        text = text[0].upper() + text[1:]
    return Sentence(text, lower_ok)


def is_thanks(text: str) -> bool:
    """A closer or sign-off that thanks (two in a row read oddly)."""
    lowered = text.lower()
    return "thank" in lowered or lowered.startswith(("thx", "ty"))


def run_on(piece: Sentence) -> str:
    """The sentence as it reads after 'Hi,' or 'Also,': lower-cased first letter when allowed."""
    return piece.text[0].lower() + piece.text[1:] if piece.lower_ok else piece.text


def paragraph(pieces: list[Sentence]) -> str:
    """One paragraph; after a greeting that ends in a comma the next sentence runs on in
    lower case ("Hi, could you ...") or the comma becomes a full stop."""
    texts: list[str] = []
    for piece in pieces:
        if texts and texts[-1].endswith(","):
            if piece.lower_ok:
                texts.append(run_on(piece))
                continue
            if piece.text.split(" ", 1)[0].strip(",.:;!?") not in P.I_WORDS:
                if len(texts) == 1 and len(texts[0].split()) <= 2:
                    texts.pop()  # a bare "Hi." on its own is what every message says: none
                else:
                    texts[-1] = texts[-1][:-1] + "."
        texts.append(piece.text)
    return " ".join(t for t in texts if t)
