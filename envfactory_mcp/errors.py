"""Every error envfactory-mcp raises on purpose.

    EnvFactoryError
    ├── SpecError              a spec that is malformed or inconsistent; names the exact place
    ├── SeedError              seed rows that violate the schema (foreign key, CHECK, NOT NULL)
    ├── BlueprintError         an unknown blueprint, or one whose code does not match its spec
    ├── EmitError              a package that cannot be rendered or written
    ├── ConfigError            a rollout or eval configuration that cannot run, in one line naming its fields (host.config)
    ├── InfrastructureError    a server that died, hung or could not be reached (a harness failure)
    │   └── SessionLost        a session whose server was restarted since it was reset (host.connection)
    ├── ResourceImportError    a resource (OpenAPI, SQL DDL) the importers cannot represent (crud)
    ├── UnsafeCodeError        tool code that fails the static gate (verify.static_gate)
    ├── NotAPackageError       a folder that holds no emitted package (verify.provenance)
    ├── VerificationFailed     an environment that failed verification; nothing emitted (build)
    ├── UnverifiedPackageError a package without a passing, current report asked to run (packages)
    ├── JailUnavailableError   a package whose code must run jailed, on a machine with no jail (packages)
    ├── ServerNotBuiltError    an environment with no emitted package to start (host.launch)
    ├── TaskFileError          a task file that is missing, empty or has a bad line (tasks.model)
    ├── RunStoreError          a run directory that cannot be used: corrupt, in use (records.store)
    │   └── MetadataMismatch   a run resumed with another configuration; names each field
    ├── ClientConfigError      an MCP client's configuration file that cannot be read or written safely (clients)
    ├── LLMError               a model call that failed after its retries, with its kind (llm)
    ├── HarnessFailure         an RL episode that ended for a reason not the policy's, never trained on as a 0 (rl)
    └── ScriptExhaustedError   a scripted model asked for more replies than it holds (llm.scripted)

Tool failures inside a running server are not exceptions of this tree: they are MCP
results with ``isError: true`` (see ``envfactory_mcp.runtime``).
"""

from __future__ import annotations

from typing import Any


class EnvFactoryError(Exception):
    """Base class of every deliberate envfactory-mcp error."""


class SpecError(EnvFactoryError):
    """A spec failed validation.

    ``where`` is a dotted path into the spec (``tools[cancel_order].writes[2]``) so a
    person or a repair loop can go straight to the fault.
    """

    def __init__(self, where: str, message: str) -> None:
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}")


class SeedError(EnvFactoryError):
    """Seed rows could not be loaded into the schema."""


class BlueprintError(EnvFactoryError):
    """A blueprint is unknown or inconsistent with its own spec."""


class EmitError(EnvFactoryError):
    """A server package could not be rendered or written."""


class InfrastructureError(EnvFactoryError):
    """The server died, hung or could not be reached: a harness failure, not the agent's."""


class HarnessFailure(EnvFactoryError):
    """An episode a trainer asked for ended for a reason that is not the policy's (a server,
    the simulated user, a time limit): raised instead of a reward so it is never trained on
    as the policy's 0. ``record`` is the episode's ``TrajectoryRecord``."""

    def __init__(self, record: Any) -> None:
        super().__init__(f"{record.termination}: {record.termination_detail}")
        self.record = record
