"""Rewards of one episode, from its messages and its final state (pure functions, no I/O).

The signals, each kept in :class:`RewardParts` whichever of them decides the reward:

* **state**: the final state hash equals the gold one (gold actions replayed on a fresh
  state), or, where the spec has free-text columns (``compare="text"``), the final diff
  makes the gold diff's changes with free text compared by its key facts
  (:func:`state_means_gold`); the host computes hashes and diffs, this module compares.
* **claims**: every value the agent must tell the user (``task.gold.claims``) is stated,
  by meaning, in what an assistant message told the user (``scoring/claims.py``).
* **policy**: the policy check (:mod:`envfactory_mcp.scoring.policy`) found no violation.
* **actions**: the gold calls (name + arguments, any order) found among the agent's
  tool calls (:func:`action_match`), and the method's RL reward built on them
  (:func:`trace_state_reward`).
* **grounded**: no tool call uses a value that no user or tool message said before
  (:mod:`envfactory_mcp.scoring.grounding`); given the environment's spec, the number
  of ungrounded calls is always recorded.

A task's ``gold.required_calls`` (tools the agent must call with any arguments, such as
a transfer to a human) are part of the state: a hand-off changes the world outside the
database, so the state part holds only when the final state matches *and* each
required tool was called.

The reward is the product of the parts named in ``basis`` (tau2-bench style); the
default basis is state, claims and policy (``settings.REWARD_BASIS``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from envfactory_mcp.records.trajectory import RewardParts
from envfactory_mcp.scoring.claims import claims_communicated
from envfactory_mcp.scoring.free_text import diffs_mean_same, text_columns
from envfactory_mcp.scoring.grounding import (
    NAMESPACE_SEPARATOR,
    Call,
    parse_arguments,
    tool_calls,
    ungrounded_calls,
)
from envfactory_mcp.scoring.policy import policy_violations
from envfactory_mcp.settings import REWARD_BASIS
from envfactory_mcp.spec.models import EnvSpec
from envfactory_mcp.tasks.model import GoldAction, Task

BASES = ("state", "claims", "policy", "actions", "trace_state", "grounded")
# The definition of the reward (what each part means). Version 1: claims as exact tokens,
# the state by hash only, policy violations recorded but never scored. Version 2: claims and
# free-text columns by meaning, no credit for dumped or hedged values, the policy part.
# Records keep the version that scored them; ``rescore`` brings a run to this one.
REWARD_VERSION = 2
PENALTY_PER_CALL = 0.05
PENALTY_CAP = 0.5
CONTROL_PREFIX = "control."

# ----------------------------------------------------------------------------- actions


def agent_calls(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any] | None]]:
    """Every tool call of the assistant messages, in order, as ``(name, arguments)``.

    ``arguments`` is the parsed JSON object, or None when the arguments string does not
    parse to an object (a malformed call). As in :meth:`envfactory_mcp.llm.ToolCall.parse`,
    an empty string means no arguments; an already-parsed dict is taken as it is.
    Control-plane tools (``control.*``) are left out.
    """
    return [(name, parse_arguments(raw)) for name, raw in _raw_calls(messages)]


def called_names(messages: list[dict[str, Any]]) -> list[str]:
    """The names of :func:`agent_calls`, in order, without parsing any arguments (the
    simulated user asks after every turn which tools were called)."""
    return [name for name, _ in _raw_calls(messages)]


def _raw_calls(messages: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """``(name, arguments as sent)`` of every assistant tool call, control calls left out;
    ``("", None)`` for a call without a function object."""
    calls: list[tuple[str, Any]] = []
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                calls.append(("", None))
                continue
            name = str(function.get("name") or "")
            if name.startswith(CONTROL_PREFIX):
                continue
            calls.append((name, function.get("arguments")))
    return calls


def same_value(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (``1 == 1.0``) but booleans are not numbers
    (Python's ``True == 1`` does not hold here), objects by keys, arrays in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def describe_call(name: str, arguments: dict[str, Any]) -> str:
    """``name(args-json)`` with sorted keys, as listed in ``actions_missing``."""
    return f"{name}({json.dumps(arguments, sort_keys=True, ensure_ascii=False)})"


def action_match(
    gold_actions: Sequence[GoldAction], messages: list[dict[str, Any]], calls: Sequence[Call] | None = None
) -> tuple[float, list[str], int, int]:
    """``(recall, missing, extra_calls, malformed_calls)`` of the agent's calls against gold.

    A gold action is matched by a call with the same name and equal arguments; the
    order of calls does not matter and each call matches at most one gold action, so a
    gold action listed twice needs two calls. ``recall`` is the share of gold actions
    matched (1.0 when there are none), ``missing`` the unmatched ones as
    ``name(args-json)``. ``extra_calls`` counts well-formed calls that matched no gold
    action (wrong arguments, repeats, exploration beyond gold); ``malformed_calls``
    counts calls whose arguments are not a JSON object (they match nothing and are not
    also counted as extra). ``control.*`` tools are ignored on both sides. ``calls``: the
    conversation's :func:`~envfactory_mcp.scoring.grounding.tool_calls`, when the caller
    has them already (they are :func:`agent_calls` with positions).
    """
    gold = [a for a in gold_actions if not a.name.startswith(CONTROL_PREFIX)]
    made = agent_calls(messages) if calls is None else [(c.name, c.arguments) for c in calls]
    malformed = sum(1 for _, arguments in made if arguments is None)
    unused = [(name, arguments) for name, arguments in made if arguments is not None]
    missing: list[str] = []
    for action in gold:
        hit = next(
            (
                i
                for i, (name, arguments) in enumerate(unused)
                if name == action.name and same_value(arguments, action.arguments)
            ),
            None,
        )
        if hit is None:
            missing.append(describe_call(action.name, action.arguments))
        else:
            del unused[hit]
    matched = len(gold) - len(missing)
    recall = matched / len(gold) if gold else 1.0
    return recall, missing, len(unused), malformed


def trace_state_reward(
    recall: float, state_match: bool | float, extra_calls: int, malformed_calls: int, t: float = 0.5
) -> float:
    """The EnvFactory RL reward ``max(0, t*trace + (1-t)*state - penalties)``.

    ``trace`` is 1.0 only when every gold call was matched (``recall == 1.0``), else 0.0;
    ``state`` is 1.0 for a match, 0.0 otherwise (a float is taken as the fraction of
    servers that match). Penalties: 0.05 per extra call and 0.05 per malformed call,
    each of the two capped at 0.5. Rounded to 9 decimals so equal inputs give equal,
    printable values.
    """
    if not 0.0 <= t <= 1.0:
        raise ValueError(f"t must be in [0, 1], got {t}")
    if extra_calls < 0 or malformed_calls < 0:
        raise ValueError("call counts cannot be negative")
    trace = 1.0 if recall >= 1.0 else 0.0
    state = float(state_match)
    penalties = min(PENALTY_CAP, PENALTY_PER_CALL * extra_calls) + min(
        PENALTY_CAP, PENALTY_PER_CALL * malformed_calls
    )
    return round(max(0.0, t * trace + (1.0 - t) * state - penalties), 9)


# ----------------------------------------------------------------------------- episode


def check_basis(basis: Iterable[str]) -> list[str]:
    """The basis as a list; an unknown or empty basis is a ValueError."""
    names = list(basis)
    unknown = [b for b in names if b not in BASES]
    if unknown or not names:
        raise ValueError(f"reward basis must be a non-empty subset of {list(BASES)}, got {names}")
    return names


def required_calls_missing(
    task: Task, messages: list[dict[str, Any]], calls: Sequence[Call] | None = None
) -> list[str]:
    """The tools of ``task.gold.required_calls`` the agent never called with well-formed
    arguments (any values), by plain or namespaced name (``retail__transfer_to_human_agents``).
    ``calls``: as for :func:`action_match`."""
    made = agent_calls(messages) if calls is None else [(c.name, c.arguments) for c in calls]
    called = {name for name, arguments in made if arguments is not None}
    servers = {task.env, *task.servers}
    return [
        tool
        for tool in task.gold.required_calls
        if tool not in called
        and not any(f"{server}{NAMESPACE_SEPARATOR}{tool}" in called for server in servers)
    ]


def score_episode(
    task: Task,
    messages: list[dict[str, Any]],
    final_state_hash: str | None,
    gold_state_hash: str,
    basis: Sequence[str] = REWARD_BASIS,
    spec: EnvSpec | None = None,
    final_diff: dict[str, Any] | None = None,
    gold_diff: dict[str, Any] | None = None,
    other_specs: Mapping[str, EnvSpec] | None = None,
) -> RewardParts:
    """Every part of the reward of one episode; :func:`reward_from` turns it into a number.

    ``final_state_hash`` is None when the final state could not be read: no match.
    ``spec`` is the environment's spec: with it, claims are read with its enum words and
    free-text columns compared by meaning; ungrounded calls and policy violations are
    recorded (without it they keep their defaults, 0 and none, unless ``grounded`` is in
    the basis, which then checks every argument value with no schema to excuse it).
    ``final_diff`` and ``gold_diff`` (each from the initial state) let a final state whose
    hash differs from the gold's match it by meaning: the same changes, free text by its
    key facts (:func:`envfactory_mcp.scoring.free_text.diffs_mean_same`).
    ``other_specs``: the other offered servers' specs by name; a call ``<server>__<tool>``
    is judged by its own server's policy (``policy_violations``).
    """
    names = check_basis(basis)
    found, missing = claims_communicated(task.gold.claims, messages, spec)
    # The tool calls, their arguments parsed, once for every check that reads them.
    calls = list(tool_calls(messages))
    recall, actions_missing, extra, malformed = action_match(task.gold.actions, messages, calls)
    required_missing = required_calls_missing(task, messages, calls)
    state_match = final_state_hash is not None and final_state_hash == gold_state_hash
    by_meaning = False
    if not state_match and final_state_hash is not None:
        by_meaning = state_means_gold(final_diff, gold_diff, spec)
        state_match = by_meaning
    ungrounded = ungrounded_calls(messages, spec, calls) if spec is not None or "grounded" in names else []
    violations = policy_violations(messages, spec, other_specs, calls) if spec is not None else []
    return RewardParts(
        version=REWARD_VERSION,
        basis=names,
        state_match=state_match,
        state_by_meaning=by_meaning,
        claims_total=len(task.gold.claims),
        claims_found=found,
        claims_missing=missing,
        action_recall=recall,
        actions_missing=actions_missing,
        extra_calls=extra,
        malformed_calls=malformed,
        trace_state_reward=trace_state_reward(recall, state_match and not required_missing, extra, malformed),
        ungrounded_calls=len({u.call_index for u in ungrounded}),
        ungrounded_values=[u.describe() for u in ungrounded],
        policy_violations=violations,
        required_calls_missing=required_missing,
    )


def state_means_gold(
    final_diff: dict[str, Any] | None, gold_diff: dict[str, Any] | None, spec: EnvSpec | None
) -> bool:
    """Whether a final state whose hash is not the gold's makes the gold's changes by
    meaning: only where the spec has free-text columns and both diffs are known."""
    texts = text_columns(spec)
    if not texts or final_diff is None or gold_diff is None:
        return False
    return diffs_mean_same(gold_diff, final_diff, texts)


def reward_from(parts: RewardParts) -> float:
    """The product of the parts named in ``parts.basis``: ``state`` 1 when the final state
    matched (by hash, or by meaning where free text differs) and no required call is missing
    (a hand-off changes the world outside the database), ``claims`` 1 when none is missing,
    ``policy`` 1 when the policy check found no violation (a confirmed write made without
    the user's yes, a tool used before authentication: either fails the episode, as a wrong
    write would, since it is what the policy exists to prevent), ``actions`` 1 when every
    gold action was matched, ``trace_state`` the method's reward value, ``grounded`` 1 when
    no call used an ungrounded value."""
    values = {
        "state": 1.0 if parts.state_match and not parts.required_calls_missing else 0.0,
        "claims": 0.0 if parts.claims_missing else 1.0,
        "policy": 0.0 if parts.policy_violations else 1.0,
        "actions": 1.0 if parts.action_recall >= 1.0 else 0.0,
        "trace_state": parts.trace_state_reward,
        "grounded": 0.0 if parts.ungrounded_calls else 1.0,
    }
    return math.prod(values[name] for name in check_basis(parts.basis))
