"""How the demonstrator says things: its greetings, questions, confirmations, results,
refusals, hand-offs and closings (``sim/demonstrator.py`` decides what to do next; this
module decides the words)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from envfactory_mcp.sim.types import Message
from envfactory_mcp.tasks.addresses import ADDRESS_PARTS, format_us_address
from envfactory_mcp.tasks.model import Claim, Fact, GoldAction

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
    if not isinstance(node.get("name"), str) and parent_name:
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
    return " ".join(w for w in said if w) or "detail"


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


def _end(text: str, mark: str = ".") -> str:
    text = text.rstrip()
    return text if text.endswith((".", "?", "!")) else text + mark


GREET_HI = ["Hi", "Hello", "Hi there", "Thanks for reaching out", "Thanks for getting in touch", "Good to hear from you",
            "Thanks for contacting us", "Hello and thanks for writing in", "Welcome", "Good day",
            "Thanks for your message", "Nice to hear from you"]  # fmt: skip
GREET_HELP = ["I can help with that", "I'd be glad to help", "I'll be happy to look into this",
              "let's get this sorted out", "I can take care of that for you", "I'm glad to assist",
              "I'll look into it right away", "we can sort this out together", "you've come to the right place",
              "this is something I can handle", "let's see what we can do", "I'm on it",
              "happy to take a look", "let me see to it"]  # fmt: skip

IDENTITY_LEAD = ["First", "Before I look into this", "To get started", "Before I pull anything up",
                 "So I can find your records", "Before we go any further", "To begin",
                 "Just so I'm looking at the right profile", "For security", "As a first step",
                 "Before anything else", "To bring up your details"]  # fmt: skip
IDENTITY_ASK = ["could you give me {what}", "may I have {what}", "could you share {what}", "can you tell me {what}",
                "would you mind sharing {what}", "what is {what}", "please send me {what}",
                "I'll need {what}"]  # fmt: skip
IDENTITY_WHY = ["", " so I can verify who I'm speaking with", " to verify your identity", " so I can look you up",
                " to confirm it's you", " to pull up your file"]  # fmt: skip

DETAIL_LEAD = ["", "Before I go ahead, ", "One thing first: ", "So I get this right, ", "Just to be sure, ",
               "To set this up, ", "Quick question: ", "One more detail: ", "Before I continue, ",
               "To finish this off, "]  # fmt: skip
DETAIL_ASK = ["which {label} would you like to use?", "which {label} should I use?", "which {label} do you mean?",
              "could you tell me which {label} you'd like?", "which {label} did you have in mind?",
              "which {label} are we talking about?", "which {label} works best for you?"]  # fmt: skip
VALUE_ASK = ["what should the {label} be?", "could you tell me the {label}?", "what {label} would you like?",
             "what's the {label} you'd like me to use?", "can you let me know the {label}?",
             "what {label} should I put down?", "which {label} would suit you?"]  # fmt: skip
REASON_ASK = ["may I ask the reason?", "what's the reason for this?", "could you tell me the reason?",
              "can I ask the reason behind it?", "what is the reason, if you don't mind me asking?",
              "could you let me know the reason for it?"]  # fmt: skip
ADDRESS_ASK = ["what is the new address, with street, city, state, zip code and country?",
               "could you give me the full new address (street, city, state, zip code and country)?",
               "where should it go (street, city, state, zip code and country)?"]  # fmt: skip

CONFIRM_LEAD = ["To confirm, ", "Just to be sure, ", "Before I make the change, ", "So we're on the same page, ",
                "Let me check with you first: ", "Okay, ", "Alright, ", "Here's the plan: ", "Right, ",
                "Let me run this by you: ", "Before I touch anything, ", "If I've understood correctly, "]  # fmt: skip
CONFIRM_BODY = ["I'll {action}", "I'm going to {action}", "I will {action}", "the plan is to {action}",
                "I'm about to {action}", "the next step would be to {action}", "I'd {action}",
                "I can {action} now"]  # fmt: skip
YES_LEAD = ["", "So, ", "Then ", "Now, ", "If that's right, "]
YES_ASK = ["shall I go ahead?", "is that okay with you?", "should I proceed?", "do you want me to go ahead?",
           "okay to proceed?", "would you like me to proceed?", "is that correct?", "shall I do that?",
           "should I go ahead with it?", "can you confirm?", "are you happy for me to go ahead?",
           "is it okay to go ahead?", "shall I make it happen?", "do you want me to confirm it?",
           "is that fine by you?", "should I finalise it?", "shall I carry on?", "would you like me to do that?"]  # fmt: skip
CONFIRM_QUESTION = ["Shall I {action}?", "Would you like me to {action}?", "Do you want me to {action} now?",
                    "Should I go ahead and {action}?", "Shall I go ahead and {action}?",
                    "Can you confirm you'd like me to {action}?", "Just to confirm: should I {action}?",
                    "Are you sure you'd like me to {action}?", "Okay to {action}?"]  # fmt: skip

DONE_LEAD = ["", "Done: ", "There we go: ", "That's taken care of: ", "Thanks for confirming; ", "All set: ",
             "Thanks, that went through: ", "It's done, and ", "Okay, that's through: ", "Good news: ",
             "Right, ", "That worked: ", "I've processed it: ", "Perfect, ", "Success: "]  # fmt: skip
FOUND_LEAD = ["", "I've checked, and ", "I looked it up: ", "Here's what I found: ", "According to our records, ",
              "I can see that ", "Our records show that ", "From what I can see, ", "On my screen, ",
              "Having checked, ", "I've pulled it up: ", "The system shows that "]  # fmt: skip
UPDATED = ["{subject} has been updated", "{subject} is updated", "the change to {subject} went through",
           "{subject} now has the change", "I've made the change to {subject}", "the update to {subject} is in",
           "I've updated {subject}", "{subject} reflects the change now", "your request for {subject} is processed",
           "{subject} is sorted"]  # fmt: skip

REFUSE = ["I'm sorry, but I can't {act}: {reason}.", "Unfortunately I'm not able to {act}, because {reason}.",
          "I'm afraid I can't {act}, since {reason}.", "I can't {act} here, I'm sorry: {reason}.",
          "That's one thing I can't do: I'm unable to {act} because {reason}.",
          "I'm sorry, I'm not able to {act}; {reason}.", "Regrettably, I can't {act}, as {reason}.",
          "I have to say no to that: I can't {act}, because {reason}."]  # fmt: skip
UNMET = ["Since it is not {cond}, I can't {act}; that's where it stands.",
         "Because it isn't {cond}, I'm not able to {act}, so that's where things are.",
         "It isn't {cond}, so I can't {act}; that's the current state.",
         "As it's not {cond}, I'm unable to {act}, and that's where it stands.",
         "I can't {act} because it is not {cond}, so it stays as it is.",
         "It's no longer {cond}, which rules out being able to {act}; that's the situation."]  # fmt: skip
MET = ["{subject} is {cond}, so I can go ahead with that.", "{subject} is {cond}, which means I can do that.",
       "Good news: {subject} is {cond}, so that's possible.", "{subject} is {cond}, so there's no problem there.",
       "I checked: {subject} is {cond}, so we can do it.", "{subject} is still {cond}, so this is doable."]  # fmt: skip
INSTEAD = ["{subject} does not qualify for that, so as you asked I'll {act} instead.",
           "{subject} isn't eligible for that; as you asked, I'll {act} instead.",
           "That isn't possible for {subject}, so, as you said, I'll {act} instead.",
           "{subject} doesn't qualify, so I'll {act} instead, as you asked.",
           "As {subject} can't have that, I'll follow your fallback and {act}."]  # fmt: skip
TRANSFER = ["I'm not able to arrange {request} myself, so I've transferred you to a human agent; they will follow up "
            "with you.",
            "{Request} is outside what I can do here, so I've handed your case to a human agent, who will get in "
            "touch.",
            "I can't handle {request} from here, so I've passed your case to a human agent who can; they'll "
            "contact you.",
            "For {request} you'll need one of my colleagues: I've transferred you to a human agent, and they'll "
            "reach out shortly.",
            "That one needs a person: I've escalated {request} to a human agent, who will be in touch with you."]  # fmt: skip
CLOSE_LEAD = ["", "Before you go, ", "Now, ", "Alright, ", "Okay, ", "And ", "Lastly, ", "So, "]
CLOSE_CORE = ["is there anything else I can help you with?", "anything else I can do for you today?",
              "is there something else you'd like me to look at?", "can I help with anything else?",
              "what else can I do for you?", "do you need help with anything else?",
              "is there anything more I can look into for you?", "anything else on your list?",
              "is there anything else you need from me?", "can I do anything else for you today?",
              "is there any other matter I can help with?", "was there something further you needed?",
              "can I assist with something more?", "is that everything for today?",
              "does that cover what you needed?", "shall we look at something else too?",
              "do you have any other questions?", "is there more you'd like to sort out?"]  # fmt: skip


def identity_words(facts: list[Fact], rng: random.Random) -> str:
    """The identity details asked for, in words, in an order and phrasing drawn from ``rng``."""
    keys = [f.key for f in facts]
    if "email" in keys:
        return rng.choice(["the email address on your account", "your account's email address",
                           "the email you registered with", "the email address you use with us"])  # fmt: skip
    if {"first_name", "last_name", "zip"} <= set(keys):
        return rng.choice(["your first name, last name and zip code", "your full name and zip code",
                           "your name and the zip code on file", "your zip code and full name"])  # fmt: skip
    labels = [f"{_label(f)}" for f in facts]
    if "first name" in labels and "last name" in labels:
        labels = [x for x in labels if x not in ("first name", "last name")] + ["full name"]
    rng.shuffle(labels)
    return "your " + _and(labels) if rng.random() < 0.5 else _and([f"your {x}" for x in labels])


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

    # -------------------------------------------------------------- drawing

    def pick(self, act: str, forms: list[str]) -> str:
        fresh = [f for f in forms if (act, f) not in self.used] or forms
        form = self.rng.choice(fresh)
        self.used.add((act, form))
        return form

    def refer(self, subject: str) -> str:
        """``subject`` again, as a person refers back to what was just named: the name
        or "the <kind>" ("order #W1" -> "the order", "this order"); a new subject by its name."""
        again = subject == self.last_subject
        self.last_subject = subject
        head = re.sub(r"\s+\S*\d\S*$", "", subject)
        if not again or head == subject or not re.fullmatch(r"[a-z]+(?: [a-z]+)?", head):
            return subject
        return self.rng.choice([subject, f"the {head}", f"this {head}"])

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
        form = self.pick(
            "identity", _forms([lead + ", " for lead in IDENTITY_LEAD], IDENTITY_ASK, IDENTITY_WHY)
        )
        return _cap(form.format(what=identity_words(facts, self.rng))) + "?"

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
        return _cap(self.pick("ask", _forms(DETAIL_LEAD, asks)).format(label=humanise(fact.key)))

    def confirm(self, action: GoldAction, messages: list[Message], intent: str | None) -> str:
        """The action in words, then a question asking for a yes that names nothing (the
        user reads only the last question: a detail or a word such as "account" in it
        would read as a request for that)."""
        what = self.describe(action, messages, intent)
        self.last_subject = subject_of(action)
        statement = _cap(self.pick("propose", _forms(CONFIRM_LEAD, CONFIRM_BODY)).format(action=what)) + "."
        return statement + " " + _cap(self.pick("yes?", _forms(YES_LEAD, YES_ASK)))

    def updated(self, subject: str, lead: bool) -> str:
        form = self.pick("updated", _forms(DONE_LEAD if lead else [""], UPDATED))
        return _cap(form.format(subject=subject)) + "."

    def lead(self, write: bool) -> str:
        return self.pick("lead", DONE_LEAD if write else FOUND_LEAD)

    def refusal(self, requested: str, reason: str) -> str:
        return self.pick("refuse", REFUSE).format(act=agent_voice(_as_action(requested)), reason=reason)

    def unmet(self, condition: str, requested: str) -> str:
        return self.pick("unmet", UNMET).format(
            cond=agent_voice(condition), act=agent_voice(_as_action(requested))
        )

    def met(self, subject: str, condition: str) -> str:
        return _cap(self.pick("met", MET).format(subject=subject, cond=agent_voice(condition)))

    def instead(self, subject: str, otherwise: str) -> str:
        text = self.pick("instead", INSTEAD).format(subject=subject, act=agent_voice(_as_action(otherwise)))
        return _cap(text)

    def transfer(self, request: str) -> str:
        request = agent_voice(request or "this")
        form = self.pick("transfer", TRANSFER)
        return _cap(form.replace("{Request}", _cap(request)).format(request=request))

    def close(self) -> str:
        return _cap(self.pick("close", _forms(CLOSE_LEAD, CLOSE_CORE)))

    def subject(self, action: GoldAction | None) -> str:
        return subject_of(action)

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
        named, subject = subject, self.refer(subject)
        if not claims:
            return "" if action is None else self.updated(subject, lead)
        for _ in range(12):  # a form that states every claim (scoring's reading) or the plain one
            bits = [self._claim(claim, subject, write, element) for claim in claims]
            sentence = bits[0] if len(bits) == 1 else ", ".join(bits[:-1]) + " and " + bits[-1]
            opener = self.lead(write) if lead and action is not None else ""
            text = _cap(opener + sentence) + "."
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
        value = claim.value
        if claim.path == "status" or claim.path.endswith(".status"):
            said = self.value(value, claim.path)
            now = "now " if write else ""
            return self.pick(
                "status",
                [f"{subject} is {now}{said}", f"the status of {subject} is {now}{said}",
                 f"{subject} {now}shows as {said}", f"{subject} is {now}marked {said}"],
            )  # fmt: skip
        if isinstance(value, bool):
            return f"{subject} is {'' if value else 'not '}{label}"
        if isinstance(value, int | float):
            said = self.value(value, claim.path)
            of = f" of {element}" if "[]" in claim.path and element else ""
            if label == "result":
                return self.pick("total", [f"that comes to {said} in total", f"the total is {said}",
                                           f"altogether that's {said}", f"together they come to {said}"])  # fmt: skip
            if is_money(claim.path, value):
                verb = (label.endswith("ed") or label == "paid") and " " not in label  # refunded, charged
                name = f"amount {label}" if verb else label
                words = label.split()
                if len(words) == 2 and (words[1].endswith("ed") or words[1] == "paid"):
                    name = f"{words[0]} amount {words[1]}"  # net paid -> net amount paid
                forms = [f"the {name}{of} is {said}", f"the {name}{of} comes to {said}",
                         f"the {name}{of} is {said} exactly", f"the {name}{of} works out to {said}",
                         f"{said} is the {name}{of}"]  # fmt: skip
                if verb and not of:
                    forms += [f"{said} has been {label}", f"{said} was {label}"]
                if label == "refunded" and not of:
                    forms += [f"your refund is {said}", f"you'll get {said} back"]
                return self.pick("money", forms)
            if isinstance(value, int) and label.endswith("s"):
                if label.startswith("total "):
                    name = f"total number of {label[6:]}"
                else:
                    name = label if label.startswith("number") else f"number of {label}"
                return self.pick("count", [f"the {name}{of} is {said}", f"the {name}{of} comes to {said}"])
            return self.pick("number", [f"the {label}{of} is {said}", f"the {label}{of} stands at {said}"])
        said = self.value(value, claim.path)
        if claim.path.endswith("_id") and not label.endswith(("number", "code")):
            label += " number"
        return self.pick(
            "field",
            [f"the {label} is {said}", f"the {label} is {said} now" if write else f"the {label} is {said}"],
        )

    # -------------------------------------------------------------- the action in words

    def describe(self, action: GoldAction, messages: list[Message], intent: str | None = None) -> str:
        """The call in words, every argument included, in the agent's voice: 'change the
        shipping address of order #W0012345 to 1 Main St, Austin, TX 78701, USA'; ids named by
        what the conversation showed about them ('visa credit card ending in 6651')."""
        outputs = _outputs(messages)
        args = action.arguments
        subject_key = next((k for k, v in args.items() if k.endswith("_id") and isinstance(v, str)), None)
        verb = agent_voice(intent or humanise(action.name))
        if subject_key == "order_id":
            verb, hits = re.subn(r"\b(your|an?|the)\s+order\b", f"order {args['order_id']}", verb)
            if not hits:
                verb += f" for order {args['order_id']}"
            self.said.append(str(args["order_id"]))
        parts: list[str] = []
        address = {k: str(v) for k, v in args.items() if k in ADDRESS_PARTS and v not in ("", None)}
        head = ""
        if len(address) > 1:
            head = "to " + format_us_address(**address)
            self.said.append(head[3:])
        for key, value in args.items():
            if key == subject_key or key in address or value in ("", None, []) or key in _SELF_KEYS:
                continue
            label = humanise(key)
            if isinstance(value, list):
                names = [
                    _spoken_options(_name_of(v, outputs)) if isinstance(v, str) else self.value(v, key)
                    for v in value
                ]
                self.said.extend(names)
                parts.append(f"the {label} " + _and(names))
            elif key.endswith("_id"):
                name = _spoken_options(_name_of(value, outputs))
                self.said.append(name)
                if name == str(value):
                    parts.append(f"{label} {value}")
                else:
                    parts.append(
                        f"the {name}" if " " in name else f"the {display_words(name, self.spec)} {label}"
                    )
            elif key.endswith("reason") and isinstance(value, str):
                said = self.value(value, key)
                parts.append(
                    self.rng.choice(
                        [f"the reason being {said}", f"{said} as the reason", f"giving {said} as the reason"]
                    )
                )
            elif isinstance(value, str) and len(value.split()) > 3:
                self.said.append(value)
                parts.append(self.rng.choice([f'the {label} "{value}"', f'"{value}" as the {label}']))
            else:
                said = self.value(value, key)
                parts.append(
                    self.rng.choice([f"the {label} {said}", f"{said} as the {label}", f"{label} {said}"])
                )
        text = f"{verb} {head}".rstrip()
        if parts:
            joins = [
                ", with ",
                " using ",
                " — ",
                ", with these details: ",
                ", and that's with ",
                ", setting ",
            ]
            text += self.pick("with", joins) + _and(parts)
        return text


def _spoken_options(name: str) -> str:
    """A product's options as a person lists them: 'Hiking Boots (material: leather, size: 11)'
    -> 'Hiking Boots (leather, size 11)': a word value alone, a number with what it measures."""

    def option(m: re.Match[str]) -> str:
        key, value = m.group(1), m.group(2)
        return f"{key} {value}" if any(c.isdigit() for c in value) else value

    return re.sub(r"([A-Za-z][\w ]*?): ([^,()]+)", option, name)


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


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
