"""Tables of the banking environment. Money is INTEGER cents; statuses and kinds are enums."""

from __future__ import annotations

from envfactory_mcp.blueprints.kit import col
from envfactory_mcp.spec import TableSpec

TIERS = ["standard", "plus", "premier"]
ACCOUNT_KINDS = ["checking", "savings", "credit"]
ACCOUNT_STATUSES = ["open", "frozen", "closed"]
CARD_KINDS = ["debit", "credit"]
CARD_STATUSES = ["inactive", "active", "frozen", "lost", "stolen", "closed"]
LOSS_REASONS = ["lost", "stolen"]
PAYEE_KINDS = ["biller", "person"]
PAYEE_STATUSES = ["active", "pending_verification"]
TXN_KINDS = [
    "card_purchase",
    "atm_withdrawal",
    "deposit",
    "direct_deposit",
    "transfer_in",
    "transfer_out",
    "payee_payment",
    "card_payment",
    "fee",
    "fee_refund",
    "interest",
    "provisional_credit",
]
DISPUTE_STATES = ["without dispute", "open", "resolved"]
DISPUTE_REASONS = ["not recognized", "duplicate charge", "wrong amount", "not received", "cancelled service"]
DISPUTE_STATUSES = ["open", "resolved_in_favor", "resolved_denied"]
SCHEDULED_STATUSES = ["pending", "paid", "cancelled", "failed"]


def build_tables() -> list[TableSpec]:
    customers = TableSpec(
        name="customers",
        entity="customer",
        description="Bank customers, with the details used to verify their identity and their relationship tier.",
        primary_key=["customer_id"],
        columns=[
            col("customer_id", description="Internal customer id, e.g. 'cust_000042'.", entity="customer"),
            col("first_name", description="First name.", check="length(first_name) > 0"),
            col("last_name", description="Last name.", check="length(last_name) > 0"),
            col(
                "email",
                description="Lower-case email address; unique.",
                unique=True,
                check="email LIKE '%_@_%'",
            ),
            col("phone", description="Phone number, e.g. '(512) 555-0143'."),
            col(
                "date_of_birth",
                description="Date of birth, YYYY-MM-DD.",
                check="date_of_birth GLOB '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]'",
            ),
            col(
                "ssn_last_four",
                description="Last four digits of the Social Security number.",
                check="ssn_last_four GLOB '[0-9][0-9][0-9][0-9]'",
            ),
            col("address1", description="Street line of the home address.", check="length(address1) > 0"),
            col("address2", description="Second address line (apartment, suite); may be empty."),
            col("city", description="City.", check="length(city) > 0"),
            col("state", description="State, e.g. 'TX'.", check="length(state) > 0"),
            col("country", description="Country, e.g. 'USA'.", check="length(country) > 0"),
            col(
                "zip",
                description="Five-digit zip code of the home address.",
                check="zip GLOB '[0-9][0-9][0-9][0-9][0-9]'",
            ),
            col("tier", description="Relationship tier; sets transfer and card limits.", enum=list(TIERS)),
            col("customer_since", description="Date the customer opened their first account, YYYY-MM-DD."),
            col(
                "last_fee_waiver_at",
                description="When a fee was last waived for this customer (ISO 8601, UTC); null if never.",
                nullable=True,
            ),
        ],
    )
    accounts = TableSpec(
        name="accounts",
        entity="account",
        description="Deposit accounts (checking, savings) and credit card accounts. For a credit account the "
        "balance is negative when money is owed and credit_limit_cents is set.",
        primary_key=["account_id"],
        columns=[
            col("account_id", description="Internal account id, e.g. 'acct_000123'.", entity="account"),
            col("customer_id", description="Owner.", references="customers.customer_id", entity="customer"),
            col("kind", description="Kind of account.", enum=list(ACCOUNT_KINDS)),
            col("name", description="Product name, e.g. 'Everyday Checking'.", check="length(name) > 0"),
            col(
                "last_four",
                description="Last four digits of the account number.",
                check="last_four GLOB '[0-9][0-9][0-9][0-9]'",
            ),
            col("status", description="Account status.", enum=list(ACCOUNT_STATUSES)),
            col("balance_cents", "INTEGER", description="Ledger balance in cents (holds included)."),
            col(
                "credit_limit_cents",
                "INTEGER",
                description="Credit limit in cents (credit accounts only).",
                nullable=True,
                check="(kind = 'credit') = (credit_limit_cents IS NOT NULL) AND coalesce(credit_limit_cents, 1) > 0",
            ),
            col(
                "overdraft_protection",
                "INTEGER",
                description="1 when a checking account draws shortfalls from the owner's savings account.",
                enum=[0, 1],
                check="overdraft_protection = 0 OR kind = 'checking'",
            ),
            col("opened_on", description="Date the account was opened, YYYY-MM-DD."),
        ],
    )
    cards = TableSpec(
        name="cards",
        entity="card",
        description="Debit cards (drawing on a checking account) and credit cards (drawing on a credit account).",
        primary_key=["card_id"],
        columns=[
            col("card_id", description="Internal card id, e.g. 'card_000045'.", entity="card"),
            col(
                "customer_id",
                description="Cardholder.",
                references="customers.customer_id",
                entity="customer",
            ),
            col(
                "account_id",
                description="Account the card draws on.",
                references="accounts.account_id",
                entity="account",
            ),
            col("kind", description="Card kind.", enum=list(CARD_KINDS)),
            col("name", description="Card product name, e.g. 'Visa Debit'.", check="length(name) > 0"),
            col(
                "last_four",
                description="Last four digits of the card number.",
                check="last_four GLOB '[0-9][0-9][0-9][0-9]'",
            ),
            col("status", description="Card status.", enum=list(CARD_STATUSES)),
            col(
                "expires", description="Expiry month, YYYY-MM.", check="expires GLOB '20[0-9][0-9]-[01][0-9]'"
            ),
            col(
                "daily_limit_cents",
                "INTEGER",
                description="Daily purchase and ATM limit in cents (debit cards only).",
                nullable=True,
                check="(kind = 'debit') = (daily_limit_cents IS NOT NULL) AND coalesce(daily_limit_cents, 1) > 0",
            ),
            col(
                "replaces_card_id",
                description="The lost or stolen card this card replaces, if any.",
                nullable=True,
                references="cards.card_id",
                entity="card",
            ),
            col("issued_on", description="Date the card was issued, YYYY-MM-DD."),
        ],
    )
    payees = TableSpec(
        name="payees",
        entity="payee",
        description="Saved payees of a customer: billers and people they send money to.",
        primary_key=["payee_id"],
        columns=[
            col("payee_id", description="Internal payee id, e.g. 'payee_000031'.", entity="payee"),
            col(
                "customer_id",
                description="Customer who saved it.",
                references="customers.customer_id",
                entity="customer",
            ),
            col("name", description="Payee name, e.g. 'Austin Energy'.", check="length(name) > 0"),
            col("kind", description="Biller or person.", enum=list(PAYEE_KINDS)),
            col(
                "account_last_four",
                description="Last four digits of the payee's account number.",
                check="account_last_four GLOB '[0-9][0-9][0-9][0-9]'",
            ),
            col("status", description="Only active payees can be paid.", enum=list(PAYEE_STATUSES)),
        ],
    )
    transactions = TableSpec(
        name="transactions",
        entity="transaction",
        description="Posted transactions of an account. amount_cents is signed: positive is money in, negative "
        "money out. A deposit with hold_until in the future is not yet available.",
        primary_key=["transaction_id"],
        columns=[
            col("transaction_id", description="Id such as 'txn_0001234'.", entity="transaction"),
            col(
                "account_id",
                description="Account it posted to.",
                references="accounts.account_id",
                entity="account",
            ),
            col(
                "card_id",
                description="Card used (card purchases and ATM withdrawals only).",
                nullable=True,
                references="cards.card_id",
                entity="card",
            ),
            col("kind", description="Kind of transaction.", enum=list(TXN_KINDS)),
            col(
                "name",
                description="Merchant or description as shown on the statement.",
                check="length(name) > 0",
            ),
            col("amount_cents", "INTEGER", description="Signed amount in cents.", check="amount_cents <> 0"),
            col("posted_at", description="When it posted (ISO 8601, UTC)."),
            col(
                "hold_until",
                description="Deposits only: when the funds become available (ISO 8601, UTC); null if no hold.",
                nullable=True,
            ),
            col(
                "counterparty_account_id",
                description="The other account of a transfer between own accounts.",
                nullable=True,
                references="accounts.account_id",
                entity="account",
            ),
            col(
                "payee_id",
                description="Payee of a payee payment.",
                nullable=True,
                references="payees.payee_id",
                entity="payee",
            ),
            col(
                "dispute_state",
                description="Whether the transaction was disputed.",
                enum=list(DISPUTE_STATES),
            ),
            col(
                "waived",
                "INTEGER",
                description="Fees only: 1 once the fee was waived (refunded).",
                enum=[0, 1],
                check="waived = 0 OR kind = 'fee'",
            ),
        ],
    )
    disputes = TableSpec(
        name="disputes",
        entity="dispute",
        description="Disputes of card transactions, with any provisional credit given while they are reviewed.",
        primary_key=["dispute_id"],
        columns=[
            col("dispute_id", description="Id such as 'dsp_000012'.", entity="dispute"),
            col(
                "transaction_id",
                description="Disputed transaction.",
                references="transactions.transaction_id",
                entity="transaction",
            ),
            col("reason", description="Why the customer disputes it.", enum=list(DISPUTE_REASONS)),
            col("status", description="Dispute status.", enum=list(DISPUTE_STATUSES)),
            col(
                "provisional_credit_cents",
                "INTEGER",
                description="Provisional credit given, in cents (0 if none).",
                check="provisional_credit_cents >= 0",
            ),
            col("opened_at", description="When it was filed (ISO 8601, UTC)."),
        ],
    )
    scheduled = TableSpec(
        name="scheduled_payments",
        entity="scheduled_payment",
        description="Payments to a payee scheduled for a future date.",
        primary_key=["scheduled_payment_id"],
        columns=[
            col("scheduled_payment_id", description="Id such as 'sched_000017'.", entity="scheduled_payment"),
            col(
                "account_id",
                description="Account to pay from.",
                references="accounts.account_id",
                entity="account",
            ),
            col("payee_id", description="Payee.", references="payees.payee_id", entity="payee"),
            col("amount_cents", "INTEGER", description="Amount in cents.", check="amount_cents > 0"),
            col(
                "payment_date",
                description="Date to pay, YYYY-MM-DD.",
                check="payment_date GLOB '20[0-9][0-9]-[01][0-9]-[0-3][0-9]'",
            ),
            col("status", description="Status of the scheduled payment.", enum=list(SCHEDULED_STATUSES)),
            col("created_at", description="When it was scheduled (ISO 8601, UTC)."),
        ],
    )
    statements = TableSpec(
        name="statements",
        entity="statement",
        description="Monthly statements of an account: balances and totals of the month's transactions.",
        primary_key=["statement_id"],
        columns=[
            col("statement_id", description="Id such as 'stmt_000101'.", entity="statement"),
            col("account_id", description="Account.", references="accounts.account_id", entity="account"),
            col(
                "month", description="Statement month, YYYY-MM.", check="month GLOB '20[0-9][0-9]-[01][0-9]'"
            ),
            col(
                "opening_balance_cents", "INTEGER", description="Balance at the start of the month, in cents."
            ),
            col("closing_balance_cents", "INTEGER", description="Balance at the end of the month, in cents."),
            col(
                "credits_cents",
                "INTEGER",
                description="Total money in, in cents.",
                check="credits_cents >= 0",
            ),
            col(
                "debits_cents", "INTEGER", description="Total money out, in cents.", check="debits_cents >= 0"
            ),
            col(
                "fees_cents",
                "INTEGER",
                description="Fees charged in the month, in cents.",
                check="fees_cents >= 0",
            ),
        ],
    )
    return [customers, accounts, cards, payees, transactions, disputes, scheduled, statements]
