"""Free text and state diffs compared by meaning.

A ``compare="text"`` column holds what an agent words itself (a ticket's description): it
means the gold text when it keeps every number and id of it and at least ``TEXT_KEEP`` of
its content stems (:func:`text_means`). :func:`diffs_mean_same` compares a final diff with the
gold diff change by change: the same rows inserted, deleted and updated, the same columns,
exact values elsewhere, and a row's free text as a whole.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from typing import Any

from envfactory_mcp.scoring import words
from envfactory_mcp.spec.models import EnvSpec

# Free text is the same when it keeps at least this share of the gold's content stems (and
# every number and id): a paraphrase keeps most nouns and some verbs and adjectives
# ("yearly check-up" for "annual checkup" keeps one of two), another text keeps few.
TEXT_KEEP = 0.5
_STOP_STEMS = words.STOP_STEMS
_ID_TOKEN = words.ID_TOKEN


@dataclass(frozen=True)
class KeyFacts:
    """What a free text must keep: its numbers, its ids and its content stems."""

    numbers: frozenset[float]
    ids: frozenset[str]
    stems: frozenset[str]


def key_facts(text: str) -> KeyFacts:
    """The numbers, ids and content stems of a free text (a hyphen read as a space)."""
    ids = frozenset(
        re.sub(r"[^a-z0-9]", "", t.casefold())
        for t in _ID_TOKEN.findall(text)
        if re.search(r"[a-z]", t, re.I)
    )
    toks = words.tokens(re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text, flags=re.IGNORECASE))
    stems = frozenset(
        t.stem for t in toks if t.stem not in _STOP_STEMS and not t.word.isdigit() and len(t.word) > 1
    )
    return KeyFacts(frozenset(n.value for n in words.numbers_in(text)), ids, stems)


def _with_compounds(text: str, stems: frozenset[str]) -> frozenset[str]:
    """``stems`` and the stems of each two words written together ("check up" -> "checkup"),
    so "check-up", "check up" and "checkup" meet."""
    toks = words.tokens(re.sub(r"(?<=[a-z])-(?=[a-z])", " ", text, flags=re.IGNORECASE))
    joined = {words.stem(a.word + b.word) for a, b in itertools.pairwise(toks) if a.clause == b.clause}
    return stems | joined


def text_means(gold: str, said: str) -> bool:
    """Whether free text ``said`` carries the key facts of ``gold``: every number and id of it,
    and at least ``TEXT_KEEP`` of its content stems (a paraphrase keeps most of them)."""
    if gold == said:
        return True
    want, got = key_facts(gold), key_facts(said)
    if not want.numbers <= got.numbers or not want.ids <= got.ids:
        return False
    if not want.stems:
        return not got.stems or want == got
    kept = len(want.stems & _with_compounds(said, got.stems)) if want.stems - got.stems else len(want.stems)
    return kept >= max(1, math.ceil(TEXT_KEEP * len(want.stems) - 1e-9))


def values_mean_same(gold: Any, got: Any, compare: str) -> bool:
    """A column's value against the gold's: exactly, or by key facts for free text."""
    if compare == "text" and isinstance(gold, str) and isinstance(got, str):
        return text_means(gold, got)
    return bool(gold == got and type(gold) is type(got))


def text_columns(spec: EnvSpec | None) -> dict[str, frozenset[str]]:
    """Per table, its ``compare="text"`` columns (none without a spec)."""
    if spec is None:
        return {}
    return {
        t.name: frozenset(c.name for c in t.columns if c.compare == "text")
        for t in spec.tables
        if any(c.compare == "text" for c in t.columns)
    }


def diffs_mean_same(gold: dict[str, Any], final: dict[str, Any], texts: dict[str, frozenset[str]]) -> bool:
    """Whether the final diff (from the initial state) makes the gold diff's changes: the same
    rows inserted, deleted and updated, the same columns changed, each value exact except in
    free-text columns (by :func:`text_means`)."""
    for table in set(gold) | set(final):
        want, got = gold.get(table) or {}, final.get(table) or {}
        free = texts.get(table, frozenset())
        if not free:
            if _canonical(want) != _canonical(got):
                return False
            continue
        if _canonical(want.get("deleted", [])) != _canonical(got.get("deleted", [])):
            return False
        if not _rows_mean_same(want.get("inserted", []), got.get("inserted", []), free):
            return False
        updates_want, updates_got = want.get("updated", []), got.get("updated", [])
        if len(updates_want) != len(updates_got):
            return False
        for a, b in zip(updates_want, updates_got, strict=True):
            if a.get("key") != b.get("key") or not _rows_mean_same(
                [a.get("after", {})], [b.get("after", {})], free
            ):
                return False
    return True


def _rows_mean_same(want: list[dict[str, Any]], got: list[dict[str, Any]], free: frozenset[str]) -> bool:
    """Rows pair by position: the same columns, exact values outside ``free``, and the free
    text of a row compared as a whole (a title cut from a description, "...", carries part
    of the same facts; together they carry them all)."""
    if len(want) != len(got):
        return False
    for a, b in zip(want, got, strict=True):
        if a.keys() != b.keys():
            return False
        texts_a: list[str] = []
        texts_b: list[str] = []
        for column, gold in a.items():
            said = b[column]
            if column in free and isinstance(gold, str) and isinstance(said, str):
                texts_a.append(gold)
                texts_b.append(said)
            elif not values_mean_same(gold, said, "exact"):
                return False
        if texts_a and not text_means(" \n".join(texts_a), " \n".join(texts_b)):
            return False
    return True


def _canonical(value: Any) -> Any:
    return json.dumps(value, sort_keys=True, default=str)
