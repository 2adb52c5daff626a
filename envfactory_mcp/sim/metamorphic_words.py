"""How people say things: the phrasings the metamorphic agents (``sim/metamorphic.py``) draw from.

Everything here is a pure function of a value and a ``random.Random``: status values in
other spellings and synonyms, amounts and counts in other formats or in words, dates
written out, booleans said naturally, free text reworded (``paraphrase``), and values
that are wrong or conflicting (``alternative``). The tables are this module's own
vocabulary of what support agents say, not the scorer's: the suite measures the reward
against real wording, so nothing here is read from the spec's accepted words.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from typing import Any

# Status values in other words, as the predicate after the subject ("order #W1 ..."). "{now}"
# stands for "now " where the agent said "now". No entry contains the value as stored or as
# the demonstrator writes it (case-sensitive): capitalised and quoted forms may.
STATUS_WORDS: dict[str, list[str]] = {
    "cancelled": [
        "is {now}canceled",
        "has been canceled",
        "has been called off",
        "is {now}Cancelled",
        'is marked "Canceled"',
        "got canceled",
    ],
    "canceled": ["is {now}cancelled", "has been called off", "is {now}Canceled", "got called off"],
    "delivered": ["has arrived", "has been received", 'is marked "Delivered"', "was dropped off"],
    "pending": [
        "hasn't been processed yet",
        "is still waiting to be processed",
        'is "Pending"',
        "is awaiting processing",
    ],
    "processed": [
        'is marked "Processed"',
        "has gone through processing",
        "is {now}Processed",
        "is ready to ship",
    ],
    "return_requested": [
        "has a return request open",
        "is awaiting a return",
        'is marked "Return Requested"',
        "is waiting for the return to come back",
    ],
    "exchange_requested": [
        "has an exchange request open",
        "is awaiting an exchange",
        'is marked "Exchange Requested"',
        "is set for an exchange",
    ],
    "renewal_requested": [
        "has a renewal request pending",
        "is awaiting renewal from the prescriber",
        'is marked "Renewal Requested"',
        "has been sent for renewal",
    ],
    "needs_renewal": [
        "needs to be renewed",
        "has to be renewed",
        "is due for renewal",
        'is marked "Needs Renewal"',
    ],
    "suspended": ["is {now}paused", "is on hold", "has been put on hold", "is {now}Suspended"],
    "active": ["is {now}Active", "is in effect", "is up and running", "is live", "is in service"],
    "inactive": ["hasn't been activated yet", "is {now}Inactive", "isn't activated", "is not active yet"],
    "closed": ["is {now}Closed", "is no longer open", "has been wrapped up", 'is marked "Closed"'],
    "open": ["is {now}Open", 'is marked "Open"', "is {now}OPEN", "shows as Open"],
    "frozen": [
        "is {now}locked",
        "is on hold",
        "has been blocked",
        "is {now}Frozen",
        "is temporarily blocked",
    ],
    "paid": ["is settled", "is {now}Paid", "is fully settled", 'is marked "Paid"'],
    "overdue": ["is past due", "is late", "is {now}Overdue", "is behind on payment"],
    "due": ["is awaiting payment", "is {now}Due", "needs to be paid", "is payable now"],
    "issued": ["has been sent out", "is {now}Issued", "has gone out", "has been sent to you"],
    "resolved": ["has been fixed", "is {now}Resolved", "has been sorted out", 'is marked "Resolved"'],
    "in_progress": ["is being worked on", "is {now}In Progress", "is underway", "is being handled"],
    "completed": ["is finished", "is {now}Completed", "is all done", "has already taken place"],
    "scheduled": ["is {now}Scheduled", "is planned", "is on the schedule", "is booked"],
    "landed": ["has touched down", "has arrived", "is {now}Landed", "is on the ground"],
    "no_show": ["was missed", 'is marked "No-Show"', "was a no-show", "was not attended"],
    "discontinued": [
        "has been stopped",
        "is {now}Discontinued",
        "is no longer being prescribed",
        "was stopped by the prescriber",
    ],
    "used": ["has been redeemed", "is {now}Used", 'is marked "Used"', "has already been applied"],
    "pending_insurance": [
        "is waiting on insurance",
        "is {now}Pending Insurance",
        "is awaiting the insurer",
        "is with the insurance company for review",
    ],
    "without_dispute": ["has no dispute on it", "isn't disputed", "has never been disputed", "is undisputed"],
}
# Common statuses, for a wrong or conflicting value when no spec lists the field's values.
COMMON_STATUSES = ("pending", "active", "cancelled", "closed", "open", "completed", "suspended")

_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen".split()  # noqa: SIM905
_NUMBER_WORDS += "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()  # noqa: SIM905
_MONTHS = "January February March April May June July August September October November December".split()  # noqa: SIM905
_WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()  # noqa: SIM905
ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2})?Z?)?$")
# "Fri Jun 19, 8:00 AM": how the clinic shows an appointment
DISPLAY_TIME = re.compile(
    r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) (\d{1,2}), (\d{1,2}):(\d{2}) (AM|PM)$"
)


def status_key(value: str) -> str:
    return value.strip().lower().replace(" ", "_")


def status_predicates(value: str) -> list[str]:
    """Predicates that say ``value`` in other words (a generic quoted title form for an
    unknown value)."""
    found = STATUS_WORDS.get(status_key(value))
    if found:
        return found
    title = value.replace("_", " ").title()
    return [f'is marked "{title}"', f"is {{now}}{title}", f"shows as '{title}'", f"is {{now}}{title.upper()}"]


def say_number(n: int) -> str:
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else f"{n:,}"


def _trim(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def money_forms(value: float, label: str) -> list[str]:
    """An amount as people write it: "$1,219.80", "1219.8 dollars", "USD 1,219.80",
    "1,219.80 USD", "$100" for a whole amount (a quantity in GB as GB)."""
    if "gb" in label.split():
        return [f"{_trim(value)} GB", f"{_trim(value)} gigabytes", f"{value:,.2f} GB"]
    forms = [f"${value:,.2f}", f"{_trim(value)} dollars", f"USD {value:,.2f}", f"{value:,.2f} USD"]
    if value == int(value):
        forms += [f"${int(value):,}", f"{int(value):,} dollars"]
    return forms


def _singular(label: str) -> str:
    words = label.split()
    for i in range(len(words) - 1, -1, -1):
        if words[i].endswith("s") and not words[i].endswith("ss"):
            words[i] = words[i][:-1]
            break
    return " ".join(words)


def count_phrases(n: int, label: str) -> list[str]:
    """A count with its label, in words: "two nonfree bags", "no active outages right now"."""
    if n == 0:
        return [
            f"there are no {label} right now",
            f"you have no {label}",
            f"zero {label}",
            f"no {label} at all",
        ]
    noun = _singular(label) if n == 1 else label
    words = say_number(n)
    return [
        f"you have {words} {noun}",
        f"there {'is' if n == 1 else 'are'} {words} {noun}",
        f"{words} {noun}",
        f"{words} {noun} in total",
    ]


def zero_phrases(label: str) -> list[str]:
    """A zero amount in words, by what it is: a fee, a balance, a copay."""
    if any(w in label for w in ("fee", "charge")):
        return [
            f"there's no {label}",
            "there's no charge",
            f"no {label} applies",
            f"you won't pay any {label}",
        ]
    if "balance" in label or "due" in label:
        return [
            "there's nothing left to pay",
            "your balance is now zero",
            "you owe nothing",
            "nothing is due",
        ]
    if "copay" in label:
        return [
            "there's no copay",
            "you won't owe a copay",
            "no copay applies",
            "the visit costs you nothing",
        ]
    return [f"there's no {label}", f"the {label} is zero", f"the {label} is nothing", f"no {label} at all"]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _display_time(text: str) -> dt.datetime | None:
    match = DISPLAY_TIME.match(text)
    if match is None:
        return None
    _, month, day, hour, minute, half = match.groups()
    months = [m[:3] for m in _MONTHS]
    if month not in months:
        return None
    hour24 = int(hour) % 12 + (12 if half == "PM" else 0)
    return dt.datetime(2026, months.index(month) + 1, int(day), hour24, int(minute))


def is_date(text: str) -> bool:
    return bool(ISO_DATE.match(text)) or _display_time(text) is not None


def date_forms(text: str) -> list[str]:
    """A date written out: "June 18, 2026", "18 June 2026", "Thursday, June 18", "6/18/2026"...
    A displayed appointment time ("Fri Jun 19, 8:00 AM") keeps its time."""
    when = _display_time(text)
    if when is not None:
        month, weekday, day = _MONTHS[when.month - 1], _WEEKDAYS[when.weekday()], when.day
        clock = when.strftime("%I:%M %p").lstrip("0")
        short = clock.replace(":00", "")
        return [
            f"{weekday}, {month} {day} at {clock}",
            f"{short} on {weekday}, {month} {day}",
            f"{month} {day} at {short.lower().replace(' ', '')}",
            f"{weekday[:3]} {when.month}/{day} at {clock}",
            f"{day} {month}, {when.strftime('%H:%M')}",
        ]
    match = ISO_DATE.match(text)
    if match is None:
        return []
    date = dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    month, weekday = _MONTHS[date.month - 1], _WEEKDAYS[date.weekday()]
    forms = [
        f"{month} {date.day}, {date.year}",
        f"{date.day} {month} {date.year}",
        f"{weekday}, {month} {date.day}",
        f"{date.month}/{date.day}/{date.year}",
        f"the {_ordinal(date.day)} of {month}",
    ]
    if match.group(4):
        forms = [f"{f} at {int(match.group(4))}:{match.group(5)}" for f in forms]
    return forms


def bool_phrases(label: str, value: bool) -> list[str]:
    """A yes/no fact said naturally: "you're not eligible for an upgrade yet"."""
    if label.endswith(" eligible") or label.startswith("eligible "):
        thing = label.replace("eligible", "").strip()
        a = "an" if thing[:1] in "aeiou" else "a"
        if value:
            return [
                f"yes, it qualifies for {a} {thing}",
                f"you're eligible for {a} {thing}",
                f"{a} {thing} is available to you now",
                f"it can get {a} {thing} now",
            ]
        return [
            f"you're not eligible for {a} {thing} yet",
            f"it doesn't qualify for {a} {thing} yet",
            f"{a} {thing} isn't possible yet",
            f"no, it can't get {a} {thing} at this point",
        ]
    if value:
        return [f"yes, it's {label}", f"it is {label}", f"it's {label}, yes", f"yes, {label}"]
    return [f"it isn't {label}", f"no, it's not {label}", f"it is not {label}", f"it's not {label}"]


# ----------------------------------------------------------------- wrong and conflicting values


def alternative(
    value: Any,
    text: str,
    rng: random.Random,
    statuses: list[str] | None = None,
    seen: list[str] | None = None,
) -> str | None:
    """A different value of the same kind, as the demonstrator would write it (None when
    none can be made): another status of the field, another amount or count, the next
    day, an id with another last digit, the other boolean, another text seen in the tool
    outputs."""
    if isinstance(value, bool):
        return str(not value)
    if isinstance(value, float):
        options = [value + 10, value + 5.5, round(value * 1.25, 2) if value else 25.0, value + 20]
        return "$" + f"{rng.choice([o for o in options if o != value]):.2f}"
    if isinstance(value, int):
        return str(value + 1 if value == 0 or rng.random() < 0.5 else value - 1)
    if not isinstance(value, str):
        return None
    when = _display_time(text)
    if when is not None:
        later = when + dt.timedelta(days=1)
        return later.strftime("%a %b ") + str(later.day) + later.strftime(", %I:%M %p").replace(" 0", " ")
    match = ISO_DATE.match(value)
    if match is not None:
        date = dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        return (date + dt.timedelta(days=1)).isoformat() + value[10:]
    if statuses is not None:
        others = [s for s in statuses if status_key(s) != status_key(value)]
        return rng.choice(others).replace("_", " ") if others else None
    digits = [i for i, c in enumerate(text) if c.isdigit()]
    if digits:
        i = digits[-1]
        return text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1 :]
    others = sorted({s for s in seen or [] if s != value and s.strip()})
    return rng.choice(others) if others else None


# ----------------------------------------------------------------- dumping tool output


def flatten(node: Any, prefix: str = "") -> list[str]:
    """``key: value`` lines of a JSON value (nested keys joined by dots)."""
    if isinstance(node, dict):
        return [line for k, v in node.items() for line in flatten(v, f"{prefix}{k}." if prefix or k else "")]
    if isinstance(node, list):
        return [line for i, v in enumerate(node) for line in flatten(v, f"{prefix}{i}.")]
    return [f"{prefix.rstrip('.')}: {json.dumps(node) if not isinstance(node, str) else node}"]


def dump(outputs: list[str], rng: random.Random) -> str:
    """Tool outputs pasted back: raw, pretty-printed, as ``key: value`` lines, or in a code block."""
    lead = rng.choice(
        ["Here is what the system shows:", "Here are the details:", "This is what I found:", "Result:"]
    )
    style = rng.randrange(4)
    blocks = []
    for text in outputs:
        try:
            parsed = json.loads(text)
        except ValueError:
            blocks.append(text)
            continue
        if style == 1:
            blocks.append(json.dumps(parsed, indent=2))
        elif style == 2:
            blocks.append("\n".join(flatten(parsed)))
        elif style == 3:
            blocks.append(f"```json\n{text}\n```")
        else:
            blocks.append(text)
    return lead + "\n" + "\n\n".join(blocks) + "\n"


# ----------------------------------------------------------------- free text in other words

# (pattern, replacements): verbs, adjectives, adverbs and function words; never the nouns
# and numbers that carry the facts. The first match of a pattern is replaced.
SYNONYMS: list[tuple[str, list[str]]] = [
    (r"did not help", ["didn't fix it", "didn't solve it"]),
    (r"did not go through", ["failed", "didn't go through", "was not processed"]),
    (r"cannot be", ["can't be"]),
    (r"cannot", ["can't", "unable to"]),
    (r"did not", ["didn't"]),
    (r"does not", ["doesn't"]),
    (r"is not", ["isn't"]),
    (r"fail to connect", ["don't connect", "won't connect"]),
    (r"drains", ["runs down", "goes flat"]),
    (r"within", ["in", "inside of"]),
    (r"a few", ["several", "a couple of"]),
    (r"several", ["multiple", "many"]),
    (r"times a day", ["times daily", "times per day"]),
    (r"during the day", ["in the daytime", "throughout the day"]),
    (r"very slow", ["really sluggish", "extremely slow"]),
    (r"slow", ["sluggish"]),
    (r"in the evenings", ["in the evening", "every evening"]),
    (r"need help", ["would like help", "needs a hand"]),
    (r"setting up", ["configuring", "getting set up with"]),
    (r"even though", ["although", "despite the fact that"]),
    (r"although", ["even though", "though"]),
    (r"is on", ["is turned on", "is enabled"]),
    (r"restarting", ["rebooting"]),
    (r"take minutes", ["need minutes", "take several minutes"]),
    (r"even with", ["despite having", "even when there are"]),
    (r"overheats", ["gets too hot", "runs hot"]),
    (r"while", ["when"]),
    (r"shows", ["displays"]),
    (r"fine", ["okay", "all right"]),
    (r"flickers", ["flashes", "keeps flickering"]),
    (r"latest", ["most recent", "newest"]),
    (r"keep freezing", ["freeze constantly", "keep getting stuck"]),
    (r"got", ["received"]),
    (r"make calls", ["place calls"]),
    (r"traveling", ["travelling"]),
    (r"abroad", ["overseas"]),
    (r"persistent", ["ongoing", "lingering"]),
    (r"review", ["go over", "discuss"]),
    (r"about", ["regarding", "concerning"]),
    (r"changed", ["has changed"]),
    (r"climbing", ["going up", "walking up"]),
    (r"annual", ["yearly"]),
    (r"yearly", ["annual"]),
    (r"checkup", ["check-up"]),
    (r"establish", ["set up", "start"]),
    (r"check", ["review", "check-in"]),
    (r"follow-up", ["follow up", "follow-up visit"]),
    (r"after", ["following"]),
    (r"the (phone|bill|apartment|line|device|account|card)", [r"my \1"]),
]
_CLAUSE = re.compile(
    r"^(?P<a>.+?) (?P<conj>while|since|after|when|during|even though|although) (?P<b>.+)$", re.I
)
LEADS = {
    "Customer": ["Customer reports {t}", "Customer says {t}", "Reported issue: {t}", "Per the customer: {t}"],
    "Patient": ["Patient would like: {t}", "Reason for visit: {t}", "Visit for {t}", "Patient requests: {t}"],
}


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    if len(first) > 1 and not first[1:].islower():
        return text  # an acronym or a name ("SOS", "Wi-Fi")
    return text[:1].lower() + text[1:]


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _swap(text: str, rng: random.Random) -> str | None:
    """The clauses in the other order: "A; B" -> "B; a", "A while B" -> "While B, a", a
    short "X and Y" -> "Y and x"."""
    if "; " in text:
        a, b = text.split("; ", 1)
        return f"{_upper_first(b)}; {_lower_first(a)}"
    match = _CLAUSE.match(text)
    if match:
        conj, a, b = match.group("conj"), match.group("a"), match.group("b")
        return f"{_upper_first(conj.lower())} {b}, {_lower_first(a)}"
    if " and " in text and len(text.split()) <= 6:
        a, b = text.split(" and ", 1)
        return f"{_upper_first(b)} and {_lower_first(a)}"
    return None


def paraphrase(text: str, rng: random.Random, who: str = "Customer") -> str:
    """``text`` reworded as a model would: one or two words swapped for synonyms, clauses
    in another order, and maybe a short lead ("Customer reports ..."); never the same
    text. Nouns and numbers stay."""
    out = text
    matches = [(p, r) for p, r in SYNONYMS if re.search(rf"\b{p}\b", out, re.I)]
    for pattern, replacements in rng.sample(matches, min(len(matches), rng.choice((1, 2)))):
        found = re.search(rf"\b{pattern}\b", out, re.I)
        if found is None:
            continue
        new = found.expand(rng.choice(replacements))
        new = _upper_first(new) if found.group(0)[:1].isupper() else new
        out = out[: found.start()] + new + out[found.end() :]
    swapped = _swap(out, rng) if rng.random() < 0.6 else None
    out = swapped or out
    if out.casefold() == text.casefold() or rng.random() < 0.4:
        out = rng.choice(LEADS.get(who, LEADS["Customer"])).format(t=_lower_first(out))
    return out
