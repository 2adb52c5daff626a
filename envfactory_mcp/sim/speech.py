"""How the demonstrator says things: its greetings, questions, confirmations, results,
refusals, hand-offs and closings (``sim/demonstrator.py`` decides what to do next; this
module decides the words)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from envfactory_mcp.sim.speech_forms import (
    ADDRESS_ASK,
    AGENT_NOUNS,
    AGENT_VERBS,
    CLOSE_CORE,
    CLOSE_LEAD,
    CONFIRM_BODY,
    CONFIRM_LEAD,
    CONFIRM_QUESTION,
    CONFIRM_QUESTION_SHARE,
    DETAIL_ASK,
    DETAIL_LEAD,
    DONE_LEAD,
    FIELD_WORDS,
    FOUND_LEAD,
    GREET_HELP,
    GREET_HI,
    IDENTITY_ASK,
    IDENTITY_LEAD,
    IDENTITY_WHY,
    INSTEAD,
    LABEL_WORDS,
    MET,
    PER_PERIOD,
    REASON_ASK,
    REFUSE,
    TRANSFER,
    UNMET,
    UPDATED,
    VALUE_ASK,
    YES_ASK,
    YES_LEAD,
)
from envfactory_mcp.sim.types import Message
from envfactory_mcp.tasks.addresses import ADDRESS_PARTS, format_us_address
from envfactory_mcp.tasks.model import Claim, Fact, GoldAction
from envfactory_mcp.tasks.naturalness import names_tool_or_field, spec_vocabulary
from envfactory_mcp.tasks.values import words_in
from envfactory_mcp.tasks.wording import unform

OPENERS = [
    "I can help with that.",
    "Sure, I can help you with this.",
    "Happy to help.",
    "Of course.",
    "Certainly.",
]
IDENTITY_ASKS = [
    "First, I need to verify your identity. Could you give me {what}?",
    "Before I look into this, could you please share {what} so I can find your profile?",
    "To get started, may I have {what}?",
    "Let me first confirm who I'm speaking with: what is {what}?",
]
CONFIRM_ASKS = [
    "Here is what I'm about to do: {action}. Shall I go ahead?",
    "To confirm, I will {action}. Would you like me to proceed?",
    "Just to be sure: I'll {action}. Do you want me to go ahead? (yes/no)",
    "I'm ready to {action}. Can you confirm I should proceed?",
]
CLOSINGS = [
    "Is there anything else I can help you with?",
    "Let me know if there's anything else you need.",
    "Anything else I can do for you today?",
    "Is there something else I can help with?",
]
TRANSFER_DONE = [
    (
        "I'm not able to arrange {request} myself, so I've transferred you to a human agent; they will contact "
        "you to follow up."
    ),
    (
        "That request ({request}) is outside what I can do here. I've handed your case to a human agent, who "
        "will get in touch with you."
    ),
]


def _label(fact: Fact) -> str:
    last = fact.key.rsplit(".", 1)[-1]
    words = [w for w in re.findall(r"[a-z]+", last.lower()) if w not in ("id", "ids")]
    return " ".join(words) or last


def _ask_for(group: list[Fact], rng: random.Random) -> str:
    if len(group) > 1 or group[0].key.rsplit(".", 1)[-1] in ADDRESS_PARTS:
        return rng.choice(
            [
                "What is the new address? Please give me the street, city, state, zip code and country.",
                "Could you tell me the full new address (street, city, state, zip code and country)?",
            ]
        )
    fact = group[0]
    label = _label(fact)
    if fact.key.endswith("reason"):
        return rng.choice(
            [
                "May I ask the reason: is it no longer needed, or was it ordered by mistake?",
                "What's the reason for this: no longer needed, or ordered by mistake?",
            ]
        )
    if fact.kind == "reference":
        return rng.choice(
            [
                f"Which {label} would you like to use?",
                f"Which {label} do you mean?",
                f"Could you tell me which {label}?",
            ]
        )
    return rng.choice([f"What should the {label} be?", f"Could you tell me the {label}?"])


def _identity_words(facts: list[Fact]) -> str:
    keys = [f.key for f in facts]
    if "email" in keys:
        return "the email address on your account"
    if {"first_name", "last_name", "zip"} <= set(keys):
        return "your first name, last name and zip code"
    return " and ".join(f"your {_label(f)}" for f in facts)


def _subject(action: GoldAction | None) -> str:
    """What the action is about, as the agent names it: 'order #W0012345', 'your account'."""
    if action is None:
        return "it"
    for key, value in action.arguments.items():
        if key.endswith("_id") and isinstance(value, str):
            if key == "order_id":
                return f"order {value}"
            if key == "user_id":
                return "your profile"
            name = action.output.get("name")
            return f"the {name}" if isinstance(name, str) else f"{key[:-3].replace('_', ' ')} {value}"
    return "it"


def _claim_sentence(
    claims: list[Claim],
    subject: str,
    action: GoldAction | None,
    rng: random.Random,
    lead: bool = True,
    element: str | None = None,
) -> str:
    """The claims of one goal in a sentence; ``element`` names the thing a claim about one
    element of a list is about ('the Desk Lamp (color: blue)')."""
    if not claims:
        if action is None:
            return ""
        return _sentence(
            rng.choice(
                [
                    f"{subject} has been updated",
                    f"all set: {subject} is updated",
                    f"the change to {subject} is done",
                ]
            )
        )
    bits: list[str] = []
    for claim in claims:
        label = claim.path.rsplit(".", 1)[-1].replace("[]", "").replace("_", " ")
        if claim.path == "status" or claim.path.endswith(".status"):
            now = "now " if action is not None and action.confirm else ""
            bits.append(
                rng.choice(
                    [f"{subject} is {now}{claim.text}", f"the status of {subject} is {now}{claim.text}"]
                )
            )
        elif isinstance(claim.value, float | int) and not isinstance(claim.value, bool):
            money = f"${claim.text}" if isinstance(claim.value, float) else claim.text
            if "[]" in claim.path and element:
                bits.append(f"the {label} of {element} is {money}")
            elif label == "result":
                bits.append(f"that comes to {money} in total")
            else:
                bits.append(
                    f"the amount {label} is {money}" if label.endswith("ed") else f"the {label} is {money}"
                )
        else:
            bits.append(f"the {label} is {claim.text}")
    sentence = bits[0] if len(bits) == 1 else ", ".join(bits[:-1]) + " and " + bits[-1]
    opener = rng.choice(["", "done: ", "here's where things stand: ", "all set: "]) if lead and action else ""
    return _sentence(opener + sentence)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _as_action(intent: str) -> str:
    """'cancel an order' -> 'cancel the order', 'return items I received' -> 'return the
    items' (which ones is known by now)."""
    intent = re.sub(r"\b(an?|my)\s+(order|items?)\b", r"the \2", intent)
    return re.sub(r"(?<!the )\bitems I received\b", "the items", intent)


def describe_action(action: GoldAction, messages: list[Message], intent: str | None = None) -> str:
    """The call in words for a confirmation, every argument included: 'change the
    shipping address of order #W0012345 to 1 Main St, Austin, TX 78701, USA'; ids are named
    by what the conversation showed about them ('visa credit card ending in 6651')."""
    outputs = _outputs(messages)
    args = action.arguments
    subject_key = next((k for k, v in args.items() if k.endswith("_id") and isinstance(v, str)), None)
    verb = intent or action.name.replace("_", " ")
    if subject_key == "order_id":
        verb, hits = re.subn(r"\b(my|an?|the)\s+order\b", f"order {args['order_id']}", verb)
        if not hits:
            verb += f" for order {args['order_id']}"
    elif subject_key == "user_id":
        verb = re.sub(r"\bmy\b", "your", verb)
    parts: list[str] = []
    address = {k: str(v) for k, v in args.items() if k in ADDRESS_PARTS and v not in ("", None)}
    if len(address) > 1:
        parts.append("to " + format_us_address(**address))
    for key, value in args.items():
        if key == subject_key or key in address or value in ("", None, []):
            continue
        label = re.sub(r"_ids?$", "", key).replace("_", " ")
        if isinstance(value, list):
            parts.append(f"{label}: " + ", ".join(_name_of(v, outputs) for v in value))
        elif key.endswith("_id"):
            parts.append(f"{label}: {_name_of(value, outputs)}")
        else:
            parts.append(f"{label}: {value}")
    if not parts:
        return verb
    head = parts[0] if parts[0].startswith("to ") else ""
    rest = [p for p in parts if p != head]
    return f"{verb} {head}".rstrip() + (f" ({'; '.join(rest)})" if rest else "")


def _outputs(messages: list[Message]) -> list[Any]:
    found = []
    for message in messages:
        if message.get("role") == "tool" and isinstance(message.get("content"), str):
            try:
                found.append(json.loads(message["content"]))
            except ValueError:
                continue
    return found


def _name_of(value: Any, outputs: list[Any]) -> str:
    """What the conversation showed about an id: the object it is the id of (not one that
    merely refers to it), by its name (or its parent's: a product's variant), options,
    kind, brand, last four digits; the id itself when nothing says more."""
    best: tuple[int, dict[str, Any], str | None] | None = None
    for output in reversed(outputs):
        for node, parent_name in _objects(output, None):
            keys = [k for k, v in node.items() if v == value and k.endswith("_id")]
            if not keys:
                continue
            others = sum(1 for k in node if k.endswith("_id") and k not in keys and node[k] is not None)
            score = -others + (1 if isinstance(node.get("name"), str) else 0)
            if best is None or score > best[0]:
                best = (score, node, parent_name)
    if best is None:
        return str(value)
    _, node, parent_name = best
    own = next((node[k] for k in _OWN_LABELS if isinstance(node.get(k), str) and node[k].strip()), None)
    described = any(node.get(k) for k in ("brand", "last_four", "options"))  # said from those below
    if not isinstance(node.get("name"), str) and own is not None and not described:
        node = {**node, "name": own}  # a slot by its time, not by its provider's name
    elif not isinstance(node.get("name"), str) and parent_name:
        node = {**node, "name": parent_name}
    bits = [str(node[k]) for k in ("name", "brand") if isinstance(node.get(k), str)]
    if bits or node:
        if isinstance(node.get("kind"), str):
            bits.append(node["kind"].replace("_", " "))
        options = node.get("options")
        if isinstance(options, dict) and options:
            bits.append("(" + ", ".join(f"{k}: {v}" for k, v in options.items()) + ")")
        if isinstance(node.get("last_four"), str):
            bits.append(f"ending in {node['last_four']}")
    return " ".join(bits) if bits else str(value)


_DRAWS = 12  # forms drawn at most until one reads as it must
# A value kept per kind ("prices": {"economy": ...}): said with what it is ("economy price").
_PER_KIND = {"prices": "price", "fares": "fare", "fees": "fee", "rates": "rate", "amounts": "amount",
             "totals": "total", "seats": "seats"}  # fmt: skip


# What names an object that has no ``name`` of its own ("Tue Jun 30, 2:00 PM" for a slot).
_OWN_LABELS = ("title", "label", "display_name")


def _objects(node: Any, parent_name: str | None) -> list[tuple[dict[str, Any], str | None]]:
    """Every object in ``node`` with the name of the nearest object above it that has one."""
    if isinstance(node, dict):
        name = node["name"] if isinstance(node.get("name"), str) else parent_name
        return [(node, parent_name), *(o for v in node.values() for o in _objects(v, name))]
    if isinstance(node, list):
        return [o for v in node for o in _objects(v, parent_name)]
    return []


# ================================================================ the varied voice
#
# Everything below is the demonstrator's own voice (``Speaker``): each dialogue act has many
# forms composed from independent parts (lead-ins, clause orders, connectives, ways of
# naming a value), chosen per episode from a seed and never repeated within one episode.
# The tables above are the plain voice, kept for the metamorphic agents, which find and
# reword its fixed frames (``sim/metamorphic_text.py``).

# ---------------------------------------------------------------- the agent's own words

_PRONOUNS = {
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
    "we": "you",
    "us": "you",
    "our": "your",
    "ours": "yours",
    "ourselves": "yourselves",
    "i'm": "you're",
    "i've": "you've",
    "i'd": "you'd",
    "i'll": "you'll",
    "we're": "you're",
    "we've": "you've",
    "we'd": "you'd",
    "we'll": "you'll",
}
_FIRST_PERSON = re.compile(
    r"(?<![\w'])(" + "|".join(sorted(_PRONOUNS, key=len, reverse=True)) + r")(?![\w'])", re.I
)
_BE_AFTER = re.compile(r"\byou (am|was)\b")
_DESIRE_HEAD = re.compile(
    r"^\s*(?:(?:i|we)\s+(?:would like|'d like|want|need|wish|hope)|i'd like|i'm (?:looking|trying|hoping))\s+(?:to\s+)?",
    re.I,
)


def agent_voice(phrase: str) -> str:
    """A phrase of the customer's (an intent, a request, a condition) in the agent's words:
    every first-person pronoun and possessive turned to the second person ("pay my bill"
    -> "pay your bill", "items I received" -> "items you received", "I'm moving" -> "you're
    moving"), a leading wish dropped ("I want to cancel my order" -> "cancel your order")."""
    phrase = _DESIRE_HEAD.sub("", phrase)

    def swap(m: re.Match[str]) -> str:
        word = m.group(1)
        new = _PRONOUNS[word.lower().replace("\u2019", "'")]
        return new  # the phrase goes inside the agent's sentence, which sets its own capital

    out = _FIRST_PERSON.sub(swap, phrase)
    return _BE_AFTER.sub(lambda m: "you are" if m.group(1) == "am" else "you were", out)


_ABBREVIATIONS = {
    "nonfree": "non-free",
    "dob": "date of birth",
    "qty": "quantity",
    "num": "number of",
    "nb": "number of",
    "amt": "amount",
    "addr": "address",
    "desc": "description",
    "info": "information",
    "pct": "percent",
    "tkt": "ticket",
    "msg": "message",
    "cust": "customer",
    "acct": "account",
    "gb": "",
    "mb": "",
    "cents": "",
}
_UNITS = {"gb": "GB", "mb": "MB", "minutes": "minutes", "mins": "minutes", "hours": "hours", "days": "days",
          "kg": "kg", "km": "km", "miles": "miles", "pct": "%", "percent": "%"}  # fmt: skip
_MONEY_HINTS = (*["amount", "price", "total", "balance", "fee", "cost", "refund", "refunded", "paid", "charge", "fare", "due", "installment", "payoff", "credit", "deposit", "payment", "subtotal", "tax", "tip", "price", "rate", "compensation"],)  # fmt: skip


def humanise(key: str) -> str:
    """A field's name as English: 'nonfree_bags' -> 'non-free bags', 'payment_method_id'
    -> 'payment method', 'price_cents' -> 'price', 'data_remaining_gb' -> 'data remaining'."""
    last = key.rsplit(".", 1)[-1].replace("[]", "")
    parts = [p for p in re.findall(r"[a-z]+|\d+", last.lower()) if p not in ("id", "ids", "is", "has")]
    said = [_ABBREVIATIONS.get(p, p) for p in parts]
    if len(said) == 1 and said[0] in _QUESTION_FIELDS:  # "when" -> "time": a field, said as a noun
        said = [_QUESTION_FIELDS[said[0]]]
    return " ".join(w for w in said if w) or "detail"


_QUESTION_FIELDS = {"when": "time", "where": "place", "who": "person"}


def unit_of(key: str) -> str | None:
    last = key.rsplit(".", 1)[-1].replace("[]", "").lower()
    tail = last.rsplit("_", 1)[-1]
    return _UNITS.get(tail) if "_" in last else None


def is_money(key: str, value: Any) -> bool:
    """Whether a number is an amount of money: a float, or a field whose name says so, unless
    the name carries a unit (GB, minutes)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if unit_of(key):
        return False
    leaf = key.rsplit(".", 1)[-1].replace("[]", "").lower()
    return isinstance(value, float) or leaf.split("_")[-1] in _MONEY_HINTS


_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$"
)
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def clock(hour: int, minute: int) -> str:
    suffix = "AM" if hour < 12 else "PM"
    return f"{hour % 12 or 12}:{minute:02d} {suffix}"


def readable_date(text: str) -> str | None:
    """'2026-06-06' -> 'June 6, 2026'; '2026-06-06T14:30:00' -> 'June 6, 2026 at 2:30 PM';
    '14:30' -> '2:30 PM'; None for anything else."""
    m = _ISO.match(text)
    if m:
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if not 1 <= month <= 12:
            return None
        said = f"{_MONTHS[month - 1]} {day}, {year}"
        if m.group(4) is not None:
            said += f" at {clock(int(m.group(4)), int(m.group(5)))}"
            if m.group(6) in ("Z", "+00:00", "+0000"):
                said += " UTC"
        return said
    c = _CLOCK.match(text)
    if c and int(c.group(1)) < 24 and int(c.group(2)) < 60:
        return clock(int(c.group(1)), int(c.group(2)))
    return None


def display_words(value: str, spec: Any = None) -> str:
    """An enum value as people say it: the spec's display name where a column declares one,
    else its underscores as spaces ('basic_economy' -> 'basic economy')."""
    if spec is not None:
        for table in getattr(spec, "tables", []):
            for column in table.columns:
                label = (column.enum_labels or {}).get(value)
                if label is not None and label.display:
                    return str(label.display)
    return value.replace("_", " ") if re.fullmatch(r"[A-Za-z]+(?:_[A-Za-z]+)+", value) else value


def say_value(value: Any, key: str = "", spec: Any = None) -> str:
    """A value as a person says it: money with its currency and two decimals, a number with
    its unit, dates and times readable, an enum value in words, anything else as it is."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        if is_money(key, value):
            return f"${value:,.2f}"
        unit = unit_of(key)
        number = f"{value:g}" if isinstance(value, float) else str(value)
        return f"{number}{unit}" if unit == "%" else f"{number} {unit}" if unit else number
    if value is None:
        return "none"
    text = str(value)
    return readable_date(text) or display_words(text, spec)


# ---------------------------------------------------------------- forms by composition


def _forms(*parts: list[str]) -> list[str]:
    """Every combination of one string from each part, in order."""
    out = [""]
    for part in parts:
        out = [a + b for a in out for b in part]
    return out


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _caps(form: str) -> str:
    """A composed form with a capital at its start and after each sentence end inside it
    ("Got it. the plan is ..." -> "Got it. The plan is ...")."""
    return (
        _cap(re.sub(r"([.?!:] )([a-z])", lambda m: m.group(1) + m.group(2).upper(), form)) if form else form
    )


def _end(text: str, mark: str = ".") -> str:
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + mark


def identity_words(facts: list[Fact], rng: random.Random) -> str:
    """The identity details asked for, in words, in an order and phrasing drawn from ``rng``."""
    keys = [f.key for f in facts]
    if "email" in keys:
        email = rng.choice(["the email address on your account", "your account's email address",
                            "the email you registered with", "the email address you use with us"])  # fmt: skip
        rest = [f for f in facts if f.key != "email"]  # every detail the check needs is asked for
        return f"{email} and {identity_words(rest, rng)}" if rest else email
    if {"first_name", "last_name", "zip"} <= set(keys):
        return rng.choice(["your first name, last name and zip code", "your full name and zip code",
                           "your name and the zip code on file", "your zip code and full name"])  # fmt: skip
    if {"first_name", "last_name", "date_of_birth"} <= set(keys) and len(keys) == 3:
        return rng.choice(["your full name and date of birth", "your name and birth date",
                           "your first and last name along with your date of birth",
                           "the name and date of birth on your profile", "your date of birth and full name",
                           "your full name plus the date you were born"])  # fmt: skip
    labels = [{"zip": "zip code"}.get(_label(f), _label(f)) for f in facts]
    if "first name" in labels and "last name" in labels:
        labels = [x for x in labels if x not in ("first name", "last name")] + ["full name"]
    rng.shuffle(labels)
    return "your " + _and(labels) if rng.random() < 0.5 else _and([f"your {x}" for x in labels])


_VOCABULARY: list[tuple[Any, tuple[frozenset[str], frozenset[str]]]] = []


def _spec_vocabulary(spec: Any) -> tuple[frozenset[str], frozenset[str]]:
    """``spec_vocabulary(spec)``, frozen, worked out once for the spec last asked about
    (a rollout's speakers, one an episode, all speak of the same spec object)."""
    if not _VOCABULARY or _VOCABULARY[0][0] is not spec:
        tools, fields = spec_vocabulary(spec)
        _VOCABULARY[:] = [(spec, (frozenset(tools), frozenset(fields)))]
    return _VOCABULARY[0][1]


class Speaker:
    """The agent's voice for one episode: every sentence composed from parts, drawn from a
    random stream of its own (``seed`` and ``key``, reproducible), a form used once per
    episode at most while others remain. ``spec`` (the environment's) gives enum values their
    display words. ``said`` keeps every grounded value put in the text of each turn, for a
    rewrite to keep (``sim/rewrite.py``)."""

    def __init__(self, seed: int, key: str, spec: Any = None) -> None:
        self.rng = random.Random(f"speech:{seed}:{key}")
        self.spec = spec
        self.used: set[tuple[str, str]] = set()
        self.said: list[str] = []
        self.last_subject = ""  # the thing last named, which may then be "it" or "the order"
        self._canon: dict[str, str] = {}  # a subject as said -> as first named (subject_of)
        self._vocab: tuple[frozenset[str], frozenset[str]] | None = None

    # -------------------------------------------------------------- no field name in prose

    def vocabulary(self) -> tuple[frozenset[str], frozenset[str]]:
        """The environment's (tool names, field names); empty without a spec."""
        if self._vocab is None:
            self._vocab = _spec_vocabulary(self.spec) if self.spec is not None else (frozenset(), frozenset())
        return self._vocab

    def names(self, text: str) -> bool:
        """Whether ``text`` names one of the environment's tools or fields in words."""
        tools, fields = self.vocabulary()
        return bool(tools or fields) and bool(names_tool_or_field(text, tools, fields))

    def label(self, label: str) -> str:
        """A field's label in a person's words where the label is the field's name in a row
        ("balance due" -> "balance still due", "monthly price" -> "price per month", "change
        fee" -> "fee for the change"); a label that names nothing is kept."""
        if not self.names(label):
            return label
        words = label.split()
        options = list(FIELD_WORDS.get(label, ()))
        if len(words) > 1:
            head, rest, last = words[0], " ".join(words[1:]), words[-1]
            front = " ".join(words[:-1])
            if head in PER_PERIOD:
                options.append(f"{rest} {PER_PERIOD[head]}")
            if last == "due":
                options.append(f"{front} still due")
            if head in ("active", "current") and last.endswith("s"):
                options.append(f"{'current' if head == 'active' else 'present'} {rest}")
            if last in ("eligible", "enabled", "included", "allowed", "required", "available"):
                options.append(f"{last} for {front}")  # "eligible for upgrade"
            if last in ("remaining", "left"):
                options.append(f"{front} still left")
            if last == "used":
                options.append(f"{front} you've used")
            if last in ("at", "on") and len(words) == 2:  # a moment: "created at", "expires on"
                options.append(f"date {head}" if head.endswith("ed") else f"date it {head}")
            if last in (
                *("charge", "fee", "price", "cost", "amount", "rate", "date", "time", "limit", "total"),
                *("balance", "fare", "deposit", "discount", "credit", "refund", "payment", "status"),
            ):
                options.append(f"{last} for the {front}")
        options = [o for o in options if not self.names(o)]
        return self.rng.choice(options) if options else label

    def unname(self, text: str) -> str:
        """An action phrase that says a tool's name in words ("pay bill B1", "enable
        roaming") with its verb said another way (``AGENT_VERBS``: "settle bill B1", "turn on
        roaming"); kept as is when no other way avoids it."""
        if not self.names(text):
            return text
        for size in (2, 1):
            head = " ".join(text.split()[:size])
            others = [o for o in AGENT_VERBS.get(head.lower(), ()) if o != head.lower()]
            fits = [o + text[len(head) :] for o in others if not self.names(o + text[len(head) :])]
            if fits:
                return self.rng.choice(fits)
        return text

    # -------------------------------------------------------------- drawing

    def pick(self, act: str, forms: list[str]) -> str:
        fresh = [f for f in forms if (act, f) not in self.used] or forms
        form = self.rng.choice(fresh)
        self.used.add((act, form))
        return form

    def refer(self, subject: str, pronoun: bool = False) -> str:
        """``subject`` again, as a person refers back to what was just named: "it" (where
        ``pronoun``), or "the <kind>" ("order #W1" -> "the order", "this order", "that
        order"), or the name; a new subject by its name."""
        canon = self._canon.get(subject, subject)
        again = canon == self.last_subject
        self.last_subject = canon
        head = re.sub(r"^(?:your|the) ", "", re.sub(r"\s+(?:ending in )?\S*\d\S*$", "", canon))
        if not again:
            return subject
        forms = [subject]
        if head != canon and re.fullmatch(r"[a-z]+(?: [a-z]+)?", head):
            forms += [f"the {head}", f"this {head}", f"that {head}"]
        if pronoun:
            forms += ["it", "it"]
        return self.rng.choice(forms)

    def words(self, phrase: str) -> str:
        """A phrase of the task's (an intent, a request, a condition) in the agent's words:
        generator words said in words (``tasks.values.words_in``), the customer's first
        person turned to the second (``agent_voice``)."""
        return agent_voice(words_in(phrase, self.spec))

    def verb(self, phrase: str) -> str:
        """``phrase`` with its first verb said another way where ``AGENT_VERBS`` lists one
        ("change the cabin" -> "update the cabin"), drawn from the episode's stream."""
        for size in (2, 1):
            head = " ".join(phrase.split()[:size])
            if head.lower() in AGENT_VERBS and len(phrase.split()) > size:
                options = [o + phrase[len(head) :] for o in AGENT_VERBS[head.lower()]]
                # never a tool's name in words ("add travel insurance": "include travel insurance")
                return self.rng.choice([o for o in options if not self.names(o)] or options)
        return phrase

    def value(self, value: Any, key: str = "") -> str:
        said = say_value(value, key, self.spec)
        self.said.append(said)
        return said

    def take_said(self) -> list[str]:
        said, self.said = self.said, []
        return said

    # -------------------------------------------------------------- acts

    def greeting(self) -> str:
        return _cap(self.pick("greet", _forms([h + ", " for h in GREET_HI], GREET_HELP))) + "."

    def identity(self, facts: list[Fact]) -> str:
        """A request for the identity details ``facts``, every one of them named; never one
        that reads as a request for consent ("would you pass along your email to confirm it's
        you?" can: another form is drawn)."""
        from envfactory_mcp.scoring.policy import asks_confirmation

        forms = _forms([lead + ", " for lead in IDENTITY_LEAD], IDENTITY_ASK, IDENTITY_WHY)
        text = ""
        for _ in range(_DRAWS):
            text = _cap(self.pick("identity", forms).format(what=identity_words(facts, self.rng)))
            asks = re.search(r"\b(?:could|may|can|would|what|what's|might)\b", text, re.IGNORECASE)
            text += "?" if asks else "."
            if not asks_confirmation(text):
                break
        return text

    def ask_for(self, group: list[Fact]) -> str:
        fact = group[0]
        if len(group) > 1 or fact.key.rsplit(".", 1)[-1] in ADDRESS_PARTS:
            asks = ADDRESS_ASK
        elif fact.key.endswith("reason"):
            asks = REASON_ASK
        elif fact.kind == "reference":
            asks = DETAIL_ASK
        else:
            asks = VALUE_ASK
        label = humanise(fact.key)
        label = self.rng.choice(LABEL_WORDS.get(label, (label,)))
        return _caps(self.pick("ask", _forms(DETAIL_LEAD, asks))).format(label=label)

    def confirm(self, action: GoldAction, messages: list[Message], intent: str | None) -> str:
        """The action in words and a request for consent: one question holding the action
        ("Shall I cancel order #W1?"), or a statement of it and a question that names nothing
        ("I'll cancel order #W1. Does that sound right?"). Either is read as a request for
        consent by scoring (``asks_confirmation``) and by the scripted user."""
        from envfactory_mcp.scoring.policy import asks_confirmation

        what = self.describe(action, messages, intent)
        self.last_subject = subject_of(action)
        if self.rng.random() < CONFIRM_QUESTION_SHARE:
            # one question, unless its values break it as a reader splits sentences ("Dr. Patel")
            question = self.pick("propose?", CONFIRM_QUESTION).format(action=what)
            if asks_confirmation(question):
                return question
        statement = _caps(self.pick("propose", _forms(CONFIRM_LEAD, CONFIRM_BODY))).format(action=what) + "."
        return statement + " " + _caps(self.pick("yes?", _forms(YES_LEAD, YES_ASK)))

    def updated(self, subject: str, lead: bool) -> str:
        form = self.pick("updated", _forms(DONE_LEAD if lead else [""], UPDATED))
        return _caps(form.format(subject=subject)) + "."

    def lead(self, write: bool) -> str:
        return self.pick("lead", DONE_LEAD if write else FOUND_LEAD)

    def refusal(self, requested: str, reason: str) -> str:
        """Why the request cannot be done, the policy's reason in words ("an out on slopes
        ski rental cannot be released", never ``out_on_slopes``)."""
        act = self.verb(self.words(_as_action(requested)))
        return self.pick("refuse", REFUSE).format(act=act, reason=words_in(reason, self.spec))

    def unmet(self, condition: str, requested: str) -> str:
        return self.pick("unmet", UNMET).format(
            cond=self.words(condition), act=self.verb(self.words(_as_action(requested)))
        )

    def met(self, subject: str, condition: str) -> str:
        return _cap(self.pick("met", MET).format(subject=subject, cond=self.words(condition)))

    def instead(self, subject: str, otherwise: str) -> str:
        act = self.verb(self.words(_as_action(otherwise)))
        return _cap(self.pick("instead", INSTEAD).format(subject=subject, act=act))

    def transfer(self, request: str) -> str:
        request = self.words(request or "this")
        form = self.pick("transfer", TRANSFER)
        return _cap(form.replace("{Request}", _cap(request)).format(request=request))

    def close(self) -> str:
        return _cap(self.pick("close", _forms(CLOSE_LEAD, CLOSE_CORE)))

    def subject(self, action: GoldAction | None) -> str:
        """What the action is about (``subject_of``), named one of the ways a person names
        it: "order #W1", "your order #W1"; a long number also by its last four digits ("the
        phone number ending in 2018")."""
        named = subject_of(action)
        m = re.fullmatch(r"([a-z]+(?: [a-z]+)?) (\S*\d\S*)", named)
        if m is None:
            return named
        label, value = m.groups()
        noun = self.rng.choice(AGENT_NOUNS.get(label, (label,)))
        forms = [named, f"{noun} {value}", f"your {noun} {value}"]
        if value.isdigit() and len(value) >= 7:
            forms.append(f"the {noun} ending in {value[-4:]}")
        said = self.rng.choice(forms)
        self._canon[said] = named
        return said

    # -------------------------------------------------------------- results

    def claims(
        self,
        claims: list[Claim],
        subject: str,
        action: GoldAction | None,
        lead: bool = True,
        element: str | None = None,
    ) -> str:
        """The claims of one goal in one sentence, every value spoken as a person would."""
        write = action is not None and action.confirm
        named, subject = subject, self.refer(subject, pronoun=True)
        if not claims:
            return "" if action is None else self.updated(subject, lead)
        for _ in range(12):  # a form that states every claim (scoring's reading) or the plain one
            bits = [self._claim(claim, subject, write, element) for claim in claims]
            last = self.rng.choice(LAST_JOINS)
            sentence = bits[0] if len(bits) == 1 else ", ".join(bits[:-1]) + last + bits[-1]
            opener = self.lead(write) if lead and action is not None else ""
            text = _cap(opener + (_cap(sentence) if opener.endswith(". ") else sentence)) + "."
            if self.states(claims, text):
                return text
        return _claim_sentence(claims, named, action, self.rng, lead=False)

    def states(self, claims: list[Claim], text: str) -> bool:
        """Whether ``text`` states every claim as scoring reads it (``scoring.said``)."""
        from envfactory_mcp.scoring import said
        from envfactory_mcp.scoring.claims import claim_value

        return all(said.mentions(claim_value(claim, self.spec), text) > 0 for claim in claims)

    def _claim(self, claim: Claim, subject: str, write: bool, element: str | None) -> str:
        label = humanise(claim.path)
        parts = claim.path.replace("[]", "").split(".")
        if len(parts) > 1 and parts[-2] in _PER_KIND and not label.endswith(_PER_KIND[parts[-2]]):
            # prices.economy -> "economy price" (totals.items_total stays "items total")
            label = f"{label} {_PER_KIND[parts[-2]]}"
        label = self.label(label)
        value = claim.value
        if claim.path == "status" or claim.path.endswith(".status"):
            said = self.value(value, claim.path)
            now = "now " if write else ""
            forms = [
                f"{subject} is {now}{said}",
                f"{subject} {now}shows as {said}",
                f"{subject} is {now}marked {said}",
                f"{subject} is {now}listed as {said}",
                f"{subject} {'has now' if write else 'has'} the status {said}",
            ]
            if subject != "it":
                forms += [f"the status of {subject} is {now}{said}", f"{subject}'s status is {now}{said}"]
            return self.pick("status", forms)  # fmt: skip
        if isinstance(value, bool):
            return f"{subject} is {'' if value else 'not '}{label}"
        if isinstance(value, int | float):
            said = self.value(value, claim.path)
            # the element as the user named it, its options without a form's colons
            of = f" of {unform(element)}" if "[]" in claim.path and element else ""
            if label == "result":
                return self.pick("total", [f"that comes to {said} in total", f"the total is {said}",
                                           f"altogether that's {said}", f"together they come to {said}"])  # fmt: skip
            if is_money(claim.path, value):
                total = label.endswith(" total")  # refunded total -> what was refunded, in total
                label = label[: -len(" total")] if total else label
                verb = (label.endswith("ed") or label == "paid") and " " not in label  # refunded, charged
                name = f"amount {label}" if verb else label
                words = label.split()
                if len(words) == 2 and (words[1].endswith("ed") or words[1] == "paid"):
                    name = f"{words[0]} amount {words[1]}"  # net paid -> net amount paid
                if total:  # the total's names: "refunded total", "total amount refunded", ...
                    names = [f.format(label=label, name=name) for f in TOTAL_NAMES]
                    name = self.rng.choice([n for n in names if not self.names(n)] or names)
                forms = [f"the {name}{of} is {said}", f"the {name}{of} comes to {said}",
                         f"the {name}{of} is {said} exactly", f"the {name}{of} works out to {said}",
                         f"{said} is the {name}{of}", f"the {name}{of} stands at {said}",
                         f"you're looking at {said} for the {name}{of}", f"the {name}{of} totals {said}",
                         f"that puts the {name}{of} at {said}", f"the {name}{of} amounts to {said}",
                         f"the figure for the {name}{of} is {said}"]  # fmt: skip
                if verb and not of:
                    altogether = " in total" if total else ""
                    forms += [f"{said} has been {label}{altogether}", f"{said} was {label}{altogether}"]
                if label == "refunded" and not of:
                    forms += [f"your refund is {said}", f"you'll get {said} back"]
                if label in ("paid", "net paid") and not of:  # what the payments on it add up to
                    forms += [f"your payments on it come to {said}", f"you've paid {said} on it in total"]
                    if label == "net paid":
                        forms += [f"your payments net out to {said}", f"after any refunds you've paid {said}"]
                return self.pick("money", forms)
            if isinstance(value, int) and label.endswith("s"):
                if label.startswith("total "):
                    name = f"total number of {label[6:]}"
                else:
                    name = label if label.startswith("number") else f"number of {label}"
                counts = [f"the {name}{of} is {said}", f"the {name}{of} comes to {said}",
                          f"the {name}{of} stands at {said}", f"the {name}{of} is now {said}" if write else
                          f"the {name}{of} is currently {said}"]  # fmt: skip
                if not of:
                    counts += [f"there are {said} {label[6:] if label.startswith('total ') else label}",
                               f"that makes {said} {label[6:] if label.startswith('total ') else label}"]  # fmt: skip
                return self.pick("count", counts)
            return self.pick("number", [f"the {label}{of} is {said}", f"the {label}{of} stands at {said}"])
        said = self.value(value, claim.path)
        if claim.path.endswith("_id") and not label.endswith(("number", "code")):
            label += " number"
        return self.pick(
            "field",
            [f"the {label} is {said}", f"the {label} is {said} now" if write else f"the {label} is {said}",
             f"your {label} is {said}", f"the {label} for it is {said}"],
        )  # fmt: skip

    # -------------------------------------------------------------- the action in words

    def describe(self, action: GoldAction, messages: list[Message], intent: str | None = None) -> str:
        """The call in words, every argument included, in the agent's voice: 'change the
        shipping address of order #W0012345 to 1 Main St, Austin, TX 78701, USA'; ids named by
        what the conversation showed about them ('visa credit card ending in 6651'); the
        intent's verb said one of the ways ``AGENT_VERBS`` lists; the thing acted on named in
        the intent where it says "your <thing>" ('change the cabin of reservation KK2BKS');
        details as a person lists them ('with insurance', '2 bags in total', 'on June 5,
        2026', 'economy as the cabin')."""
        outputs = _outputs(messages)
        args = action.arguments
        verb = self.verb(self.words(intent or humanise(action.name)))
        ids = [k for k, v in args.items() if k.endswith("_id") and isinstance(v, str)]
        # The thing acted on: the id whose kind the intent names ("your reservation"), else the first.
        subject_key = next(
            (k for k in ids if re.search(rf"\b(?:your|an?|the)\s+{re.escape(humanise(k))}\b", verb)),
            ids[0] if ids else None,
        )
        named_key = None
        if subject_key is not None and subject_key not in _SELF_KEYS:
            value = str(args[subject_key])
            label = humanise(subject_key)
            if "_" not in value and re.fullmatch(r"[a-z]+", label):
                noun = self.rng.choice(AGENT_NOUNS.get(label, (label,)))
                verb, hits = re.subn(rf"\b(your|an?|the)\s+{label}\b", f"{noun} {value}", verb, count=1)
                if hits and f" of {noun} {value}" in verb:  # "the cabin of booking X" or "on booking X"
                    verb = verb.replace(
                        f" of {noun} {value}", f" {self.rng.choice(OF_WORDS)} {noun} {value}", 1
                    )
                if not hits and subject_key == "order_id":
                    verb += f" for order {value}"
                    hits = 1
                if hits:
                    named_key = subject_key
                    self.said.append(value)
        nouns: list[str] = []
        extras: list[str] = []
        named: set[str] = set()
        address = {k: str(v) for k, v in args.items() if k in ADDRESS_PARTS and v not in ("", None)}
        head = ""
        if len(address) > 1:
            head = "to " + format_us_address(**address)
            self.said.append(head[3:])
        for key, value in args.items():
            if key == named_key or key in address or value in ("", None, []) or key in _SELF_KEYS:
                continue
            label = humanise(key)
            if isinstance(value, list):
                names = [
                    _spoken_options(_name_of(v, outputs)) if isinstance(v, str) else self.value(v, key)
                    for v in value
                ]
                self.said.extend(names)
                nouns.append(f"the {label} " + _and(names))
            elif key.endswith("_id"):
                name = _spoken_options(_name_of(value, outputs))
                if name in named:
                    continue  # named already (a slot and its provider both found as one name)
                named.add(name)
                self.said.append(name)
                if name == str(value):
                    nouns.append(f"{label} {value}")
                elif " " in name:
                    if "ending in" in name:
                        nouns.append(self._card(name))
                    elif re.match(r"[A-Z0-9]", name) and "(" not in name:  # a proper name: "Dr. Maya Patel"
                        nouns.append(self.rng.choice([name, f"the {label} {name}", f"{name} as the {label}"]))
                    else:
                        nouns.append(f"the {name}")
                else:
                    shown = display_words(name, self.spec)
                    if shown.lower() in label.split():  # a kind that is the label's own word ("payment")
                        nouns.append(f"the {label} {value}")
                    else:
                        nouns.append(
                            self.rng.choice([f"the {shown} {label}", f"your {shown} {label}", shown])
                        )
            elif key.endswith("reason") and isinstance(value, str):
                said = self.value(value, key)
                extras.append(self.rng.choice([f"the reason being {said}", f"giving {said} as the reason",
                                               f"with {said} as the reason", f"for the reason '{said}'"]))  # fmt: skip
            elif isinstance(value, str) and len(value.split()) > 3:
                self.said.append(value)
                nouns.append(self.rng.choice([f'the {label} "{value}"', f'"{value}" as the {label}']))
            elif isinstance(value, bool) or (isinstance(value, str) and value.lower() in ("yes", "no")):
                yes = value if isinstance(value, bool) else value.lower() == "yes"
                extras.append(
                    self.rng.choice([f"with {label}", f"including {label}", f"with {label} included"])
                    if yes
                    else self.rng.choice([f"without {label}", f"with no {label}", f"and no {label}"])
                )
            else:
                nouns.append(self._detail(key, label, value))
        text = self.unname(f"{verb} {head}".rstrip())
        if nouns:
            joins = [
                ", with ",
                " using ",
                " — ",
                ", with these details: ",
                ", and that's with ",
                "; that covers ",
                ", set up with ",
                ", including ",
                ": ",
                ", which means ",
                ", going with ",
            ]
            text += self.pick("with", joins) + _and(nouns, self.rng.choice(NOUN_JOINS))
        if extras:
            clause = nouns or head or not extras[0].startswith(("with", "without", "including", "and no"))
            text += (", " if clause else " ") + _and(extras)
        return text

    def _card(self, name: str) -> str:
        """A card as a person names it ("discover credit card ending in 7260" -> "your
        Discover card ending in 7260", "the Discover credit card, last four 7260")."""
        m = re.fullmatch(r"(?:(\w+) )?((?:\w+ )*?\w*card|[\w ]+?) ending in (\w+)", name)
        if m is None:
            return f"the {name}"
        brand, kind, four = m.group(1), m.group(2), m.group(3)
        if brand is not None and brand.lower() in ("gift", "credit", "debit", "prepaid", "store", "bank"):
            brand, kind = None, f"{brand} {kind}"  # a kind of card, not a brand
        brand = (brand[:1].upper() + brand[1:]) if brand and brand.islower() else brand
        short = "card" if "card" in kind else kind
        whole = f"{brand} {kind}" if brand else kind
        return self.rng.choice(
            [
                f"the {whole} ending in {four}",
                f"your {brand + ' ' if brand else ''}{short} ending in {four}",
                f"the {whole} that ends in {four}",
                f"the {whole} with the last four digits {four}",
                f"your {whole}, the one ending in {four}",
                f"the {short} ending {four}" + (f" ({brand})" if brand else ""),
                f"the {whole} (last four {four})",
                f"the {brand + ' ' if brand else ''}{short} that ends in {four}",
                f"the {short} with {four} as its last four digits" + (f", your {brand}" if brand else ""),
                f"your {whole} ending {four}",
            ]
        )

    def _detail(self, key: str, label: str, value: Any) -> str:
        """One detail of an action as a noun phrase: '2 bags in total', '3 gigabytes',
        'economy as the cabin', 'the date June 5, 2026', 'billing category'."""
        said = self.value(value, key)
        words = label.split()
        if isinstance(value, int) and not isinstance(value, bool) and not is_money(key, value):
            if words[0] == "total" and len(words) > 1 and words[-1].endswith("s"):
                return self.rng.choice(
                    [f"{said} {' '.join(words[1:])} in total", f"a total of {said} {' '.join(words[1:])}"]
                )
            if len(words) == 1 and label.endswith("s"):
                return f"{said} {label}"
        if key.endswith(("_number", "_code")) and isinstance(value, str | int):
            forms = [f"{label} {said}", f"the {label} {said}", f"{words[-1]} {said}"]
            if len(words) > 1:  # flight number HAT705 -> flight HAT705
                forms += [f"{' '.join(words[:-1])} {said}", f"the {' '.join(words[:-1])} {said}"]
            return self.rng.choice(forms)
        forms = [f"the {label} {said}", f"{said} as the {label}", f"{label} {said}"]
        if label == "date" and isinstance(value, str) and readable_date(value):
            return self.rng.choice([f"on {said}", f"for {said}", f"dated {said}", f"the date {said}"])
        if (
            isinstance(value, str)
            and len(words) == 1
            and len(said.split()) <= 2
            and not any(c.isdigit() for c in said)
        ):
            forms += [f"{said} {label}", f"the {said} {label}"]
        return self.rng.choice(forms)


def _spoken_options(name: str) -> str:
    """A product's options as a person lists them: 'Hiking Boots (material: leather, size: 11)'
    -> 'Hiking Boots (leather, size 11)': a word value alone, a number with what it measures."""

    def option(m: re.Match[str]) -> str:
        key, value = m.group(1), m.group(2)
        return f"{key} {value}" if any(c.isdigit() for c in value) else value

    return re.sub(r"([A-Za-z][\w ]*?): ([^,()]+)", option, name)


NOUN_JOINS = (" and ", ", and ", " together with ", " along with ")  # before the last detail of an action
LAST_JOINS = (" and ", ", and ", "; ", " and also ", ", while ")  # before the last claim of a sentence
# A money total's names ("refunded total": {label} "refunded", {name} "amount refunded").
TOTAL_NAMES = ("{label} total", "total {name}", "{name} in total", "overall {name}", "{label} sum", "sum {name}",
               "{label} figure overall")  # fmt: skip


OF_WORDS = ("of", "on", "for")  # "the cabin of reservation X": the thing acted on, joined another way


def _and(items: list[str], last: str = " and ") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + last + items[-1]


_SELF_KEYS = frozenset(
    {"user_id", "customer_id", "member_id", "patient_id", "client_id", "account_holder_id"}
)


def subject_of(action: GoldAction | None) -> str:
    """What the action is about, as the agent names it: 'order #W0012345', 'your profile',
    'reservation 8QFGY6', 'the payment method' (an internal id such as 'credit_card_000177'
    is not said as a name)."""
    if action is None:
        return "it"
    for key, value in action.arguments.items():
        if key.endswith("_id") and isinstance(value, str):
            if key == "order_id":
                return f"order {value}"
            if key in _SELF_KEYS:
                return "your profile"
            name = action.output.get("name")
            if isinstance(name, str):
                return f"the {name}"
            label = humanise(key)
            return f"the {label}" if "_" in value else f"{label} {value}"
    for key, value in action.arguments.items():
        if key.endswith(("_number", "_code")) and isinstance(value, str | int):
            return f"{humanise(key)} {value}"
    return "it"


class PlainSpeaker:
    """The plain voice (the tables and helpers at the top of this module), with the
    ``Speaker`` interface; draws from the demonstrator's own random stream, so its text is
    what the demonstrator always said (the metamorphic agents find its fixed frames)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def greeting(self) -> str:
        return self.rng.choice(OPENERS)

    def identity(self, facts: list[Fact]) -> str:
        return self.rng.choice(IDENTITY_ASKS).format(what=_identity_words(facts))

    def ask_for(self, group: list[Fact]) -> str:
        return _ask_for(group, self.rng)

    def confirm(self, action: GoldAction, messages: list[Message], intent: str | None) -> str:
        return self.rng.choice(CONFIRM_ASKS).format(action=describe_action(action, messages, intent))

    def claims(
        self,
        claims: list[Claim],
        subject: str,
        action: GoldAction | None,
        lead: bool = True,
        element: str | None = None,
    ) -> str:
        return _claim_sentence(claims, subject, action, self.rng, lead=lead, element=element)

    def refusal(self, requested: str, reason: str) -> str:
        return f"I'm sorry, but I can't {_as_action(requested)}: {reason}."

    def unmet(self, condition: str, requested: str) -> str:
        return f"Since it is not {condition}, I can't {_as_action(requested)}; that's where it stands."

    def met(self, subject: str, condition: str) -> str:
        return _sentence(f"{subject} is {condition}, so I can go ahead with that")

    def instead(self, subject: str, otherwise: str) -> str:
        return _sentence(
            f"{subject} does not qualify for that, so as you asked I'll {_as_action(otherwise)} instead"
        )

    def transfer(self, request: str) -> str:
        return self.rng.choice(TRANSFER_DONE).format(request=request or "this")

    def close(self) -> str:
        return self.rng.choice(CLOSINGS)

    def subject(self, action: GoldAction | None) -> str:
        return _subject(action)
