"""Deterministic seed state of the retail environment, drawn from small word lists.

Everything comes from the ``random.Random`` passed in: lists are walked in a fixed order,
never through sets or dict iteration of unordered data, so one seed gives one state.
"""

from __future__ import annotations

import datetime
import itertools
import json
import random
from typing import Any

from envfactory_mcp.tasks.addresses import random_us_address

Rows = dict[str, list[dict[str, Any]]]

CLOCK_DAY = (2026, 6, 1)  # the environment clock is 2026-06-01T12:00:00Z

FIRST_NAMES = [
    "Aisha",
    "Ben",
    "Carmen",
    "Daniel",
    "Elena",
    "Farah",
    "George",
    "Hana",
    "Ivan",
    "Julia",
    "Kenji",
    "Lucia",
    "Marcus",
    "Nadia",
    "Omar",
    "Priya",
    "Quinn",
    "Rosa",
    "Samuel",
    "Tara",
    "Umar",
    "Valeria",
    "Wei",
    "Ximena",
    "Yusuf",
    "Zoe",
    "Amelia",
    "Bruno",
    "Chloe",
    "Diego",
    "Emma",
    "Felix",
    "Grace",
    "Hugo",
    "Isla",
    "Jonah",
    "Keira",
    "Liam",
    "Maya",
    "Noah",
]
LAST_NAMES = [
    "Anderson",
    "Bianchi",
    "Chen",
    "Dubois",
    "Evans",
    "Fischer",
    "Garcia",
    "Hughes",
    "Ito",
    "Jensen",
    "Kowalski",
    "Lopez",
    "Moreau",
    "Nguyen",
    "Okafor",
    "Patel",
    "Quinto",
    "Rossi",
    "Silva",
    "Tanaka",
    "Ueda",
    "Varga",
    "Walsh",
    "Xu",
    "Yilmaz",
    "Zimmerman",
    "Brooks",
    "Castillo",
    "Dalton",
    "Ferreira",
]
EMAIL_DOMAINS = ["example.com", "mail.example", "inbox.example", "post.example"]
CARD_BRANDS = ["visa", "mastercard", "amex", "discover"]

COLORS = ["black", "white", "red", "blue", "green", "gray"]
# (product name, base price in dollars, {option: values})
CATALOG: list[tuple[str, int, dict[str, list[str]]]] = [
    ("T-Shirt", 25, {"color": COLORS, "size": ["S", "M", "L", "XL"]}),
    ("Hiking Boots", 140, {"size": ["8", "9", "10", "11"], "material": ["leather", "synthetic"]}),
    ("Backpack", 70, {"color": COLORS[:4], "capacity": ["20L", "30L", "40L"]}),
    (
        "Water Bottle",
        22,
        {"capacity": ["500ml", "750ml", "1000ml"], "material": ["stainless steel", "glass"]},
    ),
    (
        "Desk Lamp",
        45,
        {"color": ["black", "white", "silver"], "power source": ["USB", "AC adapter", "battery"]},
    ),
    (
        "Mechanical Keyboard",
        120,
        {"switch type": ["linear", "tactile", "clicky"], "backlight": ["none", "white", "RGB"]},
    ),
    ("Wireless Earbuds", 90, {"color": ["black", "white", "blue"], "battery life": ["6 hours", "8 hours"]}),
    ("Coffee Maker", 85, {"capacity": ["1 cup", "4 cups", "8 cups"], "type": ["drip", "espresso"]}),
    ("Yoga Mat", 35, {"thickness": ["4mm", "6mm", "8mm"], "color": ["purple", "blue", "green"]}),
    ("Office Chair", 210, {"material": ["mesh", "leather", "fabric"], "color": ["black", "gray"]}),
    ("Running Shoes", 110, {"size": ["7", "8", "9", "10", "11"], "color": ["black", "white", "red"]}),
    ("Sunglasses", 60, {"frame": ["black", "tortoise", "gold"], "lens": ["polarized", "non-polarized"]}),
    ("Smart Watch", 250, {"case": ["aluminum", "steel"], "band": ["silicone", "leather", "metal"]}),
    ("Bluetooth Speaker", 75, {"color": ["black", "blue", "red"], "water resistance": ["yes", "no"]}),
    (
        "Electric Kettle",
        40,
        {"capacity": ["1L", "1.5L", "1.7L"], "material": ["plastic", "stainless steel", "glass"]},
    ),
    ("Air Purifier", 180, {"room size": ["small", "medium", "large"], "filter": ["HEPA", "carbon"]}),
    ("Bookshelf", 130, {"material": ["oak", "pine", "metal"], "height": ["3 ft", "5 ft", "6 ft"]}),
    ("Electric Toothbrush", 55, {"color": ["white", "black", "pink"], "battery": ["rechargeable", "AA"]}),
    ("Sleeping Bag", 95, {"temperature": ["20F", "35F", "50F"], "size": ["regular", "long"]}),
    (
        "Camera Tripod",
        65,
        {"material": ["aluminum", "carbon fiber"], "max height": ["50 in", "60 in", "70 in"]},
    ),
    (
        "Gaming Mouse",
        50,
        {"color": ["black", "white"], "sensor": ["optical", "laser"], "connectivity": ["wired", "wireless"]},
    ),
    ("Skateboard", 80, {"deck": ["plain", "graphic"], "length": ["28 in", "31 in", "34 in"]}),
    ("Wall Clock", 30, {"color": ["black", "white", "wood"], "diameter": ["10 in", "12 in", "14 in"]}),
    (
        "Cookware Set",
        160,
        {"material": ["stainless steel", "nonstick", "cast iron"], "pieces": ["5", "8", "10"]},
    ),
    ("Jigsaw Puzzle", 20, {"pieces": ["500", "1000", "1500"], "theme": ["animals", "landscape", "art"]}),
    ("Bicycle Helmet", 70, {"size": ["S", "M", "L"], "color": ["black", "white", "red"]}),
]

N_USERS = 64
STATUS_COUNTS = [
    ("pending", 110),
    ("processed", 40),
    ("delivered", 110),
    ("cancelled", 26),
    ("return_requested", 23),
    ("exchange_requested", 23),
]
# How many lines an order has (1-5), most orders being small.
LINE_COUNTS = [1, 1, 1, 1, 2, 2, 2, 3, 4, 5]
CANCEL_REASONS = ["no longer needed", "ordered by mistake"]
# Days before the clock an order of each status was placed.
AGE_DAYS = {
    "pending": (0, 4),
    "processed": (3, 9),
    "delivered": (10, 120),
    "cancelled": (2, 90),
    "return_requested": (12, 80),
    "exchange_requested": (12, 80),
}


def generate_seed(rng: random.Random) -> Rows:
    products, items = _catalog(rng)
    users, methods = _users(rng)
    orders, lines, payments = _orders(rng, users, methods, items)
    return {
        "users": users,
        "payment_methods": methods,
        "products": products,
        "items": items,
        "orders": orders,
        "order_items": lines,
        "payments": payments,
    }


def _catalog(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    products: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    for p, (name, base, options) in enumerate(CATALOG, start=1):
        product_id = f"prod_{p:04d}"
        products.append({"product_id": product_id, "name": name})
        combos = list(itertools.product(*options.values()))
        chosen = sorted(rng.sample(range(len(combos)), min(len(combos), rng.randint(4, 7))))
        n = len(chosen)
        # At least two variants of every product stay available, so any item has an
        # available alternative to be exchanged or swapped for.
        unavailable = set(rng.sample(range(n), rng.randint(0, min(2, n - 2))))
        for k, combo_index in enumerate(chosen):
            option_values = dict(zip(options.keys(), combos[combo_index], strict=True))
            price = max(base * 100 + rng.randint(-base * 15, base * 25), 199)
            if rng.random() < 0.6:
                price = price - price % 100 + 99  # a "$xx.99" price
            items.append(
                {
                    "item_id": f"item_{len(items) + 1:05d}",
                    "product_id": product_id,
                    "options": json.dumps(option_values, separators=(", ", ": ")),
                    "price_cents": price,
                    "available": 0 if k in unavailable else 1,
                }
            )
    return products, items


def _users(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    name_pairs = list(itertools.product(FIRST_NAMES, LAST_NAMES))
    picks = rng.sample(range(len(name_pairs)), N_USERS)
    users: list[dict[str, Any]] = []
    methods: list[dict[str, Any]] = []
    counters = {"credit_card": 0, "gift_card": 0, "paypal": 0}

    def method_id(kind: str) -> str:
        counters[kind] += rng.randint(1, 9)
        return f"{kind}_{counters[kind]:06d}"

    for u, pick in enumerate(picks, start=1):
        first, last = name_pairs[pick]
        user_id = f"user_{u:06d}"
        users.append(
            {
                "user_id": user_id,
                "first_name": first,
                "last_name": last,
                "email": f"{first}.{last}{rng.randint(10, 99)}@{rng.choice(EMAIL_DOMAINS)}".lower(),
                **_address(rng),
            }
        )
        kinds = [rng.choice(["credit_card", "credit_card", "paypal"])]
        if rng.random() < 0.35:
            kinds.append("credit_card" if kinds[0] == "paypal" else rng.choice(["credit_card", "paypal"]))
        if rng.random() < 0.5:
            kinds.append("gift_card")
        for kind in kinds:
            row: dict[str, Any] = {
                "payment_method_id": method_id(kind),
                "user_id": user_id,
                "kind": kind,
                "brand": None,
                "last_four": None,
                "balance_cents": None,
            }
            if kind == "credit_card":
                row["brand"] = rng.choice(CARD_BRANDS)
                row["last_four"] = f"{rng.randint(0, 9999):04d}"
            elif kind == "gift_card":
                # About half the gift cards are nearly spent, so balance rules bite.
                low = rng.random() < 0.5
                row["balance_cents"] = rng.randint(0, 3000) if low else rng.randint(5000, 50000)
            methods.append(row)
    return users, methods


def _address(rng: random.Random) -> dict[str, str]:
    # City, state and zip come from the USPS table, so every address could really exist.
    return random_us_address(rng).as_row()


def _timestamp(rng: random.Random, status: str) -> str:
    lo, hi = AGE_DAYS[status]
    minutes = rng.randint(lo * 1440 + 60, hi * 1440 + 600)
    moment = datetime.datetime(*CLOCK_DAY, 12, 0) - datetime.timedelta(minutes=minutes)
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def _orders(
    rng: random.Random,
    users: list[dict[str, Any]],
    methods: list[dict[str, Any]],
    items: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    statuses = [status for status, count in STATUS_COUNTS for _ in range(count)]
    rng.shuffle(statuses)
    owners = [u["user_id"] for u in users]  # every user has at least one order
    owners += [rng.choice(users)["user_id"] for _ in range(len(statuses) - len(owners))]
    rng.shuffle(owners)
    order_numbers = rng.sample(range(1_000_000, 10_000_000), len(statuses))
    users_by_id = {u["user_id"]: u for u in users}
    methods_by_user: dict[str, list[dict[str, Any]]] = {}
    for m in methods:
        methods_by_user.setdefault(m["user_id"], []).append(m)
    by_product: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        by_product.setdefault(item["product_id"], []).append(item)
    product_of = {item["item_id"]: item["product_id"] for item in items}

    orders: list[dict[str, Any]] = []
    lines: list[dict[str, Any]] = []
    payments: list[dict[str, Any]] = []

    def pay(order_id: str, method_id: str, kind: str, cents: int, reason: str, at: str) -> None:
        payments.append(
            {
                "payment_id": f"pay_{len(payments) + 1:07d}",
                "order_id": order_id,
                "payment_method_id": method_id,
                "kind": kind,
                "amount_cents": cents,
                "reason": reason,
                "created_at": at,
            }
        )

    # Sorted by order number so payment ids increase with order ids (purely cosmetic).
    plan = sorted(zip(order_numbers, statuses, owners, strict=True))
    for number, status, user_id in plan:
        order_id = f"#W{number:07d}"
        user = users_by_id[user_id]
        created_at = _timestamp(rng, status)
        address = {k: user[k] for k in ("address1", "address2", "city", "state", "country", "zip")}
        if rng.random() < 0.1:
            address = _address(rng)  # shipped somewhere else (a gift, an old address)
        order = {
            "order_id": order_id,
            "user_id": user_id,
            "status": status,
            **address,
            "created_at": created_at,
            "items_modified": 1 if status == "pending" and rng.random() < 0.1 else 0,
            "cancel_reason": rng.choice(CANCEL_REASONS) if status == "cancelled" else None,
        }
        orders.append(order)
        chosen = sorted(rng.sample(range(len(items)), rng.choice(LINE_COUNTS)))
        order_lines = []
        for line_no, index in enumerate(chosen, start=1):
            item = items[index]
            order_lines.append(
                {
                    "order_id": order_id,
                    "line_no": line_no,
                    "item_id": item["item_id"],
                    "price_cents": item["price_cents"],
                    "state": "ordered",
                    "exchange_item_id": None,
                    "exchange_price_cents": None,
                }
            )
        lines.extend(order_lines)
        total = sum(line["price_cents"] for line in order_lines)
        method = rng.choice(methods_by_user[user_id])
        pay(order_id, method["payment_method_id"], "payment", total, "order", created_at)
        later = _timestamp(rng, "pending") if status != "pending" else created_at
        later = max(later, created_at)
        if status == "cancelled":
            pay(order_id, method["payment_method_id"], "refund", total, "cancellation", later)
        elif status in ("return_requested", "exchange_requested"):
            picked = sorted(
                rng.sample(order_lines, rng.randint(1, len(order_lines))), key=lambda line: line["line_no"]
            )
            if status == "return_requested":
                for line in picked:
                    line["state"] = "return_requested"
                target = method["payment_method_id"]
                gift_cards = [m for m in methods_by_user[user_id] if m["kind"] == "gift_card"]
                if gift_cards and rng.random() < 0.3:
                    target = gift_cards[0]["payment_method_id"]
                pay(order_id, target, "refund", sum(line["price_cents"] for line in picked), "return", later)
            else:
                in_order = {line["item_id"] for line in order_lines}
                diff = 0
                for line in picked:
                    options = [
                        i
                        for i in by_product[product_of[line["item_id"]]]
                        if i["available"] and i["item_id"] not in in_order
                    ]
                    if not options:  # every alternative is already in the order
                        continue
                    new = rng.choice(options)
                    in_order.add(new["item_id"])
                    line["state"] = "exchange_requested"
                    line["exchange_item_id"] = new["item_id"]
                    line["exchange_price_cents"] = new["price_cents"]
                    diff += new["price_cents"] - line["price_cents"]
                if all(line["state"] == "ordered" for line in picked):
                    order["status"] = "delivered"  # nothing could be exchanged after all
                elif diff > 0:
                    pay(order_id, method["payment_method_id"], "payment", diff, "exchange", later)
                elif diff < 0:
                    pay(order_id, method["payment_method_id"], "refund", -diff, "exchange", later)
    return orders, lines, payments
