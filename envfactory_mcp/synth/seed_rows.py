"""Deterministic seed rows for imported resources.

Values are shaped by column name and format (emails, dates, uuids, names, cities),
enums and bounds; foreign keys point at existing parent rows. The first row of every
table is never referenced, so a delete tool can succeed when the verifier probes it.
"""

from __future__ import annotations

import json
import random
from typing import Any

from envfactory_mcp.synth.crud import UUID_PREFIX, Field, Resource, ResourceImportError, Rows

_FIRST = ("Ada", "Grace", "Alan", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances", "Edsger")
_LAST = ("Lovelace", "Hopper", "Turing", "Torvalds", "Hamilton", "Thompson", "Liskov", "Ritchie", "Allen")
_WORDS = ("amber", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper")
_CITIES = ("Lisbon", "Austin", "Osaka", "Nairobi", "Oslo", "Lima", "Perth", "Quebec")


def generate_rows(resources: list[Resource], seed: int) -> Rows:
    """Deterministic rows for every resource: 6-12 top-level rows, 1-3 children per parent.

    The first row of every table is never pointed at, so delete tools have something to delete.
    """
    rng = random.Random(seed)
    keys = {r.name: r.keys[0] for r in resources}
    rows: Rows = {}
    pending = list(resources)
    while pending:
        ready = [r for r in pending if all(f.references in rows for f in r.fields if f.references)]
        if not ready:
            raise ResourceImportError(
                pending[0].name, "foreign keys form a cycle; cannot order the seed rows"
            )
        for resource in ready:
            rows[resource.name] = _rows_of(resource, rows, keys, rng)
            pending.remove(resource)
    return rows


def _rows_of(
    resource: Resource, done: Rows, keys: dict[str, str], rng: random.Random
) -> list[dict[str, Any]]:
    owners: list[dict[str, Any] | None]
    if resource.parent:
        parent_rows = done[resource.field(resource.parent).references or ""][1:]
        owners = [p for p in parent_rows for _ in range(rng.randint(1, 3))]
        owners = owners[:30]
    else:
        owners = [None] * rng.randint(6, 12)
    out: list[dict[str, Any]] = []
    for i, owner in enumerate(owners, start=1):
        row: dict[str, Any] = {}
        for f in resource.fields:
            target = f.references or ""
            if owner is not None and f.name == resource.parent:
                row[f.name] = owner[keys[target]]
            elif f.references:
                pool = done[target][1:] or done[target]
                row[f.name] = pool[rng.randrange(len(pool))][keys[target]] if pool else None
            else:
                row[f.name] = _value(f, resource, i, rng)
        out.append(row)
    if len(resource.keys) > 1:  # drawn composite keys may repeat: keep the first of each
        unique: dict[tuple[Any, ...], dict[str, Any]] = {}
        for row in out:
            unique.setdefault(tuple(row[k] for k in resource.keys), row)
        out = list(unique.values())
    return out


def _value(f: Field, resource: Resource, i: int, rng: random.Random) -> Any:
    if f.name in resource.keys and len(resource.keys) == 1:
        if resource.id_style == "uuid":
            return f"{UUID_PREFIX}{i:012d}"
        if resource.id_style == "prefix" or (resource.id_style == "client" and f.kind == "string"):
            return f"{resource.entity}_{i:04d}"
        return i
    if f.nullable and rng.random() < 0.15:
        return None
    if f.enum is not None:
        return f.enum[rng.randrange(len(f.enum))]
    if f.kind == "boolean":
        return rng.randint(0, 1)
    if f.kind == "integer":
        low = int(f.minimum) if f.minimum is not None else (1 if "quantity" in f.name else 0)
        high = int(f.maximum) if f.maximum is not None else max(low, 10 if "quantity" in f.name else 500)
        return i if f.unique else rng.randint(low, high)
    if f.kind == "number":
        bottom = f.minimum if f.minimum is not None else 1.0
        top = f.maximum if f.maximum is not None else max(bottom, 500.0)
        return round(rng.uniform(bottom, top), 2)
    if f.kind == "array":
        item = Field(name=f.name, kind=f.item_kind)
        return json.dumps([_value(item, resource, i, rng) for _ in range(rng.randint(0, 3))], sort_keys=True)
    text = _text(f, resource, i, rng)
    return text[: f.max_length] if f.max_length else text


def _text(f: Field, resource: Resource, i: int, rng: random.Random) -> str:
    # One person per row index, so a row's name and email agree.
    first, last, word = _FIRST[i % len(_FIRST)], _LAST[i * 3 % len(_LAST)], rng.choice(_WORDS)
    month, day, hour = rng.randint(1, 12), rng.randint(1, 28), rng.randint(8, 18)
    name = f.name
    if f.format == "email" or "email" in name:
        return f"{first}.{last}{i}@example.com".lower()
    if f.format == "date-time" or name.endswith("_at"):
        return f"2026-{month:02d}-{day:02d}T{hour:02d}:{rng.randint(0, 59):02d}:00Z"
    if f.format == "date" or name.endswith("_date") or name == "date":
        return f"2026-{month:02d}-{day:02d}"
    if f.format in ("uri", "url") or name in ("url", "website", "homepage"):
        return f"https://example.com/{resource.name}/{i}"
    if f.format == "uuid":
        bits = rng.getrandbits(128)
        return f"{bits >> 96:08x}-{bits >> 80 & 0xFFFF:04x}-4{bits >> 68 & 0xFFF:03x}-8{bits >> 56 & 0xFFF:03x}-{bits & 0xFFFFFFFFFFFF:012x}"
    if "phone" in name:
        return f"+1-555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"
    if name in ("first_name", "given_name"):
        return first
    if name in ("last_name", "family_name", "surname"):
        return last
    suffix = f" {i}" if f.unique else ""
    if name in ("name", "full_name", "username", "owner", "author") or name.endswith("_name"):
        person = resource.entity in ("user", "owner", "customer", "person", "author", "member", "employee")
        return (f"{first} {last}" if person else f"{word.title()} {resource.entity}") + suffix
    if name in ("city", "town"):
        return rng.choice(_CITIES)
    if name in ("sku", "code") or name.endswith("_code"):
        return f"{name[:3].upper()}-{i:04d}"
    if name in ("description", "notes", "note", "body", "comment", "bio"):
        return f"{word.title()} {rng.choice(_WORDS)} for {resource.entity} {i}."
    return f"{word.title()} {name.replace('_', ' ')}{suffix}"
