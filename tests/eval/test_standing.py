"""The standing eval set (issue 28): at least 500 tasks over the library's flagships and
services in the committed manifest, and a group rebuilt here is the manifest's."""

from __future__ import annotations

from envfactory_mcp.blueprints import blueprint_names
from envfactory_mcp.catalog import load_environment
from envfactory_mcp.eval.standing import build_standing, read_manifest, standing_groups
from envfactory_mcp.settings import DEFAULT_SERVERS_DIR


def test_the_manifest_covers_the_library_with_500_tasks() -> None:
    manifest = read_manifest()
    assert manifest["tasks"] >= 500
    names = blueprint_names()
    assert [g["servers"] for g in manifest["groups"]] == standing_groups(names)
    assert sorted(s for g in manifest["groups"] for s in g["servers"]) == sorted(names)
    assert {"retail", "airline", "banking", "telecom"} <= set(names)


def test_a_group_rebuilds_to_the_manifest() -> None:
    manifest = read_manifest()
    tasks, made = build_standing(
        lambda name: load_environment(name, DEFAULT_SERVERS_DIR).env, blueprint_names(), [0], manifest
    )
    assert made["groups"] == [manifest["groups"][0]] and len(tasks) == manifest["groups"][0]["tasks"]
