"""Business rules beyond status, derived from what a service declares (issue 31).

An archetype's tables and operations say enough for the rules a real service of that
shape keeps; this module reads them, for every library service alike (no per-service
lists), and writes each rule with a reason in words:

* **quota**: a create on a table a customer owns, with a status: at most ``QUOTA`` rows of
  that customer in the table's live states at a time ("at most two requested or
  confirmed appointments at a time"). Live: the states the table's early operations
  (cancel, change) are allowed from, or its first state (its default, else its first value).
* **exclusive**: the same create, when it also names another record the customer keeps
  (a pet, a vehicle, a child): that record has no other live row ("a pet can have only
  one requested or confirmed appointment at a time"); else, when it names something
  offered (a title, a course section, a plan): the customer has no other live row for
  the same one ("only one waiting hold for the same title").
* **window before**: a change or cancellation allowed from the first state, on a table
  with a required date of its own (the day of the session): only up to ``BEFORE_HOURS``
  before it.
* **window after**: an operation allowed only from states past the live ones (return, reopen, appeal,
  dispute) on a table with a moment it was made or a required date: only within
  ``AFTER_DAYS`` of it.
* **amount**: a number a customer gives to a create or change (a quantity, a party size,
  an amount): at most two thirds of the way from its least to its greatest value.
* **eligibility**: a create naming a record of another table that has a status of its
  own: only while that record is in its live states ("a tutor who is on leave cannot be
  booked").
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from envfactory_mcp.crud.declarations import intent_of
from envfactory_mcp.crud.model import Field, Guard, Operation, Resource
from envfactory_mcp.spec.policy import (
    AmountRule,
    EligibilityRule,
    ExclusiveRule,
    QuotaRule,
    WindowRule,
)

from .kit import said

Rule = AmountRule | QuotaRule | WindowRule | EligibilityRule | ExclusiveRule

QUOTA = 2
BEFORE_HOURS = 24
AFTER_DAYS = 90


def words(name: str) -> str:
    return name.replace("_", " ")


def a(phrase: str) -> str:
    """``phrase`` with its indefinite article: "an enrolled car", "a pet"."""
    vowel = phrase[:1].lower() in "aeio" or phrase.lower().startswith(("ev ", "un", "hour"))
    return f"{'an' if vowel else 'a'} {phrase}"


def either(values: Iterable[object]) -> str:
    said_ = [said(v) for v in values]
    return said_[0] if len(said_) == 1 else f"{', '.join(said_[:-1])} or {said_[-1]}"


def plural(resource: Resource) -> str:
    """The table's rows in words: "timed entries" for a table named ``timed_entrys``."""
    one, name = resource.entity, resource.name
    if name in (one + "s", one + "es"):
        if one.endswith("y") and one[-2:-1] not in ("a", "e", "o", "u"):
            return words(one[:-1] + "ies")
        return words(one + ("es" if one.endswith(("s", "x", "ch", "sh")) else "s"))
    return words(name)


def _status(resource: Resource) -> Field | None:
    field = next((f for f in resource.fields if f.name == "status" and f.enum), None)
    return field


def live_states(resource: Resource, operations: list[Operation]) -> tuple[str | int, ...] | None:
    """The states a row of ``resource`` is still going in: the smallest set of two or more
    states an operation on it is allowed from that holds its first state; else the first
    state alone. None when the table has no status with a first state."""
    status = _status(resource)
    if status is None or not status.enum:
        return None
    first = status.default if status.default is not None else status.enum[0]
    guards = [
        op.guard
        for op in operations
        if op.resource == resource.name and op.guard is not None and op.guard.column == "status"
    ]
    holding = sorted(
        (tuple(g.allowed) for g in guards if first in g.allowed and len(g.allowed) >= 2), key=len
    )
    return holding[0] if holding else (first,)


def _phrase(field: Field) -> str:
    """A column's description as a noun phrase: "Day of the session." -> "the day of the session"."""
    text = (field.description or words(field.name)).strip().rstrip(".")
    text = text[0].lower() + text[1:] if text else words(field.name)
    if text.startswith("when "):
        return text
    return text if text.startswith(("the ", "its ", "a ")) else f"the {text}"


def _moment_field(resource: Resource, *, made: bool) -> Field | None:
    """The table's own required date (``made=False``), or the moment a row was made
    (``made=True``: an automatic stamp, else a required date)."""
    dates = [
        f
        for f in resource.fields
        if f.format in ("date", "date-time") and not f.nullable and not f.references
    ]
    stamps = [f for f in dates if f.auto]
    plain = [f for f in dates if not f.auto]
    if made:
        return next(iter(stamps or plain), None)
    return next(iter(plain), None)


def _limit(field: Field) -> float | None:
    if field.minimum is None or field.maximum is None or field.maximum <= field.minimum:
        return None
    span = field.maximum - field.minimum
    if field.kind == "integer":
        at = math.floor(field.minimum + span * 2 / 3)
        return float(at) if field.minimum <= at < field.maximum else None
    step = 10 ** max(0, math.floor(math.log10(span)) - 1) * 5 if span >= 10 else 1
    at = math.floor((field.minimum + span * 2 / 3) / step) * step
    return float(at) if field.minimum < at < field.maximum else None


def _amount(value: float, field: Field) -> str:
    if field.kind == "number" and ("dollar" in field.description.lower() or "price" in field.name):
        return f"${value:,.0f}"
    return f"{value:g}"


def derive(customer: Resource, resources: Iterable[Resource], operations: list[Operation]) -> list[Rule]:
    """The non-status rules of a service made of ``resources`` and ``operations``."""
    by_name = {r.name: r for r in resources}
    link = customer.keys[0]
    out: list[Rule] = []
    for op in operations:
        resource = by_name[op.resource]
        noun = words(resource.entity)
        rows = plural(resource)
        intent = intent_of(op, resource)
        live = live_states(resource, operations)
        fields = list(op.fields or ())
        if op.kind == "create" and link in fields and live is not None and resource.has(link):
            out.append(
                QuotaRule(
                    tool=op.name,
                    table=resource.name,
                    owner=link,
                    at_most=QUOTA,
                    column="status",
                    states=list(live),
                    reason=f"{a(words(customer.entity))} can have at most {QUOTA} {either(live)} {rows} "
                    "at a time",
                )
            )
            kept = [
                f
                for f in resource.fields
                if f.name in fields
                and f.references
                and f.name != link
                and by_name.get(f.references) is not None
                and by_name[f.references].has(link)
            ]
            offered = [
                f
                for f in resource.fields
                if f.name in fields
                and f.references
                and f.name != link
                and by_name.get(f.references) is not None
                and not by_name[f.references].has(link)
            ]
            for f in kept[:1]:
                thing = words(by_name[f.references or ""].entity)
                out.append(
                    ExclusiveRule(
                        tool=op.name,
                        table=resource.name,
                        owner=f.name,
                        column="status",
                        states=list(live),
                        reason=f"{a(thing)} can have only one {either(live)} {noun} at a time",
                    )
                )
            for f in offered[: 0 if kept else 1]:
                thing = words(by_name[f.references or ""].entity)
                out.append(
                    ExclusiveRule(
                        tool=op.name,
                        table=resource.name,
                        owner=link,
                        also=[f.name],
                        column="status",
                        states=list(live),
                        reason=f"{a(words(customer.entity))} can have only one {either(live)} {noun} "
                        f"for the same {thing} at a time",
                    )
                )
        if op.kind == "create":
            for f in resource.fields:
                if f.name not in fields or not f.references or f.name == link:
                    continue
                other = by_name.get(f.references)
                if other is None:
                    continue
                other_live = live_states(other, operations)
                status = _status(other)
                if other_live is None or status is None or set(other_live) >= set(status.enum or ()):
                    continue
                out.append(
                    EligibilityRule(
                        tool=op.name,
                        other=other.name,
                        via=f.name,
                        column="status",
                        allowed=list(other_live),
                        reason=f"{a(noun)} can only be made for {a(words(other.entity))} that is {either(other_live)}",
                    )
                )
        if op.kind in ("create", "update", "action"):
            for f in resource.fields:
                if f.name not in fields or f.kind not in ("integer", "number") or f.references:
                    continue
                at_most = _limit(f)
                if at_most is None:
                    continue
                out.append(
                    AmountRule(
                        tool=op.name,
                        argument=f.name,
                        at_most=at_most,
                        reason=f"the {words(f.name)} of {a(noun)} can be at most {_amount(at_most, f)}",
                    )
                )
        guard: Guard | None = op.guard
        if guard is None or guard.column != "status" or op.kind not in ("update", "action") or live is None:
            # (a table with a status always has live states: its first state at least)
            continue
        key = resource.keys[0]
        early = live[0] in guard.allowed
        late = not set(live) & set(guard.allowed)
        if early and (op.kind == "update" or any("cancel" in str(v) for _, v in op.sets)):
            moment = _moment_field(resource, made=False)
            if moment is not None:
                out.append(
                    WindowRule(
                        tool=op.name,
                        table=resource.name,
                        key=key,
                        column=moment.name,
                        side="before",
                        hours=BEFORE_HOURS,
                        reason=f"you can only {intent} up to {BEFORE_HOURS} hours before {_phrase(moment)}",
                    )
                )
        elif late and op.kind == "action":
            moment = _moment_field(resource, made=True)
            if moment is not None:
                out.append(
                    WindowRule(
                        tool=op.name,
                        table=resource.name,
                        key=key,
                        column=moment.name,
                        side="after",
                        hours=AFTER_DAYS * 24,
                        reason=f"you can only {intent} within {AFTER_DAYS} days of {_phrase(moment)}",
                    )
                )
    return out
