"""Tool declarations of the banking environment: schemas, effects, tables and entities."""

from __future__ import annotations

from typing import Any

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

Schema = dict[str, Any]


def _str(max_length: int, description: str, *, pattern: str | None = None, min_length: int = 1) -> Schema:
    schema: Schema = {
        "type": "string",
        "description": description,
        "minLength": min_length,
        "maxLength": max_length,
    }
    if pattern is not None:
        schema["pattern"] = pattern
    return schema


def _obj(properties: dict[str, Schema], required: list[str] | None = None) -> Schema:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


def _arr(items: Schema, description: str = "") -> Schema:
    schema: Schema = {"type": "array", "items": items}
    if description:
        schema["description"] = description
    return schema


def _enum(values: list[Any], nullable: bool = False) -> Schema:
    if nullable:
        return {"type": ["string", "null"], "enum": [*values, None]}
    return {"type": "string", "enum": list(values)}


MONEY: Schema = {"type": "number", "description": "Dollars, two decimals."}
MAYBE_MONEY: Schema = {"type": ["number", "null"], "description": "Dollars, two decimals, or null."}
TEXT: Schema = {"type": "string"}
MAYBE_TEXT: Schema = {"type": ["string", "null"]}
BOOL: Schema = {"type": "boolean"}

CUSTOMER_ID = _str(
    11, "Internal customer id from a find_customer_* tool, e.g. 'cust_000042'.", pattern=r"^cust_[0-9]{6}$"
)
ACCOUNT_ID = _str(
    11, "Internal account id from get_customer_details, e.g. 'acct_000123'.", pattern=r"^acct_[0-9]{6}$"
)
CARD_ID = _str(
    11, "Internal card id from get_customer_details, e.g. 'card_000045'.", pattern=r"^card_[0-9]{6}$"
)
TXN_ID = _str(
    11, "Transaction id from list_account_transactions, e.g. 'txn_0001234'.", pattern=r"^txn_[0-9]{7}$"
)
PAYEE_ID = _str(12, "Payee id from get_customer_details, e.g. 'payee_000031'.", pattern=r"^payee_[0-9]{6}$")
SCHED_ID = _str(
    12, "Scheduled payment id from get_customer_details, e.g. 'sched_000017'.", pattern=r"^sched_[0-9]{6}$"
)
AMOUNT: Schema = {
    "type": "number",
    "description": "Amount in dollars, at most two decimals, e.g. 250.00.",
    "exclusiveMinimum": 0,
    "maximum": 100000,
    "examples": [40.0, 75.0, 120.0, 200.0, 350.0, 500.0, 800.0, 1500.0, 3000.0, 6000.0],
}

Inputs = dict[str, tuple[Schema, ParamSpec]]


def _param(entity: str | None, user_provided: bool) -> ParamSpec:
    return ParamSpec(entity=entity, user_provided=user_provided)


ACCOUNT_SUMMARY = _obj({"account_id": TEXT, "name": TEXT, "balance": MONEY, "available_balance": MONEY})

CARD_OUT = _obj(
    {
        "card_id": TEXT,
        "customer_id": TEXT,
        "account_id": TEXT,
        "kind": _enum(CARD_KINDS),
        "name": TEXT,
        "last_four": TEXT,
        "status": _enum(CARD_STATUSES),
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
    "kind": _enum(TXN_KINDS),
    "name": TEXT,
    "amount": {"type": "number", "description": "Signed dollars: positive in, negative out."},
    "posted_at": TEXT,
    "hold_until": MAYBE_TEXT,
    "payee_id": MAYBE_TEXT,
    "dispute_state": _enum(DISPUTE_STATES),
    "waived": BOOL,
}

SCHEDULED_OUT = _obj(
    {
        "scheduled_payment_id": TEXT,
        "account_id": TEXT,
        "payee_id": TEXT,
        "payee_name": TEXT,
        "amount": MONEY,
        "payment_date": TEXT,
        "status": _enum(SCHEDULED_STATUSES),
        "created_at": TEXT,
    }
)
SCHEDULED_OUTPUTS = {
    "scheduled_payment_id": "scheduled_payment",
    "account_id": "account",
    "payee_id": "payee",
}


def _tool(
    name: str,
    intent: str,
    description: str,
    inputs: Inputs,
    output_schema: Schema,
    *,
    effect: str = "read",
    reads: list[str] | None = None,
    writes: list[str] | None = None,
    outputs: dict[str, str] | None = None,
    claims: list[str] | None = None,
    **hints: bool,
) -> ToolSpec:
    return ToolSpec(
        name=name,
        intent=intent,
        description=description,
        effect=effect,  # type: ignore[arg-type]
        reads=sorted(reads or []),
        writes=sorted(writes or []),
        input_schema=_obj({k: schema for k, (schema, _) in inputs.items()}),
        output_schema=output_schema,
        params={k: param for k, (_, param) in inputs.items()},
        outputs=outputs or {},
        claims=claims or [],
        **hints,
    )


def build_tools() -> list[ToolSpec]:
    customer_id = (CUSTOMER_ID, _param("customer", False))
    account_id = (ACCOUNT_ID, _param("account", False))
    card_id = (CARD_ID, _param("card", False))
    transaction_id = (TXN_ID, _param("transaction", False))
    payee_id = (PAYEE_ID, _param("payee", False))
    amount = (AMOUNT, _param(None, True))
    return [
        _tool(
            "find_customer_by_email",
            "verify my identity with my email",
            "Verify a customer's identity from their email address (case-insensitive) and the zip code of their home "
            "address, and return their customer id. Use this (or find_customer_by_name) before anything else. Fails if they do not match.",
            {
                "email": (
                    _str(254, "Email address of the customer.", pattern=r"^[^@\s]+@[^@\s]+$"),
                    _param(None, True),
                ),
                "zip": (
                    _str(5, "Five-digit zip code of the home address.", pattern=r"^[0-9]{5}$"),
                    _param(None, True),
                ),
            },
            _obj({"customer_id": TEXT}),
            reads=["customers"],
            outputs={"customer_id": "customer"},
        ),
        _tool(
            "find_customer_by_name",
            "verify my identity with my name",
            "Verify a customer's identity from first name, last name and the last four digits of their Social Security "
            "number, and return their customer id. Fails if no customer, or more than one, matches.",
            {
                "first_name": (_str(60, "First name."), _param(None, True)),
                "last_name": (_str(60, "Last name."), _param(None, True)),
                "ssn_last_four": (
                    _str(4, "Last four digits of the SSN.", pattern=r"^[0-9]{4}$"),
                    _param(None, True),
                ),
            },
            _obj({"customer_id": TEXT}),
            reads=["customers"],
            outputs={"customer_id": "customer"},
        ),
        _tool(
            "get_customer_details",
            "see my profile",
            "Get a customer's profile: name, contact details, home address, tier, when a fee was last waived and whether a waiver is "
            "available, their accounts, cards and saved payees (with ids and statuses), and the ids of their "
            "scheduled payments.",
            {"customer_id": customer_id},
            _obj(
                {
                    "customer_id": TEXT,
                    "first_name": TEXT,
                    "last_name": TEXT,
                    "email": TEXT,
                    "phone": TEXT,
                    "address": _obj(
                        {k: dict(TEXT) for k in ("address1", "address2", "city", "state", "country", "zip")}
                    ),
                    "tier": _enum(TIERS),
                    "customer_since": TEXT,
                    "last_fee_waiver_at": MAYBE_TEXT,
                    "fee_waiver_available": BOOL,
                    "accounts": _arr(
                        _obj(
                            {
                                "account_id": TEXT,
                                "kind": _enum(ACCOUNT_KINDS),
                                "name": TEXT,
                                "last_four": TEXT,
                                "status": _enum(ACCOUNT_STATUSES),
                            }
                        )
                    ),
                    "cards": _arr(
                        _obj(
                            {
                                "card_id": TEXT,
                                "kind": _enum(CARD_KINDS),
                                "name": TEXT,
                                "last_four": TEXT,
                                "status": _enum(CARD_STATUSES),
                            }
                        )
                    ),
                    "payees": _arr(
                        _obj(
                            {
                                "payee_id": TEXT,
                                "name": TEXT,
                                "kind": _enum(PAYEE_KINDS),
                                "status": _enum(PAYEE_STATUSES),
                            }
                        )
                    ),
                    "scheduled_payments": _arr(TEXT),
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
        _tool(
            "get_account_details",
            "check my account balance",
            "Get an account: kind, product name, last four digits, status, ledger balance and available balance in "
            "dollars (deposits on hold are not available until their date), deposits on hold, credit limit and amount "
            "owed (credit accounts), overdraft protection, withdrawals in the last 30 days (savings) and the daily payee "
            "limit (checking).",
            {"account_id": account_id},
            _obj(
                {
                    "account_id": TEXT,
                    "customer_id": TEXT,
                    "kind": _enum(ACCOUNT_KINDS),
                    "name": TEXT,
                    "last_four": TEXT,
                    "status": _enum(ACCOUNT_STATUSES),
                    "opened_on": TEXT,
                    "balance": MONEY,
                    "available_balance": MONEY,
                    "credit_limit": MAYBE_MONEY,
                    "amount_owed": MAYBE_MONEY,
                    "overdraft_protection": BOOL,
                    "holds": _arr(_obj({"transaction_id": TEXT, "amount": MONEY, "available_on": TEXT})),
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
        _tool(
            "list_account_transactions",
            "see my recent transactions",
            "List every posted transaction of an account, newest first: id, date, kind, merchant or description, "
            "signed amount in dollars, card used, hold date of deposits, dispute state and whether a fee was waived.",
            {"account_id": account_id},
            _obj({"account_id": TEXT, "transactions": _arr(_obj(dict(TXN_FIELDS)))}),
            reads=["accounts", "transactions"],
            outputs={
                "account_id": "account",
                "transactions[].transaction_id": "transaction",
            },
        ),
        _tool(
            "get_transaction_details",
            "look into a transaction",
            "Get one transaction with its dispute, if any (status, reason, provisional credit).",
            {"transaction_id": transaction_id},
            _obj(
                {
                    **TXN_FIELDS,
                    "dispute": {
                        "type": ["object", "null"],
                        "properties": {
                            "dispute_id": TEXT,
                            "status": _enum(DISPUTE_STATUSES),
                            "reason": _enum(DISPUTE_REASONS),
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
        _tool(
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
        _tool(
            "get_statement",
            "get my monthly statement",
            "Get the statement of an account for one completed month (YYYY-MM): opening and closing balance, total "
            "credits, debits and fees, in dollars.",
            {
                "account_id": account_id,
                "month": (
                    _str(7, "Statement month, YYYY-MM, e.g. '2026-04'.", pattern=r"^20[0-9]{2}-[01][0-9]$"),
                    _param(None, True),
                ),
            },
            _obj(
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
        _tool(
            "get_scheduled_payment",
            "check on a scheduled payment",
            "Get a scheduled payment: account, payee, amount, date and status.",
            {"schedule_id": (SCHED_ID, _param("scheduled_payment", False))},
            SCHEDULED_OUT,
            reads=["payees", "scheduled_payments"],
            outputs=SCHEDULED_OUTPUTS,
            claims=["status"],
        ),
        _tool(
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
        _tool(
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
        _tool(
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
        _tool(
            "report_card_lost",
            "report my card lost or stolen",
            "Report an inactive, active or frozen card lost or stolen: it is blocked for good and a replacement card "
            "(new number, inactive until activated) is issued on the same account. Expedited shipping costs $25.00, "
            "charged to the card's account, except for premier customers. Returns the old card's status, the "
            "replacement and the fee.",
            {
                "card_id": card_id,
                "reason": (
                    {**_enum(LOSS_REASONS), "description": "Whether the card was lost or stolen."},
                    _param(None, True),
                ),
                "shipping": (
                    {
                        **_enum(["standard", "expedited"]),
                        "description": "Standard (7-10 business days) or expedited (1-2).",
                    },
                    _param(None, True),
                ),
            },
            _obj(
                {
                    "card_id": TEXT,
                    "status": _enum(CARD_STATUSES),
                    "replacement": _obj(
                        {
                            "card_id": TEXT,
                            "last_four": TEXT,
                            "status": _enum(CARD_STATUSES),
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
        _tool(
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
                    _param(None, True),
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
        _tool(
            "transfer_between_accounts",
            "move money between my accounts",
            "Transfer money now between two open accounts of the same customer. Not from a credit account; to a "
            "credit account it pays the card, at most the amount owed. A savings account allows at most 6 withdrawals "
            "in any 30 days. Only available funds can be moved; from a checking account with overdraft protection a "
            "shortfall is drawn from the customer's savings. Returns both accounts' balances.",
            {"from_account_id": account_id, "to_account_id": account_id, "amount": amount},
            _obj(
                {
                    "from_account": ACCOUNT_SUMMARY,
                    "to_account": ACCOUNT_SUMMARY,
                    "amount": MONEY,
                    "transaction_ids": _arr(TEXT),
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
        _tool(
            "send_to_payee",
            "pay someone I saved as a payee",
            "Pay a saved, active payee now from an open checking account. Payments to payees are limited per day by "
            "tier (standard $2,500.00, plus $5,000.00, premier $10,000.00 in all). Only available funds can be sent; "
            "with overdraft protection a shortfall is drawn from the customer's savings. Returns the account balance.",
            {"from_account_id": account_id, "payee_id": payee_id, "amount": amount},
            _obj(
                {
                    "account": ACCOUNT_SUMMARY,
                    "payee_id": TEXT,
                    "payee_name": TEXT,
                    "amount": MONEY,
                    "sent_today": MONEY,
                    "daily_limit": MONEY,
                    "transaction_ids": _arr(TEXT),
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
        _tool(
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
                    _str(10, "Date to pay, YYYY-MM-DD.", pattern=r"^20[0-9]{2}-[01][0-9]-[0-3][0-9]$"),
                    _param(None, True),
                ),
            },
            SCHEDULED_OUT,
            effect="write",
            reads=["accounts", "customers", "payees", "scheduled_payments"],
            writes=["scheduled_payments"],
            outputs=SCHEDULED_OUTPUTS,
        ),
        _tool(
            "cancel_scheduled_payment",
            "cancel a scheduled payment",
            "Cancel a scheduled payment that is still scheduled and not due today. Returns it.",
            {"schedule_id": (SCHED_ID, _param("scheduled_payment", False))},
            SCHEDULED_OUT,
            effect="write",
            reads=["payees", "scheduled_payments"],
            writes=["scheduled_payments"],
            outputs=SCHEDULED_OUTPUTS,
            claims=["status"],
            idempotent=True,
        ),
        _tool(
            "file_dispute",
            "dispute a charge",
            "Dispute a card purchase posted in the last 60 days that has never been disputed. A provisional credit of "
            "the full amount is posted to the account at once when the amount is at most the tier's threshold "
            "(standard $500.00, plus $1,000.00, premier $2,500.00); larger disputes get no provisional credit. "
            "Returns the dispute and the account balance.",
            {
                "transaction_id": transaction_id,
                "reason": (
                    {**_enum(list(DISPUTE_REASONS)), "description": "Why the customer disputes the charge."},
                    _param(None, True),
                ),
            },
            _obj(
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
        _tool(
            "set_overdraft_protection",
            "change overdraft protection on my checking",
            "Turn overdraft protection of an open checking account on or off. Turning it on needs an open savings "
            "account of the same customer, which then covers shortfalls.",
            {
                "account_id": account_id,
                "setting": ({**_enum(["on", "off"]), "description": "'on' or 'off'."}, _param(None, True)),
            },
            _obj({"account_id": TEXT, "overdraft_protection": BOOL, "linked_savings_account_id": MAYBE_TEXT}),
            effect="write",
            reads=["accounts"],
            writes=["accounts"],
            outputs={"account_id": "account", "linked_savings_account_id": "account"},
            idempotent=True,
        ),
        _tool(
            "waive_fee",
            "get a fee refunded",
            "Waive a fee that has not been waived, on an open account: the fee is refunded to the account as a new "
            "transaction. A customer can have at most one fee waived every 12 months. Returns the refund and the "
            "account balance.",
            {"transaction_id": transaction_id},
            _obj(
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
        _tool(
            "calculate",
            "work out an amount",
            "Evaluate an arithmetic expression with numbers, + - * /, and parentheses, e.g. '(1250.00 - 89.5) * 2'. "
            "The result is rounded to 2 decimals. Anything else is rejected.",
            {
                "expression": (
                    {
                        **_str(200, "Arithmetic expression."),
                        "examples": ["(1250.00 - 89.5) * 2", "54.04 + 12.5"],
                    },
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            _obj({"expression": TEXT, "result": {"type": "number"}}),
            claims=["result"],
        ),
        _tool(
            "transfer_to_human_agents",
            "talk to a human",
            "Transfer the customer to a human agent, with a summary of the issue. Use only when the customer explicitly "
            "asks for a human or the request cannot be handled with the other tools under the policy.",
            {
                "summary": (
                    _str(2000, "Summary of the customer's issue for the human agent."),
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            _obj({"transferred": BOOL, "message": TEXT, "summary": TEXT}),
        ),
    ]
