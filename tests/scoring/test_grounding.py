"""Grounding: a tool call may use only values the user or a tool said before it.

Conversations are built by hand in OpenAI chat format against the real retail spec."""

from __future__ import annotations

from typing import Any

import pytest
from chat import call, exchange, results, say, user

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.scoring.grounding import UngroundedValue, ungrounded_calls
from envfactory_mcp.spec import EnvSpec

BLUEPRINT = load_blueprint("retail")
SPEC: EnvSpec = BLUEPRINT.build_spec(BLUEPRINT.default_seed)


def paths(found: list[UngroundedValue]) -> list[tuple[int, str, str, Any]]:
    return [(u.call_index, u.tool, u.path, u.value) for u in found]


def test_an_email_the_agent_invented_is_ungrounded():
    messages = [
        user("Hi, I'm Yusuf Rossi and I want to cancel an order."),
        *exchange("find_user_id_by_email", {"user_id": "user_000042"}, email="yusuf.rossi@example.com"),
    ]
    assert paths(ungrounded_calls(messages, SPEC)) == [
        (0, "find_user_id_by_email", "email", "yusuf.rossi@example.com")
    ]


def test_the_same_email_after_the_user_said_it_is_grounded_whatever_its_case():
    messages = [
        user("Hi, I want to cancel an order."),
        say("Sure. What is the email address on your account?"),
        user("It's  Yusuf.Rossi@Example.com."),
        *exchange("find_user_id_by_email", {"user_id": "user_000042"}, email="yusuf.rossi@example.com"),
    ]
    assert ungrounded_calls(messages, SPEC) == []


def test_what_the_assistant_said_never_grounds_a_value():
    messages = [
        user("Hi, I want to cancel an order."),
        say("I will look you up as yusuf.rossi@example.com, zip 78701."),
        user("ok"),
        *exchange("find_user_id_by_email", {"user_id": "user_000042"}, email="yusuf.rossi@example.com"),
    ]
    assert [u.path for u in ungrounded_calls(messages, SPEC)] == ["email"]


def test_an_order_id_copied_from_a_tool_output_is_grounded():
    details = {"user_id": "user_000042", "first_name": "Yusuf", "orders": ["#W0012345", "#W0067890"]}
    messages = [
        user("My email is yusuf.rossi@example.com; what is the status of my last order?"),
        *exchange("find_user_id_by_email", {"user_id": "user_000042"}, email="yusuf.rossi@example.com"),
        *exchange("get_user_details", details, user_id="user_000042"),
        *exchange("get_order_details", {"status": "pending"}, order_id="#W0067890"),
    ]
    assert ungrounded_calls(messages, SPEC) == []
    # An order id that neither the user nor a tool gave is invented.
    invented = [*messages, *exchange("get_order_details", {"status": "pending"}, order_id="#W0099999")]
    assert paths(ungrounded_calls(invented, SPEC)) == [(3, "get_order_details", "order_id", "#W0099999")]


def test_a_value_is_matched_as_a_whole_token_not_inside_another():
    messages = [
        user("My name is Joanna Smith, zip 178701."),
        *exchange(
            "find_user_id_by_name_zip",
            {"user_id": "user_000042"},
            first_name="Ann",
            last_name="Smith",
            zip="78701",
        ),
    ]
    assert [u.path for u in ungrounded_calls(messages, SPEC)] == ["first_name", "zip"]


def test_a_value_said_only_after_the_call_does_not_ground_it():
    turn = call("find_user_id_by_email", email="ann@example.com")
    messages = [user("Hello"), turn, *results(turn, "Error: no user has that email"), user("ann@example.com")]
    assert [u.value for u in ungrounded_calls(messages, SPEC)] == ["ann@example.com"]


def test_enum_values_of_the_schema_and_empty_values_are_always_grounded():
    messages = [
        user("Please cancel order #W0012345."),
        say("Do you want me to cancel #W0012345? Please confirm."),
        user("yes"),
        # "no longer needed" is one of the schema's enum values: a choice, not data.
        *exchange(
            "cancel_pending_order", {"status": "cancelled"}, order_id="#W0012345", reason="no longer needed"
        ),
    ]
    assert ungrounded_calls(messages, SPEC) == []
    address = {
        "user_id": "user_000042",
        "address1": "12 Elm St",
        "address2": "",
        "city": "Austin",
        "state": "TX",
        "country": "USA",
        "zip": "78701",
    }
    said = [
        user("Move me to 12 Elm St, Austin, TX 78701, USA."),
        *exchange("find_user_id_by_email", {"user_id": "user_000042"}, email="a@b.co"),
    ]
    moved = [*said, *exchange("modify_user_address", {"user_id": "user_000042"}, **address)]
    # address2 is "" (grounded); a@b.co was never said.
    assert [u.path for u in ungrounded_calls(moved, SPEC)] == ["email"]


def test_numbers_are_matched_by_value():
    calculation = [
        user("I paid $1,219.80 and got 54.5 back."),
        *exchange("calculate", {"result": 1165.3}, expression="1219.8 - 54.50"),
    ]
    assert ungrounded_calls(calculation, SPEC) == []
    invented = [
        user("I paid $1,219.80."),
        *exchange("calculate", {"result": 1165.3}, expression="1219.8 - 54.5"),
    ]
    assert [u.value for u in ungrounded_calls(invented, SPEC)] == ["1219.8 - 54.5"]


def test_a_composed_summary_is_grounded_by_its_ids_and_numbers_not_its_wording():
    details = {"order_id": "#W0012345", "status": "delivered", "totals": {"paid": 54.04}}
    base = [
        user("I want a price match on order #W0012345, my email is ann@example.com"),
        *exchange("find_user_id_by_email", {"user_id": "user_000042"}, email="ann@example.com"),
        *exchange("get_order_details", details, order_id="#W0012345"),
    ]
    honest = "User user_000042 asks for a price match on delivered order #W0012345 (paid $54.04)."
    assert ungrounded_calls([*base, *exchange("transfer_to_human_agents", {}, summary=honest)], SPEC) == []
    invented = "User wants a price match on order #W0054321, paid $54.04."
    found = ungrounded_calls([*base, *exchange("transfer_to_human_agents", {}, summary=invented)], SPEC)
    assert paths(found) == [(2, "transfer_to_human_agents", "summary", invented)]


def test_arrays_and_objects_are_checked_leaf_by_leaf():
    order = {
        "items": [{"item_id": "item_00042"}, {"item_id": "item_00043"}],
        "payment_method_id": "paypal_000001",
    }
    messages = [
        user("Return two items of #W0012345, my email is ann@example.com"),
        *exchange("find_user_id_by_email", {"user_id": "user_000042"}, email="ann@example.com"),
        *exchange("get_order_details", order, order_id="#W0012345"),
        say("Shall I return item_00042 and item_00044 to paypal_000001? Please confirm."),
        user("Yes please."),
        *exchange(
            "return_delivered_order_items",
            {"status": "return_requested"},
            order_id="#W0012345",
            item_ids=["item_00042", "item_00044"],
            payment_method_id="paypal_000001",
        ),
    ]
    assert paths(ungrounded_calls(messages, SPEC)) == [
        (2, "return_delivered_order_items", "item_ids[1]", "item_00044")
    ]


def test_namespaced_names_resolve_to_the_spec_and_unknown_tools_check_every_leaf():
    messages = [
        user("Cancel #W0012345 please, it was ordered by mistake."),
        *exchange("retail__get_order_details", {"status": "pending"}, order_id="#W0012345"),
        # A schema enum value that nobody said: grounded for the spec's tool ...
        *exchange("retail__cancel_pending_order", {}, order_id="#W0012345", reason="no longer needed"),
        # ... but a tool the spec does not know has no schema to excuse it.
        *exchange("airline__cancel_reservation", {}, reservation_id="#W0012345", reason="no longer needed"),
    ]
    assert paths(ungrounded_calls(messages, SPEC)) == [
        (2, "airline__cancel_reservation", "reason", "no longer needed")
    ]


def test_malformed_arguments_are_not_checked_here():
    turn = call("find_user_id_by_email")
    turn["tool_calls"][0]["function"]["arguments"] = "{bad"
    assert ungrounded_calls([user("hi"), turn], SPEC) == []


@pytest.mark.parametrize("value", [True, False, None])
def test_booleans_and_null_are_grounded_even_for_unknown_tools(value: Any):
    assert ungrounded_calls([user("hi"), *exchange("other__tool", {}, flag=value)], SPEC) == []
