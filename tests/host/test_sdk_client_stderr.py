"""A server the SDK's stdio client starts writes its stderr to this process's, whatever
``sys.stderr`` was when ``mcp.client.stdio`` was first imported (the SDK binds it as a
default argument) and even while ``sys.stderr`` is a stream with no file descriptor (a
test's captured output): the connection opens and answers either way. Each case runs in
a fresh interpreter, so the first import happens where the case says."""

from __future__ import annotations

import subprocess
import sys

import pytest
from paths import SERVERS_DIR

CASE = """
import io, sys, traceback
from pathlib import Path
import anyio
from envfactory_mcp.host.connection import ServerConnection

real = sys.stderr
sys.stderr = io.StringIO()  # no fileno()
import mcp.client.stdio  # first imported under it
if {restore}:
    sys.stderr = real

async def main():
    conn = ServerConnection("retail", "stdio", Path({servers!r}))
    conn.lean = False  # the SDK's client
    async with conn:
        await conn.reset("s1")
        result = await conn.call("list_all_product_types", {{}}, "s1")
        print(len(conn.tools), result.is_error, file=sys.__stdout__)

try:
    anyio.run(main)
except BaseException:
    traceback.print_exc(file=sys.__stderr__)
    raise SystemExit(1)
"""


@pytest.mark.parametrize("restore", [True, False], ids=["stderr-restored", "stderr-still-captured"])
def test_the_sdk_client_starts_a_server_whatever_stderr_was(restore: bool) -> None:
    code = CASE.format(restore=restore, servers=str(SERVERS_DIR))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    tools, is_error = done.stdout.split()
    assert int(tools) > 0 and is_error == "False"
