"""Verification budgets: CPU time that grows with the work, and the chunks it is split into.

Verification is probing: every tool gets its valid, boundary, invalid, hostile and refused
probes (``verify.probes``), each run twice from a reset seed, so its cost grows with the
tool count and with the seed (a reset copies the seed, a write hashes every table). The
budget is counted in CPU seconds of the sandboxed worker, never in wall-clock time, so a
busy machine makes verification slower but never makes it fail:

* each call has ``call_seconds`` of CPU time (``ITIMER_PROF`` in the worker), and a
  backstop relative to its own start for a call stuck in C code (``ITIMER_VIRTUAL``);
* each tool has ``tool_cpu_seconds`` for all its probes; a tool over it stops being
  probed and fails its ``sandbox`` check (it is then dropped, not the document);
* each chunk of tools runs in its own sandboxed worker with ``RLIMIT_CPU`` of the seed's
  load plus its tools' budgets (with ``KERNEL_CLOCK_MARGIN``), a backstop the worker's
  own accounting stays under;
* wall-clock time is only a far backstop: ``WALL_PER_CPU`` times the chunk's CPU budget
  (a machine at load 26 on 2 cores gives a process about 1/13 of a core).

The tools are split into chunks of at most ``CHUNK_TOOLS``, probed ``jobs`` at a time
(each chunk loads the seed again, so small environments stay one chunk). A tool's probes
do not depend on the chunk it is in (``verify.probes.probers``), so the report is the
same whatever the chunking.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace

from envfactory_mcp.verify.sandbox import SandboxLimits

# CPU seconds, measured on a quiet 2-core machine over the corpus (bench/bench_import.py)
# and taken several times over: a loaded machine does not change CPU time much, and these
# limits only stop code that runs away.
LOAD_CPU = 10.0  # start the worker, build the seed, take its state, index its data
LOAD_CPU_PER_MB = 8.0  # ... per MB of seed.sql
TOOL_CPU = 6.0  # one tool's probes (up to ~900 calls when nothing succeeds)
TOOL_CPU_PER_MB = 10.0  # ... per MB of seed.sql (each call resets the seed, writes hash it)
WALL_PER_CPU = 10.0  # the wall-clock backstop, as a multiple of the CPU budget
CHUNK_TOOLS = 40  # tools per sandboxed worker
# The kernel checks RLIMIT_CPU against its tick-sampled user+system time, which runs ahead
# of the precise CPU time the worker counts its budgets in (``time.process_time``) on a
# busy machine: by 10% and more, measured at load 18 on 2 cores. A chunk's limit has this
# much room for it, so a busy machine never ends a chunk its own accounting keeps under.
KERNEL_CLOCK_MARGIN = 1.5


def default_jobs() -> int:
    """Chunks probed at once: one per CPU this process may use, at most 4."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


@dataclass(frozen=True)
class Budget:
    """What verifying ``tools`` over a seed of ``seed_bytes`` may take, and how it is split."""

    tools: int
    seed_bytes: int
    call_seconds: float
    tool_cpu_seconds: float  # every probe of one tool
    load_cpu_seconds: float  # one worker's start: the seed built and indexed
    chunks: tuple[tuple[str, ...], ...]  # tool names, one tuple per sandboxed worker
    jobs: int  # chunks at once

    @property
    def cpu_seconds(self) -> int:
        """The CPU budget of the whole verification (every chunk's)."""
        return sum(self.chunk_cpu_seconds(len(chunk)) for chunk in self.chunks)

    def chunk_cpu_seconds(self, tools: int) -> int:
        """``RLIMIT_CPU`` of a worker probing ``tools`` tools: the seed's load, each tool's
        budget and the last call that may run past it (twice ``call_seconds``, two runs)."""
        per_tool = self.tool_cpu_seconds + 2 * 2 * self.call_seconds
        return math.ceil(KERNEL_CLOCK_MARGIN * (self.load_cpu_seconds + tools * per_tool))

    def chunk_limits(self, base: SandboxLimits, tools: int) -> SandboxLimits:
        """``base`` with the CPU limit of a chunk of ``tools`` tools (never below ``base``'s)
        and its wall-clock backstop, ``WALL_PER_CPU`` times that."""
        cpu = max(base.cpu_seconds, self.chunk_cpu_seconds(tools))
        return replace(base, cpu_seconds=cpu, wall_seconds=max(base.wall_seconds, WALL_PER_CPU * cpu))

    def describe(self) -> str:
        """One line for the user: the work and its budget."""
        chunks = len(self.chunks)
        return (
            f"{self.cpu_seconds} s CPU ({self.tool_cpu_seconds:g} s a tool, {self.call_seconds:g} s a call), "
            f"{chunks} chunk{'s' if chunks != 1 else ''} of <= {max(map(len, self.chunks), default=0)} "
            f"tools, {self.jobs} at a time"
        )


def verification_budget(
    tool_names: list[str],
    seed_bytes: int,
    call_seconds: float = 2.0,
    jobs: int | None = None,
    chunk_tools: int = CHUNK_TOOLS,
) -> Budget:
    """The budget for verifying ``tool_names`` over a seed of ``seed_bytes`` bytes."""
    megabytes = seed_bytes / 1_000_000
    count = max(1, math.ceil(len(tool_names) / max(1, chunk_tools)))
    size, larger = divmod(len(tool_names), count)  # the first ``larger`` chunks hold one more
    bounds = [i * size + min(i, larger) for i in range(count + 1)]
    chunks = tuple(tuple(tool_names[bounds[i] : bounds[i + 1]]) for i in range(count))
    return Budget(
        tools=len(tool_names),
        seed_bytes=seed_bytes,
        call_seconds=call_seconds,
        tool_cpu_seconds=round(TOOL_CPU + TOOL_CPU_PER_MB * megabytes, 1),
        load_cpu_seconds=round(LOAD_CPU + LOAD_CPU_PER_MB * megabytes, 1),
        chunks=chunks,
        jobs=max(1, min(jobs or default_jobs(), len(chunks))),
    )
