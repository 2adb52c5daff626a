"""From an oracle run to what the user knows: facts, implicit descriptions, the audit instruction.

A person does not know internal ids. When the agent had to look an object up, the user
knows it by what it is: an order by the products in it, an item by its product and
options, a payment method by its kind and brand. ``Describer`` builds such descriptions
from the seed data alone (names of related rows, JSON options, categorical columns,
dates, short labels), adding attributes only until the object is unique among the
user's other objects of the same kind.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from envfactory_mcp.env import Environment
from envfactory_mcp.seeddata import SeedData
from envfactory_mcp.spec import ToolSpec
from envfactory_mcp.tasks.compose import TELL_STATE, TOTAL_INTENT, ComposedGold, GoalDraw
from envfactory_mcp.tasks.model import Claim, Fact, FactKind, GoalOutcome
from envfactory_mcp.tasks.oracle import OracleRun, Rejected, persona_entity_of, values_at
from envfactory_mcp.tasks.realise import GoalPlan
from envfactory_mcp.tasks.values import display_of, in_words, spoken_value

NAME_COLUMNS = ("name", "title", "label")
STYLES = (
    "polite and patient",
    "brief and to the point",
    "a little impatient",
    "chatty and friendly",
    "careful and detail-oriented",
    "unsure and hesitant",
)


@dataclass(frozen=True)
class Description:
    text: str
    must: list[str]


class Describer:
    def __init__(self, env: Environment, data: SeedData) -> None:
        self.env, self.data = env, data
        self.tables = {t.name: t for t in env.spec.tables}
        self.persona_entity = persona_entity_of(env.spec)
        self.persona_table = data.owner[self.persona_entity][0] if self.persona_entity in data.owner else None
        # A row's attributes depend on the seed alone: worked out once per row.
        self._attribute_lists: dict[int, list[tuple[str, str, str]]] = {}
        self._attribute_sets: dict[int, set[tuple[str, str]]] = {}
        self._owners: dict[int, Any] = {}  # row -> the persona id it belongs to (None: no one's)

    def describe(
        self, entity: str, value: Any, persona_row: int | None, variant: bool = False
    ) -> Description:
        """A description of ``value`` unique among the persona's other objects of this kind,
        or, with ``variant``, among the other variants of the same thing (the new item of an
        exchange must be told apart from the other sizes and colours of its product)."""
        row = self.data.owner_row(entity, value)
        words = entity.replace("_", " ")
        if row is None:
            return Description(f"the {words} {value}", [str(value)])
        me = self._persona_id(persona_row)
        if me is not None and self._owner_of(row) not in (None, me):
            # the signed-in user can only mean their own: a task about another's is no task
            raise Rejected("other_persona", f"{entity} {value} belongs to another {self.persona_entity}")
        attributes = self._attributes(row)
        siblings = self._variants(row) if variant else self._siblings(entity, value, persona_row)
        chosen: list[tuple[str, str, str]] = []
        for attribute in attributes:
            chosen.append(attribute)
            if not any(self._matches(s, chosen) for s in siblings):
                break
        if not chosen:
            return Description(f"the {words} {value}", [str(value)])
        if any(self._matches(s, chosen) for s in siblings):  # alike in every word: its number
            return Description(
                f"{_phrase(words, chosen)}, number {value}", [a[2] for a in chosen] + [str(value)]
            )
        return Description(_phrase(words, chosen), [a[2] for a in chosen])

    def _attributes(self, row: int) -> list[tuple[str, str, str]]:
        """``_attributes_of(row)``, remembered (the list is shared: do not modify it)."""
        found = self._attribute_lists.get(row)
        if found is None:
            found = self._attribute_lists[row] = self._attributes_of(row)
        return found

    def _attributes_of(self, row: int) -> list[tuple[str, str, str]]:
        """(kind, column, text) candidates, most telling first. Kinds: ``own`` (its own
        name, title or label), ``name`` (the name of what it points at: the product of a
        variant, the line of a ticket), ``content`` (names of what it holds), ``option``
        (JSON options), ``category``, ``date``, ``label``."""
        table_name, values = self.data.rows[row]
        table = self.tables[table_name]
        pk = set(table.primary_key)
        found: list[tuple[str, str, str]] = []
        for name_column in NAME_COLUMNS:
            if isinstance(values.get(name_column), str):
                found.append(("own", name_column, values[name_column]))
        refs = {values.get(c.name) for c in table.columns if c.entity and c.name not in pk}
        for level in self.data.related(row, depth=3)[1:]:
            names: list[tuple[str, str, str]] = []
            for index in level:
                other_table, other = self.data.rows[index]
                if other_table in (table_name, self.persona_table):
                    continue
                other_pk = self.tables[other_table].primary_key
                referenced = len(other_pk) == 1 and other.get(other_pk[0]) in refs
                for name_column in NAME_COLUMNS:
                    text = other.get(name_column)
                    if isinstance(text, str) and text not in [n[2] for n in names]:
                        names.append(("name" if referenced else "content", name_column, text))
            if names:
                found.extend(sorted(names, key=lambda n: n[0] != "name")[:3])
                break
        for column in table.columns:
            text = values.get(column.name)
            if column.name in pk or column.entity or column.references or not isinstance(text, str):
                continue
            if text.startswith("{"):
                try:
                    options = json.loads(text)
                except ValueError:
                    continue
                if isinstance(options, dict):
                    found.extend(("option", k, in_words(str(v))) for k, v in options.items())
        for column in table.columns:
            text = values.get(column.name)
            if column.name in pk or column.entity or column.references or not isinstance(text, str):
                continue
            if column.name in NAME_COLUMNS or text.startswith("{"):
                continue
            if column.enum:
                shown = display_of(self.env.spec, column.name, text) if column.enum_labels else None
                found.append(("category", column.name, shown or in_words(text)))
            elif _parse_date(text) is not None:
                found.append(("date", column.name, _date_text(text)))
            elif 0 < len(text.strip()) <= 12:  # an empty second address line says nothing
                found.append(("label", column.name, in_words(text)))
        # last, what tells apart two objects alike in every word: a longer name, a number
        for column in table.columns:
            text = values.get(column.name)
            if column.name in pk or column.entity or column.references or not isinstance(text, str):
                continue
            if column.name in NAME_COLUMNS or text.startswith("{") or column.enum or _parse_date(text):
                continue
            if len(text.strip()) > 12:
                found.append(("label", column.name, text))
        for column in table.columns:
            number = values.get(column.name)
            if column.name in pk or column.entity or column.references:
                continue
            flag = re.search(r"\bIN\s*\(\s*0\s*,\s*1\s*\)", column.check or "", re.IGNORECASE)
            if isinstance(number, (int, float)) and not isinstance(number, bool) and not flag:
                found.append(("number", column.name, str(number)))  # a 0/1 flag is no number
        return found

    def _siblings(self, entity: str, value: Any, persona_row: int | None) -> list[int]:
        """The other objects of this kind the agent may find for this user: the persona's
        own, and those that are no one's (a catalog: groomers, services, products); never
        another customer's (the agent reads only the signed-in user's)."""
        others = self._related_siblings(entity, value, persona_row)
        owner = self.data.owner.get(entity)
        if owner is None:
            return others
        me = self._persona_id(persona_row)
        for index in self.data.by_table.get(owner[0], []):
            if self.data.rows[index][1].get(owner[1]) == value or index in others:
                continue
            belongs = self._owner_of(index)
            if belongs is None or (me is not None and belongs == me) or persona_row is None:
                others.append(index)
        return others

    def _persona_id(self, persona_row: int | None) -> Any:
        if persona_row is None or self.persona_entity not in self.data.owner:
            return None
        return self.data.rows[persona_row][1].get(self.data.owner[self.persona_entity][1])

    def _owner_of(self, row: int, depth: int = 3) -> Any:
        """The persona id a row belongs to: its own column of the persona's entity, else
        that of a row it references (an order line belongs to its order's customer)."""
        if row in self._owners:
            return self._owners[row]
        table_name, values = self.data.rows[row]
        table = self.tables.get(table_name)
        found: Any = None
        if table is not None and self.persona_entity is not None:
            for column in table.columns:
                if column.entity == self.persona_entity and column.name not in table.primary_key:
                    found = values.get(column.name)
                    break
            else:
                if depth > 0:
                    for column in table.columns:
                        if column.references and column.entity and values.get(column.name) is not None:
                            target = self.data.owner_row(column.entity, values[column.name])
                            if target is not None and target != row:
                                found = self._owner_of(target, depth - 1)
                                if found is not None:
                                    break
        if depth == 3:
            self._owners[row] = found
        return found

    def _related_siblings(self, entity: str, value: Any, persona_row: int | None) -> list[int]:
        if persona_row is None:
            return []
        others: list[int] = []
        for level in self.data.related(persona_row, depth=3):
            for index in level:
                table, row = self.data.rows[index]
                if self.data.owner.get(entity, ("",))[0] == table:
                    pk = self.data.owner[entity][1]
                    if row.get(pk) != value and index not in others:
                        others.append(index)
        return others

    def _variants(self, row: int) -> list[int]:
        """Other rows of the same table that reference the same things (same product)."""
        table_name, values = self.data.rows[row]
        table = self.tables[table_name]
        refs = [c.name for c in table.columns if c.references and values.get(c.name) is not None]
        return [
            index
            for index in self.data.by_table[table_name]
            if index != row and refs and all(self.data.rows[index][1].get(c) == values[c] for c in refs)
        ]

    def _matches(self, row: int, chosen: list[tuple[str, str, str]]) -> bool:
        """Whether another object shares every chosen attribute (the description is ambiguous)."""
        attributes = self._attribute_sets.get(row)
        if attributes is None:
            attributes = self._attribute_sets[row] = {(a[0], a[2]) for a in self._attributes(row)}
        return all((kind, text) in attributes for kind, _, text in chosen)


def _phrase(words: str, chosen: list[tuple[str, str, str]]) -> str:
    """'the Desk Lamp (color: blue)', 'the delivered order with the Desk Lamp and the Kettle
    from May 10', 'the gift card payment method (visa)', 'Maya's phone (Unlimited Max)',
    'the ticket "Video calls freeze" (Uma's phone)'."""
    picked: dict[str, list[str]] = {}
    for kind, column, text in chosen:
        picked.setdefault(kind, []).append(
            f"{column.replace('_', ' ')}: {text}" if kind == "option" else text
        )
    titled = any(kind == "own" and column == "title" for kind, column, _ in chosen)
    if picked.get("own"):
        own = picked["own"][0]
        text = f'the {words} "{own}"' if titled else _named(own)
        if picked.get("name"):
            text += f" ({', '.join(picked['name'])})"
        picked["name"] = picked["own"]  # a category or label follows a name, as below
    elif picked.get("name"):
        text = "the " + " ".join(picked["name"])
    else:
        text = "the " + " ".join([*picked.get("category", []), words])
        if picked.get("content"):
            text += " with the " + " and the ".join(picked["content"])
    if picked.get("option"):
        text += f" ({', '.join(picked['option'])})"
    if picked.get("name") and picked.get("category"):
        text += f" ({', '.join(picked['category'])})"
    if picked.get("label"):
        text += f" ({', '.join(picked['label'])})"
    if picked.get("date"):
        text += f" from {picked['date'][0]}"
    numbers = [f"{column.replace('_', ' ')} {said}" for kind, column, said in chosen if kind == "number"]
    if numbers:
        text += f" ({', '.join(numbers)})"
    return text


def _named(name: str) -> str:
    """A name as a noun phrase: "Maya's phone" takes no article, "Desk Lamp" takes "the"."""
    return name if re.search(r"\w's\b", name) else f"the {name}"


def _parse_date(text: str) -> datetime | None:
    if not isinstance(text, str) or not re.match(r"^\d{4}-\d{2}-\d{2}", text):
        return None
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _date_text(text: str) -> str:
    moment = _parse_date(text)
    assert moment is not None
    return f"{moment:%B} {moment.day}"


# ---------------------------------------------------------------- facts

# Share of act goals whose details (a payment method, a new address, a reason) the user
# keeps back until the agent asks for them.
WITHHOLD_PROB = 0.6


@dataclass
class Scenario:
    name: str | None
    persona: str
    style: str
    facts: list[Fact]
    unknown: list[str]
    reason: str
    overspecified: str
    claims: list[Claim]
    goals: list[GoalOutcome]
    plans: list[GoalPlan]  # what the opening message says about each goal

    @property
    def withheld(self) -> bool:
        return any(not f.in_opening and f.kind != "identity" for f in self.facts)


def build_scenario(
    run: OracleRun,
    gold: ComposedGold,
    draws: list[GoalDraw],
    env: Environment,
    describer: Describer,
    rng: random.Random,
) -> Scenario:
    """What the user knows and wants for a composed task (see ``tasks.compose``)."""
    tools: dict[str, ToolSpec] = {t.name: t for t in env.spec.tools}
    rules = env.spec.policy_rules
    auth_tools = set(rules.authentication.tools) if rules.authentication else set()
    persona_row = None
    if run.persona is not None and describer.persona_entity:
        pk = describer.data.owner[describer.persona_entity][1]
        persona_row = describer.data.owner_row(describer.persona_entity, run.persona[pk])
    name = _person_name(run.persona)
    goal_steps = [i for i, s in enumerate(run.chain.steps) if s.goal]

    facts: list[Fact] = []
    seen: set[str] = set()

    def add(fact: Fact) -> None:
        # The same value may serve two goals (both new addresses are in the USA): each goal
        # keeps its own copy, so what the user says about one goal is complete.
        goal = None if fact.kind == "identity" else fact.goal
        marker = json.dumps([fact.kind, fact.key, fact.value, goal], sort_keys=True, default=str)
        if marker not in seen:
            seen.add(marker)
            facts.append(fact)

    def typed(key: str, kind: FactKind, value: Any, goal: int, tool: ToolSpec | None = None) -> None:
        """A fact the user states as is: the value itself, in words, is what must appear (a
        whole number as a person says it: 6000, not 6000.0; values are compared by number;
        an enum value in its display words or with its underscores as spaces)."""
        text = spoken_value(env.spec, tool, key.rpartition(".")[2], value)
        add(
            Fact(
                key=key,
                kind=kind,
                value=value,
                text=text,
                must=[text],
                in_opening=kind != "identity",
                goal=goal,
            )
        )

    for key, value in (gold.auth_args or {}).items():
        typed(key, "identity", value, 0)
    for uv in run.user_values:
        tool = tools[run.actions[uv.step].tool]
        if uv.value in (None, "", []) or tool.name in auth_tools or uv.step in gold.dropped:
            continue
        goal = gold.step_goal[uv.step]
        if uv.entity:
            for v in uv.value if isinstance(uv.value, list) else [uv.value]:
                typed(uv.param, "reference", v, goal)
        else:
            typed(f"{tool.name}.{uv.param}", "detail", uv.value, goal, tool)
    known_refs = {(f.value, f.goal) for f in facts if f.kind == "reference"}
    for step, param, entity, value in run.looked_up:
        if step not in goal_steps:
            continue
        tool = tools[run.actions[step].tool]
        variant = _replaces(tool, param)
        for v in value if isinstance(value, list) else [value]:
            if (v, gold.step_goal[step]) in known_refs or entity == describer.persona_entity:
                continue
            description = describer.describe(entity, v, persona_row, variant=variant)
            add(
                Fact(
                    key=param,
                    kind="reference",
                    value=v,
                    text=description.text,
                    must=description.must,
                    in_opening=True,
                    goal=gold.step_goal[step],
                )
            )
    unknown: list[str] = []
    for _, _, entity, _ in run.looked_up:
        label = f"the internal {entity.replace('_', ' ')} id"
        if label not in unknown:
            unknown.append(label)
    claims: list[Claim] = []

    def named(goal: int, entity: str, value: Any) -> None:
        """One thing among its variants, named by what it is (a list claim's element)."""
        description = describer.describe(entity, value, persona_row, variant=True)
        text, must = description.text, description.must
        add(
            Fact(
                key=f"{entity}_id",
                kind="reference",
                value=value,
                text=text,
                must=must,
                in_opening=True,
                goal=goal,
            )
        )

    for g, _ in enumerate(draws):
        action = gold.actions[gold.goal_index[g]]
        for claim, element in _claims(action, tools[action.tool], rng):
            claims.append(claim.model_copy(update={"goal": g}))
            if element is not None and (element[1], g) not in known_refs:
                named(g, *element)
    for g, entity, value in gold.named:  # what a total is about, by what the things are
        named(g, entity, value)
    facts = _withhold(facts, draws, gold, tools, rng)
    goals, plans = _goals(gold, draws, facts, tools, describer)
    style = rng.choice(STYLES)
    return Scenario(
        name=name,
        persona=f"{name or 'A customer'}, {style}.",
        style=style,
        facts=facts,
        unknown=unknown,
        reason="; ".join(_reason(g) for g in goals),
        overspecified=_overspecified(gold),
        claims=claims,
        goals=goals,
        plans=plans,
    )


def _reason(goal: GoalOutcome) -> str:
    """What the user came for, as the user sees it (a refused action is still what they want)."""
    if goal.kind == "refuse" and goal.requested:
        return goal.requested
    if goal.kind == "transfer" and goal.request:
        return f"get {goal.request}, or talk to a human who can arrange it"
    if goal.kind == "contingent" and goal.requested:
        return f"{goal.requested} if it is still {goal.condition}, otherwise {goal.otherwise}"
    return goal.intent


def _replaces(tool: ToolSpec, param: str) -> bool:
    """Whether ``param`` is a second parameter of an entity in ``tool`` (new_item_ids
    after item_ids): it names replacements, told apart among variants."""
    names = list(tool.input_schema.get("properties", {}))
    entity = tool.params[param].entity if param in tool.params else None
    return entity is not None and any(
        tool.params[n].entity == entity for n in names[: names.index(param)] if n in tool.params
    )


def _withhold(
    facts: list[Fact],
    draws: list[GoalDraw],
    gold: ComposedGold,
    tools: dict[str, ToolSpec],
    rng: random.Random,
) -> list[Fact]:
    """Hold back, for some act goals, every fact but the object the goal is about: the
    agent will have to ask for the payment method, the new address, the reason."""
    out = list(facts)
    for goal, draw in enumerate(draws):
        if draw.kind not in ("act", "contingent") or rng.random() >= WITHHOLD_PROB:
            continue
        action = gold.actions[gold.goal_index[goal]]
        subject = _subject_value(tools[action.tool], action.arguments)
        own = [i for i, f in enumerate(out) if f.goal == goal and f.kind != "identity"]
        held = [i for i in own if out[i].value != subject]
        if not held or len(held) == len(own):
            continue
        for i in held:
            out[i] = out[i].model_copy(update={"in_opening": False})
    return out


def _subject_value(tool: ToolSpec, arguments: dict[str, Any]) -> Any:
    """The object a call is about: its first entity argument the user could name."""
    names = sorted(
        (n for n in arguments if n in tool.params and tool.params[n].entity),
        key=lambda n: not tool.params[n].user_provided,
    )
    return arguments[names[0]] if names else None


def _goals(
    gold: ComposedGold,
    draws: list[GoalDraw],
    facts: list[Fact],
    tools: dict[str, ToolSpec],
    describer: Describer,
) -> tuple[list[GoalOutcome], list[GoalPlan]]:
    goals: list[GoalOutcome] = []
    plans: list[GoalPlan] = []
    for g, draw in enumerate(draws):
        opening = [f for f in facts if f.goal == g and f.in_opening and f.kind != "identity"]
        tool = tools[draw.tool]
        action = gold.actions[gold.goal_index[g]]
        outcome = GoalOutcome(
            kind=draw.kind, intent=tool.intent, tool=draw.tool, actions=gold.goal_actions[g]
        )
        plan = GoalPlan(kind=draw.kind, intent=tool.intent, tool=draw.tool, facts=opening)
        if draw.total:
            outcome = outcome.model_copy(update={"intent": TOTAL_INTENT, "tool": action.tool})
            plan = GoalPlan(kind="ask", intent=TOTAL_INTENT, tool=action.tool, facts=opening)
        if draw.kind == "refuse":
            assert draw.rule is not None
            requested = tools[draw.rule.tool].intent
            outcome = outcome.model_copy(update={"requested": requested, "reason": draw.rule.reason})
            plan = GoalPlan(kind="refuse", intent=requested, tool=draw.rule.tool, facts=opening)
        elif draw.kind == "contingent":
            assert draw.rule is not None
            then_intent = tools[draw.rule.tool].intent
            otherwise = tools[draw.counter.tool].intent if draw.counter else TELL_STATE
            if draw.taken == "then":
                state = _state_of(describer, draw.rule, action.arguments, tools[draw.tool])
                condition = str(state if state is not None else draw.rule.allowed[0])
            else:
                condition = str(draw.rule.allowed[0])
            condition = display_of(describer.env.spec, draw.rule.column, condition) or in_words(condition)
            outcome = outcome.model_copy(
                update={
                    "requested": then_intent,
                    "reason": draw.rule.reason,
                    "condition": condition,
                    "otherwise": otherwise,
                    "taken": draw.taken,
                }
            )
            plan = GoalPlan(
                kind="contingent",
                intent=then_intent,
                tool=draw.rule.tool,
                facts=opening,
                condition=condition,
                otherwise=otherwise,
            )
        elif draw.kind == "transfer":
            outcome = outcome.model_copy(update={"request": draw.request})
            plan = GoalPlan(
                kind="transfer",
                intent=tool.intent,
                tool=draw.tool,
                facts=opening,
                request=draw.request,
                ask=draw.ask,
            )
        goals.append(outcome)
        plans.append(plan)
    return goals, plans


def _state_of(describer: Describer, rule: Any, arguments: dict[str, Any], tool: ToolSpec) -> Any:
    for name, param in tool.params.items():
        if param.entity == rule.entity and name in arguments:
            row = describer.data.owner_row(rule.entity, arguments[name])
            if row is not None:
                return describer.data.rows[row][1].get(rule.column)
    return None


def _claims(action: Any, tool: ToolSpec, rng: random.Random) -> list[tuple[Claim, tuple[str, Any] | None]]:
    """The claims of one goal action, each with the list element it is about (entity,
    value) when its path runs through a list: one element, drawn, that the user names."""
    out: list[tuple[Claim, tuple[str, Any] | None]] = []
    chosen: dict[str, int] = {}  # list path -> element index, shared by that list's claims
    for path in tool.claims:
        if "[]" not in path:
            values = values_at(action.output, path)
            if values:
                out.append(
                    (Claim(tool=tool.name, path=path, value=values[0], text=_claim_text(values[0])), None)
                )
            continue
        prefix, rest = path.split("[].", 1)
        elements = values_at_list(action.output, prefix)
        ids = [(p.split("[].", 1)[1], e) for p, e in tool.outputs.items() if p.startswith(prefix + "[].")]
        if not elements or not ids:
            continue
        index = chosen.setdefault(prefix, rng.randrange(len(elements)))
        element = elements[index]
        key, entity = ids[0]
        value = values_at(element, rest)
        if value and element.get(key) is not None:
            claim = Claim(tool=tool.name, path=path, value=value[0], text=_claim_text(value[0]))
            out.append((claim, (entity, element[key])))
    return out


def values_at_list(output: Any, path: str) -> list[dict[str, Any]]:
    """The objects of the list at ``path`` ('variants', 'a.items')."""
    node = output
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return [e for e in node if isinstance(e, dict)] if isinstance(node, list) else []


def _claim_text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value).replace("_", " ")


def _overspecified(gold: ComposedGold) -> str:
    lines = ["Do exactly this, in order:"]
    for i, action in enumerate(gold.actions, 1):
        lines.append(
            f"{i}. call {action.tool} with {json.dumps(action.arguments, sort_keys=True, ensure_ascii=False)}"
        )
    return "\n".join(lines)


def _person_name(row: dict[str, Any] | None) -> str | None:
    if not row:
        return None
    if row.get("first_name") and row.get("last_name"):
        return f"{row['first_name']} {row['last_name']}"
    for column in ("name", "full_name", "username"):
        if isinstance(row.get(column), str):
            return str(row[column])
    return None
