"""How a set of user texts reads: the figures issue 26 holds requests and evaluation prompts to.

* ``stock_sentence_share``: the share of sentences (digits masked, case folded) that recur
  in 3% or more of the tasks (tau2-bench's human-written tasks: 2.2%);
* ``snake_case_tokens``: generator words such as ``broken_binding`` (emails and ids with
  digits are a person's own values and are not counted);
* ``field_dumps``: sentences that read as a form being filled in ("Insurance: no.", "For
  the total bags, it's 0.", "The height cm is 131.");
* ``then_chains``: instruction lists ("...; then look up ...").

Pure functions over strings, so ``bench/`` and the tests share them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

STOCK_SHARE = 0.03  # a sentence used by this share of tasks or more is a stock sentence

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(]?[A-Z0-9#])")
_EMAIL = re.compile(r"\S+@\S+")
_SNAKE = re.compile(r"(?<![\w@.])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w@]|\.[a-z0-9]{2,4}\b)")  # not a file name
# "Insurance: no.", "Date: 2026-06-02.", "Weight kg: 104." (a label and a short value)
_LABEL_COLON = re.compile(
    r"^(?!(?:one more thing|another thing|next thing|quick one|so|okay|also)\b)"
    r"(?:[A-Z][a-z]+)(?: [a-z]+){0,3}: (?:\S+ ?){1,4}[.!]?$",
    re.IGNORECASE,
)
# "For the total bags, it's 0.", "For the description, it's ..."
_FOR_THE = re.compile(r"^for the [a-z ]{2,30}, (?:it's|it is|i mean) ", re.IGNORECASE)
# "Use yes for the insurance.", "Use 124 for the height cm."
_USE_FOR = re.compile(r"^use \S+ for the [a-z ]{2,30}\.$", re.IGNORECASE)
_THEN_CHAIN = re.compile(r";\s*then\b|\bthen (?:look|find|get|check|call|list|search|use)\b", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """The sentences of one message (split after . ! ? before a capital or a digit)."""
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def _key(sentence: str) -> str:
    return re.sub(r"\d+", "0", sentence.casefold()).strip()


def stock_sentences(texts: Sequence[str], share: float = STOCK_SHARE) -> dict[str, int]:
    """Sentences (masked) used by ``share`` of the texts or more, with how many use them."""
    per_text = Counter(key for text in texts for key in {_key(s) for s in sentences(text)})
    floor = max(2, share * len(texts))
    return {k: c for k, c in per_text.items() if c >= floor}


def stock_sentence_share(texts: Sequence[str], share: float = STOCK_SHARE) -> float:
    """The share of all sentences that are stock sentences (see ``stock_sentences``)."""
    stock = stock_sentences(texts, share)
    keys = [_key(s) for text in texts for s in sentences(text)]
    return sum(1 for k in keys if k in stock) / len(keys) if keys else 0.0


def snake_case_tokens(text: str) -> list[str]:
    """Generator words in ``text`` (``broken_binding``); emails are left alone."""
    return _SNAKE.findall(_EMAIL.sub(" ", text))


def field_dumps(text: str, fields: Iterable[str] = ()) -> list[str]:
    """Sentences of ``text`` that read as a form: "Label: value", "For the X, it's v", "Use v
    for the X", or "the <field words> is/should be v" for one of ``fields`` (parameter keys,
    said with their underscores as spaces)."""
    words = sorted(
        {f.rsplit(".", 1)[-1].replace("_", " ") for f in fields if "_" in f}, key=len, reverse=True
    )
    named = (
        re.compile(
            rf"\bthe (?:{'|'.join(re.escape(w) for w in words)}) (?:is|should be|are)\b", re.IGNORECASE
        )
        if words
        else None
    )
    found = []
    for sentence in sentences(_EMAIL.sub("someone@example.com", text)):
        if (
            _LABEL_COLON.match(sentence)
            or _FOR_THE.match(sentence)
            or _USE_FOR.match(sentence)
            or (named is not None and named.search(sentence))
        ):
            found.append(sentence)
    return found


def then_chains(text: str) -> list[str]:
    """Instruction-list joints in ``text`` ("; then look up ...")."""
    return [m.group(0) for m in _THEN_CHAIN.finditer(text)]


EVERYDAY_PHRASES = frozenset(
    {
        "first name",
        "last name",
        "full name",
        "zip code",
        "postal code",
        "post code",
        "phone number",
        "mobile number",
        "email address",
        "date of birth",
        "home address",
        "street address",
        "mailing address",
        "credit card",
        "gift card",
        "debit card",
        "card number",
        "user name",
        "start date",
        "end date",
        "due date",
        "delivery date",
    }
)


def names_a_field(text: str, tools: Iterable[str], fields: Iterable[str]) -> list[str]:
    """Tool names and field names ``text`` uses: a tool name as written or in words; a field
    name with an underscore as written (``total_bags``) or in words ("total bags", "user id")
    unless the words are an everyday phrase ("phone number", "zip code"); a single-word field
    (``email``, ``cabin``) is plain English and never counted. Emails are left out."""
    lowered = _EMAIL.sub(" ", text).casefold()
    tool_set = set(tools)
    hits = []
    for name in sorted(tool_set | {f for f in fields if "_" in f.strip("_")}):
        words = " ".join(w for w in name.split("_") if w).casefold()
        forms = [name.casefold()]
        if name in tool_set or words not in EVERYDAY_PHRASES:
            forms.append(words)
        for form in forms:
            pattern = r"\s+".join(re.escape(w) for w in form.split(" "))
            if re.search(rf"(?<![\w@#]){pattern}(?![\w@])", lowered):
                hits.append(name)
                break
    return hits
