"""State engine: DDL, deterministic seeding, snapshots, canonical state, hash and diff."""

from envfactory_mcp.env.ddl import schema_sql, table_order
from envfactory_mcp.env.environment import Environment, assemble_env, build_env
from envfactory_mcp.env.seed import SeedRows, scale_seed, seed_sql
from envfactory_mcp.runtime.state import (
    STATE_HASH_VERSION,
    canonical_json,
    diff_states,
    dump_state,
    hash_state,
    restore_state,
    state_hash,
)

__all__ = [
    "STATE_HASH_VERSION",
    "Environment",
    "SeedRows",
    "assemble_env",
    "build_env",
    "canonical_json",
    "diff_states",
    "dump_state",
    "hash_state",
    "restore_state",
    "scale_seed",
    "schema_sql",
    "seed_sql",
    "state_hash",
    "table_order",
]
