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

:func:`mentions` counts how often a text states a value; :func:`text_means` compares two free
texts; :func:`diffs_mean_same` compares two state diffs column by column, exactly or (for
``compare="text"`` columns) by key facts.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from envfactory_mcp.scoring import words
from envfactory_mcp.spec.models import ColumnSpec, EnvSpec, ToolSpec
from envfactory_mcp.spec.state_words import STATE_WORDS

Kind = Literal["enum", "boolean", "money", "count", "number", "date", "id", "name", "text"]
Phrase = tuple[str, ...]  # stems

# Common words for common states (``spec.state_words``), used for a column that declares no
# words of its own, never for a word a rival value of the same column also has.
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
_NEGATED_PREFIXES = ("non", "in", "un", "il", "ir")
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
_MONEY_ZERO = (
    "free",
    "no charge",
    "no cost",
    "nothing",
    "zero",
    "no fee",
    "not a cent",
    "none",
    "paid in full",
)
_COUNT_ZERO = ("none", "zero", "nothing")
_ID_SHAPE = re.compile(r"^#?[A-Za-z]*[-_]?\d[\w-]*$")
_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$")
_ID_TOKEN = re.compile(r"(?<![\w])#?[a-z]*[-_]?\d[\w-]*", re.IGNORECASE)
# Free text is the same when it keeps at least this share of the gold's content stems (and
# every number and id): a paraphrase keeps most nouns and some verbs and adjectives
# ("yearly check-up" for "annual checkup" keeps one of two), another text keeps few.
TEXT_KEEP = 0.5


@dataclass(frozen=True)
class Value:
    """A gold value and what is needed to recognise it in words."""

    value: Any
    kind: Kind
    phrases: tuple[Phrase, ...] = ()  # enum: its words; boolean: the predicate; text/name: content stems
    rivals: tuple[Phrase, ...] = ()  # enum: the other values' words
    label: Phrase = ()  # stems of the name it is known by (the path's last part)
    year: int = 2026
    binary: bool = False  # enum of two values: "not <the other>" states this one


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
        phrase = words.stems_of(text)
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
    if _ISO_DATE.match(text) or _moment(text, year) is not None:
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


_STOP_STEMS = frozenset(words.stem(w) for w in words.STOPWORDS)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CALENDAR_WORDS = re.compile(
    r"\b(?:" + "|".join(d[:3] + f"(?:{d[3:]})?" for d in _WEEKDAYS) + r"|at|on|am|pm|of)\b\.?", re.IGNORECASE
)


def _moment(text: str, year: int) -> tuple[date, tuple[int, int] | None] | None:
    """A value that is a date, with a clock time or not (``2026-06-18``, ``Fri Jun 19, 8:00
    AM``), as ``(day, (hour, minute) or None)``; None for anything else. An ISO value's time
    of day is not asked for (a timestamp's date is what a person is told)."""
    iso = _ISO_DATE.match(text)
    if iso:
        return date(int(iso[1]), int(iso[2]), int(iso[3])), None
    days = words.dates_in(text, year)
    if len(days) != 1 or len(text) > 40:
        return None
    rest = _CALENDAR_WORDS.sub(" ", words.without_dates(text))
    if re.search(r"[a-z0-9]", rest, re.IGNORECASE):
        return None  # more than a date and a time: free text that holds a date
    times = words.times_in(text)
    return next(iter(days)), (next(iter(times)) if len(times) == 1 else None)


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


# ------------------------------------------------------------------------------ mentions


def clauses(text: str) -> list[str]:
    """``text`` split where a statement ends (see :func:`words.tokens`)."""
    return [c for c in words._SENTENCE_END.split(text) if c.strip()]


def mentions(value: Value, text: str) -> int:
    """How many times ``text`` states ``value``, hedged mentions left out; none at all when
    another clause says the same thing with a rival value (a contradiction)."""
    parts = clauses(text)
    counts = [_in_clause(value, clause) for clause in parts]
    if any(counts) and _contradicted(value, parts, counts):
        return 0
    return sum(counts)


def _contradicted(value: Value, parts: list[str], counts: list[int]) -> bool:
    """Whether a clause that says a rival and not the value reads like a clause that says
    the value ("Your order status is cancelled. Your order status is pending."): two or
    more content words in common, and at least half of the shorter clause's. A clause on
    something else ("only pending orders can be cancelled") shares too few."""
    if value.kind not in ("enum", "boolean", "money", "count"):
        return False
    frames = [_frame(value, clause) for clause in parts]
    stating = [frames[i] for i, n in enumerate(counts) if n]
    for i, clause in enumerate(parts):
        if counts[i] or not _says_rival(value, clause):
            continue
        for frame in stating:
            shared = len(frames[i] & frame)
            if shared >= 2 and shared >= 0.5 * min(len(frames[i]), len(frame)):
                return True
    return False


def _says_rival(value: Value, clause: str) -> bool:
    if value.kind == "enum":
        return bool(_phrase_hits(words.tokens(clause), value.rivals))
    if value.kind == "boolean":
        return _boolean_in(dataclasses.replace(value, value=not value.value), clause) > 0
    return bool(_numbers_at(value, clause)[1])


def _frame(value: Value, clause: str) -> frozenset[str]:
    """The clause's content stems, the value's and its rivals' words and numbers left out."""
    # A boolean's rival is its own predicate negated: its words are the frame.
    said = (
        set()
        if value.kind == "boolean"
        else {s for phrase in (*value.phrases, *value.rivals) for s in phrase}
    )
    return frozenset(
        t.stem
        for t in words.tokens(clause)
        if t.stem not in _STOP_STEMS
        and t.stem not in said
        and not any(c.isdigit() for c in t.word)
        and t.word not in words.NUMBER_WORDS
    )


def _in_clause(value: Value, clause: str) -> int:
    """Mentions of ``value`` in one clause that are not hedged against a rival."""
    if value.kind == "enum":
        toks = words.tokens(clause)
        own = _phrase_hits(toks, value.phrases)
        if value.binary:  # "no longer suspended" says active when there are only the two
            own |= _phrase_hits(toks, value.rivals, negated_only=True)
        # A rival said as a possibility still hedges: "active, though it might be inactive".
        rivals = _phrase_hits(toks, value.rivals, statements_only=False) - own

        def joined(a: int, b: int) -> bool:
            between = toks[a + 1 : b]
            return any(t.word in words.HEDGES for t in between) or _hedge_phrase(
                " ".join(t.word for t in between)
            )

        return len(_unhedged(own, rivals, joined))
    if value.kind == "boolean":
        return _boolean_in(value, clause)
    text = clause.casefold()

    def joined_text(a: int, b: int) -> bool:
        between, before = text[a:b], text[max(0, a - 30) : a]
        return (
            "/" in between
            or bool(_HEDGE_WORD.search(between))
            or _hedge_phrase(between)
            or bool(_BRACKET_WORD.search(before))
        )

    if value.kind in ("money", "count", "number"):
        own_at, rivals_at = _numbers_at(value, clause)
        return len(_unhedged(own_at, rivals_at, joined_text))
    if value.kind == "date":
        gold = _moment(str(value.value), value.year)
        assert gold is not None
        day, time = gold
        said = words.dates_in(clause, day.year)
        said_time = words.times_in(clause)
        found = day in said and (time is None or time in said_time)
        other = bool(said - {day}) or (time is not None and bool(said_time - {time}))
        hedged = other and (bool(_HEDGE_WORD.search(text)) or _hedge_phrase(text))
        return 1 if found and not hedged else 0
    if value.kind == "id":
        pattern = _id_pattern(str(value.value))
        own_ids = {m.start() for m in pattern.finditer(text)}
        rival_ids = {
            m.start() for m in _ID_TOKEN.finditer(text) if not pattern.fullmatch(m.group(0).casefold())
        }
        return len(_unhedged(own_ids, rival_ids - own_ids, joined_text))
    toks = words.tokens(clause)
    wanted = value.phrases[0] if value.phrases else ()
    if not wanted or not all(s in {t.stem for t in toks} for s in wanted):
        return 0
    # "Northland Apothecary or Riverside Drug": the value offered with an alternative.
    at = [i for i, t in enumerate(toks) if t.stem in wanted]
    near = [t.word for t in toks[max(0, at[0] - 2) : at[0]]] + [t.word for t in toks[at[-1] + 1 : at[-1] + 3]]
    return 0 if any(w in words.HEDGES or w in _BRACKETS for w in near) else 1


# Words that open a pair of values: "between $54 and $60", "either 2 or 3".
_BRACKETS = frozenset({"between", "either", "somewhere", "maybe", "possibly", "perhaps"})
_BRACKET_WORD = re.compile(r"\b(?:" + "|".join(sorted(_BRACKETS)) + r")\b")
_HEDGE_WORD = re.compile(r"\b(?:" + "|".join(sorted(words.HEDGES)) + r")\b")


def _hedge_phrase(text: str) -> bool:
    return any(p in text for p in words.HEDGE_PHRASES)


def _unhedged(own: set[int], rivals: set[int], joined: Callable[[int, int], bool]) -> set[int]:
    """The mentions (positions) not joined by a hedge to a neighbouring rival: "cancelled,
    or possibly pending" hedges; "delivered rather than pending or processing" does not
    (the hedge joins two rivals, not the value)."""
    marks = sorted([(p, True) for p in own] + [(p, False) for p in rivals])
    kept: set[int] = set()
    for i, (position, is_own) in enumerate(marks):
        if not is_own:
            continue
        neighbours = [marks[j] for j in (i - 1, i + 1) if 0 <= j < len(marks)]
        if not any(not other and joined(min(position, q), max(position, q)) for q, other in neighbours):
            kept.add(position)
    return kept


def _phrase_hits(
    toks: tuple[words.Token, ...],
    phrases: tuple[Phrase, ...],
    negated_only: bool = False,
    statements_only: bool = True,
) -> set[int]:
    """Where any of ``phrases`` is said as a statement about this object (not negated; or only
    the negated mentions): not an intention or a possibility ("I'll cancel it", "it can be
    cancelled", "to close the ticket") nor a general rule ("only pending orders can be
    cancelled", "a bill pending insurance is not payable", "if it is still pending")."""
    hits: set[int] = set()
    for phrase in phrases:
        for span in words.find_phrase(toks, phrase):
            if statements_only and (_irrealis(toks, span[0]) or _generic(toks, span)):
                continue
            negative = words.negated(toks, span, phrase)
            if negative == negated_only:
                hits.add(span[0])
    return hits


_IRREALIS = frozenset(
    {
        "will",
        "ll",
        "to",
        "can",
        "could",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "cannot",
        "let",
        "please",
    }
)
_CONDITIONS = frozenset({"if", "when", "once", "unless", "whenever"})
_GENERIC_OPENERS = frozenset({"a", "an", "any", "every", "only"})
_COPULAS = frozenset(
    {"is", "are", "was", "were", "been", "has", "have", "had", "now", "shows", "marked", "became"}
)


def _irrealis(toks: tuple[words.Token, ...], start: int) -> bool:
    """A modal or "to" in the two words before (a "be" between allowed): what will, can or
    should happen ("I'll cancel", "can be cancelled", "to close")."""
    clause = toks[start].clause
    before = [t.word for t in toks[max(0, start - 3) : start] if t.clause == clause]
    if before and before[-1] == "be":
        before = before[:-1]
    return bool(before) and before[-1] in _IRREALIS


def _generic(toks: tuple[words.Token, ...], span: tuple[int, int]) -> bool:
    """A mention in a rule or a condition, not a fact: a clause that opens with "if",
    "when" ...; a mention right after "a", "an" or within three words after "only", "any",
    "every" ("a paid bill has nothing to pay", "only due or overdue bills"); a clause that
    opens with "a", "only" ... and says no "is", "has been" ... up to the mention ("a bill
    pending insurance is not payable"; but "an exchange has been requested" is a fact)."""
    clause = toks[span[0]].clause
    upto = [t.word for t in toks[: span[1]] if t.clause == clause]
    if not upto:
        return False
    if upto[0] in _CONDITIONS:
        return True
    before = [t.word for t in toks[max(0, span[0] - 3) : span[0]] if t.clause == clause]
    if {"only", "any", "every"} & set(before):
        return True
    # "a paid bill has nothing to pay", "... and a cancelled one ...": a kind of thing, at the
    # head of a clause; "you have a cancelled order" is a fact.
    head = before[:-1][-1:] if before and before[-1] in ("a", "an") else None
    after = [t.word for t in toks[span[0] : span[1]]]
    if head is not None and (head == [] or head[0] in ("and", "or", "but", "while", "whereas")):
        return not _COPULAS & set(after)
    return upto[0] in _GENERIC_OPENERS and not _COPULAS & set(upto)


def _boolean_in(value: Value, clause: str) -> int:
    toks = words.tokens(clause)
    said: list[bool] = []
    for phrase in value.phrases:
        for start, end in words.find_phrase(toks, phrase):
            after = [t.word for t in toks[end : end + 3] if t.word not in ("is", "are", "was", "set", "to")][
                :1
            ]
            if after and after[0] in ("true", "yes", "false", "no"):  # "eligible: false", "is True"
                said.append(after[0] in ("true", "yes"))
            else:
                said.append(not words.negated(toks, (start, end), phrase, window=4))
    heads = {phrase[0] for phrase in value.phrases if len(phrase) == 1}
    for tok in toks:  # ineligible, unavailable, nonrefundable
        prefix = next((p for p in _NEGATED_PREFIXES if tok.word.startswith(p)), None)
        if prefix is not None and words.stem(tok.word[len(prefix) :]) in heads:
            said.append(False)
    if not said:
        return 0
    normal = words.normal_text(clause)
    if any(t.word in words.HEDGES - {"or", "either"} for t in toks) or any(
        p in normal for p in words.HEDGE_PHRASES
    ):
        return 0  # "you may or may not be eligible" says neither
    wanted = bool(value.value)
    return min(1, said.count(wanted))


def _numbers_at(value: Value, clause: str) -> tuple[set[int], set[int]]:
    """Offsets of the numbers that are the value, and of the others, in one clause."""
    gold = float(value.value)
    tolerance = 0.005 if value.kind == "money" else 1e-9
    own: set[int] = set()
    rivals: set[int] = set()
    for number in words.numbers_in(clause):
        if value.kind == "count" and number.money:
            continue  # "$0.00" is an amount, not how many refills are left
        (own if math.isclose(number.value, gold, abs_tol=tolerance) else rivals).add(number.start)
    if gold == 0 and not own and _zero_in(value, clause):
        own.add(0)
    return own, rivals


def _zero_in(value: Value, clause: str) -> int:
    normal = " ".join(t.word for t in words.tokens(clause))
    said = _MONEY_ZERO if value.kind == "money" else _COUNT_ZERO
    if any(re.search(rf"\b{re.escape(p)}\b", normal) for p in said):
        return 1
    toks = words.tokens(clause)
    label = {s for s in value.label if s not in _STOP_STEMS}
    if value.kind == "money":
        label |= {words.stem(w) for w in ("charge", "fee", "cost", "payment", "balance", "amount", "money")}
    for i, tok in enumerate(toks):  # "no <what it counts>": "no outages", "no checked bags"
        if tok.word in ("no", "not") and any(t.stem in label for t in toks[i + 1 : i + 5]):
            return 1
    return 0


def _id_pattern(value: str) -> re.Pattern[str]:
    chars = [c for c in value.lower() if c.isalnum()]
    body = r"[\s\-_#]?".join(re.escape(c) for c in chars)
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])")


# ------------------------------------------------------------------------------ free text


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
    import json

    return json.dumps(value, sort_keys=True, default=str)
