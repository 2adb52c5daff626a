"""Logistics customer-service tools.

A parcel carrier: shippers (people and small businesses) hold accounts with a service tier
(standard, business, premier) and a card on file, and keep an address book. Each shipment
is one parcel with a tracking number: a service type (ground, express, overnight,
international), a sender and a recipient address, weight, dimensions, declared value and
optional insurance. Prices come from a rate table by service and zone (zone 1-5 between
two domestic regions, 6 abroad) on the billable weight (the actual weight or the
dimensional weight L x W x H / 5000, whichever is larger, rounded up to a whole kg), less
the tier's discount. Charges go on the account's open monthly invoice; an invoice is
issued on the first of the next month and due 30 days later, and an account with an
overdue invoice is on credit hold (no new shipments or pickups) until it is paid.

Before a parcel is out for delivery the customer may redirect it to another of their
domestic addresses or have it held at a depot of the destination region (one change per
shipment, never for international parcels). Pickups are booked on business days in a
time window, limited by the serving depot's daily capacity. Claims for lost or damaged
parcels are filed within a window, up to the declared value (up to $100 without
insurance). Delivered domestic parcels can get a return label within 30 days.

Money is integer cents in the tables; tool outputs present dollars with two decimals.

Each function is one tool: ``tool(ctx, **arguments) -> dict``. Business-rule violations
call ``ctx.fail`` so the runtime rolls the call back and tells the agent why.
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

TIER_DISCOUNT_PERCENT = {"standard": 0, "business": 10, "premier": 15}
DECLARED_VALUE_CAP_CENTS = {"standard": 100000, "business": 500000, "premier": 1000000}
REDIRECT_FEE_CENTS = {"standard": 900, "business": 600, "premier": 0}
BASE_LIABILITY_CENTS = 10000
INSURANCE_CENTS_PER_100 = 100
DIM_DIVISOR = 5000
CHANGEABLE = ("label_created", "picked_up", "in_transit")
CLAIMABLE = ("delivered", "lost")
DAMAGE_CLAIM_DAYS = 30
LOST_CLAIM_DAYS = 60
RETURN_DAYS = 30
PICKUP_DAYS_AHEAD = 14
PICKUP_WINDOWS = ("08:00-12:00", "12:00-16:00", "16:00-19:00")
CLAIM_KINDS = ("lost", "damaged")
PENDING_CLAIM = ("submitted", "under_review")
RETURN_SERVICE = "svc_ground"
REGION_NAMES = {1: "Northeast", 2: "Southeast", 3: "Midwest", 4: "Southwest", 5: "West"}


# --------------------------------------------------------------------------- helpers


def _dollars(cents: int) -> float:
    return round(cents / 100, 2)


def _fmt(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _today(ctx: ToolContext) -> datetime.date:
    return datetime.date.fromisoformat(ctx.now[:10])


def _period(ctx: ToolContext) -> str:
    return ctx.now[:7]


def _is_business_day(day: datetime.date) -> bool:
    return day.weekday() < 5


def _add_business_days(day: datetime.date, days: int) -> datetime.date:
    while days > 0:
        day += datetime.timedelta(days=1)
        if _is_business_day(day):
            days -= 1
    return day


def _ship_day(ctx: ToolContext) -> datetime.date:
    """Today when it is a business day, else the next one."""
    day = _today(ctx)
    while not _is_business_day(day):
        day += datetime.timedelta(days=1)
    return day


def _cents(ctx: ToolContext, amount: float, what: str) -> int:
    if amount <= 0:
        ctx.fail(f"The {what} must be positive.")
    cents = round(amount * 100)
    if abs(amount * 100 - cents) > 1e-6:
        ctx.fail(f"The {what} must be in dollars with at most two decimals.")
    return cents


def _customer(ctx: ToolContext, customer_id: str) -> Row:
    row = ctx.one("SELECT * FROM customers WHERE customer_id = ?", (customer_id,))
    if row is None:
        ctx.fail(f"Customer {customer_id} not found.")
    return row


def _shipment(ctx: ToolContext, tracking_number: str) -> Row:
    row = ctx.one("SELECT * FROM shipments WHERE tracking_number = ?", (tracking_number.strip().upper(),))
    if row is None:
        ctx.fail(f"No shipment with tracking number {tracking_number}.")
    return row


def _address(ctx: ToolContext, address_id: str) -> Row:
    row = ctx.one("SELECT * FROM addresses WHERE address_id = ?", (address_id,))
    if row is None:
        ctx.fail(f"Address {address_id} not found.")
    return row


def _own_address(ctx: ToolContext, customer_id: str, address_id: str) -> Row:
    row = _address(ctx, address_id)
    if row["customer_id"] != customer_id:
        ctx.fail(f"Address {address_id} is not in the address book of account {customer_id}.")
    return row


def _depot(ctx: ToolContext, depot_id: str) -> Row:
    row = ctx.one("SELECT * FROM depots WHERE depot_id = ?", (depot_id,))
    if row is None:
        ctx.fail(f"Depot {depot_id} not found.")
    return row


def _service(ctx: ToolContext, service_id: str) -> Row:
    row = ctx.one("SELECT * FROM services WHERE service_id = ?", (service_id,))
    if row is None:
        ctx.fail(f"Service {service_id} not found.")
    return row


def _pickup(ctx: ToolContext, pickup_id: str) -> Row:
    row = ctx.one("SELECT * FROM pickups WHERE pickup_id = ?", (pickup_id.strip().upper(),))
    if row is None:
        ctx.fail(f"Pickup {pickup_id} not found.")
    return row


def _claim(ctx: ToolContext, claim_id: str) -> Row:
    row = ctx.one("SELECT * FROM claims WHERE claim_id = ?", (claim_id.strip().upper(),))
    if row is None:
        ctx.fail(f"Claim {claim_id} not found.")
    return row


def _invoice(ctx: ToolContext, invoice_id: str) -> Row:
    row = ctx.one("SELECT * FROM invoices WHERE invoice_id = ?", (invoice_id.strip().upper(),))
    if row is None:
        ctx.fail(f"Invoice {invoice_id} not found.")
    return row


def _zone(origin: Row, destination: Row) -> int:
    """1 + the distance between two domestic regions; 6 when either end is abroad."""
    if origin["region"] is None or destination["region"] is None:
        return 6
    return 1 + abs(origin["region"] - destination["region"])


def _billable_kg(weight_kg: float, length: int, width: int, height: int) -> int:
    dimensional = length * width * height / DIM_DIVISOR
    return max(1, math.ceil(max(weight_kg, dimensional) - 1e-9))


def _price(ctx: ToolContext, service_id: str, zone: int, billable: int, tier: str) -> int:
    rate = ctx.one("SELECT * FROM service_rates WHERE service_id = ? AND zone = ?", (service_id, zone))
    if rate is None:
        ctx.fail(f"Service {service_id} does not serve zone {zone}.")
    gross = rate["base_cents"] + rate["per_kg_cents"] * billable
    return gross - gross * TIER_DISCOUNT_PERCENT[tier] // 100


def _insurance(declared_cents: int) -> int:
    """$1.00 per $100 (or part of it) of declared value."""
    return math.ceil(declared_cents / 10000) * INSURANCE_CENTS_PER_100


def _open_invoice(ctx: ToolContext, customer_id: str) -> Row:
    row = ctx.one(
        "SELECT * FROM invoices WHERE customer_id = ? AND status = 'open' ORDER BY invoice_id", (customer_id,)
    )
    if row is None:
        ctx.fail(f"Account {customer_id} has no open invoice this month; transfer to a human agent.")
    return row


def _add_item(
    ctx: ToolContext, invoice_id: str, tracking_number: str | None, kind: str, text: str, cents: int
) -> None:
    number = ctx.scalar(
        "SELECT COALESCE(MAX(item_no), 0) + 1 FROM invoice_items WHERE invoice_id = ?", (invoice_id,)
    )
    ctx.execute(
        "INSERT INTO invoice_items (invoice_id, item_no, tracking_number, kind, description, amount_cents) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (invoice_id, number, tracking_number, kind, text, cents),
    )


def _event(ctx: ToolContext, tracking_number: str, code: str, location: str, text: str) -> None:
    event_id = ctx.next_id("tracking_events", "event_id", "ev_", 7)
    ctx.execute(
        "INSERT INTO tracking_events (event_id, tracking_number, occurred_at, code, location, description) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (event_id, tracking_number, ctx.now, code, location, text),
    )


def _place(address: Row) -> str:
    return f"{address['city']}, {address['state'] or address['country']}"


def _address_view(address: Row) -> dict:
    return {
        "address_id": address["address_id"],
        "label": address["label"],
        "address1": address["address1"],
        "city": address["city"],
        "state": address["state"],
        "postal_code": address["postal_code"],
        "country": address["country"],
        "region": address["region"],
        "depot_id": address["depot_id"],
    }


def _claim_deadline(shipment: Row) -> str | None:
    if shipment["status"] == "delivered":
        delivered = datetime.date.fromisoformat(shipment["delivered_at"][:10])
        return (delivered + datetime.timedelta(days=DAMAGE_CLAIM_DAYS)).isoformat()
    if shipment["status"] == "lost":
        shipped = datetime.date.fromisoformat(shipment["ship_date"])
        return (shipped + datetime.timedelta(days=LOST_CLAIM_DAYS)).isoformat()
    return None


def _return_deadline(shipment: Row) -> str | None:
    if shipment["status"] != "delivered":
        return None
    delivered = datetime.date.fromisoformat(shipment["delivered_at"][:10])
    return (delivered + datetime.timedelta(days=RETURN_DAYS)).isoformat()


def _shipment_view(ctx: ToolContext, tracking_number: str) -> dict:
    s = _shipment(ctx, tracking_number)
    tn = s["tracking_number"]
    service = _service(ctx, s["service_id"])
    origin = _address(ctx, s["from_address_id"])
    destination = _address(ctx, s["to_address_id"])
    change = ctx.one(
        "SELECT * FROM delivery_changes WHERE tracking_number = ? ORDER BY change_id DESC", (tn,)
    )
    returned = ctx.one(
        "SELECT tracking_number FROM shipments WHERE return_of = ? ORDER BY tracking_number", (tn,)
    )
    events = ctx.all(
        "SELECT occurred_at, code, location, description FROM tracking_events WHERE tracking_number = ? "
        "ORDER BY occurred_at, event_id",
        (tn,),
    )
    claims = ctx.all("SELECT claim_id FROM claims WHERE tracking_number = ? ORDER BY claim_id", (tn,))
    international = destination["country"] != "US" or origin["country"] != "US"
    return {
        "tracking_number": tn,
        "customer_id": s["customer_id"],
        "kind": s["kind"],
        "return_of": s["return_of"],
        "return_label": None if returned is None else returned["tracking_number"],
        "service_id": service["service_id"],
        "service_name": service["name"],
        "status": s["status"],
        "from_address": _address_view(origin),
        "to_address": _address_view(destination),
        "international": international,
        "zone": _zone(origin, destination),
        "contents": s["contents"],
        "weight_kg": s["weight_kg"],
        "dimensions_cm": {"length": s["length_cm"], "width": s["width_cm"], "height": s["height_cm"]},
        "billable_kg": _billable_kg(s["weight_kg"], s["length_cm"], s["width_cm"], s["height_cm"]),
        "declared_value": _dollars(s["declared_value_cents"]),
        "insured": bool(s["insured"]),
        "price": _dollars(s["price_cents"]),
        "insurance": _dollars(s["insurance_cents"]),
        "created_at": s["created_at"],
        "ship_date": s["ship_date"],
        "estimated_delivery": s["estimated_delivery"],
        "delivered_at": s["delivered_at"],
        "hold_depot_id": s["hold_depot_id"],
        "delivery_change": None
        if change is None
        else {
            "change_id": change["change_id"],
            "kind": change["kind"],
            "new_address_id": change["new_address_id"],
            "depot_id": change["depot_id"],
            "fee": _dollars(change["fee_cents"]),
            "created_at": change["created_at"],
        },
        "delivery_change_allowed": s["status"] in CHANGEABLE and not international and change is None,
        "claim_deadline": _claim_deadline(s),
        "return_label_deadline": None if international else _return_deadline(s),
        "claims": [c["claim_id"] for c in claims],
        "events": events,
    }


def _pickup_view(ctx: ToolContext, pickup_id: str) -> dict:
    p = _pickup(ctx, pickup_id)
    depot = _depot(ctx, p["depot_id"])
    return {
        "pickup_id": p["pickup_id"],
        "customer_id": p["customer_id"],
        "address": _address_view(_address(ctx, p["address_id"])),
        "depot_id": depot["depot_id"],
        "depot_name": depot["name"],
        "pickup_date": p["pickup_date"],
        "window": p["window"],
        "parcel_count": p["parcel_count"],
        "status": p["status"],
        "created_at": p["created_at"],
    }


def _claim_view(ctx: ToolContext, claim_id: str) -> dict:
    c = _claim(ctx, claim_id)
    return {
        "claim_id": c["claim_id"],
        "tracking_number": c["tracking_number"],
        "customer_id": c["customer_id"],
        "kind": c["kind"],
        "amount": _dollars(c["amount_cents"]),
        "status": c["status"],
        "description": c["description"],
        "filed_at": c["filed_at"],
        "decided_at": c["decided_at"],
    }


def _invoice_view(ctx: ToolContext, invoice_id: str) -> dict:
    inv = _invoice(ctx, invoice_id)
    items = ctx.all(
        "SELECT item_no, tracking_number, kind, description, amount_cents FROM invoice_items "
        "WHERE invoice_id = ? ORDER BY item_no",
        (inv["invoice_id"],),
    )
    total = sum(i["amount_cents"] for i in items)
    by_shipment: dict[str, int] = {}
    for i in items:
        if i["tracking_number"] is not None:
            by_shipment[i["tracking_number"]] = by_shipment.get(i["tracking_number"], 0) + i["amount_cents"]
    return {
        "invoice_id": inv["invoice_id"],
        "customer_id": inv["customer_id"],
        "period": inv["period"],
        "status": inv["status"],
        "issued_at": inv["issued_at"],
        "due_date": inv["due_date"],
        "paid_at": inv["paid_at"],
        "items": [
            {
                "item_no": i["item_no"],
                "tracking_number": i["tracking_number"],
                "kind": i["kind"],
                "description": i["description"],
                "amount": _dollars(i["amount_cents"]),
            }
            for i in items
        ],
        "charges_by_shipment": [
            {"tracking_number": k, "amount": _dollars(v)} for k, v in by_shipment.items()
        ],
        "total": _dollars(total),
        "balance_due": 0.0 if inv["status"] in ("paid", "open") else _dollars(total),
    }


def _require_active_account(ctx: ToolContext, customer: Row, action: str) -> None:
    if customer["account_status"] != "active":
        ctx.fail(
            f"Account {customer['customer_id']} is on credit hold because of an overdue invoice; "
            f"it cannot {action} until the overdue invoice is paid."
        )


def _require_shipment_status(ctx: ToolContext, shipment: Row, allowed: tuple[str, ...], action: str) -> None:
    if shipment["status"] not in allowed:
        shown = ", ".join(allowed)
        ctx.fail(
            f"Shipment {shipment['tracking_number']} is {shipment['status']}; {action} only while it is {shown}."
        )


def _changeable(ctx: ToolContext, shipment: Row, action: str) -> Row:
    """The destination of a shipment whose delivery may still change."""
    _require_shipment_status(ctx, shipment, CHANGEABLE, action)
    origin = _address(ctx, shipment["from_address_id"])
    destination = _address(ctx, shipment["to_address_id"])
    if destination["country"] != "US" or origin["country"] != "US":
        ctx.fail(f"Shipment {shipment['tracking_number']} is international; its delivery cannot be changed.")
    change = ctx.one(
        "SELECT change_id, kind FROM delivery_changes WHERE tracking_number = ? ORDER BY change_id",
        (shipment["tracking_number"],),
    )
    if change is not None:
        ctx.fail(
            f"Shipment {shipment['tracking_number']} already had a delivery change ({change['change_id']}, "
            f"{change['kind']}); only one change is allowed per shipment."
        )
    return destination


# --------------------------------------------------------------------------- lookups


def find_customer_id_by_email(ctx: ToolContext, *, email: str) -> dict:
    row = ctx.one("SELECT customer_id FROM customers WHERE email = ?", (email.strip().lower(),))
    if row is None:
        ctx.fail("No customer found with that email.")
    return {"customer_id": row["customer_id"]}


def find_customer_id_by_phone(ctx: ToolContext, *, phone: str) -> dict:
    digits = "".join(ch for ch in phone if ch.isdigit())
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    row = ctx.one("SELECT customer_id FROM customers WHERE phone = ?", (digits,))
    if row is None:
        ctx.fail("No customer found with that phone number.")
    return {"customer_id": row["customer_id"]}


def get_customer_details(ctx: ToolContext, *, customer_id: str) -> dict:
    c = _customer(ctx, customer_id)
    addresses = ctx.all("SELECT * FROM addresses WHERE customer_id = ? ORDER BY address_id", (customer_id,))

    def ids(sql: str) -> list[str]:
        return [r["id"] for r in ctx.all(sql, (customer_id,))]

    return {
        "customer_id": c["customer_id"],
        "first_name": c["first_name"],
        "last_name": c["last_name"],
        "company": c["company"],
        "email": c["email"],
        "phone": c["phone"],
        "tier": c["tier"],
        "account_status": c["account_status"],
        "card_on_file": c["card_on_file"],
        "customer_since": c["customer_since"],
        "addresses": [_address_view(a) for a in addresses],
        "shipments": ids(
            "SELECT tracking_number AS id FROM shipments WHERE customer_id = ? ORDER BY created_at DESC, tracking_number"
        ),
        "pickups": ids(
            "SELECT pickup_id AS id FROM pickups WHERE customer_id = ? ORDER BY pickup_date DESC, pickup_id"
        ),
        "claims": ids("SELECT claim_id AS id FROM claims WHERE customer_id = ? ORDER BY claim_id"),
        "invoices": ids("SELECT invoice_id AS id FROM invoices WHERE customer_id = ? ORDER BY period DESC"),
    }


def get_shipment_details(ctx: ToolContext, *, tracking_number: str) -> dict:
    return _shipment_view(ctx, tracking_number)


def list_services(ctx: ToolContext) -> dict:
    services = ctx.all("SELECT * FROM services ORDER BY transit_days DESC, service_id")
    out = []
    for s in services:
        rates = ctx.all(
            "SELECT zone, base_cents, per_kg_cents FROM service_rates WHERE service_id = ? ORDER BY zone",
            (s["service_id"],),
        )
        out.append(
            {
                "service_id": s["service_id"],
                "name": s["name"],
                "max_weight_kg": s["max_weight_kg"],
                "max_length_cm": s["max_length_cm"],
                "max_size_cm": s["max_size_cm"],
                "transit_days": s["transit_days"],
                "international": bool(s["international"]),
                "rates": [
                    {
                        "zone": r["zone"],
                        "base_price": _dollars(r["base_cents"]),
                        "per_kg": _dollars(r["per_kg_cents"]),
                    }
                    for r in rates
                ],
            }
        )
    return {"services": out}


def list_depots(ctx: ToolContext) -> dict:
    rows = ctx.all("SELECT * FROM depots ORDER BY region, depot_id")
    return {
        "depots": [
            {
                "depot_id": d["depot_id"],
                "name": d["name"],
                "address1": d["address1"],
                "city": d["city"],
                "state": d["state"],
                "zip": d["zip"],
                "region": d["region"],
                "region_name": REGION_NAMES[d["region"]],
                "accepts_holds": bool(d["accepts_holds"]),
                "hold_days": d["hold_days"],
            }
            for d in rows
        ]
    }


def get_pickup_details(ctx: ToolContext, *, pickup_id: str) -> dict:
    return _pickup_view(ctx, pickup_id)


def get_claim_details(ctx: ToolContext, *, claim_id: str) -> dict:
    return _claim_view(ctx, claim_id)


def get_invoice_details(ctx: ToolContext, *, invoice_id: str) -> dict:
    return _invoice_view(ctx, invoice_id)


def _pickup_day(ctx: ToolContext, pickup_date: str) -> datetime.date:
    try:
        day = datetime.date.fromisoformat(pickup_date.strip())
    except ValueError:
        ctx.fail(f"{pickup_date!r} is not a date; use YYYY-MM-DD.")
    today = _today(ctx)
    if day <= today:
        ctx.fail(
            f"Pickups are booked from the next day on; {day.isoformat()} is not after today ({today.isoformat()})."
        )
    if (day - today).days > PICKUP_DAYS_AHEAD:
        ctx.fail(
            f"Pickups can be booked at most {PICKUP_DAYS_AHEAD} days ahead; {day.isoformat()} is too far out."
        )
    if not _is_business_day(day):
        ctx.fail(
            f"{day.isoformat()} is a {day.strftime('%A')}; pickups run on business days (Monday to Friday) only."
        )
    return day


def _booked(ctx: ToolContext, depot_id: str, day: str) -> int:
    return ctx.scalar(
        "SELECT COUNT(*) FROM pickups WHERE depot_id = ? AND pickup_date = ? AND status = 'scheduled'",
        (depot_id, day),
    )


def check_pickup_availability(ctx: ToolContext, *, address_id: str, pickup_date: str) -> dict:
    address = _address(ctx, address_id)
    if address["depot_id"] is None:
        ctx.fail(f"Address {address_id} is abroad; pickups are collected only at domestic addresses.")
    day = _pickup_day(ctx, pickup_date)
    depot = _depot(ctx, address["depot_id"])
    booked = _booked(ctx, depot["depot_id"], day.isoformat())
    remaining = max(depot["daily_pickup_capacity"] - booked, 0)
    return {
        "address_id": address_id,
        "pickup_date": day.isoformat(),
        "weekday": day.strftime("%A"),
        "depot_id": depot["depot_id"],
        "depot_name": depot["name"],
        "daily_capacity": depot["daily_pickup_capacity"],
        "booked": booked,
        "remaining": remaining,
        "available": remaining > 0,
    }


# --------------------------------------------------------------------------- shipments


def create_shipment(
    ctx: ToolContext,
    *,
    customer_id: str,
    from_address_id: str,
    to_address_id: str,
    service_id: str,
    contents: str,
    weight_kg: float,
    length_cm: int,
    width_cm: int,
    height_cm: int,
    declared_value: float,
    insure: bool = False,
) -> dict:
    customer = _customer(ctx, customer_id)
    _require_active_account(ctx, customer, "create shipments")
    origin = _own_address(ctx, customer_id, from_address_id)
    destination = _own_address(ctx, customer_id, to_address_id)
    if from_address_id == to_address_id:
        ctx.fail("The sender and recipient addresses must differ.")
    if origin["country"] != "US":
        ctx.fail(f"Address {from_address_id} is abroad; shipments leave from a domestic address only.")
    service = _service(ctx, service_id)
    abroad = destination["country"] != "US"
    if abroad and not service["international"]:
        ctx.fail(
            f"{service['name']} is domestic; parcels to {destination['country']} go by an international service."
        )
    if not abroad and service["international"]:
        ctx.fail(f"{service['name']} serves addresses abroad only; choose a domestic service.")
    if weight_kg <= 0 or min(length_cm, width_cm, height_cm) <= 0:
        ctx.fail("Weight and dimensions must be positive.")
    if abs(weight_kg * 10 - round(weight_kg * 10)) > 1e-6:
        ctx.fail("Give the weight in kg to one decimal (e.g. 2.4).")
    weight = round(weight_kg, 1)
    longest = max(length_cm, width_cm, height_cm)
    if weight > service["max_weight_kg"]:
        ctx.fail(
            f"{service['name']} takes parcels up to {service['max_weight_kg']} kg; this one weighs {weight} kg."
        )
    if longest > service["max_length_cm"]:
        ctx.fail(
            f"{service['name']} takes parcels up to {service['max_length_cm']} cm on the longest side; this one is {longest} cm."
        )
    size = length_cm + width_cm + height_cm
    if size > service["max_size_cm"]:
        ctx.fail(
            f"{service['name']} takes parcels up to {service['max_size_cm']} cm in length + width + height; "
            f"this one measures {size} cm."
        )
    declared = _cents(ctx, declared_value, "declared value")
    cap = DECLARED_VALUE_CAP_CENTS[customer["tier"]]
    if declared > cap:
        ctx.fail(
            f"A {customer['tier']} account can declare at most {_fmt(cap)} per parcel; {_fmt(declared)} is more."
        )
    text = contents.strip()
    if not text:
        ctx.fail("Say what the parcel contains.")
    zone = _zone(origin, destination)
    billable = _billable_kg(weight, length_cm, width_cm, height_cm)
    price = _price(ctx, service_id, zone, billable, customer["tier"])
    insurance = _insurance(declared) if insure else 0
    invoice = _open_invoice(ctx, customer_id)
    tracking_number = ctx.next_id("shipments", "tracking_number", "PX", 10)
    ship_day = _ship_day(ctx)
    estimated = _add_business_days(ship_day, service["transit_days"])
    ctx.execute(
        "INSERT INTO shipments (tracking_number, customer_id, kind, return_of, service_id, from_address_id, "
        "to_address_id, contents, status, weight_kg, length_cm, width_cm, height_cm, declared_value_cents, insured, "
        "price_cents, insurance_cents, created_at, ship_date, estimated_delivery, delivered_at, hold_depot_id) "
        "VALUES (?, ?, 'outbound', NULL, ?, ?, ?, ?, 'label_created', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
        (
            tracking_number,
            customer_id,
            service_id,
            from_address_id,
            to_address_id,
            text,
            weight,
            length_cm,
            width_cm,
            height_cm,
            declared,
            1 if insure else 0,
            price,
            insurance,
            ctx.now,
            ship_day.isoformat(),
            estimated.isoformat(),
        ),
    )
    _event(ctx, tracking_number, "label_created", _place(origin), "Shipping label created")
    _add_item(
        ctx,
        invoice["invoice_id"],
        tracking_number,
        "shipping",
        f"{service['name']}, zone {zone}, {billable} kg",
        price,
    )
    if insurance:
        _add_item(
            ctx,
            invoice["invoice_id"],
            tracking_number,
            "insurance",
            f"Insurance, declared {_fmt(declared)}",
            insurance,
        )
    return _shipment_view(ctx, tracking_number)


def cancel_shipment(ctx: ToolContext, *, tracking_number: str) -> dict:
    s = _shipment(ctx, tracking_number)
    tn = s["tracking_number"]
    _require_shipment_status(ctx, s, ("label_created",), "a label can be cancelled")
    invoice = _open_invoice(ctx, s["customer_id"])
    refund = s["price_cents"] + s["insurance_cents"]
    ctx.execute("UPDATE shipments SET status = 'cancelled' WHERE tracking_number = ?", (tn,))
    origin = _address(ctx, s["from_address_id"])
    _event(ctx, tn, "cancelled", _place(origin), "Label cancelled by the shipper")
    _add_item(ctx, invoice["invoice_id"], tn, "credit", f"Label {tn} cancelled", -refund)
    view = _shipment_view(ctx, tn)
    return {"shipment": view, "credited": _dollars(refund), "credited_to_invoice": invoice["invoice_id"]}


def redirect_shipment(ctx: ToolContext, *, tracking_number: str, address_id: str) -> dict:
    s = _shipment(ctx, tracking_number)
    tn = s["tracking_number"]
    current = _changeable(ctx, s, "a parcel can be redirected")
    new = _own_address(ctx, s["customer_id"], address_id)
    if address_id == s["to_address_id"]:
        ctx.fail(f"Shipment {tn} already goes to {address_id} ({new['label']}).")
    if new["country"] != "US":
        ctx.fail(f"Address {address_id} is abroad; a parcel can only be redirected within the country.")
    customer = _customer(ctx, s["customer_id"])
    fee = REDIRECT_FEE_CENTS[customer["tier"]]
    invoice = _open_invoice(ctx, s["customer_id"]) if fee else None
    estimated = _add_business_days(max(datetime.date.fromisoformat(s["estimated_delivery"]), _today(ctx)), 1)
    change_id = ctx.next_id("delivery_changes", "change_id", "dc_", 6)
    ctx.execute(
        "INSERT INTO delivery_changes (change_id, tracking_number, kind, previous_address_id, new_address_id, "
        "depot_id, fee_cents, created_at) VALUES (?, ?, 'redirect', ?, ?, NULL, ?, ?)",
        (change_id, tn, s["to_address_id"], address_id, fee, ctx.now),
    )
    ctx.execute(
        "UPDATE shipments SET to_address_id = ?, estimated_delivery = ? WHERE tracking_number = ?",
        (address_id, estimated.isoformat(), tn),
    )
    _event(ctx, tn, "delivery_change", _place(current), f"Redirected by the shipper to {_place(new)}")
    if invoice is not None:
        _add_item(ctx, invoice["invoice_id"], tn, "redirect_fee", f"Redirect of {tn}", fee)
    return {"shipment": _shipment_view(ctx, tn), "change_id": change_id, "fee": _dollars(fee)}


def hold_at_depot(ctx: ToolContext, *, tracking_number: str, depot_id: str) -> dict:
    s = _shipment(ctx, tracking_number)
    tn = s["tracking_number"]
    destination = _changeable(ctx, s, "a parcel can be held at a depot")
    depot = _depot(ctx, depot_id)
    if not depot["accepts_holds"]:
        ctx.fail(f"{depot['name']} ({depot_id}) does not hold parcels for collection.")
    if depot["region"] != destination["region"]:
        ctx.fail(
            f"{depot['name']} is in the {REGION_NAMES[depot['region']]} region; a parcel can only be held at a "
            f"depot of its destination's region ({REGION_NAMES[destination['region']]})."
        )
    change_id = ctx.next_id("delivery_changes", "change_id", "dc_", 6)
    ctx.execute(
        "INSERT INTO delivery_changes (change_id, tracking_number, kind, previous_address_id, new_address_id, "
        "depot_id, fee_cents, created_at) VALUES (?, ?, 'hold_at_depot', ?, NULL, ?, 0, ?)",
        (change_id, tn, s["to_address_id"], depot_id, ctx.now),
    )
    ctx.execute("UPDATE shipments SET hold_depot_id = ? WHERE tracking_number = ?", (depot_id, tn))
    _event(
        ctx, tn, "delivery_change", _place(destination), f"Hold for collection requested at {depot['name']}"
    )
    return {
        "shipment": _shipment_view(ctx, tn),
        "change_id": change_id,
        "depot_name": depot["name"],
        "hold_days": depot["hold_days"],
    }


def create_return_label(ctx: ToolContext, *, tracking_number: str) -> dict:
    s = _shipment(ctx, tracking_number)
    tn = s["tracking_number"]
    _require_shipment_status(ctx, s, ("delivered",), "a return label can be created")
    if s["kind"] == "return":
        ctx.fail(f"Shipment {tn} is itself a return; it cannot get another return label.")
    origin = _address(ctx, s["from_address_id"])
    destination = _address(ctx, s["to_address_id"])
    if destination["country"] != "US" or origin["country"] != "US":
        ctx.fail(f"Shipment {tn} is international; return labels are for domestic parcels only.")
    existing = ctx.one(
        "SELECT tracking_number FROM shipments WHERE return_of = ? AND status != 'cancelled'", (tn,)
    )
    if existing is not None:
        ctx.fail(f"Shipment {tn} already has return label {existing['tracking_number']}.")
    deadline = _return_deadline(s)
    assert deadline is not None
    if _today(ctx).isoformat() > deadline:
        ctx.fail(
            f"Shipment {tn} was delivered on {s['delivered_at'][:10]}; return labels are available for "
            f"{RETURN_DAYS} days after delivery (until {deadline})."
        )
    customer = _customer(ctx, s["customer_id"])
    service = _service(ctx, RETURN_SERVICE)
    zone = _zone(destination, origin)
    billable = _billable_kg(s["weight_kg"], s["length_cm"], s["width_cm"], s["height_cm"])
    price = _price(ctx, RETURN_SERVICE, zone, billable, customer["tier"])
    invoice = _open_invoice(ctx, s["customer_id"])
    new_tn = ctx.next_id("shipments", "tracking_number", "PX", 10)
    ship_day = _ship_day(ctx)
    ctx.execute(
        "INSERT INTO shipments (tracking_number, customer_id, kind, return_of, service_id, from_address_id, "
        "to_address_id, contents, status, weight_kg, length_cm, width_cm, height_cm, declared_value_cents, insured, "
        "price_cents, insurance_cents, created_at, ship_date, estimated_delivery, delivered_at, hold_depot_id) "
        "VALUES (?, ?, 'return', ?, ?, ?, ?, ?, 'label_created', ?, ?, ?, ?, ?, 0, ?, 0, ?, ?, ?, NULL, NULL)",
        (
            new_tn,
            s["customer_id"],
            tn,
            RETURN_SERVICE,
            s["to_address_id"],
            s["from_address_id"],
            s["contents"],
            s["weight_kg"],
            s["length_cm"],
            s["width_cm"],
            s["height_cm"],
            s["declared_value_cents"],
            price,
            ctx.now,
            ship_day.isoformat(),
            _add_business_days(ship_day, service["transit_days"]).isoformat(),
        ),
    )
    _event(ctx, new_tn, "label_created", _place(destination), f"Return label created for {tn}")
    _add_item(
        ctx, invoice["invoice_id"], new_tn, "return_label", f"Return label for {tn}, zone {zone}", price
    )
    return _shipment_view(ctx, new_tn)


# --------------------------------------------------------------------------- pickups


def schedule_pickup(
    ctx: ToolContext, *, customer_id: str, address_id: str, pickup_date: str, window: str, parcel_count: int
) -> dict:
    customer = _customer(ctx, customer_id)
    _require_active_account(ctx, customer, "book pickups")
    if window not in PICKUP_WINDOWS:
        ctx.fail(f"The window must be one of: {', '.join(PICKUP_WINDOWS)}.")
    if parcel_count < 1 or parcel_count > 25:
        ctx.fail("A pickup collects 1 to 25 parcels.")
    address = _own_address(ctx, customer_id, address_id)
    if address["depot_id"] is None:
        ctx.fail(f"Address {address_id} is abroad; pickups are collected only at domestic addresses.")
    day = _pickup_day(ctx, pickup_date).isoformat()
    same = ctx.one(
        "SELECT pickup_id FROM pickups WHERE address_id = ? AND pickup_date = ? AND status = 'scheduled'",
        (address_id, day),
    )
    if same is not None:
        ctx.fail(
            f"Pickup {same['pickup_id']} is already booked at {address['label']} on {day}; one pickup per address per day."
        )
    depot = _depot(ctx, address["depot_id"])
    booked = _booked(ctx, depot["depot_id"], day)
    if booked >= depot["daily_pickup_capacity"]:
        ctx.fail(
            f"{depot['name']} is fully booked on {day} ({booked} of {depot['daily_pickup_capacity']} pickups); "
            "choose another business day."
        )
    pickup_id = ctx.next_id("pickups", "pickup_id", "PU", 6)
    ctx.execute(
        "INSERT INTO pickups (pickup_id, customer_id, address_id, depot_id, pickup_date, window, parcel_count, "
        "status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'scheduled', ?)",
        (pickup_id, customer_id, address_id, depot["depot_id"], day, window, parcel_count, ctx.now),
    )
    return _pickup_view(ctx, pickup_id)


def cancel_pickup(ctx: ToolContext, *, pickup_id: str) -> dict:
    p = _pickup(ctx, pickup_id)
    if p["status"] != "scheduled":
        ctx.fail(f"Pickup {p['pickup_id']} is {p['status']}; only scheduled pickups can be cancelled.")
    if p["pickup_date"] <= _today(ctx).isoformat():
        ctx.fail(
            f"Pickup {p['pickup_id']} is today ({p['pickup_date']}); the driver is already on the way and it "
            "can only be cancelled before the pickup day."
        )
    ctx.execute("UPDATE pickups SET status = 'cancelled' WHERE pickup_id = ?", (p["pickup_id"],))
    return _pickup_view(ctx, p["pickup_id"])


# --------------------------------------------------------------------------- claims


def file_claim(ctx: ToolContext, *, tracking_number: str, kind: str, amount: float, description: str) -> dict:
    if kind not in CLAIM_KINDS:
        ctx.fail("A claim is for a parcel 'lost' or 'damaged'.")
    s = _shipment(ctx, tracking_number)
    tn = s["tracking_number"]
    _require_shipment_status(ctx, s, CLAIMABLE, "a claim can be filed")
    if kind == "damaged" and s["status"] != "delivered":
        ctx.fail(f"Shipment {tn} is {s['status']}; a damage claim needs a delivered parcel.")
    if kind == "lost" and s["status"] != "lost":
        ctx.fail(f"Shipment {tn} was delivered; a lost-parcel claim needs a parcel declared lost.")
    other = ctx.one(
        "SELECT claim_id, status FROM claims WHERE tracking_number = ? AND status != 'withdrawn' ORDER BY claim_id",
        (tn,),
    )
    if other is not None:
        ctx.fail(
            f"Shipment {tn} already has claim {other['claim_id']} ({other['status']}); one claim per shipment."
        )
    deadline = _claim_deadline(s)
    assert deadline is not None
    if _today(ctx).isoformat() > deadline:
        ctx.fail(
            f"The filing window for shipment {tn} closed on {deadline} ({DAMAGE_CLAIM_DAYS} days after delivery "
            f"for damage, {LOST_CLAIM_DAYS} days after shipping for loss)."
        )
    cents = _cents(ctx, amount, "amount")
    if cents > s["declared_value_cents"]:
        ctx.fail(
            f"{_fmt(cents)} is more than the declared value of shipment {tn}, {_fmt(s['declared_value_cents'])}."
        )
    if not s["insured"] and cents > BASE_LIABILITY_CENTS:
        ctx.fail(
            f"Shipment {tn} is not insured; without insurance a claim is limited to {_fmt(BASE_LIABILITY_CENTS)}."
        )
    text = description.strip()
    if not text:
        ctx.fail("Describe what happened in a few words.")
    claim_id = ctx.next_id("claims", "claim_id", "CLM", 5)
    ctx.execute(
        "INSERT INTO claims (claim_id, tracking_number, customer_id, kind, amount_cents, status, description, "
        "filed_at, decided_at) VALUES (?, ?, ?, ?, ?, 'submitted', ?, ?, NULL)",
        (claim_id, tn, s["customer_id"], kind, cents, text, ctx.now),
    )
    return _claim_view(ctx, claim_id)


def withdraw_claim(ctx: ToolContext, *, claim_id: str) -> dict:
    c = _claim(ctx, claim_id)
    if c["status"] not in PENDING_CLAIM:
        ctx.fail(
            f"Claim {c['claim_id']} is {c['status']}; only submitted or under-review claims can be withdrawn."
        )
    ctx.execute("UPDATE claims SET status = 'withdrawn' WHERE claim_id = ?", (c["claim_id"],))
    return _claim_view(ctx, c["claim_id"])


# --------------------------------------------------------------------------- invoices


def pay_invoice(ctx: ToolContext, *, invoice_id: str) -> dict:
    inv = _invoice(ctx, invoice_id)
    iid = inv["invoice_id"]
    if inv["status"] not in ("issued", "overdue"):
        detail = "it has not been issued yet" if inv["status"] == "open" else "it is already paid"
        ctx.fail(f"Invoice {iid} is {inv['status']}; only issued or overdue invoices can be paid ({detail}).")
    customer = _customer(ctx, inv["customer_id"])
    if customer["card_on_file"] is None:
        ctx.fail(
            f"Account {customer['customer_id']} has no card on file to pay with; transfer to a human agent."
        )
    amount = _invoice_view(ctx, iid)["total"]
    ctx.execute("UPDATE invoices SET status = 'paid', paid_at = ? WHERE invoice_id = ?", (ctx.now, iid))
    overdue = ctx.scalar(
        "SELECT COUNT(*) FROM invoices WHERE customer_id = ? AND status = 'overdue'",
        (customer["customer_id"],),
    )
    status = customer["account_status"]
    if status == "credit_hold" and overdue == 0:
        status = "active"
        ctx.execute(
            "UPDATE customers SET account_status = 'active' WHERE customer_id = ?", (customer["customer_id"],)
        )
    return {
        "invoice_id": iid,
        "status": "paid",
        "amount_paid": amount,
        "charged_to": customer["card_on_file"],
        "account_status": status,
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
