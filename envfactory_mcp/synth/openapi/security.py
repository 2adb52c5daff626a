"""Security schemes as an authentication step (issue 27).

Where a document's operations require a security scheme (a global ``security``, or an
operation's own), the environment's policy says who the client is before those operations
are used, as a library service does: ``PolicyRules.authentication`` names a ``find`` tool
(``find_user_id_by_email``) over the resource a client *is* (users, accounts, customers,
members), and exempts the operations the document serves without a credential
(``security: []``, or an optional ``{}`` requirement). Task gold then starts with that
step, and the policy check holds an agent to it. The credential itself (a token, a key) is
not modelled: a session is identified by what its person knows about themselves.

A document with no such resource keeps the authentication section of its policy text
only: a step that identifies nobody in the data would give tasks no user to act for.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from envfactory_mcp.crud.model import Operation, Resource

# Entities a client of the API is, best first (the last word of the entity counts too:
# ``organization_user``).
PERSON_WORDS = ("user", "account", "customer", "member", "person", "subscriber", "owner", "contact")
# Columns a person knows about themselves and says to be identified, best first.
IDENTIFIERS = (
    "email",
    "email_address",
    "username",
    "user_name",
    "login",
    "handle",
    "acct",
    "phone",
    "phone_number",
    "friendly_name",
    "display_name",
)


def requires_credential(doc: dict[str, Any], node: dict[str, Any]) -> bool:
    """Whether an operation (its ``node``) needs a credential: its own ``security``, else the
    document's; a list holding an empty requirement (``{}``) makes the credential optional."""
    security = node["security"] if "security" in node else doc.get("security")
    if not isinstance(security, list) or not security:
        return False
    return not any(isinstance(r, dict) and not r for r in security)


def principal(resources: Iterable[Resource]) -> tuple[Resource, str] | None:
    """The resource a client is and the column they are found by, or None."""
    ranked: list[tuple[int, int, Resource, str]] = []
    for resource in resources:
        if resource.log or resource.owned_by or resource.singleton or len(resource.keys) != 1:
            continue
        words = resource.entity.split("_")
        if resource.entity in PERSON_WORDS:
            rank = PERSON_WORDS.index(resource.entity)
        elif words[-1] in PERSON_WORDS:
            rank = len(PERSON_WORDS) + PERSON_WORDS.index(words[-1])
        else:
            continue
        columns = {f.name: f for f in resource.fields}
        for order, name in enumerate(IDENTIFIERS):
            f = columns.get(name)
            if f is not None and f.kind == "string" and not f.references:
                ranked.append((rank, order, resource, name))
                break
    if not ranked:
        return None
    _, _, resource, column = min(ranked, key=lambda r: (r[0], r[1], r[2].name))
    return resource, column


def find_operation(resource: Resource, column: str, taken: set[str]) -> Operation:
    """``find_<entity>_id_by_<column>``: the authentication tool."""
    name = f"find_{resource.entity}_id_by_{column}"[:64]
    unique, n = name, 2
    while unique in taken:
        unique, n = f"{name[:60]}_{n}", n + 1
    label = resource.entity.replace("_", " ")
    return Operation(
        "find",
        resource.name,
        unique,
        f"Identify the {label} this session acts for, from their {column.replace('_', ' ')}: "
        f"returns the {label}'s id. Operations that need a credential need this first.",
        fields=(column,),
        intent=f"identify the {label}",
    )
