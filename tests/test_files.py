"""The one atomic writer (``envfactory_mcp.files``), and that whole files go through it."""

from __future__ import annotations

import ast
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from paths import ROOT

from envfactory_mcp import files


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp-" in p.name)


def test_text_bytes_and_json_replace_the_file_and_leave_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "summary.json"
    files.write_text(target, "old\n")
    files.write_json(target, {"b": 1, "a": "é"}, sort_keys=True, ensure_ascii=False)
    assert target.read_text(encoding="utf-8") == '{\n  "a": "é",\n  "b": 1\n}\n'
    files.write_bytes(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    assert leftovers(tmp_path) == []


def test_an_existing_file_keeps_its_mode_and_a_new_one_gets_the_asked_mode(tmp_path: Path) -> None:
    private = tmp_path / "client.json"
    private.write_text("{}")
    private.chmod(0o600)
    files.write_json(private, {"mcpServers": {}})
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    fresh = tmp_path / "new.json"
    files.write_json(fresh, {}, new_mode=0o600)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600
    umask = os.umask(0)
    os.umask(umask)
    usual = tmp_path / "usual.txt"
    files.write_text(usual, "x")
    assert stat.S_IMODE(usual.stat().st_mode) == 0o666 & ~umask


def test_a_failed_write_leaves_the_old_content_and_no_temporary_file(tmp_path: Path) -> None:
    folder = tmp_path / "report.json"
    folder.mkdir()  # a folder where the file should go: the rename fails
    (folder / "inside").write_text("kept")
    with pytest.raises(OSError):
        files.write_text(folder, "new")
    assert (folder / "inside").read_text() == "kept"
    assert leftovers(tmp_path) == []
    with pytest.raises(FileNotFoundError):
        files.write_text(tmp_path / "missing" / "x.json", "new")


def test_concurrent_writers_never_collide(tmp_path: Path) -> None:
    target = tmp_path / "view.html"
    errors: list[BaseException] = []

    def write(text: str) -> None:
        try:
            for _ in range(50):
                files.write_text(target, text)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(c * 10_000,)) for c in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert target.read_text() in ("a" * 10_000, "b" * 10_000)
    assert leftovers(tmp_path) == []


def test_a_process_killed_while_writing_leaves_the_old_file_or_the_new_never_a_mix(tmp_path: Path) -> None:
    target = tmp_path / "trajectories.jsonl"
    size = 4 << 20
    files.write_bytes(target, b"a" * size)
    writer = (
        "import sys\nfrom envfactory_mcp import files\n"
        f"size = {size}\n"
        "i = 0\n"
        "while True:\n"
        "    files.write_bytes(sys.argv[1], (b'ab'[i % 2:i % 2 + 1]) * size)\n"
        "    i += 1\n"
    )
    for delay in (0.05, 0.2, 0.5):
        proc = subprocess.Popen([sys.executable, "-c", writer, str(target)], cwd=ROOT)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        data = target.read_bytes()
        assert data in (b"a" * size, b"b" * size)


# Files written whole without envfactory_mcp.files, each with its reason. Anything else
# that writes a file whole is a finding of the test below.
ALLOWED = {
    "envfactory_mcp/files.py": "the writer itself",
    "envfactory_mcp/emit/write.py": "a package is a folder, swapped in whole",
    "envfactory_mcp/records/store.py": "trajectories.jsonl is appended one fsynced line at a time",
}


def _whole_file_writes(path: Path) -> list[int]:
    """Lines of ``path`` that write a file by hand: ``Path.write_text/write_bytes``,
    ``open(..., "w"/"wb"/"x")`` or ``os.replace``/``os.rename``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        owner = (
            func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
        )
        modes = [node.args[1]] if len(node.args) > 1 else []
        modes += [k.value for k in node.keywords if k.arg == "mode"]
        mode = "".join(str(m.value) for m in modes if isinstance(m, ast.Constant))
        by_hand = (
            (name in ("write_text", "write_bytes") and owner != "files")
            or (name in ("replace", "rename") and owner == "os")
            or (name == "open" and any(m in str(mode) for m in "wx"))
        )
        if by_hand:
            found.append(node.lineno)
    return found


def test_every_whole_file_is_written_through_the_one_writer() -> None:
    package = ROOT / "envfactory_mcp"
    found = {}
    for path in sorted(package.rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        if rel.startswith("envfactory_mcp/runtime/") or rel in ALLOWED:
            continue  # the runtime is vendored into packages and imports only the standard library
        lines = _whole_file_writes(path)
        if lines:
            found[rel] = lines
    assert not found, f"files written by hand, not through envfactory_mcp.files: {json.dumps(found)}"


def test_the_scan_sees_each_way_of_writing_a_file_by_hand(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "import os\nfrom pathlib import Path\nfrom envfactory_mcp import files\n"
        "Path('a').write_text('x')\n"
        "open('b', 'w')\n"
        "os.replace('c', 'd')\n"
        "files.write_text('e', 'x')\n"
        "open('f')\n"
        "open('g', 'ab')\n"
        "open('h', mode='wb')\n"
    )
    assert _whole_file_writes(source) == [4, 5, 6, 10]
