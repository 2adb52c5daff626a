"""What the words of a path say: searches, batches, sign-ins, verbs and the states they lead to."""

from __future__ import annotations

import re

SEARCH_WORDS = ("search", "find", "lookup", "query", "filter", "match")
BATCH_WORDS = ("batch", "bulk", "batches_of", "multiple", "many")
SECURITY_WORDS = {
    "login",
    "logout",
    "signin",
    "signout",
    "sign_in",
    "sign_out",
    "signup",
    "oauth",
    "oauth2",
    "openid",
    "saml",
    "sso",
    "token",
    "tokens",
    "refresh_token",
    "access_token",
    "authenticate",
    "authentication",
    "two_factor",
    "mfa",
    "password",
    "reset_password",
    "forgot_password",
}
# Security words only where the path names no record: ``/oauth/authorize`` signs in,
# ``/follow_requests/{id}/authorize`` accepts a follow request.
SECURITY_UNKEYED = {"authorize", "revoke", "userinfo", "introspect", "jwks", "session", "sessions"}
PAGINATION = {
    "limit": "offset",
    "offset": "offset",
    "skip": "offset",
    "page": "page",
    "per_page": "page",
    "page_size": "page",
    "pagesize": "page",
    "page_number": "page",
    "count": "offset",
    "max_results": "offset",
    "top": "offset",
}
CURSORS = {
    "cursor",
    "after",
    "before",
    "starting_after",
    "ending_before",
    "page_token",
    "next_page_token",
    "marker",
    "since_id",
    "max_id",
    "min_id",
    "continuation_token",
    "next",
    "from",
    "start",
    "end",
    "page_after",
    "page_before",
    "order",
    "sort",
    "sort_by",
    "order_by",
    "direction",
    "fields",
    "expand",
    "include",
    "embed",
}
# The argument of the served pagination each parameter is (``skip`` is the offset).
PAGE_ROLES = {
    "limit": "limit",
    "count": "limit",
    "max_results": "limit",
    "top": "limit",
    "offset": "offset",
    "skip": "offset",
    "page": "page",
    "page_number": "page",
    "per_page": "per_page",
    "page_size": "per_page",
    "pagesize": "per_page",
}
SEARCH_PARAMS = {"q", "query", "search", "term", "keyword", "keywords", "text", "filter"}
LIST_KEYS = (
    "data",
    "items",
    "results",
    "records",
    "entries",
    "values",
    "hits",
    "list",
    "elements",
    "content",
)
# Verbs whose past participle is not the regular one, and verbs whose resulting state is an adjective.
IRREGULAR = {
    "send": ("sent",),
    "pay": ("paid",),
    "read": ("read",),
    "begin": ("begun", "started"),
    "run": ("running",),
    "hold": ("held", "on_hold"),
    "build": ("built",),
    "undo": ("undone",),
    "activate": ("active", "activated"),
    "reactivate": ("active", "reactivated"),
    "deactivate": ("inactive", "deactivated"),
    "resume": ("active", "resumed", "running"),
    "unpause": ("active", "running"),
    "start": ("started", "running", "in_progress", "active"),
    "stop": ("stopped",),
    "open": ("open", "opened"),
    "reopen": ("open", "reopened"),
    "close": ("closed",),
    "finish": ("finished", "completed", "done"),
    "complete": ("completed", "complete", "done"),
    "cancel": ("cancelled", "canceled"),
    "void": ("voided", "void"),
    "publish": ("published",),
    "unpublish": ("unpublished", "draft"),
    "archive": ("archived",),
    "unarchive": ("active", "unarchived"),
    "expire": ("expired",),
    "reject": ("rejected", "declined"),
    "approve": ("approved", "accepted"),
    "accept": ("accepted",),
    "decline": ("declined", "rejected"),
    "submit": ("submitted", "pending"),
    "ship": ("shipped",),
    "return": ("returned",),
    "refund": ("refunded",),
    "capture": ("captured",),
    "authorize": ("authorized",),
    "suspend": ("suspended",),
    "unsuspend": ("active",),
    "lock": ("locked",),
    "unlock": ("unlocked", "active"),
    "enable": ("enabled", "active"),
    "disable": ("disabled", "inactive"),
    "pin": ("pinned",),
    "unpin": ("unpinned",),
    "dismiss": ("dismissed",),
    "resolve": ("resolved",),
    "escalate": ("escalated",),
    "confirm": ("confirmed",),
    "verify": ("verified",),
    "deliver": ("delivered",),
    "pause": ("paused",),
    "finalize": ("finalized", "final"),
    "settle": ("settled",),
    "revoke": ("revoked",),
    "retry": ("pending", "retrying"),
    "redeliver": ("pending",),
}


def is_search(word: str) -> bool:
    return any(
        word == w or word.startswith((w + "_", w + "by")) or word.endswith("_" + w) for w in SEARCH_WORDS
    )


def is_batch(word: str) -> bool:
    return any(
        w == word or word.startswith(w + "_") or word.endswith("_" + w) for w in BATCH_WORDS
    ) or word in (
        "batch",
        "bulk",
    )


def is_security(words: list[str], keyed: bool = False) -> bool:
    """Whether a path's literals name a sign-in, token or credential endpoint."""
    return any(
        w in SECURITY_WORDS
        or w.startswith(("oauth", "login_", "logout_"))
        or (not keyed and w in SECURITY_UNKEYED)
        for w in words
    )


def verb_of(word: str) -> str:
    """The verb of an action segment: ``cancel`` of ``cancel``, ``return`` of ``return_loan``."""
    return word.split("_", 1)[0]


def past_forms(verb: str) -> tuple[str, ...]:
    """States a verb leads to: ``cancel`` -> cancelled / canceled; ``archive`` -> archived."""
    found = list(IRREGULAR.get(verb, ()))
    if verb.endswith("e"):
        found.append(verb + "d")
    elif re.search(r"[^aeiou]y$", verb):
        found.append(verb[:-1] + "ied")
    else:
        found.append(verb + "ed")
        if re.search(r"[^aeiou][aeiou][bdgklmnprt]$", verb):
            found.append(verb + verb[-1] + "ed")
    return tuple(dict.fromkeys(found))


def normal(value: object) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(value).lower()).strip("_")
