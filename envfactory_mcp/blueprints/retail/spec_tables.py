"""Tables of the retail environment. Money is INTEGER cents; statuses and kinds are enums."""

from __future__ import annotations

from envfactory_mcp.blueprints.kit import col
from envfactory_mcp.spec import ColumnSpec, TableSpec

ORDER_STATUSES = ["pending", "processed", "delivered", "cancelled", "return_requested", "exchange_requested"]
LINE_STATES = ["ordered", "return_requested", "exchange_requested"]
PAYMENT_METHOD_KINDS = ["credit_card", "gift_card", "paypal"]
CARD_BRANDS = ["visa", "mastercard", "amex", "discover"]
PAYMENT_KINDS = ["payment", "refund"]
PAYMENT_REASONS = ["order", "cancellation", "payment_change", "items_modification", "return", "exchange"]
CANCEL_REASONS = ["no longer needed", "ordered by mistake"]


def _address_columns(whose: str) -> list[ColumnSpec]:
    return [
        col("address1", description=f"Street line of the {whose}.", check="length(address1) > 0"),
        col("address2", description=f"Second address line of the {whose} (apartment, suite); may be empty."),
        col("city", description="City.", check="length(city) > 0"),
        col("state", description="State or region, e.g. 'TX'.", check="length(state) > 0"),
        col("country", description="Country, e.g. 'USA'.", check="length(country) > 0"),
        col("zip", description="Five-digit zip code.", check="zip GLOB '[0-9][0-9][0-9][0-9][0-9]'"),
    ]


def build_tables() -> list[TableSpec]:
    users = TableSpec(
        name="users",
        entity="user",
        description="Store customers, with their default shipping address.",
        primary_key=["user_id"],
        columns=[
            col("user_id", description="Internal user id, e.g. 'user_000042'.", entity="user"),
            col("first_name", description="First name.", check="length(first_name) > 0"),
            col("last_name", description="Last name.", check="length(last_name) > 0"),
            col(
                "email",
                description="Lower-case email address; unique.",
                unique=True,
                check="email LIKE '%_@_%'",
            ),
            *_address_columns("user's default address"),
        ],
    )
    payment_methods = TableSpec(
        name="payment_methods",
        entity="payment_method",
        description="Payment methods saved on a user account. Gift cards carry a balance in cents; "
        "credit cards a brand and last four digits.",
        primary_key=["payment_method_id"],
        columns=[
            col("payment_method_id", description="Id such as 'credit_card_000123'.", entity="payment_method"),
            col(
                "user_id",
                description="Owner of the payment method.",
                references="users.user_id",
                entity="user",
            ),
            col(
                "kind",
                description="Kind of payment method.",
                enum=list(PAYMENT_METHOD_KINDS),
                check="(kind = 'gift_card') = (balance_cents IS NOT NULL) "
                "AND (kind = 'credit_card') = (brand IS NOT NULL AND last_four IS NOT NULL)",
            ),
            col(
                "brand", description="Card brand (credit cards only).", nullable=True, enum=list(CARD_BRANDS)
            ),
            col(
                "last_four",
                description="Last four digits of the card (credit cards only).",
                nullable=True,
                check="last_four GLOB '[0-9][0-9][0-9][0-9]'",
            ),
            col(
                "balance_cents",
                "INTEGER",
                description="Remaining gift card balance in cents (gift cards only).",
                nullable=True,
                check="balance_cents >= 0",
            ),
        ],
    )
    products = TableSpec(
        name="products",
        entity="product",
        description="Product types sold by the store; each is sold as several variant items.",
        primary_key=["product_id"],
        columns=[
            col("product_id", description="Id such as 'prod_0007'.", entity="product"),
            col("name", description="Product type name, e.g. 'Hiking Boots'.", unique=True),
        ],
    )
    items = TableSpec(
        name="items",
        entity="item",
        description="Variant items of a product: one combination of options with its own price and availability.",
        primary_key=["item_id"],
        columns=[
            col("item_id", description="Id such as 'item_00042'.", entity="item"),
            col(
                "product_id",
                description="Product this item is a variant of.",
                references="products.product_id",
                entity="product",
            ),
            col(
                "options",
                description='Options as a JSON object of strings, e.g. {"color": "red", "size": "M"}.',
                check="json_valid(options) AND json_type(options) = 'object'",
            ),
            col("price_cents", "INTEGER", description="Current price in cents.", check="price_cents > 0"),
            col(
                "available",
                "INTEGER",
                description="1 when the item can be ordered now, 0 when it cannot.",
                enum=[0, 1],
            ),
        ],
    )
    orders = TableSpec(
        name="orders",
        entity="order",
        description="Customer orders with their shipping address. Totals are derived from order_items and payments.",
        primary_key=["order_id"],
        columns=[
            col(
                "order_id",
                description="Order number as printed on the receipt, e.g. '#W0012345'.",
                entity="order",
                check="order_id GLOB '#W[0-9][0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            col(
                "user_id",
                description="Customer who placed the order.",
                references="users.user_id",
                entity="user",
            ),
            col("status", description="Order status.", enum=list(ORDER_STATUSES)),
            *_address_columns("order's shipping address"),
            col("created_at", description="When the order was placed (ISO 8601, UTC)."),
            col(
                "items_modified",
                "INTEGER",
                description="1 once the items of this pending order have been modified (allowed only once).",
                enum=[0, 1],
            ),
            col(
                "cancel_reason",
                description="Why the order was cancelled; set exactly when status is 'cancelled'.",
                nullable=True,
                enum=list(CANCEL_REASONS),
                check="(status = 'cancelled') = (cancel_reason IS NOT NULL)",
            ),
        ],
    )
    order_items = TableSpec(
        name="order_items",
        description="Lines of an order: one item each (an order never holds the same item twice), the price "
        "paid, and whether a return or exchange was requested for it.",
        primary_key=["order_id", "line_no"],
        columns=[
            col("order_id", description="Order of this line.", references="orders.order_id", entity="order"),
            col(
                "line_no",
                "INTEGER",
                description="Line number within the order, from 1.",
                check="line_no >= 1",
            ),
            col(
                "item_id", description="Item ordered on this line.", references="items.item_id", entity="item"
            ),
            col(
                "price_cents",
                "INTEGER",
                description="Price paid for the item, in cents.",
                check="price_cents > 0",
            ),
            col("state", description="State of this line.", enum=list(LINE_STATES)),
            col(
                "exchange_item_id",
                description="Item requested in exchange (exchange_requested lines only).",
                nullable=True,
                references="items.item_id",
                entity="item",
                check="(state = 'exchange_requested') = (exchange_item_id IS NOT NULL)",
            ),
            col(
                "exchange_price_cents",
                "INTEGER",
                description="Price of the exchange item, in cents.",
                nullable=True,
                check="(exchange_price_cents IS NULL) = (exchange_item_id IS NULL) "
                "AND coalesce(exchange_price_cents, 1) > 0",
            ),
        ],
    )
    payments = TableSpec(
        name="payments",
        entity="payment",
        description="Payment and refund history of orders. The net paid by a method for an order is its "
        "payments minus its refunds; a gift card's balance moves with every row recorded on it.",
        primary_key=["payment_id"],
        columns=[
            col("payment_id", description="Id such as 'pay_0000123'.", entity="payment"),
            col(
                "order_id",
                description="Order the money moved for.",
                references="orders.order_id",
                entity="order",
            ),
            col(
                "payment_method_id",
                description="Payment method charged or refunded.",
                references="payment_methods.payment_method_id",
                entity="payment_method",
            ),
            col(
                "kind",
                description="'payment' (money taken) or 'refund' (money returned).",
                enum=list(PAYMENT_KINDS),
            ),
            col("amount_cents", "INTEGER", description="Amount in cents.", check="amount_cents > 0"),
            col("reason", description="What caused the movement.", enum=list(PAYMENT_REASONS)),
            col("created_at", description="When it was recorded (ISO 8601, UTC)."),
        ],
    )
    return [users, payment_methods, products, items, orders, order_items, payments]
