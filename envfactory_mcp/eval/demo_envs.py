"""Small linked environments for evaluation tests and the benchmark.

``crm`` knows customers, ``billing`` their invoices (keyed by the crm's ``customer_id``),
``shipping`` the shipments of invoices (keyed by billing's ``invoice_id``): a chain can
start from an email on crm and end with a write on shipping. ``notes_<k>`` servers share
no key with them and serve as distractors. Built with ``env.assemble_env`` from code in
this module (repository code, so it is loaded in-process).
"""

from __future__ import annotations

import random
from typing import Any

from envfactory_mcp.env import Environment, assemble_env
from envfactory_mcp.spec import parse_spec

LINKED = ("crm", "billing", "shipping")
SHARED_ENTITIES = ("customer", "invoice")  # the same id means the same thing on every linked server


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(props) if required is None else required,
        "additionalProperties": False,
    }


_S = {"type": "string"}
_N = {"type": "number"}


def _tool(
    name: str,
    description: str,
    effect: str,
    reads: list[str],
    writes: list[str],
    inp: dict[str, Any],
    out: dict[str, Any],
    params: dict[str, Any],
    outputs: dict[str, str] | None = None,
    claims: list[str] | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "intent": name.replace("_", " "),
        "effect": effect,
        "reads": reads,
        "writes": writes,
        "input_schema": inp,
        "output_schema": out,
        "params": params,
        "outputs": outputs or {},
        "claims": claims or [],
    }


def _spec(name: str, title: str, tables: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": name,
        "title": title,
        "domain": "eval",
        "description": f"{title} (a small linked environment for evaluation).",
        "clock": "2026-01-15T12:00:00Z",
        "tables": tables,
        "tools": tools,
        "policy": f"You help customers with {title.lower()}. Tell the customer what you found.",
        "seed": {"generator": f"blueprint:{name}", "seed": 0},
    }


CUSTOMER = {"entity": "customer", "user_provided": False}
INVOICE = {"entity": "invoice", "user_provided": False}
SHIPMENT = {"entity": "shipment", "user_provided": False}


def crm_spec() -> dict[str, Any]:
    customer = _obj({"customer_id": _S, "name": _S, "email": _S, "tier": _S})
    return _spec(
        "crm",
        "Customer records",
        [
            {
                "name": "customers",
                "primary_key": ["customer_id"],
                "entity": "customer",
                "columns": [
                    {"name": "customer_id", "type": "TEXT", "entity": "customer"},
                    {"name": "name", "type": "TEXT"},
                    {"name": "email", "type": "TEXT", "unique": True},
                    {"name": "tier", "type": "TEXT", "enum": ["basic", "gold", "platinum"]},
                ],
            }
        ],
        [
            _tool(
                "find_customer_by_email",
                "Find a customer's id and name by their email address.",
                "read",
                ["customers"],
                [],
                _obj({"email": _S}),
                _obj({"customer_id": _S, "name": _S}),
                {"email": {"user_provided": True}},
                {"customer_id": "customer"},
            ),
            _tool(
                "get_customer",
                "Get a customer's record by customer id.",
                "read",
                ["customers"],
                [],
                _obj({"customer_id": _S}),
                customer,
                {"customer_id": CUSTOMER},
                {"customer_id": "customer"},
                ["tier"],
            ),
            _tool(
                "set_customer_tier",
                "Change a customer's loyalty tier.",
                "write",
                ["customers"],
                ["customers"],
                _obj({"customer_id": _S, "tier": {"type": "string", "enum": ["basic", "gold", "platinum"]}}),
                customer,
                {"customer_id": CUSTOMER, "tier": {"user_provided": True}},
                {"customer_id": "customer"},
                ["tier"],
            ),
        ],
    )


def billing_spec() -> dict[str, Any]:
    invoice = _obj({"invoice_id": _S, "customer_id": _S, "amount": _N, "status": _S, "due_date": _S})
    listing = _obj(
        {"invoices": {"type": "array", "items": _obj({"invoice_id": _S, "amount": _N, "status": _S})}}
    )
    return _spec(
        "billing",
        "Billing",
        [
            {
                "name": "invoices",
                "primary_key": ["invoice_id"],
                "entity": "invoice",
                "columns": [
                    {"name": "invoice_id", "type": "TEXT", "entity": "invoice"},
                    {"name": "customer_id", "type": "TEXT", "entity": "customer"},
                    {"name": "amount", "type": "REAL"},
                    {"name": "status", "type": "TEXT", "enum": ["open", "paid"]},
                    {"name": "due_date", "type": "TEXT"},
                ],
            }
        ],
        [
            _tool(
                "list_invoices",
                "List the invoices of a customer (by customer id).",
                "read",
                ["invoices"],
                [],
                _obj({"customer_id": _S}),
                listing,
                {"customer_id": CUSTOMER},
                {"invoices[].invoice_id": "invoice"},
            ),
            _tool(
                "get_invoice",
                "Get one invoice by invoice id.",
                "read",
                ["invoices"],
                [],
                _obj({"invoice_id": _S}),
                invoice,
                {"invoice_id": INVOICE},
                {"invoice_id": "invoice", "customer_id": "customer"},
                ["amount", "due_date"],
            ),
            _tool(
                "pay_invoice",
                "Pay an open invoice in full.",
                "write",
                ["invoices"],
                ["invoices"],
                _obj({"invoice_id": _S}),
                invoice,
                {"invoice_id": INVOICE},
                {"invoice_id": "invoice"},
                ["status", "amount"],
            ),
        ],
    )


def shipping_spec() -> dict[str, Any]:
    shipment = _obj({"shipment_id": _S, "invoice_id": _S, "carrier": _S, "status": _S, "eta": _S})
    return _spec(
        "shipping",
        "Shipping",
        [
            {
                "name": "shipments",
                "primary_key": ["shipment_id"],
                "entity": "shipment",
                "columns": [
                    {"name": "shipment_id", "type": "TEXT", "entity": "shipment"},
                    {"name": "invoice_id", "type": "TEXT", "entity": "invoice", "unique": True},
                    {"name": "carrier", "type": "TEXT"},
                    {"name": "status", "type": "TEXT", "enum": ["pending", "in_transit", "held"]},
                    {"name": "eta", "type": "TEXT"},
                ],
            }
        ],
        [
            _tool(
                "get_shipment_for_invoice",
                "Get the shipment of an invoice (by invoice id).",
                "read",
                ["shipments"],
                [],
                _obj({"invoice_id": _S}),
                shipment,
                {"invoice_id": INVOICE},
                {"shipment_id": "shipment", "invoice_id": "invoice"},
                ["carrier", "eta"],
            ),
            _tool(
                "hold_shipment",
                "Put a pending or in-transit shipment on hold.",
                "write",
                ["shipments"],
                ["shipments"],
                _obj({"shipment_id": _S}),
                shipment,
                {"shipment_id": SHIPMENT},
                {"shipment_id": "shipment"},
                ["status"],
            ),
        ],
    )


def notes_spec(name: str) -> dict[str, Any]:
    note = _obj({"note_id": _S, "topic": _S, "text": _S})
    return _spec(
        name,
        f"Notes {name}",
        [
            {
                "name": "notes",
                "primary_key": ["note_id"],
                "entity": "note",
                "columns": [
                    {"name": "note_id", "type": "TEXT", "entity": "note"},
                    {"name": "topic", "type": "TEXT"},
                    {"name": "text", "type": "TEXT"},
                ],
            }
        ],
        [
            _tool(
                "get_note",
                "Read one note by id.",
                "read",
                ["notes"],
                [],
                _obj({"note_id": _S}),
                note,
                {"note_id": {"entity": "note", "user_provided": True}},
                {"note_id": "note"},
                ["text"],
            ),
            _tool(
                "add_note",
                "Add a note on a topic.",
                "write",
                ["notes"],
                ["notes"],
                _obj({"topic": _S, "text": _S}),
                note,
                {"topic": {"user_provided": True}, "text": {"user_provided": True}},
                {"note_id": "note"},
            ),
            _tool(
                "delete_note",
                "Delete a note by id.",
                "write",
                ["notes"],
                ["notes"],
                _obj({"note_id": _S}),
                note,
                {"note_id": {"entity": "note", "user_provided": True}},
                {"note_id": "note"},
            ),
        ],
    )


SOURCES = {
    "crm": """
def find_customer_by_email(ctx, email):
    row = ctx.one("SELECT customer_id, name FROM customers WHERE lower(email) = lower(?)", (email,))
    if row is None:
        ctx.fail(f"No customer with email {email}.")
    return row

def get_customer(ctx, customer_id):
    row = ctx.one("SELECT customer_id, name, email, tier FROM customers WHERE customer_id = ?", (customer_id,))
    if row is None:
        ctx.fail(f"No customer {customer_id}.")
    return row

def set_customer_tier(ctx, customer_id, tier):
    row = get_customer(ctx, customer_id)
    if row["tier"] == tier:
        ctx.fail(f"Customer {customer_id} is already {tier}.")
    ctx.execute("UPDATE customers SET tier = ? WHERE customer_id = ?", (tier, customer_id))
    return get_customer(ctx, customer_id)
""",
    "billing": """
def list_invoices(ctx, customer_id):
    rows = ctx.all("SELECT invoice_id, amount, status FROM invoices WHERE customer_id = ? ORDER BY invoice_id", (customer_id,))
    if not rows:
        ctx.fail(f"No invoices for customer {customer_id}.")
    return {"invoices": rows}

def get_invoice(ctx, invoice_id):
    row = ctx.one("SELECT invoice_id, customer_id, amount, status, due_date FROM invoices WHERE invoice_id = ?", (invoice_id,))
    if row is None:
        ctx.fail(f"No invoice {invoice_id}.")
    return row

def pay_invoice(ctx, invoice_id):
    row = get_invoice(ctx, invoice_id)
    if row["status"] != "open":
        ctx.fail(f"Invoice {invoice_id} is already {row['status']}.")
    ctx.execute("UPDATE invoices SET status = 'paid' WHERE invoice_id = ?", (invoice_id,))
    return get_invoice(ctx, invoice_id)
""",
    "shipping": """
def get_shipment_for_invoice(ctx, invoice_id):
    row = ctx.one("SELECT shipment_id, invoice_id, carrier, status, eta FROM shipments WHERE invoice_id = ?", (invoice_id,))
    if row is None:
        ctx.fail(f"No shipment for invoice {invoice_id}.")
    return row

def hold_shipment(ctx, shipment_id):
    row = ctx.one("SELECT shipment_id, invoice_id, carrier, status, eta FROM shipments WHERE shipment_id = ?", (shipment_id,))
    if row is None:
        ctx.fail(f"No shipment {shipment_id}.")
    if row["status"] == "held":
        ctx.fail(f"Shipment {shipment_id} is already held.")
    ctx.execute("UPDATE shipments SET status = 'held' WHERE shipment_id = ?", (shipment_id,))
    row["status"] = "held"
    return row
""",
    "notes": """
def get_note(ctx, note_id):
    row = ctx.one("SELECT note_id, topic, text FROM notes WHERE note_id = ?", (note_id,))
    if row is None:
        ctx.fail(f"No note {note_id}.")
    return row

def add_note(ctx, topic, text):
    note_id = ctx.next_id("notes", "note_id", "N", 4)
    ctx.execute("INSERT INTO notes VALUES (?, ?, ?)", (note_id, topic, text))
    return {"note_id": note_id, "topic": topic, "text": text}

def delete_note(ctx, note_id):
    row = get_note(ctx, note_id)
    ctx.execute("DELETE FROM notes WHERE note_id = ?", (note_id,))
    return row
""",
}

_FIRST = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov", "Ken Thompson"]
_CARRIERS = ["UPS", "FedEx", "DHL"]


def linked_rows(seed: int = 0, customers: int = 6) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Seed rows of crm, billing and shipping, sharing customer and invoice ids."""
    rng = random.Random(seed)
    crm: list[dict[str, Any]] = []
    invoices: list[dict[str, Any]] = []
    shipments: list[dict[str, Any]] = []
    for i in range(customers):
        name = _FIRST[i % len(_FIRST)]
        cid = f"C{100 + i}"
        crm.append(
            {
                "customer_id": cid,
                "name": name,
                "email": name.split()[0].lower() + f"{i}@example.com",
                "tier": rng.choice(["basic", "gold"]),
            }
        )
        for j in range(2):
            iid = f"INV-{2000 + 2 * i + j}"
            invoices.append(
                {
                    "invoice_id": iid,
                    "customer_id": cid,
                    "amount": round(rng.uniform(20, 2500), 2),
                    "status": "open" if j == 0 else "paid",
                    "due_date": f"2026-02-{rng.randint(1, 28):02d}",
                }
            )
            shipments.append(
                {
                    "shipment_id": f"SH{5000 + 2 * i + j}",
                    "invoice_id": iid,
                    "carrier": rng.choice(_CARRIERS),
                    "status": rng.choice(["pending", "in_transit"]),
                    "eta": f"2026-01-{rng.randint(16, 31):02d}",
                }
            )
    return {
        "crm": {"customers": crm},
        "billing": {"invoices": invoices},
        "shipping": {"shipments": shipments},
    }


def notes_rows(name: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "notes": [
            {"note_id": f"N{i:04d}", "topic": f"{name} topic {i}", "text": f"{name} note text {i}"}
            for i in range(1, 6)
        ]
    }


def build(name: str, spec: dict[str, Any], source: str, rows: dict[str, list[dict[str, Any]]]) -> Environment:
    return assemble_env(parse_spec(spec), source, rows, load_code=True)


def linked_envs(servers: int = 3, seed: int = 0) -> list[Environment]:
    """``servers`` environments: crm, billing, shipping (linked), then ``notes_<k>``
    distractors (at least 1 server; fewer than 3 keeps the first ones)."""
    rows = linked_rows(seed)
    specs = {"crm": crm_spec(), "billing": billing_spec(), "shipping": shipping_spec()}
    envs = [build(n, specs[n], SOURCES[n], rows[n]) for n in LINKED[: max(1, servers)]]
    for k in range(1, servers - len(LINKED) + 1):
        name = f"notes_{k}"
        envs.append(build(name, notes_spec(name), SOURCES["notes"], notes_rows(name)))
    return envs
