"""The language figures of issue 26 on hand-made texts whose figures are known."""

from __future__ import annotations

from typing import Any

import pytest

from envfactory_mcp.tasks import naturalness as lang


def episode(*assistant: str, user: str = "Hi.") -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": user}]
    for text in assistant:
        messages.append({"role": "assistant", "content": text})
        messages.append({"role": "tool", "tool_call_id": "c", "content": "out_on_slopes"})
    return messages


# ----------------------------------------------------------------------------- tokens, distinct-2


def test_tokens_lower_case_words_and_one_class_for_digits() -> None:
    assert lang.tokens("Order #W4014389 costs $45.83, it's due 2026-06-05 for user_000001.") == [
        "order",
        "<num>",
        "costs",
        "<num>",
        "it's",
        "due",
        "<num>",
        "for",
        "user",
        "<num>",
    ]


def test_distinct2_of_a_repeated_text_and_of_a_fresh_one() -> None:
    assert lang.distinct2(["a", "b"] * 10) == pytest.approx(2 / 19)  # ab, ba only
    assert lang.distinct2([str(i) for i in range(50)]) == 1.0
    assert lang.distinct2(["a"]) == 0.0


def test_distinct2_is_the_mean_over_full_windows_and_drops_the_short_tail() -> None:
    window = 10
    fresh = [f"w{i}" for i in range(10)]  # 9 distinct of 9
    same = ["x"] * 10  # 1 distinct of 9
    tail = ["y", "z"]  # a short last window: dropped
    assert lang.distinct2(fresh + same + tail, window) == pytest.approx((1 + 1 / 9) / 2)


def test_assistant_distinct2_pools_assistant_text_only_with_digits_masked() -> None:
    # "order 1 is done" / "order 2 is done": masked, the same four tokens twice.
    eps = [episode("Order 1 is done."), episode("Order 2 is done.", user="Zebra quartz vivid.")]
    # tokens: order N is done order N is done -> bigrams: (order,N) (N,is) (is,done) (done,order) and repeats
    assert lang.assistant_distinct2(eps) == pytest.approx(4 / 7)


# ----------------------------------------------------------------------------- recurring sentences


def test_sentences_split_after_stops_not_inside_amounts() -> None:
    assert lang.sentences("Done: order #W1 costs $45.83. Anything else?\nBye!") == [
        "Done: order #W1 costs $45.83.",
        "Anything else?",
        "Bye!",
    ]
    assert lang.sentence_key("  Order   7 is  READY. ") == "order 0 is ready."


def test_recurring_share_counts_sentences_once_per_episode_over_all_occurrences() -> None:
    # 20 episodes; "Anything else?" in 3 (15% > 5%), twice in one of them; every other sentence unique.
    eps = []
    for i in range(20):
        texts = [f"Unique sentence {chr(97 + i)} here."]
        if i < 3:
            texts.append("Anything else?")
        if i == 0:
            texts.append("Anything else?")
        eps.append(episode(*texts))
    found = lang.recurring_sentences(eps)
    assert found.occurrences == 20 + 4
    assert found.recurring == 4
    assert found.share == pytest.approx(4 / 24)
    assert found.top == [("anything else?", 3)]


def test_a_sentence_in_one_episode_never_recurs_and_the_share_is_strictly_more_than() -> None:
    # 10 episodes: one episode is 10% > 5%, yet one episode is no recurrence.
    eps = [episode(f"Only here {chr(97 + i)}.") for i in range(10)]
    assert lang.recurring_sentence_share(eps) == 0.0
    # 40 episodes, a sentence in 2 of them: 5% is not more than 5%.
    eps = [episode(f"Only here {chr(65 + i)}{chr(97 + i)}.") for i in range(40)]
    eps[0] = episode("Shared one.")
    eps[1] = episode("Shared one.")
    assert lang.recurring_sentence_share(eps) == 0.0
    eps[2] = episode("Shared one.")  # 3 of 40 = 7.5%
    assert lang.recurring_sentence_share(eps) == pytest.approx(3 / 40)


def test_digits_are_masked_before_sentences_are_compared() -> None:
    eps = [episode(f"Order {i} is on its way.") for i in range(4)]
    assert lang.recurring_sentence_share(eps) == 1.0


# ----------------------------------------------------------------------------- customer voice


@pytest.mark.parametrize(
    "text",
    [
        "Sure, I can pay my bill now.",
        "Since it is not active, I can't add checked bags to my reservation.",
        "I'll go ahead and cancel my order.",
        "I want to return the blender.",
        "I'd like to upgrade the cabin to business.",
        "I would like to get a refund for the lamp.",
        "I need a new SIM card for this line.",
        "I'm writing about the dent in the kettle.",
        "I'm calling to renew the subscription.",
        "I'm ready to exchange items I received for order #W4014389.",
        "The charge I was billed twice for is wrong.",
        "Please move the booking to my new address.",
        "A discount code for my next order is outside what I can do.",
        "I hope to get compensation for the delay.",
    ],
)
def test_customer_voice_is_found(text: str) -> None:
    assert lang.customer_voice(text), text


@pytest.mark.parametrize(
    "text",
    [
        "I can help with that.",
        "I'll cancel it right away.",
        "My apologies for the wait, and thank you for your patience.",
        "Let me check that for you.",
        "I need to verify your identity first.",
        "I need the order number, please.",
        "I'd like to confirm the details before I go ahead.",
        "I'd like to book that for you now.",
        'You asked: "cancel my order". Is that right?',
        "I received your message and I've cancelled your order.",
        "To the best of my knowledge, the flight is on time.",
        "It was my pleasure. My colleague in billing will call.",
        "I want to make sure I have this right: the order is #W1.",
        "Your reservation is cancelled; I have refunded $50.00 to your card.",
        "I need a moment to look that up.",
        "I hope knowing where it stands helps.",
        "I just need one detail: may I ask the reason?",
        "On to my next question: which card?",
        "I hope this helps, and I wish the trip goes well.",
    ],
)
def test_the_agents_own_first_person_is_not_customer_voice(text: str) -> None:
    assert lang.customer_voice(text) == [], text


def test_customer_voice_turns_counts_assistant_turns_not_user_ones() -> None:
    eps = [
        episode("I can help.", "Okay, I will cancel my order.", user="Please cancel my order."),
        episode("Done.", user="I want to pay my bill."),
    ]
    assert lang.customer_voice_turns(eps) == [(0, "Okay, I will cancel my order.")]


# ----------------------------------------------------------------------------- snake_case words


def test_snake_case_words_are_generator_words_not_values() -> None:
    text = (
        "A out_on_slopes ski rental; the damage is broken_binding and nonfree_bags is 1. "
        "Order #W0012345, txn_1003388, acct_000224 and user_000001 are ids; mail "
        "jane_doe@example.com or see https://example.com/my_page and refund_form.pdf. API_KEY too."
    )
    assert lang.snake_case_words(text) == ["out_on_slopes", "broken_binding", "nonfree_bags", "API_KEY"]


@pytest.mark.parametrize(
    "text",
    ["txn_1003388", "#W0012345", "jane_doe@example.com", "https://x.org/a_b", "a plain sentence", "v_2"],
)
def test_values_are_not_snake_case_words(text: str) -> None:
    assert lang.snake_case_words(text) == []


def test_snake_case_in_episodes_reads_user_and_assistant_text_but_not_tool_output() -> None:
    eps = [episode("The status is out_on_slopes.", user="My boot is cracked_boot.")]
    assert lang.snake_case_in_episodes(eps) == [
        (0, "user", "cracked_boot"),
        (0, "assistant", "out_on_slopes"),
    ]


# ----------------------------------------------------------------------------- stock request sentences


def test_request_key_masks_values() -> None:
    key = lang.request_key(
        'Hi, I\'m Aisha Hughes, order #W0012345 from "Blue Shop", code 7BWGQA, mail a.b@x.com, 3 items.',
        ["Aisha Hughes"],
    )
    assert key == "hi, i'm <v>, order <v> from <v>, code <v>, mail <v>, 0 items."


def test_stock_share_is_sentences_shared_by_three_percent_of_requests() -> None:
    # 100 requests: "Thanks a lot." in 3 (3% -> stock), "Cheers." in 2 (not stock); two unique
    # sentences each.
    requests = [f"Fix {'z' * (i + 1)} now. Look at {'y' * (i + 1)} too." for i in range(100)]
    for i in range(3):
        requests[i] += " Thanks a lot."
    for i in range(3, 5):
        requests[i] += " Cheers."
    found = lang.stock_sentences(requests)
    assert found.occurrences == 200 + 5
    assert found.stock == 3
    assert found.share == pytest.approx(3 / 205)
    assert found.top == [("thanks a lot.", 3)]


def test_stock_sentences_are_found_through_masked_values() -> None:
    requests = [
        f"I want to cancel order #W00{i}. My name is {name}." for i, name in enumerate(["Al Bo", "Cy Do"])
    ]
    assert lang.stock_sentence_share(requests) == pytest.approx(2 / 4)  # names differ, orders masked
    assert lang.stock_sentence_share(requests, values=[["Al Bo"], ["Cy Do"]]) == 1.0


# ----------------------------------------------------------------------------- tools and fields named

TOOLS = {"find_flights", "get_user_details", "cancel_reservation"}
FIELDS = {
    "total_bags",
    "user_id",
    "first_name",
    "zip_code",
    "email",
    "date",
    "origin",
    "payment_method_id",
    "flight_number",
    "net_paid",
    "last_four",
}


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Please find flights between BOS and ORD, then tell me the user id.", ["find_flights", "user_id"]),
        ("Call get_user_details for me.", ["get_user_details"]),
        ("I'll bring 2 bags; total_bags should be 2.", ["total_bags"]),
        ("The total bags are 2.", ["total_bags"]),
        ("Use the payment method id on file.", ["payment_method_id"]),
        ("Cancel reservation 7BWGQA.", ["cancel_reservation"]),
        ("Tell me the net paid.", ["net_paid"]),
        ("The flight_number is HAT620.", ["flight_number"]),
    ],
)
def test_prompts_naming_tools_or_fields(text: str, names: list[str]) -> None:
    assert lang.names_tool_or_field(text, TOOLS, FIELDS) == names


@pytest.mark.parametrize(
    "text",
    [
        "My first name is Ana, zip code 10001, email ana_b@example.com; the date is June 5.",
        "I'm flying from Boston (origin, as you'd say) and I want to cancel my reservation.",
        "My account is user_000001 and my bags total two.",
        "Could you look for a flight to Chicago?",
        "It's flight number HAT620, I think.",
        "Use the card whose last four digits are 1234.",
    ],
)
def test_plain_english_and_values_do_not_name_a_field(text: str) -> None:
    assert lang.names_tool_or_field(text, TOOLS, FIELDS) == []


def test_spec_vocabulary_reads_tools_schemas_and_columns() -> None:
    from types import SimpleNamespace as NS

    tool = NS(
        name="book_flight",
        input_schema={"type": "object", "properties": {"total_bags": {"type": "integer"}}},
        output_schema={
            "type": "object",
            "properties": {"legs": {"type": "array", "items": {"properties": {"flight_number": {}}}}},
        },
    )
    prices = NS(
        name="search",
        input_schema={"properties": {"cabin": {"enum": ["basic_economy", "economy"]}}},
        output_schema={"properties": {"prices": {"properties": {"basic_economy": {}, "economy": {}}}}},
    )
    table = NS(columns=[NS(name="user_id", enum=None), NS(name="email", enum=None)])
    tools, fields = lang.spec_vocabulary(NS(tools=[tool, prices], tables=[table]))
    assert tools == {"book_flight", "search"}
    # basic_economy is a cabin too (a value the user says): not a field
    assert fields == {"total_bags", "legs", "flight_number", "user_id", "email", "cabin", "prices"}


# ----------------------------------------------------------------------------- field dumps


@pytest.mark.parametrize(
    "text",
    [
        "Insurance: no.",
        "For the total bags, it's 0.",
        "Book it (cabin: economy; total bags: 3).",
        "Use yes for the insurance.",
        "The flight is fine. Payment method: credit card.",
        "You picked the Gaming Mouse (color: black, sensor: laser).",
    ],
)
def test_field_dumps_are_found(text: str) -> None:
    assert lang.form_fragments(text), text


@pytest.mark.parametrize(
    "text",
    [
        "I'd like no insurance and no checked bags, please.",
        "Meet me at 10:30 tomorrow.",
        "Here is the thing: my kettle arrived cracked and I would like my money back, please.",
        "Write to me at a.b@example.com.",
        "Another thing: I'm catching up on my order.",
        "For reference, it's the blue one.",
        "Quick one: check it on Monday.",
        "All done: the net paid is $0.00.",
        "Great news: ticket T123 is now closed.",
    ],
)
def test_prose_is_not_a_field_dump(text: str) -> None:
    assert lang.form_fragments(text) == [], text


# ----------------------------------------------------------------------------- together


def test_language_figures_and_targets() -> None:
    eps = [episode("I can help. Your order #W1 is cancelled.", user="Cancel my order #W1 please.")]
    figures = lang.language_figures(
        eps,
        ["Cancel my order #W1 please.", "Insurance: no."],
        None,
        [("find flights from BOS", TOOLS, FIELDS), ("I need to get to Chicago", TOOLS, FIELDS)],
    )
    assert figures["customer_voice_turns"] == 0
    assert figures["snake_case_words"] == 0
    assert figures["eval_prompts_naming"] == 1
    assert figures["eval_prompts"] == 2
    assert figures["eval_prompt_snake_case"] == 0
    assert figures["request_field_dumps"] == 1
    assert lang.meets("assistant_distinct2", 0.5) is True
    assert lang.meets("recurring_sentence_share", 0.16) is False
    assert lang.meets("customer_voice_turns", 1) is False
    assert lang.meets("episodes", 3) is None
