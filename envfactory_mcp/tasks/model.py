"""The task record (one JSON object per line of ``tasks.jsonl``), as the architecture page defines it.

A task holds the user scenario (persona, what the user knows and does not know, the
reason for contacting, the over-specified instruction kept for audit and the calibrated
opening message), the initial state, the gold actions with their outputs, the gold final
state hash and diff, the claims the agent must tell the user, and provenance.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from envfactory_mcp import files
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.runtime.state import STATE_HASH_VERSION

TASK_SCHEMA_VERSION = 1
FactKind = Literal["identity", "reference", "detail"]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Fact(Model):
    """Something the user knows. ``must`` are the strings that carry it (all of them must
    appear when the fact is stated); ``in_opening`` facts must be in the opening message,
    the others (identity) are given when the agent asks."""

    key: str
    kind: FactKind
    value: Any
    text: str
    must: list[str]
    in_opening: bool
    goal: int = 0  # which of the task's goals this fact serves (0-based, in chain order)


class Calibration(Model):
    method: str  # "offline" or "llm:<model>"
    operations: list[str] = Field(default_factory=list)
    rejected: list[str] = Field(default_factory=list)  # why earlier rewrites were refused
    # What model calibration spent on this task, every attempt summed (rejected ones too).
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None  # None: no model was asked, or its price is unknown


class UserScenario(Model):
    persona: str
    name: str | None = None
    known_info: list[Fact]
    unknown_info: list[str]
    reason_for_call: str
    instructions_overspecified: str
    opening_message: str
    calibration: Calibration


class GoldAction(Model):
    server: str
    name: str
    arguments: dict[str, Any]
    output: dict[str, Any]
    confirm: bool = False  # the policy wants the user's explicit yes before this call


GoalKind = Literal["act", "ask", "refuse", "transfer", "contingent"]


class GoalOutcome(Model):
    """One thing the user came for, and how the gold serves it.

    ``act``: a change is made; ``ask``: a question is answered (claims); ``refuse``: the
    user asks for ``requested`` and the policy says no (``reason``), the state stays as
    it is and the state of the object is the claim; ``transfer``: the user wants what no
    tool can do (``request``) and is handed to a human; ``contingent``: "if it is still
    ``condition``, ``requested``; otherwise ``otherwise``": what the agent finds decides,
    ``taken`` says which branch the gold took."""

    kind: GoalKind
    intent: str  # user phrase of what the gold does for this goal
    tool: str  # the goal's tool in the gold
    actions: list[int]  # indices into gold.actions that serve this goal (lookups included)
    requested: str | None = None  # refuse / contingent: the user phrase of the restricted action
    reason: str | None = None  # refuse / contingent: why the restricted action is not allowed
    condition: str | None = None  # contingent: the state the user hopes for
    otherwise: str | None = None  # contingent: the fallback, as the user puts it
    taken: Literal["then", "otherwise"] | None = None  # contingent: the branch the gold took
    request: str | None = None  # transfer: the out-of-scope request


class Claim(Model):
    """A value the agent must communicate, from a declared claim path of a gold output."""

    tool: str
    path: str
    value: Any
    text: str
    goal: int = 0  # which of the task's goals this claim reports on


class Gold(Model):
    actions: list[GoldAction]
    final_state_hash: str
    diff: dict[str, Any]
    claims: list[Claim]
    required_calls: list[str] = Field(
        default_factory=list
    )  # tools that must be called, any arguments (a hand-off)
    goals: list[GoalOutcome] = Field(default_factory=list)


class InitialState(Model):
    kind: Literal["seed"] = "seed"
    state_hash: str


class Provenance(Model):
    sampler: str
    seed: int
    chain: list[str]
    structure: str
    index: int


class Task(Model):
    schema_version: int = TASK_SCHEMA_VERSION
    # The definition of the state hashes below (``runtime.state.STATE_HASH_VERSION``): a
    # hash of another version never equals a server's, so such a task must be made again.
    # A stored task without the field predates it and holds version-1 hashes.
    state_hash_version: int = STATE_HASH_VERSION
    task_id: str
    env: str
    servers: list[str]
    kind: Literal["read", "write"]
    user_scenario: UserScenario
    initial_state: InitialState
    gold: Gold
    provenance: Provenance

    @model_validator(mode="before")
    @classmethod
    def _stored_before_hash_versions(cls, data: Any) -> Any:
        # Every stored task carries ``schema_version`` (code that makes a task leaves it to
        # the default); one written before ``state_hash_version`` existed hashed with v1.
        if isinstance(data, dict) and "schema_version" in data and "state_hash_version" not in data:
            return {**data, "state_hash_version": 1}
        return data

    @property
    def stale_hashes(self) -> bool:
        """Whether the task's state hashes are of another definition than this runtime's."""
        return self.state_hash_version != STATE_HASH_VERSION

    def to_line(self) -> str:
        """The task as one canonical JSON line (sorted keys: byte-identical across runs)."""
        return json.dumps(
            self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )


def write_tasks(tasks: list[Task], path: Path) -> None:
    """Write ``tasks.jsonl`` atomically: a crash leaves the old file or the new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    files.write_text(path, "".join(task.to_line() + "\n" for task in tasks))


class TaskFileError(EnvFactoryError):
    """A tasks file that is missing, unreadable, empty, or holds a line that is not a task."""


def read_tasks(path: str | Path) -> list[Task]:
    """Every task of a ``tasks.jsonl`` file. A missing or empty file, or a bad line, is a
    one-line :class:`TaskFileError` naming the file (and the line and the first problem)."""
    tasks = []
    try:
        with open(path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                if line.strip():
                    tasks.append(_task_of(line, f"{path}:{number}"))
    except FileNotFoundError:
        raise TaskFileError(
            f"{path}: no such tasks file (make one with: envfactory-mcp tasks <env> -o {path})"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFileError(f"{path}: cannot read the tasks file: {exc}") from None
    if not tasks:
        raise TaskFileError(f"{path}: the tasks file holds no task")
    return tasks


def _task_of(line: str, where: str) -> Task:
    try:
        return Task.model_validate_json(line)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or "the line"
        more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
        raise TaskFileError(
            f"{where}: not a valid task: {field}: {first.get('msg', 'invalid')}{more}"
        ) from None
