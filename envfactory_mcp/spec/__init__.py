"""The environment spec: what an environment declares about its state and tools."""

from envfactory_mcp.spec.io import dump_spec, load_spec, parse_spec, spec_json_schema
from envfactory_mcp.spec.models import ColumnSpec, EnvSpec, ParamSpec, SeedSpec, TableSpec, ToolSpec
from envfactory_mcp.spec.policy import Authentication, PolicyRules, RefusalRule, Transfer
from envfactory_mcp.spec.validate import validate_spec

__all__ = [
    "Authentication",
    "ColumnSpec",
    "EnvSpec",
    "ParamSpec",
    "PolicyRules",
    "RefusalRule",
    "SeedSpec",
    "TableSpec",
    "ToolSpec",
    "Transfer",
    "dump_spec",
    "load_spec",
    "parse_spec",
    "spec_json_schema",
    "validate_spec",
]
