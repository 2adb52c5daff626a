"""Paths as real APIs write them, reduced to collections, items and what follows them.

``/v1/accounts/{AccountSid}/calls/{Sid}.json`` is read as the literal ``accounts``, a run
of one parameter, the literal ``calls`` and a run of one parameter: version and base-path
prefixes (``/v1``, ``/api/v2``, ``/2.0``, ``/2010-04-01``, a ``servers[].url`` path, a
grouping segment every path starts with), file extensions (``.json``) and ``@`` are
dropped; a path starting with a parameter (``/{itemId}/info``) gets a collection named
after the parameter (``items``). ``masked`` replaces each parameter run by its length, so
paths that address the same thing compare equal whatever their parameters are called.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from envfactory_mcp.crud.model import snake

VERSION = re.compile(r"^(v\d+[a-z0-9._-]*|\d+(\.\d+)+|\d{4}-\d{2}-\d{2}|api|rest|restapi)$", re.IGNORECASE)
EXTENSION = re.compile(r"\.(json|xml|csv|ya?ml|txt|html|xlsx|pdf|zip)$", re.IGNORECASE)
PARAM = re.compile(r"\{([^{}]+)\}")
KEY_SUFFIXES = ("_id", "_uid", "_sid", "_key", "_name", "_code", "_slug", "_number")


@dataclass(frozen=True)
class Token:
    """A literal segment (``name``, snake_case) or a run of path parameters (``params``, as written)."""

    name: str | None = None
    params: tuple[str, ...] = ()

    @property
    def literal(self) -> bool:
        return self.name is not None


Masked = tuple[str, ...]


def masked(tokens: list[Token] | tuple[Token, ...]) -> Masked:
    """Literals as they are, parameter runs as ``{n}``."""
    return tuple(t.name if t.name is not None else f"{{{len(t.params)}}}" for t in tokens)


def base_paths(servers: object) -> list[str]:
    """Path parts of ``servers[].url`` (``https://api.x.com/v1`` -> ``/v1``)."""
    found = []
    for server in servers if isinstance(servers, list) else []:
        url = server.get("url") if isinstance(server, dict) else None
        if isinstance(url, str):
            path = urlsplit(PARAM.sub("x", url)).path if "://" in url else url
            if path.strip("/"):
                found.append("/" + path.strip("/"))
    return found


def segments(path: str) -> list[str]:
    return [s for s in path.split("/") if s]


def tokenize(paths: list[str], servers: object = None) -> tuple[dict[str, list[Token]], dict[str, list[str]]]:
    """Tokens of every path, and the parameters of a segment that mixes several (``{a}-{b}``)
    beyond the first, which no token carries."""
    split = {p: segments(p) for p in paths}
    for base in base_paths(servers):
        parts = segments(base)
        if parts and all(s[: len(parts)] == parts and len(s) > len(parts) for s in split.values()):
            split = {p: s[len(parts) :] for p, s in split.items()}
    for p, parts in split.items():
        while len(parts) > 1 and VERSION.match(parts[0]):
            parts = parts[1:]
        split[p] = parts
    # A grouping segment every path starts with (``/invoicing/...``) and that is never an item.
    while split and len(split) > 1:
        firsts = {s[0] if s else None for s in split.values()}
        if len(firsts) != 1 or None in firsts:
            break
        first = firsts.pop()
        if "{" in str(first) or any(len(s) < 2 or "{" in s[1] for s in split.values()):
            break
        split = {p: s[1:] for p, s in split.items()}
    tokens: dict[str, list[Token]] = {}
    dropped: dict[str, list[str]] = {}
    for p, parts in split.items():
        out: list[Token] = []
        for i, raw in enumerate(parts):
            text = EXTENSION.sub("", raw) if i == len(parts) - 1 else raw
            names = PARAM.findall(text)
            if not names:
                name = snake(text.lstrip("@:$").replace(".", "_")) if text.strip("@:$.") else None
                if name:
                    out.append(Token(name=name))
                continue
            rest = PARAM.sub("", text)
            _append_param(out, names[0])
            if len(names) > 1:
                dropped.setdefault(p, []).extend(names[1:])
            verb = rest.strip(":").strip() if ":" in rest else ""
            if verb and re.fullmatch(r"[A-Za-z][\w-]*", verb):
                out.append(Token(name=snake(verb)))
        if out and not out[0].literal:
            out.insert(0, Token(name=collection_for(out[0].params[0])))
        tokens[p] = out
    return tokens, dropped


def _append_param(out: list[Token], name: str) -> None:
    if out and not out[-1].literal:
        out[-1] = Token(params=(*out[-1].params, name))
    else:
        out.append(Token(params=(name,)))


def collection_for(param: str) -> str:
    """The collection a leading parameter names: ``itemId`` -> ``items``."""
    base = snake(param)
    for suffix in KEY_SUFFIXES:
        if base.endswith(suffix) and len(base) > len(suffix):
            base = base[: -len(suffix)]
            break
    if base.endswith("id") and len(base) > 3 and base != "id":
        base = base[:-2].rstrip("_")
    return plural(base if base != "id" else "item")


def plural(word: str) -> str:
    if word.endswith("s"):
        return word
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u"):
        return word[:-1] + "ies"
    if word.endswith(("x", "ch", "sh")):
        return word + "es"
    return word + "s"
