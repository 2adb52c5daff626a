"""Import benchmark on the public corpus (issue 12): how much of real documents becomes verified servers.

    python bench/bench_import.py [--only NAME ...] [--jobs 2] [--no-verify] [--rounds 1] [--strict]
                                 [--corpus DIR] [--json FILE]

For each document of the corpus's ``sources.json`` that is here (``--corpus``: by default
``../shared/corpus/`` beside the checkout; the kept ones, and those
``tests/corpus/fetch.py`` brought into its ``fetched/``): import it
(``import_resource``; a multi-file document through its root file), assemble it and
verify it as ``synthesize --resource`` does (``emit_verified`` into a temporary folder),
and print one row: operations in the document, served as tools, ignored (entries),
operations neither served nor ignored, verified (yes, or the one-line error) and seconds
(median over ``--rounds``; this machine is shared and noisy).

Operations are counted here, from the document, not by the importer: OpenAPI, one per
path and method (get, put, post, delete, patch, head, options, trace; path items behind a
``$ref`` followed, across files too); SQL, one per ``CREATE TABLE`` statement. Served and
ignored come from ``ImportedEnv.coverage`` and ``ImportedEnv.ignored``. An operation
counts as ignored when an ``Ignored`` entry of a kind other than parameter, field or
schema names it (its JSON pointer, or a line of its ``CREATE TABLE``); "unaccounted" are
those neither served nor ignored.

Verification is as ``synthesize --resource`` does it: a tool that fails is dropped with its
reason (the ``dropped`` column; counted as accounted for, not served) and the rest of the
document is verified again and served; ``--strict`` keeps all or nothing.

Totals, with the targets of issue 27: documents that emit a verified server (100%),
operations served / operations in all documents (>= 95%), unaccounted operations (0);
the load average is printed at the start and the end (run two benches at once for a
loaded machine).
Then the most common errors and ignored reasons, counted.

Each document runs in a child process of its own (``--jobs`` at once) with a budget of CPU
time (``--cpu-limit``, the child's own; its sandboxed verifiers have theirs) and a far
wall-clock backstop (``--timeout``), so a busy machine makes a document slower, never a
failure: a crash, hang, exhausted budget or memory is that document's row, never the end of
the bench.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
CORPUS = SHARED_CORPUS  # data beside the checkout, not in the project (issue 27)
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
TARGET_VERIFIED, TARGET_SERVED = 1.00, 0.95  # issue 27, on this corpus (issue 12's were 0.90 and 0.70)
# Ignored kinds that leave out a part of an operation (the operation itself is served),
# even when their place is the operation's pointer: a query parameter, a property.
PARTS = ("parameter", "field", "schema")


# --------------------------------------------------------------------------- the corpus


def corpus_documents(only: list[str] | None = None) -> list[dict[str, Any]]:
    """The entries of sources.json whose file is here (committed, or fetched), in file order."""
    if not (CORPUS / "sources.json").is_file():
        raise SystemExit(
            f"no corpus at {CORPUS}: the public documents live in ../shared/corpus beside the checkout"
        )
    entries = json.loads((CORPUS / "sources.json").read_text(encoding="utf-8"))
    present = [e for e in entries if (CORPUS / e["file"]).is_file()]
    if only:
        unknown = set(only) - {e["name"] for e in entries}
        if unknown:
            raise SystemExit(f"not in the corpus: {', '.join(sorted(unknown))}")
        present = [e for e in present if e["name"] in only]
    return present


def _load(path: Path) -> Any:
    import yaml  # type: ignore[import-untyped]

    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


def _pointer(document: Any, pointer: str) -> Any:
    node = document
    for part in pointer.lstrip("/").split("/") if pointer.strip("/") else []:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


def openapi_operations(root: Path) -> list[str]:
    """``#/paths/<escaped path>/<method>`` of every operation of the document at ``root``,
    path items behind ``$ref`` (local, or a relative file) followed."""
    cache: dict[Path, Any] = {root.resolve(): _load(root)}
    document = cache[root.resolve()]
    found = []
    for path, item in (document.get("paths") or {}).items():
        base = root.resolve()
        for _ in range(10):  # a chain of path-item references
            if not (isinstance(item, dict) and isinstance(item.get("$ref"), str)):
                break
            file_part, _, pointer = item["$ref"].partition("#")
            if file_part:
                base = (base.parent / file_part).resolve()
                if base not in cache:
                    cache[base] = _load(base)
            item = _pointer(cache[base], pointer)
        if isinstance(item, dict):
            found += [f"#/paths/{_escape(path)}/{m}" for m in METHODS if m in item]
    return found


_COMMENTS = re.compile(r"/\*.*?\*/|--[^\n]*|^\s*#[^\n]*", re.DOTALL | re.MULTILINE)
_CREATE_TABLE = re.compile(r"\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:UNLOGGED\s+)?TABLE\b", re.IGNORECASE)


def sql_tables(text: str) -> list[tuple[int, int]]:
    """(first line, last line) of each ``CREATE TABLE`` statement, comments aside (a
    ``CREATE TEMPORARY TABLE``, as in a stored procedure's body, defines no state)."""

    def blank(match: re.Match[str]) -> str:  # keep the line numbers
        return re.sub(r"[^\n]", " ", match.group(0))

    clean = _COMMENTS.sub(blank, text)
    spans = []
    for match in _CREATE_TABLE.finditer(clean):
        end = clean.find(";", match.end())
        end = len(clean) if end < 0 else end
        spans.append((clean.count("\n", 0, match.start()) + 1, clean.count("\n", 0, end) + 1))
    return spans


def count_operations(entry: dict[str, Any]) -> tuple[int, set[str], list[tuple[int, int]]]:
    """(operations, their JSON pointers, CREATE TABLE line spans) of a corpus document."""
    path = CORPUS / entry["file"]
    if entry["kind"] == "sql":
        spans = sql_tables(path.read_text(encoding="utf-8", errors="replace"))
        return len(spans), set(), spans
    pointers = openapi_operations(path)
    return len(pointers), set(pointers), []


def _ignored_operations(
    ignored: list[dict[str, str]], pointers: set[str], spans: list[tuple[int, int]]
) -> int:
    """How many of the document's operations an ``Ignored`` entry names."""
    named: set[object] = set()
    for item in ignored:
        where = item["where"]
        if where in pointers and item["kind"] not in PARTS:
            named.add(where)
        line = re.fullmatch(r"line (\d+)", where.strip())
        if line and item["kind"] in ("statement", "operation"):
            number = int(line.group(1))
            named.update(span for span in spans if span[0] <= number <= span[1])
    return len(named)


# --------------------------------------------------------------------------- one document (child)


def load_average() -> str:
    """This machine's load average (1, 5, 15 minutes), as ``uptime`` shows it."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average: unknown"
    return f"load average: {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} CPUs)"


def run_one(entry: dict[str, Any], verify: bool, rounds: int, strict: bool = False) -> dict[str, Any]:
    """The row of one document; runs in a child process (``--child``)."""
    from envfactory_mcp.build import VerificationFailed, emit_verified
    from envfactory_mcp.cli.synth import fidelity_after_dropping
    from envfactory_mcp.env import assemble_env
    from envfactory_mcp.synth.report import FidelityReport, fidelity_relpath
    from envfactory_mcp.synth.resource import import_resource
    from envfactory_mcp.verify.dropping import keep_what_verifies
    from envfactory_mcp.verify.verifier import VerifyOptions

    row: dict[str, Any] = {"name": entry["name"], "kind": entry["kind"], "dialect": entry.get("dialect")}
    try:
        operations, pointers, spans = count_operations(entry)
    except Exception as exc:  # noqa: BLE001 (the corpus file itself is unreadable to the counter)
        operations, pointers, spans = 0, set(), []
        row["count_error"] = _one_line(exc)
    row["operations"] = operations
    import_times, verify_times = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        try:
            imported = import_resource(CORPUS / entry["file"], entry["name"], 0)
        except Exception as exc:  # noqa: BLE001 (any failure is this document's row)
            row.update(stage="import", error=_one_line(exc), seconds=time.perf_counter() - t0)
            return row
        import_times.append(time.perf_counter() - t0)
        row.update(
            tools=len(imported.spec.tools),
            tables=len(imported.spec.tables),
            served=imported.coverage.served,
            coverage_operations=imported.coverage.operations,
            fields=imported.coverage.fields,
            fields_kept=imported.coverage.fields_kept,
            ignored=[{"where": i.where, "kind": i.kind, "reason": i.reason} for i in imported.ignored],
        )
        if not verify:
            continue
        t1 = time.perf_counter()
        try:
            env = assemble_env(imported.spec, imported.tools_source, imported.rows)
            fidelity = FidelityReport.of(imported, CORPUS / entry["file"])
            with tempfile.TemporaryDirectory(prefix="bench-import-") as tmp:

                def build(
                    current: Any,
                    dropped: Any,
                    tmp: str = tmp,
                    fidelity: Any = fidelity,
                    spec: Any = imported.spec,
                ) -> Any:
                    kept = fidelity_after_dropping(fidelity, spec, dropped)
                    extra = {fidelity_relpath(spec.name): kept.to_json()}
                    options = VerifyOptions(dropped=dropped)
                    return emit_verified(current, Path(tmp) / spec.name, options, extra_files=extra)

                built = keep_what_verifies(env, build, strict=strict)
            dropped = list(built.report.dropped)
            kept = fidelity_after_dropping(fidelity, imported.spec, tuple(dropped))
            row.update(
                operations_served_before=row["served"],
                served=kept.served,
                tools_served=len(built.report.tools),
                dropped=[{"tool": d.tool, "reason": d.reason[:300]} for d in dropped],
                probes=built.report.probes,
                sandbox_cpu=built.report.timings.get("sandbox_cpu"),
                chunks=built.report.sandbox.limits.get("chunks"),
                cpu_budget=built.report.sandbox.limits.get("cpu_seconds"),
            )
        except VerificationFailed as exc:
            failures = exc.report.failures()
            row.update(
                stage="verify", error=f"{len(failures)} failure(s); first: {failures[0] if failures else '?'}"
            )
        except Exception as exc:  # noqa: BLE001 (any failure is this document's row)
            row.update(stage="assemble", error=_one_line(exc))
        verify_times.append(time.perf_counter() - t1)
        if "error" in row:
            break
    row["import_seconds"] = statistics.median(import_times)
    row["verify_seconds"] = statistics.median(verify_times) if verify_times else None
    row["seconds"] = row["import_seconds"] + (row["verify_seconds"] or 0.0)
    row["verified"] = verify and "error" not in row
    # a tool dropped by verification is accounted for (with its reason), not served
    dropped_operations = row.get("operations_served_before", row.get("served", 0)) - row.get("served", 0)
    row["ignored_operations"] = _ignored_operations(row["ignored"], pointers, spans) + max(
        0, dropped_operations
    )
    return row


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or "(no message)"
    return f"{type(exc).__name__}: {text[:300]}"


CPU_LIMIT_S = 1800.0  # of the child's own CPU: DigitalOcean (659 operations) takes ~230 s
WALL_BACKSTOP_S = 4 * 3600.0


def _limit_cpu(seconds: float) -> None:
    """A soft limit only (SIGXCPU ends the child): the sandboxed verifiers it starts set
    their own limits, which a hard limit here would forbid them to raise."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (max(1, int(seconds)), hard))


def run_child(
    entry: dict[str, Any],
    verify: bool,
    rounds: int,
    timeout: float,
    strict: bool = False,
    cpu_limit: float = CPU_LIMIT_S,
) -> dict[str, Any]:
    """``run_one`` in a fresh interpreter with ``cpu_limit`` seconds of CPU (RLIMIT_CPU) and
    ``timeout`` seconds of wall time as a backstop; whatever goes wrong there is the row's
    error."""
    t0 = time.perf_counter()
    command = [sys.executable, __file__, "--child", json.dumps(entry), "--rounds", str(rounds)]
    command += ["--corpus", str(CORPUS)]
    if not verify:
        command.append("--no-verify")
    if strict:
        command.append("--strict")
    try:
        done = subprocess.run(
            command,
            check=False,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
            preexec_fn=lambda: _limit_cpu(cpu_limit),
        )
    except subprocess.TimeoutExpired:
        return _failed(entry, "timeout", f"over {timeout:.0f} s", t0)
    if done.returncode == -signal.SIGXCPU:
        return _failed(entry, "timeout", f"over {cpu_limit:.0f} s of CPU", t0)
    lines = done.stdout.strip().splitlines()
    try:
        return dict(json.loads(lines[-1]))
    except (IndexError, ValueError):
        tail = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        return _failed(entry, "crash", f"the child died (exit {done.returncode}): {tail[:300]}", t0)


def _failed(entry: dict[str, Any], stage: str, error: str, t0: float) -> dict[str, Any]:
    """The row of a document whose child gave no result."""
    return {
        "name": entry["name"],
        "kind": entry["kind"],
        "stage": stage,
        "error": error,
        "seconds": time.perf_counter() - t0,
    }


# --------------------------------------------------------------------------- the table


def summarise(rows: list[dict[str, Any]], verify: bool) -> list[str]:
    header = (
        f"{'document':<38} {'kind':<14} {'ops':>5} {'served':>6} {'tools':>5} {'dropped':>7} {'ignored':>7} "
        f"{'unacc':>5} {'seconds':>8} {'CPU s':>7}  verified"
    )
    lines = [header]
    for row in rows:
        kind = row["kind"] + (f"/{row['dialect']}" if row.get("dialect") else "")
        ops = row.get("operations", 0)
        imported = row.get("stage") not in ("import", "crash", "timeout")
        served = min(row.get("served", 0), ops) if imported else 0
        # the totals count what a user gets: operations served by a server that verified
        row["served_capped"] = served if "error" not in row else 0
        row["unaccounted"] = max(0, ops - served - row.get("ignored_operations", 0)) if imported else ops
        if "error" in row:
            status = f"no: {row['stage']}: {row['error']}"
        else:
            status = "yes" if row.get("verified") else "(not verified)"
        lines.append(
            f"{row['name'][:38]:<38} {kind:<14} {ops:>5} {served:>6} {row.get('tools', 0):>5} "
            f"{len(row.get('dropped', [])):>7} {len(row.get('ignored', [])):>7} {row['unaccounted']:>5} "
            f"{row.get('seconds', 0.0):>8.2f} {row.get('sandbox_cpu') or 0.0:>7.1f}  {status}"
        )
    total_ops = sum(r.get("operations", 0) for r in rows)
    served_ops = sum(r["served_capped"] for r in rows)
    unaccounted = sum(r["unaccounted"] for r in rows)
    verified = sum(1 for r in rows if r.get("verified"))
    n = len(rows) or 1
    lines.append("")
    if verify:
        mark = "ok" if verified / n >= TARGET_VERIFIED else "below target"
        lines.append(
            f"verified servers:       {verified}/{len(rows)} documents ({verified / n:.0%}; "
            f"target >= {TARGET_VERIFIED:.0%}: {mark})"
        )
    else:
        imported = sum(1 for r in rows if "error" not in r)
        lines.append(f"imported (not verified): {imported}/{len(rows)} documents ({imported / n:.0%})")
    share = served_ops / total_ops if total_ops else 0.0
    lines.append(
        f"operations served:      {served_ops}/{total_ops} ({share:.1%}, by servers that "
        f"{'verified' if verify else 'imported'}; target >= {TARGET_SERVED:.0%}: "
        f"{'ok' if share >= TARGET_SERVED else 'below target'})"
    )
    lines.append(f"operations unaccounted: {unaccounted} (neither served nor in ignored; target 0)")
    dropped = [(r["name"], d) for r in rows for d in r.get("dropped", [])]
    if verify:
        lines.append(
            f"tools dropped:          {len(dropped)} in {len({name for name, _ in dropped})} documents "
            "(failed verification; the rest of each document is served)"
        )
    for kind in ("openapi", "sql"):
        part = [r for r in rows if r["kind"] == kind]
        if part:
            ops = sum(r.get("operations", 0) for r in part)
            lines.append(
                f"  {kind:<8} {sum(1 for r in part if r.get('verified'))}/{len(part)} verified, "
                f"{sum(r['served_capped'] for r in part)}/{ops} operations served"
            )
    errors = Counter(f"{r['stage']}: {_shape(r['error'])}" for r in rows if "error" in r)
    if errors:
        lines += ["", "errors, by shape:"] + [
            f"  {count:>3}  {text}" for text, count in errors.most_common(15)
        ]
    if dropped:
        why = Counter(_shape(d["reason"]) for _, d in dropped)
        lines += ["", "tools dropped, by reason:"] + [
            f"  {count:>4}  {text}" for text, count in why.most_common(15)
        ]
    reasons = Counter(f"{i['kind']}: {_shape(i['reason'])}" for r in rows for i in r.get("ignored", []))
    if reasons:
        lines += ["", "ignored, by kind and reason:"] + [
            f"  {count:>5}  {text}" for text, count in reasons.most_common(15)
        ]
    return lines


def _shape(text: str) -> str:
    """A message with its quoted names and numbers blanked, so alike errors count together."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"#/[^\s:,;]+", "#/…", text)
    return re.sub(r"\d+", "N", text)[:140]


def main() -> None:
    global CORPUS
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these corpus documents")
    parser.add_argument("--jobs", type=int, default=2, help="documents at once (child processes)")
    parser.add_argument("--no-verify", action="store_true", help="import only (fast)")
    parser.add_argument("--rounds", type=int, default=1, help="runs per document; the median time is shown")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="all or nothing, as synthesize --strict: a document with one failing tool is not verified "
        "(default: failing tools are dropped with their reason and the rest is served)",
    )
    parser.add_argument(
        "--cpu-limit", type=float, default=CPU_LIMIT_S, help="seconds of CPU per document (its child process)"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=WALL_BACKSTOP_S,
        help="seconds of wall time per document: a far backstop",
    )
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument(
        "--corpus", type=Path, default=CORPUS, help=f"folder holding sources.json (default: {CORPUS})"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    CORPUS = args.corpus.resolve()
    verify = not args.no_verify
    if args.child:
        row = run_one(json.loads(args.child), verify, max(1, args.rounds), args.strict)
        sys.stdout.write("\n" + json.dumps(row) + "\n")
        return
    documents = corpus_documents(args.only)
    print(
        f"{len(documents)} documents of {CORPUS}, {args.jobs} at a time{'' if verify else ', import only'}; "
        f"{load_average()}",
        flush=True,
    )
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [
            pool.submit(run_child, e, verify, max(1, args.rounds), args.timeout, args.strict, args.cpu_limit)
            for e in documents
        ]
        rows = []
        for future in futures:
            rows.append(future.result())
            print(
                f"  done: {rows[-1]['name']} ({rows[-1].get('seconds', 0.0):.1f} s)",
                file=sys.stderr,
                flush=True,
            )
    print("\n".join(summarise(rows, verify)))
    print(f"\nwall time: {time.perf_counter() - started:.0f} s; at the end, {load_average()}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
