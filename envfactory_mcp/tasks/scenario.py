"""From an oracle run to what the user knows: facts, implicit descriptions, the audit instruction.

A person does not know internal ids. When the agent had to look an object up, the user
knows it by what it is: an order by the products in it, an item by its product and
options, a card by its name and last four digits. ``Describer`` builds such descriptions
from the seed data alone: what the thing is called (its own name, else the name of what it
points at) and the fewest, most ordinary further words (names of what it points at or
holds, JSON options, categorical columns, dates, short labels) that make it unique among
the objects the agent may find for this user, said as a person says them ("the
appointment with Dr. Helen Marsh", "the Visa Debit card ending 7960", "the order with the
Desk Lamp"), never by a state the policy checks.
"""

from __future__ import annotations

import heapq
import itertools
import json
import random
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from envfactory_mcp.env import Environment
from envfactory_mcp.seeddata import SeedData
from envfactory_mcp.spec import RefusalRule, ToolSpec
from envfactory_mcp.tasks.compose import TELL_STATE, TOTAL_INTENT, ComposedGold, GoalDraw
from envfactory_mcp.tasks.model import Claim, Fact, FactKind, GoalOutcome
from envfactory_mcp.tasks.oracle import OracleRun, Rejected, persona_entity_of, values_at
from envfactory_mcp.tasks.realise import GoalPlan
from envfactory_mcp.tasks.values import display_of, in_words, spoken_value

NAME_COLUMNS = ("name", "title", "label")
# What a description costs to say, by kind of attribute: the cheapest set that tells the
# object apart is said (its own name is always said, and costs nothing).
KIND_COST = {
    "own": 0.0,
    "person": 0.5,
    "name": 1.0,
    "option": 1.0,
    "category": 1.5,
    "content": 1.5,
    "date": 2.0,
    "label": 2.5,
    "long": 3.5,
    "number": 4.0,
    "held": 9.0,  # compared, never said
}
PERSON_COLUMNS = ("first_name", "last_name")


def _cost(attribute: tuple[str, str, str]) -> float:
    """A card's or account's last four digits are said as readily as its kind; a name of
    what it points at beside the thing's own name ('the Safeway transaction on the
    Everyday Checking account') after its own date: a read of the thing shows its own
    fields, seldom the names of what it points at."""
    kind, column, _ = attribute
    if kind == "label" and _LAST_DIGITS.search(column):
        return KIND_COST["category"]
    return KIND_COST[kind]


WORDS_SAID = 3  # the most further attributes a short description says
NAMES_TRIED = 4  # of an object's many names (an order's lines), those tried: the rarest
CANDIDATES = 12
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
        self._name_sets: dict[int, set[tuple[str, str]]] = {}  # row -> ``_names_of``
        self._owners: dict[int, Any] = {}  # row -> the persona id it belongs to (None: no one's)
        self._owner_groups: dict[  # table -> ``_table_owners``
            str, tuple[list[tuple[int, Any]], dict[Any, list[tuple[int, Any]]], list[tuple[int, Any]]]
        ] = {}
        self._entity_of = {table: entity for entity, (table, _) in data.owner.items()}
        self._name_lists: dict[str, list[str]] = {}
        self.personal: set[str] = set()  # names said as a person's, without an article
        # a state the policy checks before acting is what the user asks about ("if it is
        # still open"), never how they name the thing ("the closed account")
        self._states = {(rule.entity, rule.column) for rule in env.spec.policy_rules.refusals}
        # nor by what a write records from what a user said: a choice among a write's fixed
        # values (a cancellation's reason) is another request's detail, never a name ("the
        # ordered by mistake order")
        self._recorded = _recorded_columns(env)
        # what a read of an object lists with it (an order's items, a bill's items): the
        # only holders a person describes it by (a card is not "the card with the REI")
        self._listed: dict[str, set[str]] = {}
        for tool in env.spec.tools:
            if tool.effect == "read":
                listed = {e for path, e in tool.outputs.items() if "[]" in path}
                for path, entity in tool.outputs.items():
                    if "[]" not in path and "." not in path:
                        self._listed.setdefault(entity, set()).update(listed)

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
        chosen = self._choose(attributes, siblings)
        if not chosen:
            return Description(f"the {words} {value}", [str(value)])
        text = _phrase(words, chosen, frozenset(self.personal))
        if any(self._matches(s, chosen) for s in siblings):  # alike in every word: its number
            return Description(f"{text}, number {value}", [a[2] for a in chosen] + [str(value)])
        return Description(text, [a[2] for a in chosen])

    def _choose(
        self, attributes: list[tuple[str, str, str]], siblings: list[int]
    ) -> list[tuple[str, str, str]]:
        """The attributes to describe with, as a person would: what the object is called (its
        own name, else the first thing it points at: the provider of an appointment), and the
        fewest, most ordinary further words that tell it apart from ``siblings`` (a category
        or a product before a date, a date before a label, a number last). Siblings are
        compared on all their attributes (every line of an order, not only those said)."""
        head = (
            [a for a in attributes if a[0] == "own"][:1]
            or [a for a in attributes if a[0] == "name"][:1]
            or [a for a in attributes if a[0] == "person"][:1]
        )
        rest: list[tuple[str, str, str]] = []
        seen = {(a[0], a[2]) for a in head}
        counts: dict[str, int] = {}
        for attribute in attributes:
            key = (attribute[0], attribute[2])
            if key in seen or attribute[0] in ("own", "held"):
                continue
            seen.add(key)
            rest.append(attribute)
        open_ = [s for s in siblings if self._matches(s, head)] if head else list(siblings)
        if not open_:
            return head or rest[:1]

        # of many names (an account's payees, an order's lines), those fewest siblings share
        def shared(attribute: tuple[str, str, str]) -> int:
            return sum((attribute[0], attribute[2]) in self._attribute_set(s) for s in open_)

        candidates: list[tuple[str, str, str]] = []
        for attribute in rest:
            if attribute[0] in ("name", "content"):
                counts[attribute[0]] = counts.get(attribute[0], 0) + 1
        for attribute in rest:
            candidates.append(attribute)
        for kind in ("name", "content"):
            if counts.get(kind, 0) > NAMES_TRIED:
                said = sorted((a for a in candidates if a[0] == kind), key=shared)[:NAMES_TRIED]
                candidates = [a for a in candidates if a[0] != kind or a in said]
        candidates = [a for a in candidates if shared(a) < len(open_)][
            :CANDIDATES
        ]  # each must tell something
        options: list[tuple[float, int, tuple[int, ...]]] = []
        further = KIND_COST["date"] + 0.25  # a second name
        for size in range(1, min(WORDS_SAID, len(candidates)) + 1):
            for combo in itertools.combinations(range(len(candidates)), size):
                cost = sum(
                    further if head and candidates[i][0] == "name" else _cost(candidates[i]) for i in combo
                )
                options.append((cost, size, combo))
        options.sort()
        for _, _, combo in options:
            chosen = head + [candidates[i] for i in combo]
            if not any(self._matches(s, chosen) for s in open_):
                return chosen
        # nothing short tells it apart: every attribute, in order, until one does
        chosen = list(head)
        for attribute in rest:
            chosen.append(attribute)
            if not any(self._matches(s, chosen) for s in open_):
                break
        return chosen

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
        for name_column in self._name_columns(table_name):
            if isinstance(values.get(name_column), str) and values[name_column].strip():
                found.append(("own", name_column, values[name_column]))
        # what it points at (an appointment's provider, a card's account, a variant's product)
        for entity, target in self._pointed(row):
            for _, target_name in self._names(target, depth=0):
                found.append(("name", entity, target_name))  # the column: what it is (a provider)
        # what points at it (an order's lines, by their products; a bill's items): every one,
        # so a sibling is compared on all it holds; a description says a few (``_choose``)
        held: set[str] = set()
        for holder in self._holders(row):
            for name_column, held_name in self._names(holder, skip=row):
                if held_name not in held:
                    held.add(held_name)
                    found.append(("content", name_column, held_name))
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
            if column.enum and (self._entity_of.get(table_name), column.name) in self._states:
                continue
            if (table_name, column.name) in self._recorded:
                continue
            if column.enum:
                shown = display_of(self.env.spec, column.name, text) if column.enum_labels else None
                found.append(("category", column.name, shown or in_words(text)))
            elif _parse_date(text) is not None:
                found.append(("date", column.name, _date_text(text)))
            elif column.name in PERSON_COLUMNS and text.strip():
                found.append(("person", column.name, text))  # a passenger by their name
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
                found.append(("long", column.name, text))
        for column in table.columns:
            number = values.get(column.name)
            if column.name in pk or column.entity or column.references:
                continue
            flag = re.search(r"\bIN\s*\(\s*0\s*,\s*1\s*\)", column.check or "", re.IGNORECASE)
            if isinstance(number, (int, float)) and not isinstance(number, bool) and not flag:
                found.append(("number", column.name, str(number)))  # a 0/1 flag is no number
        # the dates of what points at it (a reservation's flights), never said but compared:
        # the agent may see them beside it, so a sibling flying that day fits "the
        # reservation from May 31"
        dates = {a[2] for a in found if a[0] == "date"}
        for holder in self._holders(row, listed_only=False):
            other_table, other = self.data.rows[holder]
            for held_column in self.tables[other_table].columns:
                moment = other.get(held_column.name)
                if held_column.entity or held_column.references or _parse_date(moment) is None:
                    continue
                said = _date_text(str(moment))
                if said not in dates:
                    dates.add(said)
                    found.append(("held", held_column.name, said))
        return found

    def _name_columns(self, table_name: str) -> list[str]:
        """The columns naming a row: name, title, label, and a ``<thing>_name`` (a dog's
        ``dog_name``, a walker's ``walker_name``; not a person's first or last name)."""
        found = self._name_lists.get(table_name)
        if found is None:
            columns = [c.name for c in self.tables[table_name].columns]
            found = [c for c in NAME_COLUMNS if c in columns]
            found += [c for c in columns if c.endswith("_name") and c not in (*PERSON_COLUMNS, "middle_name")]
            self._name_lists[table_name] = found
            entity = self._entity_of.get(table_name)
            for column in found:
                if column == f"{entity}_name":  # what the thing is called: 'Rosie', 'Beth Moore'
                    self.personal |= {
                        v[column]
                        for i in self.data.by_table.get(table_name, [])
                        for v in [self.data.rows[i][1]]
                        if isinstance(v.get(column), str)
                    }
        return found

    def _pointed(self, row: int) -> list[tuple[str, int]]:
        """(entity, row) of what ``row`` points at by its own columns: another table's row
        (not the persona's, not its own table's: a card it replaces is no name of it)."""
        table_name, values = self.data.rows[row]
        table = self.tables[table_name]
        out: list[tuple[str, int]] = []
        for column in table.columns:
            value = values.get(column.name)
            if not column.entity or column.entity == self.persona_entity or value is None:
                continue
            if table.primary_key == [column.name]:
                continue  # its own id
            target = self.data.owner_row(column.entity, value)
            if target is not None and self.data.rows[target][0] not in (table_name, self.persona_table):
                out.append((column.entity, target))
        return out

    def _holders(self, row: int, listed_only: bool = True) -> list[int]:
        """Rows of other tables that point at ``row`` and (``listed_only``) that a read of it
        lists (an order's lines, a bill's items and payments)."""
        table_name, values = self.data.rows[row]
        table = self.tables[table_name]
        if len(table.primary_key) != 1:
            return []
        key = next((c for c in table.columns if c.name == table.primary_key[0]), None)
        if key is None or not key.entity or values.get(key.name) is None:
            return []
        listed = self._listed.get(key.entity, set())
        out: list[int] = []
        for index in self.data.by_value.get((key.entity, values[key.name]), []):
            other = self.data.rows[index][0]
            if index == row or other in (table_name, self.persona_table):
                continue
            entity = self._entity_of.get(other)
            if not listed_only or (
                entity in listed if entity else any(e in listed for e, _ in self._pointed(index))
            ):
                out.append(index)
        return out

    def _names(self, row: int, skip: int | None = None, depth: int = 2) -> list[tuple[str, str]]:
        """(column, text) naming ``row``: its own name, title or label, else (a nameless row:
        an order line, a variant) the names of what it points at, ``skip`` aside."""
        values = self.data.rows[row][1]
        # name, title, label only: a '<thing>_name' of what it points at may be no word of
        # its reads (a flight shows its airport's code, not the airport's name)
        own = [(c, values[c]) for c in NAME_COLUMNS if isinstance(values.get(c), str) and values[c].strip()]
        if own or depth == 0:
            return own[:1]
        out: list[tuple[str, str]] = []
        for _, target in self._pointed(row):
            if target != skip:
                out.extend(self._names(target, skip, depth - 1))
        return out

    def _siblings(self, entity: str, value: Any, persona_row: int | None) -> list[int]:
        """The other objects of this kind the agent may find for this user: the persona's
        own, and those that are no one's (a catalog: groomers, services, products); never
        another customer's (the agent reads only the signed-in user's)."""
        me = self._persona_id(persona_row)
        # what is related to the persona at some remove (a plan's other subscribers' bills)
        # is another customer's as often as not: only the persona's own and no one's count
        others = [
            index
            for index in self._related_siblings(entity, value, persona_row)
            if me is None or self._owner_of(index) in (None, me)
        ]
        owner = self.data.owner.get(entity)
        if owner is None:
            return others
        nobody, by_owner, every = self._table_owners(*owner)
        if persona_row is None:
            rows = every
        elif me is None:
            rows = nobody
        else:
            # no one's and the persona's own, in table order (each list is in table order)
            rows = list(heapq.merge(nobody, by_owner.get(me, []))) if me in by_owner else nobody
        listed = set(others)
        others += [index for index, key in rows if key != value and index not in listed]
        return others

    def _table_owners(
        self, table: str, key: str
    ) -> tuple[list[tuple[int, Any]], dict[Any, list[tuple[int, Any]]], list[tuple[int, Any]]]:
        """(row, its ``key`` value) of every row of ``table`` that is no one's, grouped by
        the persona each other row belongs to (``_owner_of``), and of all of them: each in
        table order. Worked out once per table (it depends on the seed alone)."""
        found = self._owner_groups.get(table)
        if found is None:
            nobody: list[tuple[int, Any]] = []
            by_owner: dict[Any, list[tuple[int, Any]]] = {}
            every: list[tuple[int, Any]] = []
            for index in self.data.by_table.get(table, []):
                entry = (index, self.data.rows[index][1].get(key))
                every.append(entry)
                belongs = self._owner_of(index)
                if belongs is None:
                    nobody.append(entry)
                else:
                    by_owner.setdefault(belongs, []).append(entry)
            found = self._owner_groups[table] = (nobody, by_owner, every)
        return found

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
        """Whether another object shares every chosen attribute (the description is ambiguous).
        A description's first attribute is what the thing is called (``_choose``): a row
        that is called otherwise is told apart by its name alone (``_names_of``), without
        working out all its attributes (most siblings: the customer's other orders)."""
        attributes = self._attribute_sets.get(row)
        if attributes is None:
            if (
                chosen
                and chosen[0][0] in ("own", "name")
                and (chosen[0][0], chosen[0][2]) not in self._names_of(row)
            ):
                return False
            attributes = self._attribute_set(row)
        return all(
            (kind, text) in attributes or (kind == "date" and ("held", text) in attributes)
            for kind, _, text in chosen
        )

    def _names_of(self, row: int) -> set[tuple[str, str]]:
        """The ``own`` and ``name`` attributes of ``row`` as ``_attribute_set`` holds them:
        (kind, text) of its own name, title or label, and of the names of what it points
        at (worked out as ``_attributes_of`` does, and remembered)."""
        found = self._name_sets.get(row)
        if found is None:
            table_name, values = self.data.rows[row]
            found = {
                ("own", values[c])
                for c in self._name_columns(table_name)
                if isinstance(values.get(c), str) and values[c].strip()
            }
            for _, target in self._pointed(row):
                found.update(("name", target_name) for _, target_name in self._names(target, depth=0))
            self._name_sets[row] = found
        return found

    def _attribute_set(self, row: int) -> set[tuple[str, str]]:
        """(kind, text) of every attribute of ``row`` (all the names of what it holds)."""
        attributes = self._attribute_sets.get(row)
        if attributes is None:
            attributes = self._attribute_sets[row] = {(a[0], a[2]) for a in self._attributes(row)}
        return attributes


def _phrase(words: str, chosen: list[tuple[str, str, str]], personal: frozenset[str] = frozenset()) -> str:
    """The chosen attributes as a person says them: 'the Visa Debit card on the Plus Checking
    account', 'the telehealth appointment with Dr. Helen Marsh', 'the Omeprazole 20 mg
    prescription', 'the delivered order with the Desk Lamp and the Kettle from May 10', 'the
    Desk Lamp (color: blue)', "the topup for Maya's phone", 'the ticket "Video calls freeze"'.
    Every chosen attribute is said (its text is one of the description's ``must``); a name
    in ``personal`` (a dog's, a walker's) is said as a person's, without an article."""

    def _personal(name: str) -> bool:
        return name in personal or _personal_name(name)

    picked: dict[str, list[tuple[str, str]]] = {}
    for kind, column, text in chosen:
        picked.setdefault(kind, []).append((column, text))
    categories = " ".join(text for _, text in picked.get("category", []))
    short = list(picked.get("label", []))
    names = list(picked.get("name", []))
    own = picked.get("own", [])
    tail = ""
    if own:
        column, name = own[0]
        if column == "title":
            text = f'the {words} "{name}"'
        elif _personal(name):
            text = name
        else:
            text = "the " + _with_word(name, words, compound=False)
        if categories:
            tail += f" ({categories})"
    elif names:
        entity, name = names.pop(0)
        before = f"{categories} " if categories else ""
        if _personal(name):
            text = f"the {before}{words} {'for' if _possessive(name) else 'with'} {name}"
        else:
            text = f"the {before}{_with_word(name, words)}"  # 'the Omeprazole 20 mg prescription'
    else:
        # 'the 06:00 flight', 'the passenger Emma'; 'ending 4713' comes last
        lead = [t for c, t in short if t[:1].isdigit() and not _LAST_DIGITS.search(c)]
        after = [
            f"{_DIRECTION.get(c, '')}{t}".strip() for c, t in short if not t[:1].isdigit() and " " not in t
        ]  # 'the reservation from JFK to SFO'
        short = [(c, t) for c, t in short if t[:1].isdigit() or " " in t]
        short = [(c, t) for c, t in short if t not in lead]
        person = [t for _, t in picked.get("person", [])]  # 'the passenger Emma Nguyen'
        text = "the " + " ".join([*lead, *([categories] if categories else []), words, *person, *after])
    for entity, name in names:
        if _personal(name):
            text += f" {'for' if _possessive(name) else 'with'} {name}"
        else:
            text += " on the " + _with_word(name, entity.replace("_", " "), compound=False)
    contents = [said for _, said in picked.get("content", [])]
    if contents:
        text += " with " + " and ".join(c if _personal(c) else f"the {c}" for c in contents)
    if picked.get("option"):
        options = [f"{column.replace('_', ' ')}: {said}" for column, said in picked["option"]]
        text += f" ({', '.join(options)})"
    text += tail
    for column, said in short:
        text += f" ending {said}" if _LAST_DIGITS.search(column) else f" ({said})"
    for _, long in picked.get("long", []):
        text += f" ({long})"
    for column, day in picked.get("date", []):
        text += f" born {day}" if "birth" in column else f" from {day}"
    for column, said in picked.get("number", []):
        if _LAST_DIGITS.search(column):
            text += f" ending {said}"
        else:
            text += f" ({column.replace('_', ' ')} {said})"
    return text


_PERSON = re.compile(r"^(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.? [A-Z]|, [A-Z]{2,4}$")
_DIRECTION = {"origin": "from ", "source": "from ", "destination": "to "}
_LAST_DIGITS = re.compile(r"last_?(?:four|4)")
_GENERIC = frozenset({"item", "product"})  # 'the Desk Lamp', not 'the Desk Lamp item'


def _possessive(name: str) -> bool:
    return re.search(r"\w's\b", name) is not None


def _personal_name(name: str) -> bool:
    """A person's name ('Dr. Helen Marsh', 'Jordan Reyes, NP') or a possessive ("Maya's
    phone"): said without an article."""
    return _possessive(name) or _PERSON.search(name) is not None


def _with_word(name: str, words: str, compound: bool = True) -> str:
    """'Plus Checking' + 'account' -> 'Plus Checking account'; the word is left out when the
    name says it ('April 2026 bill'), for a bare 'item' or 'product', and for a compound
    ('payment method') after the thing's own name (``compound=False``: 'the Visa ending
    4218', but 'the Everyday Checking scheduled payment')."""
    if (" " in words and not compound) or words in _GENERIC or words.casefold() in name.casefold():
        return name
    return f"{name} {words}"


def _named(name: str) -> str:
    """A name as a noun phrase: "Maya's phone" takes no article, "Desk Lamp" takes "the"."""
    return name if _personal_name(name) else f"the {name}"


def _parse_date(text: Any) -> datetime | None:
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
    # the same object in another role is another fact: the destination BOS of one search is
    # not said by the origin BOS of the next
    known_roles = {(f.key, f.value, f.goal) for f in facts if f.kind == "reference"}
    steps: dict[int, int] = {}  # id(fact) -> the step it serves, for the order said
    for uv in run.user_values:
        for f in facts:
            if f.kind == "reference" and f.key == uv.param and f.value in _as_list(uv.value):
                steps.setdefault(id(f), uv.step)
    for step, param, entity, value in run.looked_up:
        if step not in goal_steps:
            continue
        tool = tools[run.actions[step].tool]
        variant = _replaces(tool, param)
        for v in value if isinstance(value, list) else [value]:
            if (param, v, gold.step_goal[step]) in known_roles or entity == describer.persona_entity:
                continue
            description = describer.describe(entity, v, persona_row, variant=variant)
            before = len(facts)
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
            if len(facts) > before:
                steps[id(facts[-1])] = step
    facts = _in_step_order(facts, steps)
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


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _in_step_order(facts: list[Fact], steps: dict[int, int]) -> list[Fact]:
    """Facts naming objects in one role (every ``origin``) in the order of the calls they
    serve, each where one of them stood: the user says the first search's origin and
    destination first, so the agent pairs the values up as said."""
    out = list(facts)
    for key in sorted({f.key for f in facts if id(f) in steps}):
        places = [i for i, f in enumerate(out) if f.key == key and id(f) in steps]
        ordered = sorted((out[i] for i in places), key=lambda f: steps[id(f)])
        for i, f in zip(places, ordered, strict=True):
            out[i] = f
    return out


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
            assert isinstance(draw.rule, RefusalRule)  # contingent goals come from status rules
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


def _recorded_columns(env: Environment) -> set[tuple[str, str]]:
    """(table, column) of the enum columns a write sets on an existing row from a choice the
    user makes: a column of a table the tool writes, and names a row of by its key, whose
    values take in all of one of its enum parameters' (an order's ``cancel_reason`` and
    ``cancel_pending_order(order_id=..., reason=...)``). What a booking tool sets when it
    makes the row (a lesson's level) stays a way to name it."""
    tables = {t.name: t for t in env.spec.tables}
    found: set[tuple[str, str]] = set()
    for tool in env.spec.tools:
        if tool.effect != "write":
            continue
        properties = tool.input_schema.get("properties", {})
        choices = [
            {str(v) for v in schema["enum"]}
            for schema in properties.values()
            if isinstance(schema, dict) and isinstance(schema.get("enum"), list) and len(schema["enum"]) > 1
        ]
        for table_name in tool.writes:
            table = tables.get(table_name)
            if table is None:
                continue
            keys = {c.entity for c in table.columns if c.name in table.primary_key and c.entity}
            if not any(param.entity in keys for param in tool.params.values()):
                continue
            for column in table.columns:
                values = {str(v) for v in column.enum or []}
                if values and any(choice <= values for choice in choices):
                    found.add((table_name, column.name))
    return found


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
