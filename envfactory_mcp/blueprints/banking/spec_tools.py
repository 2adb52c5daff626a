"""Tool declarations of the banking environment: schemas, effects, tables and entities."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit
from envfactory_mcp.blueprints.kit import Schema
from envfactory_mcp.spec import ParamSpec, ToolSpec

from .spec_tables import (
    ACCOUNT_KINDS,
    ACCOUNT_STATUSES,
    CARD_KINDS,
    CARD_STATUSES,
    DISPUTE_REASONS,
    DISPUTE_STATES,
    DISPUTE_STATUSES,
    LOSS_REASONS,
    PAYEE_KINDS,
    PAYEE_STATUSES,
    SCHEDULED_STATUSES,
    TIERS,
    TXN_KINDS,
)

MONEY: Schema = {"type": "number", "description": "Dollars, two decimals."}
MAYBE_MONEY: Schema = {"type": ["number", "null"], "description": "Dollars, two decimals, or null."}
TEXT: Schema = {"type": "string"}
MAYBE_TEXT: Schema = {"type": ["string", "null"]}
BOOL: Schema = {"type": "boolean"}

CUSTOMER_ID = kit.string(
    11, "Internal customer id from a find_customer_* tool, e.g. 'cust_000042'.", pattern=r"^cust_[0-9]{6}$"
)
ACCOUNT_ID = kit.string(
    11, "Internal account id from get_customer_details, e.g. 'acct_000123'.", pattern=r"^acct_[0-9]{6}$"
)
CARD_ID = kit.string(
    11, "Internal card id from get_customer_details, e.g. 'card_000045'.", pattern=r"^card_[0-9]{6}$"
)
TXN_ID = kit.string(
    11, "Transaction id from list_account_transactions, e.g. 'txn_0001234'.", pattern=r"^txn_[0-9]{7}$"
)
PAYEE_ID = kit.string(
    12, "Payee id from get_customer_details, e.g. 'payee_000031'.", pattern=r"^payee_[0-9]{6}$"
)
SCHED_ID = kit.string(
    12, "Scheduled payment id from get_customer_details, e.g. 'sched_000017'.", pattern=r"^sched_[0-9]{6}$"
)
AMOUNT: Schema = {
    "type": "number",
    "description": "Amount in dollars, at most two decimals, e.g. 250.00.",
    "exclusiveMinimum": 0,
    "maximum": 100000,
    "examples": [40.0, 75.0, 120.0, 200.0, 350.0, 500.0, 800.0, 1500.0, 3000.0, 6000.0],
}


ACCOUNT_SUMMARY = kit.obj({"account_id": TEXT, "name": TEXT, "balance": MONEY, "available_balance": MONEY})

CARD_OUT = kit.obj(
    {
        "card_id": TEXT,
        "customer_id": TEXT,
        "account_id": TEXT,
        "kind": kit.enum(CARD_KINDS),
        "name": TEXT,
        "last_four": TEXT,
        "status": kit.enum(CARD_STATUSES),
        "expires": TEXT,
        "issued_on": TEXT,
        "daily_limit": MAYBE_MONEY,
        "max_daily_limit": MAYBE_MONEY,
        "replaces_card_id": MAYBE_TEXT,
        "replaced_by_card_id": MAYBE_TEXT,
    }
)
CARD_OUTPUTS = {
    "card_id": "card",
    "customer_id": "customer",
    "account_id": "account",
    "replaces_card_id": "card",
    "replaced_by_card_id": "card",
}
CARD_READS = ["accounts", "cards", "customers"]

TXN_FIELDS: dict[str, Schema] = {
    "transaction_id": TEXT,
    "account_id": TEXT,
    "card_id": MAYBE_TEXT,
    "kind": kit.enum(TXN_KINDS),
    "name": TEXT,
    "amount": {"type": "number", "description": "Signed dollars: positive in, negative out."},
    "posted_at": TEXT,
    "hold_until": MAYBE_TEXT,
    "payee_id": MAYBE_TEXT,
    "dispute_state": kit.enum(DISPUTE_STATES),
    "waived": BOOL,
}

SCHEDULED_OUT = kit.obj(
    {
        "scheduled_payment_id": TEXT,
        "account_id": TEXT,
        "payee_id": TEXT,
        "payee_name": TEXT,
        "amount": MONEY,
        "payment_date": TEXT,
        "status": kit.enum(SCHEDULED_STATUSES),
        "created_at": TEXT,
    }
)
SCHEDULED_OUTPUTS = {
    "scheduled_payment_id": "scheduled_payment",
    "account_id": "account",
    "payee_id": "payee",
}


def build_tools() -> list[ToolSpec]:
    customer_id = (CUSTOMER_ID, kit.param("customer", False))
    account_id = (ACCOUNT_ID, kit.param("account", False))
    card_id = (CARD_ID, kit.param("card", False))
    transaction_id = (TXN_ID, kit.param("transaction", False))
    payee_id = (PAYEE_ID, kit.param("payee", False))
    amount = (AMOUNT, kit.param(None, True))
    return [
        kit.tool(
            "find_customer_by_email",
            "verify my identity with my email",
            "Verify a customer's identity from their email address (case-insensitive) and the zip code of their home "
            "address, and return their customer id. Use this (or find_customer_by_name) before anything else. Fails if they do not match.",
            {
                "email": (
                    kit.string(254, "Email address of the customer.", pattern=r"^[^@\s]+@[^@\s]+$"),
                    kit.param(None, True),
                ),
                "zip": (
                    kit.string(5, "Five-digit zip code of the home address.", pattern=r"^[0-9]{5}$"),
                    kit.param(None, True),
                ),
            },
            kit.obj({"customer_id": TEXT}),
            reads=["customers"],
            outputs={"customer_id": "customer"},
        ),
        kit.tool(
            "find_customer_by_name",
            "verify my identity with my name",
            "Verify a customer's identity from first name, last name and the last four digits of their Social Security "
            "number, and return their customer id. Fails if no customer, or more than one, matches.",
            {
                "first_name": (kit.string(60, "First name."), kit.param(None, True)),
                "last_name": (kit.string(60, "Last name."), kit.param(None, True)),
                "ssn_last_four": (
                    kit.string(4, "Last four digits of the SSN.", pattern=r"^[0-9]{4}$"),
                    kit.param(None, True),
                ),
            },
            kit.obj({"customer_id": TEXT}),
            reads=["customers"],
            outputs={"customer_id": "customer"},
        ),
        kit.tool(
            "get_customer_details",
            "see my profile",
            "Get a customer's profile: name, contact details, home address, tier, when a fee was last waived and whether a waiver is "
            "available, their accounts, cards and saved payees (with ids and statuses), and the ids of their "
            "scheduled payments.",
            {"customer_id": customer_id},
            kit.obj(
                {
                    "customer_id": TEXT,
                    "first_name": TEXT,
                    "last_name": TEXT,
                    "email": TEXT,
                    "phone": TEXT,
                    "address": kit.obj(
                        {k: dict(TEXT) for k in ("address1", "address2", "city", "state", "country", "zip")}
                    ),
                    "tier": kit.enum(TIERS),
                    "customer_since": TEXT,
                    "last_fee_waiver_at": MAYBE_TEXT,
                    "fee_waiver_available": BOOL,
                    "accounts": kit.array(
                        kit.obj(
                            {
                                "account_id": TEXT,
                                "kind": kit.enum(ACCOUNT_KINDS),
                                "name": TEXT,
                                "last_four": TEXT,
                                "status": kit.enum(ACCOUNT_STATUSES),
                            }
                        )
                    ),
                    "cards": kit.array(
                        kit.obj(
                            {
                                "card_id": TEXT,
                                "kind": kit.enum(CARD_KINDS),
                                "name": TEXT,
                                "last_four": TEXT,
                                "status": kit.enum(CARD_STATUSES),
                            }
                        )
                    ),
                    "payees": kit.array(
                        kit.obj(
                            {
                                "payee_id": TEXT,
                                "name": TEXT,
                                "kind": kit.enum(PAYEE_KINDS),
                                "status": kit.enum(PAYEE_STATUSES),
                            }
                        )
                    ),
                    "scheduled_payments": kit.array(TEXT),
                }
            ),
            reads=["accounts", "cards", "customers", "payees", "scheduled_payments"],
            outputs={
                "customer_id": "customer",
                "accounts[].account_id": "account",
                "cards[].card_id": "card",
                "payees[].payee_id": "payee",
                "scheduled_payments[]": "scheduled_payment",
            },
        ),
        kit.tool(
            "get_account_details",
            "check my account balance",
            "Get an account: kind, product name, last four digits, status, ledger balance and available balance in "
            "dollars (deposits on hold are not available until their date), deposits on hold, credit limit and amount "
            "owed (credit accounts), overdraft protection, withdrawals in the last 30 days (savings) and the daily payee "
            "limit (checking).",
            {"account_id": account_id},
            kit.obj(
                {
                    "account_id": TEXT,
                    "customer_id": TEXT,
                    "kind": kit.enum(ACCOUNT_KINDS),
                    "name": TEXT,
                    "last_four": TEXT,
                    "status": kit.enum(ACCOUNT_STATUSES),
                    "opened_on": TEXT,
                    "balance": MONEY,
                    "available_balance": MONEY,
                    "credit_limit": MAYBE_MONEY,
                    "amount_owed": MAYBE_MONEY,
                    "overdraft_protection": BOOL,
                    "holds": kit.array(
                        kit.obj({"transaction_id": TEXT, "amount": MONEY, "available_on": TEXT})
                    ),
                    "savings_withdrawals_last_30_days": {"type": ["integer", "null"]},
                    "daily_payee_limit": MAYBE_MONEY,
                }
            ),
            reads=["accounts", "customers", "transactions"],
            outputs={
                "account_id": "account",
                "customer_id": "customer",
            },
            claims=["available_balance"],
        ),
        kit.tool(
            "list_account_transactions",
            "see my recent transactions",
            "List every posted transaction of an account, newest first: id, date, kind, merchant or description, "
            "signed amount in dollars, card used, hold date of deposits, dispute state and whether a fee was waived.",
            {"account_id": account_id},
            kit.obj({"account_id": TEXT, "transactions": kit.array(kit.obj(dict(TXN_FIELDS)))}),
            reads=["accounts", "transactions"],
            outputs={
                "account_id": "account",
                "transactions[].transaction_id": "transaction",
            },
        ),
        kit.tool(
            "get_transaction_details",
            "look into a transaction",
            "Get one transaction with its dispute, if any (status, reason, provisional credit).",
            {"transaction_id": transaction_id},
            kit.obj(
                {
                    **TXN_FIELDS,
                    "dispute": {
                        "type": ["object", "null"],
                        "properties": {
                            "dispute_id": TEXT,
                            "status": kit.enum(DISPUTE_STATUSES),
                            "reason": kit.enum(DISPUTE_REASONS),
                            "provisional_credit": MONEY,
                            "opened_at": TEXT,
                        },
                        "required": ["dispute_id", "status", "reason", "provisional_credit", "opened_at"],
                        "additionalProperties": False,
                    },
                }
            ),
            reads=["disputes", "transactions"],
            outputs={
                "transaction_id": "transaction",
                "account_id": "account",
                "dispute.dispute_id": "dispute",
            },
            claims=["dispute_state"],
        ),
        kit.tool(
            "get_card_details",
            "check on my card",
            "Get a card: kind, product name, last four digits, status, expiry, the account it draws on, the daily "
            "limit and the highest limit allowed for the customer's tier (debit cards), and which card it replaces or "
            "was replaced by.",
            {"card_id": card_id},
            CARD_OUT,
            reads=CARD_READS,
            outputs=CARD_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "get_statement",
            "get my monthly statement",
            "Get the statement of an account for one completed month (YYYY-MM): opening and closing balance, total "
            "credits, debits and fees, in dollars.",
            {
                "account_id": account_id,
                "month": (
                    kit.string(
                        7, "Statement month, YYYY-MM, e.g. '2026-04'.", pattern=r"^20[0-9]{2}-[01][0-9]$"
                    ),
                    kit.param(None, True),
                ),
            },
            kit.obj(
                {
                    "statement_id": TEXT,
                    "account_id": TEXT,
                    "month": TEXT,
                    "opening_balance": MONEY,
                    "closing_balance": MONEY,
                    "credits": MONEY,
                    "debits": MONEY,
                    "fees": MONEY,
                }
            ),
            reads=["accounts", "statements"],
            outputs={"statement_id": "statement"},
            claims=["closing_balance"],
        ),
        kit.tool(
            "get_scheduled_payment",
            "check on a scheduled payment",
            "Get a scheduled payment: account, payee, amount, date and status.",
            {"schedule_id": (SCHED_ID, kit.param("scheduled_payment", False))},
            SCHEDULED_OUT,
            reads=["payees", "scheduled_payments"],
            outputs=SCHEDULED_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "activate_card",
            "activate my new card",
            "Activate an inactive card (a new or replacement card). Expired cards cannot be activated, nor cards "
            "of an account that is not open. Returns the card.",
            {"card_id": card_id},
            CARD_OUT,
            effect="write",
            reads=CARD_READS,
            writes=["cards"],
            outputs=CARD_OUTPUTS,
            claims=["status"],
            idempotent=True,
        ),
        kit.tool(
            "freeze_card",
            "freeze my card",
            "Temporarily freeze an active card: purchases and withdrawals are declined until it is unfrozen. Returns "
            "the card.",
            {"card_id": card_id},
            CARD_OUT,
            effect="write",
            reads=CARD_READS,
            writes=["cards"],
            outputs=CARD_OUTPUTS,
            claims=["status"],
            idempotent=True,
        ),
        kit.tool(
            "unfreeze_card",
            "unfreeze my card",
            "Unfreeze a frozen card so it works again; the card's account must be open. Returns the card.",
            {"card_id": card_id},
            CARD_OUT,
            effect="write",
            reads=CARD_READS,
            writes=["cards"],
            outputs=CARD_OUTPUTS,
            claims=["status"],
            idempotent=True,
        ),
        kit.tool(
            "report_card_lost",
            "report my card lost or stolen",
            "Report an inactive, active or frozen card lost or stolen: it is blocked for good and a replacement card "
            "(new number, inactive until activated) is issued on the same account. Expedited shipping costs $25.00, "
            "charged to the card's account, except for premier customers. Returns the old card's status, the "
            "replacement and the fee.",
            {
                "card_id": card_id,
                "reason": (
                    {**kit.enum(LOSS_REASONS), "description": "Whether the card was lost or stolen."},
                    kit.param(None, True),
                ),
                "shipping": (
                    {
                        **kit.enum(["standard", "expedited"]),
                        "description": "Standard (7-10 business days) or expedited (1-2).",
                    },
                    kit.param(None, True),
                ),
            },
            kit.obj(
                {
                    "card_id": TEXT,
                    "status": kit.enum(CARD_STATUSES),
                    "replacement": kit.obj(
                        {
                            "card_id": TEXT,
                            "last_four": TEXT,
                            "status": kit.enum(CARD_STATUSES),
                            "expires": TEXT,
                            "shipping": TEXT,
                            "arrives_in": TEXT,
                        }
                    ),
                    "fee": MONEY,
                }
            ),
            effect="write",
            reads=["accounts", "cards", "customers", "payees", "transactions"],
            writes=["accounts", "cards", "transactions"],
            outputs={"card_id": "card", "replacement.card_id": "card"},
            claims=["replacement.last_four", "fee"],
        ),
        kit.tool(
            "update_card_limit",
            "change the daily limit on my debit card",
            "Set the daily purchase and ATM limit of an active or frozen debit card, in dollars, between $100.00 and "
            "the tier's maximum (standard $1,000.00, plus $2,500.00, premier $5,000.00). Returns the card.",
            {
                "card_id": card_id,
                "daily_limit": (
                    {
                        "type": "number",
                        "description": "New daily limit in dollars.",
                        "exclusiveMinimum": 0,
                        "maximum": 100000,
                        "examples": [300.0, 500.0, 750.0, 1000.0, 1500.0, 2000.0, 3000.0, 4000.0],
                    },
                    kit.param(None, True),
                ),
            },
            CARD_OUT,
            effect="write",
            reads=CARD_READS,
            writes=["cards"],
            outputs=CARD_OUTPUTS,
            claims=["daily_limit"],
            idempotent=True,
        ),
        kit.tool(
            "transfer_between_accounts",
            "move money between my accounts",
            "Transfer money now between two open accounts of the same customer. Not from a credit account; to a "
            "credit account it pays the card, at most the amount owed. A savings account allows at most 6 withdrawals "
            "in any 30 days. Only available funds can be moved; from a checking account with overdraft protection a "
            "shortfall is drawn from the customer's savings. Returns both accounts' balances.",
            {"from_account_id": account_id, "to_account_id": account_id, "amount": amount},
            kit.obj(
                {
                    "from_account": ACCOUNT_SUMMARY,
                    "to_account": ACCOUNT_SUMMARY,
                    "amount": MONEY,
                    "transaction_ids": kit.array(TEXT),
                }
            ),
            effect="write",
            reads=["accounts", "cards", "customers", "payees", "transactions"],
            writes=["accounts", "transactions"],
            outputs={
                "from_account.account_id": "account",
                "to_account.account_id": "account",
            },
            claims=["from_account.available_balance"],
        ),
        kit.tool(
            "send_to_payee",
            "pay someone I saved as a payee",
            "Pay a saved, active payee now from an open checking account. Payments to payees are limited per day by "
            "tier (standard $2,500.00, plus $5,000.00, premier $10,000.00 in all). Only available funds can be sent; "
            "with overdraft protection a shortfall is drawn from the customer's savings. Returns the account balance.",
            {"from_account_id": account_id, "payee_id": payee_id, "amount": amount},
            kit.obj(
                {
                    "account": ACCOUNT_SUMMARY,
                    "payee_id": TEXT,
                    "payee_name": TEXT,
                    "amount": MONEY,
                    "sent_today": MONEY,
                    "daily_limit": MONEY,
                    "transaction_ids": kit.array(TEXT),
                }
            ),
            effect="write",
            reads=["accounts", "cards", "customers", "payees", "transactions"],
            writes=["accounts", "transactions"],
            outputs={
                "account.account_id": "account",
                "payee_id": "payee",
            },
            claims=["account.available_balance"],
        ),
        kit.tool(
            "schedule_payment",
            "schedule a payment",
            "Schedule a payment to a saved, active payee from an open checking account on a future date (YYYY-MM-DD, "
            "at most 365 days ahead); the amount may not exceed the tier's daily payee limit, and the same payee "
            "cannot be scheduled twice for one date from one account. Funds are taken on that date. Returns the "
            "scheduled payment.",
            {
                "from_account_id": account_id,
                "payee_id": payee_id,
                "amount": amount,
                "payment_date": (
                    kit.string(10, "Date to pay, YYYY-MM-DD.", pattern=r"^20[0-9]{2}-[01][0-9]-[0-3][0-9]$"),
                    kit.param(None, True),
                ),
            },
            SCHEDULED_OUT,
            effect="write",
            reads=["accounts", "customers", "payees", "scheduled_payments"],
            writes=["scheduled_payments"],
            outputs=SCHEDULED_OUTPUTS,
        ),
        kit.tool(
            "cancel_scheduled_payment",
            "cancel a scheduled payment",
            "Cancel a scheduled payment that is still scheduled and not due today. Returns it.",
            {"schedule_id": (SCHED_ID, kit.param("scheduled_payment", False))},
            SCHEDULED_OUT,
            effect="write",
            reads=["payees", "scheduled_payments"],
            writes=["scheduled_payments"],
            outputs=SCHEDULED_OUTPUTS,
            claims=["status"],
            idempotent=True,
        ),
        kit.tool(
            "file_dispute",
            "dispute a charge",
            "Dispute a card purchase posted in the last 60 days that has never been disputed. A provisional credit of "
            "the full amount is posted to the account at once when the amount is at most the tier's threshold "
            "(standard $500.00, plus $1,000.00, premier $2,500.00); larger disputes get no provisional credit. "
            "Returns the dispute and the account balance.",
            {
                "transaction_id": transaction_id,
                "reason": (
                    {
                        **kit.enum(list(DISPUTE_REASONS)),
                        "description": "Why the customer disputes the charge.",
                    },
                    kit.param(None, True),
                ),
            },
            kit.obj(
                {
                    "dispute_id": TEXT,
                    "transaction_id": TEXT,
                    "status": TEXT,
                    "reason": TEXT,
                    "provisional_credit": MONEY,
                    "account": ACCOUNT_SUMMARY,
                }
            ),
            effect="write",
            reads=["accounts", "cards", "customers", "disputes", "payees", "transactions"],
            writes=["accounts", "disputes", "transactions"],
            outputs={
                "dispute_id": "dispute",
                "transaction_id": "transaction",
                "account.account_id": "account",
            },
            claims=["provisional_credit"],
        ),
        kit.tool(
            "set_overdraft_protection",
            "change overdraft protection on my checking",
            "Turn overdraft protection of an open checking account on or off. Turning it on needs an open savings "
            "account of the same customer, which then covers shortfalls.",
            {
                "account_id": account_id,
                "setting": (
                    {**kit.enum(["on", "off"]), "description": "'on' or 'off'."},
                    kit.param(None, True),
                ),
            },
            kit.obj(
                {"account_id": TEXT, "overdraft_protection": BOOL, "linked_savings_account_id": MAYBE_TEXT}
            ),
            effect="write",
            reads=["accounts"],
            writes=["accounts"],
            outputs={"account_id": "account", "linked_savings_account_id": "account"},
            idempotent=True,
        ),
        kit.tool(
            "waive_fee",
            "get a fee refunded",
            "Waive a fee that has not been waived, on an open account: the fee is refunded to the account as a new "
            "transaction. A customer can have at most one fee waived every 12 months. Returns the refund and the "
            "account balance.",
            {"transaction_id": transaction_id},
            kit.obj(
                {
                    "transaction_id": TEXT,
                    "refund_transaction_id": TEXT,
                    "amount": MONEY,
                    "account": ACCOUNT_SUMMARY,
                }
            ),
            effect="write",
            reads=["accounts", "cards", "customers", "payees", "transactions"],
            writes=["accounts", "customers", "transactions"],
            outputs={
                "transaction_id": "transaction",
                "account.account_id": "account",
            },
            claims=["amount"],
        ),
        kit.tool(
            "calculate",
            "work out an amount",
            "Evaluate an arithmetic expression with numbers, + - * /, and parentheses, e.g. '(1250.00 - 89.5) * 2'. "
            "The result is rounded to 2 decimals. Anything else is rejected.",
            {
                "expression": (
                    {
                        **kit.string(200, "Arithmetic expression."),
                        "examples": ["(1250.00 - 89.5) * 2", "54.04 + 12.5"],
                    },
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"expression": TEXT, "result": {"type": "number"}}),
            claims=["result"],
        ),
        kit.tool(
            "transfer_to_human_agents",
            "talk to a human",
            "Transfer the customer to a human agent, with a summary of the issue. Use only when the customer explicitly "
            "asks for a human or the request cannot be handled with the other tools under the policy.",
            {
                "summary": (
                    kit.string(2000, "Summary of the customer's issue for the human agent."),
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"transferred": BOOL, "message": TEXT, "summary": TEXT}),
        ),
    ]
