"""The policy of an imported environment, written from its document (issue 27).

Not one line for every import: the title and what the document says the service is, how
its clients authenticate (OpenAPI security schemes, named as the document names them), and
the operations that destroy or end something (deletes, and actions whose verb cancels,
voids, closes, revokes, ...). Those need the user's explicit yes first, in the text and in
``PolicyRules.confirm``, so the gold of a task marks them ``confirm: true`` and the policy
check holds an agent to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from envfactory_mcp.spec import Authentication, EnvSpec, PolicyRules

# First words of tools that end, remove or take back something: they need a confirmation.
DESTRUCTIVE = frozenset(
    [
        "delete",
        "remove",
        "destroy",
        "purge",
        "erase",
        "drop",
        "cancel",
        "void",
        "close",
        "revoke",
        "reject",
        "decline",
        "refund",
        "terminate",
        "archive",
        "suspend",
        "disable",
        "deactivate",
        "expire",
        "ban",
        "block",
        "kick",
        "lock",
        "reset",
        "clear",
        "flush",
        "unpublish",
        "unsubscribe",
        "detach",
        "disconnect",
        "uninstall",
        "withdraw",
        "abort",
        "stop",
    ]
)


def destructive(name: str, description: str = "") -> bool:
    """Whether a write tool's name (``cancel_invoice``, ``invoices_cancel``, ``deleteUser``)
    says it removes, ends or takes back something."""
    parts = re.split(r"[^a-z]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower())
    return any(p in DESTRUCTIVE for p in parts if p)


def document_policy(
    spec: EnvSpec,
    *,
    security: Sequence[str] = (),
    source: str = "document",
    authentication: Authentication | None = None,
) -> tuple[str, PolicyRules]:
    """The policy text and rules of ``spec``, imported from a ``source`` whose security
    schemes are ``security`` (``"bearerAuth (HTTP bearer)"``; none for SQL), with the
    ``authentication`` step that stands for them when the importer found who a client is."""
    writes = [t for t in spec.tools if t.effect == "write"]
    confirm = [t.name for t in writes if _deletes(t.name, t.writes, t.description) or destructive(t.name)]
    lines = [f"# {spec.title}: agent policy", ""]
    about = " ".join(spec.description.split())
    if len(about) > 600:
        about = about[:597].rstrip() + "..."
    lines.append(f"You operate {spec.title} through its tools, as its {source} describes it. {about}".strip())
    lines.append("")
    lines.append(f"The current time is {spec.clock}; do not assume any other date.")
    lines.append("")
    if security:
        shown = ", ".join(security)
        lines += [
            "## Authentication",
            "",
            f"The service accepts only authenticated clients ({shown}). Act only for the user in "
            "this conversation, on the records they name, and never ask for, show or guess a "
            "credential.",
            "",
        ]
        if authentication is not None:
            who = authentication.entity.replace("_", " ")
            finds = " or ".join(f"`{t}`" for t in authentication.tools)
            exempt = ", ".join(f"`{t}`" for t in authentication.exempt[:40]) + (
                ", ..." if len(authentication.exempt) > 40 else ""
            )
            lines[-1:-1] = [
                "",
                f"- **Authenticate first.** Before any other operation, identify the {who} you act for "
                f"with {finds}, from what they tell you about themselves."
                + (f" These need no authentication: {exempt}." if exempt else ""),
                f"- Act only on that {who}'s own records once authenticated.",
            ]
    lines += [
        "## Changes",
        "",
        "- Act only on the records the user asks about; look a record up before changing it.",
        "- Change only the fields the user asks to change; leave every other field as it is.",
    ]
    if confirm:
        names = ", ".join(f"`{n}`" for n in confirm[:40]) + (", ..." if len(confirm) > 40 else "")
        lines.append(
            "- Before an operation that deletes, cancels or ends something "
            f"({names}), state exactly what will happen and wait for the user's explicit yes."
        )
    lines.append("- Do not make up values the user did not give; ask for what is missing.")
    return "\n".join(lines) + "\n", PolicyRules(authentication=authentication, confirm=confirm)


def _deletes(name: str, writes: Sequence[str], description: str) -> bool:
    return name.startswith(("delete", "remove")) or bool(
        re.match(r"^(delete|remove|destroy)\b", description.lower())
    )
