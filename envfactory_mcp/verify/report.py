"""The verification report: every check, per environment and per tool, with reasons.

Stored as ``<package>/data/verification.json`` next to what it verified. ``subject``
holds the sha256 of every file of the package folder (``generated_servers/<env>/``: code,
runtime, data, ``pyproject.toml``; not the report itself, not Python's caches), so a
report that no longer matches its package (someone edited ``tools.py``, ``server.py`` or
``runtime/toolbox.py``) is recognisably stale, and a stale package does not run.
Format 2 keys ``subject`` by path inside the package folder; format 1 covered only
spec, schema, seed and tools, so its reports read as stale. ``signature`` is the
installation's HMAC of the verdict (``verify/signing.py``): a report without one that
checks out here is believed only for a package shipped with envfactory-mcp.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

REPORT_FORMAT = "envfactory-verification/2"

# Checks about the environment as a whole, in the order they run.
ENVIRONMENT_CHECKS: dict[str, str] = {
    "spec": "spec.json parses and is consistent (tables, tools, schemas, entities)",
    "package_files": "the package holds only the files the emitter writes (no other module, .pth file, symlink)",
    "runtime_intact": "the package's runtime/ is byte-identical to this envfactory-mcp's",
    "static_gate": "tool code passes the static gate (imports, names, dunders, side effects, SQL)",
    "data_sql": "schema.sql and seed.sql hold only the emitter's statements and SQLite's core functions "
    "(no extension, file access, ATTACH, PRAGMA or virtual table)",
    "schema_and_seed": "the schema builds and the seed loads with every foreign key and CHECK satisfied",
    "tools_load": "the tool module loads in the sandbox and defines every declared tool",
    "sandbox": "the sandboxed run finished within its limits and nothing tried to escape",
    "reset": "a reset after a write restores the seed state hash exactly",
    "stdio": "the emitted package starts over stdio, lists every tool and answers like the sandboxed code",
}

# Checks about each tool, judged from its probes.
TOOL_CHECKS: dict[str, str] = {
    "sandbox": "no attempt to reach outside the sandbox, no hang, no runaway memory",
    "no_internal_error": "no uncaught exception on any probe (only tool errors)",
    "output_schema": "every output is a JSON object matching the output schema",
    "declared_reads": "reads only the tables it declares",
    "read_only": "a read tool leaves the state unchanged and attempts no write",
    "declared_writes": "a write tool changes only the tables it declares writing",
    "atomic": "a failing call leaves the state unchanged",
    "deterministic": "the same call on the same state gives the same result and state",
    "reachable": "at least one valid call succeeds from the seed state",
    "policy_refusals": "a call the spec's refusal rules forbid (an object in a state they do not allow) is refused",
}

Status = Literal["passed", "failed", "not run"]


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FailedProbe(Model):
    id: str
    kind: str
    arguments: dict[str, Any]


class CheckResult(Model):
    check: str
    status: Status
    reason: str = ""
    probe: FailedProbe | None = None

    @property
    def failed(self) -> bool:
        return self.status == "failed"


class ToolReport(Model):
    tool: str
    effect: str
    probes: int = 0
    succeeded: int = 0
    refused: int = 0  # tool errors: the request was turned down, which is fine
    probe_kinds: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0  # total time of this tool's calls in the sandbox
    checks: list[CheckResult] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(c.status == "passed" for c in self.checks)


class DroppedTool(Model):
    """A tool of the source that failed verification and was left out of the package."""

    tool: str
    effect: str
    reason: str  # its failed checks, one "check: reason" each, joined by "; "


class SandboxInfo(Model):
    network_isolated: bool
    warning: str | None = None
    limits: dict[str, float] = Field(default_factory=dict)
    jail: str | None = None  # bubblewrap's version and mode when the code ran jailed, else None
    layers: dict[str, bool] = Field(default_factory=dict)  # every isolation layer, present or not


class VerificationReport(Model):
    format: str = REPORT_FORMAT
    env: str
    passed: bool
    envfactory_version: str
    subject: dict[str, str] = Field(default_factory=dict)  # path inside the package folder -> sha256
    sandbox: SandboxInfo
    environment: list[CheckResult]
    tools: list[ToolReport]
    probes: int = 0
    timings: dict[str, float] = Field(default_factory=dict)  # stage -> seconds
    # "hmac-sha256:<hex>" over format, env, passed and subject, with the verifying
    # installation's key (verify/signing.py); "" in reports written before signatures.
    signature: str = ""
    # Tools of the source that failed and are not in the package (``verify.dropping``):
    # the verdict and ``tools`` are about the package without them. Written only when
    # some were dropped.
    dropped: list[DroppedTool] = Field(default_factory=list)

    def signed(self) -> VerificationReport:
        """This report with this installation's signature of its verdict (the key is made
        on first use)."""
        from envfactory_mcp.verify.signing import signature

        sig = signature(format=self.format, env=self.env, passed=self.passed, subject=self.subject)
        return self.model_copy(update={"signature": sig})

    def signed_here(self) -> bool:
        """Whether ``signature`` is this installation's signature of this verdict."""
        from envfactory_mcp.verify.signing import signed_here

        return signed_here(
            self.signature, format=self.format, env=self.env, passed=self.passed, subject=self.subject
        )

    def failures(self) -> list[str]:
        """One line per failed check: ``tool: check: reason [probe id]``."""
        lines = [f"{c.check}: {c.reason}" for c in self.environment if c.failed]
        for tool in self.tools:
            for c in tool.checks:
                if c.failed:
                    where = f" [probe {c.probe.id}]" if c.probe else ""
                    lines.append(f"{tool.tool}: {c.check}: {c.reason}{where}")
        return lines

    def failed_checks(self) -> set[tuple[str | None, str]]:
        """``{(tool or None, check)}`` of every failure, for tests and tooling."""
        found: set[tuple[str | None, str]] = {(None, c.check) for c in self.environment if c.failed}
        found |= {(t.tool, c.check) for t in self.tools for c in t.checks if c.failed}
        return found

    def to_json(self) -> str:
        """The report as stored in a package: what the verification found, not how long it
        took (``timings`` and each tool's ``seconds`` stay with the command that verified),
        so verifying the same package again on the same installation writes the same bytes
        and a committed report does not change with the machine's load."""
        exclude: dict[str, Any] = {"timings": True, "tools": {"__all__": {"seconds"}}}
        if not self.dropped:
            exclude["dropped"] = True
        return self.model_dump_json(indent=2, exclude=exclude) + "\n"

    def dropped_lines(self) -> list[str]:
        """One line per dropped tool: ``<tool>: <reason>``."""
        return [f"{d.tool}: {d.reason}" for d in self.dropped]

    def without_timings(self) -> dict[str, Any]:
        """The report minus what changes from run to run (for comparing two reports)."""
        data = self.model_dump(mode="json")
        data["timings"] = {}
        for tool in data["tools"]:
            tool["seconds"] = 0.0
        return data
