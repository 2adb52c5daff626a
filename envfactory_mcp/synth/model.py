"""Model-driven synthesis: a description becomes a verified environment package, or a report.

The EnvFactory loop, through any ``LLMClient``:

1. *propose*: the model answers with a spec and seed rows; a reply that does not parse,
   validate or load is sent back with the exact error, up to ``max_spec_attempts`` times;
2. *implement*: the model writes the tools module; the static gate checks it;
3. *verify*: the environment is assembled and built with ``emit_verified`` (sandboxed
   probes, then the package over stdio); gate violations, seed errors and verification
   failures go back to the model for a corrected module (or seed rows), at most
   ``max_repair_rounds`` times after the first implementation;
4. the package lands in ``<out_dir>/<name>/`` only when verified; otherwise
   ``<out_dir>/<name>.failed.json`` says what failed in each round.

Every model call (messages, reply, tokens, cost, latency) and every check result is a
line of ``<out_dir>/<name>.build.jsonl``. A model endpoint that fails for good is a
harness failure: the result's status is ``error``, no ``.failed.json`` is written, and a
later run tries that description again. ``synthesize_many`` runs many descriptions, here
or on a Ray cluster (``synthesize_ray``), resuming from the files of an earlier run.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

import anyio
from pydantic import BaseModel, ConfigDict

from envfactory_mcp import files
from envfactory_mcp.build import VerificationFailed, emit_verified
from envfactory_mcp.env.environment import assemble_env
from envfactory_mcp.env.seed import SeedRows
from envfactory_mcp.errors import EnvFactoryError, SeedError, SpecError
from envfactory_mcp.llm import LLMClient, LLMError
from envfactory_mcp.ray_cluster import Backend
from envfactory_mcp.spec import EnvSpec
from envfactory_mcp.spec.models import is_valid_name
from envfactory_mcp.synth import prompts
from envfactory_mcp.synth.prompts import Message, Proposal
from envfactory_mcp.verify.provenance import NotAPackageError, read_report
from envfactory_mcp.verify.report import VerificationReport
from envfactory_mcp.verify.static_gate import check_tool_code
from envfactory_mcp.verify.verifier import VerifyOptions

Status = Literal["emitted", "failed", "error"]
Stage = Literal["propose", "implement", "repair"]
FAILURE_FORMAT = "envfactory-synthesis-failure/1"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SynthesisResult(_Model):
    """What became of one description.

    ``status`` is ``emitted`` (``package_dir`` holds the verified package), ``failed``
    (nothing emitted; ``failures`` holds the last round's problems) or ``error`` (the
    model endpoint failed; retried by the next run). ``rounds`` counts repair rounds after
    the first implementation; ``resumed`` marks a result read back from an earlier run.
    """

    name: str
    status: Status
    package_dir: Path | None
    rounds: int
    failures: list[str]
    report: VerificationReport | None
    log_path: Path
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    resumed: bool = False

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class RoundRecord(_Model):
    """The problems one step found: a rejected proposal, a gate verdict, a failed verification."""

    stage: Stage
    step: int  # the proposal attempt (from 1), or the round (0 = first implementation)
    check: str
    problems: list[str]


class FailedSynthesis(_Model):
    """The content of ``<name>.failed.json``: the result and the problems of every round."""

    format: str = FAILURE_FORMAT
    description: str
    result: SynthesisResult
    history: list[RoundRecord]


async def synthesize_from_description(
    client: LLMClient,
    description: str,
    out_dir: Path,
    *,
    name: str | None = None,
    seed: int = 0,
    max_spec_attempts: int = 3,
    max_repair_rounds: int = 3,
    verify_options: VerifyOptions | None = None,
    base_spec: EnvSpec | None = None,
) -> SynthesisResult:
    """Propose, implement, verify and repair one environment; emit it only when verified.

    ``name`` fixes the environment's name (else the model's spec name is used);
    ``base_spec`` (an imported resource) is enriched instead of starting from scratch.
    Returns the result; writes ``<out_dir>/<name>/`` on success, ``<out_dir>/<name>.failed.json``
    on failure, and ``<out_dir>/<name>.build.jsonl`` always. Raises ``SpecError`` for an
    invalid ``name``.
    """
    if name is not None:
        _check_name(name)
    run = _Run(client, Path(out_dir), name or provisional_name(description), description)
    run.log(
        event="start",
        description=description,
        model=client.model,
        seed=seed,
        max_spec_attempts=max_spec_attempts,
        max_repair_rounds=max_repair_rounds,
        base_spec=base_spec is not None,
    )
    try:
        proposal = await _propose(run, description, name, seed, max_spec_attempts, base_spec)
        if proposal is None:
            return run.finish("failed")
        if name is None:
            run.rename(proposal.spec.name)
        return await _implement(run, proposal, max_repair_rounds, verify_options)
    except LLMError as exc:
        run.failures = [str(exc)]
        return run.finish("error")


async def synthesize_many(
    client: LLMClient,
    descriptions: list[tuple[str, str]],
    out_dir: Path,
    concurrency: int = 4,
    backend: Backend = "local",
    address: str | None = None,
    **kw: Any,
) -> list[SynthesisResult]:
    """Synthesize ``(name, description)`` pairs concurrently, at most ``concurrency`` at a time.

    A name whose package already passed verification, or whose ``.failed.json`` exists, is
    not synthesized again: its earlier result comes back with ``resumed=True``, so a run
    that was interrupted does only what is missing. ``kw`` goes to
    ``synthesize_from_description``. Results are in the order of ``descriptions``.

    ``backend="ray"`` runs the missing ones on the Ray cluster at ``address`` (a private
    local one when None), ``concurrency`` at a time on each of up to one worker per cluster
    CPU (``synthesize_ray``): the same calls, so the same files as locally.
    """
    from envfactory_mcp.ray_cluster import BACKENDS, import_ray

    if backend not in BACKENDS:
        raise EnvFactoryError(f"unknown backend {backend!r}: use one of {', '.join(BACKENDS)}")
    if backend == "ray":
        import_ray()  # refused before anything is written
    names = [name for name, _ in descriptions]
    for name in names:
        _check_name(name)
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate names: {', '.join(duplicates)}")
    out_dir = Path(out_dir)
    results: list[SynthesisResult | None] = [previous_result(out_dir, name) for name in names]
    if backend == "ray":
        todo = [pair for pair, result in zip(descriptions, results, strict=True) if result is None]
        came_back = await synthesize_ray(client, todo, out_dir, concurrency, address, kw)
        return [r if r is not None else came_back[name] for name, r in zip(names, results, strict=True)]
    limiter = anyio.CapacityLimiter(concurrency)

    async def one(index: int, name: str, description: str) -> None:
        async with limiter:
            results[index] = await synthesize_from_description(client, description, out_dir, name=name, **kw)

    async with anyio.create_task_group() as group:
        for index, (name, description) in enumerate(descriptions):
            if results[index] is None:
                group.start_soon(one, index, name, description)
    return [r for r in results if r is not None]


class SynthWorker:
    """Synthesises descriptions where it lives (a Ray actor, one CPU, its own copy of the
    model client), writing into ``out_dir`` as the local backend would."""

    def __init__(self, client: LLMClient, out_dir: str, cwd: str, options: dict[str, Any]) -> None:
        if not Path(out_dir).is_absolute():
            if not Path(cwd).is_dir():
                raise EnvFactoryError(
                    f"the output folder {out_dir} is relative to {cwd}, which this node does not have: "
                    "give -o as a path every node has"
                )
            os.chdir(cwd)  # this actor's own process: the relative paths written are the driver's
        self.client, self.out_dir, self.options = client, Path(out_dir), options

    async def run(self, name: str, description: str) -> SynthesisResult:
        return await synthesize_from_description(
            self.client, description, self.out_dir, name=name, **self.options
        )

    async def shutdown(self) -> None:
        return None


async def synthesize_ray(
    client: LLMClient,
    todo: list[tuple[str, str]],
    out_dir: Path,
    concurrency: int,
    address: str | None,
    options: dict[str, Any],
) -> dict[str, SynthesisResult]:
    """Synthesise the ``(name, description)`` pairs of ``todo`` on the Ray cluster at
    ``address`` (``host.backends``: a private local one when None): one ``SynthWorker`` per
    cluster CPU (no more than the work needs), ``concurrency`` descriptions at once on
    each, every one the local backend's ``synthesize_from_description`` call. The workers
    write the packages, ``.failed.json`` and build logs themselves, into ``out_dir`` at the
    same path on every node (a relative one from the driver's working directory, which the
    nodes must have too), so the files are the local backend's and a rerun resumes from
    them. A worker lost with its node is an ``error`` result, retried by the next run."""
    from envfactory_mcp.host import backends
    from envfactory_mcp.ray_cluster import import_ray

    ray = import_ray()
    workers: list[Any] = []
    done: dict[str, SynthesisResult] = {}
    with backends.ray_session(address):
        async with backends.workers_ended(ray, workers):
            if not todo:
                return done
            cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
            per_worker = max(1, concurrency)
            count = max(1, min(cpus, -(-len(todo) // per_worker)))  # no more workers than work
            actor = ray.remote(num_cpus=1, max_concurrency=per_worker, max_restarts=0)(SynthWorker)
            shared = ray.put(client)
            workers += [actor.remote(shared, str(out_dir), os.getcwd(), options) for _ in range(count)]

            async def one(index: int, pair: tuple[str, str]) -> None:
                name, description = pair
                try:
                    result = await workers[index].run.remote(name, description)
                except ray.exceptions.RayError as exc:
                    first = (str(exc).strip().splitlines() or ["Ray error"])[0]
                    result = SynthesisResult(
                        name=name,
                        status="error",
                        package_dir=None,
                        rounds=0,
                        failures=[f"lost on the Ray cluster: {first}"],
                        report=None,
                        log_path=out_dir / f"{name}.build.jsonl",
                    )
                done[name] = result

            await backends.spread_over_workers(count, per_worker, todo, one)
    return done


def previous_result(out_dir: Path, name: str) -> SynthesisResult | None:
    """The checkpoint of ``name`` in ``out_dir``: a verified package or a failure report, else None."""
    package_dir = out_dir / name
    log_path = out_dir / f"{name}.build.jsonl"
    if package_dir.is_dir():
        try:
            report = read_report(package_dir)
        except NotAPackageError:
            report = None
        if report is not None and report.passed:
            logged = _logged_result(log_path)
            base = logged or SynthesisResult(
                name=name,
                status="emitted",
                package_dir=None,
                rounds=0,
                failures=[],
                report=None,
                log_path=log_path,
            )
            return base.model_copy(
                update={"status": "emitted", "package_dir": package_dir, "report": report, "resumed": True}
            )
    failed = out_dir / f"{name}.failed.json"
    if failed.is_file():
        record = FailedSynthesis.model_validate_json(failed.read_text(encoding="utf-8"))
        return record.result.model_copy(update={"resumed": True})
    return None


def provisional_name(description: str) -> str:
    """A valid environment name from the first words of ``description`` (until the spec names it)."""
    words = re.findall(r"[a-z0-9]+", description.lower())[:4]
    name = "_".join(words)[:48].strip("_") or "env"
    return name if name[0].isalpha() else f"env_{name}"


def _check_name(name: str) -> None:
    if not is_valid_name(name):
        raise SpecError("name", f"{name!r} is not a valid environment name ([a-z][a-z0-9_]*, at most 64)")


# ----------------------------------------------------------------------------- stages


async def _propose(
    run: _Run,
    description: str,
    name: str | None,
    seed: int,
    max_attempts: int,
    base_spec: EnvSpec | None,
) -> Proposal | None:
    """A checked proposal, or None after ``max_attempts`` rejected replies."""
    messages = prompts.propose_messages(description, name, base_spec)
    for attempt in range(1, max_attempts + 1):
        text = await run.ask("propose", attempt, messages)
        try:
            proposal = prompts.read_proposal(text, name=name, seed=seed)
        except SpecError as exc:
            run.check("propose", attempt, "spec", [str(exc)])
            messages = [
                *messages,
                {"role": "assistant", "content": text},
                prompts.proposal_feedback(str(exc)),
            ]
            continue
        run.check("propose", attempt, "spec", [])
        return proposal
    return None


async def _implement(
    run: _Run, proposal: Proposal, max_rounds: int, options: VerifyOptions | None
) -> SynthesisResult:
    """Implement, check and repair until verified (emitted) or ``max_rounds`` repairs are spent."""
    spec, rows = proposal.spec, proposal.rows
    source: str | None = None
    messages = prompts.implement_messages(spec)
    for round_ in range(max_rounds + 1):
        run.rounds = round_
        stage: Stage = "implement" if round_ == 0 else "repair"
        text = await run.ask(stage, round_, messages)
        messages.append({"role": "assistant", "content": text})
        feedback = await _check_reply(run, stage, round_, text, spec, rows, source, options)
        if isinstance(feedback, SynthesisResult):
            return feedback
        feedback_message, source, rows = feedback
        messages.append(feedback_message)
    return run.finish("failed")


async def _check_reply(
    run: _Run,
    stage: Stage,
    round_: int,
    text: str,
    spec: EnvSpec,
    rows: SeedRows,
    source: str | None,
    options: VerifyOptions | None,
) -> SynthesisResult | tuple[Message, str | None, SeedRows]:
    """Check one implement/repair reply: the emitted result, or (feedback, source, rows) to go on."""
    try:
        fix = prompts.read_fix(text)
    except SpecError as exc:
        run.check(stage, round_, "seed_rows", [str(exc)])
        return prompts.seed_feedback(str(exc)), source, rows
    if isinstance(fix, str):
        source = fix
    else:
        rows = fix
    if source is None:
        problem = "the first reply must be the tools.py source, not seed rows"
        run.check(stage, round_, "reply", [problem])
        return prompts.gate_feedback([problem]), source, rows
    violations = [str(v) for v in check_tool_code(source)]
    run.check(stage, round_, "static_gate", violations)
    if violations:
        return prompts.gate_feedback(violations), source, rows
    try:
        env = assemble_env(spec, source, rows)
    except (SeedError, SpecError) as exc:
        run.check(stage, round_, "assemble", [str(exc)])
        return prompts.seed_feedback(str(exc)), source, rows
    try:
        built = await anyio.to_thread.run_sync(emit_verified, env, run.out_dir / run.name, options)
    except VerificationFailed as exc:
        failures = exc.report.failures()
        run.report = exc.report
        run.check(stage, round_, "verify", failures)
        seed_failure = next((f for f in failures if f.startswith("schema_and_seed:")), None)
        if seed_failure is not None:
            return prompts.seed_feedback(seed_failure), source, rows
        return prompts.verification_feedback(failures), source, rows
    run.report = built.report
    run.check(stage, round_, "verify", [])
    return run.finish("emitted", built.package_dir)


# ------------------------------------------------------------------------ bookkeeping


class _Run:
    """One synthesis in progress: its build log, token and cost totals, and round history."""

    def __init__(self, client: LLMClient, out_dir: Path, name: str, description: str) -> None:
        self.client = client
        self.out_dir = out_dir
        self.name = name
        self.description = description
        self.rounds = 0
        self.failures: list[str] = []
        self.history: list[RoundRecord] = []
        self.report: VerificationReport | None = None
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost_usd: float | None = None
        out_dir.mkdir(parents=True, exist_ok=True)

    @property
    def log_path(self) -> Path:
        return self.out_dir / f"{self.name}.build.jsonl"

    def rename(self, name: str) -> None:
        """Adopt the spec's name; the lines logged so far move to (the end of) that name's log."""
        if name == self.name:
            return
        provisional = self.log_path
        self.name = name
        if provisional.exists():
            with self.log_path.open("a", encoding="utf-8") as fh:
                fh.write(provisional.read_text(encoding="utf-8"))
            provisional.unlink()

    def log(self, **line: Any) -> None:
        """Append one JSON line to the build log and flush it to disk."""
        with self.log_path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    async def ask(self, stage: Stage, step: int, messages: list[Message]) -> str:
        """One model call, logged with its messages, reply, tokens, cost and latency."""
        try:
            response = await self.client.complete(list(messages))
        except LLMError as exc:
            self.log(event="error", stage=stage, step=step, messages=messages, error=str(exc), kind=exc.kind)
            raise
        text = response.content or ""
        self.prompt_tokens += response.usage.prompt_tokens
        self.completion_tokens += response.usage.completion_tokens
        if response.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + response.cost_usd
        self.log(
            event="call",
            stage=stage,
            step=step,
            model=response.model,
            messages=messages,
            response=text,
            prompt_tokens=response.usage.prompt_tokens,
            completion_tokens=response.usage.completion_tokens,
            cost_usd=response.cost_usd,
            latency_s=round(response.latency_s, 4),
        )
        return text

    def check(self, stage: Stage, step: int, check: str, problems: list[str]) -> None:
        """Log one check's verdict; problems become the run's current failures and history."""
        self.log(event="check", stage=stage, step=step, check=check, passed=not problems, problems=problems)
        if problems:
            self.failures = problems
            self.history.append(RoundRecord(stage=stage, step=step, check=check, problems=problems))

    def finish(self, status: Status, package_dir: Path | None = None) -> SynthesisResult:
        """The result; logged, and for a failure written to ``<name>.failed.json``."""
        result = SynthesisResult(
            name=self.name,
            status=status,
            package_dir=package_dir,
            rounds=self.rounds,
            failures=[] if status == "emitted" else self.failures,
            report=self.report,
            log_path=self.log_path,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost_usd=self.cost_usd,
        )
        failed_path = self.out_dir / f"{self.name}.failed.json"
        if status == "failed":
            record = FailedSynthesis(description=self.description, result=result, history=self.history)
            files.write_text(failed_path, record.model_dump_json(indent=2) + "\n")
        elif status == "emitted":
            failed_path.unlink(missing_ok=True)  # an earlier failure is no longer the checkpoint
        self.log(event="result", result=result.model_dump(mode="json"))
        return result


def _logged_result(log_path: Path) -> SynthesisResult | None:
    """The last ``result`` line of a build log, if the log has one."""
    if not log_path.is_file():
        return None
    for line in reversed(log_path.read_text(encoding="utf-8").splitlines()):
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by a crash
        if isinstance(entry, dict) and entry.get("event") == "result":
            return SynthesisResult.model_validate(entry["result"])
    return None
