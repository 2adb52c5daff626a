"""Telecom customer-support tools.

A mobile carrier: customers (a loyalty tier, a home zip code, saved cards and bank
accounts) hold phone lines; a line is on a rate plan (monthly price, data allowance or
unlimited, roaming or not), has a phone bought on 24 monthly installments, uses data in
the current cycle (a calendar month) and may have extra data bought for it. Every month
the account's open bill collects the charges and is issued on the first day of the next
month, due 20 days later; issued bills can be paid in full or in part. Lines can be
suspended and resumed, roaming switched on and off, plans changed (a cheaper plan at
once, any other from the next cycle), phones upgraded once eligible. Network outages are
published by zip code; support tickets move open -> in_progress -> resolved -> closed,
and a resolved ticket can be reopened within 7 days.

Money is integer cents and data integer megabytes (1 GB = 1000 MB) in the tables; tool
outputs present dollars and gigabytes with two decimals.

Each function is one tool: ``tool(ctx, **arguments) -> dict``. Business-rule violations
call ``ctx.fail`` so the runtime rolls the call back and tells the agent why.
"""

from __future__ import annotations

import ast
import datetime
import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from envfactory_mcp.runtime import ToolContext

Row = dict  # one database row, column name -> value

MB_PER_GB = 1000
TOPUP_SIZES = (1, 2, 5)
TOPUPS_PER_CYCLE = 3
SUSPENSIONS_PER_YEAR = 2
REOPEN_DAYS = 7
INSTALLMENT_MONTHS = 24
UPGRADE_MONTHS = {"standard": 24, "gold": 18, "platinum": 12}
SUSPENSION_REASONS = ("lost device", "stolen device", "travel", "seasonal", "financial hardship")
TICKET_CATEGORIES = ("no service", "slow data", "billing", "device", "roaming", "other")
NETWORK_CATEGORIES = ("no service", "slow data")
OPEN_TICKET = ("open", "in_progress")


# --------------------------------------------------------------------------- helpers


def _dollars(cents: int) -> float:
    return round(cents / 100, 2)


def _fmt(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _gb(mb: int | None) -> float | None:
    return None if mb is None else round(mb / MB_PER_GB, 2)


def _today(ctx: ToolContext) -> datetime.date:
    return datetime.date.fromisoformat(ctx.now[:10])


def _cycle(ctx: ToolContext) -> str:
    return ctx.now[:7]


def _next_cycle_start(ctx: ToolContext) -> str:
    today = _today(ctx)
    year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
    return f"{year:04d}-{month:02d}-01"


def _add_months(day: datetime.date, months: int) -> datetime.date:
    year, month = divmod(day.year * 12 + day.month - 1 + months, 12)
    month += 1
    following = datetime.date(year + month // 12, month % 12 + 1, 1)
    last = (following - datetime.timedelta(days=1)).day
    return datetime.date(year, month, min(day.day, last))


def _customer(ctx: ToolContext, customer_id: str) -> Row:
    row = ctx.one("SELECT * FROM customers WHERE customer_id = ?", (customer_id,))
    if row is None:
        ctx.fail(f"Customer {customer_id} not found.")
    return row


def _line(ctx: ToolContext, phone_number: str) -> Row:
    row = ctx.one("SELECT * FROM lines WHERE phone_number = ?", (phone_number,))
    if row is None:
        ctx.fail(f"No line with phone number {phone_number}.")
    return row


def _plan(ctx: ToolContext, plan_id: str) -> Row:
    row = ctx.one("SELECT * FROM plans WHERE plan_id = ?", (plan_id,))
    if row is None:
        ctx.fail(f"Plan {plan_id} not found.")
    return row


def _bill(ctx: ToolContext, bill_id: str) -> Row:
    row = ctx.one("SELECT * FROM bills WHERE bill_id = ?", (bill_id,))
    if row is None:
        ctx.fail(f"Bill {bill_id} not found.")
    return row


def _ticket(ctx: ToolContext, ticket_id: str) -> Row:
    row = ctx.one("SELECT * FROM tickets WHERE ticket_id = ?", (ticket_id,))
    if row is None:
        ctx.fail(f"Ticket {ticket_id} not found.")
    return row


def _require_line_status(ctx: ToolContext, line: Row, status: str, action: str) -> None:
    if line["status"] != status:
        ctx.fail(f"Line {line['phone_number']} is {line['status']}; only {status} lines can {action}.")


def _device_in_use(ctx: ToolContext, phone_number: str) -> Row | None:
    return ctx.one(
        "SELECT * FROM devices WHERE phone_number = ? AND status = 'in_use' ORDER BY device_id DESC",
        (phone_number,),
    )


def _open_bill(ctx: ToolContext, customer_id: str) -> Row:
    row = ctx.one(
        "SELECT * FROM bills WHERE customer_id = ? AND status = 'open' ORDER BY bill_id", (customer_id,)
    )
    if row is None:
        ctx.fail(f"Customer {customer_id} has no open bill for the current cycle; transfer to a human agent.")
    return row


def _add_bill_item(
    ctx: ToolContext, bill_id: str, phone_number: str | None, kind: str, text: str, cents: int
) -> None:
    number = ctx.scalar("SELECT COALESCE(MAX(item_no), 0) + 1 FROM bill_items WHERE bill_id = ?", (bill_id,))
    ctx.execute(
        "INSERT INTO bill_items (bill_id, item_no, phone_number, kind, description, amount_cents) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (bill_id, number, phone_number, kind, text, cents),
    )


def _topup_mb(ctx: ToolContext, phone_number: str, cycle: str) -> tuple[int, int]:
    """(number of top-ups, extra MB) bought for a line in a cycle."""
    row = ctx.one(
        "SELECT COUNT(*) AS n, COALESCE(SUM(gigabytes), 0) AS gb FROM data_topups WHERE phone_number = ? AND cycle = ?",
        (phone_number, cycle),
    )
    assert row is not None
    return row["n"], row["gb"] * MB_PER_GB


def _suspensions_this_year(ctx: ToolContext, phone_number: str) -> int:
    return ctx.scalar(
        "SELECT COUNT(*) FROM suspensions WHERE phone_number = ? AND substr(started_at, 1, 4) = ?",
        (phone_number, ctx.now[:4]),
    )


def _plan_view(plan: Row) -> dict:
    return {
        "plan_id": plan["plan_id"],
        "name": plan["name"],
        "monthly_price": _dollars(plan["monthly_price_cents"]),
        "data_gb": _gb(plan["data_mb"]),
        "roaming_included": bool(plan["roaming_included"]),
        "topup_price_per_gb": None
        if plan["topup_price_per_gb_cents"] is None
        else _dollars(plan["topup_price_per_gb_cents"]),
        "available": bool(plan["available"]),
    }


def _line_view(ctx: ToolContext, phone_number: str) -> dict:
    line = _line(ctx, phone_number)
    plan = _plan(ctx, line["plan_id"])
    topups, extra_mb = _topup_mb(ctx, phone_number, _cycle(ctx))
    allowance = None if plan["data_mb"] is None else plan["data_mb"] + extra_mb
    remaining = None if allowance is None else max(allowance - line["data_used_mb"], 0)
    device = _device_in_use(ctx, phone_number)
    suspension = ctx.one(
        "SELECT reason, started_at FROM suspensions WHERE phone_number = ? AND ended_at IS NULL",
        (phone_number,),
    )
    pending = line["pending_plan_id"]
    return {
        "phone_number": line["phone_number"],
        "customer_id": line["customer_id"],
        "label": line["label"],
        "status": line["status"],
        "suspension_reason": None if suspension is None else suspension["reason"],
        "suspended_since": None if suspension is None else suspension["started_at"],
        "suspensions_this_year": _suspensions_this_year(ctx, phone_number),
        "plan": _plan_view(plan),
        "pending_plan_id": pending,
        "pending_plan_effective": None if pending is None else _next_cycle_start(ctx),
        "roaming_enabled": bool(line["roaming_enabled"]),
        "cycle": _cycle(ctx),
        "data_used_gb": _gb(line["data_used_mb"]),
        "data_allowance_gb": _gb(allowance),
        "data_remaining_gb": _gb(remaining),
        "topups_this_cycle": topups,
        "device_id": None if device is None else device["device_id"],
        "activated_at": line["activated_at"],
    }


def _device_view(ctx: ToolContext, device_id: str) -> dict:
    device = ctx.one(
        "SELECT d.*, m.name AS model_name, c.tier FROM devices d "
        "JOIN device_models m ON m.model_id = d.model_id "
        "JOIN lines l ON l.phone_number = d.phone_number JOIN customers c ON c.customer_id = l.customer_id "
        "WHERE d.device_id = ?",
        (device_id,),
    )
    if device is None:
        ctx.fail(f"Device {device_id} not found.")
    bought = datetime.date.fromisoformat(device["purchased_at"])
    eligible_from = _add_months(bought, UPGRADE_MONTHS[device["tier"]])
    today = _today(ctx)
    months = (
        (today.year - bought.year) * 12 + today.month - bought.month - (1 if today.day < bought.day else 0)
    )
    return {
        "device_id": device["device_id"],
        "phone_number": device["phone_number"],
        "model_id": device["model_id"],
        "model_name": device["model_name"],
        "imei": device["imei"],
        "status": device["status"],
        "purchased_at": device["purchased_at"],
        "months_owned": max(months, 0),
        "installment_balance": _dollars(device["installment_balance_cents"]),
        "monthly_installment": _dollars(device["monthly_installment_cents"]),
        "upgrade_eligible_from": eligible_from.isoformat(),
        "upgrade_eligible": device["status"] == "in_use" and today >= eligible_from,
    }


def _bill_view(ctx: ToolContext, bill_id: str) -> dict:
    bill = _bill(ctx, bill_id)
    items = ctx.all(
        "SELECT item_no, phone_number, kind, description, amount_cents FROM bill_items WHERE bill_id = ? ORDER BY item_no",
        (bill_id,),
    )
    payments = ctx.all(
        "SELECT payment_id, payment_method_id, amount_cents, created_at FROM payments WHERE bill_id = ? ORDER BY payment_id",
        (bill_id,),
    )
    total = sum(i["amount_cents"] for i in items)
    paid = sum(p["amount_cents"] for p in payments)
    return {
        "bill_id": bill["bill_id"],
        "customer_id": bill["customer_id"],
        "period": bill["period"],
        "label": bill["label"],
        "status": bill["status"],
        "issued_at": bill["issued_at"],
        "due_date": bill["due_date"],
        "items": [
            {
                "item_no": i["item_no"],
                "phone_number": i["phone_number"],
                "kind": i["kind"],
                "description": i["description"],
                "amount": _dollars(i["amount_cents"]),
            }
            for i in items
        ],
        "payments": [
            {
                "payment_id": p["payment_id"],
                "payment_method_id": p["payment_method_id"],
                "amount": _dollars(p["amount_cents"]),
                "created_at": p["created_at"],
            }
            for p in payments
        ],
        "total": _dollars(total),
        "paid": _dollars(paid),
        "balance_due": _dollars(total - paid),
    }


def _ticket_view(ctx: ToolContext, ticket_id: str) -> dict:
    t = _ticket(ctx, ticket_id)
    reopen_until = None
    if t["status"] == "resolved" and t["resolved_at"] is not None:
        resolved = datetime.date.fromisoformat(t["resolved_at"][:10])
        reopen_until = (resolved + datetime.timedelta(days=REOPEN_DAYS)).isoformat()
    return {
        "ticket_id": t["ticket_id"],
        "customer_id": t["customer_id"],
        "phone_number": t["phone_number"],
        "category": t["category"],
        "status": t["status"],
        "title": t["title"],
        "description": t["description"],
        "created_at": t["created_at"],
        "updated_at": t["updated_at"],
        "resolved_at": t["resolved_at"],
        "reopen_until": reopen_until,
    }


def _active_outages(ctx: ToolContext, zip_code: str) -> list[Row]:
    return ctx.all(
        "SELECT * FROM outages WHERE zip = ? AND status = 'active' ORDER BY outage_id", (zip_code,)
    )


# --------------------------------------------------------------------------- lookups


def find_customer_id_by_email(ctx: ToolContext, *, email: str) -> dict:
    row = ctx.one("SELECT customer_id FROM customers WHERE email = ?", (email.strip().lower(),))
    if row is None:
        ctx.fail("No customer found with that email.")
    return {"customer_id": row["customer_id"]}


def find_customer_id_by_name_dob(
    ctx: ToolContext, *, first_name: str, last_name: str, date_of_birth: str
) -> dict:
    rows = ctx.all(
        "SELECT customer_id FROM customers WHERE lower(first_name) = lower(?) AND lower(last_name) = lower(?) "
        "AND date_of_birth = ? ORDER BY customer_id",
        (first_name.strip(), last_name.strip(), date_of_birth.strip()),
    )
    if not rows:
        ctx.fail("No customer found with that name and date of birth.")
    if len(rows) > 1:
        ctx.fail("Several customers match that name and date of birth; ask for the email instead.")
    return {"customer_id": rows[0]["customer_id"]}


def get_customer_details(ctx: ToolContext, *, customer_id: str) -> dict:
    c = _customer(ctx, customer_id)
    methods = []
    for m in ctx.all(
        "SELECT * FROM payment_methods WHERE customer_id = ? ORDER BY payment_method_id", (customer_id,)
    ):
        entry: Row = {
            "payment_method_id": m["payment_method_id"],
            "kind": m["kind"],
            "label": m["label"],
            "last_four": m["last_four"],
        }
        if m["kind"] != "bank_account":
            entry["brand"] = m["brand"]
            entry["expires"] = m["expires"]
            entry["expired"] = m["expires"] < _cycle(ctx)
        methods.append(entry)

    def ids(sql: str) -> list[str]:
        return [r["id"] for r in ctx.all(sql, (customer_id,))]

    return {
        "customer_id": c["customer_id"],
        "first_name": c["first_name"],
        "last_name": c["last_name"],
        "email": c["email"],
        "date_of_birth": c["date_of_birth"],
        "tier": c["tier"],
        "home_area": {"city": c["city"], "state": c["state"], "zip": c["zip"]},
        "customer_since": c["customer_since"],
        "payment_methods": methods,
        "lines": ids("SELECT phone_number AS id FROM lines WHERE customer_id = ? ORDER BY phone_number"),
        "bills": ids("SELECT bill_id AS id FROM bills WHERE customer_id = ? ORDER BY period DESC, bill_id"),
        "tickets": ids("SELECT ticket_id AS id FROM tickets WHERE customer_id = ? ORDER BY ticket_id"),
    }


def get_line_details(ctx: ToolContext, *, phone_number: str) -> dict:
    return _line_view(ctx, phone_number)


def list_plans(ctx: ToolContext) -> dict:
    rows = ctx.all("SELECT * FROM plans ORDER BY monthly_price_cents, plan_id")
    return {"plans": [_plan_view(p) for p in rows]}


def list_device_models(ctx: ToolContext) -> dict:
    rows = ctx.all("SELECT * FROM device_models ORDER BY name, model_id")
    return {
        "models": [
            {
                "model_id": m["model_id"],
                "name": m["name"],
                "price": _dollars(m["price_cents"]),
                "monthly_installment": _dollars(math.ceil(m["price_cents"] / INSTALLMENT_MONTHS)),
                "in_stock": bool(m["in_stock"]),
            }
            for m in rows
        ]
    }


def get_device_details(ctx: ToolContext, *, device_id: str) -> dict:
    return _device_view(ctx, device_id)


def get_bill_details(ctx: ToolContext, *, bill_id: str) -> dict:
    return _bill_view(ctx, bill_id)


def get_ticket_details(ctx: ToolContext, *, ticket_id: str) -> dict:
    return _ticket_view(ctx, ticket_id)


def get_outages(ctx: ToolContext, *, zip: str) -> dict:
    rows = ctx.all(
        "SELECT * FROM outages WHERE zip = ? ORDER BY status, started_at DESC, outage_id", (zip.strip(),)
    )
    return {
        "zip": zip.strip(),
        "active_outages": sum(1 for r in rows if r["status"] == "active"),
        "outages": [
            {
                "outage_id": r["outage_id"],
                "city": r["city"],
                "state": r["state"],
                "service": r["service"],
                "status": r["status"],
                "cause": r["cause"],
                "started_at": r["started_at"],
                "expected_resolution": r["expected_resolution"],
            }
            for r in rows
        ],
    }


# --------------------------------------------------------------------------- bills


def pay_bill(ctx: ToolContext, *, bill_id: str, payment_method_id: str, amount: float | None = None) -> dict:
    bill = _bill(ctx, bill_id)
    if bill["status"] not in ("issued", "overdue"):
        detail = "it has not been issued yet" if bill["status"] == "open" else "it is already paid"
        ctx.fail(f"Bill {bill_id} is {bill['status']}; only issued or overdue bills can be paid ({detail}).")
    method = ctx.one("SELECT * FROM payment_methods WHERE payment_method_id = ?", (payment_method_id,))
    if method is None:
        ctx.fail(f"Payment method {payment_method_id} not found.")
    if method["customer_id"] != bill["customer_id"]:
        ctx.fail(f"Payment method {payment_method_id} does not belong to the account of bill {bill_id}.")
    if method["expires"] is not None and method["expires"] < _cycle(ctx):
        ctx.fail(f"Card {payment_method_id} expired in {method['expires']}; choose another payment method.")
    view = _bill_view(ctx, bill_id)
    balance = round(view["balance_due"] * 100)
    if amount is None:
        cents = balance
    else:
        if amount <= 0:
            ctx.fail("The amount must be positive.")
        cents = round(amount * 100)
        if abs(amount * 100 - cents) > 1e-6:
            ctx.fail("The amount must be in dollars with at most two decimals.")
        if cents > balance:
            ctx.fail(f"{_fmt(cents)} is more than the balance due on bill {bill_id}, {_fmt(balance)}.")
    payment_id = ctx.next_id("payments", "payment_id", "pmt_", 7)
    ctx.execute(
        "INSERT INTO payments (payment_id, bill_id, payment_method_id, amount_cents, created_at) VALUES (?, ?, ?, ?, ?)",
        (payment_id, bill_id, payment_method_id, cents, ctx.now),
    )
    if cents == balance:
        ctx.execute("UPDATE bills SET status = 'paid' WHERE bill_id = ?", (bill_id,))
    return _bill_view(ctx, bill_id)


# --------------------------------------------------------------------------- lines


def change_plan(ctx: ToolContext, *, phone_number: str, plan_id: str) -> dict:
    line = _line(ctx, phone_number)
    _require_line_status(ctx, line, "active", "change plans")
    new = _plan(ctx, plan_id)
    if not new["available"]:
        ctx.fail(f"Plan {plan_id} ({new['name']}) is retired and not open to new subscriptions.")
    if plan_id == line["plan_id"]:
        ctx.fail(f"Line {phone_number} is already on {new['name']}.")
    if plan_id == line["pending_plan_id"]:
        ctx.fail(f"A change of line {phone_number} to {new['name']} is already scheduled.")
    current = _plan(ctx, line["plan_id"])
    if new["monthly_price_cents"] < current["monthly_price_cents"]:
        # A cheaper plan applies at once; roaming goes off when the new plan has none.
        roaming = line["roaming_enabled"] if new["roaming_included"] else 0
        ctx.execute(
            "UPDATE lines SET plan_id = ?, pending_plan_id = NULL, roaming_enabled = ? WHERE phone_number = ?",
            (plan_id, roaming, phone_number),
        )
        effective = ctx.now[:10]
    else:
        ctx.execute("UPDATE lines SET pending_plan_id = ? WHERE phone_number = ?", (plan_id, phone_number))
        effective = _next_cycle_start(ctx)
    return {
        "phone_number": phone_number,
        "previous_plan_id": line["plan_id"],
        "new_plan_id": plan_id,
        "immediate": effective == ctx.now[:10],
        "effective_date": effective,
        "line": _line_view(ctx, phone_number),
    }


def purchase_data_topup(ctx: ToolContext, *, phone_number: str, gigabytes: int) -> dict:
    if gigabytes not in TOPUP_SIZES:
        ctx.fail("Top-ups come in 1, 2 or 5 GB.")
    line = _line(ctx, phone_number)
    _require_line_status(ctx, line, "active", "buy extra data")
    plan = _plan(ctx, line["plan_id"])
    if plan["data_mb"] is None:
        ctx.fail(f"Line {phone_number} is on {plan['name']}, an unlimited plan; it needs no data top-ups.")
    cycle = _cycle(ctx)
    count, _ = _topup_mb(ctx, phone_number, cycle)
    if count >= TOPUPS_PER_CYCLE:
        ctx.fail(
            f"Line {phone_number} already has {count} top-ups this cycle; the limit is {TOPUPS_PER_CYCLE} per cycle."
        )
    price = plan["topup_price_per_gb_cents"] * gigabytes
    bill = _open_bill(ctx, line["customer_id"])
    topup_id = ctx.next_id("data_topups", "topup_id", "top_", 7)
    ctx.execute(
        "INSERT INTO data_topups (topup_id, phone_number, cycle, gigabytes, price_cents, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (topup_id, phone_number, cycle, gigabytes, price, ctx.now),
    )
    _add_bill_item(ctx, bill["bill_id"], phone_number, "data_topup", f"Data top-up {gigabytes} GB", price)
    view = _line_view(ctx, phone_number)
    return {
        "topup_id": topup_id,
        "phone_number": phone_number,
        "gigabytes": gigabytes,
        "price": _dollars(price),
        "charged_to_bill": bill["bill_id"],
        "topups_this_cycle": view["topups_this_cycle"],
        "data_remaining_gb": view["data_remaining_gb"],
    }


def enable_roaming(ctx: ToolContext, *, phone_number: str) -> dict:
    line = _line(ctx, phone_number)
    _require_line_status(ctx, line, "active", "have roaming enabled")
    plan = _plan(ctx, line["plan_id"])
    if not plan["roaming_included"]:
        ctx.fail(f"{plan['name']} does not include roaming; the line needs a plan with roaming first.")
    if line["roaming_enabled"]:
        ctx.fail(f"Roaming is already enabled on line {phone_number}.")
    ctx.execute("UPDATE lines SET roaming_enabled = 1 WHERE phone_number = ?", (phone_number,))
    return _line_view(ctx, phone_number)


def disable_roaming(ctx: ToolContext, *, phone_number: str) -> dict:
    line = _line(ctx, phone_number)
    if not line["roaming_enabled"]:
        ctx.fail(f"Roaming is already disabled on line {phone_number}.")
    ctx.execute("UPDATE lines SET roaming_enabled = 0 WHERE phone_number = ?", (phone_number,))
    return _line_view(ctx, phone_number)


def suspend_line(ctx: ToolContext, *, phone_number: str, reason: str) -> dict:
    if reason not in SUSPENSION_REASONS:
        ctx.fail(f"Reason must be one of: {', '.join(SUSPENSION_REASONS)}.")
    line = _line(ctx, phone_number)
    _require_line_status(ctx, line, "active", "be suspended")
    count = _suspensions_this_year(ctx, phone_number)
    if count >= SUSPENSIONS_PER_YEAR:
        ctx.fail(
            f"Line {phone_number} has already been suspended {count} times in {ctx.now[:4]}; "
            f"a line can be suspended at most {SUSPENSIONS_PER_YEAR} times a calendar year."
        )
    suspension_id = ctx.next_id("suspensions", "suspension_id", "sus_", 6)
    ctx.execute(
        "INSERT INTO suspensions (suspension_id, phone_number, reason, started_at, ended_at) VALUES (?, ?, ?, ?, NULL)",
        (suspension_id, phone_number, reason, ctx.now),
    )
    ctx.execute("UPDATE lines SET status = 'suspended' WHERE phone_number = ?", (phone_number,))
    return _line_view(ctx, phone_number)


def resume_line(ctx: ToolContext, *, phone_number: str) -> dict:
    line = _line(ctx, phone_number)
    _require_line_status(ctx, line, "suspended", "be resumed")
    overdue = ctx.all(
        "SELECT bill_id FROM bills WHERE customer_id = ? AND status = 'overdue' ORDER BY bill_id",
        (line["customer_id"],),
    )
    if overdue:
        ids = ", ".join(b["bill_id"] for b in overdue)
        ctx.fail(f"The account has an overdue bill ({ids}); a line cannot be resumed until it is paid.")
    ctx.execute(
        "UPDATE suspensions SET ended_at = ? WHERE phone_number = ? AND ended_at IS NULL",
        (ctx.now, phone_number),
    )
    ctx.execute("UPDATE lines SET status = 'active' WHERE phone_number = ?", (phone_number,))
    return _line_view(ctx, phone_number)


# --------------------------------------------------------------------------- devices


def _imei(serial: int, prefix: str = "86") -> str:
    """A 15-digit IMEI: a two-digit reporting body, a 12-digit serial and the Luhn check digit."""
    body = f"{prefix}{serial % 10**12:012d}"
    total = 0
    for i, ch in enumerate(body):
        digit = int(ch)
        if i % 2 == 1:
            digit *= 2
            digit = digit - 9 if digit > 9 else digit
        total += digit
    return body + str((10 - total % 10) % 10)


def upgrade_device(ctx: ToolContext, *, phone_number: str, model_id: str) -> dict:
    line = _line(ctx, phone_number)
    _require_line_status(ctx, line, "active", "upgrade their device")
    model = ctx.one("SELECT * FROM device_models WHERE model_id = ?", (model_id,))
    if model is None:
        ctx.fail(f"Device model {model_id} not found.")
    if not model["in_stock"]:
        ctx.fail(f"{model['name']} is out of stock.")
    old = _device_in_use(ctx, phone_number)
    payoff = 0
    if old is not None:
        view = _device_view(ctx, old["device_id"])
        if not view["upgrade_eligible"]:
            ctx.fail(
                f"Device {old['device_id']} on line {phone_number} is not eligible for an upgrade until "
                f"{view['upgrade_eligible_from']} ({view['months_owned']} months owned)."
            )
        if old["model_id"] == model_id:
            ctx.fail(f"Line {phone_number} already uses a {model['name']}; choose a different model.")
        payoff = old["installment_balance_cents"]
        ctx.execute(
            "UPDATE devices SET status = 'replaced', installment_balance_cents = 0, monthly_installment_cents = 0 "
            "WHERE device_id = ?",
            (old["device_id"],),
        )
    bill = _open_bill(ctx, line["customer_id"])
    if payoff > 0:
        _add_bill_item(ctx, bill["bill_id"], phone_number, "device_payoff", "Device payoff (upgrade)", payoff)
    device_id = ctx.next_id("devices", "device_id", "dev_", 6)
    monthly = math.ceil(model["price_cents"] / INSTALLMENT_MONTHS)
    ctx.execute(
        "INSERT INTO devices (device_id, phone_number, model_id, imei, purchased_at, installment_balance_cents, "
        "monthly_installment_cents, status) VALUES (?, ?, ?, ?, ?, ?, ?, 'in_use')",
        (
            device_id,
            phone_number,
            model_id,
            _imei(int(device_id[4:]) * 7919),
            ctx.now[:10],
            model["price_cents"],
            monthly,
        ),
    )
    return {
        "phone_number": phone_number,
        "old_device_id": None if old is None else old["device_id"],
        "payoff_charge": _dollars(payoff),
        "charged_to_bill": bill["bill_id"],
        "new_device": _device_view(ctx, device_id),
    }


# --------------------------------------------------------------------------- tickets


def _title(text: str) -> str:
    """A ticket's subject line: the first sentence of the description, at most 60 characters."""
    first = text.split(". ")[0].rstrip(".")
    return first if len(first) <= 60 else first[:57].rstrip() + "..."


def create_ticket(ctx: ToolContext, *, phone_number: str, category: str, description: str) -> dict:
    if category not in TICKET_CATEGORIES:
        ctx.fail(f"Category must be one of: {', '.join(TICKET_CATEGORIES)}.")
    line = _line(ctx, phone_number)
    same = ctx.one(
        "SELECT ticket_id, status FROM tickets WHERE phone_number = ? AND category = ? AND status IN ('open', 'in_progress') "
        "ORDER BY ticket_id",
        (phone_number, category),
    )
    if same is not None:
        ctx.fail(
            f"Ticket {same['ticket_id']} about {category} on line {phone_number} is still {same['status']}; "
            "a line can have only one open ticket per category."
        )
    if category in NETWORK_CATEGORIES:
        customer = _customer(ctx, line["customer_id"])
        outages = _active_outages(ctx, customer["zip"])
        if outages:
            o = outages[0]
            ctx.fail(
                f"Outage {o['outage_id']} ({o['cause']}) affects zip {customer['zip']} until about "
                f"{o['expected_resolution']}; no network ticket is opened during an active outage in the area."
            )
    text = description.strip()
    if not text:
        ctx.fail("Describe the problem in a few words.")
    ticket_id = ctx.next_id("tickets", "ticket_id", "TKT", 6)
    ctx.execute(
        "INSERT INTO tickets (ticket_id, customer_id, phone_number, category, status, title, description, "
        "created_at, updated_at, resolved_at) VALUES (?, ?, ?, ?, 'open', ?, ?, ?, ?, NULL)",
        (ticket_id, line["customer_id"], phone_number, category, _title(text), text, ctx.now, ctx.now),
    )
    return _ticket_view(ctx, ticket_id)


def close_ticket(ctx: ToolContext, *, ticket_id: str) -> dict:
    ticket = _ticket(ctx, ticket_id)
    if ticket["status"] == "closed":
        ctx.fail(f"Ticket {ticket_id} is already closed.")
    ctx.execute(
        "UPDATE tickets SET status = 'closed', updated_at = ? WHERE ticket_id = ?", (ctx.now, ticket_id)
    )
    return _ticket_view(ctx, ticket_id)


def reopen_ticket(ctx: ToolContext, *, ticket_id: str) -> dict:
    ticket = _ticket(ctx, ticket_id)
    if ticket["status"] != "resolved":
        ctx.fail(f"Ticket {ticket_id} is {ticket['status']}; only resolved tickets can be reopened.")
    resolved = datetime.date.fromisoformat(ticket["resolved_at"][:10])
    if (_today(ctx) - resolved).days > REOPEN_DAYS:
        ctx.fail(
            f"Ticket {ticket_id} was resolved on {resolved.isoformat()}; tickets can be reopened only within "
            f"{REOPEN_DAYS} days of resolution. Open a new ticket instead."
        )
    ctx.execute(
        "UPDATE tickets SET status = 'open', resolved_at = NULL, updated_at = ? WHERE ticket_id = ?",
        (ctx.now, ticket_id),
    )
    return _ticket_view(ctx, ticket_id)


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
        "message": "The conversation has been transferred to a human agent, who will follow up with the customer.",
        "summary": summary,
    }
