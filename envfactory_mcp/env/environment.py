"""An environment ready to serve: spec + tool code + schema + seed, checked to load.

Built from a blueprint (``build_env``) or from parts (``assemble_env``; an importer's or a
model's); an emitted package's environment is read by ``envfactory_mcp.catalog``, which
knows about packages and their verification."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType
from typing import Any, Protocol

from envfactory_mcp.env.ddl import schema_sql
from envfactory_mcp.env.seed import SeedRows, scale_seed, seed_sql
from envfactory_mcp.errors import BlueprintError, SeedError
from envfactory_mcp.runtime import Bundle, SessionDatabase, Toolbox
from envfactory_mcp.runtime.cache import seed_image
from envfactory_mcp.runtime.database import SeedLoadError
from envfactory_mcp.runtime.isolation import JailedTools
from envfactory_mcp.runtime.state import State, hash_digests, primary_keys_of, table_digest
from envfactory_mcp.spec import EnvSpec, dump_spec, parse_spec, validate_spec


class EnvSource(Protocol):
    """What ``build_env`` needs of a blueprint (``envfactory_mcp.blueprints.Blueprint`` is
    one): the state engine does not know where environments are written."""

    @property
    def default_seed(self) -> int: ...

    @property
    def tools_module(self) -> ModuleType: ...

    def build_spec(self, seed: int, /) -> EnvSpec: ...

    def generate_seed(self, rng: random.Random, /) -> dict[str, list[dict[str, Any]]]: ...

    def code(self) -> str: ...


@dataclass(frozen=True)
class Environment:
    spec: EnvSpec
    tools_source: str
    tools_module: ModuleType | JailedTools  # JailedTools: untrusted code, run in jailed workers
    schema_sql: str
    seed_sql: str
    seed_image: bytes
    seed_state: State
    seed_hash: str
    primary_keys: dict[str, tuple[str, ...]]
    # Each table's digest in ``seed_state`` (``seed_hash`` is made of them): read, not
    # recomputed, by whoever needs them (the task oracle's gold diff); empty: not known.
    seed_digests: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    @cached_property
    def spec_text(self) -> str:
        """``dump_spec(spec)``, the text its package's spec.json holds: made once (a
        ``model_dump`` and an indented ``json.dumps``; the spec does not change)."""
        return dump_spec(self.spec)

    def bundle(self) -> Bundle:
        """The runtime's view (the same data a generated package ships); its spec is a
        fresh copy each time."""
        return Bundle(
            spec=json.loads(self.spec_text),
            tools_module=self.tools_module,
            schema_sql=self.schema_sql,
            seed_sql=self.seed_sql,
        )

    def toolbox(self) -> Toolbox:
        return Toolbox(self.bundle().spec, self.tools_module)

    def new_session(self) -> SessionDatabase:
        """A fresh in-memory database holding the seed state."""
        return SessionDatabase(self.seed_image)


def assemble_env(spec: EnvSpec, tools_source: str, rows: SeedRows, load_code: bool = False) -> Environment:
    """An environment from parts that did not come from a blueprint (an importer, a model).

    The seed is loaded and checked here (SQL only). The tool code is kept as text and
    *not* run: ``tools_module`` is an empty placeholder until ``load_code=True``, which a
    caller asks for only after the code passed verification in the sandbox. Until then
    the environment can be rendered, emitted and verified, but not called in-process.
    """
    spec = validate_spec(spec)
    module = (
        load_tool_code(tools_source, spec.name, f"{spec.name}/tools.py")
        if load_code
        else ModuleType(f"{spec.name}_tools")
    )
    return environment_from_parts(
        spec, tools_source, module, schema_sql(spec), seed_sql(spec, rows), check_tools=load_code
    )


def build_env(blueprint: EnvSource, seed: int | None = None, *, scale: int = 1) -> Environment:
    """Blueprint -> checked environment. Same blueprint and seed give the same bytes.

    ``scale`` > 1 repeats every seed row that many times with fresh keys (``scale_seed``),
    for measuring how costs grow with the state; shipped packages use 1.

    Raises ``SpecError`` for an inconsistent spec, ``SeedError`` for seed rows that break a
    constraint, ``BlueprintError`` when the tool code lacks a declared tool.
    """
    seed = blueprint.default_seed if seed is None else seed
    # Round-trip through spec.json: the environment is then exactly what its emitted
    # package holds (same key order everywhere), so tasks made from either are the same.
    spec = validate_spec(parse_spec(json.loads(dump_spec(validate_spec(blueprint.build_spec(seed))))))
    rows = blueprint.generate_seed(random.Random(seed))
    if scale != 1:
        rows = scale_seed(spec, rows, scale)
    source = blueprint.code()
    return environment_from_parts(
        spec, source, blueprint.tools_module, schema_sql(spec), seed_sql(spec, rows), check_tools=True
    )


def load_tool_code(source: str, env_name: str, filename: str) -> ModuleType:
    """Tool code run in-process: only code from this repository or that passed verification."""
    module = ModuleType(f"{env_name}_tools")
    exec(compile(source, filename, "exec"), module.__dict__)  # noqa: S102 - verified code only
    return module


def environment_from_parts(
    spec: EnvSpec,
    tools_source: str,
    module: ModuleType | JailedTools,
    ddl: str,
    inserts: str,
    check_tools: bool,
) -> Environment:
    """Load and check the seed, then put the environment together (and, with
    ``check_tools``, check that the module defines every declared tool)."""
    try:
        image = seed_image(ddl, inserts)  # built once per user and seed (runtime/cache.py)
    except SeedLoadError as exc:
        raise SeedError(f"{spec.name}: {exc}") from None
    session = SessionDatabase(image)
    try:
        state = session.dump()
        pks = primary_keys_of(session.db)
    finally:
        session.close()
    digests = {name: table_digest(rows) for name, rows in state.items()}
    env = Environment(
        spec=spec,
        tools_source=tools_source,
        tools_module=module,
        schema_sql=ddl,
        seed_sql=inserts,
        seed_image=image,
        seed_state=state,
        seed_hash=hash_digests(digests),  # ``hash_state(state)``
        primary_keys=pks,
        seed_digests=digests,
    )
    if check_tools:
        try:
            env.toolbox()
        except ValueError as exc:
            raise BlueprintError(str(exc)) from None
    return env
