"""Reusable state machines a service is composed from, in the service's own words.

Each archetype returns a :class:`Part`: the tables and operations of one recurring piece
of a real service (bookings of a provider's time, orders from a catalog, tickets, a
subscription to a plan, documents shared with others, requests that get approved,
invoices, holds on stock), named with the service's nouns and carrying its extra columns.
The guards are the rules: which states a cancellation, a change or a payment is allowed
from, and what the agent says when it is not.

A service composes a customer table (:func:`people`) with two or three parts and may add
operations of its own; :mod:`envfactory_mcp.library.distinct` checks that no two
services come out alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from .kit import (
    Field,
    Guard,
    Operation,
    Resource,
    choice,
    create,
    date,
    get,
    listing,
    money,
    ref,
    said,
    stamp,
    table,
    text,
    transition,
    update,
)


@dataclass(frozen=True)
class Noun:
    """How the service calls a thing: ``Noun("appointment")``, ``Noun("class", "classes")``."""

    one: str
    many: str = ""

    @property
    def plural(self) -> str:
        return self.many or (self.one + ("es" if self.one.endswith(("s", "x", "ch", "sh")) else "s"))

    @property
    def words(self) -> str:
        return self.one.replace("_", " ")


@dataclass(frozen=True)
class Part:
    name: str  # the archetype
    resources: tuple[Resource, ...]
    operations: tuple[Operation, ...]


def people(noun: Noun, description: str, *extra: Field, rows: tuple[int, int] = (30, 40)) -> Resource:
    """The customers: first and last name, a unique email, a phone, and ``extra`` columns."""
    return table(
        noun.plural,
        noun.one,
        description,
        text("first_name", "First name."),
        text("last_name", "Last name."),
        text("email", "Email address.", unique=True),
        text("phone", "Phone number."),
        *extra,
        rows=rows,
    )


def profile(customer: Resource, *editable: str) -> Part:
    """The customer's own record: show it, and change the ``editable`` columns."""
    ops: list[Operation] = [
        get(
            customer,
            f"get_{customer.entity}_details",
            f"Show a {customer.entity.replace('_', ' ')}'s profile.",
        )
    ]
    if editable:
        said = " and ".join(e.replace("_", " ") for e in editable)
        ops.append(
            update(
                customer,
                f"update_{customer.entity}_{'_and_'.join(editable)}",
                f"Change a {customer.entity.replace('_', ' ')}'s {said}.",
                editable,
            )
        )
    return Part("profile", (), tuple(ops))


def catalog(
    noun: Noun,
    description: str,
    *fields: Field,
    filters: tuple[str, ...] = (),
    rows: tuple[int, int] = (6, 12),
) -> Part:
    """Things offered (services, plans, rooms, products): public, read-only."""
    offered = table(noun.plural, noun.one, description, *fields, rows=rows)
    return Part("catalog", (offered,), (listing(offered, *filters), get(offered)))


def owned(
    customer: Resource,
    noun: Noun,
    description: str,
    *fields: Field,
    add: str | None = None,
    add_fields: tuple[str, ...] = (),
    edit: str | None = None,
    edit_fields: tuple[str, ...] = (),
    rows: tuple[int, int] = (1, 2),
) -> Part:
    """Records a customer keeps with the service (pets, vehicles, dependants, addresses)."""
    link = f"{customer.entity}_id"
    kept = table(
        noun.plural,
        noun.one,
        description,
        ref(customer.name, link, "Whose it is."),
        *fields,
        under=link,
        rows=rows,
    )
    ops: list[Operation] = [listing(kept, link), get(kept)]
    if add:
        ops.append(
            create(
                kept,
                add,
                f"Add a {noun.words} to a {customer.entity.replace('_', ' ')}'s account.",
                (link, *add_fields),
            )
        )
    if edit:
        ops.append(
            update(
                kept,
                edit,
                f"Change a {noun.words}'s {' and '.join(f.replace('_', ' ') for f in edit_fields)}.",
                edit_fields,
            )
        )
    return Part("owned", (kept,), tuple(ops))


def reservation(
    customer: Resource,
    booking: Noun,
    provider: Resource,
    *fields: Field,
    book: str,
    book_fields: tuple[str, ...],
    cancel: str | None = None,
    reschedule: tuple[str, tuple[str, ...]] | None = None,
    confirm: str | None = None,
    check_in: str | None = None,
    states: tuple[str, str, str, str, str] = (
        "requested",
        "confirmed",
        "checked_in",
        "completed",
        "cancelled",
    ),
    extra_states: tuple[str, ...] = ("no_show",),
    under: str | None = None,
    rows: tuple[int, int] = (1, 3),
) -> Part:
    """Bookings of a provider's time or place (appointments, classes, rooms, tables).

    ``states`` are (new, confirmed, in progress, done, cancelled); a booking can be
    rescheduled or cancelled only before it starts, confirmed only when new, checked in
    only when confirmed."""
    new, confirmed, started, done, cancelled = states
    link = f"{customer.entity}_id"
    holder = under or link
    rows_table = table(
        booking.plural,
        booking.one,
        f"{booking.words.capitalize()}s of {provider.name.replace('_', ' ')}.",
        ref(customer.name, link, "Who booked."),
        ref(provider.name, f"{provider.entity}_id", f"The {provider.entity.replace('_', ' ')}."),
        *fields,
        choice(
            "status",
            (new, confirmed, started, done, cancelled, *extra_states),
            "Where it stands.",
            default=new,
        ),
        stamp("booked_at", "When it was booked."),
        under=holder,
        rows=rows,
    )
    before = (new, confirmed)
    ops: list[Operation] = [
        listing(rows_table, link, "status"),
        get(rows_table),
        create(
            rows_table,
            book,
            f"Book a {booking.words} (it starts as {said(new)}).",
            (link, f"{provider.entity}_id", *book_fields),
        ),
    ]
    if reschedule:
        name, columns = reschedule
        ops.append(
            update(
                rows_table,
                name,
                f"Move a {booking.words} to another {' and '.join(c.replace('_', ' ') for c in columns)}.",
                columns,
                only_when=(
                    "status",
                    before,
                    f"only {said(new)} or {said(confirmed)} {booking.plural.replace('_', ' ')} can be changed",
                ),
            )
        )
    if confirm:
        ops.append(
            transition(
                rows_table,
                confirm,
                f"Confirm a {said(new)} {booking.words}.",
                confirmed,
                (new,),
                f"only {said(new)} {booking.plural.replace('_', ' ')} can be confirmed",
            )
        )
    if check_in:
        ops.append(
            transition(
                rows_table,
                check_in,
                f"Check a {booking.words} in on arrival.",
                started,
                (confirmed,),
                f"only {said(confirmed)} {booking.plural.replace('_', ' ')} can be checked in",
            )
        )
    if cancel:
        ops.append(
            transition(
                rows_table,
                cancel,
                f"Cancel a {booking.words}.",
                cancelled,
                before,
                f"a {booking.words} that has started, ended or was already cancelled cannot be cancelled",
            )
        )
    return Part("reservation", (rows_table,), tuple(ops))


def orders(
    customer: Resource,
    order: Noun,
    item: Resource,
    *fields: Field,
    place: str,
    place_fields: tuple[str, ...],
    cancel: str | None = None,
    change: tuple[str, tuple[str, ...]] | None = None,
    ret: str | None = None,
    states: tuple[str, str, str, str, str, str] = (
        "pending",
        "processing",
        "shipped",
        "delivered",
        "cancelled",
        "returned",
    ),
    rows: tuple[int, int] = (1, 3),
) -> Part:
    """Orders of catalog items: placed pending, changed or cancelled until they ship,
    returned once delivered."""
    pending, processing, _shipped, delivered, cancelled, returned = states
    link = f"{customer.entity}_id"
    rows_table = table(
        order.plural,
        order.one,
        f"{order.words.capitalize()}s placed by {customer.name.replace('_', ' ')}.",
        ref(customer.name, link, "Who ordered."),
        ref(item.name, f"{item.entity}_id", f"The {item.entity.replace('_', ' ')} ordered."),
        *fields,
        choice("status", states, "Where it stands.", default=pending),
        stamp("placed_at", "When it was placed."),
        under=link,
        rows=rows,
    )
    early = (pending, processing)
    ops: list[Operation] = [
        listing(rows_table, link, "status"),
        get(rows_table),
        create(
            rows_table,
            place,
            f"Place a {order.words} (it starts as {said(pending)}).",
            (link, f"{item.entity}_id", *place_fields),
        ),
    ]
    if change:
        name, columns = change
        ops.append(
            update(
                rows_table,
                name,
                f"Change a {order.words}'s {' and '.join(c.replace('_', ' ') for c in columns)}.",
                columns,
                only_when=("status", early, f"a {order.words} can only be changed before it ships"),
            )
        )
    if cancel:
        ops.append(
            transition(
                rows_table,
                cancel,
                f"Cancel a {order.words} that has not shipped.",
                cancelled,
                early,
                f"a {order.words} can only be cancelled before it ships",
            )
        )
    if ret:
        ops.append(
            transition(
                rows_table,
                ret,
                f"Return a delivered {order.words}.",
                returned,
                (delivered,),
                f"only delivered {order.plural.replace('_', ' ')} can be returned",
            )
        )
    return Part("order_lifecycle", (rows_table,), tuple(ops))


def tickets(
    customer: Resource,
    ticket: Noun,
    *fields: Field,
    open_: str,
    open_fields: tuple[str, ...],
    close: str | None = None,
    reopen: str | None = None,
    escalate: str | None = None,
    note: tuple[str, str] | None = None,
    states: tuple[str, str, str, str] = ("open", "in_progress", "resolved", "closed"),
    about: Resource | None = None,
    rows: tuple[int, int] = (0, 2),
) -> Part:
    """Requests for help or repair that move from open to closed (and may be reopened)."""
    opened, working, resolved, closed = states
    link = f"{customer.entity}_id"
    extra = (
        (ref(about.name, f"{about.entity}_id", f"The {about.entity.replace('_', ' ')} it is about."),)
        if about
        else ()
    )
    rows_table = table(
        ticket.plural,
        ticket.one,
        f"{ticket.words.capitalize()}s raised by {customer.name.replace('_', ' ')}.",
        ref(customer.name, link, "Who raised it."),
        *extra,
        *fields,
        choice("priority", ("low", "normal", "high", "urgent"), "How urgent.", default="normal"),
        choice("status", states, "Where it stands.", default=opened),
        stamp("opened_at", "When it was raised."),
        under=link,
        rows=rows,
    )
    ops: list[Operation] = [
        listing(rows_table, link, "status"),
        get(rows_table),
        create(
            rows_table,
            open_,
            f"Raise a new {ticket.words}.",
            (link, *((f"{about.entity}_id",) if about else ()), *open_fields),
            optional=("priority",),
        ),
    ]
    live = (opened, working)
    if note:
        name, column = note
        ops.append(
            update(
                rows_table,
                name,
                f"Replace a {ticket.words}'s {column.replace('_', ' ')}.",
                (column,),
                only_when=(
                    "status",
                    live,
                    f"only {said(opened)} or {said(working)} {ticket.plural.replace('_', ' ')} can be changed",
                ),
            )
        )
    if escalate:
        ops.append(
            Operation(
                "action",
                rows_table.name,
                escalate,
                f"Raise a {ticket.words}'s priority to urgent.",
                fields=(),
                required=(),
                sets=(("priority", "urgent"),),
                guard=Guard(
                    "status",
                    live,
                    f"only {said(opened)} or {said(working)} {ticket.plural.replace('_', ' ')} can be escalated",
                ),
                intent=f"escalate a {ticket.words}",
            )
        )
    if close:
        ops.append(
            transition(
                rows_table,
                close,
                f"Close a {ticket.words}.",
                closed,
                (opened, working, resolved),
                f"the {ticket.words} is already closed",
            )
        )
    if reopen:
        ops.append(
            transition(
                rows_table,
                reopen,
                f"Reopen a {said(resolved)} or {said(closed)} {ticket.words}.",
                opened,
                (resolved, closed),
                f"only {said(resolved)} or {said(closed)} {ticket.plural.replace('_', ' ')} can be reopened",
            )
        )
    return Part("ticket_workflow", (rows_table,), tuple(ops))


def subscriptions(
    customer: Resource,
    subscription: Noun,
    plan: Resource,
    *fields: Field,
    start: str,
    start_fields: tuple[str, ...] = (),
    change_plan: str | None = None,
    pause: str | None = None,
    resume: str | None = None,
    cancel: str | None = None,
    states: tuple[str, str, str, str] = ("active", "paused", "past_due", "cancelled"),
    rows: tuple[int, int] = (1, 2),
) -> Part:
    """A customer's subscriptions to plans: started, moved to another plan, paused and
    resumed, cancelled."""
    active, paused, past_due, cancelled = states
    link = f"{customer.entity}_id"
    plan_link = f"{plan.entity}_id"
    rows_table = table(
        subscription.plural,
        subscription.one,
        f"{subscription.words.capitalize()}s of {customer.name.replace('_', ' ')} to {plan.name.replace('_', ' ')}.",
        ref(customer.name, link, "Whose it is."),
        ref(plan.name, plan_link, f"The {plan.entity.replace('_', ' ')}."),
        *fields,
        choice("status", states, "Where it stands.", default=active),
        date("renews_on", "Next renewal date.", nullable=True),
        under=link,
        rows=rows,
    )
    ops: list[Operation] = [
        listing(rows_table, link, "status"),
        get(rows_table),
        create(
            rows_table,
            start,
            f"Start a {subscription.words} to a {plan.entity.replace('_', ' ')}.",
            (link, plan_link, *start_fields),
        ),
    ]
    if change_plan:
        ops.append(
            update(
                rows_table,
                change_plan,
                f"Move a {subscription.words} to another {plan.entity.replace('_', ' ')}.",
                (plan_link,),
                only_when=(
                    "status",
                    (active,),
                    f"only {said(active)} {subscription.plural.replace('_', ' ')} can change {plan.entity.replace('_', ' ')}",
                ),
            )
        )
    if pause:
        ops.append(
            transition(
                rows_table,
                pause,
                f"Pause an {said(active)} {subscription.words}.",
                paused,
                (active,),
                f"only {said(active)} {subscription.plural.replace('_', ' ')} can be paused",
            )
        )
    if resume:
        ops.append(
            transition(
                rows_table,
                resume,
                f"Resume a {said(paused)} {subscription.words}.",
                active,
                (paused,),
                f"only {said(paused)} {subscription.plural.replace('_', ' ')} can be resumed",
            )
        )
    if cancel:
        ops.append(
            transition(
                rows_table,
                cancel,
                f"Cancel a {subscription.words}.",
                cancelled,
                (active, paused),
                f"{said(past_due)} or cancelled {subscription.plural.replace('_', ' ')} cannot be cancelled here",
            )
        )
    return Part("subscription", (rows_table,), tuple(ops))


def documents(
    customer: Resource,
    document: Noun,
    *fields: Field,
    create_: str,
    create_fields: tuple[str, ...],
    share: tuple[str, Noun] | None = None,
    revoke: str | None = None,
    publish: str | None = None,
    archive: str | None = None,
    rename: tuple[str, str] | None = None,
    states: tuple[str, str, str] = ("draft", "published", "archived"),
    roles: tuple[str, ...] = ("viewer", "commenter", "editor"),
    rows: tuple[int, int] = (1, 3),
) -> Part:
    """Documents a customer owns, published and archived, shared with others by email."""
    draft, published, archived = states
    link = f"{customer.entity}_id"
    docs = table(
        document.plural,
        document.one,
        f"{document.words.capitalize()}s owned by {customer.name.replace('_', ' ')}.",
        ref(customer.name, link, "The owner."),
        *fields,
        choice("status", states, "Where it stands.", default=draft),
        stamp("created_at", "When it was created."),
        under=link,
        rows=rows,
    )
    resources = [docs]
    ops: list[Operation] = [
        listing(docs, link, "status"),
        get(docs),
        create(
            docs,
            create_,
            f"Create a {document.words} (it starts as a {said(draft)}).",
            (link, *create_fields),
        ),
    ]
    if rename:
        name, column = rename
        ops.append(
            update(
                docs,
                name,
                f"Change a {document.words}'s {column.replace('_', ' ')}.",
                (column,),
                only_when=(
                    "status",
                    (draft, published),
                    f"{said(archived)} {document.plural.replace('_', ' ')} cannot be changed",
                ),
            )
        )
    if publish:
        ops.append(
            transition(
                docs,
                publish,
                f"Publish a {said(draft)} {document.words}.",
                published,
                (draft,),
                f"only {said(draft)} {document.plural.replace('_', ' ')} can be published",
            )
        )
    if archive:
        ops.append(
            transition(
                docs,
                archive,
                f"Archive a {said(published)} {document.words}.",
                archived,
                (published,),
                f"only {said(published)} {document.plural.replace('_', ' ')} can be archived",
            )
        )
    if share:
        name, grant = share
        doc_link = f"{document.one}_id"
        grants = table(
            grant.plural,
            grant.one,
            f"Who else may open a {document.words}.",
            ref(docs.name, doc_link, f"The {document.words} shared."),
            text(
                "shared_with",
                "Email of the person it is shared with.",
                "sam.ortiz@example.org",
                "lee.park@example.net",
                "kim.obi@example.com",
                "ana.reyes@example.org",
            ),
            choice("role", roles, "What they may do."),
            choice("status", ("active", "revoked"), "Whether it still applies.", default="active"),
            under=doc_link,
            rows=(0, 2),
        )
        resources.append(grants)
        ops += [
            listing(grants, doc_link),
            get(grants),
            create(
                grants,
                name,
                f"Share a {document.words} with someone by email.",
                (doc_link, "shared_with", "role"),
            ),
        ]
        if revoke:
            ops.append(
                transition(
                    grants,
                    revoke,
                    "Take back a share.",
                    "revoked",
                    ("active",),
                    "the share was already revoked",
                )
            )
    return Part("documents", tuple(resources), tuple(ops))


def approvals(
    customer: Resource,
    request: Noun,
    *fields: Field,
    submit: str,
    submit_fields: tuple[str, ...],
    withdraw: str | None = None,
    amend: tuple[str, tuple[str, ...]] | None = None,
    appeal: str | None = None,
    states: tuple[str, str, str, str, str] = (
        "submitted",
        "under_review",
        "approved",
        "rejected",
        "withdrawn",
    ),
    extra_states: tuple[str, ...] = (),
    rows: tuple[int, int] = (0, 2),
) -> Part:
    """Requests someone else decides on (leave, permits, claims, refunds): submitted,
    amended or withdrawn while undecided, appealed once rejected."""
    submitted, review, _approved, rejected, withdrawn = states
    link = f"{customer.entity}_id"
    rows_table = table(
        request.plural,
        request.one,
        f"{request.words.capitalize()}s made by {customer.name.replace('_', ' ')}.",
        ref(customer.name, link, "Who asked."),
        *fields,
        choice("status", (*states, *extra_states), "Where it stands.", default=submitted),
        stamp("submitted_at", "When it was made."),
        under=link,
        rows=rows,
    )
    undecided = (submitted, review)
    ops: list[Operation] = [
        listing(rows_table, link, "status"),
        get(rows_table),
        create(rows_table, submit, f"Submit a {request.words}.", (link, *submit_fields)),
    ]
    if amend:
        name, columns = amend
        ops.append(
            update(
                rows_table,
                name,
                f"Change a {request.words}'s {' and '.join(c.replace('_', ' ') for c in columns)}.",
                columns,
                only_when=(
                    "status",
                    undecided,
                    f"a {request.words} can only be changed before it is decided",
                ),
            )
        )
    if withdraw:
        ops.append(
            transition(
                rows_table,
                withdraw,
                f"Withdraw an undecided {request.words}.",
                withdrawn,
                undecided,
                f"a {request.words} can only be withdrawn before it is decided",
            )
        )
    if appeal:
        ops.append(
            transition(
                rows_table,
                appeal,
                f"Appeal a {said(rejected)} {request.words} (it goes back under review).",
                review,
                (rejected,),
                f"only {said(rejected)} {request.plural.replace('_', ' ')} can be appealed",
            )
        )
    return Part("approvals", (rows_table,), tuple(ops))


def invoices(
    customer: Resource,
    invoice: Noun,
    *fields: Field,
    about: Resource | None = None,
    pay: str | None = None,
    pay_fields: tuple[str, ...] = (),
    dispute: str | None = None,
    states: tuple[str, str, str, str] = ("open", "paid", "disputed", "void"),
    low: float = 10,
    high: float = 400,
    rows: tuple[int, int] = (0, 2),
) -> Part:
    """What a customer owes: paid while open, disputed once paid."""
    opened, paid, disputed, _void = states
    link = f"{customer.entity}_id"
    extra = (
        (ref(about.name, f"{about.entity}_id", f"The {about.entity.replace('_', ' ')} billed."),)
        if about
        else ()
    )
    holder = f"{about.entity}_id" if about is not None and about.parent == link else link
    rows_table = table(
        invoice.plural,
        invoice.one,
        f"{invoice.words.capitalize()}s of {customer.name.replace('_', ' ')}.",
        ref(customer.name, link, "Who pays."),
        *extra,
        money("amount", low, high, "Amount due in US dollars."),
        date("due_on", "Due date."),
        *fields,
        choice("status", states, "Where it stands."),
        under=holder,
        rows=rows,
    )
    ops: list[Operation] = [listing(rows_table, link, "status"), get(rows_table)]
    if pay:
        ops.append(
            transition(
                rows_table,
                pay,
                f"Pay an {said(opened)} {invoice.words}.",
                paid,
                (opened,),
                f"only {said(opened)} {invoice.plural.replace('_', ' ')} can be paid",
                fields=pay_fields,
            )
        )
    if dispute:
        ops.append(
            transition(
                rows_table,
                dispute,
                f"Dispute a {said(paid)} {invoice.words}.",
                disputed,
                (paid,),
                f"only {said(paid)} {invoice.plural.replace('_', ' ')} can be disputed",
            )
        )
    return Part("invoices", (rows_table,), tuple(ops))


def holds(
    customer: Resource,
    hold: Noun,
    item: Resource,
    *fields: Field,
    place: str,
    place_fields: tuple[str, ...] = (),
    release: str | None = None,
    extend: tuple[str, str] | None = None,
    collect: str | None = None,
    states: tuple[str, str, str, str] = ("active", "ready", "collected", "released"),
    rows: tuple[int, int] = (0, 2),
) -> Part:
    """Items set aside for a customer (library holds, parts on order, stock reserved):
    placed, extended or released while waiting, collected once ready."""
    active, ready, collected, released = states
    link = f"{customer.entity}_id"
    rows_table = table(
        hold.plural,
        hold.one,
        f"{item.name.replace('_', ' ').capitalize()} set aside for {customer.name.replace('_', ' ')}.",
        ref(customer.name, link, "For whom."),
        ref(item.name, f"{item.entity}_id", f"The {item.entity.replace('_', ' ')}."),
        *fields,
        choice("status", states, "Where it stands.", default=active),
        date("expires_on", "Last day it is kept.", nullable=True),
        under=link,
        rows=rows,
    )
    ops: list[Operation] = [
        listing(rows_table, link, "status"),
        get(rows_table),
        create(rows_table, place, f"Place a {hold.words}.", (link, f"{item.entity}_id", *place_fields)),
    ]
    if extend:
        name, column = extend
        ops.append(
            update(
                rows_table,
                name,
                f"Change a {hold.words}'s {column.replace('_', ' ')}.",
                (column,),
                only_when=(
                    "status",
                    (active, ready),
                    f"only waiting {hold.plural.replace('_', ' ')} can be changed",
                ),
            )
        )
    if release:
        ops.append(
            transition(
                rows_table,
                release,
                f"Release a {hold.words} the customer no longer needs.",
                released,
                (active, ready),
                f"a {said(collected)} or {said(released)} {hold.words} cannot be released",
            )
        )
    if collect:
        ops.append(
            transition(
                rows_table,
                collect,
                f"Mark a {said(ready)} {hold.words} collected.",
                collected,
                (ready,),
                f"only {said(ready)} {hold.plural.replace('_', ' ')} can be collected",
            )
        )
    return Part("holds", (rows_table,), tuple(ops))


def compose(
    customer: Resource, *parts: Part
) -> tuple[tuple[Resource, ...], tuple[Operation, ...], tuple[str, ...]]:
    """Resources (the customer's table first), operations and archetype names of ``parts``,
    in order, each once. A table has one ``get``: a later part's (a service naming its own)
    replaces an archetype's."""
    resources: dict[str, Resource] = {customer.name: customer}
    operations: dict[str, Operation] = {}
    getters: dict[str, str] = {}
    for part in parts:
        for r in part.resources:
            resources.setdefault(r.name, r)
        for op in part.operations:
            if op.kind == "get" and op.resource in getters and getters[op.resource] != op.name:
                del operations[getters[op.resource]]
            if op.kind == "get":
                getters[op.resource] = op.name
            operations.setdefault(op.name, op)
    names = tuple(dict.fromkeys(p.name for p in parts if p.name not in ("profile", "catalog", "owned")))
    return tuple(resources.values()), tuple(operations.values()), names
