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
from envfactory_mcp.tasks.model import Claim, Fact, FactKind
from envfactory_mcp.tasks.oracle import OracleRun, persona_entity_of, values_at

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

    def describe(self, entity: str, value: Any, persona_row: int | None) -> Description:
        """A description of ``value`` unique among the persona's other objects of this kind."""
        row = self.data.owner_row(entity, value)
        words = entity.replace("_", " ")
        if row is None:
            return Description(f"the {words} {value}", [str(value)])
        attributes = self._attributes(row)
        siblings = self._siblings(entity, value, persona_row)
        chosen: list[tuple[str, str, str]] = []
        for attribute in attributes:
            chosen.append(attribute)
            if not any(self._matches(s, chosen) for s in siblings):
                break
        if not chosen:
            return Description(f"the {words} {value}", [str(value)])
        return Description(_phrase(words, chosen), [a[2] for a in chosen])

    def _attributes(self, row: int) -> list[tuple[str, str, str]]:
        """(kind, column, text) candidates, most telling first. Kinds: ``name`` (its own
        name, or the name of what it is a variant of), ``content`` (names of what it
        holds), ``option`` (JSON options), ``category``, ``date``, ``label``."""
        table_name, values = self.data.rows[row]
        table = self.tables[table_name]
        pk = set(table.primary_key)
        found: list[tuple[str, str, str]] = []
        for name_column in NAME_COLUMNS:
            if isinstance(values.get(name_column), str):
                found.append(("name", name_column, values[name_column]))
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
                    found.extend(("option", k, str(v)) for k, v in options.items())
        for column in table.columns:
            text = values.get(column.name)
            if column.name in pk or column.entity or column.references or not isinstance(text, str):
                continue
            if column.name in NAME_COLUMNS or text.startswith("{"):
                continue
            if column.enum:
                found.append(("category", column.name, text.replace("_", " ")))
            elif _parse_date(text) is not None:
                found.append(("date", column.name, _date_text(text)))
            elif len(text) <= 12:
                found.append(("label", column.name, text))
        return found

    def _siblings(self, entity: str, value: Any, persona_row: int | None) -> list[int]:
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

    def _matches(self, row: int, chosen: list[tuple[str, str, str]]) -> bool:
        """Whether another object shares every chosen attribute (the description is ambiguous)."""
        attributes = {(a[0], a[2]) for a in self._attributes(row)}
        return all((kind, text) in attributes for kind, _, text in chosen)


def _phrase(words: str, chosen: list[tuple[str, str, str]]) -> str:
    """'the Desk Lamp (color: blue)', 'the delivered order with the Desk Lamp and the Kettle
    from May 10', 'the gift card payment method (visa)'."""
    picked: dict[str, list[str]] = {}
    for kind, column, text in chosen:
        picked.setdefault(kind, []).append(
            f"{column.replace('_', ' ')}: {text}" if kind == "option" else text
        )
    if picked.get("name"):
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
    return text


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


@dataclass
class Scenario:
    name: str | None
    persona: str
    facts: list[Fact]
    unknown: list[str]
    reason: str
    overspecified: str
    claims: list[Claim]
    goal_intents: list[str]


def build_scenario(run: OracleRun, env: Environment, describer: Describer, rng: random.Random) -> Scenario:
    tools: dict[str, ToolSpec] = {t.name: t for t in env.spec.tools}
    persona_row = None
    if run.persona is not None and describer.persona_entity:
        pk = describer.data.owner[describer.persona_entity][1]
        persona_row = describer.data.owner_row(describer.persona_entity, run.persona[pk])
    name = _person_name(run.persona)
    identity_steps = {
        i
        for i, a in enumerate(run.actions)
        if describer.persona_entity and _is_login(tools[a.tool], describer.persona_entity)
    }
    goal_steps = [i for i, s in enumerate(run.chain.steps) if s.goal]

    def goal_of(step: int) -> int:
        """The goal a step serves: the first goal at or after it (steps after the last goal
        are checks on it)."""
        return next((g for g, i in enumerate(goal_steps) if i >= step), max(len(goal_steps) - 1, 0))

    facts: list[Fact] = []
    seen: set[str] = set()

    def add(fact: Fact) -> None:
        marker = json.dumps([fact.kind, fact.key, fact.value], sort_keys=True, default=str)
        if marker not in seen:
            seen.add(marker)
            facts.append(fact)

    def typed(key: str, kind: FactKind, value: Any, step: int) -> None:
        """A fact the user states as is: the value itself is what must appear."""
        add(
            Fact(
                key=key,
                kind=kind,
                value=value,
                text=str(value),
                must=[str(value)],
                in_opening=kind != "identity",
                goal=goal_of(step),
            )
        )

    for uv in run.user_values:
        tool = tools[run.actions[uv.step].tool]
        if uv.value in (None, "", []):
            continue
        if uv.step in identity_steps:
            typed(uv.param, "identity", uv.value, uv.step)
        elif uv.entity:
            for v in uv.value if isinstance(uv.value, list) else [uv.value]:
                typed(uv.param, "reference", v, uv.step)
        else:
            typed(f"{tool.name}.{uv.param}", "detail", uv.value, uv.step)
    known_refs = {f.value for f in facts if f.kind == "reference"}
    unknown: list[str] = []
    for step, param, entity, value in run.looked_up:
        if step not in goal_steps:
            continue
        for v in value if isinstance(value, list) else [value]:
            if v in known_refs or entity == describer.persona_entity:
                continue
            description = describer.describe(entity, v, persona_row)
            add(
                Fact(
                    key=param,
                    kind="reference",
                    value=v,
                    text=description.text,
                    must=description.must,
                    in_opening=True,
                    goal=goal_of(step),
                )
            )
    for _, _, entity, _ in run.looked_up:
        label = f"the internal {entity.replace('_', ' ')} id"
        if label not in unknown:
            unknown.append(label)
    intents = [tools[run.actions[i].tool].intent for i in goal_steps]
    claims = _claims(run, tools, goal_steps)
    style = rng.choice(STYLES)
    persona = f"{name or 'A customer'}, {style}."
    return Scenario(
        name=name,
        persona=persona,
        facts=facts,
        unknown=unknown,
        reason="; ".join(intents),
        overspecified=_overspecified(run),
        claims=claims,
        goal_intents=intents,
    )


def _claims(run: OracleRun, tools: dict[str, ToolSpec], goal_steps: list[int]) -> list[Claim]:
    steps = list(goal_steps)
    last = len(run.actions) - 1
    if tools[run.actions[last].tool].effect == "read" and last not in steps:
        steps.append(last)
    claims = []
    for i in steps:
        action = run.actions[i]
        for path in tools[action.tool].claims:
            values = values_at(action.output, path)
            if values:
                claims.append(
                    Claim(tool=action.tool, path=path, value=values[0], text=_claim_text(values[0]))
                )
    return claims


def _claim_text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value).replace("_", " ")


def _overspecified(run: OracleRun) -> str:
    lines = ["Do exactly this, in order:"]
    for i, action in enumerate(run.actions, 1):
        lines.append(
            f"{i}. call {action.tool} with {json.dumps(action.arguments, sort_keys=True, ensure_ascii=False)}"
        )
    return "\n".join(lines)


def _is_login(tool: ToolSpec, persona_entity: str) -> bool:
    inputs = tool.input_schema.get("properties", {})
    return (
        bool(inputs)
        and all(
            tool.params.get(n) is not None and tool.params[n].user_provided and not tool.params[n].entity
            for n in inputs
        )
        and persona_entity in tool.outputs.values()
    )


def _person_name(row: dict[str, Any] | None) -> str | None:
    if not row:
        return None
    if row.get("first_name") and row.get("last_name"):
        return f"{row['first_name']} {row['last_name']}"
    for column in ("name", "full_name", "username"):
        if isinstance(row.get(column), str):
            return str(row[column])
    return None
