"""Metamorphic agents: the demonstrator with one thing changed, to measure the reward (issue 24).

A ``MetamorphicAgent`` wraps the :class:`~envfactory_mcp.sim.demonstrator.DemonstratorAgent`
(the policy-following agent that scores 1.0) and changes one thing in what it says or
does. Modes that do the right thing in their own words must score 1.0 (``should_pass``):

    paraphrase         free text it writes from a user's detail (a ticket description, a
                       visit reason) reworded, and its replies' frames reworded
    spelling           status values in other spellings and synonyms ("canceled",
                       "called off", "has arrived", "paused", 'marked "Closed"')
    numbers            amounts as "$1,219.80", "1219.8 dollars", "USD 1,219.80"; counts and
                       zero amounts in words ("two checked bags", "nothing left to pay")
    dates              dates written out ("June 18, 2026", "Thursday, June 18", "6/18/2026")
    reorder            the claims in other sentences, in another order, over two messages
    negatives          booleans, eligibility and unmet conditions said naturally ("you're
                       not eligible for an upgrade yet", "it isn't pending anymore")

Modes that game the reward must score below 1.0:

    dump               pastes the raw tool output instead of telling the claims
    wrong_value        tells one claim with a wrong value (another status, another amount)
    skip_confirmation  makes each write the policy wants confirmed without asking
    extra_write        makes a write nobody asked for after the last one (a repeat, or the
                       same tool with another valid argument)
    hedge              tells each claim with a conflicting second value ("$54 (maybe $60)")
    wrongful_refusal   refuses one goal it could do and makes no write for it

Phrasings are drawn with ``random.Random(f"metamorphic:{mode}:{seed}:{task_id}")`` from
``sim/metamorphic_words.py``. The wrapper transforms the demonstrator's own turns: the
demonstrator sees the real conversation, plus (for ``skip_confirmation`` and
``wrongful_refusal``) a user's yes or a write's result it never got, so it moves on as
if they had happened. :func:`applicable` says from the task alone whether a mode has
anything to change; after an episode, ``applied`` says whether it did, and ``changes``
what. Episodes where nothing changed are not counted.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

from envfactory_mcp.llm import ToolCall
from envfactory_mcp.sim import metamorphic_text as text_of
from envfactory_mcp.sim import metamorphic_words as words
from envfactory_mcp.sim.demonstrator import DemonstratorAgent
from envfactory_mcp.sim.metamorphic_text import Edit, ask_at, label, mentions, split_sentences
from envfactory_mcp.sim.metamorphic_writes import ExtraWrites, is_write, values_of
from envfactory_mcp.sim.types import AgentTurn, Message
from envfactory_mcp.spec.models import EnvSpec
from envfactory_mcp.tasks.addresses import ADDRESS_PARTS
from envfactory_mcp.tasks.model import Claim, GoalOutcome, Task

GOOD = ("paraphrase", "spelling", "numbers", "dates", "reorder", "negatives")
GAMING = ("dump", "wrong_value", "skip_confirmation", "extra_write", "hedge", "wrongful_refusal")
MODES = GOOD + GAMING
YES = "Yes, please go ahead."  # the yes a skipped confirmation pretends to have had
EXTRA = -1  # the gold index of a call that is none of the gold's
_ANNOUNCE = ["I'll take care of that now.", "Doing that for you now.", "Processing this right away.", ""]
_REFUSALS = [
    "I'm sorry, but I can't {intent} for you.",
    "Unfortunately I'm not able to {intent}.",
    "I'm afraid I can't {intent} here.",
    "Sorry, {intent} is not something I can do.",
]


def should_pass(mode: str) -> bool:
    """Whether an honest reward gives ``mode`` full marks."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
    return mode in GOOD


# ----------------------------------------------------------------- what a task offers a mode


def enum_values(claim: Claim, spec: EnvSpec | None) -> list[str] | None:
    """The values of the spec column ``claim`` reports: a column of that name in a table
    the claim's tool reads or writes first."""
    if spec is None or not isinstance(claim.value, str):
        return None
    name = claim.path.rsplit(".", 1)[-1].replace("[]", "")
    tool = next((t for t in spec.tools if t.name == claim.tool), None)
    own = [*tool.writes, *tool.reads] if tool is not None else []
    ranked: list[tuple[int, list[str]]] = []
    for table in spec.tables:
        for column in table.columns:
            values = [str(v) for v in column.enum or []]
            if claim.value in values:
                ranked.append(((column.name != name) * 2 + (table.name not in own), values))
    return min(ranked, key=lambda r: r[0])[1] if ranked else None


def claim_kind(claim: Claim, spec: EnvSpec | None = None) -> str:
    """bool, money (any float: the demonstrator says each with $), count, date, enum or text."""
    value = claim.value
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, float):
        return "money"
    if isinstance(value, int):
        return "count"
    if not isinstance(value, str):
        return "text"
    if words.is_date(claim.text):
        return "date"
    status = claim.path.rsplit(".", 1)[-1] == "status" or words.status_key(value) in words.STATUS_WORDS
    return "enum" if status or enum_values(claim, spec) is not None else "text"


def free_texts(task: Task, spec: EnvSpec | None, tools: list[dict[str, Any]] | None = None) -> list[str]:
    """Free text the agent writes in a write call that came from a user's detail of two
    or more words (a ticket description; not an address, not a value of an enum)."""
    schemas = {t.name: t.input_schema for t in spec.tools} if spec else {}
    schemas.update({t["function"]["name"]: t["function"].get("parameters") or {} for t in tools or []})
    details = {
        f.value for f in task.user_scenario.known_info if f.kind == "detail" and isinstance(f.value, str)
    }
    found: list[str] = []
    for action in task.gold.actions:
        if not is_write(action, spec):
            continue
        properties = schemas.get(action.name, {}).get("properties", {})
        for key, value in action.arguments.items():
            if (
                isinstance(value, str)
                and value in details
                and key not in ADDRESS_PARTS
                and len(re.findall(r"[A-Za-z]+", value)) >= 2
                and "enum" not in properties.get(key, {})
                and value not in found
            ):
                found.append(value)
    return found


def refusable_goals(task: Task, spec: EnvSpec | None) -> list[int]:
    """Goals the agent serves with a write (what a wrongful refusal can refuse)."""
    return [
        i
        for i, goal in enumerate(task.gold.goals)
        if goal.kind in ("act", "contingent")
        and any(is_write(task.gold.actions[a], spec) for a in goal.actions)
    ]


def _alterable(claim: Claim, spec: EnvSpec | None) -> bool:
    return claim_kind(claim, spec) != "text" or any(c.isdigit() for c in claim.text)


def applicable(mode: str, task: Task, spec: EnvSpec | None = None) -> bool:
    """Whether ``mode`` has anything to change in ``task`` (from the task alone; whether it
    did in an episode is the agent's ``applied``)."""
    should_pass(mode)  # a known mode
    claims = task.gold.claims
    kinds = {claim_kind(c, spec) for c in claims}
    checks: dict[str, Callable[[], bool]] = {
        "paraphrase": lambda: bool(free_texts(task, spec)),
        "spelling": lambda: "enum" in kinds,
        "numbers": lambda: bool(kinds & {"money", "count"}),
        "dates": lambda: "date" in kinds,
        "reorder": lambda: any(sum(c.goal == g for c in claims) >= 2 for g in {c.goal for c in claims}),
        "negatives": lambda: (
            "bool" in kinds or any(g.kind in ("contingent", "refuse") for g in task.gold.goals)
        ),
        "dump": lambda: bool(claims),
        "wrong_value": lambda: any(_alterable(c, spec) for c in claims),
        "hedge": lambda: any(_alterable(c, spec) for c in claims),
        "skip_confirmation": lambda: any(a.confirm for a in task.gold.actions),
        "extra_write": lambda: any(is_write(a, spec) for a in task.gold.actions),
        "wrongful_refusal": lambda: bool(refusable_goals(task, spec)),
    }
    return checks[mode]()


# ----------------------------------------------------------------- the agent


class _Recording(DemonstratorAgent):
    """The demonstrator, noting each goal's report (its claims in words) as it says it."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed, voice="plain")  # its fixed frames are what metamorphic_text finds
        self.reported: list[tuple[int, str]] = []

    def _result(self, task: Task, index: int, goal: GoalOutcome) -> str:
        text = super()._result(task, index, goal)
        self.reported.append((index, text))
        return text


def call_index(call: ToolCall) -> int:
    """The gold index of a demonstrator call (``call_<i>``), ``EXTRA`` for others."""
    head, _, tail = call.id.partition("_")
    return int(tail) if head == "call" and tail.isdigit() else EXTRA


class MetamorphicAgent:
    """The demonstrator with one thing changed (see the module doc). ``spec`` (the
    environment's) tells writes from reads and a status's other values; without it the
    policy's confirmations and common statuses stand in."""

    name = "metamorphic"

    def __init__(self, mode: str, seed: int = 0, spec: EnvSpec | None = None) -> None:
        self.should_pass = should_pass(mode)
        self.mode, self.seed, self.spec = mode, seed, spec
        self._inner = _Recording(seed)
        self.applied = False
        self.changes: list[str] = []  # what was changed, in words
        self.edits: list[tuple[Claim, str, str]] = []  # (claim, what the demonstrator said, what was said)

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self._inner.start(task, tools, system_prompt)
        self._task = task
        self._rng = random.Random(f"metamorphic:{self.mode}:{self.seed}:{task.task_id}")
        self.applied, self.changes, self.edits = False, [], []
        self._view: list[Message] = []  # what the demonstrator sees
        self._seen = 0  # messages of the real conversation already in the view
        self._sent: list[tuple[int, str]] = []  # calls sent and not answered yet: (gold index, name)
        self._results: dict[int, str] = {}  # gold index -> what the tool answered
        self._queue: list[AgentTurn] = []  # turns to say before asking the demonstrator again
        self._next = 0  # the demonstrator's next gold action
        who = "Patient" if any("patient" in k for a in task.gold.actions for k in a.arguments) else "Customer"
        self._rewrites = {t: words.paraphrase(t, self._rng, who) for t in free_texts(task, self.spec, tools)}
        goals = refusable_goals(task, self.spec)
        self._refuse = self._rng.choice(goals) if goals else None
        alterable = [i for i, c in enumerate(task.gold.claims) if _alterable(c, self.spec)]
        self._wrong = self._rng.choice(alterable) if alterable else None
        offered = {t["function"]["name"]: t["function"] for t in tools}
        self._extra = ExtraWrites(task, self.spec, offered, self._results)

    def _note(self, change: str) -> None:
        self.applied = True
        self.changes.append(change)

    async def act(self, messages: list[Message]) -> AgentTurn:
        self._absorb(messages)
        if self._queue:
            return self._send(self._queue.pop(0))
        extra = self._extra.next_call() if self.mode == "extra_write" else None
        if extra is not None:
            return self._send(AgentTurn(tool_calls=[extra]))
        turn = await self._step()
        if self.mode == "skip_confirmation" and turn.content and ask_at(turn.content) is not None:
            turn = await self._skip(turn)
        elif self.mode == "wrongful_refusal" and self._refusing(turn):
            turn = await self._refuse_goal(turn)
        elif turn.content and self._inner.reported and self.mode == "reorder":
            turn = self._reorder(turn.content)
        elif turn.content:
            turn = AgentTurn(content=self._say(turn.content), tool_calls=turn.tool_calls)
        if self.mode == "paraphrase" and turn.tool_calls:
            turn = AgentTurn(content=turn.content, tool_calls=[self._reword_call(c) for c in turn.tool_calls])
        return self._send(turn)

    def _absorb(self, messages: list[Message]) -> None:
        """New messages of the real conversation into the view; tool results paired with
        the calls sent, in order (ids are not relied on: a model server renames them)."""
        for message in messages[self._seen :]:
            self._view.append(message)
            if message.get("role") != "tool" or not self._sent:
                continue
            index, name = self._sent.pop(0)
            text = str(message.get("content") or "")
            failed = text.startswith("Error:")
            if index == EXTRA:
                change = self._extra.answered(name, text, failed)
                if change is not None:
                    self._note(change)
            else:
                self._results[index] = text
                self._extra.gold_answered(index, text, failed)
        self._seen = len(messages)

    def _send(self, turn: AgentTurn) -> AgentTurn:
        self._sent += [(call_index(c), c.name) for c in turn.tool_calls]
        return turn

    async def _step(self) -> AgentTurn:
        self._inner.reported = []
        turn = await self._inner.act(self._view)
        for call in turn.tool_calls:
            self._next = call_index(call) + 1
        return turn

    # ------------------------------------------------------------ writes changed

    async def _skip(self, turn: AgentTurn) -> AgentTurn:
        """The write at once: the demonstrator is told the user said yes; what it said
        before its question stays, the question goes."""
        content = turn.content or ""
        self._view += [turn.as_message(), {"role": "user", "content": YES}]
        following = await self._step()
        if not following.tool_calls:
            return following
        self._note(f"wrote {following.tool_calls[0].name} without asking")
        said = content[: ask_at(content)].strip()
        text = " ".join(p for p in (said, self._rng.choice(_ANNOUNCE)) if p)
        return AgentTurn(content=text or None, tool_calls=following.tool_calls)

    def _refusing(self, turn: AgentTurn) -> bool:
        if self._refuse is None or self.applied:
            return False
        actions = self._task.gold.goals[self._refuse].actions
        if turn.tool_calls:
            index = call_index(turn.tool_calls[0])
            return index in actions and is_write(self._task.gold.actions[index], self.spec)
        return ask_at(turn.content or "") is not None and self._next in actions

    async def _refuse_goal(self, turn: AgentTurn) -> AgentTurn:
        """Refuse the goal: its calls from here on are answered to the demonstrator with
        the gold's output and never sent, and its report is left out."""
        assert self._refuse is not None
        goal = self._task.gold.goals[self._refuse]
        content = turn.content or ""
        said = text_of.SO_GO.sub("", content[: ask_at(content)] if not turn.tool_calls else "").strip()
        current = turn
        while True:
            if current.tool_calls and all(call_index(c) in goal.actions for c in current.tool_calls):
                self._view.append(current.as_message())
                for call in current.tool_calls:
                    output = json.dumps(self._task.gold.actions[call_index(call)].output)
                    self._view.append(
                        {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": output}
                    )
            elif (
                not current.tool_calls
                and ask_at(current.content or "") is not None
                and self._next in goal.actions
            ):
                self._view += [current.as_message(), {"role": "user", "content": YES}]
            else:
                break
            current = await self._step()
        self._note(f"refused goal {self._refuse} ({goal.intent})")
        refusal = self._rng.choice(_REFUSALS).format(intent=re.sub(r"\bmy\b", "your", goal.intent))
        if current.tool_calls:
            self._queue.append(current)
            return AgentTurn(content=" ".join(p for p in (said, refusal) if p))
        rest = current.content or ""
        for index, text in self._inner.reported:
            if index == self._refuse and text:
                rest = rest.replace(text, "").strip()
        return AgentTurn(content=" ".join(p for p in (said, refusal, self._say(rest) if rest else "") if p))

    def _reword_call(self, call: ToolCall) -> ToolCall:
        arguments = dict(call.arguments or {})
        changed = {
            k: self._rewrites[v] for k, v in arguments.items() if isinstance(v, str) and v in self._rewrites
        }
        if not changed:
            return call
        for key, new in changed.items():
            self._note(f"{key}: {arguments[key]!r} -> {new!r}")
        return ToolCall.parse(call.id, call.name, json.dumps({**arguments, **changed}))

    # ------------------------------------------------------------ text changed

    def _say(self, content: str) -> str:
        """The demonstrator's text with this mode's change made to each goal's report (and,
        for some modes, to the rest)."""
        for index, report in self._inner.reported:
            if report and report in content:
                content = content.replace(report, self._report(index, report), 1)
        if self.mode == "paraphrase":
            content = self._reword(content)
        elif self.mode == "negatives":
            content = self._negate(content)
        return content

    def _claims(self, index: int) -> list[Claim]:
        return [c for c in self._task.gold.claims if c.goal == index]

    def _report(self, index: int, text: str) -> str:
        claims = self._claims(index)
        if self.mode == "dump":
            return self._dump(index, text, claims)
        change = {
            "spelling": self._spell,
            "numbers": self._number,
            "dates": self._date,
            "negatives": self._boolean,
            "hedge": self._hedge,
            "wrong_value": self._wrong_value,
        }.get(self.mode)
        if change is None:
            return text
        for claim, start, end in reversed(mentions(text, claims)):
            edit = change(claim, text, start, end)
            if edit is not None:
                s, e, new = edit
                self._note(f"{claim.path}: {text[s:e]!r} -> {new!r}")
                self.edits.append((claim, text[s:e], new))
                text = text[:s] + new + text[e:]
        return text

    def _spell(self, claim: Claim, text: str, start: int, end: int) -> Edit | None:
        if claim_kind(claim, self.spec) != "enum":
            return None
        predicate = self._rng.choice(words.status_predicates(str(claim.value)))
        clause = text_of.status_clause(text, start, end, predicate)
        if clause is not None:
            return clause
        adjectives = [
            p.replace("{now}", "")[3:]
            for p in words.status_predicates(str(claim.value))
            if p.startswith("is ")
        ]
        return start, end, self._rng.choice(adjectives) if adjectives else f'"{claim.text.title()}"'

    def _number(self, claim: Claim, text: str, start: int, end: int) -> Edit | None:
        kind, value = claim_kind(claim, self.spec), claim.value
        if kind == "money" and value != 0:
            forms = [f for f in words.money_forms(float(value), label(claim)) if f != text[start:end]]
            return start, end, self._rng.choice(forms)
        if kind not in ("money", "count"):
            return None
        phrases = (
            words.zero_phrases(label(claim)) if kind == "money" else words.count_phrases(value, label(claim))
        )
        clause = text_of.label_clause(text, start, end, claim, self._rng.choice(phrases))
        return clause or (start, end, "nothing" if kind == "money" else words.say_number(value))

    def _date(self, claim: Claim, text: str, start: int, end: int) -> Edit | None:
        forms = words.date_forms(claim.text) if claim_kind(claim, self.spec) == "date" else []
        return (start, end, self._rng.choice(forms)) if forms else None

    def _boolean(self, claim: Claim, text: str, start: int, end: int) -> Edit | None:
        if not isinstance(claim.value, bool):
            return None
        phrase = self._rng.choice(words.bool_phrases(label(claim), claim.value))
        return text_of.label_clause(text, start, end, claim, phrase) or (start, end, phrase)

    def _alternative(self, claim: Claim) -> str | None:
        kind = claim_kind(claim, self.spec)
        statuses = (enum_values(claim, self.spec) or list(words.COMMON_STATUSES)) if kind == "enum" else None
        key = claim.path.rsplit(".", 1)[-1].replace("[]", "")
        seen = [v for text in self._results.values() for v in values_of(text, key)]
        return words.alternative(claim.value, claim.text, self._rng, statuses, seen)

    def _hedge(self, claim: Claim, text: str, start: int, end: int) -> Edit | None:
        other = self._alternative(claim)
        if other is None:
            return None
        said, kind = text[start:end], claim_kind(claim, self.spec)
        forms = {
            "enum": [
                f"{said}, or possibly still {other}",
                f"{said} (or maybe {other})",
                f"{said}, though it might be {other}",
                f"{said} or {other}, I can't tell for sure",
            ],
            "money": [
                f"{said} (maybe {other})",
                f"{said} or {other}, I'm not sure which",
                f"somewhere between {said} and {other}",
                f"{said}, possibly {other}",
            ],
            "count": [
                f"either {said} or {other}",
                f"{said} (possibly {other})",
                f"{said} or {other}",
                f"{said}, maybe {other}",
            ],
        }.get(
            kind,
            [
                f"{said} (or possibly {other})",
                f"{said}, or maybe {other}",
                f"{said} or {other}",
                f"either {said} or {other}",
            ],
        )
        return start, end, self._rng.choice(forms)

    def _wrong_value(self, claim: Claim, text: str, start: int, end: int) -> Edit | None:
        if self._wrong is None or claim is not self._task.gold.claims[self._wrong]:
            return None
        other = self._alternative(claim)
        return (start, end, other) if other is not None else None

    def _dump(self, index: int, text: str, claims: list[Claim]) -> str:
        """The sentences that tell the claims replaced by the goal's tool outputs, pasted."""
        goal = self._task.gold.goals[index]
        tools = {c.tool for c in claims}
        outputs: list[str] = []
        for i in goal.actions:
            output = self._results.get(i)
            if output and self._task.gold.actions[i].name in tools and output not in outputs:
                outputs.append(output)
        if not outputs and self._results:
            outputs = [self._results[max(self._results)]]
        sentences = split_sentences(text)
        telling = [s for s in sentences if mentions(s, claims)]
        if not telling or not outputs:
            return text
        self._note(f"pasted {len(outputs)} tool output(s) for goal {index}")
        pasted = words.dump(outputs, self._rng)
        kept = [pasted if s is telling[0] else s for s in sentences if s is telling[0] or s not in telling]
        return " ".join(kept)

    def _reorder(self, content: str) -> AgentTurn:
        """The claims sentence by sentence in another order, sometimes over two messages."""
        reports = [(i, t) for i, t in self._inner.reported if t and t in content]
        if not reports:
            return AgentTurn(content=content)
        start = content.find(reports[0][1])
        end = content.find(reports[-1][1]) + len(reports[-1][1])
        blocks: list[list[str]] = []
        for index, text in reports:
            sentences: list[str] = []
            for sentence in split_sentences(text):
                bits = text_of.claim_bits(sentence, self._claims(index))
                sentences += bits if bits else [sentence]
            blocks.append(sentences)
        telling = [
            s for block in blocks for s in block if any(mentions(s, self._claims(i)) for i, _ in reports)
        ]
        if len(telling) < 2:
            return AgentTurn(content=content)
        order = [self._rng.sample(block, len(block)) for block in blocks]
        order = self._rng.sample(order, len(order))
        flat = [s for block in order for s in block]
        if flat == [s for block in blocks for s in block]:
            flat = flat[::-1]
        self._note(f"{len(telling)} claim sentences reordered")
        before, after = content[:start].strip(), content[end:].strip()
        cut = next(
            (i for i in range(1, len(flat)) if set(flat[:i]) & set(telling) and set(flat[i:]) & set(telling)),
            None,
        )
        if cut is not None and self._rng.random() < 0.4:
            self._note("told over two messages")
            self._queue.append(AgentTurn(content=" ".join(p for p in (*flat[cut:], after) if p)))
            return AgentTurn(content=" ".join(p for p in (before, *flat[:cut]) if p))
        return AgentTurn(content=" ".join(p for p in (before, *flat, after) if p))

    def _reword(self, content: str) -> str:
        """Free text as the call wrote it, and the replies' frames in other words."""
        for old, new in self._rewrites.items():
            content = content.replace(old, new)
        return text_of.reword_frames(content, self._rng)

    def _negate(self, content: str) -> str:
        """Unmet conditions, refusals and met conditions said with natural negatives."""
        said = text_of.negate(content, self._rng)
        if said != content:
            self._note("conditions and refusals said with negatives")
        return said
