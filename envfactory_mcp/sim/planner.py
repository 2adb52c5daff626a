"""A demonstrator blind to the gold (issue 26, build point 1).

``agent_view(task)`` is everything the agent may know of a task: the user's side only (the
scenario's facts, and each goal as the user asks for it). ``BlindDemonstrator`` consumes only
that view, the offered tools and the environment's spec (tool intents, effects, params,
declared outputs and claims, the policy's rules); it never reads ``task.gold``. A fact's
value is used only once the user has said it (all of its ``must`` strings in the user's
text); every other value comes from a tool output. An object the user describes (an order
by its items, an item by its options) is found by calling lookups and reading the
candidates one by one until one matches the user's words.

Before it proposes a write it checks the policy's rules on it: a status rule on the state
the lookup shows, and each declared business rule (``policy_rules.rules``: an amount limit,
a quota, a time window, an eligibility, mutually exclusive states; ``sim.business``) on
what the tools have shown, making first the read a rule needs (the order's date, the
customer's open bookings). A write a rule forbids is never proposed: the agent tells what it
found and the rule's reason in words. A write that comes back refused with a rule's reason
(what the rule needed could not be read) is told the same way, never as done.
"""

from __future__ import annotations

import functools
import json
import random
import re
from dataclasses import dataclass
from typing import Any

from envfactory_mcp.llm import ToolCall
from envfactory_mcp.sim import business
from envfactory_mcp.sim.speech import PlainSpeaker, Speaker
from envfactory_mcp.sim.types import AgentTurn, Message
from envfactory_mcp.tasks.addresses import ADDRESS_PARTS
from envfactory_mcp.tasks.model import Claim, Fact, GoldAction, Task
from envfactory_mcp.tasks.oracle import values_at
from envfactory_mcp.tasks.scenario import values_at_list

ASK_LIMIT = 2


@dataclass(frozen=True)
class GoalAsked:
    """One goal as the user asks for it. ``kind`` is "act", "ask", "contingent" or
    "transfer" (a request the policy will refuse reads as "act": the user does not know)."""

    kind: str
    intent: str
    requested: str | None
    condition: str | None
    otherwise: str | None
    request: str | None


@dataclass(frozen=True)
class AgentView:
    """What the agent may know of a task: the user's side, nothing of the gold."""

    task_id: str
    env: str
    facts: tuple[Fact, ...]
    opening_message: str
    goals: tuple[GoalAsked, ...]


def agent_view(task: Task) -> AgentView:
    """The user's side of ``task``; the only thing ``BlindDemonstrator`` reads of it."""
    goals = []
    for g in task.gold.goals:  # each goal's user phrases; not tool, actions, taken, reason
        kind = {"refuse": "act"}.get(g.kind, g.kind)
        # a refused or contingent goal's ``intent`` is what the gold did; the user asked for ``requested``
        intent = g.requested if g.kind in ("refuse", "contingent") and g.requested else g.intent
        goals.append(GoalAsked(kind, intent, g.requested, g.condition, g.otherwise, g.request))
    s = task.user_scenario
    return AgentView(task.task_id, task.env, tuple(s.known_info), s.opening_message, tuple(goals))


_UNSET = object()  # a value not worked out yet
_SPACES = re.compile(r"[_\s]+")
_ALNUM = re.compile(r"[a-z0-9]+")


def _norm(text: str) -> str:
    """Casefolded, every run of ``_`` and whitespace one space (a pure function of the
    text; a short one cached: the same names, intents, values and facts come back every
    turn)."""
    if len(text) <= 512:
        return _norm_short(text)
    return _SPACES.sub(" ", text.casefold())


@functools.lru_cache(maxsize=16384)
def _norm_short(text: str) -> str:
    return _SPACES.sub(" ", text.casefold())


_FILLER = frozenset(
    [
        "me",
        "it",
        "is",
        "be",
        "just",
        "tell",
        "where",
        "what",
        "how",
        "let",
        "know",
        "please",
        "can",
        "could",
        "would",
        "you",
        "your",
        "i",
        "my",
        "stands",
        "stand",
        "there",
        "this",
        "that",
        "and",
        "or",
        "if",
        "its",
        "on",
        "in",
        "at",
        "with",
    ]
)


_STOP = frozenset({"my", "a", "the", "an", "of", "i", "to", "for"})


def _words(text: str) -> set[str]:
    return set(_word_set(text))


@functools.lru_cache(maxsize=4096)
def _word_set(text: str) -> frozenset[str]:
    return frozenset(_ALNUM.findall(_norm(text))) - _STOP


# Between two fields (or two values) of a text the user's words are matched in: a description
# matches inside one value, never across the end of one value and the next field's name
# ("did not travel" + "phone number" is not "the Travel phone line").
SEP = " ¦ "


_NORM_SEP = " ¦ "  # _norm(SEP)


def _glue(left: str, right: str) -> str:
    """``_norm(a + b)`` from ``left = _norm(a)`` and ``right = _norm(b)``: the same but where
    ``a`` ends and ``b`` starts with a run of spaces or ``_``, one run (one space) in the
    whole (``str.casefold`` reads each character alone)."""
    if left.endswith(" ") and right.startswith(" "):
        return left + right[1:]
    return left + right


def _plain(node: dict[str, Any]) -> str:
    """An object's own scalar values, each apart."""
    return SEP.join(str(v) for v in node.values() if not isinstance(v, (dict, list)))


def _subtree_text(node: Any, labels: dict[tuple[str, str], str] | None = None, key: str = "") -> str:
    """The words of ``node``: keys and values, an enum value also in the spec's display words;
    fields apart (``SEP``)."""
    if isinstance(node, dict):
        return SEP.join(f"{k} {_subtree_text(v, labels, k)}" for k, v in node.items())
    if isinstance(node, list):
        return SEP.join(_subtree_text(v, labels, key) for v in node)
    shown = (labels or {}).get((key, str(node)))
    if shown:
        return f"{node} {shown}"
    day = re.match(r"(\d{4})-(\d{2})-(\d{2})", str(node)) if isinstance(node, str) else None
    if day:  # a date also as a person says it ("October 9, 2026")
        year, month, date = int(day[1]), int(day[2]), int(day[3])
        if 1 <= month <= 12:
            return f"{node} {_MONTHS[month - 1]} {date}, {year}"
    return str(node)


_MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip


def _matches(must: list[str], text: str, shown: frozenset[str] = frozenset()) -> bool:
    """Whether every one of the user's words is in ``text`` as whole words; words that are
    the display of an enum value (``shown``) only as that value ("economy" is not "basic
    economy")."""
    return all(
        f"«{_norm(m)}»" in text
        if _norm(m) in shown
        else re.search(r"(?<![\w.])" + re.escape(_norm(m)) + r"(?![\w.]|\.\d)", text)
        for m in must
    )


def _scalars(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return [x for v in node.values() for x in _scalars(v)]
    if isinstance(node, list):
        return [x for v in node for x in _scalars(v)]
    return [node] if isinstance(node, (str, int)) and not isinstance(node, bool) else []


def _stated(fact: Fact, said: str) -> bool:
    """Whether the user said every one of the fact's ``must`` strings; a number only as a
    whole number (the "2" inside a phone number is not two gigabytes), words as written
    ("another reason" says the reason "other")."""
    return all(_said(m.casefold(), said) for m in fact.must)


def _said(must: str, said: str) -> bool:
    if not must:
        return True
    left = r"(?<![\d.])" if must[0].isdigit() else ""
    right = r"(?!\d|\.\d)" if must[-1].isdigit() else ""
    return re.search(left + re.escape(must) + right, said) is not None


def _is_list_param(tool: Any, name: str) -> bool:
    prop = tool.input_schema.get("properties", {}).get(name, {})
    return bool(prop.get("type") == "array")


@dataclass(frozen=True)
class _SpecParts:
    """What a demonstrator reads of its spec alone: an enum value's display words (by
    (column, value)), the words that are such a display, the entity a key names (filled
    as keys are asked about; read only through ``BlindDemonstrator._key_entity``)."""

    labels: dict[tuple[str, str], str]
    shown: frozenset[str]
    key_entities: dict[str, str | None]


_SPEC_PARTS: list[tuple[Any, _SpecParts]] = []


def _spec_parts(spec: Any) -> _SpecParts:
    """The demonstrator's words of ``spec``, worked out once for the spec last asked about
    (a rollout's demonstrators, one an episode, all share the same spec object)."""
    if _SPEC_PARTS and _SPEC_PARTS[0][0] is spec:
        return _SPEC_PARTS[0][1]
    labels: dict[tuple[str, str], str] = {
        (column.name, str(value)): " ".join(f"«{w}»" for w in [label.display, *label.words])
        for table in spec.tables
        for column in table.columns
        for value, label in (column.enum_labels or {}).items()
    }
    # an enum value without display words is said as itself, and means only itself
    # ("card" is not "gift_card")
    plain_enums = {
        (column.name, str(value))
        for table in spec.tables
        for column in table.columns
        for value in column.enum or []
        if isinstance(value, str)
        and re.search(r"[a-z]", value)
        and (column.enum_labels or {}).get(value) is None
    }
    for key in plain_enums:
        labels.setdefault(key, f"«{_norm(key[1])}»")
    shown = frozenset(
        _norm(w)
        for table in spec.tables
        for column in table.columns
        for label in (column.enum_labels or {}).values()
        for w in [label.display, *label.words]
    ) | {_norm(value) for _, value in plain_enums}
    parts = _SpecParts(labels, shown, {})
    _SPEC_PARTS[:] = [(spec, parts)]
    return parts


class BlindDemonstrator:
    """The demonstrator's procedure, deciding from ``agent_view`` and tool outputs only."""

    name = "demonstrator"

    def __init__(self, seed: int = 0, voice: str = "varied", spec: Any = None) -> None:
        if spec is None:
            raise ValueError("the blind demonstrator needs the environment's spec")
        self.seed, self.voice, self.spec = seed, voice, spec
        self._tools = {t.name: t for t in spec.tools}
        parts = _spec_parts(spec)
        self._key_entities = parts.key_entities
        self._labels, self._shown = parts.labels, parts.shown
        self._transfer: object = _UNSET
        self._offered_in_order: list[str] = []
        self._offered: set[str] = set()

    def start(self, task: Task, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self.view = agent_view(task)
        self._offered_in_order = [t["function"]["name"] for t in tools]
        self._offered = set(self._offered_in_order)
        rng = random.Random(f"demonstrator:{self.seed}:{self.view.task_id}")
        self._speech: Speaker | PlainSpeaker = (
            PlainSpeaker(rng) if self.voice == "plain" else Speaker(self.seed, self.view.task_id, self.spec)
        )
        self._outputs: list[tuple[str, dict[str, Any], Any]] = []  # (tool, arguments, output)
        # ``_candidates`` per (entity, outputs read so far): the outputs only grow
        self._candidate_cache: dict[tuple[str, int], list[tuple[Any, str, str]]] = {}
        # the words and scalars of an object read (by its id: what was read is never changed)
        self._texts: dict[int, str] = {}
        self._scalar_lists: dict[int, list[Any]] = {}
        self._normed: dict[int, tuple[str, str]] = {}
        # per number of outputs taken: the outputs that are not errors, the ids created
        self._ok: tuple[int, list[tuple[str, dict[str, Any], Any]]] = (0, [])
        self._made: tuple[int, set[str]] = (0, set())
        # ``_someone_elses`` of an object read, by (its id, the signed-in user)
        self._others: dict[tuple[int, tuple[str, str]], bool] = {}
        self._pending: tuple[str, dict[str, Any]] | None = None
        self._goal = 0
        self._asked: dict[str, int] = {}
        self._awaiting: tuple[str, dict[str, Any]] | None = None
        self._confirmed: tuple[str, dict[str, Any]] | None = None
        self._resolved: dict[int, Any] = {}  # id(fact) -> value read from an output
        self._done_call: tuple[str, dict[str, Any], Any] | None = None
        self._rejected: dict[int, list[Any]] = {}  # id(fact) -> objects that fit but forbid the request
        self._exhausted: set[int] = set()
        self._greeted = False
        self._n = 0
        self._goal_start = 0  # outputs before the current goal's

    # ------------------------------------------------------------------ the turn

    async def act(self, messages: list[Message]) -> AgentTurn:
        self._take_output(messages)
        said = "\n".join(
            str(m.get("content"))
            for m in messages
            if m.get("role") == "user" and isinstance(m.get("content"), str)
        ).casefold()
        if self._awaiting is not None:
            from envfactory_mcp.scoring.policy import affirms

            last = next((m for m in reversed(messages) if m.get("role") == "user"), {})
            if affirms(str(last.get("content") or "")):
                self._confirmed = self._awaiting
            self._awaiting = None
        report: list[str] = []
        for _ in range(len(self.view.goals) + 1):
            step = self._step(said, messages)
            if isinstance(step, AgentTurn):
                if report and step.tool_calls:
                    return self._say(report)
                if report and step.content:
                    return self._say([*report, step.content])
                return step
            if step is None:  # the goal is finished and told
                continue
            report.append(step)
        return self._say(report)

    def _step(self, said: str, messages: list[Message]) -> AgentTurn | str | None:
        # authentication first
        auth = self.spec.policy_rules.authentication
        if auth is not None and auth.tools and not any(o[0] in auth.tools for o in self._ok_outputs()):
            if not self._goals_left() or self._goals_left()[0].kind == "transfer":
                pass
            else:
                ident = [f for f in self.view.facts if f.kind == "identity"]
                for name in auth.tools:
                    tool = self._tools[name]
                    facts = [
                        f
                        for f in ident
                        if f.key.rsplit(".", 1)[-1] in tool.input_schema.get("properties", {})
                    ]
                    needed = set(tool.input_schema.get("required", []))
                    if needed and needed <= {f.key.rsplit(".", 1)[-1] for f in facts}:
                        if all(_stated(f, said) for f in facts):
                            given = {f.key.rsplit(".", 1)[-1]: f.value for f in facts}
                            if not self._called(name, given):
                                return self._call(name, given)
                        elif self._ask_ok("identity"):
                            return self._say(
                                [self._speech.identity([f for f in facts if not _stated(f, said)])]
                            )
                # none fits: go on without
        if self._goal >= len(self.view.goals):
            return self._say([self._speech.close()])
        return self._goal_step(self._goal, said, messages)

    def _goals_left(self) -> tuple[GoalAsked, ...]:
        return self.view.goals[self._goal :]

    # ------------------------------------------------------------------ one goal

    def _goal_step(self, gi: int, said: str, messages: list[Message]) -> AgentTurn | str | None:
        goal = self.view.goals[gi]
        if goal.kind == "transfer":
            tool = self._transfer_tool()
            if self._done_call is None and tool is not None:
                summary = {"summary": self._said_request(goal)}
                return self._call(tool, summary, done=True)
            return self._finish(self._speech.transfer(goal.request or "this"))
        if goal.kind == "ask" and _words(goal.intent) & _TOTAL_WORDS:
            plan = self._total_plan(gi)
            if plan is not None:
                return self._total_step(gi, plan, said, messages)
        tool_name = self._match_tool(goal.intent, reads_only=goal.kind == "ask")  # a question changes nothing
        if tool_name is None:
            return self._finish("")
        tool = self._tools[tool_name]
        if self._done_call is not None:
            refused = business.refused_by(self.spec, self._done_call[0], self._done_call[2])
            if refused is not None:  # a rule refused the write after all: said as a refusal, never a success
                aside = self._aside(gi, tool, said)
                if aside is not None:
                    return aside
                return self._refuse(gi, goal, refused, self._done_call[1])
            return self._finish(self._result(gi, self._done_call))
        write = tool_name in self.spec.policy_rules.confirm
        # the policy's rules on the object's state, read before anything else is asked
        for rule in self.spec.policy_rules.refusals:
            if rule.tool != tool_name:
                continue
            param = next((p for p, s in tool.params.items() if s.entity == rule.entity), None)
            if param is None:
                continue
            part, explore = self._arguments(gi, tool, said, only={param})
            if part is None or param not in part:
                if explore is not None:
                    return self._move(explore, gi, said, messages)
                continue
            shown = self._tools[rule.shown_by]
            sp = next((p for p, s in shown.params.items() if s.entity == rule.entity), param)
            read = self._read_of(rule.shown_by, part[param])
            if read is None:
                return self._call(rule.shown_by, {sp: part[param]})
            got = values_at(read[1], rule.path)
            state = got[0] if got else None
            if state not in rule.allowed:
                # described, not named: another object may fit the words and allow it
                if self._another(gi, part[param]):
                    return self._goal_step(gi, said, messages)
                facts = self._result(gi, (rule.shown_by, read[0], read[1]), lead=False)
                if goal.kind == "contingent" and goal.otherwise:
                    other = self._match_tool(goal.otherwise, strict=True)  # "just tell me" is no tool
                    if other is not None and other != tool_name and other in self.spec.policy_rules.confirm:
                        self.view = _replace_goal(
                            self.view, gi, GoalAsked("act", goal.otherwise, None, None, None, None)
                        )
                        return self._say([facts, self._speech.instead("it", goal.otherwise)])
                    return self._finish(f"{facts} {self._speech.unmet(goal.condition or '', goal.intent)}")
                return self._finish(
                    f"{facts} {self._speech.refusal(goal.requested or goal.intent, rule.reason)}"
                )
        # details the user held back, before the write
        if write:
            held = [
                f
                for f in self.view.facts
                if f.goal == gi
                and (f.kind == "detail" or (f.kind == "reference" and id(f) not in self._resolved))
                and not _stated(f, said)
            ]
            if held:
                group = _group(held)[0]
                key = "|".join(f.key for f in group)
                if self._ask_ok(key):
                    return self._say([self._speech.ask_for(group)])
        args, explore = self._arguments(gi, tool, said)
        if args is None:
            if explore is not None:
                return self._move(explore, gi, said, messages)
            return self._finish("")
        if tool.effect != "read":
            # the declared business rules beyond status, checked on what the tools show
            checked = self._business_step(gi, goal, tool, args, said, messages)
            if not isinstance(checked, _Kept):
                return checked
        if write and self._confirmed != (tool_name, args):
            self._awaiting = (tool_name, args)
            action = GoldAction(server="", name=tool_name, arguments=args, output={}, confirm=True)
            return self._say([self._speech.confirm(action, messages, goal.intent)])
        return self._call(tool_name, args, done=True)

    def _another(self, gi: int, value: Any) -> bool:
        """Whether the object ``value`` was taken for a description of this goal another
        object may also fit (described, not named): it is set aside and the goal looked at
        again; False when the user named it, or every other candidate was read."""
        fact = next(
            (
                f
                for f in self.view.facts
                if f.goal == gi and self._resolved.get(id(f)) == value and id(f) not in self._exhausted
            ),
            None,
        )
        if fact is None:
            return False
        self._rejected.setdefault(id(fact), []).append(value)
        del self._resolved[id(fact)]
        return True

    def _business_step(
        self, gi: int, goal: GoalAsked, tool: Any, args: dict[str, Any], said: str, messages: list[Message]
    ) -> AgentTurn | str | _Kept | None:
        """Each declared business rule on the write (``policy_rules.rules``), checked on what
        the tools have shown before the write is proposed (``sim.business``), making first the
        read that shows what a rule needs; a rule that forbids the write is explained to the
        user with its reason and the write never proposed. ``_KEPT``: none forbids it (or
        what one needs cannot be read: the runtime still refuses it, see ``_refuse``)."""
        for rule in self.spec.policy_rules.business_rules_for(tool.name):
            verdict = business.judge(self.spec, rule, args, self._ok_outputs())
            if verdict is None:
                read = business.lookup(self.spec, rule, args, self._called)
                if read is not None:
                    return self._call(*read)
                continue
            if not verdict:
                continue
            subject = business.subject_of(rule)
            if (
                subject is not None
                and rule.kind in ("window", "eligibility")
                and self._another(gi, args[subject])
            ):
                return self._goal_step(gi, said, messages)  # another object may fit the words and allow it
            aside = self._aside(gi, tool, said)
            if aside is not None:
                return aside
            return self._refuse(gi, goal, rule, args)
        return _KEPT

    def _aside(self, gi: int, tool: Any, said: str) -> AgentTurn | None:
        """Before a refusal is told: the lookup of an object the user named with the request
        that the write does not take (another item they asked about), when it is not read
        yet; None when there is none left to read."""
        props = tool.input_schema.get("properties", {})
        for fact in self.view.facts:
            if fact.goal != gi or fact.kind != "reference" or fact.key.rsplit(".", 1)[-1] in props:
                continue
            entity = self._key_entity(fact.key)
            if entity is not None and self._fact_value(fact, entity, said, []) is _UNREAD:
                explore = self._explore(entity, fact)
                if explore is not None:
                    return self._call(*explore)
        return None

    def _refuse(self, gi: int, goal: GoalAsked, rule: Any, args: dict[str, Any]) -> str | None:
        """The goal ends refused by ``rule``: what was read for it (the claims of its lookups,
        and the rule's own column on the object it is about: the date a window counts from,
        the state an eligibility asks for) and the rule's reason, in words."""
        facts = ""
        if getattr(rule, "entity", None) is not None:  # a status rule: its object's state as read
            param = next(
                (p for p, s in self._tools[rule.tool].params.items() if s.entity == rule.entity), None
            )
            read = self._read_of(rule.shown_by, args.get(param)) if param else None
            if read is not None:
                facts = self._result(gi, (rule.shown_by, read[0], read[1]), lead=False, refusing=True)
        else:
            name = business.subject_of(rule)
            about = self._subject_read(args.get(name)) if name is not None else None
            column = getattr(rule, "column", None) if rule.kind in ("window", "eligibility") else None
            # the object it is about, and the latest of each other kind of lookup made for the
            # request (the options of the item asked for), never another object of its kind
            reads = [about] if about is not None else []
            kinds = {about[0]} if about is not None else set()
            for done in reversed(self._ok_outputs()[self._goal_start :]):
                if self._tools[done[0]].effect == "read" and done[0] not in kinds:
                    kinds.add(done[0])
                    reads.append(done)
            # and where an object the user named beside what the write takes was read
            props = self._tools[rule.tool].input_schema.get("properties", {})
            for fact in self.view.facts:
                value = self._resolved.get(id(fact))
                if fact.goal != gi or value is None or fact.key.rsplit(".", 1)[-1] in props:
                    continue
                where = next(
                    (
                        done
                        for done in reversed(self._ok_outputs())
                        if self._tools[done[0]].effect == "read" and str(value) in map(str, _scalars(done[2]))
                    ),
                    None,
                )
                if where is not None and where not in reads:
                    reads.append(where)
            claims: list[Claim] = []
            for done in reads:
                for claim in self._claims(gi, done, also=column if done is about else None, used=args):
                    if claim not in claims:
                        claims.append(claim)
            if claims:
                main = reads[0]
                action = GoldAction(server="", name=main[0], arguments=main[1], output=main[2], confirm=False)
                named = next(
                    (f.text for f in reversed(self.view.facts) if f.goal == gi and f.kind == "reference"),
                    None,
                )
                facts = self._speech.claims(
                    claims, self._speech.subject(action), action, lead=False, element=named
                )
        return self._finish(f"{facts} {self._speech.refusal(goal.requested or goal.intent, rule.reason)}")

    def _subject_read(self, value: Any) -> tuple[str, dict[str, Any], Any] | None:
        """The latest read made with ``value`` as an argument (the object a rule is about)."""
        if value is None:
            return None
        for name, args, output in reversed(self._ok_outputs()):
            tool = self._tools.get(name)
            if (
                tool is not None
                and tool.effect == "read"
                and any(str(v) == str(value) for v in args.values())
            ):
                return name, args, output
        return None

    # ------------------------------------------------------------------ a total

    def _me(self) -> tuple[str, str] | None:
        """The signed-in user: (entity, id) from the authentication call's declared output."""
        auth = self.spec.policy_rules.authentication
        for name, _, output in self._ok_outputs():
            if auth is None or name not in auth.tools:
                continue
            for path, entity in self._tools[name].outputs.items():
                if "." not in path and "[]" not in path and output.get(path) is not None:
                    return entity, str(output[path])
        return None

    def _someone_elses(self, node: dict[str, Any], me: tuple[str, str]) -> bool:
        """Whether an object names, as its owner, a user other than the signed-in one
        (once per object read and signed-in user: what was read is never changed)."""
        key = (id(node), me)
        found = self._others.get(key)
        if found is None:
            found = self._others[key] = self._owned_by_other(node, me)
        return found

    def _owned_by_other(self, node: dict[str, Any], me: tuple[str, str]) -> bool:
        return any(
            not isinstance(v, (dict, list))
            and v is not None
            and str(v) != me[1]
            and self._key_entity(k) == me[0]
            for k, v in node.items()
        )

    def _key_entity(self, key: str) -> str | None:
        """The entity a fact's key names: a parameter of that name, an output of that name,
        else the key without its ``_id`` (``flight_id`` -> ``flight``)."""
        last = key.rsplit(".", 1)[-1]
        if last not in self._key_entities:
            self._key_entities[last] = self._find_key_entity(last)
        return self._key_entities[last]

    def _find_key_entity(self, last: str) -> str | None:
        entities = {e for t in self.spec.tools for e in t.outputs.values()}
        for tool in self.spec.tools:
            param = tool.params.get(last)
            if param is not None and param.entity:
                return str(param.entity)
            for path, entity in tool.outputs.items():
                if path.rsplit(".", 1)[-1].removesuffix("[]") == last:
                    return str(entity)
        bare = re.sub(r"_ids?$", "", last)
        return bare if bare in entities else None

    def _total_plan(self, gi: int) -> tuple[Any, str, str, dict[str, list[Fact]], list[Fact]] | None:
        """For "how much would they cost together": the lookup whose output lists the
        objects the user named with an amount each (a claim through a list), the user's
        facts for each of its parameters, and the facts naming the listed objects."""
        calculator = self.spec.policy_rules.calculator
        if calculator is None or calculator not in self._tools:
            return None
        refs = [f for f in self.view.facts if f.goal == gi and f.kind == "reference"]
        best: tuple[int, Any] | None = None
        for tool in self.spec.tools:
            if tool.effect != "read":
                continue
            for claim in tool.claims:
                if "[]." not in claim:
                    continue
                prefix, rest = claim.split("[].", 1)
                listed = {e for p, e in tool.outputs.items() if p.startswith(prefix + "[].")}
                elements = [f for f in refs if self._key_entity(f.key) in listed]
                if not elements:
                    continue
                params = {
                    p: [
                        f
                        for f in self.view.facts
                        if f.goal == gi and f.key.rsplit(".", 1)[-1] == p and f not in elements
                    ]
                    for p in tool.input_schema.get("properties", {})
                }
                required = tool.input_schema.get("required", [])
                if any(not params.get(r) for r in required):
                    continue
                plan = (tool, prefix, rest, {p: fs for p, fs in params.items() if fs}, elements)
                if best is None or len(elements) > best[0]:
                    best = (len(elements), plan)
        return best[1] if best else None

    def _total_step(
        self,
        gi: int,
        plan: tuple[Any, str, str, dict[str, list[Fact]], list[Fact]],
        said: str,
        messages: list[Message],
    ) -> AgentTurn | str | None:
        """Look each object up, read its amount, add them with the calculator, say the sum.
        The user's values pair up in the order said (the first date with the first route)."""
        if self._done_call is not None:
            return self._finish(self._result(gi, self._done_call))
        tool, prefix, rest, params, elements = plan
        amounts: list[float] = []
        for k, element in enumerate(elements):
            # the user's values pair up in the order said; when the object so paired does not
            # list the element (the user named the bills in another order than their items),
            # each other value in turn
            count = max((len(facts) for facts in params.values()), default=1)
            order = [min(k, count - 1)] + [i for i in range(count) if i != min(k, count - 1)]
            found: Any = None
            for choice in order:
                args: dict[str, Any] = {}
                for p, facts in params.items():
                    fact = facts[min(choice, len(facts) - 1)]
                    entity = tool.params[p].entity if p in tool.params else None
                    value = self._fact_value(fact, entity, said, list(args.values()))
                    if value is _UNSAID:
                        return self._move(_Ask(fact), gi, said, messages)
                    if value is _UNREAD:
                        explore = self._explore(entity, fact)
                        return self._call(*explore) if explore is not None else self._finish("")
                    args[p] = value
                if not _stated(element, said):
                    return self._move(_Ask(element), gi, said, messages)
                read = next(
                    (o for n, a, o in reversed(self._ok_outputs()) if n == tool.name and a == args), None
                )
                if read is None and self._called(tool.name, args):
                    continue  # refused ("origin and destination must differ"): another pairing
                if read is None:
                    return self._call(tool.name, args)
                parent = _plain(read)
                found = next(
                    (
                        e
                        for e in values_at_list(read, prefix)
                        if _matches(
                            element.must, _norm(f"{parent}{SEP}{_subtree_text(e, self._labels)}"), self._shown
                        )
                    ),
                    None,
                )
                if found is not None:
                    break
            values = values_at(found, rest) if found is not None else []
            if not values or not isinstance(values[0], (int, float)):
                return self._finish("")
            amounts.append(float(values[0]))
        calculator = self._tools[str(self.spec.policy_rules.calculator)]
        param = (calculator.input_schema.get("required") or list(calculator.params) or ["expression"])[0]
        return self._call(calculator.name, {param: " + ".join(_number_text(a) for a in amounts)}, done=True)

    def _finish(self, text: str) -> str | None:
        self._goal += 1
        self._goal_start = len(self._ok_outputs())
        self._done_call = None
        self._confirmed = None
        return text or None

    def _result(
        self, gi: int, done: tuple[str, dict[str, Any], Any], lead: bool = True, refusing: bool = False
    ) -> str:
        """The claims of a finished call in words; ``refusing``: nothing when there is
        nothing to claim (a read that showed nothing to tell is no update)."""
        name, args, output = done
        claims = self._claims(gi, done)
        if name not in self._tools or not isinstance(output, dict) or (refusing and not claims):
            return ""
        action = GoldAction(
            server="",
            name=name,
            arguments=args,
            output=output,
            confirm=name in self.spec.policy_rules.confirm,
        )
        refs = [f for f in self.view.facts if f.goal == gi and f.kind == "reference"]
        named = next((f.text for f in reversed(refs)), None)
        return self._speech.claims(claims, self._speech.subject(action), action, lead=lead, element=named)

    def _claims(
        self,
        gi: int,
        done: tuple[str, dict[str, Any], Any],
        also: str | None = None,
        used: dict[str, Any] | None = None,
    ) -> list[Claim]:
        """The declared claims of a finished call (through a list: the element the user's
        words fit; with ``used``, the arguments of the write it was read for, preferably one
        the user named beside what the write takes); ``also``: a top-level output field
        claimed too (the one a business rule reads)."""
        name, _, output = done
        tool = self._tools.get(name)
        if tool is None or not isinstance(output, dict):
            return []
        claims = []
        shown = output.get(also) if also else None
        if (
            also
            and also not in tool.claims
            and isinstance(shown, (str, int, float))
            and not isinstance(shown, bool)
        ):
            claims.append(Claim(tool=name, path=also, value=shown, text=str(shown)))
        refs = [f for f in self.view.facts if f.goal == gi and f.kind == "reference"]
        for path in tool.claims:
            if "[]" not in path:
                values = values_at(output, path)
                if values:
                    claims.append(Claim(tool=name, path=path, value=values[0], text=str(values[0])))
                continue
            prefix, rest = path.split("[].", 1)
            elements = values_at_list(output, prefix)
            chosen: list[Any] = []
            parent = _plain(output)
            texts = [_norm(f"{parent}{SEP}{_subtree_text(e, self._labels)}") for e in elements]
            # the element the user's most telling description fits: one that fits the fewest
            # elements ("the 12:10 flight", not the origin every flight of the search shares)
            fits = [
                [e for e, t in zip(elements, texts, strict=True) if _matches(ref.must, t, self._shown)]
                for ref in refs
            ]
            ranked = sorted(
                (len(found), -len(ref.must), k)
                for k, (ref, found) in enumerate(zip(refs, fits, strict=True))
                if found
            )
            if used is not None:  # an object the user named that the write does not take: asked about
                told = [r for r in ranked if refs[r[2]].key.rsplit(".", 1)[-1] not in used]
                ranked = told or ranked
            if ranked:
                chosen = [fits[ranked[0][2]][0]]
            if not chosen and elements:
                chosen = [elements[0]]
            for best in chosen:
                values = values_at(best, rest)
                claim = Claim(tool=name, path=path, value=values[0], text=str(values[0])) if values else None
                if claim is not None and claim not in claims:
                    claims.append(claim)
        return claims

    # ------------------------------------------------------------------ choosing

    def _match_tool(self, phrase: str, reads_only: bool = False, strict: bool = False) -> str | None:
        """The offered tool whose declared intent (then name and description) best matches
        the user's phrase; ``strict``: only a tool whose intent shares most of the phrase's
        content words (a fallback such as "just tell me where it stands" names no tool)."""
        want = _words(phrase)
        if strict:
            content = want - _FILLER
            best_strict, share = None, 0.0
            for tool in self.spec.tools:
                if _norm(tool.intent) == _norm(phrase):
                    return str(tool.name)
                have = (_words(tool.intent) | _words(tool.name)) - _FILLER
                s = len(content & have) / (len(content | (_words(tool.intent) - _FILLER)) or 1)
                if s > share:
                    best_strict, share = tool.name, s
            return best_strict if share >= 0.5 else None
        best, score = None, 0.0
        for tool in self.spec.tools:
            if tool.name in (
                self.spec.policy_rules.authentication.tools if self.spec.policy_rules.authentication else []
            ):
                continue
            if reads_only and tool.effect != "read":
                continue
            if _norm(tool.intent) == _norm(phrase):
                return str(tool.name)
            have = _words(tool.intent) | _words(tool.name)
            s = len(want & have) / (len(want | _words(tool.intent)) or 1) + 0.1 * len(
                want & _words(tool.description)
            )
            if s > score:
                best, score = tool.name, s
        return best

    def _transfer_tool(self) -> str | None:
        """The hand-off tool: one that names a human and takes a summary (the spec's, found
        once)."""
        if self._transfer is _UNSET:
            self._transfer = self._find_transfer_tool()
        return self._transfer  # type: ignore[return-value]

    def _find_transfer_tool(self) -> str | None:
        for tool in self.spec.tools:
            words = _words(f"{tool.name} {tool.intent}")
            if words & {"human", "humans", "person", "agent", "agents"} and "summary" in tool.params:
                return str(tool.name)
        return None

    def _said_request(self, goal: GoalAsked) -> str:
        return goal.request or goal.intent

    def _arguments(
        self, gi: int, tool: Any, said: str, only: set[str] | None = None
    ) -> tuple[dict[str, Any] | None, tuple[str, dict[str, Any]] | _Ask | None]:
        """The call's arguments, or None and a lookup to read next (or a value to ask for)."""
        args: dict[str, Any] = {}
        props = tool.input_schema.get("properties", {})
        required = set(tool.input_schema.get("required", []))
        # one-value parameters first: a list's elements are looked for beside them (the items
        # of the order named)
        for name in sorted(props, key=lambda n: _is_list_param(tool, n)):
            if only is not None and name not in only:
                continue
            facts = [f for f in self.view.facts if f.key.rsplit(".", 1)[-1] == name]
            # this goal's own, else what names an object the user spoke of earlier (a detail
            # given for another request is not this one's: an address without a second line)
            mine = [f for f in facts if f.goal == gi] or [f for f in facts if f.kind != "detail"]
            # a detail the user gave for this very action (its key names the action) over one
            # given for a search on the way
            mine = [f for f in mine if f.key.rsplit(".", 1)[0] in (name, tool.name)] or mine
            param = tool.params.get(name)
            entity = param.entity if param else None
            if not mine and entity is not None:
                # the object this goal is about, named under another key ("the account ending
                # 8609" given as account_id, asked as from_account_id): never guessed
                mine = [
                    f
                    for f in self.view.facts
                    if f.goal == gi
                    and f.kind == "reference"
                    and f.key.rsplit(".", 1)[-1] not in props
                    and self._key_entity(f.key) == entity
                ]
            if mine:
                values = []
                for fact in mine:
                    value = self._fact_value(fact, entity, said, list(args.values()))
                    if value is _UNSAID:
                        return None, _Ask(fact)
                    if value is _UNREAD:
                        # after a rejection, only lookups that list this kind of object directly
                        explore = self._explore(entity, fact, direct=bool(self._rejected.get(id(fact))))
                        if explore is None and self._rejected.get(id(fact)):
                            value = self._rejected[id(fact)][0]  # none other fits: the first one
                            self._resolved[id(fact)] = value
                            self._exhausted.add(id(fact))
                        else:
                            return None, explore
                    values.append(value)
                if _is_list_param(tool, name):
                    flat: list[Any] = []
                    for v in values:
                        flat.extend(v if isinstance(v, list) else [v])
                    args[name] = flat
                else:
                    args[name] = values[-1]
                continue
            if entity is not None and name in required:
                ids = self._ids_of(entity)
                if ids:
                    args[name] = [ids[0]] if _is_list_param(tool, name) else ids[0]
                    continue
                if name in required:
                    return None, self._explore(entity, None)
            if name in ADDRESS_PARTS and name in required:
                args[name] = ""  # an address part the user has not got (a second line)
                continue
            if name in required:
                return None, None
        return args, None

    def _fact_value(self, fact: Fact, entity: str | None, said: str, beside: list[Any]) -> Any:
        if _stated(fact, said) and (
            fact.kind != "reference" or _norm(json.dumps(fact.value)).strip('"') in _norm(said)
        ):
            return fact.value
        if id(fact) in self._resolved:
            return self._resolved[id(fact)]
        if not _stated(fact, said):
            return _UNSAID  # the user has not said it yet: asked for, never guessed
        if fact.kind == "reference" and entity is not None:
            created = self._created()
            same_goal = {id(f) for f in self.view.facts if f.goal == fact.goal}
            used = {str(v) for k, v in self._resolved.items() if k in same_goal}
            open_ = [
                (value, text, whole)
                for value, text, whole in self._candidates(entity, with_output=True)
                if str(value) not in used
                and str(value) not in created  # the user spoke of what existed before the call
                and value not in self._rejected.get(id(fact), [])
            ]
            found3 = [c for c in open_ if _matches(fact.must, c[1], self._shown)]
            if self._rejected.get(id(fact)):
                # another object in place of one that fitted every word: its own values must
                # say the user's names whole ("Everyday Checking" is not in a savings account
                # because a transfer to it is listed there)
                found3 = [c for c in found3 if self._says_whole(entity, c[0], fact.must)]
            if (
                not found3
                and len(fact.must) > 1
                and not self._rejected.get(id(fact))  # one fitted every word: it stays the answer
                and self._explore(entity, fact) is None
            ):
                # nothing left to read and no object shows every word the user said (a plan
                # named only where no lookup shows it): the one object that shows most of
                # them, when it is one and shows most
                score: dict[str, int] = {}
                for v, text, _ in open_:  # an object read in several places: its best reading
                    fits = sum(bool(_matches([m], text, self._shown)) for m in fact.must)
                    score[str(v)] = max(score.get(str(v), 0), fits)
                top = max(score.values(), default=0)
                if 2 * top > len(fact.must) and list(score.values()).count(top) == 1:
                    best = next(v for v, n in score.items() if n == top)
                    found3 = [c for c in open_ if str(c[0]) == best][:1]
            found = [(value, whole) for value, _, whole in found3]
            # an object another of the user's descriptions also fits ("my order with the
            # helmet" where the order with the water bottle holds a helmet too) is taken only
            # when no other object read or still to read fits this one alone
            others = [
                f
                for f in self.view.facts
                if f is not fact and f.kind == "reference" and f.key == fact.key and f.must != fact.must
            ]
            alone = [
                (v, whole)
                for v, text, whole in found3
                if not any(_matches(o.must, text, self._shown) for o in others)
            ]
            if found and not alone and self._explore(entity, fact, direct=True) is not None:
                return _UNREAD
            found = alone or found
            near = [
                v for v, whole in found if any(_norm(str(b)) in whole for b in beside if b not in (None, ""))
            ]
            if found:
                value = (near or [v for v, _ in found])[0]
                self._resolved[id(fact)] = value
                return value
        if not _stated(fact, said):
            return _UNREAD
        return fact.value if fact.kind != "reference" else _UNREAD

    def _says_whole(self, entity: str, value: Any, must: list[str]) -> bool:
        """Whether every one of the user's words but a date is a whole value of the object
        ``value`` as read (a field of its own, or of a read made with it), not words inside
        another value ("Everyday Checking" is not said of a savings account by a listed
        "Transfer to Everyday Checking 2097") nor a field of an object it points at (the
        replacement card is not "ending 2832" because the card it replaces is)."""
        words = [_norm(m) for m in must if not re.search(r"[A-Za-z]+ \d{1,2}\b", m)]
        if not words:
            return True
        # the object's own node: where its id sits under the name a read takes it by
        # (card_id, not replaced_by_card_id)
        scalar = {
            name
            for tool in self.spec.tools
            if tool.effect == "read"
            for name, param in tool.params.items()
            if param.entity == entity
        }
        values: set[str] = set()

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                if any(str(node.get(key)) == str(value) for key in scalar if key in node):
                    for k, v in node.items():
                        if not isinstance(v, (dict, list)):
                            values.add(_norm(str(v)))
                            shown = self._labels.get((k, str(v)))
                            if shown:
                                values.update(w.strip("« ") for w in shown.split("»"))
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)

        for _, args, output in self._ok_outputs():
            if str(value) in {str(v) for v in args.values()}:
                values.update(_norm(str(v)) for v in _scalars(output))
            walk(output)
        return all(m in values for m in words)

    def _id_fields(self, entity: str) -> tuple[set[str], set[str]]:
        scalar, listed = set(), set()
        for tool in self.spec.tools:
            for path, e in tool.outputs.items():
                if e != entity:
                    continue
                last = path.rsplit(".", 1)[-1]
                if last.endswith("[]"):
                    listed.add(last[:-2])
                else:
                    scalar.add(last)
        return scalar, listed

    def _candidates(self, entity: str, with_output: bool = False) -> list[Any]:
        """(id, the text around it) for every object of ``entity`` seen in an output, in the
        order read; the text is the object's own subtree and its ancestors' plain values."""
        key = (entity, len(self._outputs))
        cached = self._candidate_cache.get(key)
        if cached is None:
            cached = self._candidate_cache[key] = self._read_candidates(entity)
        return list(cached) if with_output else [(v, t) for v, t, _ in cached]

    def _read_candidates(self, entity: str) -> list[tuple[Any, str, str]]:
        """``_candidates`` with the whole output each was read in, worked out anew."""
        scalar, listed = self._id_fields(entity)
        out: list[tuple[Any, str, str]] = []

        me = self._me()

        # ``context`` is ``_norm`` of the ancestors' plain values (each after ``SEP``), kept
        # normalised as it grows (``_glue``): the same text as normalising it whole
        def walk(node: Any, context: str, whole: str) -> None:
            if isinstance(node, dict):
                if me is not None and self._someone_elses(node, me):
                    return  # another customer's: never what the signed-in user means
                plain, text = self._normed_of(node)
                for key, value in node.items():
                    if key in scalar and not isinstance(value, (dict, list)) and value is not None:
                        # the object's words, and those of what it points at (a ticket's line label)
                        joined = SEP.join(
                            about[str(v)] for v in self._scalars_of(node) if str(v) in about and v != value
                        )
                        joined += pointing.get(str(value), "")  # and of what points at it (a line's ticket)
                        said = _glue(_glue(_glue(_glue(context, _NORM_SEP), text), _NORM_SEP), _norm(joined))
                        out.append((value, said, whole))
                    if key in listed and isinstance(value, list):
                        out.extend((v, "", whole) for v in value if not isinstance(v, (dict, list)))
                inner = _glue(_glue(context, _NORM_SEP), plain)
                for value in node.values():
                    walk(value, inner, whole)
            elif isinstance(node, list):
                for value in node:
                    walk(value, context, whole)

        about: dict[str, str] = {}
        pointing: dict[str, str] = {}
        for name, args, output in self._ok_outputs():
            plain = _plain(output)
            for v in output.values():
                if isinstance(v, (str, int)) and not isinstance(v, bool):
                    pointing[str(v)] = pointing.get(str(v), "") + SEP + plain
            tool = self._tools.get(name)
            if tool is not None and tool.effect != "read":
                continue  # a booking paid with a card says nothing of the card's other uses
            for v in args.values():
                if isinstance(v, (str, int)):
                    about[str(v)] = about.get(str(v), "") + SEP + plain
        # what a write returned replaces what was read of that object before it
        changed: dict[str, int] = {}
        spans: list[tuple[int, int]] = []
        for index, (name, args, output) in enumerate(self._ok_outputs()):
            start = len(out)
            walk(output, "", self._normed_of(output)[1])
            spans.append((start, len(out)))
            tool = self._tools.get(name)
            if tool is not None and tool.effect == "write":
                # the object it acted on, as it now is: named in the call and returned whole
                # (not the account a card points at, nor the card a payment used)
                given = {str(v) for v in _scalars(args)}
                for path in tool.outputs:
                    if "[]" not in path and "." not in path and str(output.get(path)) in given:
                        changed[str(output[path])] = index
        return [
            entry
            for index, (start, end) in enumerate(spans)
            for entry in out[start:end]
            if changed.get(str(entry[0]), -1) <= index
        ]

    def _normed_of(self, node: dict[str, Any]) -> tuple[str, str]:
        """``_norm`` of ``_plain(node)`` and of ``_text_of(node)``, worked out once an episode."""
        found = self._normed.get(id(node))
        if found is None:
            found = self._normed[id(node)] = (_norm(_plain(node)), _norm(self._text_of(node)))
        return found

    def _text_of(self, node: dict[str, Any]) -> str:
        """``_subtree_text(node)`` of an object read, worked out once an episode."""
        found = self._texts.get(id(node))
        if found is None:
            found = self._texts[id(node)] = _subtree_text(node, self._labels)
        return found

    def _scalars_of(self, node: dict[str, Any]) -> list[Any]:
        """``_scalars(node)`` of an object read, worked out once an episode."""
        found = self._scalar_lists.get(id(node))
        if found is None:
            found = self._scalar_lists[id(node)] = _scalars(node)
        return found

    def _ids_of(self, entity: str) -> list[Any]:
        seen: list[Any] = []
        for value, _ in self._candidates(entity):
            if value not in seen:
                seen.append(value)
        return seen

    def _explore(
        self, entity: str | None, fact: Fact | None, direct: bool = False
    ) -> tuple[str, dict[str, Any]] | None:
        """The next lookup to read: a read tool that declares ``entity`` in its output (its
        candidates in the order listed, the likeliest first), else one that leads there."""
        if entity is None:
            return None
        leads = {entity}
        for tool in self.spec.tools:
            if entity in tool.outputs.values():
                leads |= {p.entity for p in tool.params.values() if p.entity}
        must = [_norm(m) for m in (fact.must if fact else [])]
        options: list[tuple[float, int, str, dict[str, Any]]] = []
        auth = self.spec.policy_rules.authentication
        for tool in self.spec.tools:
            if (
                tool.effect != "read"
                or tool.name in (auth.tools if auth else [])
                or tool.name == self._transfer_tool()
            ):
                continue
            outs = set(tool.outputs.values())
            rank = 2.0 if entity in outs else 1.0 if outs & leads and not direct else 0.0
            if rank == 0.0:
                continue
            required = tool.input_schema.get("required", [])
            if not required:
                if entity in outs and not self._called(tool.name, {}):
                    options.append((-rank, -1, tool.name, {}))
                continue
            if any(not (tool.params.get(r) and tool.params[r].entity) for r in required):
                continue
            r = required[0]
            ent = tool.params[r].entity
            assert ent is not None
            if direct and ent != entity:
                continue  # read the objects themselves, not each of their transactions
            created = self._created()
            cands = [c for c in self._candidates(ent) if str(c[0]) not in created]
            for index, (value, text) in enumerate(cands):
                args = {r: value}
                if self._called(tool.name, args):
                    continue
                score = rank + 0.5 * sum(_matches([m], text, self._shown) for m in must) / (len(must) or 1)
                options.append((-score, index, tool.name, args))
        if not options:
            return None
        options.sort(key=lambda o: (o[0], o[1]))
        return options[0][2], options[0][3]

    def _move(
        self, move: tuple[str, dict[str, Any]] | _Ask, gi: int, said: str, messages: list[Message]
    ) -> AgentTurn | str | None:
        """A lookup to make, or a question for what only the user knows (asked at most
        ``ASK_LIMIT`` times; unanswered, the goal is given up rather than guessed)."""
        if isinstance(move, _Ask):
            group = [f for f in self.view.facts if f.goal == move.fact.goal and f.key == move.fact.key]
            group = [f for f in group if not _stated(f, said)] or [move.fact]
            if self._ask_ok("|".join(f.key for f in group) + f"@{move.fact.goal}"):
                return self._say([self._speech.ask_for(group[:1])])
            return self._finish("")
        return self._call(*move)

    def _created(self) -> set[str]:
        """Ids the calls of this conversation created: an id a write returned at one of
        its declared top-level outputs that no earlier output or argument showed (a new
        reservation). The user's words describe what existed when they spoke. Worked out
        once per output taken (callers only read the set)."""
        if self._made[0] != len(self._outputs):
            self._made = (len(self._outputs), self._find_created())
        return self._made[1]

    def _find_created(self) -> set[str]:
        seen: set[str] = set()
        made: set[str] = set()
        for name, args, output in self._ok_outputs():
            tool = self._tools.get(name)
            given = {str(v) for v in _scalars(args)}
            if tool is not None and tool.effect == "write":
                for path in tool.outputs:
                    if "[]" not in path and "." not in path and output.get(path) is not None:
                        value = str(output[path])
                        if value not in seen and value not in given:
                            made.add(value)
            seen |= given | {str(v) for v in _scalars(output)}
        return made

    def _read_of(self, tool: str, value: Any) -> tuple[dict[str, Any], Any] | None:
        """The latest output of ``tool`` called with ``value``, and its arguments."""
        for name, args, output in reversed(self._ok_outputs()):
            if name == tool and value in args.values():
                return args, output
        return None

    # ------------------------------------------------------------------ calls and outputs

    def _ok_outputs(self) -> list[tuple[str, dict[str, Any], Any]]:
        """The outputs that are not errors, in order (worked out once per output taken;
        callers only read the list)."""
        if self._ok[0] != len(self._outputs):
            self._ok = (
                len(self._outputs),
                [o for o in self._outputs if isinstance(o[2], dict) and "error" not in o[2]],
            )
        return self._ok[1]

    def _called(self, name: str, args: dict[str, Any]) -> bool:
        return any(o[0] == name and o[1] == args for o in self._outputs)

    def _offered_name(self, name: str) -> str:
        """The offered name of the spec's tool ``name``: itself, else the task's own server's
        ``<env>__<name>`` when several servers are offered (a distractor's same-named tool is
        not this environment's), else the first offered ``<server>__<name>`` in the order the
        tools were listed; never chosen by a set's order, which moves with the hash seed."""
        if name in self._offered:
            return name
        own = f"{self.view.env}__{name}"
        if own in self._offered:
            return own
        return next((o for o in self._offered_in_order if o.endswith("__" + name)), name)

    def _call(self, name: str, args: dict[str, Any], done: bool = False) -> AgentTurn:
        bare = name
        offered = self._offered_name(name)
        self._pending = (bare, args)
        self._pending_done = done
        call = ToolCall.parse(f"call_{self._n}", offered, json.dumps(args))
        self._n += 1
        self._greeted = True
        return AgentTurn(tool_calls=[call])

    def _take_output(self, messages: list[Message]) -> None:
        if self._pending is None or not messages or messages[-1].get("role") != "tool":
            return
        content = messages[-1].get("content")
        try:
            output = json.loads(content) if isinstance(content, str) else content
        except json.JSONDecodeError:
            output = {"error": content}
        if not isinstance(output, dict):
            output = {"result": output}
        name, args = self._pending
        self._outputs.append((name, args, output))
        if self._pending_done:
            self._done_call = (name, args, output)
        self._pending = None

    def _ask_ok(self, key: str) -> bool:
        if self._asked.get(key, 0) >= ASK_LIMIT:
            return False
        self._asked[key] = self._asked.get(key, 0) + 1
        return True

    def _say(self, parts: list[str]) -> AgentTurn:
        if not self._greeted:
            parts = [self._speech.greeting(), *parts]
        self._greeted = True
        return AgentTurn(content=" ".join(p for p in parts if p))


class _Unread:
    pass


class _Kept:
    """No declared business rule forbids the write."""


_KEPT = _Kept()


_UNREAD: Any = _Unread()
_UNSAID: Any = _Unread()


@dataclass(frozen=True)
class _Ask:
    """A value only the user can give: ask for it."""

    fact: Fact


_TOTAL_WORDS = frozenset({"together", "total", "altogether", "combined", "sum"})


def _number_text(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def _replace_goal(view: AgentView, index: int, goal: GoalAsked) -> AgentView:
    goals = list(view.goals)
    goals[index] = goal
    return AgentView(view.task_id, view.env, view.facts, view.opening_message, tuple(goals))


def _group(facts: list[Fact]) -> list[list[Fact]]:
    groups: list[list[Fact]] = []
    address: list[Fact] = []
    for fact in facts:
        if fact.key.rsplit(".", 1)[-1] in ADDRESS_PARTS:
            address.append(fact)
        else:
            groups.append([fact])
    return ([address] if address else []) + groups
