"""Deterministic seed state of the banking environment, drawn from small word lists.

Everything comes from the ``random.Random`` passed in: lists are walked in a fixed order,
never through sets or dict iteration of unordered data, so one seed gives one state.

Each account starts March 1 with an opening balance and lives through three months of
transactions up to the clock (2026-06-01T12:00:00Z); its balance is the opening balance
plus its transactions, and the March, April and May statements are computed from them.
Transaction ids increase with time.
"""

from __future__ import annotations

import datetime
import itertools
import random
from typing import Any

from envfactory_mcp.tasks.addresses import random_us_address

Rows = dict[str, list[dict[str, Any]]]
Row = dict[str, Any]

CLOCK = datetime.datetime(2026, 6, 1, 12, 0)
START = datetime.datetime(2026, 3, 1, 0, 0)
MONTHS = ["2026-03", "2026-04", "2026-05"]
N_CUSTOMERS = 50

FIRST_NAMES = [
    "Aaliyah",
    "Brandon",
    "Camila",
    "Derek",
    "Elif",
    "Frank",
    "Gabriela",
    "Harold",
    "Imani",
    "Jamal",
    "Katherine",
    "Luis",
    "Megan",
    "Nathan",
    "Olivia",
    "Pedro",
    "Rachel",
    "Sanjay",
    "Theresa",
    "Victor",
    "Whitney",
    "Xavier",
    "Yesenia",
    "Zachary",
    "Angela",
    "Brian",
    "Cynthia",
    "Dwayne",
    "Erin",
    "Gloria",
]
LAST_NAMES = [
    "Abbott",
    "Barnes",
    "Coleman",
    "Delgado",
    "Ellison",
    "Fitzgerald",
    "Gonzalez",
    "Harper",
    "Ibarra",
    "Jefferson",
    "Kim",
    "Lindqvist",
    "Mendoza",
    "Novak",
    "O'Brien",
    "Petrov",
    "Ramirez",
    "Sullivan",
    "Thompson",
    "Underwood",
    "Vasquez",
    "Washington",
    "Yamamoto",
    "Zhang",
    "Bennett",
    "Castro",
    "Donovan",
    "Foster",
]
EMAIL_DOMAINS = ["example.com", "mail.example", "inbox.example", "post.example"]
AREA_CODES = ["212", "312", "415", "512", "617", "702", "713", "206", "303", "404"]
TIER_WEIGHTS = [("standard", 0.55), ("plus", 0.3), ("premier", 0.15)]

CHECKING_NAMES = {"standard": "Everyday Checking", "plus": "Plus Checking", "premier": "Premier Checking"}
SAVINGS_NAMES = ["Basic Savings", "High-Yield Savings"]
CREDIT_PRODUCTS = [("Cash Rewards Visa", "visa"), ("Travel Rewards Mastercard", "mastercard")]
DEBIT_NAMES = {"standard": "Visa Debit", "plus": "Visa Debit", "premier": "Premier Visa Debit"}
CARD_LIMITS = {
    "standard": [50_000, 75_000, 100_000],
    "plus": [100_000, 150_000, 250_000],
    "premier": [200_000, 300_000, 500_000],
}
EMPLOYERS = [
    "Northwind Logistics Payroll",
    "Cedar Health Payroll",
    "Brightline Schools Payroll",
    "Summit Software Payroll",
    "Harbor City Payroll",
    "Lakeside Foods Payroll",
    "Metro Transit Payroll",
    "Keystone Insurance Payroll",
]
# (merchant, lowest dollars, highest dollars)
MERCHANTS: list[tuple[str, int, int]] = [
    ("Whole Foods Market", 18, 160),
    ("Trader Joe's", 15, 110),
    ("Target", 12, 220),
    ("Costco Wholesale", 45, 380),
    ("Shell", 25, 75),
    ("Chevron", 25, 80),
    ("Starbucks", 4, 18),
    ("Chipotle", 9, 32),
    ("Amazon.com", 8, 260),
    ("Best Buy", 30, 900),
    ("Home Depot", 20, 450),
    ("CVS Pharmacy", 6, 60),
    ("Walgreens", 5, 55),
    ("Delta Air Lines", 180, 1400),
    ("Marriott Hotels", 150, 1200),
    ("Uber", 9, 48),
    ("Netflix", 15, 23),
    ("Spotify", 11, 17),
    ("Apple.com", 1, 1300),
    ("Nordstrom", 40, 600),
    ("REI", 25, 500),
    ("Safeway", 20, 140),
    ("Olive Garden", 28, 95),
    ("AMC Theatres", 14, 60),
    ("Lowe's", 20, 380),
    ("IKEA", 35, 850),
]
BILLERS = [
    "City Power & Light",
    "Metro Water Utility",
    "Comcast Xfinity",
    "Verizon Wireless",
    "State Farm Insurance",
    "Geico",
    "Oakwood Apartments",
    "Riverside Property Management",
    "AT&T",
    "Spectrum Internet",
    "Planet Fitness",
    "Sallie Mae",
]
PERSON_PAYEES = [
    "Jordan Ellis",
    "Maria Santos",
    "Kevin Park",
    "Priya Raman",
    "Tom Becker",
    "Alicia Grant",
    "Sam Whitfield",
    "Nina Kowalczyk",
    "Diego Herrera",
    "Laura Chen",
]
FEES = [
    ("Monthly maintenance fee", 1_200),
    ("Overdraft fee", 3_500),
    ("Out-of-network ATM fee", 300),
    ("Returned item fee", 3_500),
    ("Paper statement fee", 200),
]
DISPUTE_REASONS = ["not recognized", "duplicate charge", "wrong amount", "not received", "cancelled service"]
PROVISIONAL_MAX = {"standard": 50_000, "plus": 100_000, "premier": 250_000}


def _iso(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _moment(rng: random.Random, lo: datetime.datetime, hi: datetime.datetime) -> datetime.datetime:
    seconds = int((hi - lo).total_seconds())
    return lo + datetime.timedelta(seconds=rng.randint(0, max(0, seconds)) // 60 * 60)


def _dollars_cents(rng: random.Random, lo: int, hi: int) -> int:
    cents = rng.randint(lo * 100, hi * 100)
    if rng.random() < 0.3:
        cents = cents - cents % 100 + 99
    return max(cents, 100)


def generate_seed(rng: random.Random) -> Rows:
    world = _World(rng)
    world.customers_and_products()
    world.history()
    return world.rows()


class _World:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.customers: list[Row] = []
        self.accounts: list[Row] = []
        self.cards: list[Row] = []
        self.payees: list[Row] = []
        self.txns: list[Row] = []
        self.disputes: list[Row] = []
        self.scheduled: list[Row] = []
        self.statements: list[Row] = []
        self.opening: dict[str, int] = {}
        self.ids = {"acct": 100, "card": 200, "payee": 300, "sched": 400, "dsp": 0}

    def next(self, kind: str) -> str:
        self.ids[kind] += self.rng.randint(1, 3)
        return f"{kind}_{self.ids[kind]:06d}"

    # ------------------------------------------------------------------ people and products

    def customers_and_products(self) -> None:
        rng = self.rng
        pairs = list(itertools.product(FIRST_NAMES, LAST_NAMES))
        picks = rng.sample(range(len(pairs)), N_CUSTOMERS)
        for c, pick in enumerate(picks, start=1):
            first, last = pairs[pick]
            tier = rng.choices([t for t, _ in TIER_WEIGHTS], [w for _, w in TIER_WEIGHTS])[0]
            born = datetime.date(rng.randint(1952, 2003), rng.randint(1, 12), rng.randint(1, 28))
            since = datetime.date(rng.randint(2006, 2024), rng.randint(1, 12), rng.randint(1, 28))
            waiver = None
            roll = rng.random()
            if roll < 0.25:  # waived recently: no waiver until next year
                waiver = _iso(
                    _moment(rng, CLOCK - datetime.timedelta(days=330), CLOCK - datetime.timedelta(days=20))
                )
            elif roll < 0.4:  # long ago: a waiver is available again
                waiver = _iso(
                    _moment(rng, CLOCK - datetime.timedelta(days=900), CLOCK - datetime.timedelta(days=400))
                )
            handle = "".join(ch for ch in f"{first}.{last}" if ch.isalpha() or ch == ".").lower()
            customer = {
                "customer_id": f"cust_{c:06d}",
                "first_name": first,
                "last_name": last,
                "email": f"{handle}{rng.randint(10, 99)}@{rng.choice(EMAIL_DOMAINS)}",
                "phone": f"({rng.choice(AREA_CODES)}) 555-{rng.randint(100, 199):04d}",
                "date_of_birth": born.isoformat(),
                "ssn_last_four": f"{rng.randint(0, 9999):04d}",
                **random_us_address(rng).as_row(),
                "tier": tier,
                "customer_since": since.isoformat(),
                "last_fee_waiver_at": waiver,
            }
            self.customers.append(customer)
            self._products(customer, since)

    def _last_four(self, customer_id: str) -> str:
        taken = {a["last_four"] for a in self.accounts if a["customer_id"] == customer_id}
        taken |= {c["last_four"] for c in self.cards if c["customer_id"] == customer_id}
        while True:
            value = f"{self.rng.randint(0, 9999):04d}"
            if value not in taken:
                return value

    def _account(
        self, customer: Row, kind: str, name: str, since: datetime.date, status: str = "open"
    ) -> Row:
        rng = self.rng
        opened = max(since, datetime.date(2010, 1, 1)) + datetime.timedelta(days=rng.randint(0, 500))
        opened = min(opened, datetime.date(2026, 2, 1))
        account = {
            "account_id": self.next("acct"),
            "customer_id": customer["customer_id"],
            "kind": kind,
            "name": name,
            "last_four": self._last_four(customer["customer_id"]),
            "status": status,
            "balance_cents": 0,
            "credit_limit_cents": rng.choice([200_000, 500_000, 800_000, 1_200_000, 1_500_000])
            if kind == "credit"
            else None,
            "overdraft_protection": 0,
            "opened_on": opened.isoformat(),
        }
        self.accounts.append(account)
        return account

    def _card(self, customer: Row, account: Row, kind: str, name: str, status: str, **extra: Any) -> Row:
        rng = self.rng
        issued = (
            datetime.date(2026, 5, rng.randint(10, 29))
            if status == "inactive"
            else datetime.date(rng.randint(2022, 2025), rng.randint(1, 12), rng.randint(1, 28))
        )
        card = {
            "card_id": self.next("card"),
            "customer_id": customer["customer_id"],
            "account_id": account["account_id"],
            "kind": kind,
            "name": name,
            "last_four": self._last_four(customer["customer_id"]),
            "status": status,
            "expires": f"{issued.year + 4}-{issued.month:02d}",
            "daily_limit_cents": rng.choice(CARD_LIMITS[customer["tier"]]) if kind == "debit" else None,
            "replaces_card_id": None,
            "issued_on": issued.isoformat(),
        }
        card.update(extra)
        self.cards.append(card)
        return card

    def _card_set(self, customer: Row, account: Row, kind: str, name: str) -> None:
        """One card on the account, in a realistic state; a lost or stolen card has its replacement."""
        rng = self.rng
        if account["status"] == "closed":
            self._card(customer, account, kind, name, "closed")
            return
        status = rng.choices(
            ["active", "inactive", "frozen", "lost", "stolen", "expired"], [0.62, 0.1, 0.12, 0.06, 0.04, 0.06]
        )[0]
        if status == "expired":  # an old card never activated, now past its date
            self._card(
                customer,
                account,
                kind,
                name,
                "inactive",
                expires=f"2026-0{rng.randint(1, 5)}",
                issued_on=f"2022-0{rng.randint(1, 5)}-1{rng.randint(0, 9)}",
            )
            self._card(customer, account, kind, name, "active")
        elif status in ("lost", "stolen"):
            old = self._card(customer, account, kind, name, status)
            self._card(
                customer,
                account,
                kind,
                name,
                rng.choice(["inactive", "active"]),
                replaces_card_id=old["card_id"],
                daily_limit_cents=old["daily_limit_cents"],
            )
        else:
            self._card(customer, account, kind, name, status)

    def _products(self, customer: Row, since: datetime.date) -> None:
        rng = self.rng
        tier = customer["tier"]
        status = rng.choices(["open", "frozen"], [0.93, 0.07])[0]
        checking = self._account(customer, "checking", CHECKING_NAMES[tier], since, status)
        self.opening[checking["account_id"]] = _dollars_cents(
            rng, 20, {"standard": 2500, "plus": 6000, "premier": 20000}[tier]
        )
        self._card_set(customer, checking, "debit", DEBIT_NAMES[tier])
        if rng.random() < 0.08:  # an old checking account, closed before March
            old = self._account(customer, "checking", "Everyday Checking", since, "closed")
            self.opening[old["account_id"]] = 0
            self._card_set(customer, old, "debit", "Visa Debit")
        if rng.random() < 0.7:
            savings = self._account(
                customer,
                "savings",
                rng.choice(SAVINGS_NAMES),
                since,
                rng.choices(["open", "frozen"], [0.95, 0.05])[0],
            )
            self.opening[savings["account_id"]] = _dollars_cents(
                rng, 500, {"standard": 15000, "plus": 40000, "premier": 120000}[tier]
            )
            if savings["status"] == "open" and rng.random() < 0.45:
                checking["overdraft_protection"] = 1
        if rng.random() < 0.5:
            name, _ = rng.choice(CREDIT_PRODUCTS)
            credit = self._account(customer, "credit", name, since, "open")
            self.opening[credit["account_id"]] = -rng.randint(0, credit["credit_limit_cents"] // 3)
            self._card_set(customer, credit, "credit", name)
        billers = rng.sample(BILLERS, rng.randint(1, 3))
        people = rng.sample(PERSON_PAYEES, rng.randint(0, 2))
        for name in billers + people:
            self.payees.append(
                {
                    "payee_id": self.next("payee"),
                    "customer_id": customer["customer_id"],
                    "name": name,
                    "kind": "biller" if name in BILLERS else "person",
                    "account_last_four": f"{rng.randint(0, 9999):04d}",
                    "status": "pending_verification" if rng.random() < 0.15 else "active",
                }
            )

    # ------------------------------------------------------------------ three months of money

    def _txn(
        self, account: Row, kind: str, name: str, cents: int, at: datetime.datetime, **extra: Any
    ) -> Row:
        row = {
            "transaction_id": "",
            "account_id": account["account_id"],
            "card_id": None,
            "kind": kind,
            "name": name,
            "amount_cents": cents,
            "posted_at": _iso(at),
            "hold_until": None,
            "counterparty_account_id": None,
            "payee_id": None,
            "dispute_state": "without dispute",
            "waived": 0,
        }
        row.update(extra)
        self.txns.append(row)
        return row

    def _usable_card(self, account: Row) -> Row | None:
        cards = [c for c in self.cards if c["account_id"] == account["account_id"]]
        working = [c for c in cards if c["status"] in ("active", "frozen", "lost", "stolen")]
        pool = working or cards
        return pool[0] if pool else None

    def history(self) -> None:
        by_customer: dict[str, list[Row]] = {}
        for account in self.accounts:
            by_customer.setdefault(account["customer_id"], []).append(account)
        for customer in self.customers:
            accounts = [a for a in by_customer[customer["customer_id"]] if a["status"] != "closed"]
            checking = next(a for a in accounts if a["kind"] == "checking")
            savings = next((a for a in accounts if a["kind"] == "savings"), None)
            credit = next((a for a in accounts if a["kind"] == "credit"), None)
            self._checking_history(customer, checking)
            if savings is not None:
                self._savings_history(customer, savings, checking)
            if credit is not None:
                self._credit_history(customer, credit, checking)
        self.txns.sort(key=lambda t: (t["posted_at"], t["account_id"], t["kind"], t["amount_cents"]))
        disputed = self._disputes()
        # Ids follow time, provisional credits and fee refunds included.
        self.txns.sort(key=lambda t: (t["posted_at"], t["account_id"], t["kind"], t["amount_cents"]))
        for n, txn in enumerate(self.txns, start=1):
            txn["transaction_id"] = f"txn_{1_000_000 + n * 7:07d}"
        for dispute, txn in disputed:
            dispute["transaction_id"] = txn["transaction_id"]
        self._scheduled()
        self._balances_and_statements()

    def _checking_history(self, customer: Row, account: Row) -> None:
        rng = self.rng
        employer = rng.choice(EMPLOYERS)
        pay = _dollars_cents(rng, 1900, {"standard": 4200, "plus": 7000, "premier": 12000}[customer["tier"]])
        for month in (3, 4, 5):
            self._txn(account, "direct_deposit", employer, pay, datetime.datetime(2026, month, 1, 6, 0))
        self._txn(account, "direct_deposit", employer, pay, datetime.datetime(2026, 6, 1, 6, 0))
        card = self._usable_card(account)
        for _ in range(rng.randint(4, 7)):
            merchant, lo, hi = rng.choice(MERCHANTS)
            self._txn(
                account,
                "card_purchase",
                merchant,
                -_dollars_cents(rng, lo, hi),
                _moment(rng, START, CLOCK - datetime.timedelta(hours=2)),
                card_id=card["card_id"] if card else None,
            )
        if rng.random() < 0.6:
            at = _moment(rng, START, CLOCK - datetime.timedelta(hours=3))
            self._txn(
                account,
                "atm_withdrawal",
                "ATM withdrawal",
                -rng.choice([4000, 6000, 10000, 20000]),
                at,
                card_id=card["card_id"] if card else None,
            )
        payees = [
            p for p in self.payees if p["customer_id"] == customer["customer_id"] and p["status"] == "active"
        ]
        for k, payee in enumerate(payees[:2]):
            cents = _dollars_cents(rng, 300, 1800) if k == 0 else _dollars_cents(rng, 45, 400)
            for month in (4, 5):
                self._txn(
                    account,
                    "payee_payment",
                    f"Payment to {payee['name']}",
                    -cents,
                    datetime.datetime(2026, month, rng.randint(2, 27), 9, 0),
                    payee_id=payee["payee_id"],
                )
        if payees and rng.random() < 0.12:  # a big payment this morning: today's payee limit is partly used
            limit = {"standard": 250_000, "plus": 500_000, "premier": 1_000_000}[customer["tier"]]
            self._txn(
                account,
                "payee_payment",
                f"Payment to {payees[0]['name']}",
                -(limit - rng.choice([5_000, 20_000])),
                datetime.datetime(2026, 6, 1, 8, rng.randint(0, 59)),
                payee_id=payees[0]["payee_id"],
            )
        if rng.random() < 0.45:  # a mobile check deposit, maybe still on hold
            at = _moment(rng, CLOCK - datetime.timedelta(days=20), CLOCK - datetime.timedelta(hours=1))
            hold = at + datetime.timedelta(days=rng.randint(2, 5))
            self._txn(
                account,
                "deposit",
                "Mobile check deposit",
                _dollars_cents(rng, 100, 2500),
                at,
                hold_until=_iso(hold.replace(hour=9, minute=0)),
            )
        n_fees = rng.choices([0, 1, 2], [0.35, 0.4, 0.25])[0]
        for name, cents in rng.sample(FEES, n_fees):
            self._txn(account, "fee", name, -cents, _moment(rng, START, CLOCK - datetime.timedelta(days=1)))

    def _savings_history(self, customer: Row, account: Row, checking: Row) -> None:
        rng = self.rng
        for month in (3, 4, 5):
            interest = max(1, self.opening[account["account_id"]] * rng.randint(8, 35) // 10_000 // 12)
            self._txn(
                account, "interest", "Interest payment", interest, datetime.datetime(2026, month, 28, 3, 0)
            )
        count = 6 if rng.random() < 0.15 else rng.randint(0, 3)  # some have used every withdrawal
        for _ in range(count):
            at = _moment(rng, CLOCK - datetime.timedelta(days=28), CLOCK - datetime.timedelta(hours=4))
            cents = _dollars_cents(rng, 50, 600)
            self._txn(
                account,
                "transfer_out",
                f"Transfer to {checking['name']} {checking['last_four']}",
                -cents,
                at,
                counterparty_account_id=checking["account_id"],
            )
            self._txn(
                checking,
                "transfer_in",
                f"Transfer from {account['name']} {account['last_four']}",
                cents,
                at,
                counterparty_account_id=account["account_id"],
            )
        if rng.random() < 0.5:
            at = _moment(rng, START, CLOCK - datetime.timedelta(days=35))
            cents = _dollars_cents(rng, 100, 1500)
            self._txn(
                checking,
                "transfer_out",
                f"Transfer to {account['name']} {account['last_four']}",
                -cents,
                at,
                counterparty_account_id=account["account_id"],
            )
            self._txn(
                account,
                "transfer_in",
                f"Transfer from {checking['name']} {checking['last_four']}",
                cents,
                at,
                counterparty_account_id=checking["account_id"],
            )

    def _credit_history(self, customer: Row, account: Row, checking: Row) -> None:
        rng = self.rng
        card = self._usable_card(account)
        owed = -self.opening[account["account_id"]]
        for _ in range(rng.randint(3, 7)):
            merchant, lo, hi = rng.choice(MERCHANTS)
            row = self._txn(
                account,
                "card_purchase",
                merchant,
                -_dollars_cents(rng, lo, hi),
                _moment(rng, START, CLOCK - datetime.timedelta(hours=2)),
                card_id=card["card_id"] if card else None,
            )
            owed -= row["amount_cents"]
        for month in (3, 4, 5):
            if rng.random() < 0.7 and owed >= 5_000:
                cents = min(_dollars_cents(rng, 50, 900), owed)
                owed -= cents
                at = datetime.datetime(2026, month, rng.randint(18, 26), 10, 0)
                self._txn(
                    checking,
                    "transfer_out",
                    f"Transfer to {account['name']} {account['last_four']}",
                    -cents,
                    at,
                    counterparty_account_id=account["account_id"],
                )
                self._txn(
                    account,
                    "card_payment",
                    f"Transfer from {checking['name']} {checking['last_four']}",
                    cents,
                    at,
                    counterparty_account_id=checking["account_id"],
                )

    # ------------------------------------------------------------------ disputes, schedules, balances

    def _disputes(self) -> list[tuple[Row, Row]]:
        """Disputes of card purchases (each with its transaction row, whose id comes later)
        and fee waivers of this window."""
        rng = self.rng
        disputed: list[tuple[Row, Row]] = []
        tier_of = {c["customer_id"]: c["tier"] for c in self.customers}
        owner = {a["account_id"]: a["customer_id"] for a in self.accounts}
        purchases = [t for t in self.txns if t["kind"] == "card_purchase"]
        picked = sorted(rng.sample(range(len(purchases)), len(purchases) // 14))
        for index in picked:
            txn = purchases[index]
            posted = datetime.datetime.strptime(txn["posted_at"], "%Y-%m-%dT%H:%M:%SZ")
            opened = posted + datetime.timedelta(days=rng.randint(1, 9))
            if opened >= CLOCK:
                continue
            resolved = (CLOCK - opened).days > 30 and rng.random() < 0.6
            cents = -txn["amount_cents"]
            credit = cents if cents <= PROVISIONAL_MAX[tier_of[owner[txn["account_id"]]]] else 0
            txn["dispute_state"] = "resolved" if resolved else "open"
            self.disputes.append(
                {
                    "dispute_id": "",
                    "transaction_id": "",
                    "reason": rng.choice(DISPUTE_REASONS),
                    "status": rng.choice(["resolved_in_favor", "resolved_denied"]) if resolved else "open",
                    "provisional_credit_cents": credit,
                    "opened_at": _iso(opened),
                }
            )
            disputed.append((self.disputes[-1], txn))
            if self.disputes[-1]["status"] == "resolved_denied":
                self.disputes[-1]["provisional_credit_cents"] = 0  # denied: no credit was kept
            elif credit:
                account = next(a for a in self.accounts if a["account_id"] == txn["account_id"])
                self._txn(account, "provisional_credit", f"Provisional credit: {txn['name']}", credit, opened)
        self.disputes.sort(key=lambda d: d["opened_at"])
        for n, dispute in enumerate(self.disputes, start=1):
            dispute["dispute_id"] = f"dsp_{n:06d}"
        # Some customers had a fee waived in this window: their waiver date is that refund's.
        fees = [t for t in self.txns if t["kind"] == "fee" and t["name"] in {n for n, _ in FEES}]
        waived_customers: list[str] = []
        for txn in fees:
            customer_id = owner[txn["account_id"]]
            if customer_id in waived_customers or rng.random() > 0.15:
                continue
            customer = next(c for c in self.customers if c["customer_id"] == customer_id)
            posted = datetime.datetime.strptime(txn["posted_at"], "%Y-%m-%dT%H:%M:%SZ")
            refund_at = min(
                posted + datetime.timedelta(days=rng.randint(1, 6)), CLOCK - datetime.timedelta(hours=1)
            )
            if refund_at <= posted:
                continue
            txn["waived"] = 1
            account = next(a for a in self.accounts if a["account_id"] == txn["account_id"])
            self._txn(account, "fee_refund", f"Fee refund: {txn['name']}", -txn["amount_cents"], refund_at)
            customer["last_fee_waiver_at"] = _iso(refund_at)
            waived_customers.append(customer_id)
        return disputed

    def _scheduled(self) -> None:
        rng = self.rng
        checking_of = {
            a["customer_id"]: a for a in self.accounts if a["kind"] == "checking" and a["status"] != "closed"
        }
        n = 0
        for payee in self.payees:
            if payee["status"] != "active" or rng.random() > 0.45:
                continue
            account = checking_of[payee["customer_id"]]
            roll = rng.random()
            if roll < 0.55:
                status, day = "pending", CLOCK.date() + datetime.timedelta(days=rng.randint(1, 90))
            elif roll < 0.65:
                status, day = "pending", CLOCK.date()  # due today: already processing
            elif roll < 0.85:
                status, day = "paid", CLOCK.date() - datetime.timedelta(days=rng.randint(3, 80))
            elif roll < 0.95:
                status, day = "cancelled", CLOCK.date() + datetime.timedelta(days=rng.randint(-40, 60))
            else:
                status, day = "failed", CLOCK.date() - datetime.timedelta(days=rng.randint(3, 60))
            created = datetime.datetime.combine(
                min(day, CLOCK.date()), datetime.time(9, 0)
            ) - datetime.timedelta(days=rng.randint(3, 40))
            n += rng.randint(1, 3)
            self.scheduled.append(
                {
                    "scheduled_payment_id": f"sched_{n:06d}",
                    "account_id": account["account_id"],
                    "payee_id": payee["payee_id"],
                    "amount_cents": _dollars_cents(rng, 25, 1200),
                    "payment_date": day.isoformat(),
                    "status": status,
                    "created_at": _iso(created),
                }
            )

    def _balances_and_statements(self) -> None:
        by_account: dict[str, list[Row]] = {}
        for txn in self.txns:
            by_account.setdefault(txn["account_id"], []).append(txn)
        n = 0
        for account in self.accounts:
            balance = self.opening[account["account_id"]]
            txns = sorted(by_account.get(account["account_id"], []), key=lambda t: t["posted_at"])
            for month in MONTHS:
                inside = [t for t in txns if t["posted_at"][:7] == month]
                credits = sum(t["amount_cents"] for t in inside if t["amount_cents"] > 0)
                debits = -sum(t["amount_cents"] for t in inside if t["amount_cents"] < 0)
                fees = -sum(t["amount_cents"] for t in inside if t["kind"] == "fee")
                closing = balance + credits - debits
                if account["status"] != "closed":
                    n += 1
                    self.statements.append(
                        {
                            "statement_id": f"stmt_{n:06d}",
                            "account_id": account["account_id"],
                            "month": month,
                            "opening_balance_cents": balance,
                            "closing_balance_cents": closing,
                            "credits_cents": credits,
                            "debits_cents": debits,
                            "fees_cents": fees,
                        }
                    )
                balance = closing
            balance += sum(t["amount_cents"] for t in txns if t["posted_at"][:7] not in MONTHS)
            account["balance_cents"] = balance

    def rows(self) -> Rows:
        self.txns.sort(key=lambda t: t["transaction_id"])
        return {
            "customers": self.customers,
            "accounts": self.accounts,
            "cards": self.cards,
            "payees": self.payees,
            "transactions": self.txns,
            "disputes": self.disputes,
            "scheduled_payments": self.scheduled,
            "statements": self.statements,
        }
