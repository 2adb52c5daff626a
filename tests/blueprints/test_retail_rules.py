"""Retail business rules: every rule a tool enforces is refused cleanly, and happy paths move money exactly."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envfactory_mcp.blueprints.retail.seed import CLOCK_DAY
from envfactory_mcp.blueprints.retail.spec import RETURN_WINDOW_DAYS
from envfactory_mcp.runtime import Toolbox, dump_state, state_hash

ADDRESS = {
    "address1": "77 Harbor Rd",
    "address2": "Unit 3",
    "city": "Boston",
    "state": "MA",
    "country": "USA",
    "zip": "02110",
}

# --------------------------------------------------------------------------- helpers


class Seed:
    """Indexes over the seed state, for finding rows that fit a test."""

    def __init__(self, state: dict[str, list[dict[str, Any]]]) -> None:
        self.state = state
        self.items = {i["item_id"]: i for i in state["items"]}
        self.methods = {m["payment_method_id"]: m for m in state["payment_methods"]}
        self.lines: dict[str, list[dict]] = defaultdict(list)
        for line in state["order_items"]:
            self.lines[line["order_id"]].append(line)
        self.user_methods: dict[str, list[dict]] = defaultdict(list)
        for m in state["payment_methods"]:
            self.user_methods[m["user_id"]].append(m)
        self.variants: dict[str, list[dict]] = defaultdict(list)
        for i in state["items"]:
            self.variants[i["product_id"]].append(i)

    def orders_with(self, status: str, **fields: Any) -> list[dict]:
        """Orders in ``status``; delivered ones only within the return window (older ones
        are refused by the window rule, see test_the_return_window)."""
        return [
            o
            for o in self.state["orders"]
            if o["status"] == status
            and all(o[k] == v for k, v in fields.items())
            and (status != "delivered" or not past_return_window(o))
        ]

    def total(self, order_id: str) -> int:
        return sum(line["price_cents"] for line in self.lines[order_id])

    def net(self, order_id: str) -> dict[str, int]:
        net: dict[str, int] = defaultdict(int)
        for p in self.state["payments"]:
            if p["order_id"] == order_id:
                net[p["payment_method_id"]] += (
                    p["amount_cents"] if p["kind"] == "payment" else -p["amount_cents"]
                )
        return {k: v for k, v in net.items() if v}

    def paid_with(self, order_id: str) -> str:
        """The one payment method that paid for the order."""
        (method_id,) = self.net(order_id)
        return method_id

    def paid_by_gift_card(self, order: dict) -> bool:
        return self.methods[self.paid_with(order["order_id"])]["kind"] == "gift_card"

    def gift_card(self, user_id: str) -> str | None:
        return next(
            (m["payment_method_id"] for m in self.user_methods[user_id] if m["kind"] == "gift_card"), None
        )

    def other_card_or_paypal(self, order: dict) -> str | None:
        """A non-gift-card method of the order's user that did not pay for it."""
        paid = self.paid_with(order["order_id"])
        return next(
            (
                m["payment_method_id"]
                for m in self.user_methods[order["user_id"]]
                if m["kind"] != "gift_card" and m["payment_method_id"] != paid
            ),
            None,
        )

    def stranger_method(self, user_id: str) -> str:
        return next(m["payment_method_id"] for m in self.state["payment_methods"] if m["user_id"] != user_id)

    def not_in_order(self, order_id: str) -> str:
        held = {line["item_id"] for line in self.lines[order_id]}
        return next(i for i in self.items if i not in held)

    def alternatives(self, order_id: str, item_id: str, *, available: bool = True) -> list[dict]:
        """Other variants of the item's product that are not in the order."""
        held = {line["item_id"] for line in self.lines[order_id]}
        product = self.items[item_id]["product_id"]
        return [
            i
            for i in self.variants[product]
            if bool(i["available"]) == available and i["item_id"] not in held
        ]

    def other_product_item(self, item_id: str) -> str:
        product = self.items[item_id]["product_id"]
        return next(
            i["item_id"] for i in self.state["items"] if i["product_id"] != product and i["available"]
        )

    def swap(self, status: str, want=lambda order, line, new: True, **fields: Any) -> tuple[dict, dict, dict]:
        """(order, line, new item) for the first line with an alternative satisfying want(order, line, new)."""
        for order in self.orders_with(status, **fields):
            for line in self.lines[order["order_id"]]:
                for new in self.alternatives(order["order_id"], line["item_id"]):
                    if want(order, line, new):
                        return order, line, new
        pytest.fail(f"the seed has no {status} order that fits")


CLOCK = datetime(*CLOCK_DAY, 12, 0, tzinfo=UTC)


def past_return_window(order: dict) -> bool:
    placed = datetime.fromisoformat(order["created_at"].replace("Z", "+00:00"))
    return CLOCK - placed > timedelta(days=RETURN_WINDOW_DAYS)


class Desk:
    """One session's database and the toolbox, with assertions around each call."""

    def __init__(self, toolbox: Toolbox, db) -> None:
        self.toolbox, self.db = toolbox, db

    def refused(self, tool: str, phrase: str, **args: Any) -> str:
        """The call fails as a request error mentioning phrase, and the state is untouched."""
        before = state_hash(self.db)
        out = self.toolbox.call(self.db, tool, args)
        assert out.ok is False, out
        assert out.internal is False, out.error
        assert out.error is not None and phrase.lower() in out.error.lower(), out.error
        assert state_hash(self.db) == before
        return out.error

    def ok(self, tool: str, **args: Any) -> tuple[dict, dict, dict]:
        """A successful call that changes only declared tables. Returns (output, state before, state after)."""
        before = dump_state(self.db)
        out = self.toolbox.call(self.db, tool, args)
        assert out.ok, out.error
        after = dump_state(self.db)
        changed = {t for t in before if before[t] != after[t]}
        assert changed <= self.toolbox.tools[tool].writes, (tool, changed)
        assert out.output is not None
        return out.output, before, after

    def set_balance(self, method_id: str, cents: int) -> None:
        """Test set-up outside the tools: give a gift card a chosen balance."""
        self.db.execute(
            "UPDATE payment_methods SET balance_cents = ? WHERE payment_method_id = ?", (cents, method_id)
        )


def swap(order_id: str, old: str, new: str, payment_method_id: str) -> dict:
    """Arguments of an items modification or exchange of one item."""
    return {
        "order_id": order_id,
        "item_ids": [old],
        "new_item_ids": [new],
        "payment_method_id": payment_method_id,
    }


def balance(state: dict, method_id: str) -> int | None:
    return next(m["balance_cents"] for m in state["payment_methods"] if m["payment_method_id"] == method_id)


def moves(before: dict, after: dict) -> list[tuple]:
    """New payment rows as (kind, method, cents, reason), sorted."""
    old = {p["payment_id"] for p in before["payments"]}
    return sorted(
        (p["kind"], p["payment_method_id"], p["amount_cents"], p["reason"])
        for p in after["payments"]
        if p["payment_id"] not in old
    )


@pytest.fixture(scope="module")
def seed(retail_env) -> Seed:
    return Seed(retail_env.seed_state)


@pytest.fixture(scope="module")
def toolbox(retail_env) -> Toolbox:
    return retail_env.toolbox()


@pytest.fixture
def desk(retail_env, toolbox):
    session = retail_env.new_session()
    yield Desk(toolbox, session.db)
    session.close()


# --------------------------------------------------------------------------- identity, lookups, validation


def test_find_user_by_email_and_by_name_zip(desk, seed):
    user = seed.state["users"][3]
    out, _, _ = desk.ok("find_user_id_by_email", email=user["email"].upper())
    assert out == {"user_id": user["user_id"]}
    out, _, _ = desk.ok(
        "find_user_id_by_name_zip",
        first_name=user["first_name"].lower(),
        last_name=user["last_name"],
        zip=user["zip"],
    )
    assert out == {"user_id": user["user_id"]}


def test_unknown_ids_are_refused(desk, seed):
    assert "#W0000000" not in {o["order_id"] for o in seed.state["orders"]}
    desk.refused("find_user_id_by_email", "no user found", email="nobody@nowhere.example")
    desk.refused("find_user_id_by_name_zip", "no user found", first_name="No", last_name="Body", zip="00000")
    desk.refused("get_user_details", "user user_999999 not found", user_id="user_999999")
    desk.refused("get_order_details", "order #W0000000 not found", order_id="#W0000000")
    desk.refused("get_product_details", "product prod_9999 not found", product_id="prod_9999")
    desk.refused("modify_user_address", "user user_999999 not found", user_id="user_999999", **ADDRESS)
    desk.refused("cancel_pending_order", "not found", order_id="#W0000000", reason="no longer needed")
    order = seed.orders_with("pending")[0]
    oid = order["order_id"]
    desk.refused(
        "modify_pending_order_payment",
        "paypal_999999 not found",
        order_id=oid,
        payment_method_id="paypal_999999",
    )
    desk.refused(
        "modify_pending_order_items",
        "item_99999 not found",
        **swap(oid, seed.lines[oid][0]["item_id"], "item_99999", seed.paid_with(oid)),
    )


def test_invalid_arguments_are_rejected_before_the_tool_runs(desk, seed):
    oid = seed.orders_with("pending")[0]["order_id"]
    desk.refused(
        "cancel_pending_order", "invalid arguments", order_id=oid.lstrip("#"), reason="no longer needed"
    )
    desk.refused("cancel_pending_order", "invalid arguments", order_id=oid, reason="no longer needed", x=1)
    desk.refused("cancel_pending_order", "invalid arguments", order_id=oid)
    desk.refused("transfer_to_human_agents", "is longer than 2000 characters", summary="x" * 100_000)
    desk.refused(
        "modify_pending_order_address",
        "is longer than",
        order_id=oid,
        **{**ADDRESS, "address1": "a" * 100_000},
    )
    desk.refused(
        "modify_user_address", "invalid arguments", user_id="user_000001", **{**ADDRESS, "zip": "2110"}
    )
    desk.refused(
        "return_delivered_order_items",
        "invalid arguments",
        order_id=oid,
        item_ids=[],
        payment_method_id="paypal_000001",
    )
    item = seed.lines[oid][0]["item_id"]
    desk.refused(
        "return_delivered_order_items",
        "invalid arguments",
        order_id=oid,
        item_ids=[item, item],
        payment_method_id="paypal_000001",
    )


# --------------------------------------------------------------------------- cancel


def test_cancel_refused_unless_pending(desk, seed):
    for status in ("delivered", "processed", "cancelled", "return_requested", "exchange_requested"):
        oid = seed.orders_with(status)[0]["order_id"]
        desk.refused(
            "cancel_pending_order",
            "only pending orders can be cancelled",
            order_id=oid,
            reason="no longer needed",
        )


def test_cancel_with_a_bad_reason(desk, seed):
    oid = seed.orders_with("pending")[0]["order_id"]
    desk.refused("cancel_pending_order", "is not one of", order_id=oid, reason="found it cheaper")


def test_cancel_refunds_and_restores_gift_card_exactly(desk, seed):
    order = next(o for o in seed.orders_with("pending") if seed.paid_by_gift_card(o))
    oid, card, total = order["order_id"], seed.paid_with(order["order_id"]), seed.total(order["order_id"])
    out, before, after = desk.ok("cancel_pending_order", order_id=oid, reason="ordered by mistake")
    assert out["status"] == "cancelled" and out["cancel_reason"] == "ordered by mistake"
    assert balance(after, card) == balance(before, card) + total
    assert moves(before, after) == [("refund", card, total, "cancellation")]
    assert out["totals"]["net_paid"] == 0
    desk.refused("cancel_pending_order", "is cancelled", order_id=oid, reason="ordered by mistake")


def test_cancel_card_order_refunds_without_touching_balances(desk, seed):
    order = next(o for o in seed.orders_with("pending") if not seed.paid_by_gift_card(o))
    oid = order["order_id"]
    _, before, after = desk.ok("cancel_pending_order", order_id=oid, reason="no longer needed")
    assert before["payment_methods"] == after["payment_methods"]
    assert moves(before, after) == [("refund", seed.paid_with(oid), seed.total(oid), "cancellation")]


# --------------------------------------------------------------------------- pending modifications


def test_modify_refused_unless_pending(desk, seed):
    for status in ("processed", "delivered", "cancelled"):
        order = seed.orders_with(status)[0]
        oid, line = order["order_id"], seed.lines[order["order_id"]][0]
        method = seed.user_methods[order["user_id"]][-1]["payment_method_id"]
        desk.refused("modify_pending_order_address", "only pending orders", order_id=oid, **ADDRESS)
        desk.refused(
            "modify_pending_order_payment", "only pending orders", order_id=oid, payment_method_id=method
        )
        new = (
            seed.alternatives(oid, line["item_id"]) or [seed.items[seed.other_product_item(line["item_id"])]]
        )[0]
        desk.refused(
            "modify_pending_order_items",
            "only pending orders",
            **swap(oid, line["item_id"], new["item_id"], method),
        )


def test_modify_addresses_are_idempotent(desk, seed):
    order = seed.orders_with("pending")[0]
    out, _, first = desk.ok("modify_pending_order_address", order_id=order["order_id"], **ADDRESS)
    assert out["address"] == ADDRESS
    _, _, second = desk.ok("modify_pending_order_address", order_id=order["order_id"], **ADDRESS)
    assert first == second
    out, _, first = desk.ok("modify_user_address", user_id=order["user_id"], **ADDRESS)
    assert out == {"user_id": order["user_id"], "address": ADDRESS}
    _, _, second = desk.ok("modify_user_address", user_id=order["user_id"], **ADDRESS)
    assert first == second


def test_modify_payment_rules(desk, seed):
    order = seed.orders_with("pending")[0]
    oid = order["order_id"]
    desk.refused(
        "modify_pending_order_payment",
        "already paid with",
        order_id=oid,
        payment_method_id=seed.paid_with(oid),
    )
    stranger = seed.stranger_method(order["user_id"])
    desk.refused(
        "modify_pending_order_payment", "does not belong to user", order_id=oid, payment_method_id=stranger
    )


def _pending_card_order_of_gift_card_holder(seed: Seed) -> dict:
    return next(
        o
        for o in seed.orders_with("pending")
        if not seed.paid_by_gift_card(o) and seed.gift_card(o["user_id"])
    )


def test_modify_payment_with_a_short_gift_card(desk, seed):
    order = _pending_card_order_of_gift_card_holder(seed)
    card = seed.gift_card(order["user_id"])
    desk.set_balance(card, seed.total(order["order_id"]) - 1)
    desk.refused(
        "modify_pending_order_payment", "does not cover", order_id=order["order_id"], payment_method_id=card
    )


def test_modify_payment_moves_money(desk, seed):
    order = _pending_card_order_of_gift_card_holder(seed)
    oid, old, card, total = (
        order["order_id"],
        seed.paid_with(order["order_id"]),
        seed.gift_card(order["user_id"]),
        seed.total(order["order_id"]),
    )
    desk.set_balance(card, total + 500)
    out, before, after = desk.ok("modify_pending_order_payment", order_id=oid, payment_method_id=card)
    assert balance(after, card) == 500
    assert moves(before, after) == [
        ("payment", card, total, "payment_change"),
        ("refund", old, total, "payment_change"),
    ]
    assert out["totals"]["net_paid"] == round(total / 100, 2)
    _, before, after = desk.ok("modify_pending_order_payment", order_id=oid, payment_method_id=old)
    assert balance(after, card) == total + 500
    assert moves(before, after) == [
        ("payment", old, total, "payment_change"),
        ("refund", card, total, "payment_change"),
    ]


def test_modify_items_rules(desk, seed):
    order, line, new = seed.swap("pending", items_modified=0)
    oid, item = order["order_id"], line["item_id"]
    base = {"order_id": oid, "item_ids": [item], "payment_method_id": seed.paid_with(oid)}
    desk.refused("modify_pending_order_items", "different variant", **base, new_item_ids=[item])
    other = seed.other_product_item(item)
    desk.refused("modify_pending_order_items", "not the same product", **base, new_item_ids=[other])
    desk.refused("modify_pending_order_items", "same length", **base, new_item_ids=[new["item_id"], other])
    desk.refused(
        "modify_pending_order_items",
        "not part of order",
        **{**base, "item_ids": [seed.not_in_order(oid)]},
        new_item_ids=[new["item_id"]],
    )
    stranger = seed.stranger_method(order["user_id"])
    desk.refused(
        "modify_pending_order_items",
        "does not belong to user",
        **{**base, "payment_method_id": stranger},
        new_item_ids=[new["item_id"]],
    )


def test_modify_items_to_an_unavailable_variant(desk, seed):
    for order in seed.orders_with("pending", items_modified=0):
        oid = order["order_id"]
        for line in seed.lines[oid]:
            gone = seed.alternatives(oid, line["item_id"], available=False)
            if gone:
                desk.refused(
                    "modify_pending_order_items",
                    "not available",
                    **swap(oid, line["item_id"], gone[0]["item_id"], seed.paid_with(oid)),
                )
                return
    pytest.fail("no pending order has an item with an unavailable variant")


def test_modify_items_into_a_duplicate(desk, seed):
    order, line, other = seed.swap("pending", items_modified=0)
    oid = order["order_id"]
    # Set-up: the order also holds the variant the user wants to switch to.
    desk.db.execute(
        "INSERT INTO order_items (order_id, line_no, item_id, price_cents, state) VALUES (?, ?, ?, ?, 'ordered')",
        (oid, len(seed.lines[oid]) + 1, other["item_id"], other["price_cents"]),
    )
    desk.refused(
        "modify_pending_order_items",
        "cannot hold the same item twice",
        **swap(oid, line["item_id"], other["item_id"], seed.paid_with(oid)),
    )


def test_modify_items_only_once(desk, seed):
    order, line, new = seed.swap(
        "pending",
        lambda o, line, new: new["price_cents"] > line["price_cents"] and not seed.paid_by_gift_card(o),
        items_modified=0,
    )
    oid, pay = order["order_id"], seed.paid_with(order["order_id"])
    out, before, after = desk.ok(
        "modify_pending_order_items", **swap(oid, line["item_id"], new["item_id"], pay)
    )
    assert out["items_modified"] is True
    assert moves(before, after) == [
        ("payment", pay, new["price_cents"] - line["price_cents"], "items_modification")
    ]
    assert new["item_id"] in [i["item_id"] for i in out["items"]]
    assert line["item_id"] not in [i["item_id"] for i in out["items"]]
    # Swapping back would be a legal swap, but the order's items were already modified once.
    desk.refused(
        "modify_pending_order_items",
        "already been modified once",
        **swap(oid, new["item_id"], line["item_id"], pay),
    )
    seeded = seed.orders_with("pending", items_modified=1)[0]["order_id"]
    first = seed.lines[seeded][0]["item_id"]
    desk.refused(
        "modify_pending_order_items",
        "already been modified once",
        **swap(seeded, first, first, seed.paid_with(seeded)),
    )


def test_modify_items_charge_needs_gift_card_balance(desk, seed):
    order, line, new = seed.swap(
        "pending",
        lambda o, line, new: new["price_cents"] > line["price_cents"] and seed.gift_card(o["user_id"]),
        items_modified=0,
    )
    card = seed.gift_card(order["user_id"])
    desk.set_balance(card, new["price_cents"] - line["price_cents"] - 1)
    desk.refused(
        "modify_pending_order_items",
        "does not cover",
        **swap(order["order_id"], line["item_id"], new["item_id"], card),
    )


def test_modify_items_refund_goes_to_a_method_that_paid(desk, seed):
    order, line, new = seed.swap(
        "pending",
        lambda o, line, new: (
            new["price_cents"] < line["price_cents"] and len(seed.user_methods[o["user_id"]]) > 1
        ),
        items_modified=0,
    )
    oid, pay = order["order_id"], seed.paid_with(order["order_id"])
    other = next(
        m["payment_method_id"] for m in seed.user_methods[order["user_id"]] if m["payment_method_id"] != pay
    )
    args = {"order_id": oid, "item_ids": [line["item_id"]], "new_item_ids": [new["item_id"]]}
    desk.refused("modify_pending_order_items", "paid at least", **args, payment_method_id=other)
    _, before, after = desk.ok("modify_pending_order_items", **args, payment_method_id=pay)
    diff = line["price_cents"] - new["price_cents"]
    assert moves(before, after) == [("refund", pay, diff, "items_modification")]
    if seed.methods[pay]["kind"] == "gift_card":
        assert balance(after, pay) == balance(before, pay) + diff


# --------------------------------------------------------------------------- delivered orders


def test_return_and_exchange_refused_unless_delivered(desk, seed):
    for status in ("pending", "processed", "cancelled", "return_requested", "exchange_requested"):
        order = seed.orders_with(status)[0]
        oid, item = order["order_id"], seed.lines[order["order_id"]][0]["item_id"]
        method = seed.user_methods[order["user_id"]][0]["payment_method_id"]
        desk.refused(
            "return_delivered_order_items",
            "only delivered orders",
            order_id=oid,
            item_ids=[item],
            payment_method_id=method,
        )
        new = (seed.alternatives(oid, item) or [seed.items[item]])[0]["item_id"]
        desk.refused(
            "exchange_delivered_order_items", "only delivered orders", **swap(oid, item, new, method)
        )


def test_return_rules(desk, seed):
    order = next(o for o in seed.orders_with("delivered") if seed.other_card_or_paypal(o))
    oid, item = order["order_id"], seed.lines[order["order_id"]][0]["item_id"]
    original = seed.paid_with(oid)
    desk.refused(
        "return_delivered_order_items",
        "not part of order",
        order_id=oid,
        item_ids=[seed.not_in_order(oid)],
        payment_method_id=original,
    )
    desk.refused(
        "return_delivered_order_items",
        "does not belong to user",
        order_id=oid,
        item_ids=[item],
        payment_method_id=seed.stranger_method(order["user_id"]),
    )
    desk.refused(
        "return_delivered_order_items",
        "original payment method",
        order_id=oid,
        item_ids=[item],
        payment_method_id=seed.other_card_or_paypal(order),
    )


def test_return_refund_recorded(desk, seed):
    order = next(o for o in seed.orders_with("delivered") if len(seed.lines[o["order_id"]]) >= 3)
    oid, original = order["order_id"], seed.paid_with(order["order_id"])
    lines = seed.lines[oid][:2]
    out, before, after = desk.ok(
        "return_delivered_order_items",
        order_id=oid,
        item_ids=[x["item_id"] for x in lines],
        payment_method_id=original,
    )
    assert out["status"] == "return_requested"
    assert [i["state"] for i in out["items"]] == ["return_requested"] * 2 + ["ordered"] * (
        len(out["items"]) - 2
    )
    assert moves(before, after) == [("refund", original, sum(x["price_cents"] for x in lines), "return")]
    desk.refused(
        "return_delivered_order_items",
        "is return_requested",
        order_id=oid,
        item_ids=[seed.lines[oid][-1]["item_id"]],
        payment_method_id=original,
    )


def test_return_refund_to_a_gift_card_credits_it(desk, seed):
    order = next(
        o
        for o in seed.orders_with("delivered")
        if seed.gift_card(o["user_id"]) and seed.gift_card(o["user_id"]) != seed.paid_with(o["order_id"])
    )
    oid, line, card = order["order_id"], seed.lines[order["order_id"]][0], seed.gift_card(order["user_id"])
    _, before, after = desk.ok(
        "return_delivered_order_items", order_id=oid, item_ids=[line["item_id"]], payment_method_id=card
    )
    assert balance(after, card) == balance(before, card) + line["price_cents"]
    assert moves(before, after) == [("refund", card, line["price_cents"], "return")]


def test_exchange_rules(desk, seed):
    order, line, new = seed.swap("delivered")
    oid, item = order["order_id"], line["item_id"]
    base = {"order_id": oid, "item_ids": [item], "payment_method_id": seed.paid_with(oid)}
    desk.refused(
        "exchange_delivered_order_items",
        "not the same product",
        **base,
        new_item_ids=[seed.other_product_item(item)],
    )
    desk.refused("exchange_delivered_order_items", "different variant", **base, new_item_ids=[item])
    desk.refused(
        "exchange_delivered_order_items",
        "same length",
        **base,
        new_item_ids=[new["item_id"], seed.not_in_order(oid)],
    )
    desk.refused(
        "exchange_delivered_order_items",
        "not part of order",
        **{**base, "item_ids": [seed.not_in_order(oid)]},
        new_item_ids=[new["item_id"]],
    )
    desk.refused(
        "exchange_delivered_order_items",
        "does not belong to user",
        **{**base, "payment_method_id": seed.stranger_method(order["user_id"])},
        new_item_ids=[new["item_id"]],
    )


def test_exchange_to_an_unavailable_variant(desk, seed):
    for order in seed.orders_with("delivered"):
        oid = order["order_id"]
        for line in seed.lines[oid]:
            gone = seed.alternatives(oid, line["item_id"], available=False)
            if gone:
                desk.refused(
                    "exchange_delivered_order_items",
                    "not available",
                    **swap(oid, line["item_id"], gone[0]["item_id"], seed.paid_with(oid)),
                )
                return
    pytest.fail("no delivered order has an item with an unavailable variant")


def test_exchange_charge_needs_gift_card_balance(desk, seed):
    order, line, new = seed.swap(
        "delivered",
        lambda o, line, new: new["price_cents"] > line["price_cents"] and seed.gift_card(o["user_id"]),
    )
    card = seed.gift_card(order["user_id"])
    desk.set_balance(card, new["price_cents"] - line["price_cents"] - 1)
    desk.refused(
        "exchange_delivered_order_items",
        "does not cover",
        **swap(order["order_id"], line["item_id"], new["item_id"], card),
    )


def test_exchange_refund_must_go_to_original_method_or_gift_card(desk, seed):
    order, line, new = seed.swap(
        "delivered",
        lambda o, line, new: new["price_cents"] < line["price_cents"] and seed.other_card_or_paypal(o),
    )
    desk.refused(
        "exchange_delivered_order_items",
        "original payment method",
        **swap(order["order_id"], line["item_id"], new["item_id"], seed.other_card_or_paypal(order)),
    )


@pytest.mark.parametrize("direction", [1, -1])
def test_exchange_settles_the_price_difference(desk, seed, direction):
    order, line, new = seed.swap(
        "delivered",
        lambda o, line, new: (
            (new["price_cents"] - line["price_cents"]) * direction > 0 and not seed.paid_by_gift_card(o)
        ),
    )
    oid, pay = order["order_id"], seed.paid_with(order["order_id"])
    out, before, after = desk.ok(
        "exchange_delivered_order_items", **swap(oid, line["item_id"], new["item_id"], pay)
    )
    diff = new["price_cents"] - line["price_cents"]
    assert moves(before, after) == [("payment" if diff > 0 else "refund", pay, abs(diff), "exchange")]
    assert out["status"] == "exchange_requested"
    exchanged = next(i for i in out["items"] if i["item_id"] == line["item_id"])
    assert exchanged["state"] == "exchange_requested" and exchanged["exchange_item_id"] == new["item_id"]
    assert exchanged["exchange_price"] == round(new["price_cents"] / 100, 2)


def test_exchange_to_a_gift_card_pays_from_its_balance(desk, seed):
    order, line, new = seed.swap(
        "delivered",
        lambda o, line, new: new["price_cents"] > line["price_cents"] and seed.gift_card(o["user_id"]),
    )
    card, diff = seed.gift_card(order["user_id"]), new["price_cents"] - line["price_cents"]
    desk.set_balance(card, diff)
    _, before, after = desk.ok(
        "exchange_delivered_order_items", **swap(order["order_id"], line["item_id"], new["item_id"], card)
    )
    assert balance(after, card) == 0
    assert moves(before, after) == [("payment", card, diff, "exchange")]


# --------------------------------------------------------------------------- utilities


def test_calculator_rejects_code_and_division_by_zero(desk):
    desk.refused("calculate", "only numbers", expression="__import__('os')")
    desk.refused("calculate", "only numbers", expression="().__class__")
    desk.refused("calculate", "only numbers", expression="2 ** 10")
    desk.refused("calculate", "only numbers", expression="'a' * 3")
    desk.refused("calculate", "division by zero", expression="1 / 0")
    desk.refused("calculate", "division by zero", expression="1 / (2 - 2.0)")
    desk.refused("calculate", "not valid arithmetic", expression="1 +")
    desk.refused("calculate", "too large", expression="1e300 * 1e300")
    out, _, _ = desk.ok("calculate", expression="(129.99 - 89.5) * 2 / 3")
    assert out["result"] == 26.99


def test_transfer_confirms(desk):
    out, before, after = desk.ok("transfer_to_human_agents", summary="User wants a price match.")
    assert out["transferred"] is True
    assert before == after


_numbers = st.integers(min_value=-50, max_value=50).map(str) | st.decimals(
    min_value=-100, max_value=100, places=2, allow_nan=False, allow_infinity=False
).map(str)
_expressions = st.recursive(
    _numbers,
    lambda c: st.tuples(c, st.sampled_from("+-*/"), c).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(expression=_expressions)
def test_calculate_agrees_with_python(desk, expression):
    out = desk.toolbox.call(desk.db, "calculate", {"expression": expression})
    try:
        expected = eval(expression, {"__builtins__": {}})  # built above from numbers, + - * / and parentheses
    except ZeroDivisionError:
        assert not out.ok and not out.internal and "division by zero" in out.error.lower()
        return
    assert out.ok, out.error
    assert out.output["result"] == round(float(expected), 2)


_junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
    max_leaves=5,
)
_WRITE_TOOLS = [
    "modify_user_address",
    "modify_pending_order_address",
    "modify_pending_order_payment",
    "modify_pending_order_items",
    "cancel_pending_order",
    "return_delivered_order_items",
    "exchange_delivered_order_items",
]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tool=st.sampled_from(_WRITE_TOOLS), data=st.data())
def test_bad_input_never_breaks_a_tool_or_the_state(toolbox, retail_env, seed, tool, data):
    """Arguments with arbitrary values: never an internal error, and a refusal leaves the state untouched."""
    pending = seed.orders_with("pending")[0]
    some_items = sorted(seed.items)[:8]
    plausible = {
        "order_id": st.sampled_from([pending["order_id"], "#W0000000", "W123"]),
        "user_id": st.sampled_from([pending["user_id"], "user_999999"]),
        "item_ids": st.lists(st.sampled_from(some_items), max_size=3),
        "new_item_ids": st.lists(st.sampled_from(some_items), max_size=3),
        "payment_method_id": st.sampled_from(sorted(seed.methods)[:6]),
    }
    args = {}
    for name in sorted(toolbox.tools[tool].input_schema["properties"]):
        if data.draw(st.integers(0, 9), label=f"include {name}"):  # usually present, sometimes missing
            args[name] = data.draw(_junk | plausible.get(name, _junk), label=name)
    session = retail_env.new_session()
    try:
        before = state_hash(session.db)
        out = toolbox.call(session.db, tool, args)
        assert out.internal is False, out.error
        if not out.ok:
            assert state_hash(session.db) == before
    finally:
        session.close()


# --------------------------------------------------------------------------- declared tables are exact


def _representative_calls(seed: Seed) -> dict[str, dict]:
    """One successful call per tool that reaches every table the tool declares."""
    user = seed.state["users"][0]
    gift_paid = next(o for o in seed.orders_with("pending") if seed.paid_by_gift_card(o))
    other = next(
        m["payment_method_id"]
        for m in seed.user_methods[gift_paid["user_id"]]
        if m["payment_method_id"] != seed.paid_with(gift_paid["order_id"])
    )

    def cheaper_on_gift_card(order, line, new):  # a price drop refunded to a gift card that paid
        return new["price_cents"] < line["price_cents"] and seed.paid_by_gift_card(order)

    pending, p_line, p_new = seed.swap("pending", cheaper_on_gift_card, items_modified=0)
    delivered, d_line, d_new = seed.swap("delivered", cheaper_on_gift_card)
    p_order, d_order = pending["order_id"], delivered["order_id"]
    return {
        "find_user_id_by_email": {"email": user["email"]},
        "find_user_id_by_name_zip": {
            "first_name": user["first_name"],
            "last_name": user["last_name"],
            "zip": user["zip"],
        },
        "get_user_details": {"user_id": user["user_id"]},
        "get_order_details": {"order_id": gift_paid["order_id"]},
        "get_product_details": {"product_id": seed.state["products"][0]["product_id"]},
        "list_all_product_types": {},
        "modify_user_address": {"user_id": user["user_id"], **ADDRESS},
        "modify_pending_order_address": {"order_id": gift_paid["order_id"], **ADDRESS},
        "modify_pending_order_payment": {"order_id": gift_paid["order_id"], "payment_method_id": other},
        "modify_pending_order_items": {
            "order_id": p_order,
            "item_ids": [p_line["item_id"]],
            "new_item_ids": [p_new["item_id"]],
            "payment_method_id": seed.paid_with(p_order),
        },
        "cancel_pending_order": {"order_id": gift_paid["order_id"], "reason": "no longer needed"},
        "return_delivered_order_items": {
            "order_id": d_order,
            "item_ids": [d_line["item_id"]],
            "payment_method_id": seed.paid_with(d_order),
        },
        "exchange_delivered_order_items": {
            "order_id": d_order,
            "item_ids": [d_line["item_id"]],
            "new_item_ids": [d_new["item_id"]],
            "payment_method_id": seed.paid_with(d_order),
        },
        "calculate": {"expression": "1 + 2"},
        "transfer_to_human_agents": {"summary": "help"},
    }


def _toolbox_without(spec: dict, decl: dict, table: str, module) -> Toolbox:
    """A toolbox holding only this tool, with one table withdrawn from its reads and writes."""
    trimmed = dict(
        decl, reads=[t for t in decl["reads"] if t != table], writes=[t for t in decl["writes"] if t != table]
    )
    return Toolbox(dict(spec, tools=[trimmed]), module)


def test_every_declared_table_is_needed(retail_env, toolbox, seed):
    """Each representative call succeeds, and is an internal error once any one declared table is withdrawn."""
    calls = _representative_calls(seed)
    spec = retail_env.bundle().spec
    assert set(calls) == {t["name"] for t in spec["tools"]}
    for decl in spec["tools"]:
        name = decl["name"]
        tables = sorted(set(decl["reads"]) | set(decl["writes"]))
        boxes = [(None, toolbox)] + [
            (t, _toolbox_without(spec, decl, t, retail_env.tools_module)) for t in tables
        ]
        for table, box in boxes:
            session = retail_env.new_session()
            try:
                out = box.call(session.db, name, calls[name])
            finally:
                session.close()
            if table is None:
                assert out.ok, (name, out.error)
            else:
                assert out.internal, (name, table, out)


def test_the_return_window(desk, seed):
    """Items of a delivered order can be returned or exchanged only within 90 days of the
    order being placed: a declared window rule (issue 31), enforced by the runtime. The
    same order placed a day inside the window goes through."""
    old = [o for o in seed.state["orders"] if o["status"] == "delivered" and past_return_window(o)]
    assert old, "the seed has delivered orders past the return window"
    order = old[0]
    oid, line = order["order_id"], seed.lines[order["order_id"]][0]
    paid = seed.paid_with(oid)
    desk.refused(
        "return_delivered_order_items",
        "within 90 days of the order being placed",
        order_id=oid,
        item_ids=[line["item_id"]],
        payment_method_id=paid,
    )
    # An exchange the tool itself takes (no price to charge), refused by the window alone.
    swaps = [
        (o["order_id"], ln, n)
        for o in old
        for ln in seed.lines[o["order_id"]]
        for n in seed.alternatives(o["order_id"], ln["item_id"])
        if n["price_cents"] <= ln["price_cents"]
    ]
    assert swaps, "an old delivered order has a cheaper variant to exchange for"
    other, some, cheaper = swaps[0]
    desk.refused(
        "exchange_delivered_order_items",
        "within 90 days of the order being placed",
        **swap(other, some["item_id"], cheaper["item_id"], seed.paid_with(other)),
    )
    inside = (CLOCK - timedelta(days=RETURN_WINDOW_DAYS - 1)).strftime("%Y-%m-%dT%H:%M:00Z")
    desk.db.execute("UPDATE orders SET created_at = ? WHERE order_id = ?", (inside, oid))
    desk.ok("return_delivered_order_items", order_id=oid, item_ids=[line["item_id"]], payment_method_id=paid)
