"""Where the demonstrator said what, for the metamorphic agents to change it (``sim/metamorphic.py``).

The demonstrator tells a claim as ``<subject> is [now] <value>`` or ``the <label> is
<value>`` (amounts with ``$``), asks for confirmation with one of its ``CONFIRM_ASKS``,
and words unmet conditions, refusals and met conditions in fixed frames. These helpers
find those spans (an :data:`Edit` is ``(start, end, new text)``) and reword the frames.
"""

from __future__ import annotations

import itertools
import random
import re

from envfactory_mcp.sim.speech import CLOSINGS, CONFIRM_ASKS, OPENERS
from envfactory_mcp.tasks.model import Claim

Edit = tuple[int, int, str]
ASK_STARTS = tuple(ask.split("{action}")[0] for ask in CONFIRM_ASKS)
OPENER = re.compile(r"\b(?:Done|All set|Here's where things stand): ")
_STATUS_OF = re.compile(r"\b([Tt])he status of ([^,;:.]*?) is ")
_IS = re.compile(r"\bis (now )?$")
SINCE_NOT = re.compile(r"Since it is not (?P<cond>[^,]+), I can't (?P<act>[^;]+); that's where it stands\.")
SORRY = re.compile(r"I'm sorry, but I can't (?P<act>[^:]+): (?P<reason>[^.]+)\.")
SO_GO = re.compile(r"(?:^|(?<=\. ))(?P<subj>[A-Z][^.]*?) is (?P<cond>[^,.]+), so I can go ahead with that\.")
INSTEAD = re.compile(
    r"(?:^|(?<=\. ))(?P<subj>[A-Z][^.]*?) does not qualify for that, so as you asked I'll (?P<act>[^.]+?) instead\."
)
_INSTEAD_SAID = [
    "{subj} isn't eligible for that, so as you asked I'll {act} instead.",
    "That's not possible here: {subj} doesn't qualify. As you asked, I'll {act} instead.",
    "{subj} can't get that, so I'll {act} instead, like you said.",
    "Unfortunately {subj} isn't able to get that; as you asked, I'll {act} instead.",
]
_SINCE_NOT_SAID = [
    "It isn't {cond} anymore, so I'm not able to {act}.",
    "Unfortunately it's no longer {cond}, so I can't {act}.",
    "Because it is not {cond}, I'm unable to {act}.",
    "It's not {cond}, which means I can't {act}.",
]
_SORRY_SAID = [
    "Unfortunately I'm not able to {act}, because {reason}.",
    "I can't {act}, I'm afraid: {reason}.",
    "That isn't possible, sorry: {reason}.",
    "I'm not able to {act}: {reason}.",
]
_SO_GO_SAID = [
    "{subj} is still {cond}, so yes, it qualifies.",
    "Good news: {subj} is {cond}, so that's possible.",
    "{subj} is {cond}, which means I can do that.",
    "{subj} is {cond}, so that's not a problem.",
]


def label(claim: Claim) -> str:
    """What the claim is, in words: ``totals.refunded`` -> ``refunded``."""
    return claim.path.rsplit(".", 1)[-1].replace("[]", "").replace("_", " ")


def ask_at(text: str) -> int | None:
    """Where the demonstrator's request for confirmation starts in ``text``."""
    found = [i for i in (text.find(start) for start in ASK_STARTS) if i >= 0]
    return min(found) if found else None


def mention(claim: Claim) -> str:
    """The claim as the demonstrator says it (an amount with ``$``)."""
    return f"${claim.text}" if isinstance(claim.value, float) else claim.text


def mentions(text: str, claims: list[Claim]) -> list[tuple[Claim, int, int]]:
    """Where each claim is said in ``text``, in claim order, each after the one before."""
    found, position = [], 0
    for claim in claims:
        match = re.compile(r"(?<![\w$])" + re.escape(mention(claim)) + r"(?!\w|\.\d)").search(text, position)
        if match is not None:
            found.append((claim, match.start(), match.end()))
            position = match.end()
    return found


def status_clause(text: str, start: int, end: int, predicate: str) -> Edit | None:
    """'the status of order #W1 is now cancelled' -> 'order #W1 <predicate>' ("{now}" in the
    predicate is "now " where the demonstrator said it)."""
    head = _IS.search(text[:start])
    if head is None:
        return None
    said = predicate.replace("{now}", head.group(1) or "")
    status_of = re.search(r"\b([Tt])he status of ([^,;:.]*?) $", text[: head.start()])
    if status_of is None:
        return head.start(), end, said
    subject = status_of.group(2)
    subject = subject[:1].upper() + subject[1:] if status_of.group(1) == "T" else subject
    return status_of.start(), end, f"{subject} {said}"


def label_clause(text: str, start: int, end: int, claim: Claim, phrase: str) -> Edit | None:
    """'the late fee is $0.00' -> the phrase in its place (capitalised where the clause was)."""
    match = re.search(
        r"\b([Tt])he (?:amount )?" + re.escape(label(claim)) + r"(?: of [^,;.]*?)? is $", text[:start]
    )
    if match is None:
        return None
    return match.start(), end, phrase[:1].upper() + phrase[1:] if match.group(1) == "T" else phrase


def split_sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z\"'])", text.strip()) if s]


def claim_bits(sentence: str, claims: list[Claim]) -> list[str]:
    """A sentence telling several claims ('Done: A, B and C.') as one sentence per claim:
    cut at the first ', ' or ' and ' after each claim's value ([] when there is one claim)."""
    body = OPENER.sub("", sentence).rstrip(".")
    found = mentions(body, claims)
    if len(found) < 2:
        return []
    parts, start = [], 0
    for (_, _, end), (_, following, _) in itertools.pairwise(found):
        cut = re.search(r", | and ", body[end:following])
        if cut is None:
            return []
        parts.append(body[start : end + cut.start()])
        start = end + cut.end()
    parts.append(body[start:])
    return [p.strip()[:1].upper() + p.strip()[1:] + "." for p in parts]


def negate(content: str, rng: random.Random) -> str:
    """Unmet conditions, refusals and met conditions said with natural negatives ("It isn't
    pending anymore, so I'm not able to ...")."""
    content = SINCE_NOT.sub(lambda m: rng.choice(_SINCE_NOT_SAID).format(**m.groupdict()), content)
    content = SORRY.sub(lambda m: rng.choice(_SORRY_SAID).format(**m.groupdict()), content)
    content = INSTEAD.sub(lambda m: rng.choice(_INSTEAD_SAID).format(**m.groupdict()), content)
    return SO_GO.sub(lambda m: rng.choice(_SO_GO_SAID).format(**m.groupdict()), content)


def reword_frames(content: str, rng: random.Random) -> str:
    """The replies' frames in other words: greeting, closing, 'Done:', 'the status of X is',
    'the amount refunded is', 'has been updated' (the values stay as they are)."""
    for old in OPENERS:
        content = content.replace(
            old, rng.choice(["Glad to help.", "No problem.", "Sure thing.", "Absolutely."])
        )
    for old in CLOSINGS:
        content = content.replace(
            old, rng.choice(["Can I help with anything else?", "Anything more I can do?"])
        )
    content = OPENER.sub(
        lambda m: rng.choice(["That's done. ", "Okay, that's taken care of. ", "Finished! "]), content
    )
    content = _STATUS_OF.sub(
        lambda m: (m.group(2)[:1].upper() + m.group(2)[1:] if m.group(1) == "T" else m.group(2)) + " is ",
        content,
    )
    content = re.sub(
        r"\bthe amount (\w+) is ",
        lambda m: rng.choice([f"the {m.group(1)} amount is ", f"the amount {m.group(1)} comes to "]),
        content,
    )
    return content.replace("has been updated", rng.choice(["has been changed", "is now updated"]))
