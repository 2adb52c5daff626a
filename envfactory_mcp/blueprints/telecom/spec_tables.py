"""Tables of the telecom environment. Money is INTEGER cents, data INTEGER megabytes; statuses are enums."""

from __future__ import annotations

from typing import Any

from envfactory_mcp.blueprints.kit import col
from envfactory_mcp.spec import ColumnSpec, TableSpec

TIERS = ["standard", "gold", "platinum"]
PAYMENT_METHOD_KINDS = ["credit_card", "debit_card", "bank_account"]
CARD_BRANDS = ["visa", "mastercard", "amex", "discover"]
LINE_STATUSES = ["active", "suspended"]
SUSPENSION_REASONS = ["lost device", "stolen device", "travel", "seasonal", "financial hardship"]
DEVICE_STATUSES = ["in_use", "replaced"]
BILL_STATUSES = ["open", "issued", "overdue", "paid"]
BILL_ITEM_KINDS = [
    "plan",
    "device_installment",
    "device_payoff",
    "data_topup",
    "roaming",
    "taxes_fees",
    "late_fee",
]
TICKET_CATEGORIES = ["no service", "slow data", "billing", "device", "roaming", "other"]
TICKET_STATUSES = ["open", "in_progress", "resolved", "closed"]
OUTAGE_SERVICES = ["voice", "data", "voice_and_data"]
OUTAGE_STATUSES = ["active", "resolved"]
TOPUP_SIZES = [1, 2, 5]


def _ref(name: str, target: str, entity: str, description: str, **kw: Any) -> ColumnSpec:
    return col(name, description=description, references=target, entity=entity, **kw)


def build_tables() -> list[TableSpec]:
    customers = TableSpec(
        name="customers",
        entity="customer",
        description="Account holders of the carrier, with their loyalty tier and home area.",
        primary_key=["customer_id"],
        columns=[
            col("customer_id", description="Internal customer id, e.g. 'cust_000042'.", entity="customer"),
            col("first_name", description="First name.", check="length(first_name) > 0"),
            col("last_name", description="Last name.", check="length(last_name) > 0"),
            col(
                "date_of_birth",
                description="Date of birth, YYYY-MM-DD.",
                check="date_of_birth GLOB '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]'",
            ),
            col(
                "email",
                description="Lower-case email address; unique.",
                unique=True,
                check="email LIKE '%_@_%'",
            ),
            col(
                "tier", description="Loyalty tier; sets how soon a device can be upgraded.", enum=list(TIERS)
            ),
            col("city", description="Home city.", check="length(city) > 0"),
            col("state", description="Home state, e.g. 'TX'.", check="length(state) = 2"),
            col(
                "zip",
                description="Five-digit home zip code (the service area).",
                check="zip GLOB '[0-9][0-9][0-9][0-9][0-9]'",
            ),
            col("customer_since", description="Date the account was opened, YYYY-MM-DD."),
        ],
    )
    payment_methods = TableSpec(
        name="payment_methods",
        entity="payment_method",
        description="Payment methods saved on an account: cards (brand, last four, expiry month) and bank accounts.",
        primary_key=["payment_method_id"],
        columns=[
            col(
                "payment_method_id",
                description="Id such as 'card_000123' or 'bank_000045'.",
                entity="payment_method",
            ),
            _ref("customer_id", "customers.customer_id", "customer", "Owner of the method."),
            col(
                "kind",
                description="Kind of payment method.",
                enum=list(PAYMENT_METHOD_KINDS),
                check="(kind = 'bank_account') = (brand IS NULL AND expires IS NULL)",
            ),
            col("brand", description="Card brand (cards only).", nullable=True, enum=list(CARD_BRANDS)),
            col("last_four", description="Last four digits.", check="last_four GLOB '[0-9][0-9][0-9][0-9]'"),
            col(
                "label",
                description="How the method is shown to the customer, e.g. 'Visa ending 4242'.",
                check="length(label) > 0",
            ),
            col(
                "expires",
                description="Last month the card is valid, YYYY-MM (cards only).",
                nullable=True,
                check="expires GLOB '20[0-9][0-9]-[01][0-9]'",
            ),
        ],
    )
    plans = TableSpec(
        name="plans",
        entity="plan",
        description="Rate plans: monthly price, data allowance (NULL: unlimited), roaming and the price of extra data.",
        primary_key=["plan_id"],
        columns=[
            col("plan_id", description="Id such as 'plan_value15'.", entity="plan"),
            col("name", description="Plan name as marketed.", unique=True),
            col(
                "monthly_price_cents",
                "INTEGER",
                description="Monthly price in cents.",
                check="monthly_price_cents > 0",
            ),
            col(
                "data_mb",
                "INTEGER",
                description="Data allowance per cycle in MB (1 GB = 1000 MB); NULL for unlimited plans.",
                nullable=True,
                check="data_mb > 0",
            ),
            col(
                "roaming_included",
                "INTEGER",
                description="1 when roaming can be enabled on the plan.",
                enum=[0, 1],
            ),
            col(
                "topup_price_per_gb_cents",
                "INTEGER",
                description="Price of one extra GB in cents; NULL for unlimited plans (no top-ups).",
                nullable=True,
                check="(topup_price_per_gb_cents IS NULL) = (data_mb IS NULL) AND coalesce(topup_price_per_gb_cents, 1) > 0",
            ),
            col(
                "available",
                "INTEGER",
                description="1 when new subscriptions are possible; 0 for retired plans.",
                enum=[0, 1],
            ),
        ],
    )
    lines = TableSpec(
        name="lines",
        entity="line",
        description="Phone lines of an account: plan, status, roaming, data used this cycle and a scheduled plan change.",
        primary_key=["phone_number"],
        columns=[
            col(
                "phone_number",
                description="Ten-digit phone number, e.g. '5125550143'.",
                entity="line",
                check="phone_number GLOB '[2-9][0-9][0-9][2-9][0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("customer_id", "customers.customer_id", "customer", "Account the line belongs to."),
            col(
                "label",
                description='Nickname of the line shown in the app and on bills, e.g. "Maya\'s phone"; unique per account.',
                check="length(label) > 0",
            ),
            _ref("plan_id", "plans.plan_id", "plan", "Current plan."),
            col("status", description="Line status.", enum=list(LINE_STATUSES)),
            col("roaming_enabled", "INTEGER", description="1 when roaming is on.", enum=[0, 1]),
            col(
                "data_used_mb",
                "INTEGER",
                description="Data used in the current cycle, MB.",
                check="data_used_mb >= 0",
            ),
            _ref(
                "pending_plan_id",
                "plans.plan_id",
                "plan",
                "Plan that takes effect at the start of the next cycle, if a change is scheduled.",
                nullable=True,
            ),
            col("activated_at", description="Date the line was activated, YYYY-MM-DD."),
        ],
    )
    device_models = TableSpec(
        name="device_models",
        entity="device_model",
        description="Phones the carrier sells, with full retail price and stock.",
        primary_key=["model_id"],
        columns=[
            col("model_id", description="Id such as 'mdl_0007'.", entity="device_model"),
            col("name", description="Model name.", unique=True),
            col("price_cents", "INTEGER", description="Full retail price in cents.", check="price_cents > 0"),
            col("in_stock", "INTEGER", description="1 when it can be ordered now.", enum=[0, 1]),
        ],
    )
    devices = TableSpec(
        name="devices",
        entity="device",
        description="Phones used on lines, bought on 24 monthly installments; a replaced device stays on record.",
        primary_key=["device_id"],
        columns=[
            col("device_id", description="Id such as 'dev_000123'.", entity="device"),
            _ref("phone_number", "lines.phone_number", "line", "Line the device is (or was) used on."),
            _ref("model_id", "device_models.model_id", "device_model", "Model."),
            col(
                "imei",
                description="15-digit IMEI.",
                unique=True,
                check="length(imei) = 15 AND imei GLOB '[0-9]*'",
            ),
            col("purchased_at", description="Purchase date, YYYY-MM-DD."),
            col(
                "installment_balance_cents",
                "INTEGER",
                description="What remains to be paid on the device, cents.",
                check="installment_balance_cents >= 0",
            ),
            col(
                "monthly_installment_cents",
                "INTEGER",
                description="Monthly installment, cents (0 once paid off).",
                check="monthly_installment_cents >= 0",
            ),
            col("status", description="in_use (on the line now) or replaced.", enum=list(DEVICE_STATUSES)),
        ],
    )
    bills = TableSpec(
        name="bills",
        entity="bill",
        description="Monthly bills of an account. 'open' is the current cycle (charges accumulate, not payable); "
        "a bill is issued the first day of the next month and due 20 days later.",
        primary_key=["bill_id"],
        columns=[
            col(
                "bill_id",
                description="Bill number as printed on the statement, e.g. 'B26050123'.",
                entity="bill",
                check="bill_id GLOB 'B[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("customer_id", "customers.customer_id", "customer", "Account billed."),
            col(
                "period", description="Billing cycle, YYYY-MM.", check="period GLOB '20[0-9][0-9]-[01][0-9]'"
            ),
            col("label", description="How the bill is named to the customer, e.g. 'May 2026 bill'."),
            col("status", description="Bill status.", enum=list(BILL_STATUSES)),
            col(
                "issued_at",
                description="Date issued, YYYY-MM-DD; NULL while open.",
                nullable=True,
                check="(status = 'open') = (issued_at IS NULL)",
            ),
            col("due_date", description="Payment due date, YYYY-MM-DD."),
        ],
    )
    bill_items = TableSpec(
        name="bill_items",
        description="Line items of a bill: plan charges, device installments and payoffs, data top-ups, roaming, taxes, "
        "and a late fee once a bill is overdue.",
        primary_key=["bill_id", "item_no"],
        columns=[
            _ref("bill_id", "bills.bill_id", "bill", "Bill of this item."),
            col(
                "item_no", "INTEGER", description="Item number within the bill, from 1.", check="item_no >= 1"
            ),
            _ref(
                "phone_number",
                "lines.phone_number",
                "line",
                "Line charged; NULL for account-level items.",
                nullable=True,
            ),
            col("kind", description="Kind of charge.", enum=list(BILL_ITEM_KINDS)),
            col("description", description="Text printed on the bill.", check="length(description) > 0"),
            col("amount_cents", "INTEGER", description="Amount in cents.", check="amount_cents > 0"),
        ],
    )
    payments = TableSpec(
        name="payments",
        entity="payment",
        description="Payments made against bills; a bill may be paid in several partial payments.",
        primary_key=["payment_id"],
        columns=[
            col("payment_id", description="Id such as 'pmt_0000123'.", entity="payment"),
            _ref("bill_id", "bills.bill_id", "bill", "Bill paid."),
            _ref(
                "payment_method_id", "payment_methods.payment_method_id", "payment_method", "Method charged."
            ),
            col("amount_cents", "INTEGER", description="Amount in cents.", check="amount_cents > 0"),
            col("created_at", description="When it was paid (ISO 8601, UTC)."),
        ],
    )
    data_topups = TableSpec(
        name="data_topups",
        entity="topup",
        description="Extra data bought for a line in a cycle; each adds to the allowance and is charged on the open bill.",
        primary_key=["topup_id"],
        columns=[
            col("topup_id", description="Id such as 'top_0000123'.", entity="topup"),
            _ref("phone_number", "lines.phone_number", "line", "Line topped up."),
            col("cycle", description="Billing cycle, YYYY-MM.", check="cycle GLOB '20[0-9][0-9]-[01][0-9]'"),
            col("gigabytes", "INTEGER", description="Extra data, GB.", enum=list(TOPUP_SIZES)),
            col("price_cents", "INTEGER", description="Price charged, cents.", check="price_cents > 0"),
            col("created_at", description="When it was bought (ISO 8601, UTC)."),
        ],
    )
    suspensions = TableSpec(
        name="suspensions",
        entity="suspension",
        description="Suspensions of lines; an open one (no end) is the line's current suspension.",
        primary_key=["suspension_id"],
        columns=[
            col("suspension_id", description="Id such as 'sus_000123'.", entity="suspension"),
            _ref("phone_number", "lines.phone_number", "line", "Line suspended."),
            col("reason", description="Why the line was suspended.", enum=list(SUSPENSION_REASONS)),
            col("started_at", description="Start (ISO 8601, UTC)."),
            col("ended_at", description="End (ISO 8601, UTC); NULL while suspended.", nullable=True),
        ],
    )
    outages = TableSpec(
        name="outages",
        entity="outage",
        description="Network outages by zip code, active or resolved.",
        primary_key=["outage_id"],
        columns=[
            col("outage_id", description="Id such as 'OUT-00012'.", entity="outage"),
            col("city", description="City.", check="length(city) > 0"),
            col("state", description="State.", check="length(state) = 2"),
            col("zip", description="Zip code affected.", check="zip GLOB '[0-9][0-9][0-9][0-9][0-9]'"),
            col("service", description="Service affected.", enum=list(OUTAGE_SERVICES)),
            col("status", description="Outage status.", enum=list(OUTAGE_STATUSES)),
            col("cause", description="Cause as published.", check="length(cause) > 0"),
            col("started_at", description="Start (ISO 8601, UTC)."),
            col("expected_resolution", description="Expected or actual end (ISO 8601, UTC)."),
        ],
    )
    tickets = TableSpec(
        name="tickets",
        entity="ticket",
        description="Support tickets: open -> in_progress -> resolved -> closed; a resolved ticket may be "
        "reopened within 7 days.",
        primary_key=["ticket_id"],
        columns=[
            col(
                "ticket_id",
                description="Ticket number as emailed to the customer, e.g. 'TKT004512'.",
                entity="ticket",
                check="ticket_id GLOB 'TKT[0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("customer_id", "customers.customer_id", "customer", "Customer who raised it."),
            _ref("phone_number", "lines.phone_number", "line", "Line concerned."),
            col("category", description="Category.", enum=list(TICKET_CATEGORIES)),
            col("status", description="Status.", enum=list(TICKET_STATUSES)),
            col("title", description="Short subject line of the ticket.", check="length(title) > 0"),
            col("description", description="The problem as reported.", check="length(description) > 0"),
            col("created_at", description="When raised (ISO 8601, UTC)."),
            col("updated_at", description="Last status change (ISO 8601, UTC)."),
            col(
                "resolved_at",
                description="When last resolved (ISO 8601, UTC); NULL unless resolved or closed after resolution.",
                nullable=True,
                check="status NOT IN ('resolved') OR resolved_at IS NOT NULL",
            ),
        ],
    )
    return [
        customers,
        payment_methods,
        plans,
        lines,
        device_models,
        devices,
        bills,
        bill_items,
        payments,
        data_topups,
        suspensions,
        outages,
        tickets,
    ]
