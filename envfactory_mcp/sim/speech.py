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
