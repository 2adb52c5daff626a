"""Tables of the logistics environment. Money is INTEGER cents, weights REAL kilograms,
dimensions INTEGER centimetres; statuses are enums."""

from __future__ import annotations

from typing import Any

from envfactory_mcp.blueprints.kit import col
from envfactory_mcp.spec import ColumnSpec, TableSpec

TIERS = ["standard", "business", "premier"]
ACCOUNT_STATUSES = ["active", "credit_hold"]
REGIONS = [1, 2, 3, 4, 5]
SHIPMENT_KINDS = ["outbound", "return"]
SHIPMENT_STATUSES = [
    "label_created",
    "picked_up",
    "in_transit",
    "out_for_delivery",
    "delivered",
    "held_at_depot",
    "lost",
    "returned_to_sender",
    "cancelled",
]
EVENT_CODES = [
    "label_created",
    "picked_up",
    "departed_facility",
    "arrived_facility",
    "out_for_delivery",
    "delivered",
    "held_at_depot",
    "delivery_change",
    "exception",
    "returned_to_sender",
    "cancelled",
]
CHANGE_KINDS = ["redirect", "hold_at_depot"]
PICKUP_WINDOWS = ["08:00-12:00", "12:00-16:00", "16:00-19:00"]
PICKUP_STATUSES = ["scheduled", "completed", "missed", "cancelled"]
CLAIM_KINDS = ["lost", "damaged"]
CLAIM_STATUSES = ["submitted", "under_review", "approved", "denied", "paid", "withdrawn"]
INVOICE_STATUSES = ["open", "issued", "overdue", "paid"]
INVOICE_ITEM_KINDS = ["shipping", "insurance", "redirect_fee", "return_label", "credit", "late_fee"]


def _ref(name: str, target: str, entity: str, description: str, **kw: Any) -> ColumnSpec:
    return col(name, description=description, references=target, entity=entity, **kw)


def build_tables() -> list[TableSpec]:
    customers = TableSpec(
        name="customers",
        entity="customer",
        description="Shipper accounts of the carrier: a person or a small business, with a service tier and a card on file.",
        primary_key=["customer_id"],
        columns=[
            col("customer_id", description="Internal customer id, e.g. 'cust_000042'.", entity="customer"),
            col(
                "first_name", description="First name of the account holder.", check="length(first_name) > 0"
            ),
            col("last_name", description="Last name of the account holder.", check="length(last_name) > 0"),
            col("company", description="Business name, for business accounts.", nullable=True),
            col(
                "email",
                description="Lower-case email address; unique.",
                unique=True,
                check="email LIKE '%_@_%'",
            ),
            col(
                "phone",
                description="Ten-digit contact phone number; unique.",
                unique=True,
                check="phone GLOB '[2-9][0-9][0-9][2-9][0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            col(
                "tier",
                description="Service level: sets the shipping discount, the declared value cap and the redirect fee.",
                enum=list(TIERS),
            ),
            col(
                "account_status",
                description="credit_hold while an invoice is overdue: no new shipments or pickups.",
                enum=list(ACCOUNT_STATUSES),
            ),
            col(
                "card_on_file",
                description="Card that pays invoices, e.g. 'Visa ending 4242'; NULL when none is saved.",
                nullable=True,
            ),
            col("customer_since", description="Date the account was opened, YYYY-MM-DD."),
        ],
    )
    depots = TableSpec(
        name="depots",
        entity="depot",
        description="Depots of the carrier: each serves a region, collects pickups up to a daily capacity and may hold parcels for collection.",
        primary_key=["depot_id"],
        columns=[
            col("depot_id", description="Depot id such as 'dep_atl'.", entity="depot"),
            col("name", description="Depot name as signed.", unique=True),
            col("address1", description="Street address.", check="length(address1) > 0"),
            col("city", description="City.", check="length(city) > 0"),
            col("state", description="State.", check="length(state) = 2"),
            col("zip", description="Zip code.", check="zip GLOB '[0-9][0-9][0-9][0-9][0-9]'"),
            col(
                "region",
                "INTEGER",
                description="Domestic region served, 1 (Northeast) to 5 (West).",
                enum=list(REGIONS),
            ),
            col(
                "daily_pickup_capacity",
                "INTEGER",
                description="How many pickups the depot's drivers can make per business day.",
                check="daily_pickup_capacity > 0",
            ),
            col(
                "accepts_holds",
                "INTEGER",
                description="1 when parcels can be held here for collection.",
                enum=[0, 1],
            ),
            col(
                "hold_days",
                "INTEGER",
                description="Days a held parcel waits before it goes back to the sender.",
                check="hold_days > 0",
            ),
        ],
    )
    addresses = TableSpec(
        name="addresses",
        entity="address",
        description="The account's address book: where it ships from and to. Domestic addresses lie in a region (1-5) and are served by a depot; international ones have neither.",
        primary_key=["address_id"],
        columns=[
            col("address_id", description="Id such as 'adr_000123'.", entity="address"),
            _ref("customer_id", "customers.customer_id", "customer", "Account whose address book holds it."),
            col(
                "label",
                description="Name of the entry, e.g. 'Warehouse' or 'Maria Lopez'; unique per account.",
                check="length(label) > 0",
            ),
            col("address1", description="Street line.", check="length(address1) > 0"),
            col("city", description="City.", check="length(city) > 0"),
            col("state", description="State or province; NULL where there is none.", nullable=True),
            col("postal_code", description="Zip or postal code.", check="length(postal_code) > 0"),
            col(
                "country",
                description="Two-letter country code, 'US' for domestic.",
                check="length(country) = 2",
            ),
            col(
                "region",
                "INTEGER",
                description="Domestic region, 1 (Northeast) to 5 (West); NULL abroad.",
                nullable=True,
                enum=list(REGIONS),
                check="(country = 'US') = (region IS NOT NULL)",
            ),
            _ref(
                "depot_id",
                "depots.depot_id",
                "depot",
                "Depot serving the address (pickups); NULL abroad.",
                nullable=True,
            ),
        ],
    )
    services = TableSpec(
        name="services",
        entity="service",
        description="Service types with their limits: weight, longest side, sum of the three sides, transit days, and whether they go abroad.",
        primary_key=["service_id"],
        columns=[
            col("service_id", description="Id such as 'svc_ground'.", entity="service"),
            col("name", description="Service name as sold.", unique=True),
            col(
                "max_weight_kg",
                "REAL",
                description="Heaviest parcel accepted, kg.",
                check="max_weight_kg > 0",
            ),
            col(
                "max_length_cm",
                "INTEGER",
                description="Longest side accepted, cm.",
                check="max_length_cm > 0",
            ),
            col(
                "max_size_cm",
                "INTEGER",
                description="Largest length + width + height accepted, cm.",
                check="max_size_cm > 0",
            ),
            col(
                "transit_days",
                "INTEGER",
                description="Business days from ship date to delivery.",
                check="transit_days > 0",
            ),
            col(
                "international",
                "INTEGER",
                description="1 for the service to addresses abroad (it serves only those).",
                enum=[0, 1],
            ),
        ],
    )
    service_rates = TableSpec(
        name="service_rates",
        description="Prices by service and zone: a base price plus a price per billable kilogram. Zone 1-5 is 1 + the distance between the two regions; zone 6 is abroad.",
        primary_key=["service_id", "zone"],
        columns=[
            _ref("service_id", "services.service_id", "service", "Service priced."),
            col("zone", "INTEGER", description="Zone 1-6.", check="zone BETWEEN 1 AND 6"),
            col("base_cents", "INTEGER", description="Base price, cents.", check="base_cents > 0"),
            col(
                "per_kg_cents",
                "INTEGER",
                description="Price per billable kg, cents.",
                check="per_kg_cents > 0",
            ),
        ],
    )
    shipments = TableSpec(
        name="shipments",
        entity="shipment",
        description="Parcels shipped by an account, one parcel per tracking number: service, addresses, weight, dimensions, declared value, insurance, price and status.",
        primary_key=["tracking_number"],
        columns=[
            col(
                "tracking_number",
                description="Tracking number printed on the label, e.g. 'PX2609001234'.",
                entity="shipment",
                check="tracking_number GLOB 'PX[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("customer_id", "customers.customer_id", "customer", "Shipper (the paying account)."),
            col(
                "kind",
                description="outbound, or a return label back to the shipper.",
                enum=list(SHIPMENT_KINDS),
            ),
            _ref(
                "return_of",
                "shipments.tracking_number",
                "shipment",
                "For a return, the shipment it sends back.",
                nullable=True,
                check="(kind = 'return') = (return_of IS NOT NULL)",
            ),
            _ref("service_id", "services.service_id", "service", "Service type."),
            _ref("from_address_id", "addresses.address_id", "address", "Sender address."),
            _ref("to_address_id", "addresses.address_id", "address", "Recipient address."),
            col("contents", description="What the parcel holds, as declared.", check="length(contents) > 0"),
            col("status", description="Shipment status.", enum=list(SHIPMENT_STATUSES)),
            col("weight_kg", "REAL", description="Actual weight, kg (one decimal).", check="weight_kg > 0"),
            col("length_cm", "INTEGER", description="Longest side, cm.", check="length_cm > 0"),
            col("width_cm", "INTEGER", description="Width, cm.", check="width_cm > 0"),
            col("height_cm", "INTEGER", description="Height, cm.", check="height_cm > 0"),
            col(
                "declared_value_cents",
                "INTEGER",
                description="Declared value, cents.",
                check="declared_value_cents > 0",
            ),
            col("insured", "INTEGER", description="1 when insurance covers the declared value.", enum=[0, 1]),
            col(
                "price_cents",
                "INTEGER",
                description="Shipping price charged, cents.",
                check="price_cents > 0",
            ),
            col(
                "insurance_cents",
                "INTEGER",
                description="Insurance charged, cents (0 without insurance).",
                check="insurance_cents >= 0 AND (insured = 0) = (insurance_cents = 0)",
            ),
            col("created_at", description="When the label was created (ISO 8601, UTC)."),
            col("ship_date", description="Date the parcel is (or was) handed over, YYYY-MM-DD."),
            col("estimated_delivery", description="Expected delivery date, YYYY-MM-DD."),
            col(
                "delivered_at",
                description="When delivered (ISO 8601, UTC); NULL unless delivered.",
                nullable=True,
                check="(status = 'delivered') = (delivered_at IS NOT NULL)",
            ),
            _ref(
                "hold_depot_id",
                "depots.depot_id",
                "depot",
                "Depot holding the parcel for collection, when a hold was asked for.",
                nullable=True,
            ),
        ],
    )
    tracking_events = TableSpec(
        name="tracking_events",
        entity="tracking_event",
        description="Scans and notices of a shipment, in time order.",
        primary_key=["event_id"],
        columns=[
            col("event_id", description="Id such as 'ev_0001234'.", entity="tracking_event"),
            _ref("tracking_number", "shipments.tracking_number", "shipment", "Shipment scanned."),
            col("occurred_at", description="When (ISO 8601, UTC)."),
            col("code", description="Kind of event.", enum=list(EVENT_CODES)),
            col("location", description="Where, e.g. 'Atlanta, GA'.", check="length(location) > 0"),
            col("description", description="Text shown to customers.", check="length(description) > 0"),
        ],
    )
    delivery_changes = TableSpec(
        name="delivery_changes",
        entity="delivery_change",
        description="Changes to where a parcel is delivered: a redirect to another address or a hold at a depot (one per shipment).",
        primary_key=["change_id"],
        columns=[
            col("change_id", description="Id such as 'dc_000123'.", entity="delivery_change"),
            _ref("tracking_number", "shipments.tracking_number", "shipment", "Shipment changed."),
            col("kind", description="redirect or hold_at_depot.", enum=list(CHANGE_KINDS)),
            _ref(
                "previous_address_id",
                "addresses.address_id",
                "address",
                "Recipient address before the change.",
            ),
            _ref(
                "new_address_id",
                "addresses.address_id",
                "address",
                "New recipient address (redirects).",
                nullable=True,
            ),
            _ref(
                "depot_id",
                "depots.depot_id",
                "depot",
                "Depot holding the parcel (holds).",
                nullable=True,
                check="(kind = 'redirect') = (new_address_id IS NOT NULL) AND (kind = 'hold_at_depot') = (depot_id IS NOT NULL)",
            ),
            col("fee_cents", "INTEGER", description="Fee charged, cents.", check="fee_cents >= 0"),
            col("created_at", description="When asked for (ISO 8601, UTC)."),
        ],
    )
    pickups = TableSpec(
        name="pickups",
        entity="pickup",
        description="Pickups of parcels at an address on a business day in a time window, by the address's depot.",
        primary_key=["pickup_id"],
        columns=[
            col(
                "pickup_id",
                description="Pickup confirmation number, e.g. 'PU004512'.",
                entity="pickup",
                check="pickup_id GLOB 'PU[0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("customer_id", "customers.customer_id", "customer", "Account that booked it."),
            _ref("address_id", "addresses.address_id", "address", "Where to collect."),
            _ref("depot_id", "depots.depot_id", "depot", "Depot sending the driver."),
            col(
                "pickup_date",
                description="Day of the pickup, YYYY-MM-DD (a business day).",
                check="pickup_date GLOB '20[0-9][0-9]-[01][0-9]-[0-3][0-9]'",
            ),
            col("window", description="Time window.", enum=list(PICKUP_WINDOWS)),
            col(
                "parcel_count",
                "INTEGER",
                description="Parcels to collect.",
                check="parcel_count BETWEEN 1 AND 25",
            ),
            col("status", description="Pickup status.", enum=list(PICKUP_STATUSES)),
            col("created_at", description="When booked (ISO 8601, UTC)."),
        ],
    )
    claims = TableSpec(
        name="claims",
        entity="claim",
        description="Claims for lost or damaged parcels: submitted -> under_review -> approved -> paid, or denied; the customer may withdraw one still pending.",
        primary_key=["claim_id"],
        columns=[
            col(
                "claim_id",
                description="Claim number, e.g. 'CLM00123'.",
                entity="claim",
                check="claim_id GLOB 'CLM[0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("tracking_number", "shipments.tracking_number", "shipment", "Shipment claimed for."),
            _ref("customer_id", "customers.customer_id", "customer", "Claimant (the shipper)."),
            col("kind", description="lost or damaged.", enum=list(CLAIM_KINDS)),
            col("amount_cents", "INTEGER", description="Amount claimed, cents.", check="amount_cents > 0"),
            col("status", description="Claim status.", enum=list(CLAIM_STATUSES)),
            col(
                "description",
                description="What happened, in the customer's words.",
                check="length(description) > 0",
            ),
            col("filed_at", description="When filed (ISO 8601, UTC)."),
            col("decided_at", description="When approved or denied (ISO 8601, UTC).", nullable=True),
        ],
    )
    invoices = TableSpec(
        name="invoices",
        entity="invoice",
        description="Monthly invoices of an account. 'open' collects the current month's charges; an invoice is issued on the first of the next month and due 30 days later.",
        primary_key=["invoice_id"],
        columns=[
            col(
                "invoice_id",
                description="Invoice number, e.g. 'INV26080042'.",
                entity="invoice",
                check="invoice_id GLOB 'INV[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("customer_id", "customers.customer_id", "customer", "Account billed."),
            col("period", description="Month billed, YYYY-MM.", check="period GLOB '20[0-9][0-9]-[01][0-9]'"),
            col("status", description="Invoice status.", enum=list(INVOICE_STATUSES)),
            col(
                "issued_at",
                description="Date issued, YYYY-MM-DD; NULL while open.",
                nullable=True,
                check="(status = 'open') = (issued_at IS NULL)",
            ),
            col("due_date", description="Due date, YYYY-MM-DD."),
            col(
                "paid_at",
                description="When paid (ISO 8601, UTC); NULL unless paid.",
                nullable=True,
                check="(status = 'paid') = (paid_at IS NOT NULL)",
            ),
        ],
    )
    invoice_items = TableSpec(
        name="invoice_items",
        description="Charges and credits on an invoice: shipping, insurance, redirect fees, return labels, credits for cancelled labels, late fees.",
        primary_key=["invoice_id", "item_no"],
        columns=[
            _ref("invoice_id", "invoices.invoice_id", "invoice", "Invoice of this item."),
            col(
                "item_no",
                "INTEGER",
                description="Item number within the invoice, from 1.",
                check="item_no >= 1",
            ),
            _ref(
                "tracking_number",
                "shipments.tracking_number",
                "shipment",
                "Shipment charged; NULL for account items.",
                nullable=True,
            ),
            col("kind", description="Kind of charge.", enum=list(INVOICE_ITEM_KINDS)),
            col("description", description="Text printed on the invoice.", check="length(description) > 0"),
            col(
                "amount_cents",
                "INTEGER",
                description="Amount in cents; negative for credits.",
                check="amount_cents <> 0 AND (kind = 'credit') = (amount_cents < 0)",
            ),
        ],
    )
    return [
        customers,
        depots,
        addresses,
        services,
        service_rates,
        shipments,
        tracking_events,
        delivery_changes,
        pickups,
        claims,
        invoices,
        invoice_items,
    ]
