"""Every malicious tools.py variant, served by envfactory-mcp, has no effect outside the jail.

The other half of ``test_malicious.py``: there the variants go through ``verify``, here
through the server a host runs. A package whose ``tools.py`` is not the shipped code
is served whole from the jail, one jailed server process per session
(``runtime/front.py``), so each variant's package is served as a launcher serves an
unverified package (``allow_unverified``), its malicious tool called once and a harmless
read tool once (in a second session when the first one's process died). Asserted on the host side
with the same witnesses as verify (``witnesses.assert_no_effects``): no file outside the
jail, no socket reached, the canary alive and unsignalled, the host file unchanged, no
secret (this process's environment, the canary's, a host file, ``/etc/shadow``) in the
server's answers or its output, no process of the variant alive, no new child of this
process. And the server itself survives: its harmless call answers, unless the module's
import-time code stopped it from starting at all (``JailedServerError``), which only a
variant that acts at import may do.

Most variants are served from this process (``host.launch.build_server``: the front here,
the package in the jail; closed after); the most dangerous ones also over real stdio
(``host.launch.stdio_params``, ``python -I -m envfactory_mcp.runtime <package> --jail``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
from malicious_tools import TOOL, VARIANTS, Variant
from mcp import Client, MCPError
from mcp_types import CallToolResult, TextContent
from processes import child_processes
from tool_calls import key
from witnesses import ENV_NAME, Canary, Host, assert_no_effects, assert_nothing_appeared_later

from envfactory_mcp.emit import write_package
from envfactory_mcp.host.launch import build_server, package_dir, stdio_params
from envfactory_mcp.packages import check_runnable
from envfactory_mcp.runtime import Bundle, ServerOptions, create_server
from envfactory_mcp.runtime.front import JailedServerError, close_jailed_server
from envfactory_mcp.runtime.jail import jail_support

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not jail_support().available,
        reason=f"served packages of these attacks run only in the jail, and no jail works here: "
        f"{jail_support().reason}",
    ),
]
ENV = "retail"
# The malicious tool's argument (cpu_hog loops while it is not empty).
SUMMARY = "The customer asks for a human agent about a late order."
BENIGN = "list_all_product_types"  # a read tool of retail with no arguments
# Every variant acts on its tool's first call; hogs are stopped at the call's time limit.
OPTIONS = ServerOptions(control=True, call_seconds=0.5)
# Served over stdio as well: a spawned process, a signal past the audit hook, a secret scan.
STDIO_VARIANTS = ("fork_exec_shell", "pidfd_signal_canary", "all_environ_scan_leak")


@dataclass
class Served:
    """What serving one variant showed: why the server did not start, or its two answers."""

    start_error: str | None = None
    attack: CallToolResult | None = None  # the malicious tool's answer
    benign: CallToolResult | None = None  # the harmless read tool's answer

    def text(self) -> str:
        parts = [self.start_error or ""]
        parts += [r.model_dump_json() for r in (self.attack, self.benign) if r is not None]
        return "\n".join(parts)


def write_variant(
    variant: Variant, retail_files: dict[str, str], markers: dict[str, str], tmp_path: Path
) -> Path:
    """The servers folder holding the retail package with the variant appended to tools.py."""
    files = dict(retail_files)
    files["retail_mcp/tools.py"] += variant.source(markers)
    servers_dir = tmp_path / "servers"
    write_package(files, servers_dir / ENV)
    return servers_dir


async def call_both(client: Client) -> Served:
    try:
        attack = await client.call_tool(TOOL, {"summary": SUMMARY})
    except MCPError as exc:  # the session's process died (a crash, the filter, a limit)
        attack = CallToolResult(content=[TextContent(type="text", text=f"MCPError: {exc}")], is_error=True)
    # A fresh session: a variant may have ended the first one's process, never another's.
    benign = await client.call_tool(BENIGN, {}, meta=key("benign"))
    return Served(attack=attack, benign=benign)


async def serve_in_process(servers_dir: Path, *, jailed: bool = True) -> Served:
    """Serve the package as ``build_server`` does, then close it (``jailed=False`` only for
    the witnesses' own check: the code runs in this process)."""
    permission = check_runnable(package_dir(servers_dir, ENV), allow_unverified=True, trust=not jailed)
    assert permission.jailed is jailed and not permission.verified, permission
    if not jailed:
        bundle = Bundle.from_package(permission.package_dir, jailed=False)
        with anyio.fail_after(30):
            async with Client(create_server(bundle, OPTIONS)) as client:
                return await call_both(client)
    try:
        server = build_server(servers_dir, ENV, OPTIONS, allow_unverified=True)
    except JailedServerError as exc:  # tools.py stopped its first session: the server never starts
        return Served(start_error=f"JailedServerError: {exc}")
    try:
        with anyio.fail_after(30):
            async with Client(server) as client:
                return await call_both(client)
    finally:
        close_jailed_server(server)


async def serve_over_stdio(servers_dir: Path) -> Served:
    params = stdio_params(servers_dir, ENV, allow_unverified=True, control=True)
    assert "--jail" in params.args, params.args
    with anyio.fail_after(30):
        async with Client(params) as client:
            return await call_both(client)


def assert_served_safely(
    served: Served,
    variant: Variant,
    host: Host,
    canary: Canary,
    markers: dict[str, str],
    secret_stat: os.stat_result,
    children_before: set[int],
    output: str,
) -> None:
    assert_no_effects(host, canary, markers, secret_stat, children_before, served.text() + "\n" + output)
    if served.start_error is not None:
        assert variant.at_import, (
            f"a variant acting only when called stopped the server: {served.start_error}"
        )
        return
    assert served.benign is not None and not served.benign.is_error, served.benign


def test_every_variant_is_served():
    assert len(VARIANTS) >= 40
    assert set(STDIO_VARIANTS) <= {v.name for v in VARIANTS}


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
async def test_a_served_malicious_variant_has_no_effect_outside_the_jail(
    variant: Variant,
    retail_files: dict[str, str],
    canary: Canary,
    host: Host,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    record_property,
):
    markers = host.markers | {"canary": str(canary.proc.pid)}
    servers_dir = write_variant(variant, retail_files, markers, tmp_path)
    secret_stat = host.secret_file.stat()
    children_before = set(child_processes())  # the canary, and whatever other fixtures keep running
    served = await serve_in_process(servers_dir)
    record_property("start_error", served.start_error or "")
    captured = capfd.readouterr()
    assert_served_safely(
        served, variant, host, canary, markers, secret_stat, children_before, captured.out + captured.err
    )


@pytest.mark.parametrize("name", STDIO_VARIANTS)
async def test_a_malicious_variant_served_over_stdio_has_no_effect_outside_the_jail(
    name: str,
    retail_files: dict[str, str],
    canary: Canary,
    host: Host,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
):
    variant = next(v for v in VARIANTS if v.name == name)
    markers = host.markers | {"canary": str(canary.proc.pid)}
    servers_dir = write_variant(variant, retail_files, markers, tmp_path)
    secret_stat = host.secret_file.stat()
    children_before = set(child_processes())
    served = await serve_over_stdio(servers_dir)
    captured = capfd.readouterr()
    assert_served_safely(
        served, variant, host, canary, markers, secret_stat, children_before, captured.out + captured.err
    )


# Harmless escapes of the catalogue: served without the jail (trusted, in this process),
# the witnesses see them, so their silence for the jailed server means something.
UNJAILED_ESCAPES = {"open_write_outside": "file", "output_leak": "secret"}


@pytest.mark.parametrize("name", sorted(UNJAILED_ESCAPES))
async def test_without_the_jail_the_witnesses_see_a_served_escape(
    name: str, retail_files: dict[str, str], canary: Canary, host: Host, tmp_path: Path
):
    variant = next(v for v in VARIANTS if v.name == name)
    markers = host.markers | {"canary": str(canary.proc.pid)}
    served = await serve_in_process(write_variant(variant, retail_files, markers, tmp_path), jailed=False)
    seen = set()
    for escaped in host.outside.iterdir():
        seen.add("file")
        escaped.unlink()  # the late check looks in every world of this module
    if os.environ[ENV_NAME] in served.text():
        seen.add("secret")
    assert UNJAILED_ESCAPES[name] in seen, f"the witness missed {name} served without the jail"


def test_nothing_appeared_later_either(canary: Canary, worlds: list[Path]):
    """Spawned processes in the catalogue wait before they write: look again after that."""
    if not worlds:
        pytest.skip("no variant ran")
    assert_nothing_appeared_later(canary, worlds)
