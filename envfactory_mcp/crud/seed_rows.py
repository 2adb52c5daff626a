"""Deterministic seed rows for imported resources.

Values are shaped by column name and format (emails, dates, uuids, names, cities),
enums, bounds and lengths (a ``CHAR(4)`` key is ``d001``, never ``department_0001``);
unique columns stay unique; foreign keys point at existing parent rows. Tables are filled
parents first; a foreign key that closes a cycle (a store's manager is on the staff, the
staff works at a store) is filled in a second pass once its target has rows, and a table
pointing at itself (an employee's manager) points at earlier rows. The first row of
every table is never referenced, so a delete tool can succeed when the verifier probes it.

Rows given by the caller (a schema's own INSERT data) are kept as they are; only the
other tables are generated, pointing at the given rows.
"""

from __future__ import annotations

import base64
import json
import random
from typing import Any

from envfactory_mcp.crud.model import UUID_PREFIX, Field, Resource, Rows

_FIRST = ("Ada", "Grace", "Alan", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances", "Edsger")
_LAST = ("Lovelace", "Hopper", "Turing", "Torvalds", "Hamilton", "Thompson", "Liskov", "Ritchie", "Allen")
_WORDS = ("amber", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper")
_CITIES = ("Lisbon", "Austin", "Osaka", "Nairobi", "Oslo", "Lima", "Perth", "Quebec")


def generate_rows(resources: list[Resource], seed: int, given: Rows | None = None) -> Rows:
    """Deterministic rows for every resource: 6-12 top-level rows, 1-3 children per parent.

    The first row of every table is never pointed at, so delete tools have something to
    delete. Tables in ``given`` keep those rows; the others are generated around them.
    """
    rng = random.Random(seed)
    given = given or {}
    by_name = {r.name: r for r in resources}
    rows: Rows = {}
    later: list[tuple[dict[str, Any], Field, str]] = []  # foreign keys to fill once their target has rows
    for resource in fill_order(resources):
        if resource.name in given:
            rows[resource.name] = [dict(row) for row in given[resource.name]]
        else:
            rows[resource.name] = _rows_of(resource, rows, by_name, rng, later)
    for row, f, table in later:  # the second pass: edges that close a cycle
        target = by_name[f.references or ""]
        pool = [r[target.keys[0]] for r in rows[target.name][1:] or rows[target.name]]
        taken = {r[f.name] for r in rows[table] if r[f.name] is not None} if f.unique else set()
        if not (f.nullable and rng.random() < 0.15):
            row[f.name] = _pick(pool, taken, rng)
    return {r.name: rows[r.name] for r in resources}


def _pick(pool: list[Any], taken: set[Any], rng: random.Random) -> Any:
    """A random value of ``pool`` that is not ``taken`` (None when every one is)."""
    free = [v for v in pool if v not in taken] if taken else pool
    return free[rng.randrange(len(free))] if free else None


def extra_rows(
    resources: list[Resource], name: str, rows: Rows, count: int, seed: int
) -> list[dict[str, Any]]:
    """``count`` more rows for table ``name`` beside its ``rows``: new keys after the largest,
    unique values unlike any in use, foreign keys pointing at existing rows."""
    by_name = {r.name: r for r in resources}
    resource = by_name[name]
    rng = random.Random(f"{seed}:{name}:extra")
    existing = rows.get(name, [])
    made = _rows_of(resource, {n: r for n, r in rows.items() if n != name}, by_name, rng, [])
    out: list[dict[str, Any]] = []
    taken = {
        f.name: {row[f.name] for row in existing}
        for f in resource.fields
        if f.unique or f.name in resource.keys
    }
    key = resource.keys[0]
    number = len(existing)
    for row in made:
        if len(out) >= count:
            break
        if any(row[f.name] is None and not f.nullable for f in resource.fields):
            continue  # a required reference with nothing to point at
        if len(resource.keys) == 1:
            while True:
                number += 1
                candidate = _value(resource.field(key), resource, number, rng)
                if candidate not in taken[key]:
                    break
            row[key] = candidate
        elif tuple(row[k] for k in resource.keys) in {
            tuple(r[k] for k in resource.keys) for r in existing + out
        }:
            continue
        for f in resource.fields:
            if f.unique and f.name != key and row[f.name] is not None:
                row[f.name] = _distinct(f, row[f.name], taken[f.name], number)
                taken[f.name].add(row[f.name])
        taken[key].add(row[key])
        out.append(row)
    return out


def fill_order(resources: list[Resource]) -> list[Resource]:
    """Parents before children; inside a cycle, first the table whose missing parents are
    reached through nullable columns only (else the one waiting on the fewest)."""
    pending = {r.name: r for r in resources}
    order: list[Resource] = []
    while pending:
        done = {r.name for r in order}

        def waiting(r: Resource, *, required_only: bool = False, done: set[str] = done) -> set[str]:
            return {
                f.references
                for f in r.fields
                if f.references
                and f.references != r.name
                and f.references not in done
                and f.references in pending
                and not (required_only and f.nullable)
            }

        ready = [r for r in pending.values() if not waiting(r)]
        if not ready:  # a cycle: enter it at a table the others wait on
            blocking = {t for r in pending.values() for t in waiting(r)}
            ready = [
                min(
                    (r for r in pending.values() if r.name in blocking),
                    key=lambda r: (len(waiting(r, required_only=True)), len(waiting(r)), r.name),
                )
            ]
        for resource in ready:
            order.append(resource)
            del pending[resource.name]
    return order


def key_shape(resource: Resource) -> tuple[str, int]:
    """Prefix and digits of a text key that fit its length: ``order_0001``, or ``d001`` for
    ``CHAR(4)``. Kept in step with ``crud.tool_code._create_body``, which numbers new keys alike."""
    limit = resource.field(resource.keys[0]).max_length
    entity = resource.entity
    if limit is None or limit >= len(entity) + 5:
        return f"{entity}_", 4
    digits = max(1, min(4, limit - 1))
    room = limit - digits
    return (entity[: room - 1] + "_" if room >= 3 else entity[:room]), digits


def _rows_of(
    resource: Resource,
    done: Rows,
    by_name: dict[str, Resource],
    rng: random.Random,
    later: list[tuple[dict[str, Any], Field, str]],
) -> list[dict[str, Any]]:
    owners: list[dict[str, Any] | None]
    parent = by_name[resource.field(resource.parent).references or ""] if resource.parent else None
    if parent is not None:
        parent_rows = done[parent.name][1:]
        low, high = resource.seed_count or (1, 3)
        owners = [p for p in parent_rows for _ in range(rng.randint(low, high))]
        owners = owners[: 30 if resource.seed_count is None else None]
    else:
        owners = [None] * rng.randint(*(resource.seed_count or (6, 12)))
    for f in resource.fields:  # a unique reference: fewer rows than the rows it may point at
        if f.unique and f.references and f.references in done and f.references != resource.name:
            owners = owners[: max(1, len(done[f.references]) - 2)]
    out: list[dict[str, Any]] = []
    taken: dict[str, set[Any]] = {f.name: set() for f in resource.fields if f.unique}
    for i, owner in enumerate(owners, start=1):
        row: dict[str, Any] = {}
        for f in resource.fields:
            target = by_name[f.references] if f.references else None
            if owner is not None and parent is not None and f.name == resource.parent:
                row[f.name] = owner[parent.keys[0]]
            elif target is not None and target.name == resource.name:  # points at an earlier row
                earlier = [r[target.keys[0]] for r in out[1:]]
                value = (
                    _pick(earlier, taken.get(f.name, set()), rng)
                    if not (f.nullable and rng.random() < 0.2)
                    else None
                )
                row[f.name] = value if value is not None or f.nullable else row.get(target.keys[0])
            elif target is not None and target.name not in done:  # closes a cycle: second pass
                row[f.name] = None
                later.append((row, f, resource.name))
            elif target is not None:
                pool = [r[target.keys[0]] for r in done[target.name][1:] or done[target.name]]
                row[f.name] = _pick(pool, taken.get(f.name, set()), rng)
            else:
                row[f.name] = _value(f, resource, i, rng)
            if f.name in taken and row[f.name] is not None and target is not None:
                taken[f.name].add(row[f.name])  # a unique reference: drawn among the free ones
            elif f.name in taken and row[f.name] is not None:
                row[f.name] = _distinct(f, row[f.name], taken[f.name], i)
                taken[f.name].add(row[f.name])
        out.append(row)
    if len(resource.keys) > 1 or resource.fields[0].references:  # drawn keys may repeat: keep the first
        out = [row for row in out if all(row[k] is not None for k in resource.keys)]
        unique: dict[tuple[Any, ...], dict[str, Any]] = {}
        for row in out:
            unique.setdefault(tuple(row[k] for k in resource.keys), row)
        out = list(unique.values())
    return out


def _distinct(f: Field, value: Any, taken: set[Any], i: int) -> Any:
    """``value``, changed as little as needed to differ from every value in ``taken``."""
    if value not in taken:
        return value
    if f.kind == "integer":
        top = int(f.maximum) if f.maximum is not None else None
        candidate = max((v for v in taken if isinstance(v, int)), default=0) + 1
        return candidate if top is None or candidate <= top else value
    if f.kind == "number":
        return round(max((v for v in taken if isinstance(v, int | float)), default=0.0) + 1.0, 2)
    if f.kind == "string" and f.enum is None:
        n = i
        while True:
            tail = str(n)
            text: str = str(value)
            if f.max_length is not None:
                text = text[: max(0, f.max_length - len(tail))]
            word = text + tail
            if word not in taken:
                return word
            n += 1000
    return value


def _value(f: Field, resource: Resource, i: int, rng: random.Random) -> Any:
    if f.name in resource.keys and len(resource.keys) == 1:
        if resource.id_style == "uuid":
            return f"{UUID_PREFIX}{i:012d}"
        if f.kind == "string":
            prefix, digits = key_shape(resource)
            return f"{prefix}{i:0{digits}d}"
        return i
    if f.nullable and rng.random() < 0.15:
        return None
    if f.values:  # the column's own vocabulary
        return f.values[rng.randrange(len(f.values))]
    if f.enum is not None:
        return f.enum[rng.randrange(len(f.enum))]
    if f.kind == "boolean":
        return rng.randint(0, 1)
    if f.kind == "integer":
        return _integer(f, i, rng)
    if f.kind == "number":
        bottom = f.minimum if f.minimum is not None else 1.0
        top = max(bottom, 500.0) if f.maximum is None else min(f.maximum, max(bottom, 500.0))
        bottom = min(bottom, top)
        return round(rng.uniform(bottom, top), 2)
    if f.kind in ("object", "json"):  # free-form JSON, stored as text
        return json.dumps({"note": f"{rng.choice(_WORDS)} {i}"}, sort_keys=True)
    if f.kind == "array":
        if f.item_kind in ("object", "json"):
            items: list[Any] = [{"note": f"{rng.choice(_WORDS)} {i}"} for _ in range(rng.randint(0, 2))]
        else:
            item = Field(name=f.name, kind=f.item_kind)
            items = [_value(item, resource, i, rng) for _ in range(rng.randint(0, 3))]
        return json.dumps(items, sort_keys=True)
    text = _text(f, resource, i, rng)
    return text[: f.max_length] if f.max_length else text


def _integer(f: Field, i: int, rng: random.Random) -> int:
    if "year" in f.name or (f.minimum == 1901 and f.maximum == 2155):
        low, high = 1990, 2026
    elif "quantity" in f.name:
        low, high = 1, 10
    else:
        low, high = 0, 500
    if f.minimum is not None and f.minimum > low:
        low, high = int(f.minimum), max(high, int(f.minimum) + (high - low))
    if f.maximum is not None and f.maximum < high:
        high = int(f.maximum)
        low = max(min(low, high), int(f.minimum) if f.minimum is not None else min(low, high))
    if f.unique:
        return min(low + i, high) if high - low >= i else i
    return rng.randint(low, high)


def _text(f: Field, resource: Resource, i: int, rng: random.Random) -> str:
    # One person per row index, so a row's name and email agree.
    first, last, word = _FIRST[i % len(_FIRST)], _LAST[i * 3 % len(_LAST)], rng.choice(_WORDS)
    month, day, hour = rng.randint(1, 12), rng.randint(1, 28), rng.randint(8, 18)
    name = f.name
    if f.format == "byte":
        size = (f.max_length // 4) * 3 if f.max_length else 12
        return base64.b64encode(rng.randbytes(max(1, min(size, 16)))).decode()
    if f.format == "email" or "email" in name:
        return f"{first}.{last}{i}@example.com".lower()
    if f.format == "date-time" or name.endswith("_at"):
        return f"2026-{month:02d}-{day:02d}T{hour:02d}:{rng.randint(0, 59):02d}:00Z"
    if f.format == "date" or name.endswith("_date") or name == "date":
        return f"2026-{month:02d}-{day:02d}"
    if f.format == "time":
        return f"{hour:02d}:{rng.choice((0, 15, 30, 45)):02d}:00"
    if f.format in ("uri", "url") or name in ("url", "website", "homepage"):
        return f"https://example.com/{resource.name}/{i}"
    if f.format == "uuid":
        bits = rng.getrandbits(128)
        return f"{bits >> 96:08x}-{bits >> 80 & 0xFFFF:04x}-4{bits >> 68 & 0xFFF:03x}-8{bits >> 56 & 0xFFF:03x}-{bits & 0xFFFFFFFFFFFF:012x}"
    if "phone" in name or name == "fax":
        return f"+1-555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"
    if f.description == "IP address." or name in ("ip", "ip_address", "address_ip"):
        return f"192.0.2.{i % 250 + 1}"
    if name in ("first_name", "given_name", "firstname"):
        return first
    if name in ("last_name", "family_name", "surname", "lastname"):
        return last
    if f.max_length is not None and f.max_length <= 3:  # a code: a country, a currency, a flag
        return (word[: f.max_length] if not f.unique else f"{i:0{f.max_length}d}"[-f.max_length :]).upper()
    suffix = f" {i}" if f.unique else ""
    if name in ("name", "full_name", "username", "owner", "author") or name.endswith("_name"):
        person = resource.entity in (
            "user",
            "owner",
            "customer",
            "person",
            "author",
            "member",
            "employee",
            "staff",
            "actor",
        )
        return (
            f"{first} {last}" if person else f"{word.title()} {resource.entity.replace('_', ' ')}"
        ) + suffix
    if name in ("city", "town"):
        return rng.choice(_CITIES) + suffix
    if name in ("sku", "code") or name.endswith("_code"):
        return f"{name[:3].upper()}-{i:04d}"
    if name in ("description", "notes", "note", "body", "comment", "bio"):
        return f"{word.title()} {rng.choice(_WORDS)} for {resource.entity} {i}."
    return f"{word.title()} {name.replace('_', ' ')}{suffix}"
