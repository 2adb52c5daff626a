"""The trajectory record: one JSON object per line of ``runs/<run>/trajectories.jsonl``.

It holds everything a trainer or an analyst needs without re-running anything: the
conversation in OpenAI chat format (assistant ``tool_calls`` with JSON-string
arguments, ``tool`` messages with ``tool_call_id``), the tools offered (OpenAI function
format), the reward and every part of it, the termination reason, the initial, final
and gold state hashes with the final diff, token usage and cost, and timings.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticSerializationError

from envfactory_mcp.runtime.state import STATE_HASH_VERSION

TRAJECTORY_SCHEMA_VERSION = 1

Termination = Literal[
    "user_stop",  # the user said ###STOP### (or ###TRANSFER### / ###OUT-OF-SCOPE###, see detail)
    "max_steps",
    "too_many_errors",  # too many tool errors in a row
    "agent_error",  # the agent's model answered but could not be used (bad request, no choices)
    "user_error",  # the simulated user's model failed (not for an endpoint failure)
    "model_unavailable",  # the agent's or user's model endpoint was down after retries (detail says whose)
    "infrastructure_error",  # the MCP server died or could not be reached
    "context_window_exceeded",
    "timeout",  # the whole episode ran past its time limit
]
# Failures of the harness, not of the agent: excluded from scores, never counted as 0.
EXCLUDED_TERMINATIONS = frozenset({"infrastructure_error", "model_unavailable", "user_error", "timeout"})
# The host starts the content of a failed call's ``tool`` message with this, so agents,
# scorers and readers of a record can tell a tool error from a result.
TOOL_ERROR_PREFIX = "Error:"


class Model(BaseModel):
    # NaN and infinities written as ``json.dumps`` writes them (not as null), so that a
    # record's line (``TrajectoryRecord.to_line``) holds the numbers it holds.
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="constants")


class RewardParts(Model):
    """Every part of the reward, whichever ``basis`` decided it."""

    # The reward definition that scored this (scoring.reward.REWARD_VERSION); records
    # scored before it was kept are version 1 (claims as exact tokens, state by hash only).
    version: int = 1
    basis: list[str]  # parts multiplied into ``reward``: "state", "claims", "policy" (the default)
    state_match: bool  # the final state is the gold's (hash equal, or by meaning: state_by_meaning)
    state_by_meaning: bool = False  # hashes differ only in free text that carries the gold's facts
    claims_total: int
    claims_found: list[str]
    claims_missing: list[str]
    action_recall: float  # share of gold actions (name + arguments) the agent made, any order
    actions_missing: list[str]
    extra_calls: int  # calls beyond the gold ones
    malformed_calls: int  # calls with arguments that were not a JSON object
    trace_state_reward: float  # the method's max(0, t*trace + (1-t)*state - penalties)
    # Demonstration quality, reported whatever the basis (defaults: records scored before
    # these checks, or without the environment's spec). See scoring/grounding.py, policy.py.
    ungrounded_calls: int = 0  # calls with a value that no user or tool message said before
    # One line per value: 'call 0 find_user_id_by_email: email="a@b.co"'
    ungrounded_values: list[str] = Field(default_factory=list)
    # One line per violation: "call 3 cancel_pending_order: no confirmation"
    policy_violations: list[str] = Field(default_factory=list)
    required_calls_missing: list[str] = Field(default_factory=list)  # gold.required_calls never called


class Usage(Model):
    """Tokens and cost of one participant (agent, user, judge), summed over its model calls;
    ``cost_usd`` stays None while no call had a known price, and is 0.0 (known) for a
    scripted agent or user, which calls no model (``TrajectoryRecord``)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def add(self, prompt_tokens: int, completion_tokens: int, cost_usd: float | None) -> None:
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        if cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + cost_usd


class ToolStats(Model):
    calls: int = 0
    errors: int = 0


class Participant(Model):
    kind: str  # oracle, noop, random, llm / scripted, llm
    model: str | None = None


def storable(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings replaced by U+FFFD: a model can
    emit one (a JSON ``"\\ud800"`` escape), and UTF-8 cannot store it, which would turn the
    model's own mistake into an unwritable record (a harness failure) instead of a score."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
        return value
    if isinstance(value, dict):
        return {storable(k): storable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [storable(v) for v in value]
    return value


class TrajectoryRecord(Model):
    schema_version: int = TRAJECTORY_SCHEMA_VERSION
    run_id: str
    env: str
    servers: list[str]
    task_id: str
    trial: int
    seed: int
    agent: Participant
    user: Participant
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    termination: Termination
    termination_detail: str = ""
    reward: float | None  # None when the episode is excluded (harness failure)
    reward_parts: RewardParts | None = None
    # Definition of the three state hashes (``runtime.state.STATE_HASH_VERSION``); a stored
    # record without it predates the field and holds version-1 hashes.
    state_hash_version: int = STATE_HASH_VERSION
    initial_state_hash: str | None = None
    final_state_hash: str | None = None
    gold_state_hash: str
    final_diff: dict[str, Any] | None = None
    collateral_changes: list[str] = Field(default_factory=list)  # other offered servers whose state changed
    # A task played on several servers: each offered server's final state hash (the three
    # hashes above are then ``host.episode.combined_hash`` over the servers).
    server_hashes: dict[str, str] = Field(default_factory=dict)
    steps: int = 0  # agent turns
    tool_stats: dict[str, ToolStats] = Field(default_factory=dict)
    usage: dict[str, Usage] = Field(default_factory=dict)  # "agent", "user"
    timings: dict[str, float] = Field(default_factory=dict)  # total_s, agent_s, user_s, tools_s

    @model_validator(mode="before")
    @classmethod
    def _stored_before_hash_versions(cls, data: Any) -> Any:
        # Stored records carry ``schema_version`` (code that makes one leaves it to the default).
        if isinstance(data, dict) and "schema_version" in data and "state_hash_version" not in data:
            return {**data, "state_hash_version": 1}
        return data

    @model_validator(mode="after")
    def _scripted_costs_nothing(self) -> TrajectoryRecord:
        """A scripted agent or user (its participant names no model) made no model call:
        its cost is known, zero, not unknown (records written before this said None)."""
        for who, participant in (("agent", self.agent), ("user", self.user)):
            usage = self.usage.get(who)
            if (
                usage is not None
                and participant.model is None
                and usage.cost_usd is None
                and not (usage.prompt_tokens or usage.completion_tokens)
            ):
                usage.cost_usd = 0.0
        return self

    @property
    def excluded(self) -> bool:
        return self.termination in EXCLUDED_TERMINATIONS

    @property
    def key(self) -> tuple[str, int]:
        return (self.task_id, self.trial)

    def to_line(self) -> bytes:
        """The record as one UTF-8 JSON line, lone surrogates made storable (only a line
        that cannot be encoded is walked for them: ``storable`` changes nothing else).

        Written by pydantic's own JSON serializer (issue 32: ~0.07 ms for a 20 KB record
        where ``model_dump(mode="json")`` and ``json.dumps`` took ~0.28 ms): the same
        values, keys and escapes as ``json.dumps(..., ensure_ascii=False,
        separators=(",", ":"))`` of that dump, NaN and infinities included; only a float's
        spelling may differ (``0.00008634`` where ``json.dumps`` writes ``8.634e-05``: the
        same number). A line that cannot be encoded (a lone surrogate) is made as before."""
        try:
            return self.__pydantic_serializer__.to_json(self) + b"\n"
        except PydanticSerializationError:
            pass  # a lone surrogate UTF-8 cannot hold (or what fails below as it did)
        data = self.model_dump(mode="json")
        try:
            return _line(data).encode("utf-8")
        except UnicodeEncodeError:
            return _line(storable(data)).encode("utf-8")


def _line(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
