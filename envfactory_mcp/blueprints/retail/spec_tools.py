"""Tool declarations of the retail environment: schemas, effects, tables and entities."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit
from envfactory_mcp.blueprints.kit import Inputs, Schema
from envfactory_mcp.spec import ParamSpec, ToolSpec

from .spec_tables import (
    CANCEL_REASONS,
    LINE_STATES,
    ORDER_STATUSES,
    PAYMENT_KINDS,
    PAYMENT_METHOD_KINDS,
    PAYMENT_REASONS,
)

# ---------------------------------------------------------------- schema helpers


MONEY: Schema = {"type": "number", "description": "Dollars, two decimals."}
TEXT: Schema = {"type": "string"}

USER_ID = kit.string(
    11, "Internal user id from a find_user_id_* tool, e.g. 'user_000042'.", pattern=r"^user_[0-9]{6}$"
)
ORDER_ID = kit.string(9, "Order id with the leading '#', e.g. '#W0012345'.", pattern=r"^#W[0-9]{7}$")
PRODUCT_ID = kit.string(9, "Product id, e.g. 'prod_0007'.", pattern=r"^prod_[0-9]{4}$")
ITEM_ID = kit.string(10, "Item id, e.g. 'item_00042'.", pattern=r"^item_[0-9]{5}$")
PAYMENT_METHOD_ID = kit.string(
    18,
    "Payment method id from get_user_details, e.g. 'credit_card_000123'.",
    pattern=r"^(credit_card|gift_card|paypal)_[0-9]{6}$",
)


ADDRESS_INPUTS: Inputs = {
    "address1": (kit.string(100, "Street address, e.g. '123 Main St'."), kit.param(None, True)),
    "address2": (
        kit.string(100, "Apartment, suite, etc.; empty string if none.", min_length=0),
        kit.param(None, True),
    ),
    "city": (kit.string(60, "City."), kit.param(None, True)),
    "state": (kit.string(40, "State, e.g. 'TX'."), kit.param(None, True)),
    "country": (kit.string(60, "Country, e.g. 'USA'."), kit.param(None, True)),
    "zip": (kit.string(5, "Five-digit zip code.", pattern=r"^[0-9]{5}$"), kit.param(None, True)),
}
ADDRESS_OUT = kit.obj({name: dict(TEXT) for name in ADDRESS_INPUTS})

OPTIONS_OUT: Schema = {"type": "object", "additionalProperties": {"type": "string"}}

ORDER_OUT = kit.obj(
    {
        "order_id": TEXT,
        "user_id": TEXT,
        "status": {"type": "string", "enum": ORDER_STATUSES},
        "created_at": TEXT,
        "address": ADDRESS_OUT,
        "items_modified": {"type": "boolean"},
        "cancel_reason": {"type": ["string", "null"], "enum": [*CANCEL_REASONS, None]},
        "items": kit.array(
            kit.obj(
                {
                    "item_id": TEXT,
                    "product_id": TEXT,
                    "name": TEXT,
                    "options": OPTIONS_OUT,
                    "price": MONEY,
                    "state": {"type": "string", "enum": LINE_STATES},
                    "exchange_item_id": kit.nullable("string"),
                    "exchange_price": kit.nullable("number"),
                }
            )
        ),
        "payments": kit.array(
            kit.obj(
                {
                    "payment_id": TEXT,
                    "kind": {"type": "string", "enum": PAYMENT_KINDS},
                    "payment_method_id": TEXT,
                    "amount": MONEY,
                    "reason": {"type": "string", "enum": PAYMENT_REASONS},
                    "created_at": TEXT,
                }
            )
        ),
        "totals": kit.obj({"items_total": MONEY, "paid": MONEY, "refunded": MONEY, "net_paid": MONEY}),
    }
)
ORDER_OUTPUTS = {
    "order_id": "order",
    "user_id": "user",
    "items[].item_id": "item",
    "items[].product_id": "product",
    "items[].exchange_item_id": "item",
    "payments[].payment_id": "payment",
    "payments[].payment_method_id": "payment_method",
}
ORDER_VIEW_READS = ["items", "order_items", "orders", "payments", "products"]
MONEY_READS = sorted([*ORDER_VIEW_READS, "payment_methods"])


# ---------------------------------------------------------------- the tools


def build_tools() -> list[ToolSpec]:
    new_item_ids = (
        kit.array(
            ITEM_ID, "Replacement items, same order as item_ids.", minItems=1, maxItems=5, uniqueItems=True
        ),
        kit.param("item", False),
    )
    email = (
        kit.string(254, "Email address of the user.", pattern=r"^[^@\s]+@[^@\s]+$"),
        kit.param(None, True),
    )
    user_id = (USER_ID, kit.param("user", False))
    order_id = (ORDER_ID, kit.param("order", True))
    payment_method_id = (PAYMENT_METHOD_ID, kit.param("payment_method", False))
    return [
        kit.tool(
            "find_user_id_by_email",
            "look up my account by email",
            "Find a user's id from their email address (case-insensitive). Use this to authenticate the user "
            "before anything else. Fails if no user has that email.",
            {"email": email},
            kit.obj({"user_id": TEXT}),
            reads=["users"],
            outputs={"user_id": "user"},
        ),
        kit.tool(
            "find_user_id_by_name_zip",
            "look up my account by name and zip code",
            "Find a user's id from first name, last name and zip code of their default address. Use this to "
            "authenticate a user who cannot give their email. Fails if no user, or more than one, matches.",
            {
                "first_name": (kit.string(60, "First name."), kit.param(None, True)),
                "last_name": (kit.string(60, "Last name."), kit.param(None, True)),
                "zip": ADDRESS_INPUTS["zip"],
            },
            kit.obj({"user_id": TEXT}),
            reads=["users"],
            outputs={"user_id": "user"},
        ),
        kit.tool(
            "get_user_details",
            "see my account",
            "Get a user's profile: name, email, default address, saved payment methods (gift cards with their "
            "current balance in dollars) and the ids of all their orders.",
            {"user_id": user_id},
            kit.obj(
                {
                    "user_id": TEXT,
                    "first_name": TEXT,
                    "last_name": TEXT,
                    "email": TEXT,
                    "address": ADDRESS_OUT,
                    "payment_methods": kit.array(
                        kit.obj(
                            {
                                "payment_method_id": TEXT,
                                "kind": {"type": "string", "enum": PAYMENT_METHOD_KINDS},
                                "brand": TEXT,
                                "last_four": TEXT,
                                "balance": MONEY,
                            },
                            required=["payment_method_id", "kind"],
                        )
                    ),
                    "orders": kit.array(TEXT),
                }
            ),
            reads=["orders", "payment_methods", "users"],
            outputs={
                "user_id": "user",
                "payment_methods[].payment_method_id": "payment_method",
                "orders[]": "order",
            },
        ),
        kit.tool(
            "get_order_details",
            "check on my order",
            "Get an order: status, shipping address, items (item id, product, options, price paid, and per-line "
            "state: ordered, return_requested or exchange_requested with the requested new item), the full payment "
            "and refund history, and totals in dollars.",
            {"order_id": order_id},
            ORDER_OUT,
            reads=ORDER_VIEW_READS,
            outputs=ORDER_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "get_product_details",
            "see the options of a product",
            "Get a product type and all its variant items: item id, options, current price in dollars and "
            "whether it is available to order.",
            {"product_id": (PRODUCT_ID, kit.param("product", False))},
            kit.obj(
                {
                    "product_id": TEXT,
                    "name": TEXT,
                    "variants": kit.array(
                        kit.obj(
                            {
                                "item_id": TEXT,
                                "options": OPTIONS_OUT,
                                "price": MONEY,
                                "available": {"type": "boolean"},
                            }
                        )
                    ),
                }
            ),
            reads=["items", "products"],
            outputs={"product_id": "product", "variants[].item_id": "item"},
            claims=["variants[].price"],
        ),
        kit.tool(
            "list_all_product_types",
            "see what the store sells",
            "List every product type the store sells, with its name and product id.",
            {},
            kit.obj({"products": kit.array(kit.obj({"name": TEXT, "product_id": TEXT}))}),
            reads=["products"],
            outputs={"products[].product_id": "product"},
        ),
        kit.tool(
            "modify_user_address",
            "change my default address",
            "Replace the default address of a user's account. Existing orders keep their own shipping address. "
            "Confirm the full new address with the user before calling.",
            {"user_id": user_id, **ADDRESS_INPUTS},
            kit.obj({"user_id": TEXT, "address": ADDRESS_OUT}),
            effect="write",
            reads=["users"],
            writes=["users"],
            outputs={"user_id": "user"},
            idempotent=True,
        ),
        kit.tool(
            "modify_pending_order_address",
            "change the shipping address of my order",
            "Change the shipping address of an order. Only pending orders can be changed. Confirm the full new "
            "address with the user before calling. Returns the updated order.",
            {"order_id": order_id, **ADDRESS_INPUTS},
            ORDER_OUT,
            effect="write",
            reads=ORDER_VIEW_READS,
            writes=["orders"],
            outputs=ORDER_OUTPUTS,
            idempotent=True,
        ),
        kit.tool(
            "modify_pending_order_payment",
            "pay for my order with a different method",
            "Move the payment of a pending order to another payment method of the same user. Every amount the "
            "order's current method(s) paid is refunded to them, and the same total is charged to the new method; "
            "the new method must differ from the current one, and a gift card must have enough balance to cover "
            "the whole amount. Gift card balances change immediately. Returns the updated order.",
            {"order_id": order_id, "payment_method_id": payment_method_id},
            ORDER_OUT,
            effect="write",
            reads=MONEY_READS,
            writes=["payment_methods", "payments"],
            outputs=ORDER_OUTPUTS,
        ),
        kit.tool(
            "modify_pending_order_items",
            "change the items of my order",
            "Swap items of a pending order for other variants: new_item_ids[i] replaces item_ids[i], must be the "
            "same product, a different variant, and available. Items can be modified only once per order, so "
            "collect every change first. The price difference is charged to payment_method_id (a gift card must "
            "cover it) or, if the new items are cheaper, refunded to it (it must be a method that paid at least "
            "that much for this order). Returns the updated order.",
            {
                "order_id": order_id,
                "item_ids": (
                    kit.array(
                        ITEM_ID, "Items of the order to replace.", minItems=1, maxItems=5, uniqueItems=True
                    ),
                    kit.param("item", False),
                ),
                "new_item_ids": new_item_ids,
                "payment_method_id": payment_method_id,
            },
            ORDER_OUT,
            effect="write",
            reads=MONEY_READS,
            writes=["order_items", "orders", "payment_methods", "payments"],
            outputs=ORDER_OUTPUTS,
            claims=["totals.items_total"],
        ),
        kit.tool(
            "cancel_pending_order",
            "cancel an order",
            "Cancel a pending order. The reason must be 'no longer needed' or 'ordered by mistake'. Every amount "
            "paid is refunded to the payment method that paid it; gift card balances are restored immediately, "
            "other refunds take 5-7 business days. Returns the cancelled order.",
            {
                "order_id": order_id,
                "reason": (
                    {"type": "string", "enum": list(CANCEL_REASONS), "description": "Why the user cancels."},
                    kit.param(None, True),
                ),
            },
            ORDER_OUT,
            effect="write",
            reads=MONEY_READS,
            writes=["orders", "payment_methods", "payments"],
            outputs=ORDER_OUTPUTS,
            claims=["status", "totals.refunded"],
        ),
        kit.tool(
            "return_delivered_order_items",
            "return items I received",
            "Request a return of items of a delivered order. The refund (the price paid for those items) goes to "
            "payment_method_id, which must be the order's original payment method or a gift card of the same user; "
            "it is recorded now, and a gift card is credited immediately. The order becomes return_requested and "
            "no further return or exchange is possible on it. Returns the updated order.",
            {
                "order_id": order_id,
                "item_ids": (
                    kit.array(
                        ITEM_ID, "Items of the order to return.", minItems=1, maxItems=5, uniqueItems=True
                    ),
                    kit.param("item", False),
                ),
                "payment_method_id": payment_method_id,
            },
            ORDER_OUT,
            effect="write",
            reads=MONEY_READS,
            writes=["order_items", "orders", "payment_methods", "payments"],
            outputs=ORDER_OUTPUTS,
            claims=["status", "totals.refunded"],
        ),
        kit.tool(
            "exchange_delivered_order_items",
            "exchange items I received",
            "Request an exchange of items of a delivered order: new_item_ids[i] replaces item_ids[i], must be the "
            "same product, a different variant, and available. A positive price difference is charged to "
            "payment_method_id (a gift card must cover it); a negative one is refunded to it (it must be the "
            "order's original payment method or a gift card of the user). The order becomes exchange_requested "
            "and no further return or exchange is possible, so collect every item first. Returns the updated order.",
            {
                "order_id": order_id,
                "item_ids": (
                    kit.array(
                        ITEM_ID, "Items of the order to exchange.", minItems=1, maxItems=5, uniqueItems=True
                    ),
                    kit.param("item", False),
                ),
                "new_item_ids": new_item_ids,
                "payment_method_id": payment_method_id,
            },
            ORDER_OUT,
            effect="write",
            reads=MONEY_READS,
            writes=["order_items", "orders", "payment_methods", "payments"],
            outputs=ORDER_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "calculate",
            "work out an amount",
            "Evaluate an arithmetic expression with numbers, + - * /, and parentheses, e.g. '(129.99 - 89.5) * 2'. "
            "The result is rounded to 2 decimals. Anything else is rejected.",
            {
                "expression": (
                    {
                        **kit.string(200, "Arithmetic expression."),
                        "examples": ["(129.99 - 89.5) * 2", "54.04 + 12.5"],
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
            "Transfer the user to a human agent, with a summary of the issue. Use only when the user explicitly "
            "asks for a human or the request cannot be handled with the other tools under the policy.",
            {
                "summary": (
                    kit.string(2000, "Summary of the user's issue for the human agent."),
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"transferred": {"type": "boolean"}, "message": TEXT, "summary": TEXT}),
        ),
    ]
