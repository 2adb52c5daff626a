"""Retail customer-service tools.

An online store: users with addresses and payment methods (credit cards, PayPal, gift
cards with a balance), products sold as variant items (options such as color or size,
a price, availability), and orders whose lines point at items. An order moves through
``pending -> processed -> delivered``; a pending order can be cancelled or changed
(address, payment method, items once), a delivered order can have items returned or
exchanged.

Money is stored as integer cents. Every payment and refund is a row of ``payments``
(kind ``payment`` or ``refund``); a gift card's balance moves together with every
payment or refund recorded on it, so the net amount an order has paid with each method
is always the sum of its payment rows minus its refund rows. Tool outputs present money
in dollars with two decimals.

Each function is one tool: ``tool(ctx, **arguments) -> dict``. Business-rule violations
call ``ctx.fail`` so the runtime rolls the call back and tells the agent why.
"""

from __future__ import annotations

import ast
import json
import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from envfactory_mcp.runtime import ToolContext

Row = dict  # one database row, column name -> value

CANCEL_REASONS = ("no longer needed", "ordered by mistake")
ADDRESS_FIELDS = ("address1", "address2", "city", "state", "country", "zip")


# --------------------------------------------------------------------------- helpers


def _dollars(cents: int) -> float:
    return round(cents / 100, 2)


def _fmt(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _address(row: Row) -> dict[str, str]:
    return {field: row[field] for field in ADDRESS_FIELDS}


def _user(ctx: ToolContext, user_id: str) -> Row:
    row = ctx.one("SELECT * FROM users WHERE user_id = ?", (user_id,))
    if row is None:
        ctx.fail(f"User {user_id} not found.")
    return row


def _order(ctx: ToolContext, order_id: str) -> Row:
    row = ctx.one("SELECT * FROM orders WHERE order_id = ?", (order_id,))
    if row is None:
        ctx.fail(f"Order {order_id} not found.")
    return row


def _require_status(ctx: ToolContext, order: Row, status: str, action: str) -> None:
    if order["status"] != status:
        ctx.fail(f"Order {order['order_id']} is {order['status']}; only {status} orders can {action}.")


def _method(ctx: ToolContext, payment_method_id: str, order: Row) -> Row:
    row = ctx.one("SELECT * FROM payment_methods WHERE payment_method_id = ?", (payment_method_id,))
    if row is None:
        ctx.fail(f"Payment method {payment_method_id} not found.")
    if row["user_id"] != order["user_id"]:
        ctx.fail(
            f"Payment method {payment_method_id} does not belong to user {order['user_id']}, "
            f"who placed order {order['order_id']}."
        )
    return row


def _net_paid(ctx: ToolContext, order_id: str) -> dict[str, int]:
    """Net cents each payment method has paid for an order (payments minus refunds)."""
    rows = ctx.all(
        "SELECT payment_method_id AS m, "
        "SUM(CASE kind WHEN 'payment' THEN amount_cents ELSE -amount_cents END) AS net "
        "FROM payments WHERE order_id = ? GROUP BY payment_method_id ORDER BY payment_method_id",
        (order_id,),
    )
    return {r["m"]: r["net"] for r in rows}


def _check_can_charge(ctx: ToolContext, method: Row, cents: int) -> None:
    if method["kind"] == "gift_card" and method["balance_cents"] < cents:
        ctx.fail(
            f"Gift card {method['payment_method_id']} has a balance of {_fmt(method['balance_cents'])}, "
            f"which does not cover {_fmt(cents)}; choose another payment method."
        )


def _record(ctx: ToolContext, order_id: str, method_id: str, kind: str, cents: int, reason: str) -> None:
    """Insert one payment or refund row and move the gift card balance with it."""
    if cents <= 0:
        return
    method = ctx.one(
        "SELECT kind, balance_cents FROM payment_methods WHERE payment_method_id = ?", (method_id,)
    )
    if method is not None and method["kind"] == "gift_card":
        delta = -cents if kind == "payment" else cents
        ctx.execute(
            "UPDATE payment_methods SET balance_cents = balance_cents + ? WHERE payment_method_id = ?",
            (delta, method_id),
        )
    payment_id = ctx.next_id("payments", "payment_id", "pay_", 7)
    ctx.execute(
        "INSERT INTO payments (payment_id, order_id, payment_method_id, kind, amount_cents, reason, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (payment_id, order_id, method_id, kind, cents, reason, ctx.now),
    )


def _lines(ctx: ToolContext, order_id: str) -> list[Row]:
    return ctx.all(
        "SELECT oi.line_no, oi.item_id, oi.price_cents, oi.state, oi.exchange_item_id, "
        "oi.exchange_price_cents, i.product_id, i.options, p.name "
        "FROM order_items oi JOIN items i ON i.item_id = oi.item_id "
        "JOIN products p ON p.product_id = i.product_id "
        "WHERE oi.order_id = ? ORDER BY oi.line_no",
        (order_id,),
    )


def _order_lines_by_item(ctx: ToolContext, order: Row, item_ids: list[str]) -> list[Row]:
    lines = {line["item_id"]: line for line in _lines(ctx, order["order_id"])}
    picked = []
    for item_id in item_ids:
        line = lines.get(item_id)
        if line is None:
            ctx.fail(f"Item {item_id} is not part of order {order['order_id']}.")
        if line["state"] != "ordered":
            ctx.fail(f"Item {item_id} of order {order['order_id']} is already {line['state']}.")
        picked.append(line)
    return picked


def _replacement(ctx: ToolContext, line: Row, new_item_id: str) -> Row:
    """The new item for a line: same product, a different variant, available."""
    item = ctx.one(
        "SELECT item_id, product_id, price_cents, available FROM items WHERE item_id = ?", (new_item_id,)
    )
    if item is None:
        ctx.fail(f"Item {new_item_id} not found.")
    if item["item_id"] == line["item_id"]:
        ctx.fail(f"New item {new_item_id} is the same as the current item; choose a different variant.")
    if item["product_id"] != line["product_id"]:
        ctx.fail(
            f"New item {new_item_id} is not the same product as item {line['item_id']} "
            f"({line['name']}, {line['product_id']}); items can only be swapped for another variant of the same product."
        )
    if not item["available"]:
        ctx.fail(f"New item {new_item_id} is not available.")
    return item


def _swaps(
    ctx: ToolContext, order: Row, item_ids: list[str], new_item_ids: list[str]
) -> list[tuple[Row, Row]]:
    """(order line, new item) pairs of a modification or exchange, with every item rule checked."""
    if len(item_ids) != len(new_item_ids):
        ctx.fail("item_ids and new_item_ids must have the same length: new_item_ids[i] replaces item_ids[i].")
    lines = _order_lines_by_item(ctx, order, item_ids)
    pairs = [(line, _replacement(ctx, line, new_id)) for line, new_id in zip(lines, new_item_ids)]
    kept = {
        line["item_id"] for line in _lines(ctx, order["order_id"]) if line["item_id"] not in set(item_ids)
    }
    for _, new in pairs:
        if new["item_id"] in kept:
            ctx.fail(
                f"Order {order['order_id']} already contains item {new['item_id']}; "
                "an order cannot hold the same item twice."
            )
    return pairs


def _order_view(ctx: ToolContext, order_id: str) -> Row:
    order = _order(ctx, order_id)
    items = []
    items_total = 0
    for line in _lines(ctx, order_id):
        items_total += line["price_cents"]
        exchange_price = line["exchange_price_cents"]
        items.append(
            {
                "item_id": line["item_id"],
                "product_id": line["product_id"],
                "name": line["name"],
                "options": json.loads(line["options"]),
                "price": _dollars(line["price_cents"]),
                "state": line["state"],
                "exchange_item_id": line["exchange_item_id"],
                "exchange_price": None if exchange_price is None else _dollars(exchange_price),
            }
        )
    payments = ctx.all(
        "SELECT payment_id, kind, payment_method_id, amount_cents, reason, created_at "
        "FROM payments WHERE order_id = ? ORDER BY payment_id",
        (order_id,),
    )
    paid = sum(p["amount_cents"] for p in payments if p["kind"] == "payment")
    refunded = sum(p["amount_cents"] for p in payments if p["kind"] == "refund")
    return {
        "order_id": order["order_id"],
        "user_id": order["user_id"],
        "status": order["status"],
        "created_at": order["created_at"],
        "address": _address(order),
        "items_modified": bool(order["items_modified"]),
        "cancel_reason": order["cancel_reason"],
        "items": items,
        "payments": [
            {
                "payment_id": p["payment_id"],
                "kind": p["kind"],
                "payment_method_id": p["payment_method_id"],
                "amount": _dollars(p["amount_cents"]),
                "reason": p["reason"],
                "created_at": p["created_at"],
            }
            for p in payments
        ],
        "totals": {
            "items_total": _dollars(items_total),
            "paid": _dollars(paid),
            "refunded": _dollars(refunded),
            "net_paid": _dollars(paid - refunded),
        },
    }


# --------------------------------------------------------------------------- lookups


def find_user_id_by_email(ctx: ToolContext, *, email: str) -> dict:
    row = ctx.one("SELECT user_id FROM users WHERE email = ?", (email.strip().lower(),))
    if row is None:
        ctx.fail("No user found with that email.")
    return {"user_id": row["user_id"]}


def find_user_id_by_name_zip(ctx: ToolContext, *, first_name: str, last_name: str, zip: str) -> dict:
    rows = ctx.all(
        "SELECT user_id FROM users WHERE lower(first_name) = lower(?) AND lower(last_name) = lower(?) "
        "AND zip = ? ORDER BY user_id",
        (first_name.strip(), last_name.strip(), zip.strip()),
    )
    if not rows:
        ctx.fail("No user found with that name and zip code.")
    if len(rows) > 1:
        ctx.fail("Several users match that name and zip code; ask for the email instead.")
    return {"user_id": rows[0]["user_id"]}


def get_user_details(ctx: ToolContext, *, user_id: str) -> dict:
    user = _user(ctx, user_id)
    methods = []
    for m in ctx.all(
        "SELECT * FROM payment_methods WHERE user_id = ? ORDER BY payment_method_id", (user_id,)
    ):
        entry: Row = {"payment_method_id": m["payment_method_id"], "kind": m["kind"]}
        if m["kind"] == "credit_card":
            entry["brand"] = m["brand"]
            entry["last_four"] = m["last_four"]
        if m["kind"] == "gift_card":
            entry["balance"] = _dollars(m["balance_cents"])
        methods.append(entry)
    orders = [
        r["order_id"]
        for r in ctx.all("SELECT order_id FROM orders WHERE user_id = ? ORDER BY order_id", (user_id,))
    ]
    return {
        "user_id": user["user_id"],
        "first_name": user["first_name"],
        "last_name": user["last_name"],
        "email": user["email"],
        "address": _address(user),
        "payment_methods": methods,
        "orders": orders,
    }


def get_order_details(ctx: ToolContext, *, order_id: str) -> dict:
    return _order_view(ctx, order_id)


def get_product_details(ctx: ToolContext, *, product_id: str) -> dict:
    product = ctx.one("SELECT product_id, name FROM products WHERE product_id = ?", (product_id,))
    if product is None:
        ctx.fail(f"Product {product_id} not found.")
    variants = [
        {
            "item_id": v["item_id"],
            "options": json.loads(v["options"]),
            "price": _dollars(v["price_cents"]),
            "available": bool(v["available"]),
        }
        for v in ctx.all(
            "SELECT item_id, options, price_cents, available FROM items WHERE product_id = ? ORDER BY item_id",
            (product_id,),
        )
    ]
    return {"product_id": product["product_id"], "name": product["name"], "variants": variants}


def list_all_product_types(ctx: ToolContext) -> dict:
    rows = ctx.all("SELECT name, product_id FROM products ORDER BY name, product_id")
    return {"products": [{"name": r["name"], "product_id": r["product_id"]} for r in rows]}


# --------------------------------------------------------------------------- account


def modify_user_address(
    ctx: ToolContext,
    *,
    user_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> dict:
    _user(ctx, user_id)
    ctx.execute(
        "UPDATE users SET address1 = ?, address2 = ?, city = ?, state = ?, country = ?, zip = ? WHERE user_id = ?",
        (address1, address2, city, state, country, zip, user_id),
    )
    return {"user_id": user_id, "address": _address(_user(ctx, user_id))}


# --------------------------------------------------------------------------- pending orders


def modify_pending_order_address(
    ctx: ToolContext,
    *,
    order_id: str,
    address1: str,
    address2: str,
    city: str,
    state: str,
    country: str,
    zip: str,
) -> dict:
    order = _order(ctx, order_id)
    _require_status(ctx, order, "pending", "have their address changed")
    ctx.execute(
        "UPDATE orders SET address1 = ?, address2 = ?, city = ?, state = ?, country = ?, zip = ? WHERE order_id = ?",
        (address1, address2, city, state, country, zip, order_id),
    )
    return _order_view(ctx, order_id)


def modify_pending_order_payment(ctx: ToolContext, *, order_id: str, payment_method_id: str) -> dict:
    order = _order(ctx, order_id)
    method = _method(ctx, payment_method_id, order)
    _require_status(ctx, order, "pending", "have their payment method changed")
    net = _net_paid(ctx, order_id)
    others = {m: cents for m, cents in net.items() if m != payment_method_id and cents > 0}
    if not others:
        ctx.fail(
            f"Order {order_id} is already paid with {payment_method_id}; choose a different payment method."
        )
    charge = sum(others.values())
    _check_can_charge(ctx, method, charge)
    for old_id, cents in others.items():
        _record(ctx, order_id, old_id, "refund", cents, "payment_change")
    _record(ctx, order_id, payment_method_id, "payment", charge, "payment_change")
    return _order_view(ctx, order_id)


def modify_pending_order_items(
    ctx: ToolContext, *, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> dict:
    order = _order(ctx, order_id)
    _require_status(ctx, order, "pending", "have their items modified")
    if order["items_modified"]:
        ctx.fail(
            f"The items of order {order_id} have already been modified once; they cannot be modified again."
        )
    pairs = _swaps(ctx, order, item_ids, new_item_ids)
    method = _method(ctx, payment_method_id, order)
    diff = sum(new["price_cents"] - line["price_cents"] for line, new in pairs)
    if diff > 0:
        _check_can_charge(ctx, method, diff)
        _record(ctx, order_id, payment_method_id, "payment", diff, "items_modification")
    elif diff < 0:
        paid = _net_paid(ctx, order_id).get(payment_method_id, 0)
        if paid < -diff:
            ctx.fail(
                f"The price difference of {_fmt(-diff)} is a refund, and refunds on a pending order go back to a "
                f"payment method that paid at least that much for it; {payment_method_id} paid {_fmt(max(paid, 0))}."
            )
        _record(ctx, order_id, payment_method_id, "refund", -diff, "items_modification")
    for line, new in pairs:
        ctx.execute(
            "UPDATE order_items SET item_id = ?, price_cents = ? WHERE order_id = ? AND line_no = ?",
            (new["item_id"], new["price_cents"], order_id, line["line_no"]),
        )
    ctx.execute("UPDATE orders SET items_modified = 1 WHERE order_id = ?", (order_id,))
    return _order_view(ctx, order_id)


def cancel_pending_order(ctx: ToolContext, *, order_id: str, reason: str) -> dict:
    if reason not in CANCEL_REASONS:
        ctx.fail(f"Reason must be one of: {', '.join(CANCEL_REASONS)}.")
    order = _order(ctx, order_id)
    _require_status(ctx, order, "pending", "be cancelled")
    for method_id, cents in _net_paid(ctx, order_id).items():
        _record(ctx, order_id, method_id, "refund", cents, "cancellation")
    ctx.execute(
        "UPDATE orders SET status = 'cancelled', cancel_reason = ? WHERE order_id = ?", (reason, order_id)
    )
    return _order_view(ctx, order_id)


# --------------------------------------------------------------------------- delivered orders


def _check_refund_target(ctx: ToolContext, order: Row, method: Row) -> None:
    if method["kind"] == "gift_card":
        return
    if _net_paid(ctx, order["order_id"]).get(method["payment_method_id"], 0) <= 0:
        ctx.fail(
            f"Refunds for order {order['order_id']} must go to the original payment method of the order or to a "
            f"gift card of the user; {method['payment_method_id']} is neither."
        )


def return_delivered_order_items(
    ctx: ToolContext, *, order_id: str, item_ids: list[str], payment_method_id: str
) -> dict:
    order = _order(ctx, order_id)
    _require_status(ctx, order, "delivered", "have items returned")
    lines = _order_lines_by_item(ctx, order, item_ids)
    method = _method(ctx, payment_method_id, order)
    _check_refund_target(ctx, order, method)
    refund = sum(line["price_cents"] for line in lines)
    _record(ctx, order_id, payment_method_id, "refund", refund, "return")
    for line in lines:
        ctx.execute(
            "UPDATE order_items SET state = 'return_requested' WHERE order_id = ? AND line_no = ?",
            (order_id, line["line_no"]),
        )
    ctx.execute("UPDATE orders SET status = 'return_requested' WHERE order_id = ?", (order_id,))
    return _order_view(ctx, order_id)


def exchange_delivered_order_items(
    ctx: ToolContext, *, order_id: str, item_ids: list[str], new_item_ids: list[str], payment_method_id: str
) -> dict:
    order = _order(ctx, order_id)
    _require_status(ctx, order, "delivered", "have items exchanged")
    pairs = _swaps(ctx, order, item_ids, new_item_ids)
    method = _method(ctx, payment_method_id, order)
    diff = sum(new["price_cents"] - line["price_cents"] for line, new in pairs)
    if diff > 0:
        _check_can_charge(ctx, method, diff)
        _record(ctx, order_id, payment_method_id, "payment", diff, "exchange")
    elif diff < 0:
        _check_refund_target(ctx, order, method)
        _record(ctx, order_id, payment_method_id, "refund", -diff, "exchange")
    for line, new in pairs:
        ctx.execute(
            "UPDATE order_items SET state = 'exchange_requested', exchange_item_id = ?, exchange_price_cents = ? "
            "WHERE order_id = ? AND line_no = ?",
            (new["item_id"], new["price_cents"], order_id, line["line_no"]),
        )
    ctx.execute("UPDATE orders SET status = 'exchange_requested' WHERE order_id = ?", (order_id,))
    return _order_view(ctx, order_id)


# --------------------------------------------------------------------------- utilities

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_UNARY: dict[type, Callable[[float], float]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _evaluate(ctx: ToolContext, node: ast.AST) -> int | float:
    if isinstance(node, ast.Expression):
        return _evaluate(ctx, node.body)
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(ctx, node.left), _evaluate(ctx, node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            ctx.fail("Division by zero.")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(ctx, node.operand))
    ctx.fail("Only numbers, + - * /, and parentheses are allowed in the expression.")


def calculate(ctx: ToolContext, *, expression: str) -> dict:
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        ctx.fail("The expression is not valid arithmetic; use numbers, + - * /, and parentheses.")
    try:
        value = float(_evaluate(ctx, tree))
    except (OverflowError, RecursionError):
        ctx.fail("The expression is too large to evaluate.")
    if not math.isfinite(value):
        ctx.fail("The result is too large.")
    result = round(value, 2)
    return {"expression": expression, "result": 0.0 if result == 0 else result}


def transfer_to_human_agents(ctx: ToolContext, *, summary: str) -> dict:
    return {
        "transferred": True,
        "message": "The conversation has been transferred to a human agent, who will follow up with the user.",
        "summary": summary,
    }
