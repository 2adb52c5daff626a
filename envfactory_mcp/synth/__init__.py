"""Synthesis: new environments from resources (OpenAPI, SQL DDL) or descriptions (a model)."""

from __future__ import annotations

from envfactory_mcp._exports import lazy_exports

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read it as True)

if TYPE_CHECKING:
    from envfactory_mcp.synth.model import SynthesisResult, synthesize_from_description, synthesize_many
    from envfactory_mcp.synth.resource import import_resource

# Loaded on first use (importers and the model loop load apart).
_EXPORTS = {
    "SynthesisResult": "envfactory_mcp.synth.model",
    "import_resource": "envfactory_mcp.synth.resource",
    "synthesize_from_description": "envfactory_mcp.synth.model",
    "synthesize_many": "envfactory_mcp.synth.model",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "SynthesisResult",
    "import_resource",
    "synthesize_from_description",
    "synthesize_many",
]
