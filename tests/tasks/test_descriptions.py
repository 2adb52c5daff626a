"""Descriptions the customer gives (``tasks.scenario.Describer``, issue 26): a person's words
for an object ('the order with the Desk Lamp', 'the appointment with Dr. Helen Marsh', 'the
Visa Debit card ending 7960'), never a field dump, that pick out one object among those the
agent may find for this customer (their own and no one's), compared on everything each of
them holds (an order's 4th line too), and that never name the thing by the state the policy
checks before acting (the user asks "is it still open?" of "the Everyday Checking account
ending 8609", not of "the closed account")."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import pytest
from paths import SERVERS_DIR

from envfactory_mcp.catalog import load_environment
from envfactory_mcp.tasks.oracle import Oracle
from envfactory_mcp.tasks.scenario import WORDS_SAID, Describer

ENVS = ("retail", "airline", "telecom", "banking", "clinic", "dog_walking")


def owned_descriptions(name: str, personas: int = 25) -> list[tuple[Describer, str, Any, int, Any]]:
    """(describer, entity, value, persona row, description) for every object of the first
    ``personas`` customers of ``name``."""
    env = load_environment(name, SERVERS_DIR, allow_unverified=True).env  # reads spec and seed only
    data = Oracle(env, 0).data
    describer = Describer(env, data)
    persona = describer.persona_entity
    assert persona is not None and describer.persona_table is not None
    owned = [(entity, table, pk) for entity, (table, pk) in data.owner.items() if entity != persona]
    out = []
    for persona_row in data.by_table[describer.persona_table][:personas]:
        me = describer._persona_id(persona_row)
        for entity, table, pk in owned:
            for index in data.by_table[table]:
                if describer._owner_of(index) != me:
                    continue
                value = data.rows[index][1][pk]
                out.append(
                    (describer, entity, value, persona_row, describer.describe(entity, value, persona_row))
                )
    return out


@pytest.fixture(scope="module")
def described() -> dict[str, list[tuple[Describer, str, Any, int, Any]]]:
    return {name: owned_descriptions(name) for name in ENVS}


def test_an_order_described_by_its_products_is_the_only_one_holding_them() -> None:
    """What get_order_details lists is every line's product: an order said to hold the
    Bicycle Helmet is the only one of the customer's orders holding it, even where another
    holds it as its 4th line (retail seed 13 s13-00098 once picked the wrong order)."""
    env = load_environment("retail", SERVERS_DIR).env
    data = Oracle(env, 0).data
    describer = Describer(env, data)
    rows: dict[str, list[dict[str, Any]]] = {
        t: [data.rows[i][1] for i in data.by_table[t]] for t in ("products", "items", "order_items", "orders")
    }
    product = {p["product_id"]: p["name"] for p in rows["products"]}
    item_product = {i["item_id"]: product[i["product_id"]] for i in rows["items"]}
    holds: dict[str, set[str]] = defaultdict(set)
    for line in rows["order_items"]:
        holds[line["order_id"]].add(item_product[line["item_id"]])
    users = {u["user_id"]: i for i in data.by_table["users"] for u in [data.rows[i][1]]}
    orders_of: dict[str, list[str]] = defaultdict(list)
    for order_row in rows["orders"]:
        orders_of[order_row["user_id"]].append(order_row["order_id"])
    checked = long_orders = 0
    for user, orders in orders_of.items():
        long_orders += sum(len(holds[o]) > 3 for o in orders)
        for order in orders:
            description = describer.describe("order", order, users[user])
            names = [m for m in description.must if m in holds[order]]
            if not names or order in description.must:
                continue  # told by other words, or by its number
            others = [m for m in description.must if m not in names]  # a date
            fitting = [
                o
                for o in orders
                if set(names) <= holds[o] and set(others) <= said_of(describer, data.owner_row("order", o))
            ]
            assert fitting == [order], (description.text, fitting)
            assert len(description.must) <= WORDS_SAID, description.text  # a few names, not the list
            assert description.text.startswith("the order with the "), description.text
            checked += 1
    assert checked >= 50 and long_orders >= 20  # orders with more lines than a description says


def said_of(describer: Describer, row: int | None) -> set[str]:
    """The words the describer has for ``row`` (its date, labels; a date of what it holds)."""
    assert row is not None
    return {text for _, text in describer._attribute_set(row)}


def test_every_word_the_user_must_say_is_said_and_only_findable_objects_count(
    described: dict[str, list[tuple[Describer, str, Any, int, Any]]],
) -> None:
    """A description's ``must`` strings are all in its text (a bill said as "the May 2026
    bill" once needed "Visa ending 5623" too, which the user never said), the objects it is
    told apart from are the customer's own or no one's (never another customer's reached
    through a shared plan), and none of them fits every word unless the number is said."""
    checked = 0
    for name, rows in described.items():
        for describer, entity, value, persona_row, description in rows:
            for must in description.must:
                assert must.casefold() in description.text.casefold(), (name, description)
            me = describer._persona_id(persona_row)
            siblings = describer._siblings(entity, value, persona_row)
            assert all(describer._owner_of(s) in (None, me) for s in siblings), (name, entity, value)
            if str(value) not in description.must:
                attributes = describer._attributes(describer.data.owner_row(entity, value) or 0)
                chosen = [a for a in attributes if a[2] in description.must]
                assert not any(describer._matches(s, chosen) for s in siblings), (name, description)
            checked += 1
    assert checked >= 1500


def test_descriptions_are_a_persons_words(
    described: dict[str, list[tuple[Describer, str, Any, int, Any]]],
) -> None:
    """No field dumps: no 'key: value' but a variant's options, no bare numbers in brackets
    ('(max dogs 6)' aside: a count is said with its words), no snake_case, no article before a
    person's name or a possessive ('the Dr. Arjun Mehta', "the Derek's phone"), at most
    ``WORDS_SAID`` further attributes beside what the thing is called, and the state a policy
    checks before acting never names the thing."""
    seen = examined = 0
    for name, rows in described.items():
        env = load_environment(name, SERVERS_DIR, allow_unverified=True).env
        checked = {(r.entity, r.column) for r in env.spec.policy_rules.refusals}
        for describer, entity, value, _, description in rows:
            text = description.text
            if str(value) in description.must:
                continue  # alike in every word: its number
            seen += 1
            assert not re.search(r"\b[a-z]+_[a-z_]+\b", text), (name, text)
            assert not re.search(r"\bthe (?:Dr\.|\w+'s )", text), (name, text)
            assert not re.search(r"\(\d+\)", text), (name, text)
            if re.search(r"\([^()]*\w: ", text):  # a name may hold one ('Provisional credit: Netflix')
                assert entity == "item", (name, text)  # 'the Desk Lamp (color: blue)'
            assert len(description.must) <= 1 + WORDS_SAID, (name, text)
            row = describer.data.owner_row(entity, value)
            assert row is not None
            table = describer.tables[describer.data.rows[row][0]]
            for column in table.columns:
                if (entity, column.name) in checked and column.enum:
                    words = {
                        a[2]
                        for a in describer._attributes_of(row)
                        if a[0] == "category" and a[1] == column.name
                    }
                    assert not words, (name, text)  # never even a candidate
                    examined += 1
    assert seen >= 1500 and examined >= 300  # objects with a state the policy checks


def test_nothing_is_named_by_a_choice_a_write_recorded_on_it(
    described: dict[str, list[tuple[Describer, str, Any, int, Any]]],
) -> None:
    """What a write sets on an existing row from the user's choice among fixed values (an
    order's cancellation reason, from cancel_pending_order's ``reason``) is another request's
    detail, never how a customer names the thing: retail seed 11 once opened "would you be
    able to cancel my ordered by mistake order?" while that same reason was held back as
    another goal's detail."""
    retail = described["retail"][0][0]
    assert ("orders", "cancel_reason") in retail._recorded
    recorded = 0
    for name, rows in described.items():
        for describer, entity, value, _, description in rows:
            row = describer.data.owner_row(entity, value)
            assert row is not None
            table_name, values = describer.data.rows[row]
            for attribute in describer._attributes_of(row):
                assert (table_name, attribute[1]) not in describer._recorded, (name, description)
            recorded += any(values.get(c) for t, c in describer._recorded if t == table_name)
    assert recorded >= 50  # objects that carry such a record and are still described


def plain_siblings(describer: Describer, entity: str, value: Any, persona_row: int | None) -> list[int]:
    """``Describer._siblings`` as a scan of the whole table (its first procedure): the
    related ones, then every row of the entity's table in table order that is not the
    object itself and is no one's, the persona's own, or anyone's when there is no persona."""
    data = describer.data
    me = describer._persona_id(persona_row)
    others = [
        index
        for index in describer._related_siblings(entity, value, persona_row)
        if me is None or describer._owner_of(index) in (None, me)
    ]
    owner = data.owner.get(entity)
    if owner is None:
        return others
    for index in data.by_table.get(owner[0], []):
        if data.rows[index][1].get(owner[1]) == value or index in others:
            continue
        belongs = describer._owner_of(index)
        if belongs is None or (me is not None and belongs == me) or persona_row is None:
            others.append(index)
    return others


@pytest.mark.parametrize("name", ["retail", "airline", "telecom", "dog_walking"])
def test_siblings_read_from_the_grouped_table_are_the_scans(name: str) -> None:
    """``_siblings`` reads each table's rows grouped by owner once (``_table_owners``)
    instead of scanning the table for every description: the same rows in the same order,
    for objects of every kind, a persona's own and others', with and without a persona."""
    env = load_environment(name, SERVERS_DIR, allow_unverified=True).env
    data = Oracle(env, 0).data
    seeded = Describer(env, data)
    # and with owners dealt out (no one's, then two personas' in turn) so that a table's
    # no one's rows and a persona's own interleave: the order is the table's
    mixed = Describer(env, data)
    assert seeded.persona_table is not None and mixed.persona_table is not None
    personas = data.by_table[seeded.persona_table]
    ids = [seeded._persona_id(p) for p in personas[:2]]
    mixed._owners = {i: None if i % 3 == 0 else ids[i % 2] for i in range(len(data.rows))}
    checked = 0
    for describer in (seeded, mixed):
        for entity, (table, pk) in data.owner.items():
            for n, index in enumerate(data.by_table[table][:40]):
                value = data.rows[index][1][pk]
                choices = (None, personas[n % 2], personas[(7 * n + 3) % len(personas)])
                for persona_row in choices:
                    expected = plain_siblings(describer, entity, value, persona_row)
                    assert describer._siblings(entity, value, persona_row) == expected, (entity, value)
                    checked += 1
    assert checked >= 600


@pytest.mark.parametrize("name", ["retail", "airline", "telecom", "dog_walking"])
def test_a_row_called_otherwise_is_told_apart_by_its_names_alone(name: str) -> None:
    """``_matches`` turns away a row whose names (``_names_of``) lack the description's
    first attribute without working out all its attributes; its answer is the one all the
    attributes give, and the names are exactly the ``own`` and ``name`` attributes."""
    env = load_environment(name, SERVERS_DIR, allow_unverified=True).env
    data = Oracle(env, 0).data
    quick, full = Describer(env, data), Describer(env, data)
    rows = [i for table in data.by_table.values() for i in table[:60]]
    for row in rows:
        attributes = full._attribute_set(row)
        assert quick._names_of(row) == {a for a in attributes if a[0] in ("own", "name")}, row
    heads = [
        [a, *full._attributes(row)[1:3]]
        for row in rows
        for a in full._attributes(row)[:1]
        if a[0] in ("own", "name")
    ]
    assert len(heads) >= 10
    fresh = Describer(env, data)
    for chosen in heads[:80]:
        for row in rows[:120]:
            expected = all(
                (kind, text) in full._attribute_set(row)
                or (kind == "date" and ("held", text) in full._attribute_set(row))
                for kind, _, text in chosen
            )
            assert fresh._matches(row, chosen) == expected, (row, chosen)
    once = Describer(env, data)
    assert sum(once._matches(row, heads[0]) for row in rows) < len(rows)
    assert len(once._attribute_sets) < len(rows)  # the others were told apart by their names alone
