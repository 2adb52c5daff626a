"""Tool declarations of the logistics environment: schemas, effects, tables, entities and claims."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit
from envfactory_mcp.blueprints.kit import Schema
from envfactory_mcp.spec import ParamSpec, ToolSpec

from .spec_tables import (
    ACCOUNT_STATUSES,
    CHANGE_KINDS,
    CLAIM_KINDS,
    CLAIM_STATUSES,
    EVENT_CODES,
    INVOICE_ITEM_KINDS,
    INVOICE_STATUSES,
    PICKUP_STATUSES,
    PICKUP_WINDOWS,
    SHIPMENT_KINDS,
    SHIPMENT_STATUSES,
    TIERS,
)

MONEY: Schema = {"type": "number", "description": "Dollars, two decimals."}
TEXT: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
INT: Schema = {"type": "integer"}
NUMBER: Schema = {"type": "number"}

CUSTOMER_ID = kit.string(
    11, "Internal customer id from a find_customer_id_* tool, e.g. 'cust_000042'.", pattern=r"^cust_[0-9]{6}$"
)
TRACKING = kit.string(
    12, "Tracking number printed on the label, e.g. 'PX2609001234'.", pattern=r"^[Pp][Xx][0-9]{10}$"
)
ADDRESS_ID = kit.string(
    10, "Address id from get_customer_details, e.g. 'adr_000123'.", pattern=r"^adr_[0-9]{6}$"
)
DEPOT_ID = kit.string(7, "Depot id from list_depots, e.g. 'dep_atl'.", pattern=r"^dep_[a-z]{3}$")
SERVICE_ID = kit.string(20, "Service id from list_services, e.g. 'svc_ground'.", pattern=r"^svc_[a-z]{3,15}$")
PICKUP_ID = kit.string(8, "Pickup confirmation number, e.g. 'PU004512'.", pattern=r"^[Pp][Uu][0-9]{6}$")
CLAIM_ID = kit.string(8, "Claim number, e.g. 'CLM00123'.", pattern=r"^[Cc][Ll][Mm][0-9]{5}$")
INVOICE_ID = kit.string(11, "Invoice number, e.g. 'INV26080042'.", pattern=r"^[Ii][Nn][Vv][0-9]{8}$")
DATE = kit.string(10, "A date, YYYY-MM-DD.", pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")

ADDRESS_OUT = kit.obj(
    {
        "address_id": TEXT,
        "label": TEXT,
        "address1": TEXT,
        "city": TEXT,
        "state": kit.nullable("string"),
        "postal_code": TEXT,
        "country": TEXT,
        "region": kit.nullable("integer"),
        "depot_id": kit.nullable("string"),
    }
)
SHIPMENT_OUT = kit.obj(
    {
        "tracking_number": TEXT,
        "customer_id": TEXT,
        "kind": kit.enum(SHIPMENT_KINDS),
        "return_of": kit.nullable("string"),
        "return_label": kit.nullable("string"),
        "service_id": TEXT,
        "service_name": TEXT,
        "status": kit.enum(SHIPMENT_STATUSES),
        "from_address": ADDRESS_OUT,
        "to_address": ADDRESS_OUT,
        "international": BOOL,
        "zone": INT,
        "contents": TEXT,
        "weight_kg": NUMBER,
        "dimensions_cm": kit.obj({"length": INT, "width": INT, "height": INT}),
        "billable_kg": INT,
        "declared_value": MONEY,
        "insured": BOOL,
        "price": MONEY,
        "insurance": MONEY,
        "created_at": TEXT,
        "ship_date": TEXT,
        "estimated_delivery": TEXT,
        "delivered_at": kit.nullable("string"),
        "hold_depot_id": kit.nullable("string"),
        "delivery_change": {
            **kit.obj(
                {
                    "change_id": TEXT,
                    "kind": kit.enum(CHANGE_KINDS),
                    "new_address_id": kit.nullable("string"),
                    "depot_id": kit.nullable("string"),
                    "fee": MONEY,
                    "created_at": TEXT,
                }
            ),
            "type": ["object", "null"],
        },
        "delivery_change_allowed": BOOL,
        "claim_deadline": kit.nullable("string"),
        "return_label_deadline": kit.nullable("string"),
        "claims": kit.array(TEXT),
        "events": kit.array(
            kit.obj(
                {"occurred_at": TEXT, "code": kit.enum(EVENT_CODES), "location": TEXT, "description": TEXT}
            )
        ),
    }
)
SHIPMENT_OUTPUTS = {
    "tracking_number": "shipment",
    "customer_id": "customer",
    "return_of": "shipment",
    "return_label": "shipment",
    "service_id": "service",
    "from_address.address_id": "address",
    "from_address.depot_id": "depot",
    "to_address.address_id": "address",
    "to_address.depot_id": "depot",
    "hold_depot_id": "depot",
    "delivery_change.change_id": "delivery_change",
    "delivery_change.new_address_id": "address",
    "delivery_change.depot_id": "depot",
    "claims[]": "claim",
}
SHIPMENT_READS = [
    "addresses",
    "claims",
    "delivery_changes",
    "services",
    "shipments",
    "tracking_events",
]

PICKUP_OUT = kit.obj(
    {
        "pickup_id": TEXT,
        "customer_id": TEXT,
        "address": ADDRESS_OUT,
        "depot_id": TEXT,
        "depot_name": TEXT,
        "pickup_date": TEXT,
        "window": kit.enum(PICKUP_WINDOWS),
        "parcel_count": INT,
        "status": kit.enum(PICKUP_STATUSES),
        "created_at": TEXT,
    }
)
PICKUP_OUTPUTS = {
    "pickup_id": "pickup",
    "customer_id": "customer",
    "address.address_id": "address",
    "address.depot_id": "depot",
    "depot_id": "depot",
}
CLAIM_OUT = kit.obj(
    {
        "claim_id": TEXT,
        "tracking_number": TEXT,
        "customer_id": TEXT,
        "kind": kit.enum(CLAIM_KINDS),
        "amount": MONEY,
        "status": kit.enum(CLAIM_STATUSES),
        "description": TEXT,
        "filed_at": TEXT,
        "decided_at": kit.nullable("string"),
    }
)
CLAIM_OUTPUTS = {"claim_id": "claim", "tracking_number": "shipment", "customer_id": "customer"}
INVOICE_OUT = kit.obj(
    {
        "invoice_id": TEXT,
        "customer_id": TEXT,
        "period": TEXT,
        "status": kit.enum(INVOICE_STATUSES),
        "issued_at": kit.nullable("string"),
        "due_date": TEXT,
        "paid_at": kit.nullable("string"),
        "items": kit.array(
            kit.obj(
                {
                    "item_no": INT,
                    "tracking_number": kit.nullable("string"),
                    "kind": kit.enum(INVOICE_ITEM_KINDS),
                    "description": TEXT,
                    "amount": MONEY,
                }
            )
        ),
        "charges_by_shipment": kit.array(kit.obj({"tracking_number": TEXT, "amount": MONEY})),
        "total": MONEY,
        "balance_due": MONEY,
    }
)


def build_tools() -> list[ToolSpec]:
    customer_id = (CUSTOMER_ID, kit.param("customer", False))
    tracking = (TRACKING, kit.param("shipment", True))
    pickup_id = (PICKUP_ID, kit.param("pickup", True))
    claim_id = (CLAIM_ID, kit.param("claim", True))
    invoice_id = (INVOICE_ID, kit.param("invoice", True))
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
            "find_customer_id_by_phone",
            "look up my account by phone number",
            "Find a customer's id from the contact phone number on the account (ten digits; spaces, dashes, "
            "parentheses and a leading 1 are ignored). Use this to authenticate a customer who cannot give "
            "their email. Fails if no customer has that number.",
            {
                "phone": (
                    kit.string(
                        20, "Contact phone number, e.g. '4045550143'.", pattern=r"^[0-9 ()+.-]{10,20}$"
                    ),
                    kit.param(None, True),
                )
            },
            kit.obj({"customer_id": TEXT}),
            reads=["customers"],
            outputs={"customer_id": "customer"},
        ),
        kit.tool(
            "get_customer_details",
            "see my account",
            "Get a customer's account: name, company, contact details, service tier (standard, business, "
            "premier), account status (credit_hold while an invoice is overdue), the card on file, the address "
            "book (with each domestic address's region and serving depot), and the tracking numbers of their "
            "shipments (newest first), pickup numbers, claim numbers and invoice numbers (newest first).",
            {"customer_id": customer_id},
            kit.obj(
                {
                    "customer_id": TEXT,
                    "first_name": TEXT,
                    "last_name": TEXT,
                    "company": kit.nullable("string"),
                    "email": TEXT,
                    "phone": TEXT,
                    "tier": kit.enum(TIERS),
                    "account_status": kit.enum(ACCOUNT_STATUSES),
                    "card_on_file": kit.nullable("string"),
                    "customer_since": TEXT,
                    "addresses": kit.array(ADDRESS_OUT),
                    "shipments": kit.array(TEXT),
                    "pickups": kit.array(TEXT),
                    "claims": kit.array(TEXT),
                    "invoices": kit.array(TEXT),
                }
            ),
            reads=["addresses", "claims", "customers", "invoices", "pickups", "shipments"],
            outputs={
                "customer_id": "customer",
                "addresses[].address_id": "address",
                "addresses[].depot_id": "depot",
                "shipments[]": "shipment",
                "pickups[]": "pickup",
                "claims[]": "claim",
                "invoices[]": "invoice",
            },
            claims=["account_status"],
        ),
        kit.tool(
            "get_shipment_details",
            "track my parcel",
            "Get a shipment by tracking number: status, service, sender and recipient addresses, whether it is "
            "international, zone, contents, weight, dimensions and billable weight, declared value, insurance, "
            "price, ship date, estimated delivery, delivery time, a delivery change already made (and whether one "
            "is still allowed), the deadline to file a claim, the deadline for a return label, its return label, "
            "claims, and every tracking event.",
            {"tracking_number": tracking},
            SHIPMENT_OUT,
            reads=SHIPMENT_READS,
            outputs=SHIPMENT_OUTPUTS,
            claims=["status", "estimated_delivery"],
        ),
        kit.tool(
            "list_services",
            "see the shipping services and prices",
            "List the service types (ground, express, overnight, international) with their limits (heaviest "
            "parcel in kg, longest side and length + width + height in cm), business days in transit, whether "
            "they go abroad, and their rates by zone (base price plus price per billable kg, before the tier "
            "discount).",
            {},
            kit.obj(
                {
                    "services": kit.array(
                        kit.obj(
                            {
                                "service_id": TEXT,
                                "name": TEXT,
                                "max_weight_kg": NUMBER,
                                "max_length_cm": INT,
                                "max_size_cm": INT,
                                "transit_days": INT,
                                "international": BOOL,
                                "rates": kit.array(
                                    kit.obj({"zone": INT, "base_price": MONEY, "per_kg": MONEY})
                                ),
                            }
                        )
                    )
                }
            ),
            reads=["service_rates", "services"],
            outputs={"services[].service_id": "service"},
            claims=["services[].max_weight_kg"],
        ),
        kit.tool(
            "list_depots",
            "find a depot",
            "List the carrier's depots with their address, region (1 Northeast, 2 Southeast, 3 Midwest, "
            "4 Southwest, 5 West), whether they hold parcels for collection and for how many days.",
            {},
            kit.obj(
                {
                    "depots": kit.array(
                        kit.obj(
                            {
                                "depot_id": TEXT,
                                "name": TEXT,
                                "address1": TEXT,
                                "city": TEXT,
                                "state": TEXT,
                                "zip": TEXT,
                                "region": INT,
                                "region_name": TEXT,
                                "accepts_holds": BOOL,
                                "hold_days": INT,
                            }
                        )
                    )
                }
            ),
            reads=["depots"],
            outputs={"depots[].depot_id": "depot"},
            claims=["depots[].hold_days"],
        ),
        kit.tool(
            "check_pickup_availability",
            "check if a pickup can be booked",
            "For one of the customer's domestic addresses and a date (YYYY-MM-DD, a business day from tomorrow "
            "up to 14 days ahead), show the serving depot, its daily pickup capacity, how many pickups are booked "
            "that day and how many remain.",
            {
                "address_id": (ADDRESS_ID, kit.param("address", False)),
                "pickup_date": (DATE, kit.param(None, True)),
            },
            kit.obj(
                {
                    "address_id": TEXT,
                    "pickup_date": TEXT,
                    "weekday": TEXT,
                    "depot_id": TEXT,
                    "depot_name": TEXT,
                    "daily_capacity": INT,
                    "booked": INT,
                    "remaining": INT,
                    "available": BOOL,
                }
            ),
            reads=["addresses", "depots", "pickups"],
            outputs={"address_id": "address", "depot_id": "depot"},
            claims=["available"],
        ),
        kit.tool(
            "get_pickup_details",
            "check on my pickup",
            "Get a pickup: address, depot, date, time window, number of parcels and status (scheduled, "
            "completed, missed, cancelled).",
            {"pickup_id": pickup_id},
            PICKUP_OUT,
            reads=["addresses", "depots", "pickups"],
            outputs=PICKUP_OUTPUTS,
            claims=["status", "pickup_date"],
        ),
        kit.tool(
            "get_claim_details",
            "check on my claim",
            "Get a claim: shipment, kind (lost or damaged), amount claimed, status (submitted, under_review, "
            "approved, denied, paid, withdrawn), description and dates.",
            {"claim_id": claim_id},
            CLAIM_OUT,
            reads=["claims"],
            outputs=CLAIM_OUTPUTS,
            claims=["status", "amount"],
        ),
        kit.tool(
            "get_invoice_details",
            "check on my invoice",
            "Get an invoice: month, status (open: current month, not payable yet; issued; overdue; paid), issue, "
            "due and payment dates, items (shipping, insurance, fees, credits, late fees) and the total and "
            "balance due in dollars, and what each shipment was charged on it (net of credits).",
            {"invoice_id": invoice_id},
            INVOICE_OUT,
            reads=["invoice_items", "invoices"],
            outputs={
                "invoice_id": "invoice",
                "customer_id": "customer",
                "items[].tracking_number": "shipment",
                "charges_by_shipment[].tracking_number": "shipment",
            },
            claims=["status", "total", "charges_by_shipment[].amount"],
        ),
        kit.tool(
            "create_shipment",
            "ship a parcel",
            "Create a shipping label for one parcel from one of the customer's domestic addresses to another "
            "address in their address book. The service must fit the parcel (weight, longest side, length + width "
            "+ height) and the destination (international service for addresses abroad only). The declared value "
            "may not exceed the tier's cap ($1,000 standard, $5,000 business, $10,000 premier); insurance costs "
            "$1.00 per $100 declared. The price (rate for the zone and billable weight, less the tier discount) "
            "and insurance go on the open invoice. Not possible while the account is on credit hold. Returns "
            "the new shipment.",
            {
                "customer_id": customer_id,
                "from_address_id": (ADDRESS_ID, kit.param("address", False)),
                "to_address_id": (ADDRESS_ID, kit.param("address", False)),
                "service_id": (SERVICE_ID, kit.param("service", False)),
                "contents": (
                    {
                        **kit.string(80, "What the parcel holds, e.g. 'books'."),
                        "examples": ["books", "shoes", "ceramic vase"],
                    },
                    kit.param(None, True),
                ),
                "weight_kg": (
                    {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "maximum": 100,
                        "description": "Weight in kg, one decimal.",
                    },
                    kit.param(None, True),
                ),
                "length_cm": (
                    {"type": "integer", "minimum": 1, "maximum": 300, "description": "Longest side, cm."},
                    kit.param(None, True),
                ),
                "width_cm": (
                    {"type": "integer", "minimum": 1, "maximum": 300, "description": "Width, cm."},
                    kit.param(None, True),
                ),
                "height_cm": (
                    {"type": "integer", "minimum": 1, "maximum": 300, "description": "Height, cm."},
                    kit.param(None, True),
                ),
                "declared_value": (
                    {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "description": "Declared value in dollars, two decimals at most.",
                        "examples": [60.0, 85.0, 150.0, 400.0],
                    },
                    kit.param(None, True),
                ),
                "insure": (
                    {"type": "boolean", "description": "Insure the declared value (default false)."},
                    kit.param(None, True),
                ),
            },
            SHIPMENT_OUT,
            effect="write",
            reads=[*SHIPMENT_READS, "customers", "depots", "invoice_items", "invoices", "service_rates"],
            writes=["invoice_items", "shipments", "tracking_events"],
            outputs=SHIPMENT_OUTPUTS,
            claims=["tracking_number", "price"],
            required=[
                "customer_id",
                "from_address_id",
                "to_address_id",
                "service_id",
                "contents",
                "weight_kg",
                "length_cm",
                "width_cm",
                "height_cm",
                "declared_value",
            ],
        ),
        kit.tool(
            "cancel_shipment",
            "cancel a shipping label",
            "Cancel a shipment whose label was created but that has not been picked up yet (label_created). Its "
            "price and insurance are credited on the open invoice. Returns the shipment and the credit.",
            {"tracking_number": tracking},
            kit.obj({"shipment": SHIPMENT_OUT, "credited": MONEY, "credited_to_invoice": TEXT}),
            effect="write",
            reads=[*SHIPMENT_READS, "invoice_items", "invoices"],
            writes=["invoice_items", "shipments", "tracking_events"],
            outputs={
                **{f"shipment.{k}": v for k, v in SHIPMENT_OUTPUTS.items()},
                "credited_to_invoice": "invoice",
            },
            claims=["credited"],
        ),
        kit.tool(
            "redirect_shipment",
            "send my parcel to another address",
            "Redirect a domestic parcel that is not yet out for delivery (label_created, picked_up or in_transit) "
            "to another domestic address in the customer's address book. One delivery change per shipment; not "
            "for international parcels. The redirect fee ($9.00 standard, $6.00 business, free for premier) goes "
            "on the open invoice and delivery moves one business day later. Returns the shipment, the change and "
            "the fee.",
            {"tracking_number": tracking, "address_id": (ADDRESS_ID, kit.param("address", False))},
            kit.obj({"shipment": SHIPMENT_OUT, "change_id": TEXT, "fee": MONEY}),
            effect="write",
            reads=[*SHIPMENT_READS, "customers", "depots", "invoice_items", "invoices"],
            writes=["delivery_changes", "invoice_items", "shipments", "tracking_events"],
            outputs={
                **{f"shipment.{k}": v for k, v in SHIPMENT_OUTPUTS.items()},
                "change_id": "delivery_change",
            },
            claims=["fee", "shipment.estimated_delivery"],
        ),
        kit.tool(
            "hold_at_depot",
            "have my parcel held at a depot",
            "Have a domestic parcel that is not yet out for delivery (label_created, picked_up or in_transit) "
            "held for collection at a depot of its destination's region that accepts holds, instead of being "
            "delivered. Free; one delivery change per shipment; not for international parcels. Returns the "
            "shipment, the change, the depot and how many days it holds parcels.",
            {"tracking_number": tracking, "depot_id": (DEPOT_ID, kit.param("depot", False))},
            kit.obj({"shipment": SHIPMENT_OUT, "change_id": TEXT, "depot_name": TEXT, "hold_days": INT}),
            effect="write",
            reads=[*SHIPMENT_READS, "depots"],
            writes=["delivery_changes", "shipments", "tracking_events"],
            outputs={
                **{f"shipment.{k}": v for k, v in SHIPMENT_OUTPUTS.items()},
                "change_id": "delivery_change",
            },
            claims=["hold_days"],
        ),
        kit.tool(
            "create_return_label",
            "get a return label",
            "Create a ground return label for a delivered domestic outbound parcel, within 30 days of delivery, "
            "from its recipient back to its sender (one per shipment). Its price goes on the open invoice. "
            "Returns the new return shipment.",
            {"tracking_number": tracking},
            SHIPMENT_OUT,
            effect="write",
            reads=[*SHIPMENT_READS, "customers", "depots", "invoice_items", "invoices", "service_rates"],
            writes=["invoice_items", "shipments", "tracking_events"],
            outputs=SHIPMENT_OUTPUTS,
            claims=["tracking_number", "price"],
        ),
        kit.tool(
            "schedule_pickup",
            "book a pickup",
            "Book a pickup at one of the customer's domestic addresses on a business day (Monday to Friday) from "
            "tomorrow up to 14 days ahead, in a time window, for 1 to 25 parcels. One pickup per address per day, "
            "and only while the serving depot has capacity left that day (see check_pickup_availability). Not "
            "possible while the account is on credit hold. Returns the pickup.",
            {
                "customer_id": customer_id,
                "address_id": (ADDRESS_ID, kit.param("address", False)),
                "pickup_date": (DATE, kit.param(None, True)),
                "window": (kit.enum(PICKUP_WINDOWS, "Time window of the pickup."), kit.param(None, True)),
                "parcel_count": (
                    {"type": "integer", "minimum": 1, "maximum": 25, "description": "Parcels to collect."},
                    kit.param(None, True),
                ),
            },
            PICKUP_OUT,
            effect="write",
            reads=["addresses", "customers", "depots", "pickups"],
            writes=["pickups"],
            outputs=PICKUP_OUTPUTS,
            claims=["pickup_id"],
        ),
        kit.tool(
            "cancel_pickup",
            "cancel my pickup",
            "Cancel a scheduled pickup, at the latest the day before the pickup date. Returns the pickup.",
            {"pickup_id": pickup_id},
            PICKUP_OUT,
            effect="write",
            reads=["addresses", "depots", "pickups"],
            writes=["pickups"],
            outputs=PICKUP_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "file_claim",
            "claim for a lost or damaged parcel",
            "File a claim for a parcel: 'damaged' for a delivered parcel within 30 days of delivery, 'lost' for a "
            "parcel declared lost within 60 days of its ship date. The amount (dollars) may not exceed the "
            "declared value, nor $100 when the parcel was not insured. One claim per shipment (a withdrawn one "
            "does not count). Returns the new claim.",
            {
                "tracking_number": tracking,
                "kind": (kit.enum(list(CLAIM_KINDS), "lost or damaged."), kit.param(None, True)),
                "amount": (
                    {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "description": "Dollars claimed, two decimals at most.",
                        "examples": [25.0, 40.0, 60.0, 90.0],
                    },
                    kit.param(None, True),
                ),
                "description": (
                    {
                        **kit.string(500, "What happened, in the customer's words."),
                        "examples": [
                            "The box arrived crushed and the item inside is broken",
                            "The parcel never arrived",
                            "The contents were soaked and ruined",
                        ],
                    },
                    ParamSpec(user_provided=True, composed=True),
                ),
            },
            CLAIM_OUT,
            effect="write",
            reads=["claims", "customers", "shipments"],
            writes=["claims"],
            outputs=CLAIM_OUTPUTS,
            claims=["claim_id"],
        ),
        kit.tool(
            "withdraw_claim",
            "withdraw my claim",
            "Withdraw a claim that is still pending (submitted or under_review). Returns the claim.",
            {"claim_id": claim_id},
            CLAIM_OUT,
            effect="write",
            reads=["claims"],
            writes=["claims"],
            outputs=CLAIM_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "pay_invoice",
            "pay my invoice",
            "Pay an issued or overdue invoice in full with the card on file. When no overdue invoice is left, an "
            "account on credit hold becomes active again. Returns the amount paid, the card charged and the "
            "account status.",
            {"invoice_id": invoice_id},
            kit.obj(
                {
                    "invoice_id": TEXT,
                    "status": kit.enum(INVOICE_STATUSES),
                    "amount_paid": MONEY,
                    "charged_to": TEXT,
                    "account_status": kit.enum(ACCOUNT_STATUSES),
                }
            ),
            effect="write",
            reads=["customers", "invoice_items", "invoices"],
            writes=["customers", "invoices"],
            outputs={"invoice_id": "invoice"},
            claims=["amount_paid", "account_status"],
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
