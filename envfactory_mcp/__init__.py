"""envfactory-mcp: manufacture verified, stateful MCP tool environments for agent training.

Stages live in subpackages named after them (``spec``, ``blueprints``, ``env``, ``emit``,
``verify``, ``tasks``, ``host``, ``scoring``, ``records`` ...); the command line is
``envfactory_mcp.cli``. The names most programs need are here too, pinned by
``tests/test_api.py``::

    import envfactory_mcp as ef

    env = ef.build_env(ef.load_blueprint("retail"))
    report = ef.verify_environment(env)

Importing this package is cheap: each name loads its module on first use, so nothing
heavy (litellm, the MCP server stack, the verifier) loads until a stage needs it.
"""

from __future__ import annotations

from envfactory_mcp._exports import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it as True)

__version__ = "0.1.0"

if TYPE_CHECKING:
    from envfactory_mcp.blueprints import Blueprint, blueprint_names, load_blueprint
    from envfactory_mcp.build import VerificationFailed, build_all, build_blueprint
    from envfactory_mcp.catalog import list_environments, load_environment, load_package_env, package_spec
    from envfactory_mcp.clients import ClientConfigError
    from envfactory_mcp.crud.model import ResourceImportError
    from envfactory_mcp.env.environment import Environment, assemble_env, build_env
    from envfactory_mcp.errors import (
        BlueprintError,
        EmitError,
        EnvFactoryError,
        HarnessFailure,
        InfrastructureError,
        SeedError,
        SpecError,
    )
    from envfactory_mcp.host.config import ConfigError
    from envfactory_mcp.host.connection import SessionLost
    from envfactory_mcp.host.launch import ServerNotBuiltError
    from envfactory_mcp.host.rollout import RolloutConfig, rollout
    from envfactory_mcp.llm.client import LLMClient, LLMError
    from envfactory_mcp.llm.litellm_client import LiteLLMClient
    from envfactory_mcp.llm.scripted import ScriptExhaustedError
    from envfactory_mcp.packages import JailUnavailableError, UnverifiedPackageError
    from envfactory_mcp.records.store import MetadataMismatch, RunStore, RunStoreError, read_records
    from envfactory_mcp.records.trajectory import TrajectoryRecord
    from envfactory_mcp.rl.env import EnvFactoryEnv, EnvFactoryServers
    from envfactory_mcp.scoring.passk import summarize
    from envfactory_mcp.scoring.rescore import rescore, score_record
    from envfactory_mcp.settings import Settings
    from envfactory_mcp.spec.io import load_spec
    from envfactory_mcp.spec.models import EnvSpec
    from envfactory_mcp.tasks.generate import generate_tasks
    from envfactory_mcp.tasks.model import Task, TaskFileError, read_tasks, write_tasks
    from envfactory_mcp.trajectories.export import export_run
    from envfactory_mcp.trajectories.pages import write_view
    from envfactory_mcp.verify.provenance import NotAPackageError
    from envfactory_mcp.verify.report import VerificationReport
    from envfactory_mcp.verify.static_gate import UnsafeCodeError
    from envfactory_mcp.verify.verifier import verify_environment, verify_package

_EXPORTS = {
    "assemble_env": "envfactory_mcp.env.environment",
    "Blueprint": "envfactory_mcp.blueprints",
    "blueprint_names": "envfactory_mcp.blueprints",
    "BlueprintError": "envfactory_mcp.errors",
    "ConfigError": "envfactory_mcp.host.config",
    "build_all": "envfactory_mcp.build",
    "build_blueprint": "envfactory_mcp.build",
    "build_env": "envfactory_mcp.env.environment",
    "ClientConfigError": "envfactory_mcp.clients",
    "EmitError": "envfactory_mcp.errors",
    "EnvFactoryEnv": "envfactory_mcp.rl.env",
    "EnvFactoryError": "envfactory_mcp.errors",
    "EnvFactoryServers": "envfactory_mcp.rl.env",
    "Environment": "envfactory_mcp.env.environment",
    "EnvSpec": "envfactory_mcp.spec.models",
    "export_run": "envfactory_mcp.trajectories.export",
    "generate_tasks": "envfactory_mcp.tasks.generate",
    "HarnessFailure": "envfactory_mcp.errors",
    "InfrastructureError": "envfactory_mcp.errors",
    "JailUnavailableError": "envfactory_mcp.packages",
    "list_environments": "envfactory_mcp.catalog",
    "LiteLLMClient": "envfactory_mcp.llm.litellm_client",
    "LLMClient": "envfactory_mcp.llm.client",
    "LLMError": "envfactory_mcp.llm.client",
    "load_blueprint": "envfactory_mcp.blueprints",
    "load_environment": "envfactory_mcp.catalog",
    "load_package_env": "envfactory_mcp.catalog",
    "load_spec": "envfactory_mcp.spec.io",
    "MetadataMismatch": "envfactory_mcp.records.store",
    "NotAPackageError": "envfactory_mcp.verify.provenance",
    "package_spec": "envfactory_mcp.catalog",
    "read_records": "envfactory_mcp.records.store",
    "read_tasks": "envfactory_mcp.tasks.model",
    "rescore": "envfactory_mcp.scoring.rescore",
    "ResourceImportError": "envfactory_mcp.crud.model",
    "rollout": "envfactory_mcp.host.rollout",
    "RolloutConfig": "envfactory_mcp.host.rollout",
    "RunStore": "envfactory_mcp.records.store",
    "RunStoreError": "envfactory_mcp.records.store",
    "score_record": "envfactory_mcp.scoring.rescore",
    "ScriptExhaustedError": "envfactory_mcp.llm.scripted",
    "SeedError": "envfactory_mcp.errors",
    "ServerNotBuiltError": "envfactory_mcp.host.launch",
    "SessionLost": "envfactory_mcp.host.connection",
    "Settings": "envfactory_mcp.settings",
    "SpecError": "envfactory_mcp.errors",
    "summarize": "envfactory_mcp.scoring.passk",
    "Task": "envfactory_mcp.tasks.model",
    "TaskFileError": "envfactory_mcp.tasks.model",
    "TrajectoryRecord": "envfactory_mcp.records.trajectory",
    "UnsafeCodeError": "envfactory_mcp.verify.static_gate",
    "UnverifiedPackageError": "envfactory_mcp.packages",
    "VerificationFailed": "envfactory_mcp.build",
    "VerificationReport": "envfactory_mcp.verify.report",
    "verify_environment": "envfactory_mcp.verify.verifier",
    "verify_package": "envfactory_mcp.verify.verifier",
    "write_tasks": "envfactory_mcp.tasks.model",
    "write_view": "envfactory_mcp.trajectories.pages",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "Blueprint",
    "BlueprintError",
    "ClientConfigError",
    "ConfigError",
    "EmitError",
    "EnvFactoryEnv",
    "EnvFactoryError",
    "EnvFactoryServers",
    "EnvSpec",
    "Environment",
    "HarnessFailure",
    "InfrastructureError",
    "JailUnavailableError",
    "LLMClient",
    "LLMError",
    "LiteLLMClient",
    "MetadataMismatch",
    "NotAPackageError",
    "ResourceImportError",
    "RolloutConfig",
    "RunStore",
    "RunStoreError",
    "ScriptExhaustedError",
    "SeedError",
    "ServerNotBuiltError",
    "SessionLost",
    "Settings",
    "SpecError",
    "Task",
    "TaskFileError",
    "TrajectoryRecord",
    "UnsafeCodeError",
    "UnverifiedPackageError",
    "VerificationFailed",
    "VerificationReport",
    "__version__",
    "assemble_env",
    "blueprint_names",
    "build_all",
    "build_blueprint",
    "build_env",
    "export_run",
    "generate_tasks",
    "list_environments",
    "load_blueprint",
    "load_environment",
    "load_package_env",
    "load_spec",
    "package_spec",
    "read_records",
    "read_tasks",
    "rescore",
    "rollout",
    "score_record",
    "summarize",
    "verify_environment",
    "verify_package",
    "write_tasks",
    "write_view",
]
