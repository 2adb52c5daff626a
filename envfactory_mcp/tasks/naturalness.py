"""How the language reads: every language measure of the project, in one place (issue 26).

Pure functions over strings and chat messages (OpenAI format: ``{"role", "content", ...}``),
standard library only, no I/O: ``bench/bench_language.py`` loads this file by path, the
task generator (``tasks/calibrate.py``) gates requests with it, and the tests share it.

The request gate (``tasks/calibrate.check_message`` holds every generated request to it):

``snake_case_tokens``
    Generator words such as ``broken_binding`` in a request (emails and ids with digits are a
    person's own values and are not counted).
``field_dumps``
    Request sentences that read as a form being filled in ("Insurance: no.", "For the total
    bags, it's 0.", "The height cm is 131." for one of the given ``fields``).
``then_chains``
    Instruction lists ("...; then look up ...").

The acceptance figures over demonstrator episodes, requests and evaluation prompts, with
their targets:

``assistant_distinct2`` (>= 0.5)
    Assistant text pooled in episode order, tokenised (``tokens``), cut into consecutive
    2,000-token windows; per window distinct bigrams / bigrams; the mean over windows.
``recurring_sentence_share`` (<= 15%)
    Share of assistant sentence occurrences whose sentence (``sentence_key``) occurs in more
    than 5% of the episodes (and in two at least).
``customer_voice`` / ``customer_voice_turns`` (0)
    Assistant text in the customer's first person about the customer's things or wishes.
``snake_case_words`` (0)
    Generator words such as ``out_on_slopes`` in user or assistant text; ids with digits,
    emails and URLs are values, not words.
``stock_sentence_share`` (<= 5%)
    Share of request sentences (values masked, ``request_key``) shared by 3% or more of the
    requests (tau2-bench's human-written tasks: 2.2%).
``names_tool_or_field`` (0 prompts)
    A tool name or a field name of the prompt's servers, as the identifier or in words,
    except single-word fields and everyday personal-detail phrases.
``form_fragments`` (reported)
    Form-filling fragments anywhere in a text: "Insurance: no.", "(cabin: economy; total
    bags: 3)", "For the total bags, it's 0." (broader than the request gate's
    ``field_dumps``, which the generator is held to sentence by sentence).
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

Message = Mapping[str, Any]

WINDOW_TOKENS = 2000
RECURRING_EPISODE_SHARE = 0.05  # a sentence in more than this share of episodes recurs
STOCK_TASK_SHARE = 0.03  # a request sentence in this share of requests or more is stock
NUMBER_TOKEN = "<num>"  # the one token class every token with a digit becomes

# ------------------------------------------------------------------------------ text basics

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
_TOKEN = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
# A sentence ends at . ! ? (closing quotes and brackets kept) before white space, or at a
# line break; "$45.83", "e.g.x" and "#W123." inside a word do not end one.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d)\]]*\s+|\s*\n\s*")


def texts_of(messages: Iterable[Message], role: str) -> list[str]:
    """The non-empty text content of the messages of ``role`` (tool calls are not text)."""
    found = []
    for message in messages:
        if message.get("role") == role and isinstance(message.get("content"), str) and message["content"]:
            found.append(message["content"])
    return found


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits, inner apostrophes kept; underscores and
    punctuation separate tokens); every token holding a digit is ``NUMBER_TOKEN``, and a
    number written with separators (``45.83``, ``2026-06-05``, ``1,000``) is one token."""
    found = _TOKEN.findall(_NUMBER.sub("0", text.lower()))
    return [NUMBER_TOKEN if any(c.isdigit() for c in t) else t for t in found]


def sentences(text: str) -> list[str]:
    """The sentences of ``text``: split after ``.``, ``!`` or ``?`` (and any closing quote or
    bracket) before white space, and at line breaks."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def sentence_key(sentence: str) -> str:
    """A sentence as compared: digits masked (each run of digits is ``0``), white space
    normalised to single spaces, case folded."""
    return " ".join(re.sub(r"\d+", "0", sentence).casefold().split())


# ------------------------------------------------------------------------------ distinct-2


def distinct2(token_list: Sequence[str], window: int = WINDOW_TOKENS) -> float:
    """Mean over consecutive ``window``-token windows of distinct bigrams / bigrams.

    The tokens are cut into windows [0, window), [window, 2*window), ...; a last window
    shorter than ``window`` is dropped, unless there is no full window at all (then the one
    short window is measured). Returns 0.0 for fewer than two tokens."""
    if len(token_list) < 2:
        return 0.0
    full = len(token_list) // window
    chunks = [token_list[i * window : (i + 1) * window] for i in range(full)] or [list(token_list)]
    ratios = []
    for chunk in chunks:
        bigrams = list(pairwise(chunk))
        ratios.append(len(set(bigrams)) / len(bigrams))
    return sum(ratios) / len(ratios)


def assistant_distinct2(episodes: Sequence[Sequence[Message]], window: int = WINDOW_TOKENS) -> float:
    """Assistant distinct-2 at ``window`` tokens: all assistant text content pooled in
    episode order (message order within an episode), tokenised with ``tokens`` (lower-case
    words, every token with a digit one class), cut into consecutive ``window``-token
    windows; distinct bigrams / bigrams per window, mean over windows (``distinct2``).
    Bigrams run across message and episode boundaries, as the pooled text does."""
    pooled: list[str] = []
    for messages in episodes:
        for text in texts_of(messages, "assistant"):
            pooled.extend(tokens(text))
    return distinct2(pooled, window)


# ------------------------------------------------------------------------------ recurring sentences


@dataclass(frozen=True)
class Recurrence:
    """Assistant sentences that recur across episodes."""

    share: float  # recurring occurrences / all assistant sentence occurrences
    occurrences: int  # all assistant sentence occurrences
    recurring: int  # occurrences whose sentence recurs
    top: list[tuple[str, int]]  # the most widespread recurring sentences (key, episodes)


def recurring_sentences(
    episodes: Sequence[Sequence[Message]], share: float = RECURRING_EPISODE_SHARE, top: int = 10
) -> Recurrence:
    """Assistant sentences (``sentence_key``: digits masked, white space normalised, case
    folded) counted once per episode; a sentence recurs when the number of episodes holding
    it is more than ``share`` of the episodes and at least 2. The share is the assistant
    sentence occurrences (every occurrence, repeats within an episode included) whose
    sentence recurs, over all assistant sentence occurrences."""
    per_episode = [
        [sentence_key(s) for text in texts_of(messages, "assistant") for s in sentences(text)]
        for messages in episodes
    ]
    frequency = Counter(key for keys in per_episode for key in set(keys))
    floor = share * len(episodes)
    recurring = {k for k, n in frequency.items() if n > floor and n >= 2}
    occurrences = sum(len(keys) for keys in per_episode)
    hits = sum(1 for keys in per_episode for k in keys if k in recurring)
    widest = sorted(((k, frequency[k]) for k in recurring), key=lambda kv: (-kv[1], kv[0]))[:top]
    return Recurrence(hits / occurrences if occurrences else 0.0, occurrences, hits, widest)


def recurring_sentence_share(
    episodes: Sequence[Sequence[Message]], share: float = RECURRING_EPISODE_SHARE
) -> float:
    """``recurring_sentences(episodes, share).share``."""
    return recurring_sentences(episodes, share).share


# ------------------------------------------------------------------------------ customer voice


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# What an agent calls its own: "my apologies", "my colleague", "to my knowledge". Anything
# else after "my" is the customer's (their order, bill, bags, card, flight, address ...).
_AGENT_OWN = _words(
    """apologies apology pleasure end side colleague colleagues team teammate supervisor manager
    name understanding mistake bad fault error knowledge part view opinion best role job
    question questions answer notes note step turn shift priority records record screen system systems tools colleague's
    recommendation suggestion advice sincere sincerest deepest honest apologize"""
)
_POSSESSIVE = re.compile(
    r"\b(?:my|mine)\b(?:\s+(?:own|current|new|old|other|next|last|first|second|previous|recent|usual|main|only))?\s+([a-z][a-z'-]*)",
    re.IGNORECASE,
)
# First person desire or purpose: "I want to", "I'd like to", "I'm writing to/about".
_DESIRE = re.compile(
    r"\bI(?:\s+(?:really|just|also|still|only))?"
    r"(?:(?:\s+(?:hope|wish)|(?:['\u2019]m|\s+am)\s+hoping)\s+to"  # "I hope this helps" is not a wish
    r"|(?:\s+(?:want(?:ed)?|need(?:ed)?)|(?:['\u2019]d|\s+would)\s+(?:like|love|prefer)"
    r"|(?:['\u2019]m|\s+am)\s+(?:looking|trying|wanting|writing|calling|contacting|reaching\s+out))"
    r"(?:\s+(?:to|for|about|because|that))?)\s+(.*)",
    re.IGNORECASE,
)
# What an agent itself does in a conversation, as the first verb after its own "I need to".
_AGENT_ACTS = _words(
    """verify confirm check ask make clarify let inform tell help assist see know understand apologize
    apologise note mention point remind double-check doublecheck review look find gather collect walk
    explain proceed flag transfer escalate hand pass connect reach contact follow"""
)
# What an agent needs of the customer (information), in "I need the order number".
_AGENT_NEEDS = _words(
    """number numbers id ids name names detail details information info email address confirmation
    code date answer reply moment second minute yes go-ahead permission consent clarification
    identity"""
)
# A consumer's own experience, told in the first person: "items I received", "I was charged".
_EXPERIENCE = re.compile(
    r"\bI(?:['\u2019]ve|\s+have|\s+had)?\s+(?:received|ordered|bought|purchased|placed|"
    r"was\s+charged|been\s+charged|got\s+charged|was\s+billed)\b(.*)",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|(?<!\w)'[^']*'(?!\w)")
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|you're|you've|you'd)\b", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[.;!?]\s|[.;!?]$|,\s*(?:but|and|so|then|which)\b|\s(?:but|so)\s")


def _clause(rest: str) -> str:
    """The rest of a clause: up to its end (., ;, !, ? or a joining "but"/"so")."""
    return _CLAUSE_END.split(rest, maxsplit=1)[0].strip()


def customer_voice(text: str) -> list[str]:
    """Fragments where an agent's ``text`` speaks as the customer (an empty list: none).

    Quoted text (the customer's own words repeated) is left out. Three forms, each a rule
    rather than a list of phrases:

    * a first-person possessive (``my``/``mine``) of anything but what an agent has itself
      (``_AGENT_OWN``: apologies, pleasure, colleague, knowledge ...): "pay my bill",
      "add checked bags to my reservation", "the address is mine";
    * first-person desire or purpose (want, would like, need, wish to, hope to, am looking /
      trying / writing / calling) followed by the customer's request: the clause after it
      does not start with what an agent does in a conversation (``_AGENT_ACTS``: verify,
      confirm, check, ask, help ...), holds no information an agent asks for among its first
      five words (``_AGENT_NEEDS``: number, name, details ...) and does not speak of the
      customer as "you"/"your" ("I need to verify your identity", "I need the order
      number", "I'd like to book that for you" are the agent's);
    * the first person as the subject of a consumer's experience (received, ordered, bought,
      purchased, placed, was charged / billed) in a clause without "you"/"your": "the items
      I received" ("I received your message" is the agent's).

    "I can help", "I'll cancel it", "my apologies", "let me check" are the agent's own."""
    found: list[str] = []
    plain = _QUOTED.sub(" ", text)
    for m in _POSSESSIVE.finditer(plain):
        if m.group(1).lower() not in _AGENT_OWN:
            found.append(m.group(0))
    for m in _DESIRE.finditer(plain):
        clause = _clause(m.group(1))
        words = [w.strip(",:;") for w in clause.lower().split()]
        if not words or _SECOND_PERSON.search(clause) or words[0] in _AGENT_ACTS:
            continue
        if _AGENT_NEEDS & set(words[:5]):
            continue
        found.append(f"{m.group(0)[: m.start(1) - m.start(0)].strip()} {clause}")
    for m in _EXPERIENCE.finditer(plain):
        clause = _clause(m.group(1))
        if not _SECOND_PERSON.search(clause):
            found.append(f"{m.group(0)[: m.start(1) - m.start(0)].strip()} {clause}".strip())
    return found


def customer_voice_turns(episodes: Sequence[Sequence[Message]]) -> list[tuple[int, str]]:
    """Assistant turns (messages with text) that speak in the customer's voice
    (``customer_voice``): (episode index, the turn's text) for each."""
    return [
        (i, text)
        for i, messages in enumerate(episodes)
        for text in texts_of(messages, "assistant")
        if customer_voice(text)
    ]


# ------------------------------------------------------------------------------ snake_case words

_SNAKE = re.compile(r"(?<![\w@/#.:-])_*[A-Za-z0-9]+(?:_+[A-Za-z0-9]+)+_*(?![\w@/])")
_FILE_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,5}\b")


def snake_case_words(text: str) -> list[str]:
    """Generator words in ``text``: tokens of two or more parts joined by underscores whose
    parts are all letters (``out_on_slopes``, ``nonfree_bags``, ``broken_binding``,
    ``API_KEY``). Values are not words, and are left alone: a token with a digit in it (an id
    such as ``txn_1003388``, ``acct_000224``, ``user_000001``), emails and URLs (removed
    first), file names (``refund_form.pdf``) and path segments (``/v1/some_path``)."""
    plain = _URL.sub(" ", _EMAIL.sub(" ", text))
    found = []
    for m in _SNAKE.finditer(plain):
        word = m.group(0)
        if any(c.isdigit() for c in word):
            continue
        if _FILE_SUFFIX.match(plain, m.end()):
            continue
        found.append(word.strip("_"))
    return found


def snake_case_in_episodes(episodes: Sequence[Sequence[Message]]) -> list[tuple[int, str, str]]:
    """Every snake_case word in user or assistant text: (episode index, role, word)."""
    return [
        (i, role, word)
        for i, messages in enumerate(episodes)
        for role in ("user", "assistant")
        for text in texts_of(messages, role)
        for word in snake_case_words(text)
    ]


# ------------------------------------------------------------------------------ stock request sentences

_QUOTED_VALUE = re.compile(r"\"[^\"]+\"|\u201c[^\u201d]+\u201d|(?<!\w)'[^']+'(?!\w)")
# An id: a token with a digit and a letter or a #, or a code of 5+ capitals/digits (7BWGQA).
_ID = re.compile(r"#?\b(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]+\b|#\w+|\b[A-Z0-9]{5,}\b")


def request_key(sentence: str, values: Iterable[str] = ()) -> str:
    """A request sentence as compared: emails, URLs, quoted names ("..."), the ``values``
    given (a persona's name), ids (a token with a digit and a letter, ``#W0012345``,
    ``txn_1003388``, a code of 5+ capitals such as ``7BWGQA``) masked as ``<v>``, then the
    digits and the case as ``sentence_key`` does."""
    text = _URL.sub("<v>", _EMAIL.sub("<v>", sentence))
    text = _QUOTED_VALUE.sub("<v>", text)
    for value in sorted((v for v in values if v and v.strip()), key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", "<v>", text, flags=re.IGNORECASE)
    text = _ID.sub("<v>", text)
    return sentence_key(text)


@dataclass(frozen=True)
class Stock:
    """Request sentences shared by many requests."""

    share: float  # stock sentence occurrences / all sentence occurrences
    occurrences: int
    stock: int
    top: list[tuple[str, int]]  # the most shared (key, requests)


def stock_sentences(
    requests: Sequence[str],
    share: float = STOCK_TASK_SHARE,
    values: Sequence[Iterable[str]] | None = None,
    top: int = 10,
) -> Stock:
    """Sentences of the requests (one per task: its opening message), keyed by
    ``request_key`` (``values[i]`` masked in request i too), counted once per request; a
    sentence is stock when at least ``share`` of the requests (and 2 at least) hold it. The
    share is the stock sentence occurrences over all sentence occurrences."""
    keyed = [
        [request_key(s, values[i] if values is not None else ()) for s in sentences(text)]
        for i, text in enumerate(requests)
    ]
    frequency = Counter(k for keys in keyed for k in set(keys))
    floor = max(2, math.ceil(share * len(requests) - 1e-9))
    stock = {k for k, n in frequency.items() if n >= floor}
    occurrences = sum(len(keys) for keys in keyed)
    hits = sum(1 for keys in keyed for k in keys if k in stock)
    widest = sorted(((k, frequency[k]) for k in stock), key=lambda kv: (-kv[1], kv[0]))[:top]
    return Stock(hits / occurrences if occurrences else 0.0, occurrences, hits, widest)


def stock_sentence_share(
    requests: Sequence[str], share: float = STOCK_TASK_SHARE, values: Sequence[Iterable[str]] | None = None
) -> float:
    """``stock_sentences(requests, share, values).share``."""
    return stock_sentences(requests, share, values).share


# ------------------------------------------------------------------------------ tools and fields named

# Multi-word field names a person says of themselves anyway: not counted in words (the
# identifier ``first_name`` still is).
EVERYDAY_PHRASES = frozenset(
    {
        "first name",
        "last name",
        "full name",
        "middle name",
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
        "last four",  # of a card's digits
        "user name",
        "start date",
        "end date",
        "due date",
        "delivery date",
        "return date",
        "travel date",
        "departure date",
        "arrival date",
    }
)


def everyday_phrase(words: str) -> bool:
    """Whether a field name in words is what a person says anyway: one of
    ``EVERYDAY_PHRASES`` or "<something> number" (the numbers on a receipt, a ticket, a
    card: "flight number", "order number"; "user id" is not one)."""
    words = words.casefold()
    return words in EVERYDAY_PHRASES or words.endswith(" number")


def spec_vocabulary(spec: Any) -> tuple[set[str], set[str]]:
    """(tool names, field names) of an ``EnvSpec``: its tools; the properties of every
    tool's input and output schema (nested ones too) and every table column. A name that
    is also one of the spec's enum values (``basic_economy``: a price per cabin, and a
    cabin) is a value the user says, not a field, and is left out (as an identifier it is
    still a snake_case word)."""
    tool_names = {t.name for t in spec.tools}
    fields: set[str] = set()
    values: set[str] = set()

    def walk(schema: Any) -> None:
        if isinstance(schema, dict):
            values.update(v for v in schema.get("enum") or [] if isinstance(v, str))
            for name, sub in (schema.get("properties") or {}).items():
                fields.add(name)
                walk(sub)
            for key in ("items", "additionalProperties"):
                walk(schema.get(key))
            for key in ("anyOf", "oneOf", "allOf"):
                for sub in schema.get(key) or []:
                    walk(sub)

    for tool in spec.tools:
        walk(tool.input_schema)
        walk(tool.output_schema)
    for table in spec.tables:
        for column in table.columns:
            fields.add(column.name)
            values.update(v for v in getattr(column, "enum", None) or [] if isinstance(v, str))
    return tool_names, fields - values


def names_tool_or_field(text: str, tools: Iterable[str], fields: Iterable[str]) -> list[str]:
    """The tool and field names ``text`` uses (emails and URLs removed first; matched as
    whole words, case-insensitively):

    * a tool name as the identifier (``find_flights``) or in words ("find flights");
    * a field name with an underscore as the identifier (``total_bags``), or in words
      ("total bags") unless the words are what a person says anyway (``everyday_phrase``:
      "first name", "zip code", "return date", any "<something> number" ...);
    * a single-word field name (``email``, ``date``, ``cabin``) never: it is plain English.

    An id that contains a field name (``user_000001`` for ``user``) is not the field."""
    plain = _URL.sub(" ", _EMAIL.sub(" ", text)).casefold()
    return [
        name
        for name, forms in _naming_patterns(frozenset(tools), frozenset(fields))
        if any(word in plain and pattern.search(plain) for word, pattern in forms)
    ]


@functools.lru_cache(maxsize=64)
def _naming_patterns(
    tool_set: frozenset[str], fields: frozenset[str]
) -> tuple[tuple[str, tuple[tuple[str, re.Pattern[str]], ...]], ...]:
    """Per name ``names_tool_or_field`` looks for, sorted: its forms as (a word every match
    holds, the compiled pattern), compiled once per vocabulary (a speaker checks every turn
    against the same one)."""
    found = []
    for name in sorted(tool_set | {f for f in fields if "_" in f.strip("_")}):
        words = " ".join(w for w in name.split("_") if w)
        forms = [name]
        if name in tool_set or not everyday_phrase(words):
            forms.append(words)
        compiled = []
        for form in forms:
            parts = form.casefold().split()
            pattern = r"\s+".join(re.escape(w) for w in parts) if " " in form else re.escape(form.casefold())
            compiled.append((parts[0], re.compile(rf"(?<![\w@#]){pattern}(?![\w@])")))
        found.append((name, tuple(compiled)))
    return tuple(found)


# ------------------------------------------------------------------------------ field dumps

# "Insurance: no.", "(cabin: economy; total bags: 3)": a short label, a colon, a short value.
_LABEL_VALUE = re.compile(
    r"(?:^|(?<=[(;,])|(?<=[.!?]\s))\s*([A-Za-z][A-Za-z]*(?:[ _][A-Za-z]+){0,3}):\s+"
    r"([^\s:;()]+(?:[ ][^\s:;()]+){0,3}?)\s*(?=[;)]|[.!?](?:\s|$)|,\s*[A-Za-z][A-Za-z ]{0,30}:|$)"
)
# "For the total bags, it's 0.", "Use yes for the insurance."
_FOR_THE = re.compile(
    r"\bfor the [a-z][a-z_ ]{1,30}, (?:it's|it is|that's|that is|use|put|i mean|make it|set it to)\b",
    re.IGNORECASE,
)
_USE_FOR = re.compile(r"\b(?:use|put|set) \S+ (?:for|as) the [a-z][a-z_ ]{1,30}[.!]", re.IGNORECASE)
# A label that introduces talk rather than a field: "Another thing:", "Quick one:",
# "Great news:", "All done:", "With these details:", "Note:".
_TALK_LABEL = re.compile(
    r"(?:^|\s)(?:thing|things|one|news|done|set|question|note|update|reminder|details|reference|context|"
    r"example|summary|ps|also|so|edit|well|okay|ok|sure|yes|no|hi|hello|thanks)$",
    re.IGNORECASE,
)
# A value that is a clause, not a value: it starts with a pronoun or an article, or has a verb.
_CLAUSE_VALUE = re.compile(
    r"^(?:the|a|an|i|i'm|it|it's|we|you|your|my|this|that|there|he|she|they|please|let)\b"
    r"|\b(?:is|are|was|were|has|have|had|will|can|could|would|should|do|does|did)\b",
    re.IGNORECASE,
)


def form_fragments(text: str) -> list[str]:
    """Fragments of ``text`` that read as a form being filled in: "Label: value" pairs with a
    label of one to four words and a value of one to four words ("Insurance: no.", "(cabin:
    economy; total bags: 3)", "Gaming Mouse (color: black, sensor: laser)"), where the label
    does not introduce talk ("Another thing:", "All done:", "Great news:") and the value is
    not a clause (no leading pronoun or article, no auxiliary verb: "Quick note: it is
    late"); "For the X, it's v" and "Use v for the X". A clock time "10:30" is not one."""
    plain = _URL.sub(" ", _EMAIL.sub("someone@example.com", text))
    found = [
        m.group(0).strip()
        for m in _LABEL_VALUE.finditer(plain)
        if not _TALK_LABEL.search(m.group(1).replace("_", " ")) and not _CLAUSE_VALUE.search(m.group(2))
    ]
    found += [m.group(0) for m in _FOR_THE.finditer(plain)]
    found += [m.group(0) for m in _USE_FOR.finditer(plain)]
    return found


# ------------------------------------------------------------------------------ all at once

TARGETS: dict[str, tuple[str, float]] = {
    "assistant_distinct2": (">=", 0.5),
    "recurring_sentence_share": ("<=", 0.15),
    "customer_voice_turns": ("<=", 0),
    "snake_case_words": ("<=", 0),
    "stock_sentence_share": ("<=", 0.05),
    "eval_prompts_naming": ("<=", 0),
    "eval_prompt_snake_case": ("<=", 0),
}


def meets(metric: str, value: float) -> bool | None:
    """Whether ``value`` meets ``metric``'s target (None: the metric has no target)."""
    if metric not in TARGETS:
        return None
    op, target = TARGETS[metric]
    return value >= target if op == ">=" else value <= target


def language_figures(
    episodes: Sequence[Sequence[Message]],
    requests: Sequence[str] = (),
    request_values: Sequence[Iterable[str]] | None = None,
    prompts: Sequence[tuple[str, Iterable[str], Iterable[str]]] = (),
) -> dict[str, float]:
    """Every figure at once: ``episodes`` (message lists), ``requests`` (opening messages,
    with ``request_values`` masked in each), ``prompts`` (evaluation prompt, its servers' tool
    names, their field names). Counts are floats too, so the result is one mapping."""
    prompt_hits = [names_tool_or_field(text, t, f) for text, t, f in prompts]
    return {
        "assistant_distinct2": assistant_distinct2(episodes),
        "recurring_sentence_share": recurring_sentence_share(episodes),
        "customer_voice_turns": float(len(customer_voice_turns(episodes))),
        "customer_voice_episodes": float(len({i for i, _ in customer_voice_turns(episodes)})),
        "snake_case_words": float(len(snake_case_in_episodes(episodes))),
        "eval_prompt_snake_case": float(sum(len(snake_case_words(text)) for text, _, _ in prompts)),
        "stock_sentence_share": stock_sentence_share(requests, values=request_values),
        "request_field_dumps": float(sum(len(form_fragments(r)) for r in requests)),
        "assistant_field_dumps": float(
            sum(len(form_fragments(t)) for m in episodes for t in texts_of(m, "assistant"))
        ),
        "eval_prompts_naming": float(sum(1 for h in prompt_hits if h)),
        "eval_prompts": float(len(prompt_hits)),
    }


# ------------------------------------------------------------------------------ the request gate

_REQUEST_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(]?[A-Z0-9#])")
_REQ_EMAIL = re.compile(r"\S+@\S+")
_REQ_SNAKE = re.compile(
    r"(?<![\w@.])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w@]|\.[a-z0-9]{2,4}\b)"
)  # not a file name
# "Insurance: no.", "Date: 2026-06-02.", "Weight kg: 104." (a label and a short value)
_LABEL_COLON = re.compile(
    r"^(?!(?:one more thing|another thing|next thing|quick one|so|okay|also)\b)"
    r"(?:[A-Z][a-z]+)(?: [a-z]+){0,3}: (?:\S+ ?){1,4}[.!]?$",
    re.IGNORECASE,
)
# "For the total bags, it's 0.", "For the description, it's ..."
_REQ_FOR_THE = re.compile(r"^for the [a-z ]{2,30}, (?:it's|it is|i mean) ", re.IGNORECASE)
# "Use yes for the insurance.", "Use 124 for the height cm."
_REQ_USE_FOR = re.compile(r"^use \S+ for the [a-z ]{2,30}\.$", re.IGNORECASE)
_THEN_CHAIN = re.compile(r";\s*then\b|\bthen (?:look|find|get|check|call|list|search|use)\b", re.IGNORECASE)


def _request_sentences(text: str) -> list[str]:
    """The sentences of one request (split after . ! ? before a capital or a digit)."""
    return [s.strip() for s in _REQUEST_SENTENCE.split(text.strip()) if s.strip()]


def snake_case_tokens(text: str) -> list[str]:
    """Generator words in ``text`` (``broken_binding``); emails are left alone."""
    return _REQ_SNAKE.findall(_REQ_EMAIL.sub(" ", text))


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
    for sentence in _request_sentences(_REQ_EMAIL.sub("someone@example.com", text)):
        if (
            _LABEL_COLON.match(sentence)
            or _REQ_FOR_THE.match(sentence)
            or _REQ_USE_FOR.match(sentence)
            or (named is not None and named.search(sentence))
        ):
            found.append(sentence)
    return found


def then_chains(text: str) -> list[str]:
    """Instruction-list joints in ``text`` ("; then look up ...")."""
    return [m.group(0) for m in _THEN_CHAIN.finditer(text)]
