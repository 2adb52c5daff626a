"""Synthesis: new environments from resources (OpenAPI, SQL DDL) or descriptions (a model)."""
