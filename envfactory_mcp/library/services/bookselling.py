"""Bookselling: an independent bookshop and its payments service, linked.

The two are separate servers, as in a real shop: the storefront knows customers, the
catalogue and orders; the payments service knows the same customers (the very same rows)
and the card payments and refunds of the shop's orders (``order_id`` is the storefront's
key). A task can start at the storefront (which order?) and finish at payments (refund
it), or the other way round.
"""

from __future__ import annotations

from envfactory_mcp.library.archetypes import Noun, Part, approvals, catalog, orders, owned, people, profile
from envfactory_mcp.library.kit import (
    choice,
    flag,
    get,
    integer,
    link,
    listing,
    money,
    ref,
    stamp,
    table,
    text,
    transition,
)
from envfactory_mcp.library.service import Foreign, Service, Shared

_customers = people(
    Noun("customer"),
    "People with an account at the shop.",
    choice("reader_club", ("none_yet", "member", "patron"), "Reader club level."),
)
_books = catalog(
    Noun("book"),
    "Books in stock.",
    text(
        "title",
        "Title.",
        "The Salt Road",
        "Night Ferry",
        "A Field Guide to Clouds",
        "Orchard Year",
        "The Glass Cartographer",
        "Small Engines",
        "Winter Pantry",
        "Letters from Lisbon",
    ),
    text(
        "author", "Author.", "M. Adeyemi", "J. Kowalski", "R. Tanaka", "S. Moreau", "L. Brennan", "A. Varga"
    ),
    choice("format", ("hardback", "paperback", "audiobook_cd"), "Format."),
    money("price", 8, 45, "Price in US dollars."),
    integer("in_stock", 0, 20, "Copies on the shelf."),
    filters=("format",),
    rows=(10, 14),
)
STOREFRONT = Service.composed(
    "page_turner_books",
    "Page Turner Books storefront",
    "bookselling",
    "The agent helps customers of an independent bookshop with their account, the catalogue and their orders: "
    "placing them, changing the delivery speed before they ship, cancelling, and returning delivered books.",
    _customers,
    profile(_customers, "reader_club"),
    _books,
    orders(
        _customers,
        Noun("order"),
        _books.resources[0],
        integer("copies", 1, 5, "Copies ordered."),
        choice("delivery", ("standard", "express", "click_and_collect"), "How it reaches the customer."),
        flag("gift_wrap", "Gift wrapped.", default=False),
        place="place_order",
        place_fields=("copies", "delivery"),
        change=("change_order_delivery", ("delivery",)),
        cancel="cancel_order",
        ret="return_order",
        states=("received", "packing", "dispatched", "delivered", "cancelled", "returned"),
    ),
    out_of_scope=(
        "a signed copy ordered from the author's publisher",
        "a price match with the big online store",
        "my book club's meeting room booked for Thursday",
        "a complaint about the courier who left my parcel in the rain",
        "a second-hand copy of my own book valued",
        "my reader club points moved to my daughter's account",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

_cards = owned(
    _customers,
    Noun("saved_card"),
    "Cards a customer saved for paying at the shop.",
    choice("brand", ("visa", "mastercard", "amex"), "Card brand."),
    text("last_four", "Last four digits.", "4242", "1881", "0005", "7310", "5566", "9024"),
    choice("card_status", ("active", "expired", "blocked"), "Whether it can be charged.", default="active"),
    text("nickname", "What the customer calls it.", "everyday", "travel card", "joint account", "work"),
    add="add_saved_card",
    add_fields=("brand", "last_four", "nickname"),
    edit="rename_saved_card",
    edit_fields=("nickname",),
)
_block_card = transition(
    _cards.resources[0],
    "block_saved_card",
    "Block a saved card so the shop never charges it again.",
    "blocked",
    ("active", "expired"),
    "the card is already blocked",
    column="card_status",
)
_payments = table(
    "payments",
    "payment",
    "Card payments of shop orders.",
    ref("customers", "customer_id", "Who paid."),
    link("order_id", "order", "The storefront order paid for."),
    ref("saved_cards", "saved_card_id", "The card charged."),
    money("amount", 8, 225, "Amount charged in US dollars."),
    choice("status", ("authorized", "captured", "refunded", "voided"), "Where it stands."),
    stamp("charged_at", "When it was charged."),
    under="customer_id",
    rows=(1, 2),
)
PAYMENTS = Service.composed(
    "page_turner_payments",
    "Page Turner Books payments desk",
    "bookselling",
    "The agent helps the bookshop's customers with card payments of their orders: which card paid, voiding an "
    "authorization, and refund requests for captured payments, which the shop reviews.",
    _customers,
    profile(_customers),
    _cards,
    Part("card_rules", (), (_block_card,)),
    Part(
        "payments",
        (_payments,),
        (
            listing(_payments, "customer_id", "order_id", "status"),
            get(_payments),
            transition(
                _payments,
                "void_payment",
                "Void a card authorization that was not captured yet.",
                "voided",
                ("authorized",),
                "only authorized payments can be voided; a captured one is refunded through a refund request",
            ),
        ),
    ),
    approvals(
        _customers,
        Noun("refund_request"),
        link("order_id", "order", "The storefront order to refund."),
        choice("refund_reason", ("damaged_copy", "never_arrived", "wrong_book", "changed_mind"), "Why."),
        money("refund_amount", 5, 225, "Amount asked back in US dollars."),
        submit="request_refund",
        submit_fields=("order_id", "refund_reason", "refund_amount"),
        withdraw="withdraw_refund_request",
        amend=("change_refund_amount", ("refund_amount",)),
        states=("submitted", "in_review", "approved", "declined", "withdrawn"),
        rows=(0, 1),
    ),
    out_of_scope=(
        "a new card added over the phone",
        "a chargeback raised with my bank for me",
        "the payment split across two cards",
        "an invoice with my company's VAT number",
        "a refund paid in cash at the counter",
        "my card's spending limit raised",
    ),
    identify_by=(("email",),),
    shared=(Shared("customers", "page_turner_books"),),
    foreign=(
        Foreign("payments", "order_id", "page_turner_books", "orders"),
        Foreign("refund_requests", "order_id", "page_turner_books", "orders"),
    ),
)

SERVICES = [STOREFRONT, PAYMENTS]
