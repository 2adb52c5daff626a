"""Tool declarations of the telecom environment: schemas, effects, tables, entities and claims."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit
from envfactory_mcp.blueprints.kit import Schema
from envfactory_mcp.spec import ParamSpec, ToolSpec

from .spec_tables import (
    BILL_ITEM_KINDS,
    BILL_STATUSES,
    DEVICE_STATUSES,
    LINE_STATUSES,
    OUTAGE_SERVICES,
    OUTAGE_STATUSES,
    PAYMENT_METHOD_KINDS,
    SUSPENSION_REASONS,
    TICKET_CATEGORIES,
    TICKET_STATUSES,
    TIERS,
    TOPUP_SIZES,
)

MONEY: Schema = {"type": "number", "description": "Dollars, two decimals."}
GB: Schema = {"type": ["number", "null"], "description": "Gigabytes, two decimals; null means unlimited."}
TEXT: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
INT: Schema = {"type": "integer"}

CUSTOMER_ID = kit.string(
    11, "Internal customer id from a find_customer_id_* tool, e.g. 'cust_000042'.", pattern=r"^cust_[0-9]{6}$"
)
PHONE = kit.string(
    10, "Ten-digit phone number of the line, digits only, e.g. '5125550143'.", pattern=r"^[0-9]{10}$"
)
PLAN_ID = kit.string(20, "Plan id from list_plans, e.g. 'plan_value15'.", pattern=r"^plan_[a-z0-9]{2,15}$")
BILL_ID = kit.string(9, "Bill number as printed on the statement, e.g. 'B26050123'.", pattern=r"^B[0-9]{8}$")
TICKET_ID = kit.string(9, "Ticket number, e.g. 'TKT004512'.", pattern=r"^TKT[0-9]{6}$")
DEVICE_ID = kit.string(10, "Device id from get_line_details, e.g. 'dev_000123'.", pattern=r"^dev_[0-9]{6}$")
MODEL_ID = kit.string(
    8, "Device model id from list_device_models, e.g. 'mdl_0007'.", pattern=r"^mdl_[0-9]{4}$"
)
PAYMENT_METHOD_ID = kit.string(
    11, "Payment method id from get_customer_details, e.g. 'card_000123'.", pattern=r"^(card|bank)_[0-9]{6}$"
)

PLAN_OUT = kit.obj(
    {
        "plan_id": TEXT,
        "name": TEXT,
        "monthly_price": MONEY,
        "data_gb": GB,
        "roaming_included": BOOL,
        "topup_price_per_gb": kit.nullable("number"),
        "available": BOOL,
    }
)
LINE_OUT = kit.obj(
    {
        "phone_number": TEXT,
        "customer_id": TEXT,
        "label": TEXT,
        "status": kit.enum(LINE_STATUSES),
        "suspension_reason": kit.enum(SUSPENSION_REASONS, nullable=True),
        "suspended_since": kit.nullable("string"),
        "suspensions_this_year": INT,
        "plan": PLAN_OUT,
        "pending_plan_id": kit.nullable("string"),
        "pending_plan_effective": kit.nullable("string"),
        "roaming_enabled": BOOL,
        "cycle": TEXT,
        "data_used_gb": {"type": "number"},
        "data_allowance_gb": GB,
        "data_remaining_gb": GB,
        "topups_this_cycle": INT,
        "device_id": kit.nullable("string"),
        "activated_at": TEXT,
    }
)
LINE_OUTPUTS = {
    "phone_number": "line",
    "customer_id": "customer",
    "plan.plan_id": "plan",
    "pending_plan_id": "plan",
    "device_id": "device",
}
LINE_READS = ["customers", "data_topups", "devices", "lines", "plans", "suspensions"]

DEVICE_OUT = kit.obj(
    {
        "device_id": TEXT,
        "phone_number": TEXT,
        "model_id": TEXT,
        "model_name": TEXT,
        "imei": TEXT,
        "status": kit.enum(DEVICE_STATUSES),
        "purchased_at": TEXT,
        "months_owned": INT,
        "installment_balance": MONEY,
        "monthly_installment": MONEY,
        "upgrade_eligible_from": TEXT,
        "upgrade_eligible": BOOL,
    }
)
DEVICE_READS = ["customers", "device_models", "devices", "lines"]

BILL_OUT = kit.obj(
    {
        "bill_id": TEXT,
        "customer_id": TEXT,
        "period": TEXT,
        "label": TEXT,
        "status": kit.enum(BILL_STATUSES),
        "issued_at": kit.nullable("string"),
        "due_date": TEXT,
        "items": kit.array(
            kit.obj(
                {
                    "item_no": INT,
                    "phone_number": kit.nullable("string"),
                    "kind": kit.enum(BILL_ITEM_KINDS),
                    "description": TEXT,
                    "amount": MONEY,
                }
            )
        ),
        "payments": kit.array(
            kit.obj({"payment_id": TEXT, "payment_method_id": TEXT, "amount": MONEY, "created_at": TEXT})
        ),
        "total": MONEY,
        "paid": MONEY,
        "balance_due": MONEY,
    }
)
BILL_OUTPUTS = {
    "bill_id": "bill",
    "customer_id": "customer",
    "items[].phone_number": "line",
    "payments[].payment_id": "payment",
    "payments[].payment_method_id": "payment_method",
}
BILL_READS = ["bill_items", "bills", "payments"]

TICKET_OUT = kit.obj(
    {
        "ticket_id": TEXT,
        "customer_id": TEXT,
        "phone_number": TEXT,
        "category": kit.enum(TICKET_CATEGORIES),
        "status": kit.enum(TICKET_STATUSES),
        "title": TEXT,
        "description": TEXT,
        "created_at": TEXT,
        "updated_at": TEXT,
        "resolved_at": kit.nullable("string"),
        "reopen_until": kit.nullable("string"),
    }
)
TICKET_OUTPUTS = {"ticket_id": "ticket", "customer_id": "customer", "phone_number": "line"}


def build_tools() -> list[ToolSpec]:
    customer_id = (CUSTOMER_ID, kit.param("customer", False))
    phone = (PHONE, kit.param("line", True))
    bill_id = (BILL_ID, kit.param("bill", True))
    ticket_id = (TICKET_ID, kit.param("ticket", True))
    return [
        kit.tool(
            "find_customer_id_by_email",
            "look up my account by email",
            "Find a customer's id from their email address (case-insensitive). Use this to authenticate the "
            "customer before anything else. Fails if no customer has that email.",
            {
                "email": (
                    kit.string(254, "Email address of the customer.", pattern=r"^[^@\s]+@[^@\s]+$"),
                    kit.param(None, True),
                )
            },
            kit.obj({"customer_id": TEXT}),
            reads=["customers"],
            outputs={"customer_id": "customer"},
        ),
        kit.tool(
            "find_customer_id_by_name_dob",
            "look up my account by name and date of birth",
            "Find a customer's id from first name, last name and date of birth (YYYY-MM-DD). Use this to "
            "authenticate a customer who cannot give their email. Fails if no customer, or more than one, matches.",
            {
                "first_name": (kit.string(60, "First name."), kit.param(None, True)),
                "last_name": (kit.string(60, "Last name."), kit.param(None, True)),
                "date_of_birth": (
                    kit.string(10, "Date of birth, YYYY-MM-DD.", pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
                    kit.param(None, True),
                ),
            },
            kit.obj({"customer_id": TEXT}),
            reads=["customers"],
            outputs={"customer_id": "customer"},
        ),
        kit.tool(
            "get_customer_details",
            "see my account",
            "Get a customer's profile: name, email, loyalty tier, home area (city, state, zip), saved payment "
            "methods (cards with expiry month and whether they have expired, bank accounts), and the phone "
            "numbers of their lines, their bill numbers (newest first) and ticket numbers.",
            {"customer_id": customer_id},
            kit.obj(
                {
                    "customer_id": TEXT,
                    "first_name": TEXT,
                    "last_name": TEXT,
                    "email": TEXT,
                    "date_of_birth": TEXT,
                    "tier": kit.enum(TIERS),
                    "home_area": kit.obj({"city": TEXT, "state": TEXT, "zip": TEXT}),
                    "customer_since": TEXT,
                    "payment_methods": kit.array(
                        kit.obj(
                            {
                                "payment_method_id": TEXT,
                                "kind": kit.enum(PAYMENT_METHOD_KINDS),
                                "label": TEXT,
                                "last_four": TEXT,
                                "brand": TEXT,
                                "expires": TEXT,
                                "expired": BOOL,
                            },
                            required=["payment_method_id", "kind", "label", "last_four"],
                        )
                    ),
                    "lines": kit.array(TEXT),
                    "bills": kit.array(TEXT),
                    "tickets": kit.array(TEXT),
                }
            ),
            reads=["bills", "customers", "lines", "payment_methods", "tickets"],
            outputs={
                "customer_id": "customer",
                "payment_methods[].payment_method_id": "payment_method",
                "lines[]": "line",
                "bills[]": "bill",
                "tickets[]": "ticket",
            },
        ),
        kit.tool(
            "get_line_details",
            "check on my line",
            "Get a phone line: its nickname, status (and the open suspension's reason), suspensions this calendar year, the "
            "current plan, a plan change scheduled for the next cycle, roaming, data used, allowance (plan plus "
            "top-ups; null when unlimited) and remaining this cycle, top-ups bought this cycle, and the id of "
            "the device in use.",
            {"phone_number": phone},
            LINE_OUT,
            reads=LINE_READS,
            outputs=LINE_OUTPUTS,
            claims=["status", "data_remaining_gb"],
        ),
        kit.tool(
            "list_plans",
            "see the available plans",
            "List every rate plan with its monthly price, data allowance in GB (null: unlimited), whether roaming "
            "is included, the price of one extra GB and whether it is open to new subscriptions (retired plans "
            "are not).",
            {},
            kit.obj({"plans": kit.array(PLAN_OUT)}),
            reads=["plans"],
            outputs={"plans[].plan_id": "plan"},
            claims=["plans[].monthly_price"],
        ),
        kit.tool(
            "list_device_models",
            "see which phones are sold",
            "List the phones the carrier sells: model id, name, full price, the monthly installment over 24 "
            "months, and whether it is in stock.",
            {},
            kit.obj(
                {
                    "models": kit.array(
                        kit.obj(
                            {
                                "model_id": TEXT,
                                "name": TEXT,
                                "price": MONEY,
                                "monthly_installment": MONEY,
                                "in_stock": BOOL,
                            }
                        )
                    )
                }
            ),
            reads=["device_models"],
            outputs={"models[].model_id": "device_model"},
            claims=["models[].price"],
        ),
        kit.tool(
            "get_device_details",
            "check my phone's upgrade eligibility",
            "Get a device: model, IMEI, purchase date, months owned, remaining installment balance and monthly "
            "installment, the date from which it can be upgraded (24 months after purchase for standard tier, 18 "
            "for gold, 12 for platinum) and whether it can be upgraded now.",
            {"device_id": (DEVICE_ID, kit.param("device", False))},
            DEVICE_OUT,
            reads=DEVICE_READS,
            outputs={"device_id": "device", "phone_number": "line", "model_id": "device_model"},
            claims=["upgrade_eligible", "installment_balance"],
        ),
        kit.tool(
            "get_bill_details",
            "check on my bill",
            "Get a bill: period, status (open: current cycle, not payable yet; issued; overdue; paid), issue and "
            "due dates, line items, payments made, and total, paid and balance due in dollars.",
            {"bill_id": bill_id},
            BILL_OUT,
            reads=BILL_READS,
            outputs=BILL_OUTPUTS,
            claims=["status", "balance_due"],
        ),
        kit.tool(
            "get_ticket_details",
            "check on my support ticket",
            "Get a support ticket: line, category, status (open, in_progress, resolved, closed), title, description, "
            "dates, and until when a resolved ticket can be reopened.",
            {"ticket_id": ticket_id},
            TICKET_OUT,
            reads=["tickets"],
            outputs=TICKET_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "get_outages",
            "check for network outages in my area",
            "List network outages published for a zip code, active first, with the service affected, cause, "
            "start and expected (or actual) resolution time. Use it when a customer reports no service or slow "
            "data: an active outage in their area explains it.",
            {"zip": (kit.string(5, "Five-digit zip code.", pattern=r"^[0-9]{5}$"), kit.param(None, True))},
            kit.obj(
                {
                    "zip": TEXT,
                    "active_outages": INT,
                    "outages": kit.array(
                        kit.obj(
                            {
                                "outage_id": TEXT,
                                "city": TEXT,
                                "state": TEXT,
                                "service": kit.enum(OUTAGE_SERVICES),
                                "status": kit.enum(OUTAGE_STATUSES),
                                "cause": TEXT,
                                "started_at": TEXT,
                                "expected_resolution": TEXT,
                            }
                        )
                    ),
                }
            ),
            reads=["outages"],
            outputs={"outages[].outage_id": "outage"},
            claims=["active_outages"],
        ),
        kit.tool(
            "pay_bill",
            "pay my bill",
            "Pay an issued or overdue bill with one of the customer's saved payment methods (not an expired card). "
            "amount is in dollars and may be a partial payment up to the balance due; leave it out to pay the "
            "whole balance. The bill becomes paid when nothing is left. Returns the updated bill.",
            {
                "bill_id": bill_id,
                "payment_method_id": (PAYMENT_METHOD_ID, kit.param("payment_method", False)),
                "amount": (
                    {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "description": "Dollars to pay, two decimals at most; omit to pay the full balance due.",
                        "examples": [20.0, 35.0, 50.0],
                    },
                    kit.param(None, True),
                ),
            },
            BILL_OUT,
            effect="write",
            reads=[*BILL_READS, "payment_methods"],
            writes=["bills", "payments"],
            outputs=BILL_OUTPUTS,
            claims=["status", "balance_due"],
            required=["bill_id", "payment_method_id"],
        ),
        kit.tool(
            "change_plan",
            "change the plan of my line",
            "Move an active line to another plan open to subscriptions. A cheaper plan takes effect immediately "
            "(and roaming is switched off if the new plan has none); any other change is scheduled for the first "
            "day of the next cycle, replacing a change already scheduled. Suspended lines cannot change plans.",
            {"phone_number": phone, "plan_id": (PLAN_ID, kit.param("plan", False))},
            kit.obj(
                {
                    "phone_number": TEXT,
                    "previous_plan_id": TEXT,
                    "new_plan_id": TEXT,
                    "immediate": BOOL,
                    "effective_date": TEXT,
                    "line": LINE_OUT,
                }
            ),
            effect="write",
            reads=LINE_READS,
            writes=["lines"],
            outputs={
                "phone_number": "line",
                "previous_plan_id": "plan",
                "new_plan_id": "plan",
                **{f"line.{k}": v for k, v in LINE_OUTPUTS.items()},
            },
            claims=["effective_date"],
            idempotent=True,
        ),
        kit.tool(
            "purchase_data_topup",
            "buy extra data",
            "Buy 1, 2 or 5 GB of extra data for an active line on a plan with a data allowance (not unlimited), "
            "at the plan's price per GB, charged to the account's open bill. At most 3 top-ups per line per "
            "cycle.",
            {
                "phone_number": phone,
                "gigabytes": (
                    {"type": "integer", "enum": TOPUP_SIZES, "description": "GB of extra data."},
                    kit.param(None, True),
                ),
            },
            kit.obj(
                {
                    "topup_id": TEXT,
                    "phone_number": TEXT,
                    "gigabytes": INT,
                    "price": MONEY,
                    "charged_to_bill": TEXT,
                    "topups_this_cycle": INT,
                    "data_remaining_gb": GB,
                }
            ),
            effect="write",
            reads=[*LINE_READS, "bill_items", "bills"],
            writes=["bill_items", "data_topups"],
            outputs={"topup_id": "topup", "phone_number": "line", "charged_to_bill": "bill"},
            claims=["price", "data_remaining_gb"],
        ),
        kit.tool(
            "enable_roaming",
            "turn on roaming",
            "Enable roaming on an active line whose plan includes roaming. Returns the line.",
            {"phone_number": phone},
            LINE_OUT,
            effect="write",
            reads=LINE_READS,
            writes=["lines"],
            outputs=LINE_OUTPUTS,
            idempotent=True,
        ),
        kit.tool(
            "disable_roaming",
            "turn off roaming",
            "Disable roaming on a line where it is enabled. Returns the line.",
            {"phone_number": phone},
            LINE_OUT,
            effect="write",
            reads=LINE_READS,
            writes=["lines"],
            outputs=LINE_OUTPUTS,
            idempotent=True,
        ),
        kit.tool(
            "suspend_line",
            "suspend my line",
            "Suspend an active line (no calls, texts or data; the plan is still billed). The reason must be one "
            "of lost device, stolen device, travel, seasonal, financial hardship. A line can be suspended at most "
            "twice per calendar year. Returns the line.",
            {
                "phone_number": phone,
                "reason": (
                    {
                        "type": "string",
                        "enum": SUSPENSION_REASONS,
                        "description": "Why the customer suspends the line.",
                    },
                    kit.param(None, True),
                ),
            },
            LINE_OUT,
            effect="write",
            reads=LINE_READS,
            writes=["lines", "suspensions"],
            outputs=LINE_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "resume_line",
            "resume my suspended line",
            "Resume a suspended line. Not possible while the account has an overdue bill. Returns the line.",
            {"phone_number": phone},
            LINE_OUT,
            effect="write",
            reads=[*LINE_READS, "bills"],
            writes=["lines", "suspensions"],
            outputs=LINE_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "upgrade_device",
            "upgrade my phone",
            "Replace the phone of an active line with a new model in stock, once the current device is eligible "
            "(see get_device_details). The remaining installment balance of the old device is charged to the open "
            "bill as a payoff; the new phone is financed over 24 monthly installments. Returns the payoff and the "
            "new device.",
            {"phone_number": phone, "model_id": (MODEL_ID, kit.param("device_model", False))},
            kit.obj(
                {
                    "phone_number": TEXT,
                    "old_device_id": kit.nullable("string"),
                    "payoff_charge": MONEY,
                    "charged_to_bill": TEXT,
                    "new_device": DEVICE_OUT,
                }
            ),
            effect="write",
            reads=[*LINE_READS, "bill_items", "bills", "device_models"],
            writes=["bill_items", "devices"],
            outputs={
                "phone_number": "line",
                "old_device_id": "device",
                "charged_to_bill": "bill",
                "new_device.device_id": "device",
                "new_device.model_id": "device_model",
            },
            claims=["payoff_charge", "new_device.monthly_installment"],
        ),
        kit.tool(
            "create_ticket",
            "report a problem with my line",
            "Open a support ticket for a line. A line can have only one open or in-progress ticket per category. "
            "No ticket of category 'no service' or 'slow data' is opened while an active outage affects the customer's home zip "
            "code (check get_outages and tell the customer instead). Returns the new ticket.",
            {
                "phone_number": phone,
                "category": (
                    {
                        "type": "string",
                        "enum": TICKET_CATEGORIES,
                        "description": "What the problem is about.",
                    },
                    kit.param(None, True),
                ),
                "description": (
                    {
                        **kit.string(
                            500, "The problem in the customer's words, with what was already tried."
                        ),
                        "examples": [
                            "Calls drop after a few seconds since yesterday",
                            "The phone shows no signal at home",
                            "Mobile data is very slow in the evenings",
                        ],
                    },
                    ParamSpec(user_provided=True, composed=True),
                ),
            },
            TICKET_OUT,
            effect="write",
            reads=["customers", "lines", "outages", "tickets"],
            writes=["tickets"],
            outputs=TICKET_OUTPUTS,
            claims=["ticket_id"],
        ),
        kit.tool(
            "close_ticket",
            "close my support ticket",
            "Close a ticket the customer no longer needs (open, in progress or resolved). A closed ticket cannot "
            "be reopened. Returns the ticket.",
            {"ticket_id": ticket_id},
            TICKET_OUT,
            effect="write",
            reads=["tickets"],
            writes=["tickets"],
            outputs=TICKET_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "reopen_ticket",
            "reopen my support ticket",
            "Reopen a resolved ticket whose problem came back, within 7 days of its resolution; after that, or "
            "for a closed ticket, a new ticket is needed. Returns the ticket.",
            {"ticket_id": ticket_id},
            TICKET_OUT,
            effect="write",
            reads=["tickets"],
            writes=["tickets"],
            outputs=TICKET_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "calculate",
            "work out an amount",
            "Evaluate an arithmetic expression with numbers, + - * /, and parentheses, e.g. '(45 - 35) * 2'. "
            "The result is rounded to 2 decimals. Anything else is rejected.",
            {
                "expression": (
                    {
                        **kit.string(200, "Arithmetic expression."),
                        "examples": ["(45 - 35) * 2", "54.04 + 12.5"],
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
            "Transfer the customer to a human agent, with a summary of the issue. Use only when the customer "
            "explicitly asks for a human or the request cannot be handled with the other tools under the policy.",
            {
                "summary": (
                    kit.string(2000, "Summary of the customer's issue for the human agent."),
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"transferred": BOOL, "message": TEXT, "summary": TEXT}),
        ),
    ]
