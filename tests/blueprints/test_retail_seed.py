"""The retail seed: deterministic, big enough, and internally consistent."""

from __future__ import annotations

import random
from collections import Counter, defaultdict

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import build_env
from envfactory_mcp.tasks.addresses import is_possible_address

STATUSES = ["pending", "processed", "delivered", "cancelled", "return_requested", "exchange_requested"]


def _net_by_method(state: dict, order_id: str) -> dict[str, int]:
    net: dict[str, int] = defaultdict(int)
    for p in state["payments"]:
        if p["order_id"] == order_id:
            net[p["payment_method_id"]] += p["amount_cents"] if p["kind"] == "payment" else -p["amount_cents"]
    return dict(net)


def test_same_seed_gives_identical_sql(retail_env):
    blueprint = load_blueprint("retail")
    again = build_env(blueprint, blueprint.default_seed)
    assert again.seed_sql == retail_env.seed_sql
    assert again.seed_hash == retail_env.seed_hash
    assert blueprint.generate_seed(random.Random(5)) == blueprint.generate_seed(random.Random(5))


def test_different_seed_gives_different_sql(retail_env):
    blueprint = load_blueprint("retail")
    other = build_env(blueprint, blueprint.default_seed + 1)
    assert other.seed_sql != retail_env.seed_sql
    assert other.seed_hash != retail_env.seed_hash


def test_minimum_counts(retail_env):
    state = retail_env.seed_state
    assert len(state["users"]) >= 60
    assert len(state["products"]) >= 20
    assert len(state["items"]) >= 100
    assert any(i["available"] == 0 for i in state["items"])
    assert len(state["orders"]) >= 200
    counts = Counter(o["status"] for o in state["orders"])
    assert set(counts) == set(STATUSES)
    assert counts["pending"] >= 25 and counts["delivered"] >= 25
    assert all(counts[s] >= 15 for s in STATUSES)


def test_serialized_database_is_modest(retail_env):
    # The image also carries the spec-chosen indexes and the change-log tables of the
    # incremental state hash (ARCHITECTURE.md, Sessions); 246 KB when they came in.
    assert len(retail_env.seed_image) < 275_000


def test_orders_have_one_to_five_distinct_items(retail_env):
    lines = defaultdict(list)
    for line in retail_env.seed_state["order_items"]:
        lines[line["order_id"]].append(line["item_id"])
    for order in retail_env.seed_state["orders"]:
        items = lines[order["order_id"]]
        assert 1 <= len(items) <= 5
        assert len(set(items)) == len(items), order["order_id"]


def test_payments_use_the_order_users_own_methods(retail_env):
    state = retail_env.seed_state
    owner = {m["payment_method_id"]: m["user_id"] for m in state["payment_methods"]}
    order_user = {o["order_id"]: o["user_id"] for o in state["orders"]}
    for p in state["payments"]:
        assert owner[p["payment_method_id"]] == order_user[p["order_id"]], p
    paid = {p["order_id"] for p in state["payments"] if p["kind"] == "payment" and p["reason"] == "order"}
    assert paid == set(order_user)


def test_money_is_consistent_with_order_status(retail_env):
    state = retail_env.seed_state
    totals: dict[str, int] = defaultdict(int)
    for line in state["order_items"]:
        totals[line["order_id"]] += line["price_cents"]
    for order in state["orders"]:
        net = _net_by_method(state, order["order_id"])
        if order["status"] == "cancelled":
            assert all(v == 0 for v in net.values())
            assert order["cancel_reason"] in ("no longer needed", "ordered by mistake")
        elif order["status"] in ("pending", "processed", "delivered"):
            assert sum(net.values()) == totals[order["order_id"]]
            assert all(v >= 0 for v in net.values())
            assert order["cancel_reason"] is None


def test_gift_cards_have_non_negative_balances_and_some_are_low(retail_env):
    cards = [m for m in retail_env.seed_state["payment_methods"] if m["kind"] == "gift_card"]
    assert len(cards) >= 10
    assert all(c["balance_cents"] >= 0 for c in cards)
    assert sum(1 for c in cards if c["balance_cents"] < 3000) >= 5
    assert all(
        m["balance_cents"] is None
        for m in retail_env.seed_state["payment_methods"]
        if m["kind"] != "gift_card"
    )


def test_every_user_can_be_identified_and_has_an_order(retail_env):
    users = retail_env.seed_state["users"]
    assert len({u["email"] for u in users}) == len(users)
    assert len({(u["first_name"].lower(), u["last_name"].lower(), u["zip"]) for u in users}) == len(users)
    with_orders = {o["user_id"] for o in retail_env.seed_state["orders"]}
    assert with_orders == {u["user_id"] for u in users}
    methods = Counter(m["user_id"] for m in retail_env.seed_state["payment_methods"])
    assert all(methods[u["user_id"]] >= 1 for u in users)


def test_delivered_orders_can_be_exchanged(retail_env):
    state = retail_env.seed_state
    items = {i["item_id"]: i for i in state["items"]}
    available_by_product = Counter(i["product_id"] for i in state["items"] if i["available"])
    assert all(available_by_product[p["product_id"]] >= 2 for p in state["products"])
    delivered = {o["order_id"] for o in state["orders"] if o["status"] == "delivered"}
    exchangeable = set()
    for line in state["order_items"]:
        if line["order_id"] in delivered:
            item = items[line["item_id"]]
            others = available_by_product[item["product_id"]] - item["available"]
            if others >= 1:
                exchangeable.add(line["order_id"])
    assert exchangeable == delivered


def test_return_and_exchange_lines_match_their_orders(retail_env):
    state = retail_env.seed_state
    items = {i["item_id"]: i for i in state["items"]}
    states = defaultdict(set)
    for line in state["order_items"]:
        states[line["order_id"]].add(line["state"])
        if line["state"] == "exchange_requested":
            new = items[line["exchange_item_id"]]
            assert new["product_id"] == items[line["item_id"]]["product_id"]
            assert new["item_id"] != line["item_id"]
            assert line["exchange_price_cents"] == new["price_cents"]
    for order in state["orders"]:
        lines = states[order["order_id"]]
        if order["status"] == "return_requested":
            assert "return_requested" in lines
        elif order["status"] == "exchange_requested":
            assert "exchange_requested" in lines
        else:
            assert lines == {"ordered"}


def test_every_address_could_really_exist(retail_env):
    state = retail_env.seed_state
    for row in [*state["users"], *state["orders"]]:
        assert is_possible_address(row["city"], row["state"], row["zip"]), row
        assert row["country"] == "USA"
