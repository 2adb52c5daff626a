"""Banking business rules: every rule a tool enforces is refused cleanly (state untouched),
and the happy paths move money exactly."""

from __future__ import annotations

import datetime
from collections import Counter, defaultdict
from typing import Any

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.runtime import Toolbox, dump_state, state_hash

NOW = datetime.datetime(2026, 6, 1, 12, 0)


# --------------------------------------------------------------------------- helpers


class Seed:
    """Indexes over the seed state, for finding rows that fit a test."""

    def __init__(self, state: dict[str, list[dict[str, Any]]]) -> None:
        self.state = state
        self.customers = {c["customer_id"]: c for c in state["customers"]}
        self.accounts = {a["account_id"]: a for a in state["accounts"]}
        self.by_customer: dict[str, list[dict]] = defaultdict(list)
        for a in state["accounts"]:
            self.by_customer[a["customer_id"]].append(a)

    def tier(self, account_id: str) -> str:
        return self.customers[self.accounts[account_id]["customer_id"]]["tier"]

    def accounts_with(self, **fields: Any) -> list[dict]:
        return [a for a in self.state["accounts"] if all(a[k] == v for k, v in fields.items())]

    def cards_with(self, **fields: Any) -> list[dict]:
        return [c for c in self.state["cards"] if all(c[k] == v for k, v in fields.items())]

    def txns_with(self, **fields: Any) -> list[dict]:
        return [t for t in self.state["transactions"] if all(t[k] == v for k, v in fields.items())]

    def own(self, customer_id: str, kind: str, status: str = "open") -> dict | None:
        return next(
            (a for a in self.by_customer[customer_id] if a["kind"] == kind and a["status"] == status), None
        )

    def savings_withdrawals(self, account_id: str) -> int:
        since = (NOW - datetime.timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return sum(
            1
            for t in self.state["transactions"]
            if t["account_id"] == account_id
            and t["amount_cents"] < 0
            and t["kind"] in ("transfer_out", "payee_payment")
            and t["posted_at"] > since
        )

    def held(self, account_id: str) -> int:
        return sum(
            t["amount_cents"]
            for t in self.state["transactions"]
            if t["account_id"] == account_id and t["hold_until"] and t["hold_until"] > "2026-06-01T12:00:00Z"
        )

    def available(self, account_id: str) -> int:
        a = self.accounts[account_id]
        if a["kind"] == "credit":
            return a["credit_limit_cents"] + a["balance_cents"]
        return a["balance_cents"] - self.held(account_id)

    def active_payee(self, customer_id: str) -> dict:
        return next(
            p for p in self.state["payees"] if p["customer_id"] == customer_id and p["status"] == "active"
        )

    def stranger_payee(self, customer_id: str) -> dict:
        return next(
            p for p in self.state["payees"] if p["customer_id"] != customer_id and p["status"] == "active"
        )

    def checking_with_payee(self, **fields: Any) -> tuple[dict, dict]:
        for a in self.accounts_with(kind="checking", status="open", **fields):
            payees = [
                p
                for p in self.state["payees"]
                if p["customer_id"] == a["customer_id"] and p["status"] == "active"
            ]
            if payees:
                return a, payees[0]
        pytest.fail("no open checking account with an active payee")


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
        assert out.error is not None
        assert phrase.lower() in out.error.lower(), out.error
        assert state_hash(self.db) == before
        return out.error

    def ok(self, tool: str, **args: Any) -> tuple[dict, dict, dict]:
        """A successful call that changes only declared tables. Returns (output, before, after)."""
        before = dump_state(self.db)
        out = self.toolbox.call(self.db, tool, args)
        assert out.ok, out.error
        after = dump_state(self.db)
        changed = {t for t in before if before[t] != after[t]}
        assert changed <= self.toolbox.tools[tool].writes, (tool, changed)
        assert out.output is not None
        return out.output, before, after

    def set(self, table: str, key: str, value: str, **fields: Any) -> None:
        """Test set-up outside the tools."""
        assignments = ", ".join(f"{k} = ?" for k in fields)
        self.db.execute(f"UPDATE {table} SET {assignments} WHERE {key} = ?", (*fields.values(), value))

    def balance(self, account_id: str) -> int:
        return self.db.execute(
            "SELECT balance_cents FROM accounts WHERE account_id = ?", (account_id,)
        ).fetchone()[0]


def new_rows(before: dict, after: dict, table: str, key: str) -> list[dict]:
    old = {r[key] for r in before[table]}
    return [r for r in after[table] if r[key] not in old]


@pytest.fixture(scope="module")
def banking_env() -> Environment:
    return build_env(load_blueprint("banking"))


@pytest.fixture(scope="module")
def seed(banking_env) -> Seed:
    return Seed(banking_env.seed_state)


@pytest.fixture(scope="module")
def toolbox(banking_env) -> Toolbox:
    return banking_env.toolbox()


@pytest.fixture
def desk(banking_env, toolbox):
    session = banking_env.new_session()
    yield Desk(toolbox, session.db)
    session.close()


# --------------------------------------------------------------------------- identity, lookups


def test_identity_by_email_and_zip_or_by_name_and_ssn(desk, seed):
    c = seed.state["customers"][4]
    out, _, _ = desk.ok("find_customer_by_email", email=c["email"].upper(), zip=c["zip"])
    assert out == {"customer_id": c["customer_id"]}
    out, _, _ = desk.ok(
        "find_customer_by_name",
        first_name=c["first_name"].lower(),
        last_name=c["last_name"],
        ssn_last_four=c["ssn_last_four"],
    )
    assert out == {"customer_id": c["customer_id"]}
    wrong_zip = "00000" if c["zip"] != "00000" else "99999"
    desk.refused("find_customer_by_email", "identity not verified", email=c["email"], zip=wrong_zip)
    desk.refused(
        "find_customer_by_email", "identity not verified", email="nobody@nowhere.example", zip=c["zip"]
    )
    wrong_ssn = f"{(int(c['ssn_last_four']) + 1) % 10000:04d}"
    desk.refused(
        "find_customer_by_name",
        "identity not verified",
        first_name=c["first_name"],
        last_name=c["last_name"],
        ssn_last_four=wrong_ssn,
    )


def test_name_lookup_refuses_an_ambiguous_match(desk, seed):
    a, b = seed.state["customers"][:2]
    desk.set(
        "customers",
        "customer_id",
        b["customer_id"],
        first_name=a["first_name"],
        last_name=a["last_name"],
        ssn_last_four=a["ssn_last_four"],
    )
    desk.refused(
        "find_customer_by_name",
        "several customers match",
        first_name=a["first_name"],
        last_name=a["last_name"],
        ssn_last_four=a["ssn_last_four"],
    )


def test_unknown_ids_and_missing_statements_are_refused(desk, seed):
    desk.refused("get_customer_details", "customer cust_999999 not found", customer_id="cust_999999")
    desk.refused("get_account_details", "account acct_999999 not found", account_id="acct_999999")
    desk.refused("get_card_details", "card card_999999 not found", card_id="card_999999")
    desk.refused("get_transaction_details", "txn_9999999 not found", transaction_id="txn_9999999")
    desk.refused("get_scheduled_payment", "sched_999999 not found", schedule_id="sched_999999")
    desk.refused("freeze_card", "not found", card_id="card_999999")
    account = seed.accounts_with(kind="checking", status="open")[0]
    desk.refused("get_statement", "no statement", account_id=account["account_id"], month="2026-06")
    desk.refused(
        "send_to_payee",
        "payee payee_999999 not found",
        from_account_id=account["account_id"],
        payee_id="payee_999999",
        amount=10.0,
    )


def test_invalid_arguments_are_rejected_before_the_tool_runs(desk, seed):
    card = seed.cards_with(status="active")[0]
    desk.refused(
        "report_card_lost",
        "invalid arguments",
        card_id=card["card_id"],
        reason="misplaced",
        shipping="standard",
    )
    desk.refused("freeze_card", "invalid arguments", card_id="card_1")
    account = seed.accounts_with(kind="checking", status="open")[0]
    other = seed.accounts_with(kind="savings", status="open")[0]
    desk.refused(
        "transfer_between_accounts",
        "invalid arguments",
        from_account_id=account["account_id"],
        to_account_id=other["account_id"],
        amount=-5.0,
    )
    desk.refused(
        "set_overdraft_protection", "invalid arguments", account_id=account["account_id"], setting="yes"
    )


def test_reads_show_balances_holds_and_statements(desk, seed):
    held = next(t for t in seed.txns_with(kind="deposit") if t["hold_until"] > "2026-06-01T12:00:00Z")
    aid = held["account_id"]
    out, _, _ = desk.ok("get_account_details", account_id=aid)
    assert out["balance"] == seed.accounts[aid]["balance_cents"] / 100
    assert out["available_balance"] == round(seed.available(aid) / 100, 2)
    assert out["available_balance"] < out["balance"]
    assert held["transaction_id"] in [h["transaction_id"] for h in out["holds"]]
    statement = next(
        s for s in seed.state["statements"] if s["account_id"] == aid and s["month"] == "2026-05"
    )
    out, _, _ = desk.ok("get_statement", account_id=aid, month="2026-05")
    assert out["closing_balance"] == statement["closing_balance_cents"] / 100
    out, _, _ = desk.ok("list_account_transactions", account_id=aid)
    assert len(out["transactions"]) == len(seed.txns_with(account_id=aid))


# --------------------------------------------------------------------------- cards


def test_card_state_machine_is_enforced(desk, seed):
    active = seed.cards_with(status="active")[0]
    frozen = seed.cards_with(status="frozen")[0]
    lost = next(c for c in seed.state["cards"] if c["status"] in ("lost", "stolen"))
    desk.refused("activate_card", "only inactive cards can be activated", card_id=active["card_id"])
    desk.refused("freeze_card", "only active cards can be frozen", card_id=frozen["card_id"])
    desk.refused("unfreeze_card", "only frozen cards can be unfrozen", card_id=active["card_id"])
    desk.refused(
        "report_card_lost",
        "be reported lost or stolen",
        card_id=lost["card_id"],
        reason="lost",
        shipping="standard",
    )
    desk.refused("update_card_limit", "have their limit changed", card_id=lost["card_id"], daily_limit=500.0)
    out, _, _ = desk.ok("freeze_card", card_id=active["card_id"])
    assert out["status"] == "frozen"
    out, _, _ = desk.ok("unfreeze_card", card_id=active["card_id"])
    assert out["status"] == "active"


def test_expired_cards_and_cards_of_frozen_accounts_cannot_be_activated(desk, seed):
    inactive = seed.cards_with(status="inactive")
    expired = next(c for c in inactive if c["expires"] < "2026-06")
    desk.refused("activate_card", "expired", card_id=expired["card_id"])
    fresh = next(c for c in inactive if c["expires"] >= "2026-06")
    desk.set("accounts", "account_id", fresh["account_id"], status="frozen")
    desk.refused("activate_card", "only open accounts", card_id=fresh["card_id"])
    desk.set("accounts", "account_id", fresh["account_id"], status="open")
    out, _, _ = desk.ok("activate_card", card_id=fresh["card_id"])
    assert out["status"] == "active"


def test_a_card_of_a_frozen_account_stays_frozen(desk, seed):
    frozen = seed.cards_with(status="frozen")[0]
    desk.set("accounts", "account_id", frozen["account_id"], status="frozen")
    desk.refused("unfreeze_card", "only open accounts", card_id=frozen["card_id"])


def test_report_lost_issues_a_replacement_and_charges_expedited_shipping(desk, seed):
    card = next(
        c for c in seed.cards_with(status="active", kind="debit") if seed.tier(c["account_id"]) != "premier"
    )
    balance = desk.balance(card["account_id"])
    out, before, after = desk.ok(
        "report_card_lost", card_id=card["card_id"], reason="stolen", shipping="expedited"
    )
    assert out["status"] == "stolen" and out["fee"] == 25.0
    (new,) = new_rows(before, after, "cards", "card_id")
    assert new["replaces_card_id"] == card["card_id"] and new["status"] == "inactive"
    assert new["account_id"] == card["account_id"] and new["last_four"] != card["last_four"]
    assert new["daily_limit_cents"] == card["daily_limit_cents"]
    assert out["replacement"]["card_id"] == new["card_id"]
    assert desk.balance(card["account_id"]) == balance - 2500
    (fee,) = new_rows(before, after, "transactions", "transaction_id")
    assert fee["kind"] == "fee" and fee["amount_cents"] == -2500
    again, _, _ = desk.ok("get_card_details", card_id=card["card_id"])
    assert again["replaced_by_card_id"] == new["card_id"]


def test_premier_customers_get_expedited_shipping_free(desk, seed):
    card = next(c for c in seed.cards_with(status="active") if seed.tier(c["account_id"]) == "premier")
    out, before, after = desk.ok(
        "report_card_lost", card_id=card["card_id"], reason="lost", shipping="expedited"
    )
    assert out["fee"] == 0.0
    assert new_rows(before, after, "transactions", "transaction_id") == []


def test_no_replacement_on_a_closed_account(desk, seed):
    card = seed.cards_with(status="active")[0]
    desk.set("accounts", "account_id", card["account_id"], status="closed")
    desk.refused("report_card_lost", "is closed", card_id=card["card_id"], reason="lost", shipping="standard")


def test_debit_limits_stay_within_the_tier_range(desk, seed):
    credit = seed.cards_with(status="active", kind="credit")[0]
    desk.refused("update_card_limit", "only debit card", card_id=credit["card_id"], daily_limit=500.0)
    debit = next(
        c for c in seed.cards_with(status="active", kind="debit") if seed.tier(c["account_id"]) == "standard"
    )
    desk.refused(
        "update_card_limit", "between $100.00 and $1,000.00", card_id=debit["card_id"], daily_limit=1500.0
    )
    desk.refused("update_card_limit", "between $100.00", card_id=debit["card_id"], daily_limit=50.0)
    desk.refused("update_card_limit", "two decimals", card_id=debit["card_id"], daily_limit=300.555)
    current = debit["daily_limit_cents"] / 100
    desk.refused("update_card_limit", "already", card_id=debit["card_id"], daily_limit=current)
    target = 900.0 if current != 900.0 else 800.0
    out, _, _ = desk.ok("update_card_limit", card_id=debit["card_id"], daily_limit=target)
    assert out["daily_limit"] == target and out["max_daily_limit"] == 1000.0


# --------------------------------------------------------------------------- transfers between own accounts


def _pair(seed: Seed, source_kind: str, target_kind: str, want=lambda s, t: True) -> tuple[dict, dict]:
    for customer_id in list(seed.by_customer):
        source = seed.own(customer_id, source_kind)
        target = seed.own(customer_id, target_kind)
        if source and target and source is not target and want(source, target):
            return source, target
    pytest.fail(f"no customer with open {source_kind} and {target_kind}")


def test_transfers_need_two_different_open_accounts_of_one_customer(desk, seed):
    checking, savings = _pair(seed, "checking", "savings")
    cid, sid = checking["account_id"], savings["account_id"]
    desk.refused(
        "transfer_between_accounts", "must be different", from_account_id=cid, to_account_id=cid, amount=5.0
    )
    stranger = next(
        a for a in seed.accounts_with(status="open") if a["customer_id"] != checking["customer_id"]
    )
    desk.refused(
        "transfer_between_accounts",
        "same customer",
        from_account_id=cid,
        to_account_id=stranger["account_id"],
        amount=5.0,
    )
    desk.set("accounts", "account_id", cid, status="frozen")
    desk.refused(
        "transfer_between_accounts", "only open accounts", from_account_id=cid, to_account_id=sid, amount=5.0
    )
    desk.set("accounts", "account_id", cid, status="open")
    desk.set("accounts", "account_id", sid, status="closed")
    desk.refused(
        "transfer_between_accounts", "receive transfers", from_account_id=cid, to_account_id=sid, amount=5.0
    )


def test_no_transfer_out_of_a_credit_account_and_no_overpaying_a_card(desk, seed):
    checking, credit = _pair(seed, "checking", "credit", lambda s, t: t["balance_cents"] < 0)
    desk.refused(
        "transfer_between_accounts",
        "out of a credit account",
        from_account_id=credit["account_id"],
        to_account_id=checking["account_id"],
        amount=5.0,
    )
    owed = -credit["balance_cents"]
    desk.refused(
        "transfer_between_accounts",
        "cannot be more than that",
        from_account_id=checking["account_id"],
        to_account_id=credit["account_id"],
        amount=(owed + 100) / 100,
    )


def test_paying_a_card_moves_money_exactly(desk, seed):
    checking, credit = _pair(
        seed,
        "checking",
        "credit",
        lambda s, t: t["balance_cents"] <= -5000 and seed.available(s["account_id"]) >= 5000,
    )
    out, before, after = desk.ok(
        "transfer_between_accounts",
        from_account_id=checking["account_id"],
        to_account_id=credit["account_id"],
        amount=50.0,
    )
    assert desk.balance(checking["account_id"]) == checking["balance_cents"] - 5000
    assert desk.balance(credit["account_id"]) == credit["balance_cents"] + 5000
    kinds = sorted(t["kind"] for t in new_rows(before, after, "transactions", "transaction_id"))
    assert kinds == ["card_payment", "transfer_out"]
    assert out["from_account"]["available_balance"] == round(
        (seed.available(checking["account_id"]) - 5000) / 100, 2
    )


def test_savings_allow_six_withdrawals_in_30_days(desk, seed):
    savings, checking = _pair(
        seed, "savings", "checking", lambda s, t: seed.savings_withdrawals(s["account_id"]) >= 6
    )
    desk.refused(
        "transfer_between_accounts",
        "6 withdrawals in the last 30 days",
        from_account_id=savings["account_id"],
        to_account_id=checking["account_id"],
        amount=1.0,
    )


def test_savings_cannot_move_more_than_is_available(desk, seed):
    savings, checking = _pair(
        seed, "savings", "checking", lambda s, t: seed.savings_withdrawals(s["account_id"]) < 6
    )
    too_much = (seed.available(savings["account_id"]) + 100) / 100
    desk.refused(
        "transfer_between_accounts",
        "insufficient funds",
        from_account_id=savings["account_id"],
        to_account_id=checking["account_id"],
        amount=too_much,
    )


def test_held_deposits_are_not_available(desk, seed):
    held = next(
        t
        for t in seed.txns_with(kind="deposit")
        if t["hold_until"] > "2026-06-01T12:00:00Z" and seed.accounts[t["account_id"]]["status"] == "open"
    )
    checking = seed.accounts[held["account_id"]]
    savings = seed.own(checking["customer_id"], "savings") or seed.own(checking["customer_id"], "credit")
    assert savings is not None, (
        "the seed changed: the customer with a held deposit has no second open account"
    )
    desk.set("accounts", "account_id", checking["account_id"], overdraft_protection=0)
    # More than is available but less than the balance: the held deposit does not count.
    amount = (seed.available(checking["account_id"]) + held["amount_cents"] // 2) / 100
    if savings["kind"] == "credit":
        desk.set("accounts", "account_id", savings["account_id"], balance_cents=-10_000_000)
    desk.refused(
        "transfer_between_accounts",
        "insufficient funds",
        from_account_id=checking["account_id"],
        to_account_id=savings["account_id"],
        amount=round(amount, 2),
    )


def test_overdraft_protection_draws_the_shortfall_from_savings(desk, seed):
    def fits(checking: dict, savings: dict) -> bool:
        return (
            seed.savings_withdrawals(savings["account_id"]) < 6
            and seed.available(savings["account_id"]) > 10_000
            and any(
                p["customer_id"] == checking["customer_id"] and p["status"] == "active"
                for p in seed.state["payees"]
            )
        )

    checking, savings = _pair(seed, "checking", "savings", fits)
    payee = seed.active_payee(checking["customer_id"])
    # $20.00 available in checking, a $70.00 payment: $50.00 comes from savings.
    desk.set(
        "accounts",
        "account_id",
        checking["account_id"],
        balance_cents=seed.held(checking["account_id"]) + 2_000,
    )
    args = {"from_account_id": checking["account_id"], "payee_id": payee["payee_id"], "amount": 70.0}
    desk.set("accounts", "account_id", checking["account_id"], overdraft_protection=0)
    desk.refused("send_to_payee", "insufficient funds", **args)
    desk.set("accounts", "account_id", checking["account_id"], overdraft_protection=1)
    out, before, after = desk.ok("send_to_payee", **args)
    rows = new_rows(before, after, "transactions", "transaction_id")
    assert Counter(t["kind"] for t in rows) == Counter(
        {"transfer_out": 1, "transfer_in": 1, "payee_payment": 1}
    )
    assert desk.balance(savings["account_id"]) == savings["balance_cents"] - 5_000
    assert out["account"]["available_balance"] == 0.0


def test_overdraft_protection_cannot_cover_more_than_savings_holds(desk, seed):
    checking, savings = _pair(seed, "checking", "savings")
    payee = next(
        (
            p
            for p in seed.state["payees"]
            if p["customer_id"] == checking["customer_id"] and p["status"] == "active"
        ),
        None,
    )
    assert payee is not None, "the seed changed: that customer has no active payee"
    desk.set("accounts", "account_id", checking["account_id"], overdraft_protection=1, balance_cents=0)
    desk.set("accounts", "account_id", savings["account_id"], balance_cents=100)
    desk.refused(
        "send_to_payee",
        "overdraft protection cannot cover",
        from_account_id=checking["account_id"],
        payee_id=payee["payee_id"],
        amount=10.0,
    )


# --------------------------------------------------------------------------- payees and scheduled payments


def test_payee_payments_need_an_open_checking_account_and_an_active_own_payee(desk, seed):
    checking, payee = seed.checking_with_payee()
    savings = seed.own(checking["customer_id"], "savings")
    if savings is not None:
        desk.refused(
            "send_to_payee",
            "only be made from a checking account",
            from_account_id=savings["account_id"],
            payee_id=payee["payee_id"],
            amount=10.0,
        )
    stranger = seed.stranger_payee(checking["customer_id"])
    desk.refused(
        "send_to_payee",
        "not a saved payee",
        from_account_id=checking["account_id"],
        payee_id=stranger["payee_id"],
        amount=10.0,
    )
    pending = next(p for p in seed.state["payees"] if p["status"] == "pending_verification")
    owner_checking = seed.own(pending["customer_id"], "checking")
    assert owner_checking is not None
    desk.refused(
        "send_to_payee",
        "only active payees",
        from_account_id=owner_checking["account_id"],
        payee_id=pending["payee_id"],
        amount=10.0,
    )
    desk.set("accounts", "account_id", checking["account_id"], status="frozen")
    desk.refused(
        "send_to_payee",
        "only open accounts",
        from_account_id=checking["account_id"],
        payee_id=payee["payee_id"],
        amount=10.0,
    )


def test_payee_payments_respect_the_daily_limit_across_accounts(desk, seed):
    sent_today = [t for t in seed.txns_with(kind="payee_payment") if t["posted_at"].startswith("2026-06-01")]
    assert sent_today, "the seed has a customer who already paid a payee today"
    txn = sent_today[0]
    account = seed.accounts[txn["account_id"]]
    limit = {"standard": 250_000, "plus": 500_000, "premier": 1_000_000}[seed.tier(account["account_id"])]
    room = limit + txn["amount_cents"]
    desk.set("accounts", "account_id", account["account_id"], balance_cents=5_000_000)
    desk.refused(
        "send_to_payee",
        "daily payee limit",
        from_account_id=account["account_id"],
        payee_id=txn["payee_id"],
        amount=(room + 100) / 100,
    )
    out, _, _ = desk.ok(
        "send_to_payee", from_account_id=account["account_id"], payee_id=txn["payee_id"], amount=room / 100
    )
    assert out["sent_today"] == limit / 100


def test_scheduling_rules(desk, seed):
    checking, payee = seed.checking_with_payee()
    args = {"from_account_id": checking["account_id"], "payee_id": payee["payee_id"], "amount": 100.0}
    desk.refused("schedule_payment", "future date", **args, payment_date="2026-06-01")
    desk.refused("schedule_payment", "future date", **args, payment_date="2026-05-20")
    desk.refused("schedule_payment", "at most 365 days", **args, payment_date="2027-06-02")
    desk.refused("schedule_payment", "must be a date", **args, payment_date="2026-02-30")
    over = {"standard": 2_600.0, "plus": 5_100.0, "premier": 10_100.0}[seed.tier(checking["account_id"])]
    desk.refused(
        "schedule_payment",
        "exceeds the daily payee limit",
        **{**args, "amount": over},
        payment_date="2026-07-01",
    )
    out, before, after = desk.ok("schedule_payment", **args, payment_date="2026-07-01")
    (row,) = new_rows(before, after, "scheduled_payments", "scheduled_payment_id")
    assert (
        out["status"] == "pending" and row["amount_cents"] == 10_000 and row["payment_date"] == "2026-07-01"
    )
    desk.refused("schedule_payment", "already scheduled", **args, payment_date="2026-07-01")


def test_cancelling_scheduled_payments(desk, seed):
    rows = seed.state["scheduled_payments"]
    paid = next(r for r in rows if r["status"] == "paid")
    desk.refused(
        "cancel_scheduled_payment",
        "only pending scheduled payments",
        schedule_id=paid["scheduled_payment_id"],
    )
    due = next(r for r in rows if r["status"] == "pending" and r["payment_date"] == "2026-06-01")
    desk.refused("cancel_scheduled_payment", "due today", schedule_id=due["scheduled_payment_id"])
    later = next(r for r in rows if r["status"] == "pending" and r["payment_date"] > "2026-06-01")
    out, _, _ = desk.ok("cancel_scheduled_payment", schedule_id=later["scheduled_payment_id"])
    assert out["status"] == "cancelled"


# --------------------------------------------------------------------------- disputes


def _recent_purchase(seed: Seed, want=lambda t: True) -> dict:
    return next(
        t
        for t in seed.txns_with(kind="card_purchase", dispute_state="without dispute")
        if t["posted_at"] > "2026-04-10" and seed.accounts[t["account_id"]]["status"] == "open" and want(t)
    )


def test_only_recent_undisputed_card_purchases_can_be_disputed(desk, seed):
    deposit = seed.txns_with(kind="direct_deposit")[0]
    desk.refused(
        "file_dispute",
        "only card purchases",
        transaction_id=deposit["transaction_id"],
        reason="not recognized",
    )
    disputed = next(t for t in seed.state["transactions"] if t["dispute_state"] != "without dispute")
    desk.refused(
        "file_dispute",
        "already been disputed",
        transaction_id=disputed["transaction_id"],
        reason="wrong amount",
    )
    old = next(
        t
        for t in seed.txns_with(kind="card_purchase", dispute_state="without dispute")
        if t["posted_at"] < "2026-04-01"
    )
    desk.refused(
        "file_dispute", "more than 60 days", transaction_id=old["transaction_id"], reason="not received"
    )
    recent = _recent_purchase(seed)
    desk.set("accounts", "account_id", recent["account_id"], status="closed")
    desk.refused("file_dispute", "is closed", transaction_id=recent["transaction_id"], reason="not received")


def test_provisional_credit_up_to_the_tier_threshold(desk, seed):
    small = _recent_purchase(seed, lambda t: -t["amount_cents"] <= 50_000)
    out, before, after = desk.ok(
        "file_dispute", transaction_id=small["transaction_id"], reason="duplicate charge"
    )
    assert out["provisional_credit"] == -small["amount_cents"] / 100
    assert (
        desk.balance(small["account_id"])
        == seed.accounts[small["account_id"]]["balance_cents"] - small["amount_cents"]
    )
    (dispute,) = new_rows(before, after, "disputes", "dispute_id")
    assert dispute["status"] == "open" and dispute["provisional_credit_cents"] == -small["amount_cents"]
    # Disputed once: never again.
    desk.refused(
        "file_dispute", "already been disputed", transaction_id=small["transaction_id"], reason="wrong amount"
    )


def test_large_disputes_get_no_provisional_credit(desk, seed):
    big = _recent_purchase(seed, lambda t: -t["amount_cents"] > 10_000)
    desk.set("transactions", "transaction_id", big["transaction_id"], amount_cents=-300_000)
    balance = desk.balance(big["account_id"])
    out, _, _ = desk.ok("file_dispute", transaction_id=big["transaction_id"], reason="not recognized")
    assert out["provisional_credit"] == 0.0
    assert desk.balance(big["account_id"]) == balance


# --------------------------------------------------------------------------- overdraft protection, fees


def test_overdraft_protection_settings(desk, seed):
    savings = seed.accounts_with(kind="savings", status="open")[0]
    desk.refused(
        "set_overdraft_protection", "only for checking", account_id=savings["account_id"], setting="on"
    )
    on = seed.accounts_with(kind="checking", status="open", overdraft_protection=1)[0]
    desk.refused("set_overdraft_protection", "already on", account_id=on["account_id"], setting="on")
    lonely = next(
        a
        for a in seed.accounts_with(kind="checking", status="open", overdraft_protection=0)
        if seed.own(a["customer_id"], "savings") is None
    )
    desk.refused(
        "set_overdraft_protection", "needs an open savings", account_id=lonely["account_id"], setting="on"
    )
    frozen = seed.accounts_with(kind="checking", status="frozen")[0]
    desk.refused(
        "set_overdraft_protection", "only open accounts", account_id=frozen["account_id"], setting="off"
    )
    out, _, _ = desk.ok("set_overdraft_protection", account_id=on["account_id"], setting="off")
    assert out["overdraft_protection"] is False


def _fee_of(seed: Seed, eligible: bool) -> dict:
    cutoff = "2025-06-01T12:00:00Z"
    for t in seed.txns_with(kind="fee", waived=0):
        account = seed.accounts[t["account_id"]]
        last = seed.customers[account["customer_id"]]["last_fee_waiver_at"]
        if account["status"] == "open" and (last is None or last <= cutoff) == eligible:
            return t
    pytest.fail("no fee fits")


def test_fees_can_be_waived_once_every_12_months(desk, seed):
    deposit = seed.txns_with(kind="direct_deposit")[0]
    desk.refused("waive_fee", "not a fee", transaction_id=deposit["transaction_id"])
    waived = seed.txns_with(kind="fee", waived=1)[0]
    desk.refused("waive_fee", "already been waived", transaction_id=waived["transaction_id"])
    recent = _fee_of(seed, eligible=False)
    desk.refused("waive_fee", "once every 12 months", transaction_id=recent["transaction_id"])
    fee = _fee_of(seed, eligible=True)
    out, _, after = desk.ok("waive_fee", transaction_id=fee["transaction_id"])
    assert out["amount"] == -fee["amount_cents"] / 100
    assert (
        desk.balance(fee["account_id"])
        == seed.accounts[fee["account_id"]]["balance_cents"] - fee["amount_cents"]
    )
    customer = seed.accounts[fee["account_id"]]["customer_id"]
    assert next(c for c in after["customers"] if c["customer_id"] == customer)["last_fee_waiver_at"] == (
        "2026-06-01T12:00:00Z"
    )
    other = next(
        (
            t
            for t in seed.txns_with(kind="fee", waived=0)
            if seed.accounts[t["account_id"]]["customer_id"] == customer
            and t["transaction_id"] != fee["transaction_id"]
        ),
        None,
    )
    if other is not None:
        desk.refused("waive_fee", "once every 12 months", transaction_id=other["transaction_id"])


def test_fees_on_frozen_accounts_are_not_waived(desk, seed):
    fee = _fee_of(seed, eligible=True)
    desk.set("accounts", "account_id", fee["account_id"], status="frozen")
    desk.refused("waive_fee", "only open accounts", transaction_id=fee["transaction_id"])


# --------------------------------------------------------------------------- utilities, determinism


def test_calculator_and_hand_off(desk):
    out, _, _ = desk.ok("calculate", expression="(1250.00 - 89.5) * 2")
    assert out["result"] == 2321.0
    desk.refused("calculate", "division by zero", expression="1 / 0")
    desk.refused("calculate", "only numbers", expression="__import__('os')")
    out, _, _ = desk.ok("transfer_to_human_agents", summary="Customer asks for a credit limit increase.")
    assert out["transferred"] is True


def test_new_ids_are_deterministic(banking_env, toolbox, seed):
    card = seed.cards_with(status="active")[0]
    outputs = []
    for _ in range(2):
        session = banking_env.new_session()
        out = toolbox.call(
            session.db,
            "report_card_lost",
            {"card_id": card["card_id"], "reason": "lost", "shipping": "standard"},
        )
        outputs.append((out.output, state_hash(session.db)))
        session.close()
    assert outputs[0] == outputs[1]


def test_policy_rules_name_states_the_seed_has(banking_env):
    rules = banking_env.spec.policy_rules
    state = banking_env.seed_state
    tables = {t.entity: t.name for t in banking_env.spec.tables if t.entity}
    for rule in rules.refusals:
        values = {row[rule.column] for row in state[tables[rule.entity]]}
        assert values - set(rule.allowed), f"{rule.tool}: no seed object in a refused state"
        assert values & set(rule.allowed), f"{rule.tool}: no seed object in an allowed state"


def test_overdraft_protection_stops_at_the_savings_withdrawal_limit(desk, seed):
    def fits(checking: dict, savings: dict) -> bool:
        return seed.savings_withdrawals(savings["account_id"]) >= 6 and any(
            p["customer_id"] == checking["customer_id"] and p["status"] == "active"
            for p in seed.state["payees"]
        )

    checking, savings = _pair(seed, "checking", "savings", fits)
    payee = seed.active_payee(checking["customer_id"])
    desk.set("accounts", "account_id", checking["account_id"], overdraft_protection=1, balance_cents=0)
    desk.set("accounts", "account_id", savings["account_id"], balance_cents=1_000_000)
    desk.refused(
        "send_to_payee",
        "reached its 6 withdrawals",
        from_account_id=checking["account_id"],
        payee_id=payee["payee_id"],
        amount=10.0,
    )


def test_payee_payments_come_from_checking_only(desk, seed):
    checking, payee = seed.checking_with_payee()
    other = seed.own(checking["customer_id"], "savings") or seed.own(checking["customer_id"], "credit")
    if other is None:
        other = next(a for a in seed.accounts_with(status="open") if a["kind"] != "checking")
        desk.set("accounts", "account_id", other["account_id"], customer_id=checking["customer_id"])
    desk.refused(
        "send_to_payee",
        "only be made from a checking account",
        from_account_id=other["account_id"],
        payee_id=payee["payee_id"],
        amount=10.0,
    )
