"""Banking customer-service tools.

A retail bank: customers (verified by email and home zip code, or by name and the last
four digits of their SSN) hold checking, savings and credit accounts, debit and credit
cards, and saved payees. Money moves as signed transactions on an account (positive in,
negative out); an account's balance always equals the sum of its opening balance and its
transactions. A deposit may be on hold: it is in the balance but not in the available
balance until ``hold_until``. For a credit account the balance is negative while money is
owed, and the available balance is the credit left.

Rules, by object:

* cards: ``inactive -> active`` (activate, not once expired), ``active <-> frozen``,
  ``inactive/active/frozen -> lost/stolen`` with a replacement card issued inactive
  (expedited shipping costs a fee unless the customer is premier); daily limits of debit
  cards within the tier's range;
* transfers between own open accounts, never from a credit account, at most six
  withdrawals in 30 days from a savings account, paying a credit card at most what
  is owed; payments to active saved payees from checking, within the tier's daily limit;
  a checking account with overdraft protection draws a shortfall from the owner's savings;
* scheduled payments: a future date within a year, cancellable while pending and not due
  today;
* disputes: card purchases posted in the last 60 days, once per transaction, with a
  provisional credit up to the tier's threshold;
* fee waivers: at most one every 12 months per customer.

Money is integer cents; outputs show dollars with two decimals. Each function is one
tool: ``tool(ctx, **arguments) -> dict``. Business-rule violations call ``ctx.fail`` so
the runtime rolls the call back and tells the agent why.
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

PAYEE_DAILY_LIMIT = {"standard": 250_000, "plus": 500_000, "premier": 1_000_000}
CARD_LIMIT_MIN = 10_000
CARD_LIMIT_MAX = {"standard": 100_000, "plus": 250_000, "premier": 500_000}
PROVISIONAL_CREDIT_MAX = {"standard": 50_000, "plus": 100_000, "premier": 250_000}
SAVINGS_WITHDRAWALS_PER_30_DAYS = 6
DISPUTE_WINDOW_DAYS = 60
FEE_WAIVER_DAYS = 365
EXPEDITED_FEE = 2_500
SCHEDULE_HORIZON_DAYS = 365
LOSS_REASONS = ("lost", "stolen")
DISPUTE_REASONS = ("not recognized", "duplicate charge", "wrong amount", "not received", "cancelled service")
SHIPPING = ("standard", "expedited")


# --------------------------------------------------------------------------- helpers


def _dollars(cents: int) -> float:
    return round(cents / 100, 2)


def _fmt(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def _cents(dollars: float) -> int:
    return round(dollars * 100)


def _moment(text: str) -> datetime.datetime:
    return datetime.datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")


def _iso(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _today(ctx: ToolContext) -> str:
    return ctx.now[:10]


def _get(ctx: ToolContext, table: str, key: str, value: str, what: str) -> Row:
    row = ctx.one(f"SELECT * FROM {table} WHERE {key} = ?", (value,))
    if row is None:
        ctx.fail(f"{what} {value} not found.")
    return row


def _customer(ctx: ToolContext, customer_id: str) -> Row:
    return _get(ctx, "customers", "customer_id", customer_id, "Customer")


def _account(ctx: ToolContext, account_id: str) -> Row:
    return _get(ctx, "accounts", "account_id", account_id, "Account")


def _card(ctx: ToolContext, card_id: str) -> Row:
    return _get(ctx, "cards", "card_id", card_id, "Card")


def _txn(ctx: ToolContext, transaction_id: str) -> Row:
    return _get(ctx, "transactions", "transaction_id", transaction_id, "Transaction")


def _label(account: Row) -> str:
    return f"{account['name']} ({account['kind']}, ending {account['last_four']})"


def _held(ctx: ToolContext, account_id: str) -> int:
    """Cents of deposits on the account still on hold."""
    return ctx.scalar(
        "SELECT coalesce(SUM(amount_cents), 0) FROM transactions WHERE account_id = ? AND hold_until IS NOT NULL "
        "AND hold_until > ?",
        (account_id, ctx.now),
    )


def _available(ctx: ToolContext, account: Row) -> int:
    if account["kind"] == "credit":
        return account["credit_limit_cents"] + account["balance_cents"]
    return account["balance_cents"] - _held(ctx, account["account_id"])


def _require_open(ctx: ToolContext, account: Row, action: str) -> None:
    if account["status"] != "open":
        ctx.fail(f"Account {_label(account)} is {account['status']}; only open accounts can {action}.")


def _post(
    ctx: ToolContext,
    account_id: str,
    kind: str,
    name: str,
    cents: int,
    *,
    counterparty: str | None = None,
    payee_id: str | None = None,
) -> str:
    """Insert one transaction and move the account balance with it."""
    transaction_id = ctx.next_id("transactions", "transaction_id", "txn_", 7)
    ctx.execute(
        "INSERT INTO transactions (transaction_id, account_id, card_id, kind, name, amount_cents, posted_at, "
        "hold_until, counterparty_account_id, payee_id, dispute_state, waived) "
        "VALUES (?, ?, NULL, ?, ?, ?, ?, NULL, ?, ?, 'without dispute', 0)",
        (transaction_id, account_id, kind, name, cents, ctx.now, counterparty, payee_id),
    )
    ctx.execute(
        "UPDATE accounts SET balance_cents = balance_cents + ? WHERE account_id = ?", (cents, account_id)
    )
    return transaction_id


def _savings_withdrawals(ctx: ToolContext, account_id: str) -> int:
    return ctx.scalar(
        "SELECT COUNT(*) FROM transactions WHERE account_id = ? AND amount_cents < 0 "
        "AND kind IN ('transfer_out', 'payee_payment') AND posted_at > ?",
        (account_id, _iso(_moment(ctx.now) - datetime.timedelta(days=30))),
    )


def _savings_of(ctx: ToolContext, customer_id: str) -> Row | None:
    return ctx.one(
        "SELECT * FROM accounts WHERE customer_id = ? AND kind = 'savings' AND status = 'open' ORDER BY account_id",
        (customer_id,),
    )


def _debit(
    ctx: ToolContext, account: Row, cents: int, kind: str, name: str, **links: str | None
) -> list[str]:
    """Take ``cents`` out of a checking or savings account: from available funds, with an
    overdraft-protection transfer from savings for a shortfall. Returns the transaction ids."""
    available = _available(ctx, account)
    ids: list[str] = []
    if available < cents:
        shortfall = cents - available
        savings = _savings_of(ctx, account["customer_id"]) if account["overdraft_protection"] else None
        if savings is None or _available(ctx, savings) < shortfall:
            covered = (
                " (overdraft protection cannot cover the shortfall)"
                if account["overdraft_protection"]
                else ""
            )
            ctx.fail(
                f"Insufficient funds: {_label(account)} has {_fmt(available)} available, which does not cover "
                f"{_fmt(cents)}{covered}."
            )
        if _savings_withdrawals(ctx, savings["account_id"]) >= SAVINGS_WITHDRAWALS_PER_30_DAYS:
            ctx.fail(
                f"Insufficient funds: {_label(account)} has {_fmt(available)} available, and overdraft protection "
                f"cannot draw from {_label(savings)}, which has reached its {SAVINGS_WITHDRAWALS_PER_30_DAYS} "
                "withdrawals in the last 30 days."
            )
        ids.append(
            _post(
                ctx,
                savings["account_id"],
                "transfer_out",
                "Overdraft protection transfer",
                -shortfall,
                counterparty=account["account_id"],
            )
        )
        ids.append(
            _post(
                ctx,
                account["account_id"],
                "transfer_in",
                "Overdraft protection transfer",
                shortfall,
                counterparty=savings["account_id"],
            )
        )
    ids.append(_post(ctx, account["account_id"], kind, name, -cents, **links))
    return ids


def _account_summary(ctx: ToolContext, account_id: str) -> dict:
    account = _account(ctx, account_id)
    return {
        "account_id": account["account_id"],
        "name": account["name"],
        "balance": _dollars(account["balance_cents"]),
        "available_balance": _dollars(_available(ctx, account)),
    }


def _card_view(ctx: ToolContext, card_id: str) -> dict:
    card = _card(ctx, card_id)
    customer = _customer(ctx, card["customer_id"])
    replaced_by = ctx.scalar(
        "SELECT card_id FROM cards WHERE replaces_card_id = ? ORDER BY card_id", (card_id,)
    )
    limit = card["daily_limit_cents"]
    return {
        "card_id": card["card_id"],
        "customer_id": card["customer_id"],
        "account_id": card["account_id"],
        "kind": card["kind"],
        "name": card["name"],
        "last_four": card["last_four"],
        "status": card["status"],
        "expires": card["expires"],
        "issued_on": card["issued_on"],
        "daily_limit": None if limit is None else _dollars(limit),
        "max_daily_limit": _dollars(CARD_LIMIT_MAX[customer["tier"]]) if card["kind"] == "debit" else None,
        "replaces_card_id": card["replaces_card_id"],
        "replaced_by_card_id": replaced_by,
    }


def _txn_view(ctx: ToolContext, txn: Row) -> dict:
    return {
        "transaction_id": txn["transaction_id"],
        "account_id": txn["account_id"],
        "card_id": txn["card_id"],
        "kind": txn["kind"],
        "name": txn["name"],
        "amount": _dollars(txn["amount_cents"]),
        "posted_at": txn["posted_at"],
        "hold_until": txn["hold_until"],
        "payee_id": txn["payee_id"],
        "dispute_state": txn["dispute_state"],
        "waived": bool(txn["waived"]),
    }


def _scheduled_view(ctx: ToolContext, scheduled_payment_id: str) -> dict:
    row = _get(ctx, "scheduled_payments", "scheduled_payment_id", scheduled_payment_id, "Scheduled payment")
    payee = _get(ctx, "payees", "payee_id", row["payee_id"], "Payee")
    return {
        "scheduled_payment_id": row["scheduled_payment_id"],
        "account_id": row["account_id"],
        "payee_id": row["payee_id"],
        "payee_name": payee["name"],
        "amount": _dollars(row["amount_cents"]),
        "payment_date": row["payment_date"],
        "status": row["status"],
        "created_at": row["created_at"],
    }


def _owned_payee(ctx: ToolContext, payee_id: str, account: Row) -> Row:
    payee = _get(ctx, "payees", "payee_id", payee_id, "Payee")
    if payee["customer_id"] != account["customer_id"]:
        ctx.fail(f"Payee {payee_id} is not a saved payee of the owner of account {account['account_id']}.")
    if payee["status"] != "active":
        ctx.fail(f"Payee {payee['name']} is {payee['status']}; only active payees can be paid.")
    return payee


def _payable_from(ctx: ToolContext, account: Row) -> None:
    _require_open(ctx, account, "make payments")
    if account["kind"] != "checking":
        ctx.fail(
            f"Payments to payees can only be made from a checking account; {_label(account)} is not one."
        )


def _amount(ctx: ToolContext, amount: float) -> int:
    cents = _cents(amount)
    if cents <= 0 or abs(amount * 100 - cents) > 1e-6:
        ctx.fail("The amount must be positive, in dollars with at most two decimals.")
    return cents


# --------------------------------------------------------------------------- identity


def find_customer_by_email(ctx: ToolContext, *, email: str, zip: str) -> dict:
    row = ctx.one("SELECT customer_id, zip FROM customers WHERE email = ?", (email.strip().lower(),))
    if row is None or row["zip"] != zip.strip():
        ctx.fail("No customer matches that email and zip code; identity not verified.")
    return {"customer_id": row["customer_id"]}


def find_customer_by_name(ctx: ToolContext, *, first_name: str, last_name: str, ssn_last_four: str) -> dict:
    rows = ctx.all(
        "SELECT customer_id FROM customers WHERE lower(first_name) = lower(?) AND lower(last_name) = lower(?) "
        "AND ssn_last_four = ? ORDER BY customer_id",
        (first_name.strip(), last_name.strip(), ssn_last_four.strip()),
    )
    if not rows:
        ctx.fail("No customer matches that name and SSN digits; identity not verified.")
    if len(rows) > 1:
        ctx.fail("Several customers match; verify with email and zip code instead.")
    return {"customer_id": rows[0]["customer_id"]}


# --------------------------------------------------------------------------- reads


def get_customer_details(ctx: ToolContext, *, customer_id: str) -> dict:
    customer = _customer(ctx, customer_id)
    accounts = ctx.all(
        "SELECT account_id, kind, name, last_four, status FROM accounts WHERE customer_id = ? ORDER BY account_id",
        (customer_id,),
    )
    cards = ctx.all(
        "SELECT card_id, kind, name, last_four, status FROM cards WHERE customer_id = ? ORDER BY card_id",
        (customer_id,),
    )
    payees = ctx.all(
        "SELECT payee_id, name, kind, status FROM payees WHERE customer_id = ? ORDER BY payee_id",
        (customer_id,),
    )
    scheduled = ctx.all(
        "SELECT s.scheduled_payment_id FROM scheduled_payments s JOIN accounts a ON a.account_id = s.account_id "
        "WHERE a.customer_id = ? ORDER BY s.scheduled_payment_id",
        (customer_id,),
    )
    last = customer["last_fee_waiver_at"]
    next_waiver = None
    if last is not None:
        next_waiver = (_moment(last) + datetime.timedelta(days=FEE_WAIVER_DAYS)).strftime("%Y-%m-%d")
    return {
        "customer_id": customer["customer_id"],
        "first_name": customer["first_name"],
        "last_name": customer["last_name"],
        "email": customer["email"],
        "phone": customer["phone"],
        "address": {k: customer[k] for k in ("address1", "address2", "city", "state", "country", "zip")},
        "tier": customer["tier"],
        "customer_since": customer["customer_since"],
        "last_fee_waiver_at": last,
        "fee_waiver_available": next_waiver is None or next_waiver <= _today(ctx),
        "accounts": [dict(a) for a in accounts],
        "cards": [dict(c) for c in cards],
        "payees": [dict(p) for p in payees],
        "scheduled_payments": [s["scheduled_payment_id"] for s in scheduled],
    }


def get_account_details(ctx: ToolContext, *, account_id: str) -> dict:
    account = _account(ctx, account_id)
    customer = _customer(ctx, account["customer_id"])
    holds = ctx.all(
        "SELECT transaction_id, amount_cents, hold_until FROM transactions WHERE account_id = ? "
        "AND hold_until IS NOT NULL AND hold_until > ? ORDER BY transaction_id",
        (account_id, ctx.now),
    )
    limit = account["credit_limit_cents"]
    kind = account["kind"]
    return {
        "account_id": account["account_id"],
        "customer_id": account["customer_id"],
        "kind": kind,
        "name": account["name"],
        "last_four": account["last_four"],
        "status": account["status"],
        "opened_on": account["opened_on"],
        "balance": _dollars(account["balance_cents"]),
        "available_balance": _dollars(_available(ctx, account)),
        "credit_limit": None if limit is None else _dollars(limit),
        "amount_owed": _dollars(max(0, -account["balance_cents"])) if kind == "credit" else None,
        "overdraft_protection": bool(account["overdraft_protection"]),
        "holds": [
            {
                "transaction_id": h["transaction_id"],
                "amount": _dollars(h["amount_cents"]),
                "available_on": h["hold_until"],
            }
            for h in holds
        ],
        "savings_withdrawals_last_30_days": _savings_withdrawals(ctx, account_id)
        if kind == "savings"
        else None,
        "daily_payee_limit": _dollars(PAYEE_DAILY_LIMIT[customer["tier"]]) if kind == "checking" else None,
    }


def list_account_transactions(ctx: ToolContext, *, account_id: str) -> dict:
    _account(ctx, account_id)
    rows = ctx.all(
        "SELECT * FROM transactions WHERE account_id = ? ORDER BY posted_at DESC, transaction_id DESC",
        (account_id,),
    )
    return {"account_id": account_id, "transactions": [_txn_view(ctx, r) for r in rows]}


def get_transaction_details(ctx: ToolContext, *, transaction_id: str) -> dict:
    view = _txn_view(ctx, _txn(ctx, transaction_id))
    dispute = ctx.one(
        "SELECT * FROM disputes WHERE transaction_id = ? ORDER BY dispute_id DESC", (transaction_id,)
    )
    view["dispute"] = (
        None
        if dispute is None
        else {
            "dispute_id": dispute["dispute_id"],
            "status": dispute["status"],
            "reason": dispute["reason"],
            "provisional_credit": _dollars(dispute["provisional_credit_cents"]),
            "opened_at": dispute["opened_at"],
        }
    )
    return view


def get_card_details(ctx: ToolContext, *, card_id: str) -> dict:
    return _card_view(ctx, card_id)


def get_statement(ctx: ToolContext, *, account_id: str, month: str) -> dict:
    account = _account(ctx, account_id)
    row = ctx.one("SELECT * FROM statements WHERE account_id = ? AND month = ?", (account_id, month))
    if row is None:
        ctx.fail(
            f"No statement for {_label(account)} for {month}; statements exist only for completed months."
        )
    return {
        "statement_id": row["statement_id"],
        "account_id": account_id,
        "month": row["month"],
        "opening_balance": _dollars(row["opening_balance_cents"]),
        "closing_balance": _dollars(row["closing_balance_cents"]),
        "credits": _dollars(row["credits_cents"]),
        "debits": _dollars(row["debits_cents"]),
        "fees": _dollars(row["fees_cents"]),
    }


def get_scheduled_payment(ctx: ToolContext, *, schedule_id: str) -> dict:
    return _scheduled_view(ctx, schedule_id)


# --------------------------------------------------------------------------- cards


def _card_status(ctx: ToolContext, card: Row, allowed: tuple[str, ...], action: str) -> None:
    if card["status"] not in allowed:
        ctx.fail(
            f"Card ending {card['last_four']} is {card['status']}; only {' or '.join(allowed)} cards can {action}."
        )


def activate_card(ctx: ToolContext, *, card_id: str) -> dict:
    card = _card(ctx, card_id)
    _card_status(ctx, card, ("inactive",), "be activated")
    if card["expires"] < ctx.now[:7]:
        ctx.fail(f"Card ending {card['last_four']} expired in {card['expires']} and cannot be activated.")
    _require_open(ctx, _account(ctx, card["account_id"]), "have cards activated")
    ctx.execute("UPDATE cards SET status = 'active' WHERE card_id = ?", (card_id,))
    return _card_view(ctx, card_id)


def freeze_card(ctx: ToolContext, *, card_id: str) -> dict:
    card = _card(ctx, card_id)
    _card_status(ctx, card, ("active",), "be frozen")
    ctx.execute("UPDATE cards SET status = 'frozen' WHERE card_id = ?", (card_id,))
    return _card_view(ctx, card_id)


def unfreeze_card(ctx: ToolContext, *, card_id: str) -> dict:
    card = _card(ctx, card_id)
    _card_status(ctx, card, ("frozen",), "be unfrozen")
    _require_open(ctx, _account(ctx, card["account_id"]), "have cards unfrozen")
    ctx.execute("UPDATE cards SET status = 'active' WHERE card_id = ?", (card_id,))
    return _card_view(ctx, card_id)


def _new_last_four(ctx: ToolContext, card: Row, card_id: str) -> str:
    number = int(card_id.rsplit("_", 1)[1])
    candidate = (int(card["last_four"]) * 7 + number * 389 + 1234) % 10000
    taken = {
        r["last_four"]
        for r in ctx.all("SELECT last_four FROM cards WHERE customer_id = ?", (card["customer_id"],))
    }
    while f"{candidate:04d}" in taken:
        candidate = (candidate + 1) % 10000
    return f"{candidate:04d}"


def report_card_lost(ctx: ToolContext, *, card_id: str, reason: str, shipping: str) -> dict:
    if reason not in LOSS_REASONS:
        ctx.fail(f"Reason must be one of: {', '.join(LOSS_REASONS)}.")
    if shipping not in SHIPPING:
        ctx.fail(f"Shipping must be one of: {', '.join(SHIPPING)}.")
    card = _card(ctx, card_id)
    _card_status(ctx, card, ("inactive", "active", "frozen"), "be reported lost or stolen")
    account = _account(ctx, card["account_id"])
    if account["status"] == "closed":
        ctx.fail(f"The account of card ending {card['last_four']} is closed; no replacement can be issued.")
    customer = _customer(ctx, card["customer_id"])
    fee = EXPEDITED_FEE if shipping == "expedited" and customer["tier"] != "premier" else 0
    ctx.execute("UPDATE cards SET status = ? WHERE card_id = ?", (reason, card_id))
    new_id = ctx.next_id("cards", "card_id", "card_", 6)
    today = _today(ctx)
    expires = f"{int(today[:4]) + 4}-{today[5:7]}"
    ctx.execute(
        "INSERT INTO cards (card_id, customer_id, account_id, kind, name, last_four, status, expires, "
        "daily_limit_cents, replaces_card_id, issued_on) VALUES (?, ?, ?, ?, ?, ?, 'inactive', ?, ?, ?, ?)",
        (
            new_id,
            card["customer_id"],
            card["account_id"],
            card["kind"],
            card["name"],
            _new_last_four(ctx, card, new_id),
            expires,
            card["daily_limit_cents"],
            card_id,
            today,
        ),
    )
    if fee:
        _post(ctx, card["account_id"], "fee", "Expedited card delivery fee", -fee)
    view = _card_view(ctx, card_id)
    new = _card_view(ctx, new_id)
    return {
        "card_id": card_id,
        "status": view["status"],
        "replacement": {
            "card_id": new["card_id"],
            "last_four": new["last_four"],
            "status": new["status"],
            "expires": new["expires"],
            "shipping": shipping,
            "arrives_in": "1-2 business days" if shipping == "expedited" else "7-10 business days",
        },
        "fee": _dollars(fee),
    }


def update_card_limit(ctx: ToolContext, *, card_id: str, daily_limit: float) -> dict:
    card = _card(ctx, card_id)
    _card_status(ctx, card, ("active", "frozen"), "have their limit changed")
    if card["kind"] != "debit":
        ctx.fail("Only debit card daily limits can be changed here; credit limits need a credit review.")
    cents = _amount(ctx, daily_limit)
    tier = _customer(ctx, card["customer_id"])["tier"]
    top = CARD_LIMIT_MAX[tier]
    if cents < CARD_LIMIT_MIN or cents > top:
        ctx.fail(
            f"The daily limit must be between {_fmt(CARD_LIMIT_MIN)} and {_fmt(top)} for a {tier} customer."
        )
    if cents == card["daily_limit_cents"]:
        ctx.fail(f"The daily limit of card ending {card['last_four']} is already {_fmt(cents)}.")
    ctx.execute("UPDATE cards SET daily_limit_cents = ? WHERE card_id = ?", (cents, card_id))
    return _card_view(ctx, card_id)


# --------------------------------------------------------------------------- money movement


def transfer_between_accounts(
    ctx: ToolContext, *, from_account_id: str, to_account_id: str, amount: float
) -> dict:
    source = _account(ctx, from_account_id)
    target = _account(ctx, to_account_id)
    if from_account_id == to_account_id:
        ctx.fail("The two accounts must be different.")
    if source["customer_id"] != target["customer_id"]:
        ctx.fail("Transfers between accounts are only possible between accounts of the same customer.")
    _require_open(ctx, source, "send transfers")
    _require_open(ctx, target, "receive transfers")
    if source["kind"] == "credit":
        ctx.fail("Money cannot be transferred out of a credit account (cash advances are not offered here).")
    cents = _amount(ctx, amount)
    if target["kind"] == "credit":
        owed = max(0, -target["balance_cents"])
        if cents > owed:
            ctx.fail(f"{_label(target)} has {_fmt(owed)} owed; a card payment cannot be more than that.")
    if (
        source["kind"] == "savings"
        and _savings_withdrawals(ctx, from_account_id) >= SAVINGS_WITHDRAWALS_PER_30_DAYS
    ):
        ctx.fail(
            f"{_label(source)} has already had {SAVINGS_WITHDRAWALS_PER_30_DAYS} withdrawals in the last 30 days, "
            "the most a savings account allows."
        )
    if source["kind"] == "savings" and _available(ctx, source) < cents:
        ctx.fail(f"Insufficient funds: {_label(source)} has {_fmt(_available(ctx, source))} available.")
    kind_in = "card_payment" if target["kind"] == "credit" else "transfer_in"
    ids = _debit(
        ctx,
        source,
        cents,
        "transfer_out",
        f"Transfer to {target['name']} {target['last_four']}",
        counterparty=to_account_id,
    )
    ids.append(
        _post(
            ctx,
            to_account_id,
            kind_in,
            f"Transfer from {source['name']} {source['last_four']}",
            cents,
            counterparty=from_account_id,
        )
    )
    return {
        "from_account": _account_summary(ctx, from_account_id),
        "to_account": _account_summary(ctx, to_account_id),
        "amount": _dollars(cents),
        "transaction_ids": ids,
    }


def _sent_today(ctx: ToolContext, customer_id: str) -> int:
    return -ctx.scalar(
        "SELECT coalesce(SUM(t.amount_cents), 0) FROM transactions t JOIN accounts a ON a.account_id = t.account_id "
        "WHERE a.customer_id = ? AND t.kind = 'payee_payment' AND substr(t.posted_at, 1, 10) = ?",
        (customer_id, _today(ctx)),
    )


def send_to_payee(ctx: ToolContext, *, from_account_id: str, payee_id: str, amount: float) -> dict:
    account = _account(ctx, from_account_id)
    _payable_from(ctx, account)
    payee = _owned_payee(ctx, payee_id, account)
    cents = _amount(ctx, amount)
    tier = _customer(ctx, account["customer_id"])["tier"]
    sent = _sent_today(ctx, account["customer_id"])
    limit = PAYEE_DAILY_LIMIT[tier]
    if sent + cents > limit:
        ctx.fail(
            f"This payment would exceed the daily payee limit of {_fmt(limit)} for a {tier} customer "
            f"({_fmt(sent)} already sent today)."
        )
    ids = _debit(ctx, account, cents, "payee_payment", f"Payment to {payee['name']}", payee_id=payee_id)
    return {
        "account": _account_summary(ctx, from_account_id),
        "payee_id": payee_id,
        "payee_name": payee["name"],
        "amount": _dollars(cents),
        "sent_today": _dollars(sent + cents),
        "daily_limit": _dollars(limit),
        "transaction_ids": ids,
    }


def schedule_payment(
    ctx: ToolContext, *, from_account_id: str, payee_id: str, amount: float, payment_date: str
) -> dict:
    account = _account(ctx, from_account_id)
    _payable_from(ctx, account)
    _owned_payee(ctx, payee_id, account)
    cents = _amount(ctx, amount)
    try:
        day = datetime.date.fromisoformat(payment_date)
    except ValueError:
        ctx.fail("payment_date must be a date, YYYY-MM-DD.")
    today = datetime.date.fromisoformat(_today(ctx))
    if day <= today:
        ctx.fail("A payment can only be scheduled for a future date; use send_to_payee to pay today.")
    if day > today + datetime.timedelta(days=SCHEDULE_HORIZON_DAYS):
        ctx.fail(f"A payment can be scheduled at most {SCHEDULE_HORIZON_DAYS} days ahead.")
    tier = _customer(ctx, account["customer_id"])["tier"]
    if cents > PAYEE_DAILY_LIMIT[tier]:
        ctx.fail(
            f"The amount exceeds the daily payee limit of {_fmt(PAYEE_DAILY_LIMIT[tier])} for a {tier} customer."
        )
    duplicate = ctx.one(
        "SELECT scheduled_payment_id FROM scheduled_payments WHERE account_id = ? AND payee_id = ? AND payment_date = ? "
        "AND status = 'pending'",
        (from_account_id, payee_id, payment_date),
    )
    if duplicate is not None:
        ctx.fail(
            f"A payment to this payee is already scheduled for {payment_date} ({duplicate['scheduled_payment_id']})."
        )
    new_id = ctx.next_id("scheduled_payments", "scheduled_payment_id", "sched_", 6)
    ctx.execute(
        "INSERT INTO scheduled_payments (scheduled_payment_id, account_id, payee_id, amount_cents, payment_date, status, "
        "created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?)",
        (new_id, from_account_id, payee_id, cents, payment_date, ctx.now),
    )
    return _scheduled_view(ctx, new_id)


def cancel_scheduled_payment(ctx: ToolContext, *, schedule_id: str) -> dict:
    row = _get(ctx, "scheduled_payments", "scheduled_payment_id", schedule_id, "Scheduled payment")
    if row["status"] != "pending":
        ctx.fail(
            f"Scheduled payment {schedule_id} is {row['status']}; only pending scheduled payments can be cancelled."
        )
    if row["payment_date"] <= _today(ctx):
        ctx.fail(
            f"Scheduled payment {schedule_id} is due today and already processing; it cannot be cancelled."
        )
    ctx.execute(
        "UPDATE scheduled_payments SET status = 'cancelled' WHERE scheduled_payment_id = ?",
        (schedule_id,),
    )
    return _scheduled_view(ctx, schedule_id)


# --------------------------------------------------------------------------- disputes, settings, fees


def file_dispute(ctx: ToolContext, *, transaction_id: str, reason: str) -> dict:
    if reason not in DISPUTE_REASONS:
        ctx.fail(f"Reason must be one of: {', '.join(DISPUTE_REASONS)}.")
    txn = _txn(ctx, transaction_id)
    if txn["kind"] != "card_purchase":
        ctx.fail(
            f"Only card purchases can be disputed; transaction {transaction_id} is a {txn['kind'].replace('_', ' ')}."
        )
    if txn["dispute_state"] != "without dispute":
        ctx.fail(f"Transaction {transaction_id} has already been disputed (dispute {txn['dispute_state']}).")
    age = _moment(ctx.now) - _moment(txn["posted_at"])
    if age > datetime.timedelta(days=DISPUTE_WINDOW_DAYS):
        ctx.fail(
            f"Transaction {transaction_id} posted on {txn['posted_at'][:10]}, more than {DISPUTE_WINDOW_DAYS} days ago; "
            "it can no longer be disputed."
        )
    account = _account(ctx, txn["account_id"])
    if account["status"] == "closed":
        ctx.fail(f"{_label(account)} is closed; disputes on it go to a human agent.")
    tier = _customer(ctx, account["customer_id"])["tier"]
    cents = -txn["amount_cents"]
    credit = cents if cents <= PROVISIONAL_CREDIT_MAX[tier] else 0
    dispute_id = ctx.next_id("disputes", "dispute_id", "dsp_", 6)
    ctx.execute(
        "INSERT INTO disputes (dispute_id, transaction_id, reason, status, provisional_credit_cents, opened_at) "
        "VALUES (?, ?, ?, 'open', ?, ?)",
        (dispute_id, transaction_id, reason, credit, ctx.now),
    )
    ctx.execute("UPDATE transactions SET dispute_state = 'open' WHERE transaction_id = ?", (transaction_id,))
    if credit:
        _post(ctx, txn["account_id"], "provisional_credit", f"Provisional credit: {txn['name']}", credit)
    return {
        "dispute_id": dispute_id,
        "transaction_id": transaction_id,
        "status": "open",
        "reason": reason,
        "provisional_credit": _dollars(credit),
        "account": _account_summary(ctx, txn["account_id"]),
    }


def set_overdraft_protection(ctx: ToolContext, *, account_id: str, setting: str) -> dict:
    if setting not in ("on", "off"):
        ctx.fail("Setting must be 'on' or 'off'.")
    account = _account(ctx, account_id)
    if account["kind"] != "checking":
        ctx.fail(f"Overdraft protection is only for checking accounts; {_label(account)} is not one.")
    _require_open(ctx, account, "change overdraft protection")
    enabled = 1 if setting == "on" else 0
    if account["overdraft_protection"] == enabled:
        ctx.fail(f"Overdraft protection on {_label(account)} is already {setting}.")
    if enabled and _savings_of(ctx, account["customer_id"]) is None:
        ctx.fail("Overdraft protection needs an open savings account of the same customer to draw from.")
    ctx.execute("UPDATE accounts SET overdraft_protection = ? WHERE account_id = ?", (enabled, account_id))
    savings = _savings_of(ctx, account["customer_id"]) if enabled else None
    return {
        "account_id": account_id,
        "overdraft_protection": bool(enabled),
        "linked_savings_account_id": None if savings is None else savings["account_id"],
    }


def waive_fee(ctx: ToolContext, *, transaction_id: str) -> dict:
    txn = _txn(ctx, transaction_id)
    if txn["kind"] != "fee":
        ctx.fail(f"Transaction {transaction_id} is not a fee; only fees can be waived.")
    if txn["waived"]:
        ctx.fail(f"The fee {transaction_id} has already been waived.")
    account = _account(ctx, txn["account_id"])
    _require_open(ctx, account, "have fees waived")
    customer = _customer(ctx, account["customer_id"])
    last = customer["last_fee_waiver_at"]
    if last is not None:
        next_day = _moment(last) + datetime.timedelta(days=FEE_WAIVER_DAYS)
        if next_day > _moment(ctx.now):
            ctx.fail(
                f"A fee was already waived for this customer on {last[:10]}; fees can be waived once every 12 months "
                f"(next from {next_day:%Y-%m-%d})."
            )
    cents = -txn["amount_cents"]
    refund_id = _post(ctx, txn["account_id"], "fee_refund", f"Fee refund: {txn['name']}", cents)
    ctx.execute("UPDATE transactions SET waived = 1 WHERE transaction_id = ?", (transaction_id,))
    ctx.execute(
        "UPDATE customers SET last_fee_waiver_at = ? WHERE customer_id = ?",
        (ctx.now, customer["customer_id"]),
    )
    return {
        "transaction_id": transaction_id,
        "refund_transaction_id": refund_id,
        "amount": _dollars(cents),
        "account": _account_summary(ctx, txn["account_id"]),
    }


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
