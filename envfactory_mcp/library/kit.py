"""What a library service is declared with: columns, tables and operations, in a few words.

A library service is a small real-world service (a pet groomer's front desk, a gym's
membership desk) described as tables of records and the operations its agent may perform,
in the vocabulary of :mod:`envfactory_mcp.crud.model` (``Resource``, ``Field``,
``Operation``), the same back end the OpenAPI and SQL importers use. These helpers keep a
declaration short: every table is keyed ``<entity>_id`` with readable prefixed ids
(``appointment_0007``); business rules are :class:`~envfactory_mcp.crud.model.Guard` s on
the operations that change a row's state.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from envfactory_mcp.crud.model import NOW, Field, Guard, Operation, Resource
from envfactory_mcp.crud.words import enum_labels, is_state
from envfactory_mcp.spec.state_words import STATE_WORDS

__all__ = [
    "NOW",
    "Field",
    "Guard",
    "Operation",
    "Resource",
    "choice",
    "create",
    "date",
    "find",
    "flag",
    "get",
    "integer",
    "link",
    "listing",
    "money",
    "ref",
    "said",
    "spoken",
    "stamp",
    "table",
    "text",
    "transition",
    "update",
]


# --------------------------------------------------------------------------- columns


def text(
    name: str,
    description: str = "",
    *values: str,
    max_length: int = 120,
    nullable: bool = False,
    unique: bool = False,
) -> Field:
    """A text column; ``values`` are what the seed draws from (its vocabulary)."""
    return Field(
        name,
        "string",
        description,
        nullable=nullable,
        unique=unique,
        max_length=max_length,
        values=tuple(values),
    )


def choice(
    name: str, options: tuple[str, ...], description: str = "", *, default: str | None = None
) -> Field:
    """A column holding one of ``options`` (a status, a tier, a category). A state column's
    values carry how people say them: in words, and with ``spec.state_words.STATE_WORDS``."""
    column = Field(name, "string", description, enum=options, default=default)
    if not is_state(column):
        return column
    words = {option: STATE_WORDS[option] for option in options if option in STATE_WORDS}
    display = {option: said(option) for option in options}
    return replace(column, labels=enum_labels(options, display, words=words, drop_shared=True))


# How a person says a value the words of its name alone say badly (an article, a
# capitalised abbreviation); every other value is said with spaces for underscores.
DISPLAY: dict[str, str] = {
    "out_on_slopes": "out on the slopes",
    "out_on_course": "out on the course",
    "on_shelf": "on the shelf",
    "at_desk": "at the desk",
    "id_verified": "ID verified",
    "paid_awaiting_collection": "paid and awaiting collection",
    "with_dean": "with the dean",
    "with_insurer": "with the insurer",
    "with_manager": "with the manager",
    "with_agent": "with the agent",
    "with_student": "with the student",
    "with_selector": "with the selector",
    "with_leasing_office": "with the leasing office",
    "in_lab": "in the lab",
    "at_workshop": "at the workshop",
    "fixed_at_roadside": "fixed at the roadside",
}


def said(value: object) -> str:
    """How a person says an enum value: ``out_on_slopes`` -> "out on the slopes",
    ``pencilled_in`` -> "pencilled in" (never the identifier itself)."""
    text = str(value)
    return DISPLAY.get(text, text.replace("_", " ").strip())


def integer(name: str, low: int, high: int, description: str = "", *, default: int | None = None) -> Field:
    return Field(name, "integer", description, minimum=low, maximum=high, default=default)


def money(name: str, low: float, high: float, description: str = "") -> Field:
    """An amount in dollars, with two decimals in the seed."""
    return Field(
        name,
        "number",
        description or f"{name.replace('_', ' ').capitalize()} in US dollars.",
        minimum=low,
        maximum=high,
    )


def flag(name: str, description: str = "", *, default: bool | None = None) -> Field:
    return Field(name, "boolean", description, default=default)


def date(name: str, description: str = "", *, nullable: bool = False) -> Field:
    """A calendar date (``2026-07-14``)."""
    return Field(name, "string", description, format="date", nullable=nullable)


def stamp(name: str, description: str = "", *, auto: bool = True, nullable: bool = False) -> Field:
    """A moment (``2026-07-14T09:30:00Z``); with ``auto``, set from the clock when the row is made."""
    return Field(
        name, "string", description, format="date-time", auto="now" if auto else None, nullable=nullable
    )


def ref(table_name: str, column: str, description: str = "", *, nullable: bool = False) -> Field:
    """A column pointing at a row of ``table_name`` (its ``<entity>_id``)."""
    return Field(column, "string", description, references=table_name, nullable=nullable)


def link(column: str, entity: str, description: str, *, nullable: bool = False) -> Field:
    """A column holding a key of another service (linked services: the shop's ``order_id``
    in its payments service); pair it with a ``Foreign`` link on the service."""
    return Field(column, "string", description, nullable=nullable, entity=entity)


def table(
    name: str,
    entity: str,
    description: str,
    *fields: Field,
    under: str | None = None,
    rows: tuple[int, int] | None = None,
) -> Resource:
    """A table keyed ``<entity>_id`` with new ids ``<entity>_0001``, ``<entity>_0002``, ...

    ``under``: the reference column whose row each of these belongs to (a pet's owner), so
    the seed makes ``rows`` of them per owner instead of ``rows`` in all."""
    key = Field(f"{entity}_id", "string", f"The {entity.replace('_', ' ')}'s id.", read_only=True)
    return Resource(
        name=name,
        entity=entity,
        fields=(key, *fields),
        keys=(key.name,),
        id_style="prefix",
        parent=under,
        description=description,
        seed_count=rows,
    )


# --------------------------------------------------------------------------- operations


def spoken(name: str, entity: str) -> str:
    """What a user calls an operation: ``cancel_appointment`` -> "cancel an appointment",
    ``update_pet_care_notes`` -> "update a pet's care notes", ``book_escape_room`` -> "book
    an escape room" (never the tool's name word for word, which the task realiser refuses)."""
    words = name.split("_")
    noun = entity.split("_")
    verb, rest = words[0], words[1:]
    if rest[:1] and rest[0] in ("in", "out", "up", "off", "on", "down", "back") and rest[1:]:
        verb, rest = f"{verb} {rest[0]}", rest[1:]  # a phrasal verb: check in, sign up
        if rest[0] in ("to", "for", "from"):
            verb, rest = f"{verb} {rest[0]}", rest[1:]
    if rest[: len(noun)] == noun:
        tail = rest[len(noun) :]
        thing = " ".join(noun)
        return f"{verb} {_article(thing)} {thing}" + (f"'s {' '.join(tail)}" if tail else "")
    plural = bool(rest) and rest[-1].endswith("s") and not rest[-1].endswith(("ss", "us", "is"))
    if rest and rest[0] not in ("a", "an", "the", "my", "some", "to", "for", "from"):
        return f"{verb} {'some' if plural else _article(rest[0])} {' '.join(rest)}"
    return " ".join([verb, "it", *rest]) if rest else f"{verb} it"


def _article(word: str) -> str:
    return "an" if word[:1] in ("a", "e", "i", "o", "u") else "a"


def find(resource: Resource, *by: str, name: str | None = None) -> Operation:
    """Look a record's id up by what a person knows (``find_member_id_by_email``)."""
    tool = name or f"find_{resource.entity}_id_by_{'_and_'.join(by)}"
    what = " and ".join(b.replace("_", " ") for b in by)
    return Operation(
        "find",
        resource.name,
        tool,
        f"Find a {resource.entity.replace('_', ' ')}'s id from their {what}.",
        fields=by,
    )


def get(resource: Resource, name: str | None = None, description: str | None = None) -> Operation:
    label = resource.entity.replace("_", " ")
    return Operation(
        "get",
        resource.name,
        name or f"get_{resource.entity}_details",
        description or f"Show one {label} with all its details.",
    )


def listing(
    resource: Resource,
    *filters: str,
    name: str | None = None,
    description: str | None = None,
    search: bool = False,
) -> Operation:
    """A list tool, narrowed by the columns in ``filters`` (a member's bookings, a status)."""
    label = resource.name.replace("_", " ")
    by = " or ".join(f.replace("_id", "").replace("_", " ") for f in filters)
    return Operation(
        "list",
        resource.name,
        name or f"list_{resource.name}",
        description or (f"List {label}" + (f", optionally by {by}" if by else "") + "."),
        filters=filters,
        search="query" if search else None,
    )


def create(
    resource: Resource,
    name: str,
    description: str,
    fields: tuple[str, ...],
    *,
    optional: tuple[str, ...] = (),
    intent: str | None = None,
) -> Operation:
    """A new row from ``fields`` (required) and ``optional`` ones; the rest from defaults and the clock."""
    return Operation(
        "create",
        resource.name,
        name,
        description,
        fields=(*fields, *optional),
        required=fields,
        intent=intent or spoken(name, resource.entity),
    )


def update(
    resource: Resource,
    name: str,
    description: str,
    fields: tuple[str, ...],
    *,
    only_when: tuple[str, tuple[Any, ...], str] | None = None,
    intent: str | None = None,
) -> Operation:
    """Set ``fields`` of one row; ``only_when = (column, allowed, reason)`` is the rule on its state."""
    return Operation(
        "update",
        resource.name,
        name,
        description,
        fields=fields,
        required=fields,
        guard=Guard(*only_when) if only_when else None,
        intent=intent or spoken(name, resource.entity),
    )


def transition(
    resource: Resource,
    name: str,
    description: str,
    to: str,
    allowed: tuple[str, ...],
    reason: str,
    *,
    column: str = "status",
    stamp_column: str | None = None,
    fields: tuple[str, ...] = (),
    intent: str | None = None,
) -> Operation:
    """Move one row to state ``to``, only from the ``allowed`` states (else refused with ``reason``);
    ``stamp_column`` records when, ``fields`` are arguments stored with it (a reason, a note)."""
    sets: tuple[tuple[str, Any], ...] = ((column, to),)
    if stamp_column:
        sets += ((stamp_column, NOW),)
    return Operation(
        "action",
        resource.name,
        name,
        description,
        fields=fields,
        required=fields,
        sets=sets,
        guard=Guard(column, allowed, reason),
        intent=intent or spoken(name, resource.entity),
    )
