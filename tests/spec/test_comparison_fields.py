"""How scoring is told to compare a column (issue 24): free text by meaning (``compare``), enum
values by how people say them (``enum_labels``). The spec refuses labels and kinds that
cannot be right, keeps spec.json's bytes where nothing is declared, and the shipped
environments declare them: every value a claim reports is labelled, no word says two values
of one column, and the text an agent words itself is marked."""

from __future__ import annotations

import json
from typing import Any

import mini_env
import pytest

from envfactory_mcp.blueprints import blueprint_names, handcrafted_names, kit, load_blueprint
from envfactory_mcp.crud.core import build_imported
from envfactory_mcp.crud.model import Field, Operation, Resource
from envfactory_mcp.crud.words import enum_labels, phrase
from envfactory_mcp.errors import SpecError
from envfactory_mcp.library import kit as library_kit
from envfactory_mcp.spec import EnvSpec, TableSpec, dump_spec, parse_spec, validate_spec


def _column(data: dict[str, Any], table: str, column: str) -> dict[str, Any]:
    columns = next(t for t in data["tables"] if t["name"] == table)["columns"]
    return next(c for c in columns if c["name"] == column)


def _spec(name: str) -> EnvSpec:
    blueprint = load_blueprint(name)
    return validate_spec(blueprint.build_spec(blueprint.default_seed))


def _node(schema: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The output schema of a claim path (``status``, ``totals.refunded``, ``items[].state``)."""
    node = schema
    for part in path.split("."):
        node = node.get("properties", {}).get(part.removesuffix("[]"))
        if node is None:
            return None
        if part.endswith("[]"):
            node = node.get("items", {})
    return node


# ---------------------------------------------------------------- the spec refuses what cannot be right


@pytest.mark.parametrize(
    ("table", "column", "declared", "where", "message"),
    [
        (
            "accounts",
            "kind",
            {"enum_labels": {"credit": {"display": "credit account"}}},
            "tables[accounts].columns[kind].enum_labels[credit]",
            "not one of the column's enum values",
        ),
        (
            "accounts",
            "owner",
            {"enum_labels": {"alice": {"display": "Alice"}}},
            "tables[accounts].columns[owner].enum_labels[alice]",
            "not one of the column's enum values",
        ),
        ("accounts", "kind", {"compare": "text"}, "tables[accounts].columns[kind].compare", "only a TEXT"),
        (
            "accounts",
            "balance_cents",
            {"compare": "text"},
            "tables[accounts].columns[balance_cents].compare",
            "only a TEXT",
        ),
    ],
)
def test_labels_of_no_value_and_free_text_that_is_not_text_are_refused(
    table, column, declared, where, message
):
    data = mini_env.spec_dict()
    _column(data, table, column).update(declared)
    with pytest.raises(SpecError) as info:
        parse_spec(data)
    assert info.value.where == where
    assert message in info.value.message


def test_declared_fields_round_trip_and_undeclared_ones_leave_spec_json_as_it_was():
    plain = mini_env.spec_dict()
    text = dump_spec(parse_spec(plain))
    assert '"compare"' not in text and '"enum_labels"' not in text
    # The bytes are those of the spec before either field existed: the input, normalised.
    assert (
        json.loads(text)["tables"]
        == parse_spec(plain).model_dump(
            mode="json", exclude={"tables": {"__all__": {"columns": {"__all__": {"compare", "enum_labels"}}}}}
        )["tables"]
    )

    declared = mini_env.spec_dict()
    _column(declared, "accounts", "owner")["compare"] = "text"
    _column(declared, "accounts", "kind")["enum_labels"] = {
        "savings": {"display": "savings", "words": ["saver"]}
    }
    spec = parse_spec(declared)
    again = parse_spec(json.loads(dump_spec(spec)))
    assert again == spec
    owner = again.table("accounts").columns[1]  # type: ignore[union-attr]
    assert owner.compare == "text"
    kind = again.table("accounts").columns[2]  # type: ignore[union-attr]
    assert kind.enum_labels["savings"].words == ["saver"]
    assert dump_spec(again).count('"compare"') == 1


# ---------------------------------------------------------------- one word, one value


def test_a_word_that_would_say_two_values_is_refused_or_left_out():
    with pytest.raises(ValueError, match="'paused' would say 'suspended' and another value"):
        enum_labels(["active", "suspended", "paused"], words={"suspended": ["paused"]})
    with pytest.raises(ValueError, match="'on hold' would say"):
        enum_labels(["a", "b"], words={"a": ["on hold"], "b": ["On-hold"]})
    with pytest.raises(ValueError, match="said 'B'"):
        enum_labels(["a", "b"], display={"a": "B"})
    with pytest.raises(ValueError, match="'c'"):
        enum_labels(["a", "b"], words={"c": ["sea"]})
    labels = enum_labels(
        ["paused", "on_hold", "in_progress", "in-progress"],
        words={"paused": ["on hold", "stopped"], "on_hold": ["stopped", "waiting"]},
        drop_shared=True,
    )
    assert {v: (label.display, label.words) for v, label in labels.items()} == {
        "paused": ("paused", []),
        "on_hold": ("on hold", ["waiting"]),
    }  # two values said alike ("in progress") get no label at all


def _phrases_by_value(column) -> dict[str, set[str]]:
    said = {str(v): {phrase(v)} for v in column.enum or ()}
    for value, label in column.enum_labels.items():
        said[value] |= {phrase(label.display), *map(phrase, label.words)}
    return said


def test_no_word_says_two_values_of_one_column_anywhere():
    shared = []
    for name in blueprint_names():
        for table in _spec(name).tables:
            for column in table.columns:
                said = _phrases_by_value(column)
                for a in said:
                    for b in said:
                        if a < b and said[a] & said[b]:
                            shared.append(f"{name} {table.name}.{column.name}: {a}/{b} {said[a] & said[b]}")
    assert not shared


# ---------------------------------------------------------------- the flagships declare them


def _claimed_enum_columns(spec: EnvSpec) -> dict[str, list[Any]]:
    """``table.column`` -> its values, for every enum column whose values a claim reports: the
    column of a table the tool reads, named as the claim path ends, with the path's values."""
    found: dict[str, list[Any]] = {}
    for tool in spec.tools:
        for path in tool.claims:
            node = _node(tool.output_schema, path)
            if node is None or "enum" not in node:
                continue
            values = {v for v in node["enum"] if v is not None}
            name = path.split(".")[-1].removesuffix("[]")
            matches = [
                (table, column)
                for table in (spec.table(t) for t in tool.reads)
                if table is not None
                for column in table.columns
                if column.name == name and set(column.enum or ()) == values
            ]
            assert matches, f"{spec.name}: no column holds the values of {tool.name}'s claim {path}"
            for table, column in matches:
                found[f"{table.name}.{column.name}"] = list(column.enum or ())
    return found


@pytest.mark.parametrize("name", handcrafted_names())
def test_every_value_a_flagship_claim_reports_is_labelled(name):
    spec = _spec(name)
    claimed = _claimed_enum_columns(spec)
    assert claimed, f"{name} has no claim reporting an enum value"
    for where, values in claimed.items():
        table, column = where.split(".")
        labels = next(c for c in spec.table(table).columns if c.name == column).enum_labels  # type: ignore[union-attr]
        assert set(labels) == {str(v) for v in values}, where
        assert all(label.display.strip() for label in labels.values())


@pytest.mark.parametrize("name", handcrafted_names())
def test_every_text_enum_column_of_a_flagship_is_labelled(name):
    for table in _spec(name).tables:
        for column in table.columns:
            if column.enum is not None and all(isinstance(v, str) for v in column.enum):
                assert set(column.enum_labels) == set(column.enum), f"{table.name}.{column.name}"


def test_statuses_are_said_as_the_domain_means_them():
    orders = _spec("retail").table("orders")
    assert orders is not None
    status = next(c for c in orders.columns if c.name == "status").enum_labels
    assert "arrived" in status["delivered"].words
    assert "not yet processed" in status["pending"].words
    # retail's policy never says processed means shipped: only made ready to ship
    assert "shipped" not in status["processed"].words and "ready to ship" in status["processed"].words
    lines = _spec("telecom").table("lines")
    assert lines is not None
    line_status = next(c for c in lines.columns if c.name == "status").enum_labels
    assert {"paused", "on hold"} <= set(line_status["suspended"].words)


def test_the_free_text_an_agent_words_itself_is_compared_by_meaning():
    text = {
        name: sorted(
            f"{t.name}.{c.name}" for t in _spec(name).tables for c in t.columns if c.compare == "text"
        )
        for name in handcrafted_names()
    }
    assert text["telecom"] == ["tickets.description", "tickets.title"]
    assert text["clinic"] == ["appointments.reason"]
    assert text["logistics"] == ["claims.description"]
    assert text["workplace"] == ["external_approvals.justification", "messages.body"]
    assert text["retail"] == text["airline"] == text["banking"] == text["travel"] == []


def test_worded_names_only_columns_that_exist_and_hold_a_text_enum():
    orders = _spec("retail").table("orders")
    assert isinstance(orders, TableSpec)
    with pytest.raises(ValueError, match=r"no such columns: orders\.colour"):
        kit.worded([orders], {"orders.colour": {}})
    with pytest.raises(ValueError, match=r"orders\.items_modified holds no text enum"):
        kit.worded([orders], {"orders.items_modified": {"1": ["changed"]}})
    with pytest.raises(ValueError, match=r"orders\.status: 'shipped' would say"):
        kit.worded([orders], {"orders.status": {"processed": ["shipped"], "delivered": ["shipped"]}})


# ---------------------------------------------------------------- the library and the importers, by rule


def test_library_state_columns_are_labelled_and_prose_columns_compared_by_meaning():
    texts = 0
    for name in blueprint_names():
        if name in handcrafted_names():
            continue
        for table in _spec(name).tables:
            for column in table.columns:
                if column.name == "status":
                    assert set(column.enum_labels) == set(column.enum or ()), f"{name} {table.name}"
                if column.compare == "text":
                    texts += 1
                    assert column.type == "TEXT" and column.enum is None
                    last = column.name.split("_")[-1]
                    assert last in {
                        "description",
                        "details",
                        "notes",
                        "note",
                        "summary",
                        "reason",
                        "justification",
                    }
    assert texts >= 10
    grooming = _spec("pet_grooming")
    pets = grooming.table("pets")
    assert pets is not None
    assert next(c for c in pets.columns if c.name == "care_notes").compare == "text"
    status = library_kit.choice("status", ("active", "paused", "on_hold", "cancelled"))
    assert status.labels is not None
    assert status.labels["paused"].words == [] and status.labels["on_hold"].words == []  # each other's words
    assert status.labels["cancelled"].words == ["called off", "voided"]  # spec.state_words
    assert library_kit.choice("tier", ("basic", "plus")).labels is None


def test_imported_state_columns_get_their_values_in_words_and_descriptions_are_free_text():
    key = Field("ticket_id", "integer", read_only=True)
    tickets = Resource(
        "tickets",
        "ticket",
        (
            key,
            Field("status", "string", enum=("open", "in_progress", "closed")),
            Field("description", "string"),
            Field("title", "string"),
            Field("reason", "string", enum=("bug", "feature")),
        ),
        keys=("ticket_id",),
    )
    spec = build_imported(
        name="helpdesk",
        title="Helpdesk",
        description="Tickets.",
        source="a test",
        generator="importer:test",
        seed=0,
        resources=[tickets],
        operations=[Operation("get", "tickets", "get_ticket", "Show a ticket.")],
        ignored=[],
    ).spec
    columns = {c.name: c for c in validate_spec(spec).tables[0].columns}
    assert {v: label.display for v, label in columns["status"].enum_labels.items()} == {
        "open": "open",
        "in_progress": "in progress",
        "closed": "closed",
    }
    assert columns["description"].compare == "text"
    assert columns["title"].compare == columns["reason"].compare == "exact"
    assert columns["reason"].enum_labels == {}
