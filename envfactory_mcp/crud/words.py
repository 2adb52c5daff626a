"""How values are said: a value or word as it is told apart (``phrase``), which columns hold
an agent's own prose (compared by meaning) or a row's state, and the labels (display and
other words) of enum values, checked so no two values of a column are said alike."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from envfactory_mcp.crud.model import Field
from envfactory_mcp.spec.models import EnumLabel

# Last words of the names of free-text columns an agent words itself (a ticket's description, a
# pet's care notes, why a booking was cancelled): scoring compares them by meaning, not bytes.
PROSE_NAMES = frozenset(
    {"description", "details", "notes", "note", "comment", "comments", "message", "summary", "reason"}
    | {"justification", "explanation"}
)


def phrase(text: object) -> str:
    """A value or a word for one as they are told apart: lower case, ``_`` and ``-`` as spaces."""
    return " ".join(str(text).replace("_", " ").replace("-", " ").lower().split())


def is_prose(f: Field) -> bool:
    """Free text an agent writes in its own words, told by the column's name (its last word is
    in :data:`PROSE_NAMES`): a writable string column with no vocabulary of its own (no enum,
    format, reference or key of another service)."""
    plain = f.enum is None and f.format is None and f.references is None and f.entity is None
    return f.kind == "string" and plain and not f.read_only and f.name.split("_")[-1] in PROSE_NAMES


def is_state(f: Field) -> bool:
    """An enum column saying where a row stands (``status``, ``state``, ``card_status``)."""
    return f.enum is not None and (f.name in ("status", "state") or f.name.endswith(("_status", "_state")))


def enum_labels(
    values: Iterable[object],
    display: Mapping[str, str] | None = None,
    words: Mapping[str, Iterable[str]] | None = None,
    *,
    drop_shared: bool = False,
) -> dict[str, EnumLabel]:
    """Per enum value (as a string): how a person says it (``display``, by default the value
    with spaces for underscores) and other ``words`` that mean it. No two values of a column
    may share a way of being said: a word (or display) that another value has or is, is an
    error (ValueError), or with ``drop_shared`` left out (a value whose display clashes gets
    no label). Words that only respell the value itself are left out."""
    names = [str(v) for v in values]
    shown = {v: (display or {}).get(v, v.replace("_", " ").strip()) for v in names}
    listed = {v: list((words or {}).get(v, ())) for v in names}
    unknown = sorted({*(display or {}), *(words or {})} - set(names))
    if unknown:
        raise ValueError(f"{', '.join(map(repr, unknown))} not among the values {names}")
    own = {v: {phrase(v), phrase(shown[v])} for v in names}

    def clash(value: str, said: str, *, words_too: bool = True) -> bool:
        others = [u for u in names if u != value]
        return any(said in own[u] or (words_too and said in map(phrase, listed[u])) for u in others)

    out: dict[str, EnumLabel] = {}
    for value in names:
        if not phrase(shown[value]) or clash(value, phrase(shown[value]), words_too=False):
            if drop_shared:
                continue
            raise ValueError(f"{value!r} is said {shown[value]!r}, as another value is")
        kept: list[str] = []
        for word in listed[value]:
            if clash(value, phrase(word)):
                if drop_shared:
                    continue
                raise ValueError(f"{word!r} would say {value!r} and another value too")
            if phrase(word) and phrase(word) not in own[value] | {phrase(k) for k in kept}:
                kept.append(word)
        out[value] = EnumLabel(display=shown[value], words=kept)
    return out


def column_labels(f: Field) -> dict[str, EnumLabel]:
    """The labels ``f`` declares, else for a state column each text value in words."""
    if f.labels is not None:
        return f.labels
    if not is_state(f):
        return {}
    return enum_labels([v for v in f.enum or () if isinstance(v, str)], drop_shared=True)
