"""What a text states about one value: the clause-by-clause reading behind
:func:`envfactory_mcp.scoring.meaning` (which decides a value's kind and words).

:func:`mentions` counts the statements of a :class:`Value` in a text, clause by clause: by its
kind (an enum's phrases, a boolean's predicate with its polarity, numbers, dates with their
time, ids, the content words of a name or a text), leaving out what states nothing:

* a negated mention ("not delivered"), and for a two-valued enum "no longer suspended" says
  the other value;
* an intention or a possibility ("I'll cancel it", "it can be cancelled") and a rule or a
  condition ("only pending orders can be cancelled", "a paid bill has nothing to pay", "if
  it is cancelled");
* a hedge: the value joined by ``or``, ``maybe``, ``possibly`` ... (or bracketed by
  ``between``, ``either``) to a neighbouring rival of its kind ("cancelled, or possibly
  pending", "somewhere between $54 and $60", "active, though it might be inactive");
* a contradiction: another clause that says the same thing with a rival value ("Your order
  status is cancelled. Your order status is pending.") voids every mention.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from envfactory_mcp.scoring import words

Kind = Literal["enum", "boolean", "money", "count", "number", "date", "id", "name", "text"]
Phrase = tuple[str, ...]  # stems

_NEGATED_PREFIXES = ("non", "in", "un", "il", "ir")
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
_STOP_STEMS = words.STOP_STEMS
_ID_TOKEN = words.ID_TOKEN


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
    # Other values the same answer is asked to tell (another order's refund): never rivals.
    allowed: tuple[Any, ...] = ()


def mentions(value: Value, text: str) -> int:
    """How many times ``text`` states ``value``; none at all when the text hedges it against
    a rival anywhere, or another clause says the same thing with a rival value (a
    contradiction): an answer giving conflicting values for the fact does not state it."""
    try:
        return _remembered(type(value.value).__qualname__, value, text)
    except TypeError:  # a value that cannot be a key (a list, a mapping)
        return _mentions(value, text)


# Remembered: a simulated user checks the claims after every turn and the score once more
# at the end, each time over every reply so far (the same reply, the same value). The
# value's type is part of the key: 1 and 1.0 are equal keys, not the same money.
@functools.lru_cache(maxsize=8192)
def _remembered(_type: str, value: Value, text: str) -> int:
    return _mentions(value, text)


def _mentions(value: Value, text: str) -> int:
    parts = words.clauses(text)
    read = [_in_clause(value, clause) for clause in parts]
    counts = [n for n, _ in read]
    if any(hedged for _, hedged in read):
        return 0  # the value given with a conflicting one ("suspended, or possibly active")
    if any(counts) and _contradicted(value, parts, counts):
        return 0
    return sum(counts)


def _contradicted(value: Value, parts: list[str], counts: list[int]) -> bool:
    """Whether a clause that says a rival and not the value reads like a clause that says
    the value ("Your order status is cancelled. Your order status is pending."): it says
    nothing but the rival ("It is active."), or has two or more content words in common,
    at least half of the shorter clause's; for an amount or a count, a clause naming what it is ("the late fee is
    $25.00") with another number. A clause on something else ("your other line is
    active", "only pending orders can be cancelled"), or naming another object by its id
    than the clause stating the value ("order #W2 is pending"), is no contradiction."""
    if value.kind not in ("enum", "boolean", "money", "count"):
        return False
    frames = [_frame(value, clause) for clause in parts]
    stating = [frames[i] for i, n in enumerate(counts) if n]
    label = {s for s in value.label if s not in _STOP_STEMS}
    for i, clause in enumerate(parts):
        if counts[i] or not _says_rival(value, clause) or _exclamation(value, clause):
            continue
        if value.kind in ("money", "count") and label and label <= {t.stem for t in words.tokens(clause)}:
            return True  # "the late fee is $25.00": the asked amount, said otherwise
        for frame in stating:
            if _other_object(frames[i], frame):
                continue  # "rx number RX1 is discontinued ... rx number RX2 is active"
            shared = len(frames[i] & frame)
            if not frames[i] or (shared >= 2 and shared >= 0.5 * min(len(frames[i]), len(frame))):
                return True  # "It is active." beside "it is not active": nothing else said
    return False


def _other_object(rival: frozenset[str], stating: frozenset[str]) -> bool:
    """Whether two clauses name different objects by their ids ("w1", "rx7085835"; stems
    holding a digit, plain numbers are not in a frame): each names one and none is
    shared. Two clauses worded alike about two objects say two things, not one thing
    twice ("Your rx number RX1 has the status discontinued. Your rx number RX2 is marked
    active.")."""
    ids = {s for s in rival if any(c.isdigit() for c in s)}
    own = {s for s in stating if any(c.isdigit() for c in s)}
    return bool(ids) and bool(own) and ids.isdisjoint(own)


# Words an exclamation about the request may carry beside its rival word ("All done!",
# "Okay, that's complete now": it says how the request went, not what state a thing is in).
_EXCLAMATION = "all now ok okay right great good so perfect thanks thank you and well alright there we go everything just s is"
_EXCLAMATION_WORDS = frozenset(words.stem(w) for w in _EXCLAMATION.split())
_REFERRING = frozenset({"it", "its", "this", "these", "they", "them", "he", "she", "which"})


def _exclamation(value: Value, clause: str) -> bool:
    """Whether ``clause`` is an exclamation about the request as a whole ("All done:",
    "Complete!", "Everything's finished."): nothing but a rival enum word and filler, with no
    subject it could be about. Such a lead states no state of the thing, so it contradicts
    nothing ("All done: the appointment is cancelled." says cancelled; "It is completed."
    beside it still contradicts)."""
    if value.kind != "enum":
        return False
    toks = words.tokens(clause)
    rival = {s.split(words.PARTICIPLE)[0] for phrase in value.rivals for s in phrase}
    return bool(toks) and all(
        t.word not in _REFERRING
        and (t.stem in _EXCLAMATION_WORDS or t.stem.split(words.PARTICIPLE)[0] in rival)
        for t in toks
    )


def _says_rival(value: Value, clause: str) -> bool:
    if value.kind == "enum":
        return bool(_phrase_hits(words.tokens(clause), value.rivals))
    if value.kind == "boolean":
        return _boolean_in(dataclasses.replace(value, value=not value.value), clause)[0] > 0
    return bool(_numbers_at(value, clause)[1])


def _frame(value: Value, clause: str) -> frozenset[str]:
    """The clause's content stems and ids ("w1"), the value's and its rivals' words and
    plain numbers left out."""
    # A boolean's rival is its own predicate negated: its words are the frame.
    said = (
        set()
        if value.kind == "boolean"
        else {s.split(words.PARTICIPLE)[0] for phrase in (*value.phrases, *value.rivals) for s in phrase}
    )
    return frozenset(
        t.stem
        for t in words.tokens(clause)
        if t.stem not in _STOP_STEMS
        and t.stem not in said
        and not t.word.replace(".", "").isdigit()
        and t.word not in words.NUMBER_WORDS
    )


def _in_clause(value: Value, clause: str) -> tuple[int, bool]:
    """``(mentions of value in one clause not hedged against a rival, whether one was)``."""
    if value.kind == "enum":
        toks = words.tokens(clause)
        own = _phrase_hits(toks, value.phrases)
        if value.binary:  # "no longer suspended" says active when there are only the two
            own |= _phrase_hits(toks, value.rivals, negated_only=True)
        # A rival said as a possibility still hedges: "active, though it might be inactive".
        rivals = _phrase_hits(toks, value.rivals, statements_only=False) - own
        # What the clause says a thing *is* wins over a word used to name something else:
        # "the bill is now pending insurance and the balance due is $192.75" is not "due".
        said_is = {i for i in own if _predicate_at(toks, i)}
        if not said_is and any(_predicate_at(toks, i) for i in _phrase_hits(toks, value.rivals)):
            own = set()

        def joined(a: int, b: int) -> bool:
            between = toks[a + 1 : b]
            return any(t.word in words.HEDGES for t in between) or _hedge_phrase(
                " ".join(t.word for t in between)
            )

        kept = {i for i in _unhedged(own, rivals, joined) if not _hedged_after(toks, i)}
        return len(kept), len(kept) < len(own)
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
        kept = _unhedged(own_at, rivals_at, joined_text)
        return len(kept), len(kept) < len(own_at)
    if value.kind == "date":
        gold = words.moment(str(value.value), value.year)
        assert gold is not None
        day, time = gold
        said = words.dates_in(clause, day.year)
        said_time = words.times_in(clause)
        found = day in said and (time is None or time in said_time)
        other = bool(said - {day}) or (time is not None and bool(said_time - {time}))
        hedged = other and (bool(_HEDGE_WORD.search(text)) or _hedge_phrase(text))
        return (1 if found and not hedged else 0), found and hedged
    if value.kind == "id":
        pattern = _id_pattern(str(value.value))
        own_ids = {m.start() for m in pattern.finditer(text)}
        allowed = [_id_pattern(str(a)) for a in value.allowed]
        rival_ids = {
            m.start()
            for m in _ID_TOKEN.finditer(text)
            if not pattern.fullmatch(m.group(0).casefold())
            and not any(a.fullmatch(m.group(0).casefold()) for a in allowed)
        }
        kept = _unhedged(own_ids, rival_ids - own_ids, joined_text)
        return len(kept), len(kept) < len(own_ids)
    toks = words.tokens(clause)
    wanted = value.phrases[0] if value.phrases else ()
    if not wanted or not all(s in {t.stem for t in toks} for s in wanted):
        return 0, False
    # "Northland Apothecary or Riverside Drug": the value offered with an alternative.
    at = [i for i, t in enumerate(toks) if t.stem in wanted]
    near = [t.word for t in toks[max(0, at[0] - 2) : at[0]]] + [t.word for t in toks[at[-1] + 1 : at[-1] + 3]]
    hedged = any(w in words.HEDGES or w in _BRACKETS for w in near)
    return (0, True) if hedged else (1, False)


# Words that open a pair of values: "between $54 and $60", "either 2 or 3".
_BRACKETS = frozenset({"between", "either", "somewhere", "maybe", "possibly", "perhaps"})
_BRACKET_WORD = re.compile(r"\b(?:" + "|".join(sorted(_BRACKETS)) + r")\b")
_HEDGE_WORD = re.compile(r"\b(?:" + "|".join(sorted(words.HEDGES)) + r")\b")


_HEDGE_AFTER = (
    "or maybe", "or possibly", "or perhaps", "though it might", "but it might", "though it may",
    "or it could", "or it might", "i can not tell", "can not tell for sure", "not sure",
)  # fmt: skip


def _hedged_after(toks: tuple[words.Token, ...], start: int) -> bool:
    """The mention is taken back in the next words ("frozen (or maybe open)", "pending,
    though it might be cancelled", "paid, I can't tell for sure"), or offered as a guess
    ("or maybe cancelled", "possibly pending")."""
    clause = toks[start].clause
    after = " ".join(t.word for t in toks[start + 1 : start + 8] if t.clause == clause)
    before = {t.word for t in toks[max(0, start - 2) : start] if t.clause == clause}
    return any(phrase in after for phrase in _HEDGE_AFTER) or bool(before & _GUESSES)


_GUESSES = frozenset({"maybe", "possibly", "perhaps", "probably"})


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
    present = words.stems_in(toks).keys()
    for phrase in phrases:
        if not present >= words.phrase_base_set(phrase):
            continue  # most phrases share no word with the clause
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


def _predicate_at(toks: tuple[words.Token, ...], start: int) -> bool:
    """The mention is what something is said to be: "is", "was", "has been", "now" ... in
    the two words before it ("the order is now cancelled", "it has been delivered")."""
    clause = toks[start].clause
    before = [t.word for t in toks[max(0, start - 2) : start] if t.clause == clause]
    return bool(_COPULAS & set(before))


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
    within = [t.word for t in toks[span[0] : span[1]]]
    if head is not None and (head == [] or head[0] in ("and", "or", "but", "while", "whereas")):
        return not _COPULAS & set(within)
    # A clause opening with "a", "only" ... states a rule unless the mention is its predicate
    # ("an exchange has been requested").
    return upto[0] in _GENERIC_OPENERS and not (_COPULAS & set(within) or _predicate_at(toks, span[0]))


def _boolean_in(value: Value, clause: str) -> tuple[int, bool]:
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
        return 0, False
    normal = words.normal_text(clause)
    if any(t.word in words.HEDGES - {"or", "either"} for t in toks) or any(
        p in normal for p in words.HEDGE_PHRASES
    ):
        return 0, True  # "you may or may not be eligible" says neither
    wanted = bool(value.value)
    return min(1, said.count(wanted)), False


def _numbers_at(value: Value, clause: str) -> tuple[set[int], set[int]]:
    """Offsets of the numbers that are the value, and of the others, in one clause."""
    gold = float(value.value)
    tolerance = 0.005 if value.kind == "money" else 1e-9
    own: set[int] = set()
    rivals: set[int] = set()
    for number in words.numbers_in(clause):
        if value.kind == "count" and number.money:
            continue  # "$0.00" is an amount, not how many refills are left
        if value.kind == "money" and gold == 0 and number.value == 0 and not number.money:
            continue  # a bare "0" is a count ("0 refills left"); no amount is "$0" or "no fee"
        if math.isclose(number.value, gold, abs_tol=tolerance):
            own.add(number.start)
        elif not any(
            isinstance(a, int | float) and math.isclose(number.value, float(a), abs_tol=tolerance)
            for a in value.allowed
        ):
            rivals.add(number.start)
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
