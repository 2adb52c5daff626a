"""The words of a reply, read the way a person reads them: tokens, stems, numbers and dates.

Scoring compares what an agent said with a gold value by meaning (``scoring/meaning.py``);
this module is the language underneath, pure and deterministic:

* :func:`tokens` splits a text into lower-case word tokens, each with the sentence it
  belongs to, contractions opened (``isn't`` → ``is not``) and ``_`` read as a space;
* :func:`stem` folds spelling and inflection (``cancelled``, ``canceled``,
  ``cancellation`` → ``cancel``; ``colour`` → ``color``), so a phrase matches its
  variants; it is a light suffix stripper, not a dictionary, applied to both sides alike;
* :func:`numbers_in` reads amounts and counts written as digits (``$1,219.80``,
  ``USD 54``, ``54.00 dollars``) or words (``two``, ``twenty-five``, ``a hundred``);
* :func:`dates_in` reads dates in the common written forms (ISO, ``6/18/2026``,
  ``June 18, 2026``, ``18 June 2026``, ``Thursday, June 18``: a date without its year takes
  the year it is compared against).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date

# Negations that flip what follows within a few words ("not", from "isn't" too).
NEGATIONS = frozenset({"not", "no", "never", "nor", "without", "neither", "non"})
# Words that make a sentence hold a value loosely: two values in such a sentence are a
# hedge ("cancelled, or possibly pending"), not a statement of one of them.
HEDGES = frozenset(
    {"or", "either", "maybe", "possibly", "perhaps", "might", "unsure", "uncertain", "unclear", "probably"}
)
HEDGE_PHRASES = (
    "not sure", "may be", "could be", "can not tell", "cannot tell", "hard to say", "i think",
    "may or may not", "might or might not", "or not",
)  # fmt: skip
# Not content: dropped when a free text is reduced to its key facts.
STOPWORDS = frozenset(
    """a an the and or but if then so of to in on at by for from with within without into onto over under about as is are was were be been being am do does did has have had having
    it its it's this that these those there here i me my we our you your he she his her they them their very really just even also too still yet all any some each every can could would should
    will shall may might must than up down out off again once now please thanks thank hi hello dear since while when where which who whom what how why not no cannot s re ll ve d m""".split()  # noqa: SIM905
)
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_SCALES = {"hundred": 100, "thousand": 1000}
NUMBER_WORDS = frozenset({*_UNITS, *_TENS, *_SCALES})
# British spellings folded to American before stemming (whole-word endings).
_BRITISH = (
    (re.compile(r"(?<=[a-z]{3})our$"), "or"),
    (re.compile(r"(?<=[a-z]{3})is(e|ed|es|ing|ation)$"), r"iz\1"),
)
_SUFFIXES = (
    "ations", "ation", "ments", "ment", "nesses", "ness", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly",
)  # fmt: skip
_VOWELS = frozenset("aeiou")
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
_CONTRACTIONS = (
    (re.compile(r"\bcan['\u2019]t\b"), "can not"),
    (re.compile(r"\bwon['\u2019]t\b"), "will not"),
    (re.compile(r"\b(\w+)n['\u2019]t\b"), r"\1 not"),
    (re.compile(r"['\u2019]s\b"), " s"),
    (re.compile(r"['\u2019](re|ve|ll|d|m)\b"), r" \1"),
)
# A clause ends at . ! ? ; a line break, a dash between spaces, or a colon that opens a
# statement of five words or more ("sorry: a card already reported lost cannot be ...",
# but not "Status: cancelled" nor "eligible: false").
_SENTENCE_END = re.compile(r"[.!?;\n]+(?:\s|$)|\s[-\u2013\u2014]\s|:\s+(?=(?:[^\s.!?;:]+\s+){4})")


@dataclass(frozen=True)
class Token:
    """One word of a text: its lower-case form, its stem and the clause it is in."""

    word: str
    stem: str
    clause: int


@functools.lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """The word with spelling and inflection folded (applied alike to gold and reply)."""
    w = word.casefold()
    if not w.isalpha() or len(w) <= 3:
        return w
    for pattern, repl in _BRITISH:
        w = pattern.sub(repl, w)
    for suffix in _SUFFIXES:  # longest first, one of them
        if suffix == "s" and w.endswith(("ss", "us", "is")):
            break
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in _VOWELS:
        w = w[:-1]
    return w


def normal_text(text: str) -> str:
    """Lower case, ``_`` as a space, contractions opened, typographic quotes plain."""
    text = text.casefold().replace("_", " ").replace("\u2019", "'")
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return text


def clauses(text: str) -> list[str]:
    """``text`` split where a statement ends (see :data:`_SENTENCE_END`), empty parts left out."""
    return [c for c in _SENTENCE_END.split(text) if c.strip()]


@functools.lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[Token, ...]:
    """The words of ``text`` with their stems and clause numbers (a clause ends at ``.``,
    ``!``, ``?``, ``;``, a line break or a dash between spaces)."""
    out: list[Token] = []
    for clause, part in enumerate(_SENTENCE_END.split(normal_text(text))):
        for match in _TOKEN.finditer(part):
            word = match.group(0)
            out.append(Token(word, stem(word), clause))
    return tuple(out)


def stems_of(text: str) -> tuple[str, ...]:
    """The stems of a phrase, in order."""
    return tuple(t.stem for t in tokens(text))


def find_phrase(words: tuple[Token, ...], phrase: tuple[str, ...], spread: int = 4) -> list[tuple[int, int]]:
    """``(start, end)`` spans where the stems of ``phrase`` occur in ``words`` within one
    clause: in a row, or (a phrase of several words) all of them within ``len(phrase) +
    spread`` words in any order ("an exchange has been requested" for "exchange requested").
    An element marked ``PARTICIPLE`` (``schedul+ed``) takes only a participle or its noun
    ("scheduled", "cancellation"), not the bare word ("the schedule", "I'll cancel")."""
    n = len(phrase)
    index = stems_in(words)
    bases = phrase_bases(phrase)
    if not n or any(b not in index for b in bases):
        return []
    spans = [
        (i, i + n)
        for i in index[bases[0]]
        if i + n <= len(words)
        and all(_fits(words[i + j], phrase[j]) for j in range(n))
        and words[i].clause == words[i + n - 1].clause
    ]
    if spans or n == 1:
        return spans
    wanted = set(phrase)
    for i in sorted(p for b in set(bases) for p in index[b]):
        first = words[i]
        seen: set[str] = set()
        for j in range(i, min(len(words), i + n + spread)):
            if words[j].clause != first.clause:
                break
            seen |= {element for element in wanted if _fits(words[j], element)}
            if wanted <= seen:
                return [(i, j + 1)]
    return []


PARTICIPLE = "+"


@functools.lru_cache(maxsize=16384)
@functools.lru_cache(maxsize=65536)
def phrase_bases(phrase: tuple[str, ...]) -> tuple[str, ...]:
    """The stems of a phrase's elements, participle marks dropped (remembered: scoring asks
    for every phrase of a vocabulary in every clause)."""
    return tuple(element.split(PARTICIPLE)[0] for element in phrase)


@functools.lru_cache(maxsize=65536)
def phrase_base_set(phrase: tuple[str, ...]) -> frozenset[str]:
    """``phrase_bases`` as a set: a clause holds the phrase only if its stems include these."""
    return frozenset(phrase_bases(phrase))


_PARTICIPLE_ENDINGS = ("ed", "en", "ation", "ations", "ment")


def participle(phrase: tuple[str, ...], text: str) -> tuple[str, ...]:
    """``phrase`` (the stems of ``text``) with a one-word participle marked (see
    :func:`find_phrase`): "scheduled" must not be found in "the schedule"."""
    if len(phrase) == 1 and text.strip().casefold().endswith("ed"):
        return (phrase[0] + PARTICIPLE,)
    return phrase


def _fits(token: Token, element: str) -> bool:
    base, marked, _ = element.partition(PARTICIPLE)
    return token.stem == base and (not marked or token.word.endswith(_PARTICIPLE_ENDINGS))


_INDEXES: dict[int, tuple[tuple[Token, ...], dict[str, list[int]]]] = {}


def stems_in(words: tuple[Token, ...]) -> dict[str, list[int]]:
    """Where each stem occurs (remembered for the cached token tuples of :func:`tokens`)."""
    known = _INDEXES.get(id(words))
    if known is not None and known[0] is words:
        return known[1]
    index: dict[str, list[int]] = {}
    for i, token in enumerate(words):
        index.setdefault(token.stem, []).append(i)
    if len(_INDEXES) > 8192:
        _INDEXES.clear()
    _INDEXES[id(words)] = (words, index)
    return index


def negated(
    words: tuple[Token, ...], span: tuple[int, int], phrase: tuple[str, ...] = (), window: int = 3
) -> bool:
    """Whether a negation comes in the ``window`` words before the span, or inside it
    without being part of the phrase ("not delivered", "is not yet cancelled", "no longer
    pending", "can not upgrade" for "can upgrade"), within its clause."""
    start, end = span
    clause = words[start].clause
    for i in range(max(0, start - window), end):
        if words[i].clause == clause and words[i].word in NEGATIONS and words[i].stem not in phrase:
            return True
    return False


# ------------------------------------------------------------------------------ numbers

_CURRENCY = re.compile(r"\s*(?:usd|dollars?|bucks)\b")
_AMOUNT = re.compile(
    r"(?<![\w.])(?:-\s?)?(?:usd\s?|us\$\s?|\$\s?)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\d|[.,]\d)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Number:
    """A number said in a text: its value, its clause and where it starts in that clause."""

    value: float
    clause: int
    start: int = 0
    money: bool = False  # written as an amount: "$", "USD", "dollars" or two decimals


def numbers_in(text: str) -> list[Number]:
    """Every number in ``text``: digits (``$``, ``USD``, thousands separators, decimals, a
    unit right after: ``10.5GB``) and number words (``two``, ``twenty-five``, ``one hundred
    and five``, ``a single``); dates are left out."""
    found: list[Number] = []
    parts = _SENTENCE_END.split(without_dates(text).casefold())
    for clause, part in enumerate(parts):
        for match in _AMOUNT.finditer(part):
            digits = match.group(1).replace(",", "") + (match.group(2) or "")
            sign = -1.0 if match.group(0).lstrip().startswith("-") else 1.0
            after = part[match.end() : match.end() + 12]
            money = bool(
                re.search(r"usd|\$", match.group(0))
                or len(match.group(2) or "") == 3
                or _CURRENCY.match(after)
            )
            found.append(Number(sign * float(digits), clause, match.start(), money))
        found.extend(Number(v, clause, start) for v, start in _word_numbers(part))
    return found


def _word_numbers(text: str) -> list[tuple[float, int]]:
    """``(value, start)`` of each number written in words."""
    found = list(re.finditer(r"[a-z]+", text.replace("-", " ")))
    values: list[tuple[float, int]] = []
    current: int | None = None
    total, begun = 0, 0
    scaled = False  # "and" joins only after a scale: "one hundred and five"
    for i, match in enumerate([*found, None]):
        word = match.group(0) if match else ""
        previous = found[i - 1].group(0) if i else ""
        following = found[i + 1].group(0) if match and i + 1 < len(found) else ""
        if word == "one" and current is None and _pronoun_one(previous, following):
            word = ""  # "an active one still has refills": a pronoun, not a count
        if word in _UNITS or word in _TENS or (word == "single" and previous == "a"):
            if current is None:
                begun = found[i - 1].start() if word == "single" else match.start()  # type: ignore[union-attr]
            current = (current or 0) + _UNITS.get(word, 0) + _TENS.get(word, 0) + (word == "single")
        elif word in _SCALES and (current is not None or previous == "a"):
            if current is None:
                begun = found[i - 1].start()
            total += max(current or 0, 1) * _SCALES[word]
            current, scaled = 0, True
        elif word == "and" and scaled:
            continue
        else:
            if current is not None:
                values.append((float(total + current), begun))
            current, total, scaled = None, 0, False
    return values


def _pronoun_one(previous: str, following: str) -> bool:
    """Whether "one" stands for a thing ("an active one still has", "this one is") rather
    than counting ("one bag", "only one")."""
    if previous in ("only", "just", "exactly", "least", "most"):
        return False
    return previous in (
        "a",
        "an",
        "the",
        "this",
        "that",
        "each",
        "every",
        "any",
        "which",
        "another",
        "no",
    ) or (not following or following in STOPWORDS)


# ------------------------------------------------------------------------------ dates

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO = re.compile(r"\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:t[\d:.]+z?)?\b", re.IGNORECASE)
_US = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?\b")
_MDY = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?\b", re.IGNORECASE)
_DMY = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH})\.?(?:,?\s+(\d{{4}}))?\b", re.IGNORECASE
)


def dates_in(text: str, year: int) -> set[date]:
    """Every date written in ``text``; one written without a year takes ``year``."""
    found: set[date] = set()

    def add(y: str | int | None, m: str | int, d: str | int) -> None:
        y = year if not y else int(y)
        y = y + 2000 if y < 100 else y
        try:
            found.add(date(int(y), int(m), int(d)))
        except ValueError:
            pass

    for y, m, d in _ISO.findall(text):
        add(y, m, d)
    for m, d, y in _US.findall(_ISO.sub(" ", text)):
        add(y or None, m, d)
    for mon, d, y in _MDY.findall(text):
        add(y or None, _MONTHS[mon.lower()], d)
    for d, mon, y in _DMY.findall(text):
        add(y or None, _MONTHS[mon.lower()], d)
    return found


_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?|\b(\d{1,2}):(\d{2})\b", re.IGNORECASE)
_NAMED_TIMES = {"noon": (12, 0), "midday": (12, 0), "midnight": (0, 0)}


def times_in(text: str) -> set[tuple[int, int]]:
    """Every clock time in ``text`` as ``(hour, minute)``, 24-hour: ``8:00 AM``, ``8am``,
    ``8 a.m.``, ``20:00``, ``noon``."""
    found: set[tuple[int, int]] = set()
    for match in _CLOCK.finditer(text):
        if match.group(3):
            hour, minute = int(match.group(1)) % 12, int(match.group(2) or 0)
            hour += 12 if match.group(3).lower() == "p" else 0
        else:
            hour, minute = int(match.group(4)), int(match.group(5))
        if hour < 24 and minute < 60:
            found.add((hour, minute))
    lowered = text.casefold()
    found |= {t for name, t in _NAMED_TIMES.items() if re.search(rf"\b{name}\b", lowered)}
    return found


def without_dates(text: str) -> str:
    """``text`` with every written date blanked, its length kept (so its numbers are not
    read as amounts, and what follows keeps its offsets)."""
    for pattern in (_ISO, _MDY, _DMY, re.compile(r"\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"), _CLOCK):
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


# ------------------------------------------------------------------------------ values

ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$")
# A token that names a thing by a code: letters, maybe a separator, then a digit ("#W0012345",
# "TKT-003301", "user_000042").
ID_TOKEN = re.compile(r"(?<![\w])#?[a-z]*[-_]?\d[\w-]*", re.IGNORECASE)
STOP_STEMS = frozenset(stem(w) for w in STOPWORDS)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_CALENDAR_WORDS = re.compile(
    r"\b(?:" + "|".join(d[:3] + f"(?:{d[3:]})?" for d in _WEEKDAYS) + r"|at|on|am|pm|of)\b\.?", re.IGNORECASE
)


def moment(text: str, year: int) -> tuple[date, tuple[int, int] | None] | None:
    """A value that is a date, with a clock time or not (``2026-06-18``, ``Fri Jun 19, 8:00
    AM``), as ``(day, (hour, minute) or None)``; None for anything else. An ISO value's time
    of day is not asked for (a timestamp's date is what a person is told)."""
    iso = ISO_DATE.match(text)
    if iso:
        return date(int(iso[1]), int(iso[2]), int(iso[3])), None
    days = dates_in(text, year)
    if len(days) != 1 or len(text) > 40:
        return None
    rest = _CALENDAR_WORDS.sub(" ", without_dates(text))
    if re.search(r"[a-z0-9]", rest, re.IGNORECASE):
        return None  # more than a date and a time: free text that holds a date
    times = times_in(text)
    return next(iter(days)), (next(iter(times)) if len(times) == 1 else None)
