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


# Asking for consent, in the many ways people ask for it.
CONSENT_REQUESTS = [
    "Does that sound right?",
    "Shall I go ahead?",
    "OK to proceed?",
    "Can I cancel order #W0012345 for you?",
    "Would you like the refund on your original card?",
    "I'll cancel it. Is that alright?",
    "Cancel #W0012345 now (yes or no)?",
    "Is that okay with you?",
    "Sound good?",
    "Does this look right to you?",
    "How does that sound?",
    "Happy for me to go ahead?",
    "Are you happy for me to go ahead?",
    "Do I have your go-ahead?",
    "Is it okay if I go ahead?",
    "Okay if I cancel it?",
    "Mind if I cancel it now?",
    "Shall I make it happen?",
    "Would that work for you?",
    "Is that what you want?",
    "Is this what you'd like?",
    "Do you agree?",
    "Can you confirm?",
    "Do you want me to confirm it?",
    "Should I finalise it?",
    "Please confirm and I'll proceed.",
    "Let me know if I should go ahead.",
    "I'll need your OK before I make the change.",
    "Reply yes to continue.",
    "What do you think, shall I go ahead?",
    "Want me to go ahead?",
    "Are we good to go?",
    "Ready for me to submit it?",
    "Alright?",
    "So, shall I carry on?",
    "Is everything correct?",
    "Is that right?",
    "May I go ahead and book it?",
    "Shall I go ahead and cancel order #W1?",
    "Would you like me to proceed?",
    "Is it alright to go ahead?",
    "Any objection to me going ahead?",
    "Can I go ahead with that?",
    "Is that correct?",
    "Do you want me to go ahead?",
    "OK?",
    "Everything look good?",
    "Does that work?",
    "Good to go?",
    "Okay with that?",
    "Shall I pay bill B26050011 with the amount $20.00 and the card ending in 6638?",
    "Do you want me to swap the Electric Kettle (capacity 1.7L, stainless steel) for the one with 1.5L?",
]
# Questions for information, offers of more help, and statements: none asks for consent.
NOT_CONSENT_REQUESTS = [
    "What is the email on your account?",
    "Could you share your zip code?",
    "Can you provide your order number?",
    "Could you confirm your email address?",
    "Which card would you like to use?",
    "Is there anything else I can help you with?",
    "Can I help with anything else?",
    "Do you have any other questions?",
    "Shall we look at something else too?",
    "Do you have the order number?",
    "I'll go ahead and cancel it.",
    "I've gone ahead and cancelled it.",
    "Your order is confirmed.",
    "What is your email, so I can proceed?",
    "Where should it go?",
    "Did you receive the item?",
    "Is the order still pending?",
    "Anything else I can do for you today?",
    "Would you like to tell me your zip code?",
    "How would you like to pay?",
    "When would you like to fly?",
    "Could you tell me the reason?",
    "Do you remember the order number?",
    "Can I ask the reason?",
    "What should the cabin be?",
    "Is there something else you'd like me to look at?",
    "Could you please verify your date of birth?",
    "Can you let me know the reason for it?",
    "The plan is confirmed.",
    "Thanks for confirming; it is cancelled.",
    "Which payment method should I use?",
    "Was there something further you needed?",
    "Does that cover what you needed?",
    "Is that everything for today?",
    "Who am I speaking with?",
    "Why was it returned?",
    "Before I go ahead, what is the new address, with street, city, state, zip code and country?",
    "To confirm the change, which card should I use?",
]


@pytest.mark.parametrize("text", CONSENT_REQUESTS)
def test_a_request_for_consent_asks_for_confirmation(text: str):
    from envfactory_mcp.scoring.policy import asks_confirmation

    assert asks_confirmation(text), text
    assert asks_confirmation(f"To confirm, I'll cancel order #W0012345. {text}"), text


@pytest.mark.parametrize("text", NOT_CONSENT_REQUESTS)
def test_a_question_for_information_or_more_help_is_no_request_for_consent(text: str):
    from envfactory_mcp.scoring.policy import asks_confirmation

    assert not asks_confirmation(text), text
    assert not asks_confirmation(f"Order #W0012345 is now cancelled. {text}"), text


def _library_spec(name: str) -> EnvSpec:
    blueprint = load_blueprint(name)
    return blueprint.build_spec(blueprint.default_seed)


CAB, CAR = _library_spec("citycab_business_account"), _library_spec("coastline_car_rental")
CAB_SIGN_IN = exchange(
    "citycab_business_account__find_taxi_account_user_id_by_email",
    '{"taxi_account_user_id": "taxi_account_user_0001"}',
    email="ann@example.com",
)
RESERVE = {
    "hirer_id": "hirer_0001",
    "car_class_id": "car_class_0001",
    "pickup_on": "2026-05-01",
    "return_on": "2026-05-03",
    "branch": "airport",
}


def test_a_namespaced_call_is_judged_by_its_own_servers_policy():
    """Signed in on the cab service only, then a lookup and a write on the car rental:
    its own policy wants a sign-in there and a yes before the write."""
    messages = [
        user("Book me a car for the day of my cab ride. My email is ann@example.com."),
        *CAB_SIGN_IN,
        *exchange(
            "coastline_car_rental__list_rental_reservations",
            '{"rental_reservations": []}',
            hirer_id="hirer_0001",
        ),
        *exchange("coastline_car_rental__reserve_rental_car", '{"status": "quoted"}', **RESERVE),
    ]
    assert policy_violations(messages, CAB, {CAR.name: CAR}) == [
        "call 1 coastline_car_rental__list_rental_reservations: not authenticated",
        "call 2 coastline_car_rental__reserve_rental_car: not authenticated",
        "call 2 coastline_car_rental__reserve_rental_car: no confirmation",
    ]
    # With the first server's spec only, the other server's calls went unjudged.
    assert policy_violations(messages, CAB) == []


def test_a_sign_in_and_a_yes_on_the_second_server_satisfy_its_policy():
    messages = [
        user("Book me a car for the day of my cab ride. My email is ann@example.com."),
        *CAB_SIGN_IN,
        *exchange(
            "coastline_car_rental__find_hirer_id_by_email",
            '{"hirer_id": "hirer_0001"}',
            email="ann@example.com",
        ),
        say("I'll reserve the car from 2026-05-01 to 2026-05-03 at the airport. Shall I go ahead?"),
        user("Yes, please."),
        *exchange("coastline_car_rental__reserve_rental_car", '{"status": "quoted"}', **RESERVE),
        # A cab write right after: the yes was spent on the car; the cab's policy wants its own.
        *exchange(
            "citycab_business_account__cancel_prebooked_ride",
            '{"status": "cancelled"}',
            prebooked_ride_id="prebooked_ride_0001",
        ),
    ]
    assert policy_violations(messages, CAB, {CAR.name: CAR}) == [
        "call 3 citycab_business_account__cancel_prebooked_ride: no confirmation"
    ]
