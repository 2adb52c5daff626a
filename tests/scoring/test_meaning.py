"""Values compared by meaning: what a reply states (claims) and what a free-text column holds.

Right answers in other words count (spellings, synonyms, formats, natural negatives); wrong,
negated, hedged or pasted values do not.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from envfactory_mcp.scoring import words
from envfactory_mcp.scoring.claims import claims_communicated, told, without_json
from envfactory_mcp.scoring.free_text import diffs_mean_same, text_means
from envfactory_mcp.scoring.meaning import value_of
from envfactory_mcp.scoring.said import Value, mentions
from envfactory_mcp.spec import EnvSpec, parse_spec
from envfactory_mcp.tasks.model import Claim


def spec() -> EnvSpec:
    """A small shop whose orders have a status (with declared words) and a free-text note."""
    status = ["pending", "delivered", "cancelled", "exchange_requested"]
    out = {
        "type": "object",
        "properties": {
            "order_id": {"type": "string"},
            "status": {"type": "string", "enum": status},
            "refundable": {"type": "boolean"},
        },
        "required": ["order_id", "status", "refundable"],
        "additionalProperties": False,
    }
    return parse_spec(
        {
            "name": "shop",
            "title": "Shop",
            "domain": "retail",
            "description": "A shop.",
            "seed": {"generator": "model"},
            "tables": [
                {
                    "name": "orders",
                    "primary_key": ["order_id"],
                    "columns": [
                        {"name": "order_id", "type": "TEXT"},
                        {
                            "name": "status",
                            "type": "TEXT",
                            "enum": status,
                            "enum_labels": {"delivered": {"display": "delivered", "words": ["handed over"]}},
                        },
                        {"name": "note", "type": "TEXT", "compare": "text"},
                    ],
                }
            ],
            "tools": [
                {
                    "name": "get_order",
                    "description": "An order.",
                    "intent": "check an order",
                    "effect": "read",
                    "reads": ["orders"],
                    "input_schema": {"type": "object", "properties": {}, "additionalProperties": False},
                    "output_schema": out,
                    "claims": ["status"],
                }
            ],
        }
    )


SHOP = spec()


def status(value: str) -> Value:
    return value_of(value, "status", SHOP, "get_order")


@pytest.mark.parametrize(
    ("stem_of", "same"),
    [
        (("cancelled", "canceled", "cancellation", "cancel"), True),
        (("colour", "color"), True),
        (("closed", "close", "closes"), True),
        (("status", "statuses"), True),
        (("delivered", "undelivered"), False),
        (("delivered", "delivery"), False),
    ],
)
def test_stems_fold_spelling_and_inflection_only(stem_of: tuple[str, ...], same: bool):
    assert (len({words.stem(w) for w in stem_of}) == 1) is same


def test_numbers_and_dates_are_read_in_their_written_forms():
    said = "You have two bags, one hundred and five points, $1,219.80 or USD 54, and twenty-five days"
    assert [n.value for n in words.numbers_in(said)] == [1219.8, 54.0, 2.0, 105.0, 25.0]
    assert [n.value for n in words.numbers_in("It starts on 2026-06-18, June 19 or 6/20/2026")] == []
    dates = words.dates_in("On Thursday, June 18; from 19 June 2026; by 6/20/2026; 2026-06-21", 2026)
    assert {d.day for d in dates} == {18, 19, 20, 21}


@pytest.mark.parametrize(
    ("value", "said", "count"),
    [
        ("cancelled", "Your order has been canceled.", 1),
        ("cancelled", "The order is CANCELLED now", 1),
        ("cancelled", "Your order was called off.", 1),
        ("cancelled", "The cancellation went through.", 1),
        ("cancelled", "Your order is not cancelled.", 0),
        ("cancelled", "It's cancelled, or possibly still pending.", 0),
        ("cancelled", "The order is pending.", 0),
        ("exchange_requested", "An exchange has been requested for it.", 1),
        ("exchange_requested", "Status: exchange_requested", 1),
        ("delivered", "It was handed over yesterday.", 1),  # a declared word
        ("delivered", "It has arrived.", 1),  # a common word, beside the declared ones
        ("cancelled", "It has been voided.", 1),  # a common word, where none is declared
        ("delivered", "It is undelivered.", 0),
        ("cancelled", "I'll cancel it for you.", 0),  # an intention, not a state
        ("cancelled", "It can be cancelled until it ships.", 0),
        ("cancelled", "Only pending orders can be cancelled.", 0),  # a rule, not this order
        ("cancelled", "If it is cancelled, the refund follows.", 0),
        ("exchange_requested", "It is awaiting an exchange.", 1),
        ("cancelled", "It is cancelled (or maybe open).", 0),  # taken back, whatever the rival
        ("cancelled", "It is cancelled, or possibly pending. Since it is not pending, it stays.", 0),
        ("delivered", "Sorry: a delivered order, or a cancelled one, cannot be changed again.", 0),
        ("cancelled", "It is cancelled, though it might be pending.", 0),  # a rival as a possibility
        ("cancelled", "You have a cancelled order.", 1),
        ("delivered", "It is delivered; a pending one could still be cancelled.", 1),
        # The same statement made again with another value contradicts it.
        ("cancelled", "Your order status is cancelled. Your order status is pending.", 0),
        ("delivered", "Order #W1 is delivered. Order #W2 is pending.", 1),
        # Worded alike, but about two objects named by their ids: two statements.
        (
            "delivered",
            "Your order number W1234 has the status delivered. Your order number W5678 is marked pending.",
            1,
        ),
        (
            "delivered",
            "Your order number W1234 has the status delivered. Your order number W1234 is marked pending.",
            0,
        ),
        (
            "delivered",
            "Your order number W1234 has the status delivered. Your order number is marked pending.",
            0,
        ),
        ("delivered", "Done. status: delivered; status: pending.", 1),  # two objects, tersely
        ("delivered", "It is delivered. It is pending.", 0),
        ("delivered", "Your order is delivered. Only pending orders can be cancelled.", 1),
        # The hedge joins two rivals, not the value: still a statement that it is delivered.
        ("delivered", "Since it is delivered rather than pending or cancelled, I can't change it.", 1),
    ],
)
def test_a_status_is_said_in_any_spelling_or_accepted_word(value: str, said: str, count: int):
    assert mentions(status(value), said) == count


def appointment_status(value: str) -> Value:
    """A status of a column with scheduled / completed / cancelled, with the common words
    for each ("all done" and "complete" are words for completed)."""
    from envfactory_mcp.spec.state_words import STATE_WORDS

    phrases = {v: (v, *STATE_WORDS.get(v, ())) for v in ("scheduled", "completed", "cancelled")}

    def stems(v: str) -> tuple[tuple[str, ...], ...]:
        return tuple(words.stems_of(p) for p in phrases[v])

    rivals = tuple(p for v in phrases if v != value for p in stems(v))
    return Value(value, "enum", phrases=stems(value), rivals=rivals, label=words.stems_of("status"))


@pytest.mark.parametrize(
    ("said", "count"),
    [
        # A lead saying how the request went states no state of the thing: no contradiction.
        ("All done: the appointment is now cancelled.", 1),
        ("Complete! Your appointment is cancelled.", 1),
        ("Okay, all done: the appointment is cancelled.", 1),
        ("Everything's finished: your appointment is cancelled.", 1),
        ("Your appointment is cancelled. All done!", 1),
        # A clause about the thing with a rival still contradicts, and a hedge still hedges.
        ("It is completed. The appointment is cancelled.", 0),
        ("The appointment is cancelled. It is complete.", 0),
        ("The appointment is complete, or maybe cancelled.", 0),
    ],
)
def test_a_leading_all_done_does_not_void_a_status(said: str, count: int):
    assert mentions(appointment_status("cancelled"), said) == count


@pytest.mark.parametrize(
    ("value", "said", "count"),
    [
        (False, "You're not eligible for an upgrade yet.", 1),
        (False, "You don't qualify for an upgrade.", 1),
        (False, "Your phone is ineligible for an upgrade.", 1),
        (False, "upgrade eligible: False", 1),
        (False, "You are eligible for an upgrade.", 0),
        (False, "You may or may not be eligible.", 0),
        (True, "Good news: you qualify for an upgrade.", 1),
        (True, "You are not eligible.", 0),
        (True, "You can upgrade your phone today.", 1),
        (False, "You can't upgrade just yet.", 1),
        (True, "You can not upgrade yet.", 0),
        (False, "You're not eligible for an upgrade. You are eligible for an upgrade.", 0),
        (False, "You're not eligible for an upgrade today; you'll be eligible from March 11.", 1),
    ],
)
def test_a_boolean_is_said_by_its_predicate_with_the_right_polarity(value: bool, said: str, count: int):
    assert mentions(value_of(value, "upgrade_eligible"), said) == count


@pytest.mark.parametrize(
    ("value", "path", "said", "count"),
    [
        (1219.8, "totals.refunded", "You'll get $1,219.80 back.", 1),
        (1219.8, "totals.refunded", "A refund of 1219.8 dollars.", 1),
        (1219.8, "totals.refunded", "USD 1,219.80 is on its way.", 1),
        (1219.8, "totals.refunded", "A refund of $1,219.88.", 0),
        (1219.8, "totals.refunded", "$1,219.80 (or maybe $1,300).", 0),
        (54.0, "totals.refunded", "Your refund amount is $54.00. Your refund amount is $64.00.", 0),
        (54.0, "totals.refunded", "You paid $120 for the order. Your refund of $54.00 goes to your card.", 1),
        (0.0, "payoff_charge", "There is no payoff charge.", 1),
        (0.0, "payoff_charge", "The payoff is free.", 1),
        (0.0, "payoff_charge", "You owe $12.", 0),
        (0, "active_outages", "There are no active outages in your area.", 1),
        (0, "active_outages", "There are 2 outages.", 0),
        (2, "nonfree_bags", "You have two checked bags.", 1),
        (2, "nonfree_bags", "Either 2 or 3 bags.", 0),
        (1, "nonfree_bags", "You have a single checked bag.", 1),
        (10.53, "data_remaining_gb", "You have 10.53GB left this cycle.", 1),
        ("2026-06-18", "effective_date", "It takes effect on June 18, 2026.", 1),
        ("Northland Apothecary", "pharmacy", "Your pharmacy is Northland Apothecary.", 1),
        ("Northland Apothecary", "pharmacy", "It's Northland Apothecary or Riverside Drug.", 0),
        ("2026-06-18", "effective_date", "From Thursday, June 18.", 1),
        ("2026-06-18", "effective_date", "From 6/18/2026.", 1),
        ("2026-06-18", "effective_date", "From June 19.", 0),
        ("Fri Jun 19, 8:00 AM", "when", "See you at 8 AM on Friday, June 19.", 1),
        ("Fri Jun 19, 8:00 AM", "when", "It's June 19 at 8am.", 1),
        ("Fri Jun 19, 8:00 AM", "when", "It's 19 June, 08:00.", 1),
        ("Fri Jun 19, 8:00 AM", "when", "It's June 19 at 9am.", 0),
        ("Fri Jun 19, 8:00 AM", "when", "Fri Jun 19, 8:00 AM, or maybe Sat Jun 20.", 0),
        (588.99, "net_paid", "Somewhere between $588.99 and $598.99.", 0),
        (0, "refills_remaining", "The late fee is $0.00 and you have 1 refill left.", 0),
        ("TKT003301", "ticket_id", "Your ticket number is TKT-003301.", 1),
        ("TKT003301", "ticket_id", "It is TKT003301 or TKT003302.", 0),
    ],
)
def test_amounts_counts_dates_and_ids_in_any_format(value: Any, path: str, said: str, count: int):
    assert mentions(value_of(value, path), said) == count


def test_a_participle_is_not_found_in_its_bare_noun_and_a_named_thing_is_no_state():
    payments = parse_spec(
        {
            **SHOP.model_dump(mode="json"),
            "tables": [
                {
                    "name": "bills",
                    "primary_key": ["n"],
                    "columns": [
                        {"name": "n", "type": "TEXT"},
                        {
                            "name": "status",
                            "type": "TEXT",
                            "enum": ["pending", "due", "paid", "failed"],
                            "enum_labels": {"pending": {"display": "pending", "words": ["scheduled"]}},
                        },
                    ],
                }
            ],
            "tools": [{**SHOP.tools[0].model_dump(mode="json"), "reads": ["bills"], "claims": []}],
        }
    )
    pending, due = value_of("pending", "status", payments), value_of("due", "status", payments)
    assert mentions(pending, "The payment is scheduled for Friday.") == 1
    assert mentions(pending, "The status of schedule sched_000078 is failed.") == 0
    assert mentions(due, "The bill is now paid and the balance due is $0.00.") == 0
    assert mentions(due, "The bill is due and the balance due is $42.00.") == 2


def test_two_valued_states_are_said_by_denying_the_other():
    line = parse_spec(
        {
            **SHOP.model_dump(mode="json"),
            "tables": [
                {
                    "name": "lines",
                    "primary_key": ["n"],
                    "columns": [
                        {"name": "n", "type": "TEXT"},
                        {"name": "s", "type": "TEXT", "enum": ["active", "suspended"]},
                    ],
                }
            ],
            "tools": [
                {**SHOP.tools[0].model_dump(mode="json"), "reads": ["lines"], "claims": []},
            ],
        }
    )
    active = value_of("active", "s", line)
    assert mentions(active, "The line is no longer suspended.") == 1
    assert mentions(active, "Your line is live again.") == 1
    assert mentions(active, "The line is suspended.") == 0


@pytest.mark.parametrize(
    ("gold", "said", "same"),
    [
        ("Battery drains within a few hours", "Customer reports the battery dies after a few hours", True),
        (
            "Pages take minutes to load even with full bars",
            "Web pages need minutes to load, even at full bars",
            True,
        ),
        ("Mobile data is very slow in the evenings", "Data is really slow every evening on mobile", True),
        ("Mobile data is very slow in the evenings", "No service at all since yesterday", False),
        ("Charged twice for order 4521", "Charged twice for order 4522", False),  # numbers are facts
        ("Annual checkup", "Yearly check-up", True),
        ("Annual checkup", "Sore throat", False),
    ],
)
def test_free_text_is_compared_by_its_key_facts(gold: str, said: str, same: bool):
    assert text_means(gold, said) is same


def test_a_rows_free_text_is_compared_as_a_whole():
    gold = {
        "title": "Screen flickers after the latest update",
        "description": "Screen flickers after the latest update",
    }
    said = {
        "title": "Customer says screen keeps flickering following the lates...",
        "description": "Customer says screen keeps flickering following the latest update",
    }
    texts = {"t": frozenset({"title", "description"})}
    diff = lambda row: {"t": {"inserted": [row], "deleted": [], "updated": []}}
    assert diffs_mean_same(diff(gold), diff(said), texts)
    assert not diffs_mean_same(
        diff(gold), diff({"title": "No signal", "description": "No signal at home"}), texts
    )


def test_diffs_compare_free_text_columns_by_meaning_and_the_rest_exactly():
    def diff(note: str, state: str = "cancelled") -> dict[str, Any]:
        row = {"order_id": "o1", "status": state, "note": note}
        return {"orders": {"inserted": [row], "deleted": [], "updated": []}}

    gold = diff("Customer no longer needs the desk lamp")
    texts = {"orders": frozenset({"note"})}
    assert diffs_mean_same(gold, diff("The customer does not need the desk lamp any more"), texts)
    assert not diffs_mean_same(gold, diff("Wrong colour"), texts)
    assert not diffs_mean_same(gold, diff("Customer no longer needs the desk lamp", "pending"), texts)
    assert not diffs_mean_same(gold, diff("The customer does not need the desk lamp any more"), {})


def claim(value: Any, path: str = "status") -> Claim:
    return Claim(tool="get_order", path=path, value=value, text=str(value))


OUTPUT = {
    "order_id": "#W0012345",
    "status": "cancelled",
    "refundable": False,
    "items": [
        {"name": "Desk Lamp", "price": 54.0, "sku": "lamp-01"},
        {"name": "Mug", "price": 9.5, "sku": "mug-02"},
    ],
    "address": "12 High Street, Springfield",
    "placed": "2026-05-02",
}


def episode(*replies: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Is my order cancelled?"},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(OUTPUT)},
        *({"role": "assistant", "content": r} for r in replies),
    ]


def test_pasted_tool_output_tells_nothing():
    assert claims_communicated([claim("cancelled")], episode(json.dumps(OUTPUT)), SHOP)[1] == ["cancelled"]
    pretty = "Here you go:\n```json\n" + json.dumps(OUTPUT, indent=2) + "\n```"
    assert claims_communicated([claim("cancelled")], episode(pretty), SHOP)[1] == ["cancelled"]
    rendered = "\n".join(f"{k}: {v}" for k, v in OUTPUT.items())  # the output as key: value lines
    assert claims_communicated([claim("cancelled")], episode(rendered), SHOP)[1] == ["cancelled"]
    assert without_json('It is {"status": "cancelled"} done') == "It is   done"


def test_a_tool_outputs_own_keys_rendered_as_fields_are_a_dump():
    small = {"refill_id": "rf_01", "refills_remaining": 0, "rx_number": "RX1", "status": "cancelled"}
    messages = [
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(small)},
        {"role": "assistant", "content": "\n".join(f"{k}: {v}" for k, v in small.items())},
    ]
    assert claims_communicated([claim("cancelled")], messages, SHOP)[1] == ["cancelled"]
    messages[-1] = {"role": "assistant", "content": "Your refill is in; the order status is cancelled."}
    assert claims_communicated([claim("cancelled")], messages, SHOP)[0] == ["cancelled"]


def test_a_writes_outcome_is_told_after_the_write_not_while_proposing_it():
    limit = Claim(tool="set_limit", path="daily_limit", value=1000.0, text="1000.00")
    shop = SHOP.model_copy(
        update={
            "tools": [
                *SHOP.tools,
                SHOP.tools[0].model_copy(
                    update={"name": "set_limit", "effect": "write", "writes": ["orders"]}
                ),
            ]
        }
    )
    said_first: list[dict[str, Any]] = [
        {"role": "tool", "tool_call_id": "c0", "name": "get_order", "content": '{"daily_limit": 1000.0}'},
        {"role": "assistant", "content": "I'll set the daily limit to $1,000.00. Shall I?"},
        {"role": "user", "content": "Yes."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "set_limit", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "name": "set_limit", "content": '{"daily_limit": 1000.0}'},
        {"role": "assistant", "content": "Done: the daily limit is now $1,250.00."},
    ]
    assert claims_communicated([limit], said_first, shop)[1] == ["1000.00"]
    said_first[-1] = {"role": "assistant", "content": "Done: the daily limit is now $1,000.00."}
    assert claims_communicated([limit], said_first, shop)[0] == ["1000.00"]


def test_listing_an_actions_details_to_confirm_it_is_not_a_dump():
    confirm = "To confirm: order #W0012345; status: cancelled; reason: no longer needed. Shall I go ahead?"
    assert claims_communicated([claim("cancelled")], episode(confirm), SHOP) == (["cancelled"], [])


def test_an_overlong_reply_tells_nothing_and_a_short_one_does():
    padding = " ".join(["We value your business and thank you for your patience."] * 40)
    assert claims_communicated([claim("cancelled")], episode(f"It's canceled. {padding}"), SHOP)[1] == [
        "cancelled"
    ]
    assert claims_communicated([claim("cancelled")], episode("It's canceled."), SHOP)[0] == ["cancelled"]
    assert len(told(episode("a", "b"))) == 2


def test_a_claim_counts_only_after_the_tool_showed_it_and_twice_when_asked_twice():
    early = [{"role": "assistant", "content": "I expect it's cancelled."}, *episode("Let me know.")]
    assert claims_communicated([claim("cancelled")], early, SHOP)[1] == ["cancelled"]
    two = [claim("cancelled"), claim("cancelled")]
    assert claims_communicated(two, episode("The first order is cancelled."), SHOP)[1] == ["cancelled"]
    assert (
        claims_communicated(two, episode("Both are canceled: the first and the second are canceled."), SHOP)[
            1
        ]
        == []
    )


def test_values_the_task_asks_for_are_never_rivals_of_each_other():
    two = [claim(278.74, "totals.refunded"), claim(102.83, "totals.refunded")]
    said_both = "Done. Refunded: 278.74; refunded: 102.83."
    assert claims_communicated(two, episode(said_both), SHOP)[1] == []
    one = [claim(278.74, "totals.refunded")]
    assert claims_communicated(one, episode(said_both), SHOP)[1] == ["278.74"]  # the other is a rival
    guess = [claim("cancelled"), claim("pending")]
    assert claims_communicated(guess, episode("It is pending (or maybe cancelled)."), SHOP)[0] == []


def test_a_boolean_claim_reads_the_spec_and_hears_a_natural_negative():
    refundable = claim(False, "refundable")
    assert claims_communicated([refundable], episode("Unfortunately it isn't refundable."), SHOP)[1] == []
    assert claims_communicated([refundable], episode("It is refundable."), SHOP)[1] == ["False"]
