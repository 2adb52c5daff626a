"""The calibration checks catch every kind of leak and every dropped fact."""

from __future__ import annotations

from envfactory_mcp.tasks.calibrate import (
    LeakRules,
    check_message,
    leak_problems,
    missing_facts,
)
from envfactory_mcp.tasks.model import Fact

RULES = LeakRules(
    tool_names=["cancel_pending_order", "get_user_details"],
    param_keys=["order_id", "address1"],
    hidden_ids=["user_000042", "item_00017"],
)
FACTS = [
    Fact(
        key="email",
        kind="identity",
        value="a@b.example",
        text="a@b.example",
        must=["a@b.example"],
        in_opening=False,
    ),
    Fact(
        key="order_id",
        kind="reference",
        value="#W1",
        text="the order with the Desk Lamp",
        must=["Desk Lamp"],
        in_opening=True,
    ),
    Fact(
        key="cancel_pending_order.reason",
        kind="detail",
        value="no longer needed",
        text="no longer needed",
        must=["no longer needed"],
        in_opening=True,
    ),
]


def test_each_kind_of_leak_is_named():
    assert leak_problems("Please cancel_pending_order now", RULES) == [
        "names the tool 'cancel_pending_order'"
    ]
    assert leak_problems("Could you get user details?", RULES) == ["names the tool 'get_user_details'"]
    assert leak_problems("my order_id is unknown", RULES) == ["uses the parameter key 'order_id'"]
    assert leak_problems("it is user_000042", RULES) == [
        "contains the internal id 'user_000042', which the user does not know"
    ]
    assert leak_problems("1. find me\n2. cancel", RULES) == ["lists numbered steps"]
    assert leak_problems("- find me\n- cancel", RULES) == ["lists numbered steps"]
    assert leak_problems("I'd like to cancel my pending order, the reason is simple.", RULES) == []


def test_a_dropped_fact_is_reported_but_identity_may_wait():
    assert missing_facts("Cancel the Desk Lamp order, it's no longer needed.", FACTS) == []
    assert missing_facts("Cancel the Desk Lamp order.", FACTS) == [
        "drops 'no longer needed' (needs 'no longer needed')"
    ]
    assert check_message("Cancel the Desk Lamp order please, no longer needed.", FACTS, RULES) == []


def test_a_name_or_key_is_found_in_any_case_and_only_as_a_whole_word():
    """Names and keys are looked for as substrings of the lowered message before the
    whole-word search: in any case, at either end, beside punctuation; never inside a
    longer word."""
    rules = LeakRules(
        tool_names=["Cancel_Pending_Order", "get_user_details"], param_keys=["Order_ID"], hidden_ids=[]
    )
    assert leak_problems("CANCEL PENDING ORDER.", rules) == ["names the tool 'Cancel_Pending_Order'"]
    assert leak_problems("(Get_User_Details)", rules) == ["names the tool 'get_user_details'"]
    assert leak_problems("order_id", rules) == ["uses the parameter key 'Order_ID'"]
    assert leak_problems("My ORDER_ID: 5", rules) == ["uses the parameter key 'Order_ID'"]
    assert leak_problems("recancel pending orders and border_ids", rules) == []
    assert leak_problems("cancel pending order2 or xget_user_details", rules) == []
