"""The policy check over hand-built OpenAI chat conversations, with retail's real rules:
authentication before account tools, an explicit yes before each confirmed write."""

from __future__ import annotations

import pytest
from chat import calls, exchange, results, say, user

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.scoring.policy import affirms, policy_violations
from envfactory_mcp.spec import EnvSpec

BLUEPRINT = load_blueprint("retail")
SPEC: EnvSpec = BLUEPRINT.build_spec(BLUEPRINT.default_seed)
CANCEL = {"order_id": "#W0012345", "reason": "no longer needed"}

AUTHENTICATED = [
    user("Hi, I want to cancel order #W0012345. My email is ann@example.com."),
    *exchange("find_user_id_by_email", '{"user_id": "user_000042"}', email="ann@example.com"),
    *exchange("get_order_details", '{"status": "pending"}', order_id="#W0012345"),
]
ASK = say("Order #W0012345 will be cancelled because it is no longer needed. Shall I proceed?")


def test_a_write_without_a_yes_is_a_violation():
    messages = [*AUTHENTICATED, *exchange("cancel_pending_order", **CANCEL)]
    assert policy_violations(messages, SPEC) == ["call 2 cancel_pending_order: no confirmation"]


def test_a_write_after_the_user_confirmed_is_not():
    messages = [
        *AUTHENTICATED,
        ASK,
        user("Yes, please go ahead."),
        *exchange("cancel_pending_order", **CANCEL),
    ]
    assert policy_violations(messages, SPEC) == []


@pytest.mark.parametrize(
    "reply",
    [
        "No, wait, I need to think about it.",
        "Yes, but don't do it yet.",
        "Hmm, what would the refund be?",
    ],
)
def test_a_reply_that_is_not_a_clear_yes_does_not_confirm(reply: str):
    messages = [*AUTHENTICATED, ASK, user(reply), *exchange("cancel_pending_order", **CANCEL)]
    assert policy_violations(messages, SPEC) == ["call 2 cancel_pending_order: no confirmation"]


def test_a_yes_to_a_question_that_asks_no_confirmation_does_not_count():
    messages = [
        *AUTHENTICATED,
        say("Can you tell me why you want to cancel?"),
        user("Sure, I no longer need it."),
        *exchange("cancel_pending_order", **CANCEL),
    ]
    assert policy_violations(messages, SPEC) == ["call 2 cancel_pending_order: no confirmation"]


def test_each_write_needs_its_own_yes_but_a_failed_write_may_be_retried():
    cancel = calls(("cancel_pending_order", CANCEL))
    messages = [
        *AUTHENTICATED,
        ASK,
        user("Yes"),
        cancel,
        *results(cancel, "Error: reason must be one of ..."),  # nothing changed: the yes stands
        *exchange("cancel_pending_order", **CANCEL),
        *exchange("modify_user_address", user_id="user_000042", address1="1 Main St"),
    ]
    assert policy_violations(messages, SPEC) == ["call 4 modify_user_address: no confirmation"]


def test_a_tool_needing_authentication_called_before_it_is_a_violation():
    messages = [
        user("What is the status of order #W0012345? My email is ann@example.com."),
        *exchange("get_order_details", '{"status": "pending"}', order_id="#W0012345"),
        *exchange("find_user_id_by_email", '{"user_id": "user_000042"}', email="ann@example.com"),
        *exchange("get_order_details", '{"status": "pending"}', order_id="#W0012345"),
    ]
    assert policy_violations(messages, SPEC) == ["call 0 get_order_details: not authenticated"]


def test_a_call_before_authentication_that_was_refused_showed_nothing_and_is_no_violation():
    messages = [
        user("What is the status of order #W0012345? My email is ann@example.com."),
        *exchange(
            "get_order_details", "Error: Invalid arguments for get_order_details: ... (not sent).", x=1
        ),
        *exchange("find_user_id_by_email", '{"user_id": "user_000042"}', email="ann@example.com"),
        *exchange("get_order_details", '{"status": "pending"}', order_id="#W0012345"),
    ]
    assert policy_violations(messages, SPEC) == []
    unanswered = [user("Status of #W0012345?"), calls(("get_order_details", {"order_id": "#W0012345"}))]
    assert policy_violations(unanswered, SPEC) == ["call 0 get_order_details: not authenticated"]


def test_a_failed_authentication_does_not_authenticate_and_exempt_tools_need_none():
    messages = [
        user("Hi, what do you sell? And check order #W0012345, email ann@example.com."),
        *exchange("list_all_product_types", '{"products": []}'),
        *exchange("find_user_id_by_email", "Error: no user has that email", email="ann@example.com"),
        *exchange("get_order_details", '{"status": "pending"}', order_id="#W0012345"),
    ]
    assert policy_violations(messages, SPEC) == ["call 2 get_order_details: not authenticated"]


def test_a_call_in_the_same_turn_as_the_authentication_comes_before_it():
    turn = calls(
        ("retail__find_user_id_by_email", {"email": "ann@example.com"}),
        ("retail__get_order_details", {"order_id": "#W0012345"}),
    )
    messages = [user("ann@example.com, order #W0012345"), turn, *results(turn, '{"user_id": "u"}', "{}")]
    assert policy_violations(messages, SPEC) == ["call 1 retail__get_order_details: not authenticated"]


@pytest.mark.parametrize(
    ("text", "yes"),
    [
        ("yes", True),
        ("Yeah, go for it", True),
        ("Yep.", True),
        ("Sure, please do.", True),
        ("OK", True),
        ("Okay, that's right.", True),
        ("Correct.", True),
        ("Please go ahead and cancel it.", True),
        ("I confirm.", True),
        ("Yes, it is no longer needed.", True),
        ("no", False),
        ("Don't do that.", False),
        ("Wait, one more thing.", False),
        ("Yes... no, actually.", False),
        ("What would it cost?", False),
        ("", False),
    ],
)
def test_affirms(text: str, yes: bool):
    assert affirms(text) is yes


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("Can I cancel order #W0012345 for you?", True),
        ("Would you like the refund on your original card?", True),
        ("I'll cancel it. Is that alright?", True),
        ("Cancel #W0012345 now (yes or no)?", True),
        ("Shall I go ahead?", True),
        ("What is the email on your account?", False),
        ("Could you share your zip code?", False),
        ("Can you provide your order number?", False),
    ],
)
def test_a_yes_no_question_proposing_an_action_asks_for_confirmation(text: str, asks: bool):
    from envfactory_mcp.scoring.policy import asks_confirmation

    assert asks_confirmation(text) is asks
