"""Does what was said (or written) mean the gold value? One home for claims and columns alike.

A gold value has a *kind*, read from the environment's spec where it says (the enum of a
tool's output, the column that holds it) and from the value itself otherwise:

========== ==================================================================================
``enum``    a status word and the like: said by its value, its display name or an accepted word
            (``EnumLabel``), or a common synonym (``GENERIC_WORDS``), in any spelling or
            inflection (``canceled``, ``cancellation``); a negated mention (``not delivered``)
            is not one
``boolean`` said as the predicate of the value's name with the right polarity (``eligible``:
            ``you're not eligible``, ``it isn't``, ``ineligible``; ``true``/``false`` after it)
``money``   an amount, by value to the cent, in any format (``$1,219.80``, ``1219.8 dollars``,
            ``USD 54``); zero also as ``free``, ``no charge``, ``nothing``
``count``   a whole number, in digits or words (``two bags``); zero also as ``none``, ``no <what
            it counts>``
``date``    any common written form (ISO, ``June 18, 2026``, ``18 June``, ``6/18/2026``)
``id``      case and separators ignored (``#W0012345``, ``tkt-003301``)
``text``    free text: by its key facts (every number and id it holds, and most of its content
            words, as stems), not byte for byte
========== ==================================================================================

A mention in a clause that also holds a *rival* (another value of the same kind: another
status of the column, another amount, date or id, the other polarity) next to a hedge word
(``or``, ``maybe``, ``possibly`` ...) is a hedge and says nothing: "cancelled, or possibly
pending" does not state that the order is cancelled.

:func:`value_of` gives a gold value its kind and words; ``said.mentions`` counts how often a
text states it (hedges, intentions, rules and contradictions say nothing); ``free_text``
compares free texts and state diffs (``text_means``, ``diffs_mean_same``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from envfactory_mcp.scoring import words
from envfactory_mcp.scoring.said import Kind, Phrase, Value
from envfactory_mcp.spec.models import ColumnSpec, EnvSpec, ToolSpec
from envfactory_mcp.spec.state_words import STATE_WORDS

# Common words for common states (``spec.state_words``), said beside a column's own words,
# never for a word a rival value of the same column also has.
GENERIC_WORDS = STATE_WORDS
# Predicates of boolean values said another way ("qualifies" for "eligible").
PREDICATE_WORDS: dict[str, tuple[str, ...]] = {
    "eligible": ("qualify", "qualifies", "qualified", "eligibility"),
    "available": ("in stock", "offered"),
    "included": ("covered", "comes with", "includes"),
    "enabled": ("turned on", "switched on", "active"),
    "refundable": ("refund",),
}
_ABILITY = frozenset({"eligible", "allowed", "possible", "permitted", "available"})
_MONEY_WORDS = (
    "amount",
    "price",
    "total",
    "balance",
    "fee",
    "cost",
    "refund",
    "paid",
    "charge",
    "fare",
    "due",
)
_ID_SHAPE = re.compile(r"^#?[A-Za-z]*[-_]?\d[\w-]*$")
_STOP_STEMS = words.STOP_STEMS


@dataclass
class Vocabulary:
    """What the spec says about words: per enum column (its name and its values' phrases)."""

    columns: list[tuple[str, dict[str, tuple[Phrase, ...]]]] = field(default_factory=list)

    def holds(self, value: str) -> bool:
        return any(value in table for _, table in self.columns)

    def phrases_for(
        self, value: str, enum: Iterable[Any] | None, name: str = ""
    ) -> tuple[tuple[Phrase, ...], tuple[Phrase, ...], int]:
        """``(phrases of value, phrases of its rivals, how many values)`` in the column of
        that ``enum`` (or, without one, any column holding ``value``), preferring a column
        called ``name`` where several fit."""
        wanted = set(str(v) for v in enum) if enum else None
        fits = [
            (column, table)
            for column, table in self.columns
            if (set(table) == wanted if wanted is not None else value in table)
        ]
        table = next((t for c, t in fits if c == name), fits[0][1] if fits else None)
        if table is None:
            values = {value: _default_phrases(value, None)}
            values.update({v: _default_phrases(v, None) for v in sorted(wanted or ())})
            table = _without_shared(values)
        own = table.get(value, _default_phrases(value, None))
        rivals = tuple(p for v, ps in table.items() if v != value for p in ps)
        return own, rivals, len(table)


def vocabulary(spec: EnvSpec | None) -> Vocabulary:
    """The spec's enum columns as phrases (cached per spec object)."""
    if spec is None:
        return _EMPTY
    cached = _VOCABULARIES.get(id(spec))
    if cached is not None and cached[0] is spec:
        return cached[1]
    vocab = Vocabulary()
    for table in spec.tables:
        for column in table.columns:
            if column.enum and all(isinstance(v, str) for v in column.enum):
                values = {str(v): _default_phrases(str(v), column) for v in column.enum}
                vocab.columns.append((column.name, _without_shared(values)))
    if len(_VOCABULARIES) > 64:
        _VOCABULARIES.clear()
    _VOCABULARIES[id(spec)] = (spec, vocab)
    return vocab


_EMPTY = Vocabulary()
_VOCABULARIES: dict[int, tuple[EnvSpec, Vocabulary]] = {}


def _default_phrases(value: str, column: ColumnSpec | None) -> tuple[Phrase, ...]:
    said = [value, value.replace("_", " ")]
    label = column.enum_labels.get(value) if column is not None else None
    if label is not None:
        said += [label.display, *label.words]
    said += GENERIC_WORDS.get(value, ())
    said += _compound_words(value)
    seen: list[Phrase] = []
    for text in said:
        phrase = words.participle(words.stems_of(text), text)
        if phrase and phrase not in seen:
            seen.append(phrase)
    return tuple(seen)


def _compound_words(value: str) -> list[str]:
    """How people say a state named ``<thing>_requested`` / ``_pending`` / ``_in_progress``:
    "awaiting a return", "return pending", "return in progress", "return request"."""
    for suffix in ("_requested", "_pending", "_in_progress", "_scheduled"):
        if value.endswith(suffix) and value != suffix.strip("_"):
            thing = value[: -len(suffix)].replace("_", " ")
            return [
                f"awaiting {thing}",
                f"waiting for {thing}",
                f"{thing} pending",
                f"{thing} in progress",
                f"{thing} request",
                f"{thing} started",
                f"{thing} submitted",
                f"set for {thing}",
                f"{thing} arranged",
            ]
    return []


def _without_shared(values: dict[str, tuple[Phrase, ...]]) -> dict[str, tuple[Phrase, ...]]:
    """Each value's phrases less any another value of the column also has (ambiguous)."""
    counts: dict[Phrase, int] = {}
    for phrases in values.values():
        for p in set(phrases):
            counts[p] = counts.get(p, 0) + 1
    return {v: tuple(p for p in ps if counts[p] == 1) or ps[:1] for v, ps in values.items()}


# ------------------------------------------------------------------------------ kinds


def value_of(
    value: Any, path: str, spec: EnvSpec | None = None, tool: ToolSpec | str | None = None, year: int = 2026
) -> Value:
    """The gold ``value`` found at output ``path`` of ``tool``, with its kind and words."""
    leaf = path.rsplit(".", 1)[-1].replace("[]", "")
    label = words.stems_of(leaf)
    if isinstance(value, bool):
        return Value(value, "boolean", phrases=_predicate(leaf), label=label, year=year)
    if isinstance(value, int | float):
        money = isinstance(value, float) or any(w in leaf for w in _MONEY_WORDS)
        return Value(value, "money" if money else "count", label=label, year=year)
    text = str(value)
    if words.ISO_DATE.match(text) or words.moment(text, year) is not None:
        return Value(text, "date", label=label, year=year)
    schema = _output_schema(spec, tool, path)
    enum = schema.get("enum") if isinstance(schema, dict) else None
    known = vocabulary(spec)
    in_column = known.holds(text)
    word_like = re.fullmatch(r"[a-z]+(?:_[a-z]+)*", text) is not None and len(text.split("_")) <= 3
    if enum or in_column or word_like:
        own, rivals, size = known.phrases_for(text, enum, leaf)
        return Value(text, "enum", phrases=own, rivals=rivals, label=label, year=year, binary=size == 2)
    if leaf.endswith("id") or (_ID_SHAPE.match(text) and any(c.isdigit() for c in text)):
        return Value(text, "id", label=label, year=year)
    content = tuple(s for s in words.stems_of(text) if s not in _STOP_STEMS)
    kind: Kind = "name" if leaf in ("name", "full_name") or leaf.endswith("_name") else "text"
    return Value(text, kind, phrases=(content,), label=label, year=year)


def _predicate(leaf: str) -> tuple[Phrase, ...]:
    parts = [p for p in leaf.split("_") if p not in ("is", "has", "can", "currently", "now")]
    head = parts[-1] if parts else leaf
    said = [head, *PREDICATE_WORDS.get(head, ())]
    if len(parts) > 1:
        said.append(" ".join(parts))
        if head in _ABILITY:  # upgrade_eligible: "you can upgrade", "you're able to upgrade"
            action = " ".join(parts[:-1])
            said += [f"can {action}", f"able to {action}", f"allowed to {action}"]
    return tuple(dict.fromkeys(words.stems_of(s) for s in said if s))


def _output_schema(spec: EnvSpec | None, tool: ToolSpec | str | None, path: str) -> Any:
    if spec is None or tool is None:
        return None
    found = spec.tool(tool) if isinstance(tool, str) else tool
    node: Any = found.output_schema if found is not None else None
    for part in path.split("."):
        name, through_list = part.removesuffix("[]"), part.endswith("[]")
        node = node.get("properties", {}).get(name) if isinstance(node, dict) else None
        if through_list and isinstance(node, dict):
            node = node.get("items")
    return node
