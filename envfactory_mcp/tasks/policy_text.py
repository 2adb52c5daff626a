"""What an environment's policy text says about the requests no tool serves.

``PolicyRules.transfer.out_of_scope`` lists requests nothing in the toolset can serve, for
hand-off goals. The policy text the agent reads may still speak about them, in two ways:

* it lists what the agent must not promise ("Do not promise discounts, compensation,
  price matching"; "... or anything else the tools cannot do"). Then the agent may not
  arrange those requests itself, and a hand-off is right only because the user asks for a
  person (every policy here hands off when the user asks for a human);
* it says the agent cannot do something ("you cannot add new ones", "Credit limits cannot
  be changed by you", "Do not book flights"). That request is refused, and a refused request
  is not handed off ("Do not transfer a request that you must refuse"). No tool shows such a
  refusal, so it makes no goal at all.

:func:`read_policy` reads both from the text: ``restricts_promises``, and the prohibitions
(sentences in which the agent is told it cannot or must not do something). A request that
shares a content word with a prohibition counts as refused. The reading is lexical and errs
towards refusing: a request left out wrongly costs a little variety, one handed off wrongly a
task whose gold contradicts its policy. Task composition draws hand-offs only from
``PolicyReading.hand_offs``, with the user asking for a person when ``restricts_promises``;
``tasks.stats.policy_problems`` holds every task to the same reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from envfactory_mcp.spec import EnvSpec

# Verbs of "do not ..." sentences about how to work, not about what may be done for the user.
_MANNER = ("promise", "offer", "guess", "assume", "reply", "answer", "transfer", "make", "give",
           "ask", "state", "say", "tell", "use", "do", "mention", "reveal", "share", "repeat")  # fmt: skip
PROHIBITION = re.compile(
    r"\byou (?:cannot|can't|can not|may not|must not|are not allowed to)\b"
    r"|\bcannot be \w+ by you\b"
    r"|(?:^|[;:]\s*)(?:do not|don't|never) (?!(?:" + "|".join(_MANNER) + r")\b)\w+",
    re.IGNORECASE,
)
# "Do not promise discounts, ...", "Do not book flights, ... or promise anything else."
PROMISES = re.compile(r"\b(?:do not|don't|never)\b[^.!?]*?\b(?:promise|offer)\b", re.IGNORECASE)
# The user asks for a person: "I'd like to talk to a human", "pass me to a person who can".
ASKS_FOR_PERSON = re.compile(r"\b(?:human|person|representative)\b", re.IGNORECASE)

_STOPWORDS = frozenset(
    "a an the and or of to for on in at my me i with by from is are be it its this that "  # noqa: SIM905
    "your our their his her as only any all other another one ones can you not do don't "
    "cannot was were has have had will would could should so if than then there here "
    "anything something nothing yourself myself them they we us".split()
)
_SUFFIXES = ("ings", "ing", "ers", "ies", "er", "ed", "es", "s", "e")


def content_words(text: str) -> frozenset[str]:
    """Lower-cased content words of ``text``, crudely stemmed (``waived``, ``waive`` and
    ``waivers`` all read ``waiv``), function words left out."""
    found: set[str] = set()
    for word in re.findall(r"[a-z]+", text.lower()):
        if len(word) < 3 or word in _STOPWORDS:
            continue
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                break
        found.add(word)
    return frozenset(found)


def sentences(text: str) -> list[str]:
    """The sentences of a markdown policy: emphasis and code marks dropped, wrapped lines
    joined, each list item, heading and table row on its own."""
    text = re.sub(r"[`*]", "", text)
    text = re.sub(r"[ \t]*\n(?![ \t]*[-#|\n])[ \t]*", " ", text)  # a wrapped line goes on
    found: list[str] = []
    for line in text.split("\n"):
        line = re.sub(r"^\s*[-#|]+\s*", "", line)
        found += [part.strip() for part in re.split(r"(?<=[.!?])\s+", line) if part.strip()]
    return found


@dataclass(frozen=True)
class PolicyReading:
    """What the policy text says about out-of-scope requests (see the module doc)."""

    prohibitions: tuple[str, ...]  # sentences telling the agent it cannot or must not do something
    restricts_promises: bool  # the text lists what the agent must not promise
    out_of_scope: tuple[str, ...]  # PolicyRules.transfer.out_of_scope

    def refusal(self, request: str) -> str | None:
        """The prohibition that names ``request`` (it must be refused), or None."""
        words = content_words(request)
        return next((s for s in self.prohibitions if words & content_words(s)), None)

    @property
    def hand_offs(self) -> list[str]:
        """The out-of-scope requests the policy lets the agent hand off, in declared order."""
        return [r for r in self.out_of_scope if self.refusal(r) is None]


def read_policy(spec: EnvSpec) -> PolicyReading:
    transfer = spec.policy_rules.transfer
    return _reading(spec.policy, tuple(transfer.out_of_scope) if transfer else ())


@lru_cache(maxsize=256)
def _reading(policy: str, out_of_scope: tuple[str, ...]) -> PolicyReading:
    found = sentences(policy)
    return PolicyReading(
        prohibitions=tuple(s for s in found if PROHIBITION.search(s)),
        restricts_promises=any(PROMISES.search(s) for s in found),
        out_of_scope=out_of_scope,
    )


def asks_for_person(text: str) -> bool:
    """Whether ``text`` (a user's message) asks for a person: a human, a person, a representative."""
    return bool(ASKS_FOR_PERSON.search(text))
