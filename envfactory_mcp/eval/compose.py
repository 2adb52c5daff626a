"""Evaluation tasks over any set of servers, MCP-Atlas style: what eval composes.

Two kinds of task (``eval.sets.compose_eval_set`` mixes them with ``eval.valueflow``'s and
counts each kind):

* ``single``: a task of one server, made by the project's task generator
  (``tasks.generate``: authentication, confirmations, a natural request from the realiser,
  claims of what the answer must say), played with the other servers offered as
  distractors (their tools offered too, their state must stay untouched). Any set of
  servers builds these.
* ``chain``: a chain across servers where values really flow: a tool's entity output on one
  server fills an entity parameter of a tool on another (``LinkedComposer``: only entities
  the servers share, ``EnvSpec.shared_entities`` or ``--shared-entities``, cross
  servers). It starts with a tool the user can type into (arguments from
  ``Oracle.viable``), names a value drawn from a list by a sibling field that tells it
  apart ("the invoice of 1219.8"), runs every step through each server's own toolbox, and
  keeps the gold state per server.

Every task keeps 2 to 6 claims of what the answer must say (``MIN_CLAIMS``,
``MAX_CLAIMS``), judged by the reward's claim checker (``scoring.claims``). The user's
message is one natural request from the offline realiser (``tasks.realise``), never a tool
or a field name and never a chain of steps.

The result is an ``EvalTask``: a plain ``tasks.model.Task`` that the host plays as it is
(``Task.servers``: the offered servers, its own first; ``gold.actions[].server`` says where
each call goes; the state hashes are ``host.episode.combined_hash`` over the servers when
there are several) plus what the report needs beside it: the tools that matter, initial
and gold state hashes per server, the claims with their kinds, and the links.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from envfactory_mcp import files
from envfactory_mcp.env import Environment
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.eval.claims import AtomicClaim, claim_of
from envfactory_mcp.eval.shapes import identity_key, value_kind
from envfactory_mcp.runtime import SessionDatabase, Toolbox
from envfactory_mcp.spec import ToolSpec
from envfactory_mcp.tasks.model import (
    Calibration,
    Claim,
    Fact,
    Gold,
    GoldAction,
    InitialState,
    Provenance,
    Task,
    UserScenario,
)
from envfactory_mcp.tasks.naturalness import names_tool_or_field

EVAL_SET_VERSION = 2  # 2: the task is played by the host as it is (Task.servers offered, hashes combined)
MIN_TOOLS, MAX_TOOLS = 6, 80  # a chain's servers offer at most MAX_TOOLS tools
MIN_STEPS, MAX_STEPS = 2, 8
MIN_CLAIMS, MAX_CLAIMS = 2, 6
SEP = "__"
KINDS = ("single", "chain", "flow")
EvalKind = Literal["single", "chain", "flow"]


class EvalTask(BaseModel):
    """One cross-server evaluation task (a line of an eval set)."""

    model_config = ConfigDict(extra="forbid")

    eval_version: int = EVAL_SET_VERSION
    kind: EvalKind = "chain"
    task: Task
    offered: list[str]  # every server offered to the agent (``task.servers``: the task's own first)
    initial_hashes: dict[str, str]  # server -> seed state hash
    gold_hashes: dict[str, str]  # server -> gold final state hash (unchanged servers too)
    relevant_tools: list[str]  # namespaced tools the gold uses, in order
    claims: list[AtomicClaim]
    reference_answer: str
    links: list[str] = Field(
        default_factory=list
    )  # "crm__find_customer_by_email.customer_id -> billing__list_invoices.customer_id"
    # Values (not ids) read on one server and needed on another, in the same form:
    # "citycab__get_ride.pickup_date -> coastline__reserve_car.pickup_on".
    flows: list[str] = Field(default_factory=list)

    @property
    def task_id(self) -> str:
        return self.task.task_id

    @property
    def writes(self) -> list[str]:
        """Servers whose gold final state differs from their seed."""
        return [s for s, h in self.gold_hashes.items() if h != self.initial_hashes[s]]


def write_eval_set(tasks: list[EvalTask], path: Path) -> str:
    """Write the eval set (one JSON line per task, sorted keys); returns its sha256."""
    text = "".join(
        json.dumps(t.model_dump(mode="json"), sort_keys=True, ensure_ascii=False) + "\n" for t in tasks
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    files.write_text(path, text)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_eval_set(path: Path) -> list[EvalTask]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise EnvFactoryError(f"{path}: cannot read the eval set: {exc}") from None
    tasks = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            task = EvalTask.model_validate_json(line)
        except ValueError as exc:
            raise EnvFactoryError(f"{path}:{number}: not an eval task: {str(exc).splitlines()[0]}") from None
        if task.eval_version != EVAL_SET_VERSION:
            raise EnvFactoryError(
                f"{path}:{number}: eval set version {task.eval_version}, expected {EVAL_SET_VERSION}"
            )
        tasks.append(task)
    if not tasks:
        raise EnvFactoryError(f"{path}: the eval set holds no task")
    return tasks


def state_of(hashes: dict[str, str]) -> str:
    """The state hash of a task played on ``hashes``' servers, as the host computes it: the
    one server's own, or ``combined_hash`` over several."""
    from envfactory_mcp.host.episode import combined_hash

    return next(iter(hashes.values())) if len(hashes) == 1 else combined_hash(hashes)


def offered_name(server: str, tool: str, offered: list[str]) -> str:
    """A tool as the agent is offered it: namespaced when several servers are offered."""
    return f"{server}{SEP}{tool}" if len(offered) > 1 else tool


# ----------------------------------------------------------------------------- prompts

_THEN = re.compile(r"\bthen\b", re.IGNORECASE)


def set_vocabulary(envs: Iterable[Environment]) -> tuple[set[str], set[str]]:
    """(tool names, field names) of every server of a set: a prompt is offered all of them."""
    from envfactory_mcp.tasks.naturalness import spec_vocabulary

    tools: set[str] = set()
    fields: set[str] = set()
    for env in envs:
        t, f = spec_vocabulary(env.spec)
        tools |= t
        fields |= f
    return tools, fields


def prompt_flaws(message: str, vocabulary: tuple[set[str], set[str]]) -> list[str]:
    """What keeps ``message`` from being an eval prompt: a tool or field name of any offered
    server (``vocabulary``, from ``set_vocabulary``: a distractor's ``check_in`` said as
    "check in" names a field as much as the task's own), or "then" (a list of steps)."""
    flaws = [f"names {n}" for n in names_tool_or_field(message, *vocabulary)]
    if _THEN.search(message):
        flaws.append("then")
    return flaws


# ----------------------------------------------------------------------------- paths


def values_at(output: Any, path: str) -> list[tuple[Any, dict[str, Any] | None, list[dict[str, Any]]]]:
    """``(value, element, siblings)`` for every value at ``path`` (``a.b``, ``items[].id``):
    ``element`` is the list element holding it (None outside lists), ``siblings`` the list."""
    found: list[tuple[Any, dict[str, Any] | None, list[dict[str, Any]]]] = []

    def walk(
        node: Any, parts: list[str], element: dict[str, Any] | None, siblings: list[dict[str, Any]]
    ) -> None:
        if not parts:
            if node is not None and not isinstance(node, dict | list):
                found.append((node, element, siblings))
            return
        head, rest = parts[0], parts[1:]
        if head.endswith("[]"):
            items = node.get(head[:-2]) if isinstance(node, dict) else None
            if isinstance(items, list):
                for item in items:
                    walk(item, rest, item if isinstance(item, dict) else None, items)
        elif isinstance(node, dict) and head in node:
            walk(node[head], rest, element, siblings)

    walk(output, path.split("."), None, [])
    return found


def describe_element(element: dict[str, Any], siblings: list[dict[str, Any]], skip: str) -> str:
    """The field and value that tell ``element`` apart from its siblings (``amount 1219.8``,
    ``pickup_date 2026-07-07``); ``_described`` says them as a person would."""
    for key, value in element.items():
        if key == skip or key.endswith("_id") or isinstance(value, dict | list | bool) or value is None:
            continue
        if sum(1 for s in siblings if isinstance(s, dict) and s.get(key) == value) == 1:
            return f"{key} {value}"  # the key as written: ``_described`` words it
    return ""


# ----------------------------------------------------------------------------- composer


@dataclass
class _Server:
    env: Environment
    toolbox: Toolbox
    tools: dict[str, ToolSpec]
    oracle: Any
    helpers: frozenset[str] = frozenset()  # utilities, the calculator, the hand-off: never a step


@dataclass
class _Step:
    server: str
    tool: str
    arguments: dict[str, Any]
    output: dict[str, Any]
    linked: dict[str, tuple[int, str, str]] = field(
        default_factory=dict
    )  # param -> (step, path, description)
    # param -> (step, path, what the user calls it): a value (not an id) read on another
    # server that this step needs (``eval.valueflow``); the user never says the value.
    flows: dict[str, tuple[int, str, str]] = field(default_factory=dict)
    source: bool = False  # a step that only reads a value another server needs: its references are the flow's


class Rejected(Exception):
    pass


class LinkedComposer:
    """Builds ``EvalTask`` s over several environments (deterministic for a seed)."""

    id_prefix = "eval"

    def __init__(self, envs: list[Environment], seed: int = 0, shared_entities: Iterable[str] = ()) -> None:
        """``shared_entities``: entity types that mean the same thing on every server (the
        same ``customer`` id is the same customer); only their values cross servers, as in
        the tool graph (``graph.build``). Other entities link steps of one server only."""
        from envfactory_mcp.tasks.oracle import Oracle

        if not envs:
            raise EnvFactoryError("cross-server tasks need at least one environment")
        names = [e.spec.name for e in envs]
        bad = [n for n in names if SEP in n]
        if bad or len(set(names)) != len(names):
            raise EnvFactoryError(f"server names must be distinct and hold no '{SEP}': {names}")
        self.seed = seed
        self.order = names
        self.shared = frozenset(shared_entities)
        self.servers = {
            e.spec.name: _Server(
                e, e.toolbox(), {t.name: t for t in e.spec.tools}, Oracle(e, seed=seed), _helpers(e)
            )
            for e in envs
        }
        # Whether some server's output entity is another server's parameter entity.
        made = {
            (name, str(entity))
            for name, s in self.servers.items()
            for t in s.tools.values()
            for entity in t.outputs.values()
        }
        wanted = {
            (name, str(p.entity))
            for name, s in self.servers.items()
            for t in s.tools.values()
            for p in t.params.values()
            if p.entity and not p.user_provided
        }
        self.linked = any(a != b and e == f and e in self.shared for a, e in made for b, f in wanted)
        self.vocabulary = set_vocabulary(envs)

    # -------------------------------------------------------------- public

    def compose(self, n: int, max_steps: int = 4, attempts_per_task: int = 40) -> list[EvalTask]:
        """Up to ``n`` distinct tasks, each over at least two servers when there are two."""
        tasks: list[EvalTask] = []
        seen: set[str] = set()
        index = 0
        for attempt in range(n * attempts_per_task):
            if len(tasks) >= n:
                break
            rng = random.Random(f"eval:{self.seed}:{attempt}")
            try:
                steps = self._chain(rng, max(MIN_STEPS, min(max_steps, MAX_STEPS)), start=attempt)
            except Rejected:
                continue
            key = json.dumps([(s.server, s.tool, s.arguments) for s in steps], sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            task = self._task(steps, index)
            if len(task.claims) < MIN_CLAIMS:
                continue  # an answer with less than two facts to check: not an eval task
            if prompt_flaws(task.task.user_scenario.opening_message, self.vocabulary):
                continue
            tasks.append(task)
            index += 1
        return tasks

    # -------------------------------------------------------------- chains

    def _starters(self, server: str) -> list[str]:
        """Tools of ``server`` whose every input the user can type (no looked-up entity)."""
        tools = self.servers[server].tools
        return [
            name
            for name, tool in tools.items()
            if name not in self.servers[server].helpers
            and tool.input_schema.get("properties")
            and all(p.user_provided or p.entity is None for p in tool.params.values())
            and self.servers[server].oracle.viable(name)
        ]

    def _chain(self, rng: random.Random, max_steps: int, start: int) -> list[_Step]:
        servers = self.order[start % len(self.order) :] + self.order[: start % len(self.order)]
        first = next((s for s in servers if self._starters(s)), None)
        if first is None:
            raise Rejected("no server has a tool the user can start with")
        sessions = {name: SessionDatabase(s.env.seed_image) for name, s in self.servers.items()}
        steps: list[_Step] = []
        tool = rng.choice(self._starters(first))
        args = rng.choice(self.servers[first].oracle.viable(tool))
        steps.append(self._run(sessions, _Step(first, tool, dict(args), {})))
        length = rng.randint(MIN_STEPS, max_steps)
        wrote: set[tuple[str, str]] = set()
        while len(steps) < length:
            step = self._next(rng, sessions, steps, wrote, last=len(steps) == length - 1)
            if step is None:
                break
            steps.append(step)
            if self.servers[step.server].tools[step.tool].effect == "write":
                wrote.add((step.server, step.tool))
        used = {s.server for s in steps}
        if len(self.order) > 1 and len(used) < 2:
            raise Rejected("the chain stayed on one server")
        if len(steps) < MIN_STEPS:
            raise Rejected("too short")
        return steps

    def _next(
        self,
        rng: random.Random,
        sessions: dict[str, SessionDatabase],
        steps: list[_Step],
        wrote: set[tuple[str, str]],
        last: bool = False,
    ) -> _Step | None:
        used_tools = {(s.server, s.tool) for s in steps}
        used_servers = {s.server for s in steps}
        # Every entity value the chain has shown so far: entity -> [(step, path, value, description)]
        shown: dict[str, list[tuple[int, str, Any, str]]] = {}
        for i, step in enumerate(steps):
            spec = self.servers[step.server].tools[step.tool]
            for path, entity in spec.outputs.items():
                for value, element, siblings in values_at(step.output, path):
                    words = describe_element(element, siblings, path.rsplit(".", 1)[-1]) if element else ""
                    shown.setdefault(entity, []).append((i, path, value, words))
        candidates: list[tuple[int, str, str]] = []
        for server in self.order:
            if server not in used_servers and not self._fits(used_servers, server):
                continue
            for name, tool in self.servers[server].tools.items():
                if (
                    (server, name) in used_tools
                    or (server, name) in wrote
                    or name in self.servers[server].helpers
                ):
                    continue
                needs = {p: ps.entity for p, ps in tool.params.items() if ps.entity and not ps.user_provided}
                if not needs or any(not self._options(shown, steps, str(e), server) for e in needs.values()):
                    continue
                # Prefer new servers, and a write to end a chain (reads before it).
                write_first = (tool.effect == "write") == last
                rank = (0 if server not in used_servers else 2) + (0 if write_first else 1)
                candidates.append((rank, server, name))
        rng.shuffle(candidates)
        candidates.sort(key=lambda c: c[0])
        for _, server, name in candidates[:6]:
            filled = self._fill(rng, sessions, steps, shown, server, name)
            if filled is not None:
                return filled
        return None

    def _fill(
        self,
        rng: random.Random,
        sessions: dict[str, SessionDatabase],
        steps: list[_Step],
        shown: dict[str, list[tuple[int, str, Any, str]]],
        server: str,
        name: str,
    ) -> _Step | None:
        tool = self.servers[server].tools[name]
        needs = {p: ps.entity for p, ps in tool.params.items() if ps.entity and not ps.user_provided}
        pool = list(self.servers[server].oracle.viable(name)) or [{}]
        for _ in range(8):
            linked: dict[str, tuple[int, str, str]] = {}
            args = dict(rng.choice(pool))
            for param, entity in needs.items():
                options = self._options(shown, steps, str(entity), server)
                # Prefer values from the latest step: that is what links the chain.
                latest = max(o[0] for o in options)
                step_i, path, value, words = rng.choice([o for o in options if o[0] == latest] or options)
                args[param] = value
                linked[param] = (step_i, path, words)
            if not any(steps[i].server != server or i == len(steps) - 1 for i, _, _ in linked.values()):
                continue
            try:
                return self._run(sessions, _Step(server, name, args, {}, linked))
            except Rejected:
                continue
        return None

    def _fits(self, used: set[str], server: str) -> bool:
        """Whether the chain may add ``server`` and still offer at most ``MAX_TOOLS`` tools."""
        return sum(len(self.servers[s].tools) for s in used | {server}) <= MAX_TOOLS

    def _options(
        self, shown: dict[str, list[tuple[int, str, Any, str]]], steps: list[_Step], entity: str, server: str
    ) -> list[tuple[int, str, Any, str]]:
        """The values of ``entity`` the chain has shown that may feed a tool of ``server``."""
        found = shown.get(entity, [])
        return found if entity in self.shared else [o for o in found if steps[o[0]].server == server]

    def _run(self, sessions: dict[str, SessionDatabase], step: _Step) -> _Step:
        srv = self.servers[step.server]
        session = sessions[step.server]
        outcome = srv.toolbox.call(session.db, step.tool, step.arguments)
        if not outcome.ok or outcome.output is None:
            raise Rejected(f"{step.server}.{step.tool} failed: {outcome.error}")
        session.mark_written(outcome.written)
        step.output = outcome.output
        step.__dict__["_hash"] = session.hash()
        return step

    # -------------------------------------------------------------- task

    def _task(self, steps: list[_Step], index: int) -> EvalTask:
        chain_servers = list(dict.fromkeys(s.server for s in steps))
        offered = self._offered(chain_servers)
        gold_hashes = {name: self.servers[name].env.seed_hash for name in offered}
        for step in steps:
            gold_hashes[step.server] = step.__dict__["_hash"]
        claims: list[AtomicClaim] = []
        gold_claims: list[Claim] = []
        for step in steps:  # the value that flowed first: what the answer must say it used
            for j, path, _ in step.flows.values():
                source = steps[j]
                for value, _, _ in values_at(source.output, path)[:1]:
                    claims.append(claim_of(f"c{len(claims)}", path, value, source.server, source.tool))
                    gold_claims.append(
                        Claim(tool=source.tool, path=path, value=value, text=_text(value), goal=0)
                    )
        for i, step in enumerate(steps):
            spec = self.servers[step.server].tools[step.tool]
            later_same = any(s.server == step.server and s.tool == step.tool for s in steps[i + 1 :])
            for path in spec.claims:
                if (
                    "[]" in path
                    or later_same
                    or any(c.path == path and c.tool == step.tool for c in gold_claims)
                ):
                    continue
                for value, _, _ in values_at(step.output, path)[:1]:
                    claim = claim_of(f"c{len(claims)}", path, value, step.server, step.tool)
                    claims.append(claim)
                    gold_claims.append(
                        Claim(tool=step.tool, path=path, value=value, text=_text(value), goal=0)
                    )
        if not claims:  # a chain of reads with nothing declared: its last entity values are the answer
            last = steps[-1]
            for path in self.servers[last.server].tools[last.tool].outputs:
                if "[]" in path:
                    continue
                for value, _, _ in values_at(last.output, path)[:1]:
                    claims.append(claim_of(f"c{len(claims)}", path, value, last.server, last.tool))
                    gold_claims.append(Claim(tool=last.tool, path=path, value=value, text=_text(value)))
        claims, gold_claims = claims[:MAX_CLAIMS], gold_claims[:MAX_CLAIMS]
        facts, opening = self._opening(steps, claims)
        first = steps[0].server
        env_name = "+".join(chain_servers)
        actions = [
            GoldAction(
                server=s.server,
                name=s.tool,
                arguments=s.arguments,
                output=s.output,
                confirm=s.tool in self.servers[s.server].env.spec.policy_rules.confirm,
            )
            for s in steps
        ]
        initial_hashes = {n: self.servers[n].env.seed_hash for n in offered}
        reference = "; ".join(c.text for c in claims) + "." if claims else "Done."
        task = Task(
            task_id=f"{self.id_prefix}-{env_name}-s{self.seed}-{index}",
            env=first,
            servers=offered,
            kind="write"
            if any(gold_hashes[s] != self.servers[s].env.seed_hash for s in chain_servers)
            else "read",
            user_scenario=UserScenario(
                persona="A customer whose request spans several services.",
                known_info=facts,
                unknown_info=["the internal ids and records the agent looks up"],
                reason_for_call=opening,
                instructions_overspecified=opening,
                opening_message=opening,
                calibration=Calibration(method="offline"),
            ),
            initial_state=InitialState(state_hash=state_of(initial_hashes)),
            gold=Gold(
                actions=actions,
                final_state_hash=state_of(gold_hashes),
                diff={},
                claims=gold_claims,
            ),
            provenance=Provenance(
                sampler="eval-linked",
                seed=self.seed,
                chain=[f"{s.server}/{s.tool}" for s in steps],
                structure="value-flow" if any(s.flows for s in steps) else "cross-server",
                index=index,
            ),
        )
        links = [
            f"{steps[i].server}{SEP}{steps[i].tool}.{path} -> {s.server}{SEP}{s.tool}.{param}"
            for s in steps
            for param, (i, path, _) in s.linked.items()
        ]
        flows = [
            f"{steps[j].server}{SEP}{steps[j].tool}.{path} -> {s.server}{SEP}{s.tool}.{param}"
            for s in steps
            for param, (j, path, _) in s.flows.items()
        ]
        return EvalTask(
            kind="flow" if flows else "chain",
            flows=flows,
            task=task,
            offered=offered,
            initial_hashes=initial_hashes,
            gold_hashes=gold_hashes,
            relevant_tools=list(dict.fromkeys(offered_name(s.server, s.tool, offered) for s in steps)),
            claims=claims,
            reference_answer=reference,
            links=links,
        )

    def _offered(self, chain_servers: list[str]) -> list[str]:
        """The chain's servers, then every other server given (distractors)."""
        return list(chain_servers) + [name for name in self.order if name not in chain_servers]

    def _opening(self, steps: list[_Step], claims: list[AtomicClaim]) -> tuple[list[Fact], str]:
        """What the user knows and the one message they send, from the offline realiser
        (``tasks.realise``): who they are (the first lookup's typed values), the things they
        want done (every write, the last step, and each request that starts afresh) with the
        values they type worked in as a person says them, and what they need to be told as
        a need, never a tool or a field name and never a list of steps."""
        from envfactory_mcp.tasks.realise import GoalPlan, OpeningPlan, realise_opening
        from envfactory_mcp.tasks.scenario import STYLES
        from envfactory_mcp.tasks.values import spoken_value

        chain = json.dumps([(s.server, s.tool, s.arguments) for s in steps], sort_keys=True, default=str)
        rng = random.Random(f"eval-words:{self.seed}:{chain}")
        facts: list[Fact] = []
        goals: list[GoalPlan] = []
        identity: list[Fact] = []
        own: list[Fact] = []  # facts of the steps since the last goal: said with the next goal
        source_identity: list[tuple[str, str]] = []  # how the user is known where a flowing value is read
        source_refs: list[str] = []  # which object there the value is read from
        for i, step in enumerate(steps):
            server = self.servers[step.server]
            tool = server.tools[step.tool]
            auth = server.env.spec.policy_rules.authentication
            typed_keys = [
                p
                for p, v in step.arguments.items()
                if p not in step.linked and p not in step.flows and v not in (None, "", [])
            ]
            is_auth = bool(typed_keys) and (
                (auth is not None and step.tool in auth.tools) or all(identity_key(p) for p in typed_keys)
            )
            if step.source:  # said within the flow's sentence, as where the value is
                if is_auth:
                    source_identity.extend(
                        (p, spoken_value(server.env.spec, tool, p, step.arguments[p])) for p in typed_keys
                    )
                for param, (_, _, words) in step.linked.items():
                    if words:
                        role = (tool.params[param].entity or param).rsplit("_", 1)[-1]
                        source_refs.append(_described(role, words)[0])
                continue
            for param, (j, path, noun) in step.flows.items():
                text = self._flow_sentence(
                    step, param, steps[j], path, noun, source_identity, source_refs, rng
                )
                own.append(
                    Fact(
                        key=f"{step.tool}.{param}",
                        kind="detail",
                        value=text,
                        text=text,
                        must=[text],
                        in_opening=True,
                        goal=len(goals),
                    )
                )
            for param, value in step.arguments.items():
                if param in step.linked or param in step.flows or value in (None, "", []):
                    continue
                text = spoken_value(server.env.spec, tool, param, value)
                fact = Fact(
                    key=param if is_auth else f"{step.tool}.{_plain_key(param)}",
                    kind="identity" if is_auth else "detail",
                    value=value,
                    text=text,
                    must=[text],
                    in_opening=True,
                    goal=len(goals),
                )
                (identity if is_auth else own).append(fact)
            for param, (_, _, words) in step.linked.items():
                if not words:
                    continue
                # One word of the entity: "the convertible class", never a field's words in a row.
                role = (tool.params[param].entity or param).rsplit("_", 1)[-1]
                text, said = _described(role, words)
                own.append(
                    Fact(
                        key=param,
                        kind="reference",
                        value=step.arguments[param],
                        text=text,
                        must=[said],
                        in_opening=True,
                        goal=len(goals),
                    )
                )
            last = i == len(steps) - 1
            # A lookup the user types nothing into (a catalogue) is no request of theirs.
            fresh = bool(own) and not step.linked and bool(typed_keys)
            wanted = not is_auth and (tool.effect == "write" or last or fresh)
            if wanted:
                own = [f.model_copy(update={"goal": len(goals)}) for f in own]
                goals.append(
                    GoalPlan(
                        kind="act" if tool.effect == "write" else "ask",
                        intent=tool.intent,
                        tool=step.tool,
                        facts=own,
                    )
                )
                facts.extend(own)
                own = []
        facts.extend(identity)
        if not goals:  # nothing but lookups: the last one is what the user asks for
            last_step = steps[-1]
            tool = self.servers[last_step.server].tools[last_step.tool]
            intent = re.sub(r" by .*$", "", tool.intent)  # "look up my account by email": how is not theirs
            own = [f.model_copy(update={"goal": 0}) for f in own]
            goals.append(GoalPlan(kind="ask", intent=intent, tool=last_step.tool, facts=own))
            facts.extend(own)
        wants = list(dict.fromkeys(_wanted(c.text.split(":", 1)[0]) for c in claims))
        plan = OpeningPlan(
            style=rng.choice(STYLES),
            name=None,
            identity=identity,
            goals=goals,
            withheld=False,
            say_identity=True,
            plain_heads=True,
        )
        message, _ = realise_opening(plan, rng, wants=wants)
        missing = [f for f in facts if not all(m.lower() in message.lower() for m in f.must)]
        if missing:  # the realiser keeps every fact; should it not, the facts are said plainly
            message += " " + " ".join(f"{f.text}." for f in missing)
        return facts, message

    def _flow_sentence(
        self,
        step: _Step,
        param: str,
        source: _Step,
        path: str,
        noun: str,
        identity: list[tuple[str, str]],
        refs: list[str],
        rng: random.Random,
    ) -> str:
        """The user's words for a value they do not have at hand, read on another server, as
        a need ("I'd like my salon appointment on the day my bill at GreenThumb landscaping
        is due (I'm under jo@example.com there)."): the value flows without being said,
        never a tool or a field (``flow_need``)."""
        from envfactory_mcp.tasks.wording import intent_thing

        spec = self.servers[source.server].env.spec
        entity = _owner_of(self.servers[source.server].tools[source.tool])
        target = self.servers[step.server].tools[step.tool]
        inputs = target.input_schema.get("properties", {})
        # Which of the target's values it is ("the pickup") only where the tool takes
        # another value of the same kind; otherwise the value needs no naming.
        kind = value_kind(param, inputs.get(param))
        others = kind is not None and any(value_kind(p, s) == kind for p, s in inputs.items() if p != param)
        keys = dict(identity)
        name = " ".join(keys.pop(k) for k in ("first_name", "last_name") if k in keys)
        said = ([name] if name else []) + list(keys.values())
        return flow_need(
            kind=kind or noun,
            unit=noun,
            thing=_mine(refs[-1]) if refs else f"my {entity.rsplit('_', 1)[-1].replace('-', ' ')}",
            owner_words=entity.split("_"),
            field=path.rsplit(".", 1)[-1],
            title=spec.title,
            account=", ".join(said),
            target=intent_thing(target.intent.lower()) or "it",
            head=_param_head(param) if others else "",
            rng=rng,
        )


# How a date or time field's head says what happens on that day ("due_date": the day it is due).
_WHEN_VERBS = {
    "due": "is due",
    "deadline": "is due",
    "start": "starts",
    "starts": "starts",
    "begin": "begins",
    "end": "ends",
    "ends": "ends",
    "expiry": "expires",
    "expiration": "expires",
    "expires": "expires",
    "renewal": "renews",
    "renews": "renews",
    "close": "closes",
    "closing": "closes",
    "opening": "opens",
    "departure": "leaves",
    "arrival": "arrives",
    "delivery": "is delivered",
    "return": "is due back",
}
_WHERE = (
    " (my account there is under {a})",
    " (I'm under {a} there)",
    " (they have me as {a})",
    " (the account there is {a})",
    " (it's under {a} with them)",
)
_NEEDS: dict[str, tuple[str, ...]] = {
    "date": (
        "I'd like {obj} on {what}{where} - I don't have the date in front of me.",
        "Timing-wise, {obj} has to line up with {what}{where}.",
        "Ideally {obj} falls on {what}{where}; I can't remember the exact date.",
        "{Obj} needs to be on {what}{where}, whatever date that turns out to be.",
        "I'm hoping to have {obj} on {what}{where}, so you may need to look that date up.",
        "I want {obj} to match {what}{where}, but I've lost track of the date.",
    ),
    "time": (
        "I'd like {obj} at {what}{where}; I don't remember the exact time.",
        "{Obj} should line up with {what}{where}.",
        "Could {obj} be at {what}{where}? I've forgotten when that is.",
    ),
    "money": (
        "I want {obj} to come to {what}{where}; I don't have the figure on me.",
        "The amount I have in mind for {obj} is {what}{where}, I just don't remember it exactly.",
        "{Obj} should be for exactly {what}{where}.",
        "For {obj} I'm thinking of {what}{where} - could you check the figure there?",
    ),
    "address": (
        "{Obj} should be at {what}{where}; I don't have the address written down.",
        "The address I need for {obj} is {what}{where}.",
        "Could {obj} go to {what}{where}? I don't remember it by heart.",
    ),
    "city": (
        "{Obj} is for {what}{where}.",
        "I need {obj} in {what}{where}.",
    ),
    "count": (
        "I need {obj} for {what}{where}; I forget exactly how many that was.",
        "{Obj} should cover {what}{where}.",
        "Make {obj} for {what}{where} - I don't remember the count.",
    ),
    "measure": (
        "{Obj} should match {what}{where}.",
        "I'd like {obj} to match {what}{where}; I don't have the figure at hand.",
    ),
}
_HEAD_NEEDS = (
    "I'd like the {head} of {obj} to be {what}{where}.",
    "The {head} of {obj} has to match {what}{where}; I don't have it at hand.",
    "Could the {head} of {obj} be {what}{where}? I don't remember it offhand.",
)


def flow_need(
    *,
    kind: str,
    unit: str,
    thing: str,
    owner_words: list[str],
    field: str,
    title: str,
    account: str,
    target: str,
    head: str,
    rng: random.Random,
) -> str:
    """One sentence of need for a value read elsewhere: ``thing`` (the object the value is
    read from, "my bill of 119.48") at ``title`` (its service; ``account`` how the user is
    known there), its ``field`` said as what it is for a person ("the day my bill ... is
    due", "what my order ... came to", "the deposit on my booking ..."), and what the user
    wants of ``target`` (the thing the request is about, "my salon appointment"; ``head``
    the value's role there when the tool takes two values of the kind). Varied by ``rng``;
    never the value, a field's words in a row, or "use the same X as"."""
    place = f"{thing} {rng.choice(('at', 'with'))} {title}"
    field_head = _param_head(field)
    if field_head in owner_words or field_head in (unit, "amount", "total", "value", "sum"):
        field_head = ""
    family = kind.split(":", 1)[0]
    count_unit = kind.split(":", 1)[1] if ":" in kind else unit
    if family == "date" or family == "time":
        word = "day" if family == "date" else "time"
        if field_head == "birth":
            what = f"the birthday of {place}"
        elif not field_head:
            what = f"the {word} of {place}"
        elif field_head in _WHEN_VERBS:
            what = f"the {word} {place} {_WHEN_VERBS[field_head]}"
        elif field_head.endswith(("ed", "en", "wn")):
            what = f"the {word} {place} was {field_head}"
        else:
            what = f"the {word} of the {field_head} on {place}"
    elif family == "money":
        if not field_head:
            what = rng.choice((f"what {place} came to", f"the full amount of {place}"))
        elif field_head in ("due", "owed", "remaining", "outstanding", "left"):
            what = f"what is still {field_head} on {place}"
        elif field_head in ("paid", "charged", "refunded", "spent"):
            what = f"what was {field_head} for {place}"
        else:
            what = f"the {field_head} {rng.choice(('of', 'on'))} {place}"
    elif family == "address":
        plain = not field_head or field_head in ("street", "city", "home", "line", "mailing", "postal")
        what = f"the address of {place}" if plain else f"the address of the {field_head} on {place}"
    elif family == "city":
        what = f"the city of {place}"
    elif family == "count":
        if count_unit in ("count", "number", "num", "quantity", "qty", "total"):  # "panel_count": panels
            named = [w for w in field.lower().split("_") if w not in _KIND_WORDS and w != count_unit]
            count_unit = named[-1] if named else "item"
        plural = count_unit if count_unit.endswith("s") else f"{count_unit}s"
        what = f"as many {plural} as {place} had"
    else:
        what = f"the same {count_unit} as {place}"
    where = rng.choice(_WHERE).format(a=account) if account else ""
    if head and head != target.split()[-1]:
        frame = rng.choice(_HEAD_NEEDS)
    else:
        frame = rng.choice(_NEEDS.get(family, _NEEDS["measure"]))
    obj = target
    text = frame.format(obj=obj, Obj=obj[:1].upper() + obj[1:], what=what, where=where, head=head)
    return text[:1].upper() + text[1:]


def _mine(phrase: str) -> str:
    """A looked-up thing of the user's own: "the bill of 119.48" -> "my bill of 119.48"."""
    return "my " + phrase[4:] if phrase.startswith("the ") else phrase


def _described(role: str, words: str) -> tuple[str, str]:
    """A looked-up thing by the sibling field that tells it apart (``describe_element``'s
    "amount 1219.8", "kind debit_card"), as a person names it, and the words that must be
    said: "the invoice of 1219.8", "the debit card payment method", "the invoice with
    due date 2026-05-01"."""
    from envfactory_mcp.tasks.values import in_words

    key, _, raw = words.partition(" ")
    value = _spoken_moment(raw) or in_words(raw)
    if key in ("amount", "total", "price", "cost", "balance"):
        return f"the {role} of {value}", value
    if key in ("kind", "type", "category", "brand", "status", "tier", "plan", "name", "title", "label"):
        return f"the {value} {role}", value
    last = key.rsplit("_", 1)[-1]
    if last in ("by", "until", "before") and value != raw:
        return f"the {role} due by {value}", value  # "the delivery due by December 18, 2026"
    if last in ("date", "day", "at", "on") or value != raw:
        return f"the {role} from {value}", value
    if re.fullmatch(r"\d+", value) and last.endswith("s") and last != role:
        return f"the {role} with {value} {last}", value  # "the order with 21 guests"
    if not any(c.isdigit() for c in value) and 0 < len(value.split()) <= 3 and value.lower() != role:
        return f"the {value} {role}", value  # "the piano teacher"
    return f"the {role} with {last} {value}", value  # one word of the field: never its name in a row


def _spoken_moment(raw: str) -> str | None:
    """An ISO date or timestamp as a person says it ("2025-12-08T18:38:00Z" -> "December
    8, 2025, 18:38"); None for anything else."""
    if not re.match(r"^\d{4}-\d{2}-\d{2}", raw):
        return None
    try:
        moment = dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None
    day = f"{moment:%B} {moment.day}, {moment.year}"
    return day if len(raw) <= 10 or (moment.hour, moment.minute) == (0, 0) else f"{day}, {moment:%H:%M}"


# What people call their own details anyway: said as they are.
EVERYDAY_PHRASES = frozenset(
    {
        "first name",
        "last name",
        "zip code",
        "postal code",
        "phone number",
        "email address",
        "date of birth",
        "start date",
        "end date",
        "due date",
        "delivery date",
        "card number",
        "home address",
        "mailing address",
    }
)
_OF_NOUNS = frozenset(
    [
        "balance",
        "total",
        "count",
        "amount",
        "status",
        "date",
        "time",
        "name",
        "number",
        "price",
        "cost",
        "fee",
        "type",
        "level",
        "size",
        "limit",
        "rate",
        "score",
        "tier",
        "plan",
        "kind",
        "state",
        "speed",
        "length",
        "duration",
    ]
)
_AMOUNT_PARTICIPLES = frozenset(
    ["paid", "due", "owed", "charged", "refunded", "remaining", "left", "used", "spent", "earned"]
)
_ADJECTIVES = frozenset(
    ["eligible", "allowed", "available", "enabled", "active", "required", "possible", "valid"]
)


def _wanted(label: str) -> str:
    """A claim's field said as what the user needs to know, never the field's words in a row:
    ``user_id`` -> "my account number", ``eta`` -> "the expected arrival", ``refunded`` ->
    "whether it was refunded", ``installment_balance`` -> "the balance of my installment",
    ``net_paid`` -> "the net amount paid", ``upgrade_eligible`` -> "whether it's eligible for
    an upgrade", ``nonfree_bags`` -> "the bags that are nonfree"."""
    last = label.rsplit(".", 1)[-1].lower()
    words = [w for w in re.split(r"[_\s]+", last) if w and w not in ("gb", "mb", "kg", "cm", "usd")]
    if len(words) == 1 and words[0].endswith("ed") and words[0] not in ("need", "speed", "feed"):
        return f"whether it was {words[0]}"
    if words and words[-1] in ("id", "ids"):
        owner = " ".join(words[:-1])
        if owner in ("user", "customer", "member", "account", "person", "client", "patient", ""):
            return "my account number"
        return f"the reference number of my {owner}"
    if len(words) > 1 and words[-1] in ("on", "at"):  # "renews_on", "due_on": a date
        head = " ".join(words[:-1])
        return f"the date it {head}" if head.endswith("s") else f"the date it's {head}"
    if words == ["eta"]:
        return "the expected arrival"
    if words[:2] == ["last", "four"]:
        return "the final four digits"
    if len(words) < 2:
        return f"the {' '.join(words) or 'result'}"
    head, tail = " ".join(words[:-1]), words[-1]
    if " ".join(words) in EVERYDAY_PHRASES:
        return f"the {' '.join(words)}"
    if tail == "date" and head.endswith(("ive", "ed", "al")):  # "effective_date"
        return f"the date it's {head}"
    if tail in _OF_NOUNS:
        return f"the {tail} of my {head}"
    if tail in _AMOUNT_PARTICIPLES:
        return f"the {head} amount {tail}"
    if tail in _ADJECTIVES:
        return f"whether it's {tail} for {'an' if head[:1] in 'aeiou' else 'a'} {head}"
    if words[0] in _ADJECTIVES or words[0] in _AMOUNT_PARTICIPLES:  # "remaining_data"
        return f"the {' '.join(words[1:])} {words[0]}"
    return f"the {tail} that {'are' if tail.endswith('s') else 'is'} {head}"


_KIND_WORDS = frozenset(
    ["date", "day", "on", "at", "time", "amount", "address", "number", "of", "num", "total", "new", "id"]
)


def _plain_key(param: str) -> str:
    """A typed parameter's key for its fact without a trailing preposition (``pickup_on``
    -> ``pickup``): the realiser says "pickup set for 2026-05-01", not the field."""
    head, _, tail = param.rpartition("_")
    return head if head and tail in ("on", "at") else param


def _param_head(param: str) -> str:
    """One word of a parameter that says what the value is for ("pickup" of ``pickup_on``),
    or "" when the parameter is only the kind of value (``date``, ``address``)."""
    words = [w for w in param.lower().split("_") if w and w not in _KIND_WORDS]
    return words[-1] if words else ""


def _owner_of(tool: ToolSpec) -> str:
    """The thing a tool reads a value of: the entity it is given (``get_ride(ride_id)``), or
    the entity its name speaks of, or its first output entity."""
    for param in tool.params.values():
        if param.entity:
            return param.entity
    named = [e for e in tool.outputs.values() if e in tool.name]
    return (named or list(tool.outputs.values()) or ["booking"])[0]


def _helpers(env: Environment) -> frozenset[str]:
    rules = env.spec.policy_rules
    names = set(rules.utilities) | ({rules.calculator} if rules.calculator else set())
    if rules.transfer:
        names.add(rules.transfer.tool)
    return frozenset(names)


def _text(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)
