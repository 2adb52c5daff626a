"""The demonstrator: a scripted agent whose episodes are fit to be SFT data.

It knows the task's gold plan (which calls, in which order) but behaves as a careful human
agent following the policy would, so a model trained on its episodes learns the behaviour
and not the privilege:

* it asks the user for what the next call needs and the user has not said yet (who they
  are, before the authentication call; a detail the user held back, before the write
  that uses it), and never types a value that did not come from the user or a tool;
* before every call the policy wants confirmed (``GoldAction.confirm``), it states the
  exact action and waits for an explicit yes;
* after each goal it tells the user what happened in words (every claim of that goal);
  a refused request is explained with the policy's reason; a request no tool serves is
  handed to a human;
* one tool call per turn, and never text in the same turn as a call.

The gold-replaying ``OracleAgent`` stays as a test instrument; this agent is the default
source of demonstrations. Its phrasing varies with a per-task seed.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from envfactory_mcp.llm import ToolCall
from envfactory_mcp.sim.types import AgentTurn, Message
from envfactory_mcp.tasks.addresses import ADDRESS_PARTS, format_us_address
from envfactory_mcp.tasks.model import Claim, Fact, GoalOutcome, GoldAction, Task
from envfactory_mcp.tasks.oracle import leaves

ASK_LIMIT = 2  # times the same question is asked before going on without an answer

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


class DemonstratorAgent:
    """Scripted, policy-following agent (see the module doc)."""

    name = "demonstrator"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._task: Task | None = None
        self._offered: set[str] = set()
        self._rng = random.Random()
        self._next = 0
        self._asked: dict[str, int] = {}
        self._awaiting_yes: int | None = None
        self._confirmed: int | None = None
        self._told: set[int] = set()
        self._greeted = False

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self._task = task
        self._offered = {t["function"]["name"] for t in tools}
        self._rng = random.Random(f"demonstrator:{self.seed}:{task.task_id}")
        self._next = 0
        self._asked = {}
        self._awaiting_yes = None
        self._confirmed = None
        self._told = set()
        self._greeted = False

    async def act(self, messages: list[Message]) -> AgentTurn:
        task = self._task
        if task is None:
            raise RuntimeError("DemonstratorAgent.act() before start()")
        said = _user_text(messages)
        if self._awaiting_yes is not None:
            if _last_user_affirms(messages):
                self._confirmed = self._awaiting_yes
            self._awaiting_yes = None
        report = self._report_finished(task)
        actions = task.gold.actions
        if self._next >= len(actions):
            return self._say([*report, self._rng.choice(CLOSINGS)])
        action = actions[self._next]
        missing = self._unstated(task, action, said)
        if missing:
            missing = [f for f in missing if f.kind == "identity"] or _group(missing)[0]
            key = "|".join(f.key for f in missing)
            if self._asked.get(key, 0) < ASK_LIMIT:
                self._asked[key] = self._asked.get(key, 0) + 1
                return self._say([*report, self._question(missing)])
        goal = self._goal_of(task, self._next)
        if action.confirm and self._confirmed != self._next:
            self._awaiting_yes = self._next
            lead = self._before_write(task, goal, action)
            intent = goal.intent if goal is not None and goal.tool == action.name else None
            text = self._rng.choice(CONFIRM_ASKS).format(action=describe_action(action, messages, intent))
            return self._say(report + lead + [text])
        if report:
            return self._say(report)  # results before the next call: never text and a call in one turn
        return self._call(action)

    # ---------------------------------------------------------------- turns

    def _say(self, parts: list[str]) -> AgentTurn:
        if not self._greeted and self._next == 0:  # a greeting only as the first thing said
            parts = [self._rng.choice(OPENERS), *parts]
        self._greeted = True
        return AgentTurn(content=" ".join(p for p in parts if p))

    def _call(self, action: GoldAction) -> AgentTurn:
        namespaced = f"{action.server}__{action.name}"
        name = namespaced if namespaced in self._offered else action.name
        call = ToolCall.parse(f"call_{self._next}", name, json.dumps(action.arguments))
        self._next += 1
        return AgentTurn(tool_calls=[call])

    # ---------------------------------------------------------------- what to ask

    def _unstated(self, task: Task, action: GoldAction, said: str) -> list[Fact]:
        """Facts the next call depends on that the user has not said: its own argument
        values, and, before a goal's first write, every detail of that goal."""
        values = {json.dumps(v, default=str) for v in leaves(action.arguments)}
        goal = self._goal_of(task, self._next)
        first_write = action.confirm and not any(
            task.gold.actions[i].confirm for i in (goal.actions if goal else []) if i < self._next
        )
        missing: list[Fact] = []
        own = self._goal_index(task, goal) if goal is not None else None
        for fact in task.user_scenario.known_info:
            uses = json.dumps(fact.value, default=str) in values
            held = first_write and fact.goal == own and not fact.in_opening
            if (uses or held) and not _stated(fact, said):
                missing.append(fact)
        return missing

    def _question(self, facts: list[Fact]) -> str:
        identity = [f for f in facts if f.kind == "identity"]
        if identity:
            return self._rng.choice(IDENTITY_ASKS).format(what=_identity_words(identity))
        return _ask_for(_group(facts)[0], self._rng)  # one question at a time

    # ---------------------------------------------------------------- what to tell

    def _goal_of(self, task: Task, action_index: int) -> GoalOutcome | None:
        return next((g for g in task.gold.goals if action_index in g.actions), None)

    def _goal_index(self, task: Task, goal: GoalOutcome) -> int:
        return task.gold.goals.index(goal)

    def _report_finished(self, task: Task) -> list[str]:
        """A sentence for every goal whose calls are all done and that was not told yet."""
        parts: list[str] = []
        for index, goal in enumerate(task.gold.goals):
            if index in self._told or any(i >= self._next for i in goal.actions):
                continue
            self._told.add(index)
            parts.append(self._result(task, index, goal))
        return [p for p in parts if p]

    def _result(self, task: Task, index: int, goal: GoalOutcome) -> str:
        main = _main_action(task, goal)
        claims = self._claims_of(task, index, goal)
        subject = _subject(main)
        if goal.kind == "transfer":
            return self._rng.choice(TRANSFER_DONE).format(request=goal.request or "this")
        lead = goal.kind not in ("refuse", "contingent") or goal.taken == "then"
        element = next(
            (
                f.text
                for f in reversed(task.user_scenario.known_info)
                if f.goal == index and f.kind == "reference"
            ),
            None,
        )
        facts = _claim_sentence(claims, subject, main, self._rng, lead=lead, element=element)
        if goal.kind == "refuse" or (
            goal.kind == "contingent"
            and goal.taken == "otherwise"
            and goal.otherwise
            and not _is_write_goal(task, goal)
        ):
            requested = goal.requested or "do that"
            return (
                f"{facts} I'm sorry, but I can't {_as_action(requested)}: {goal.reason}."
                if goal.kind == "refuse"
                else f"{facts} Since it is not {goal.condition}, I can't {_as_action(requested)}; "
                f"that's where it stands."
            )
        return facts

    def _claims_of(self, task: Task, index: int, goal: GoalOutcome) -> list[Claim]:
        return [c for c in task.gold.claims if c.goal == index]

    def _before_write(self, task: Task, goal: GoalOutcome | None, action: GoldAction) -> list[str]:
        """For a contingent goal: what the agent found, and which branch that means."""
        if goal is None or goal.kind != "contingent" or action.name != goal.tool:
            return []
        if goal.taken == "then":
            return [_sentence(f"{_subject(action)} is {goal.condition}, so I can go ahead with that")]
        return [
            _sentence(
                f"{_subject(action)} does not qualify for that, so as you asked I'll "
                f"{_as_action(goal.otherwise or '')} instead"
            )
        ]


# ---------------------------------------------------------------- phrasing helpers


def _user_text(messages: list[Message]) -> str:
    return "\n".join(
        str(m.get("content"))
        for m in messages
        if m.get("role") == "user" and isinstance(m.get("content"), str)
    ).casefold()


def _last_user_affirms(messages: list[Message]) -> bool:
    from envfactory_mcp.scoring.policy import affirms

    for message in reversed(messages):
        if message.get("role") == "user":
            return affirms(str(message.get("content") or ""))
    return False


def _stated(fact: Fact, said: str) -> bool:
    return all(m.casefold() in said for m in fact.must)


def _label(fact: Fact) -> str:
    last = fact.key.rsplit(".", 1)[-1]
    words = [w for w in re.findall(r"[a-z]+", last.lower()) if w not in ("id", "ids")]
    return " ".join(words) or last


def _group(facts: list[Fact]) -> list[list[Fact]]:
    """Facts asked together: the parts of one address, else one by one."""
    groups: list[list[Fact]] = []
    address: list[Fact] = []
    for fact in facts:
        if fact.key.rsplit(".", 1)[-1] in ADDRESS_PARTS:
            address.append(fact)
        else:
            groups.append([fact])
    return ([address] if address else []) + groups


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


def _main_action(task: Task, goal: GoalOutcome) -> GoldAction | None:
    """The goal's own call (lookups before it and checks after it aside)."""
    own = [task.gold.actions[i] for i in goal.actions if task.gold.actions[i].name == goal.tool]
    return own[-1] if own else None


def _is_write_goal(task: Task, goal: GoalOutcome) -> bool:
    return any(task.gold.actions[i].confirm for i in goal.actions)


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
