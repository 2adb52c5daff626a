"""Value-flow chains: a value that is not an id (a date, an amount, an address, a count),
read on one server, that a tool of another server needs, for any set of servers.

Built from the servers' specs alone (``ValueFlowComposer``):

* **pairs**: every read tool's scalar output (outside lists) and every tool's parameter the
  user types (never an entity, never who the user is) of the same kind of value
  (``eval.shapes.value_kind``: ``date``, ``time``, ``money``, ``address``, ``city``, ``count:<unit>``,
  ``measure:<unit>``), on two different servers;
* **the source side**: on the first server, authentication when its policy asks for it,
  then the lookups that reach the reading tool (each looked-up object one the user can
  name: a sibling field tells it apart), the value read from one object;
* **the target side**: on the second server, authentication, the lookups that fill the
  target tool's entities, then the target tool with the read value in the parameter and
  the rest drawn from ``Oracle.viable``;
* **the value really flows**: the target is played again with other values of the same
  kind (``alternatives``); a value is kept only when each of them changes the outcome (an
  error, another output or another state), so an agent that guesses instead of reading
  cannot land on the gold.

The user's message (``LinkedComposer._opening``, ``compose.flow_need``) says the value as
a need ("I'd like my salon appointment on the day my bill at GreenThumb landscaping is
due (I'm under jo@example.com there)"), never the value itself, a tool or a field; the
value is the first claim of the answer. A chain whose message carries the value, a tool or
field name of any offered server, or "then" is rejected (``compose.prompt_flaws``).
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from dataclasses import dataclass
from typing import Any

from envfactory_mcp.env import Environment
from envfactory_mcp.eval.compose import (
    MAX_STEPS,
    MIN_CLAIMS,
    MIN_STEPS,
    EvalTask,
    LinkedComposer,
    Rejected,
    _Step,
    describe_element,
    prompt_flaws,
    values_at,
)
from envfactory_mcp.eval.shapes import value_kind
from envfactory_mcp.runtime import SessionDatabase
from envfactory_mcp.spec import ToolSpec

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{2}:\d{2}(?::\d{2})?$")
NOUNS = {"date": "date", "time": "time", "money": "amount", "address": "address", "city": "city"}
schema_kind = value_kind  # the one shape function (``eval.shapes``), under its old name


def value_fits(kind: str, value: Any) -> bool:
    """Whether a value read at run time is of ``kind`` (a date field that holds a date)."""
    if value is None or isinstance(value, bool):
        return False
    if kind == "date":
        return isinstance(value, str) and bool(_DATE.match(value))
    if kind == "time":
        return isinstance(value, str) and bool(_TIME.match(value))
    if kind in ("address", "city"):
        return isinstance(value, str) and len(value) >= 3 and any(c.isalpha() for c in value)
    if kind.startswith("count:"):
        return isinstance(value, int) and value > 0
    return isinstance(value, int | float) and value > 0


def alternatives(kind: str, value: Any) -> list[Any]:
    """Values of the same kind a guessing agent might use instead (a day later or
    earlier, another amount, another address): the flow is kept only when each of them
    changes the outcome."""
    if kind == "date":
        day = dt.date.fromisoformat(value)
        return [(day + dt.timedelta(days=d)).isoformat() for d in (1, -1)]
    if kind == "time":
        hour, rest = value.split(":", 1)
        return [f"{(int(hour) + 1) % 24:02d}:{rest}"]
    if kind.startswith("count:"):
        return [value + 1] + ([value - 1] if value > 1 else [])
    if kind in ("address", "city"):
        return [f"{value} North"]
    step = 1 if isinstance(value, int) else round(max(1.0, abs(value) * 0.1), 2)
    return [value + step, max(0, value - step)] if value > step else [value + step]


def guess(value: Any) -> Any:
    """What an agent that did not read a value might use instead: the first of
    ``alternatives`` for the value's kind (a day later, one more, another address)."""
    if isinstance(value, str) and _DATE.match(value):
        return alternatives("date", value)[0]
    if isinstance(value, str) and _TIME.match(value):
        return alternatives("time", value)[0]
    if isinstance(value, int) and not isinstance(value, bool):
        return alternatives("count:x", value)[0]
    if isinstance(value, float):
        return alternatives("money", value)[0]
    return alternatives("address", value)[0]


def scalar_outputs(schema: dict[str, Any], prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
    """``(path, schema)`` of every scalar in an output schema outside lists."""
    found: list[tuple[str, dict[str, Any]]] = []
    for name, sub in (schema.get("properties") or {}).items():
        if not isinstance(sub, dict):
            continue
        path = f"{prefix}{name}"
        kind = sub.get("type")
        if kind == "object" or "properties" in sub:
            found.extend(scalar_outputs(sub, path + "."))
        elif kind != "array":
            found.append((path, sub))
    return found


@dataclass(frozen=True)
class Pair:
    """A value ``path`` of ``source`` on server ``reads`` that fits ``param`` of ``target``
    on server ``needs``."""

    reads: str
    source: str
    path: str
    kind: str
    needs: str
    target: str
    param: str


class ValueFlowComposer(LinkedComposer):
    """Builds value-flow ``EvalTask`` s over several environments (deterministic for a seed)."""

    id_prefix = "eval-flow"

    def __init__(self, envs: list[Environment], seed: int = 0) -> None:
        super().__init__(envs, seed=seed, shared_entities=())
        self.pairs = self._pairs()

    def _pairs(self) -> list[Pair]:
        reads: list[tuple[str, str, str, str]] = []
        needs: list[tuple[str, str, str, str]] = []
        for name, server in self.servers.items():
            for tool in server.tools.values():
                if tool.name in server.helpers:
                    continue
                if tool.effect == "read":
                    for path, schema in scalar_outputs(tool.output_schema):
                        kind = value_kind(path, schema)
                        if kind:
                            reads.append((name, tool.name, path, kind))
                properties = tool.input_schema.get("properties") or {}
                for param, spec in tool.params.items():
                    if spec.entity or not spec.user_provided or spec.composed:
                        continue
                    kind = value_kind(param, properties.get(param) or {})
                    if kind:
                        needs.append((name, tool.name, param, kind))
        return [
            Pair(a, s, path, kind, b, t, p)
            for a, s, path, kind in reads
            for b, t, p, other in needs
            if a != b and kind == other
        ]

    # -------------------------------------------------------------- public

    def compose(self, n: int, max_steps: int = 4, attempts_per_task: int = 30) -> list[EvalTask]:
        """Up to ``n`` distinct value-flow tasks, spread over the pairs of servers."""
        if not self.pairs or n <= 0:
            return []
        by_servers: dict[tuple[str, str], list[Pair]] = {}
        for pair in self.pairs:
            by_servers.setdefault((pair.reads, pair.needs), []).append(pair)
        routes = sorted(by_servers)
        tasks: list[EvalTask] = []
        seen: set[str] = set()
        for attempt in range(n * attempts_per_task):
            if len(tasks) >= n:
                break
            rng = random.Random(f"flow:{self.seed}:{attempt}")
            pair = rng.choice(by_servers[routes[attempt % len(routes)]])
            try:
                steps = self._flow_chain(rng, pair, max(MIN_STEPS, min(max_steps + 2, MAX_STEPS)))
            except Rejected:
                continue
            key = json.dumps([(s.server, s.tool, s.arguments) for s in steps], sort_keys=True, default=str)
            if key in seen:
                continue
            seen.add(key)
            task = self._task(steps, len(tasks))
            message = task.task.user_scenario.opening_message
            value = task.claims[0].value
            if (
                len(task.claims) < MIN_CLAIMS
                or _says(message, value)
                or prompt_flaws(message, self.vocabulary)
            ):
                continue
            tasks.append(task)
        return tasks

    # -------------------------------------------------------------- chains

    def _flow_chain(self, rng: random.Random, pair: Pair, max_steps: int) -> list[_Step]:
        sessions = {name: SessionDatabase(s.env.seed_image) for name, s in self.servers.items()}
        source = self._reach(rng, sessions, pair.reads, pair.source, [], {})
        last = len(source) - 1
        found = values_at(source[-1].output, pair.path)
        if len(found) != 1 or not value_fits(pair.kind, found[0][0]):
            raise Rejected("the source holds no value of the kind")
        value = found[0][0]
        for step in source:
            step.source = True
        noun = NOUNS.get(pair.kind) or f"number of {pair.kind.split(':', 1)[1]}s"
        if pair.kind.startswith("measure:"):
            noun = pair.kind.split(":", 1)[1]
        flows = {pair.param: (last, pair.path, noun)}
        target = self._reach(rng, sessions, pair.needs, pair.target, source, {pair.param: value}, flows)
        steps = source + target
        if len(steps) > max_steps:
            raise Rejected("too long")
        self._flows_really(steps, pair, value)
        return steps

    def _reach(
        self,
        rng: random.Random,
        sessions: dict[str, SessionDatabase],
        server: str,
        goal: str,
        before: list[_Step],
        fixed: dict[str, Any],
        flows: dict[str, tuple[int, str, str]] | None = None,
    ) -> list[_Step]:
        """Steps on ``server`` (after ``before``) that end with ``goal``: authentication
        when the policy asks for it, the lookups that fill ``goal``'s entities, then
        ``goal`` with ``fixed`` arguments."""
        srv = self.servers[server]
        rules = srv.env.spec.policy_rules
        tool = srv.tools[goal]
        needs = _entity_needs(tool)
        steps: list[_Step] = []
        offset = len(before)
        if rules.authentication is not None and any(
            rules.needs_authentication(t) for t in (goal, *srv.tools)
        ):
            auth = [t for t in rules.authentication.tools if t in srv.tools and srv.oracle.viable(t)]
            if not auth:
                raise Rejected("no way to sign in")
            name = rng.choice(sorted(auth))
            args = dict(rng.choice(srv.oracle.viable(name)))
            steps.append(self._run(sessions, _Step(server, name, args, {})))
        for _ in range(4):
            shown = _shown(srv.tools, steps, offset)
            missing = {e for e in needs.values() if e not in shown}
            if not missing:
                break
            step = self._lookup(rng, sessions, server, steps, shown, missing, offset)
            if step is None:
                raise Rejected(f"cannot reach {server}.{goal}")
            steps.append(step)
        shown = _shown(srv.tools, steps, offset)
        if any(e not in shown for e in needs.values()):
            raise Rejected(f"cannot reach {server}.{goal}")
        pool = list(srv.oracle.viable(goal)) or [{}]
        for _ in range(8):
            args = _shifted(dict(rng.choice(pool)), fixed)
            linked = self._link(rng, needs, shown, steps, offset)
            if linked is None:
                raise Rejected("an object no one can name")
            for param, (_, _, _, value) in linked.items():
                args[param] = value
            step = _Step(server, goal, args, {}, {p: (i, path, w) for p, (i, path, w, _) in linked.items()})
            step.flows = dict(flows or {})
            try:
                return [*steps, self._run(sessions, step)]
            except Rejected:
                continue
        raise Rejected(f"{server}.{goal} failed with the value")

    def _lookup(
        self,
        rng: random.Random,
        sessions: dict[str, SessionDatabase],
        server: str,
        steps: list[_Step],
        shown: dict[str, list[tuple[int, str, Any, str, int]]],
        missing: set[str],
        offset: int,
    ) -> _Step | None:
        """A read of ``server`` that shows a missing entity (or one a tool that shows it
        needs), filled from what the steps have shown."""
        srv = self.servers[server]
        used = {s.tool for s in steps}
        feeders = {
            e
            for t in srv.tools.values()
            if set(t.outputs.values()) & missing
            for e in _entity_needs(t).values()
        }
        ranked: list[tuple[int, str]] = []
        for name, tool in srv.tools.items():
            if name in used or name in srv.helpers or tool.effect != "read":
                continue
            if any(e not in shown for e in _entity_needs(tool).values()):
                continue
            made = set(tool.outputs.values())
            if made & missing:
                ranked.append((0, name))
            elif made & feeders:
                ranked.append((1, name))
        rng.shuffle(ranked)
        ranked.sort(key=lambda r: r[0])
        for _, name in ranked[:4]:
            tool = srv.tools[name]
            needs = _entity_needs(tool)
            pool = list(srv.oracle.viable(name)) or ([{}] if not tool.input_schema.get("properties") else [])
            if not pool and not needs:
                continue
            for _ in range(4):
                args = dict(rng.choice(pool)) if pool else {}
                linked = self._link(rng, needs, shown, steps, offset)
                if linked is None:
                    break
                for param, (_, _, _, value) in linked.items():
                    args[param] = value
                step = _Step(
                    server, name, args, {}, {p: (i, path, w) for p, (i, path, w, _) in linked.items()}
                )
                try:
                    return self._run(sessions, step)
                except Rejected:
                    continue
        return None

    @staticmethod
    def _link(
        rng: random.Random,
        needs: dict[str, str],
        shown: dict[str, list[tuple[int, str, Any, str, int]]],
        steps: list[_Step],
        offset: int,
    ) -> dict[str, tuple[int, str, str, Any]] | None:
        """A shown value for every entity parameter (the latest step's first), each one the
        user can name: the one of its list, or told apart by a sibling field."""
        linked: dict[str, tuple[int, str, str, Any]] = {}
        for param, entity in needs.items():
            options = [o for o in shown.get(entity, []) if o[3] or o[4] <= 1]
            if not options:
                return None
            latest = max(o[0] for o in options)
            i, path, value, words, _ = rng.choice([o for o in options if o[0] == latest])
            linked[param] = (i, path, words, value)
        return linked

    def _flows_really(self, steps: list[_Step], pair: Pair, value: Any) -> None:
        """Play the target side again with other values of the kind: each must change the
        outcome (an error, another output or another state), else the value does not flow."""
        target = [s for s in steps if s.server == pair.needs]
        srv = self.servers[pair.needs]
        gold = target[-1]
        for other in alternatives(pair.kind, value):
            session = SessionDatabase(srv.env.seed_image)
            for step in target[:-1]:
                done = srv.toolbox.call(session.db, step.tool, step.arguments)
                session.mark_written(done.written)
            outcome = srv.toolbox.call(session.db, gold.tool, {**gold.arguments, pair.param: other})
            if outcome.ok and outcome.output is not None:
                session.mark_written(outcome.written)
                if _same(outcome.output, gold.output) and session.hash() == gold.__dict__["_hash"]:
                    raise Rejected(f"{pair.param} does not change what {pair.target} does")


def _shifted(args: dict[str, Any], fixed: dict[str, Any]) -> dict[str, Any]:
    """``args`` with ``fixed`` in, and every other date moved by as many days as the fixed
    date moved (a return date stays as many days after the pickup as it was)."""
    out = {**args, **fixed}
    for param, value in fixed.items():
        old = args.get(param)
        if not (isinstance(value, str) and _DATE.match(value) and isinstance(old, str) and _DATE.match(old)):
            continue
        days = dt.date.fromisoformat(value) - dt.date.fromisoformat(old)
        for other, was in args.items():
            if other not in fixed and isinstance(was, str) and _DATE.match(was):
                out[other] = (dt.date.fromisoformat(was) + days).isoformat()
    return out


def _entity_needs(tool: ToolSpec) -> dict[str, str]:
    return {p: str(s.entity) for p, s in tool.params.items() if s.entity and not s.user_provided}


def _shown(
    tools: dict[str, ToolSpec], steps: list[_Step], offset: int
) -> dict[str, list[tuple[int, str, Any, str, int]]]:
    """entity -> ``(step index in the chain, path, value, words, siblings)`` for every
    entity value ``steps`` showed."""
    shown: dict[str, list[tuple[int, str, Any, str, int]]] = {}
    for i, step in enumerate(steps):
        for path, entity in tools[step.tool].outputs.items():
            for value, element, siblings in values_at(step.output, path):
                words = describe_element(element, siblings, path.rsplit(".", 1)[-1]) if element else ""
                shown.setdefault(entity, []).append((offset + i, path, value, words, len(siblings)))
    return shown


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _says(message: str, value: Any) -> bool:
    """Whether the message carries the value (as written, or a number as a person says it)."""
    text = message.lower()
    forms = {str(value).lower()}
    if isinstance(value, float):
        forms |= {f"{value:.2f}", f"{value:g}"}
    if isinstance(value, str) and _DATE.match(value):
        day = dt.date.fromisoformat(value)
        forms |= {day.strftime("%B %d").lower(), f"{day.strftime('%B').lower()} {day.day}"}
    return any(re.search(rf"(?<![\w.]){re.escape(f)}(?![\w])", text) for f in forms if f)
