"""What a package folder may hold: exactly the files the emitter writes, nothing more.

A launcher starts Python with the package folder as its working directory (``python -m
envfactory_mcp.runtime <pkg>``, ``python -m <pkg>``, the verifier's stdio stage), so the
package root and its ``<name>_mcp/`` folder are on ``sys.path`` before the standard
library and the installed packages: an ``argparse.py``, a ``json/`` or ``mcp/`` folder or
an ``envfactory_mcp/`` there replaces the module of that name in whatever process starts
there, and a ``.pth`` or ``sitecustomize.py`` runs code as Python starts wherever it is
on a site path. None of them is ever written by the emitter, so the rule is the
emitter's own list (``emit.render.emitted_paths``, plus the report and the data files a
build may add, ``EXTRA_DATA_FILES``): any other file or folder, any symlink and any
special file fails verification, with a reason naming it and, for a name that shadows
something, what it shadows. Python's caches are allowed where Python writes them: a
``__pycache__/`` holding only ``<module>.*.pyc`` of an emitted module beside it, and
``.pytest_cache/``.
"""

from __future__ import annotations

import importlib.machinery
import os
import stat
import sys
from functools import cache
from pathlib import Path

from envfactory_mcp.emit.render import EXTRA_DATA_FILES, emitted_paths, package_name
from envfactory_mcp.verify.provenance import REPORT_FILE

_STARTUP_HOOKS = frozenset({"sitecustomize", "usercustomize"})
_MODULE_SUFFIXES = tuple(
    sorted(set(importlib.machinery.all_suffixes()) | {".pyc", ".pyw"}, key=len, reverse=True)
)


def allowed_paths(env_name: str) -> frozenset[str]:
    """Every file a package of ``env_name`` may hold (paths inside its folder)."""
    data = f"{package_name(env_name)}/data"
    return (
        emitted_paths(env_name) | {f"{data}/{REPORT_FILE}"} | {f"{data}/{name}" for name in EXTRA_DATA_FILES}
    )


def unexpected_files(root: Path, env_name: str) -> list[str]:
    """One line per entry of the package folder ``root`` that the emitter does not write
    (``path: why``), in path order; empty for a package as emitted. Never follows a
    symlink."""
    files = allowed_paths(env_name)
    folders = {parent for path in files for parent in _parents(path)}
    on_path = {"", package_name(env_name)}  # where a launcher puts the package on sys.path
    problems: list[tuple[str, str]] = []
    for top, dirs, names in os.walk(root, followlinks=False):
        here = Path(top).relative_to(root).as_posix()
        here = "" if here == "." else here
        for name in sorted(dirs):
            rel = f"{here}/{name}" if here else name
            path = Path(top) / name
            if path.is_symlink():
                problems.append((rel, "a symlink; the emitter writes only regular files"))
            elif name == "__pycache__":
                problems.extend(
                    _cache_problems(path, rel, {Path(f).name for f in files if _parent(f) == here})
                )
            elif name == ".pytest_cache" and here == "":
                pass  # pytest's own, at the root it ran in; Python never imports from it
            elif rel not in folders:
                problems.append((rel, _why(name, here in on_path, folder=True)))
            else:
                continue
            dirs.remove(name)  # judged whole: not walked into
        for name in sorted(names):
            rel = f"{here}/{name}" if here else name
            mode = os.lstat(Path(top) / name).st_mode
            if stat.S_ISLNK(mode):
                problems.append((rel, "a symlink; the emitter writes only regular files"))
            elif not stat.S_ISREG(mode):
                problems.append((rel, "not a regular file"))
            elif rel not in files:
                problems.append((rel, _why(name, here in on_path, folder=False)))
    return [f"{rel}: {why}" for rel, why in sorted(problems)]


def _cache_problems(folder: Path, rel: str, modules: set[str]) -> list[tuple[str, str]]:
    """A ``__pycache__`` may hold only bytecode of the modules beside it."""
    stems = {name[: -len(".py")] for name in modules if name.endswith(".py")}
    problems = []
    for entry in sorted(os.listdir(folder)):
        mode = os.lstat(folder / entry).st_mode
        if not stat.S_ISREG(mode) or not entry.endswith(".pyc") or entry.split(".", 1)[0] not in stems:
            problems.append((f"{rel}/{entry}", "not bytecode of a module the emitter writes beside it"))
    return problems


def _why(name: str, on_path: bool, folder: bool) -> str:
    """Why an entry the emitter does not write is refused, naming what it would shadow."""
    what = "folder" if folder else "file"
    plain = f"not a {what} the emitter writes"
    if not folder and name.endswith(".pth"):
        return f"a .pth file runs code when Python starts on a site path ({plain})"
    module = name if folder else _module_name(name)
    if module in _STARTUP_HOOKS:
        return f"{module} runs code when Python starts ({plain})"
    if module is None or not on_path:
        return plain
    shadowed = _shadows(module)
    if shadowed:
        return f"shadows {shadowed} for a launcher started in the package folder ({plain})"
    return plain


def _module_name(filename: str) -> str | None:
    for suffix in _MODULE_SUFFIXES:
        if filename.endswith(suffix):
            return filename[: -len(suffix)]
    return None


def _shadows(module: str) -> str | None:
    """What an importable ``module`` at the front of ``sys.path`` would replace, if anything."""
    if module.split(".")[0] in ("envfactory_mcp",):
        return "envfactory-mcp itself (envfactory_mcp)"
    if module in sys.stdlib_module_names or module in sys.builtin_module_names:
        return f"the standard library's {module}"
    dists = _installed_modules().get(module)
    if dists:
        return f"the installed package {', '.join(sorted(dists))} ({module})"
    return None


@cache
def _installed_modules() -> dict[str, list[str]]:
    from importlib.metadata import packages_distributions

    return {name: list(dists) for name, dists in packages_distributions().items()}


def _parent(path: str) -> str:
    return path.rpartition("/")[0]


def _parents(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]
