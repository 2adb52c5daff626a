"""What a long command says while it works: on stderr, never on stdout.

Every long command (``tasks``, ``rollout``, ``eval``, ``build``, ``verify``, ``pipeline``,
``synthesize``) reports through one ``Reporter``:

- on a terminal, a rich progress bar per stage (spinner, bar, done / total, elapsed), and
  the stage lines above it;
- when stderr is not a terminal (a log file, ``nohup``, a pipe, CI), plain lines: one
  when a stage starts (``[rollout demonstrator] started``) and a count every
  ``PERIOD_S`` seconds and at the end (``[rollout demonstrator] 12/40 (30%), 0.8/s,
  ETA 35 s``), so a log shows the command is alive and how far it is;
- with ``--quiet``, nothing (warnings and errors still print).

Stdout carries exactly one JSON value per command (its result), so ``cmd | jq`` works.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

# Seconds between two count lines of a stage when stderr is not a terminal; the first
# count and the last (done == total) are always printed.
PERIOD_S = float(os.environ.get("ENVFACTORY_PROGRESS_PERIOD_S", "10"))

Quiet = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        help="Print no progress on stderr (stage lines, counts, bar); warnings and errors still print.",
    ),
]

Advance = Callable[[int, "int | None"], None]


def _nothing(done: int, total: int | None = None) -> None:
    """The ``advance`` of a stage with --quiet."""


def _eta(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Reporter:
    """Stage lines and counts on stderr for one command (see the module's docstring)."""

    def __init__(self, quiet: bool = False, stream: Any = None) -> None:
        self.quiet = quiet
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self._bar: Any = None
        self._current: list[Any] = []

    # -- lines -----------------------------------------------------------------------

    def say(self, text: str) -> None:
        """An informational line (what is being done, where the outputs went); silent with --quiet."""
        if self.quiet:
            return
        if self._bar is not None:
            from rich.markup import escape

            self._bar.console.print(escape(text), highlight=False, soft_wrap=True)
            return
        print(text, file=self.stream, flush=True)

    # -- stages ----------------------------------------------------------------------

    def stage(self, label: str) -> Advance:
        """Start a stage (the previous one ends) and return its ``advance(done, total)``."""
        if self.quiet:
            return _nothing
        if self._bar is not None:
            return self._bar_stage(label)
        self.say(f"[{label}] started")
        started = time.monotonic()
        last = [-1.0, -1]  # when the last count line was printed, and its count

        def advance(done: int, total: int | None = None) -> None:
            now = time.monotonic()
            final = total is not None and done >= total
            if done <= 0 or done == last[1] or not (final or last[0] < 0 or now - last[0] >= PERIOD_S):
                return
            last[:] = [now, done]
            elapsed = now - started
            rate = done / elapsed if elapsed > 0 else 0.0
            parts = [f"{done}/{total} ({done / total:.0%})" if total else f"{done} done"]
            parts.append(f"{rate:.2f}/s" if rate < 10 else f"{rate:.0f}/s")
            if final:
                parts.append(f"done in {_eta(elapsed)}")
            elif total and rate > 0:
                parts.append(f"ETA {_eta((total - done) / rate)}")
            self.say(f"[{label}] " + ", ".join(parts))

        return advance

    def _bar_stage(self, label: str) -> Advance:
        from rich.markup import escape

        bar = self._bar
        for task_id in self._current:
            bar.stop_task(task_id)
            bar.update(task_id, visible=False)
        task_id = bar.add_task(escape(label), total=None)
        self._current[:] = [task_id]

        def advance(done: int, total: int | None = None) -> None:
            bar.update(task_id, completed=done, total=total)

        return advance

    @contextmanager
    def stages(self) -> Iterator[Callable[[str], Advance]]:
        """``with reporter.stages() as stage:``; on a terminal, a rich progress display
        for the block (one line per stage, the previous one hidden)."""
        if self.quiet or not self.terminal:
            yield self.stage
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        with Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(file=self.stream),
            transient=True,
        ) as bar:
            self._bar = bar
            try:
                yield self.stage
            finally:
                self._bar = None
                self._current.clear()


def emit_json(value: Any) -> None:
    """The command's result: one JSON value on stdout (indented, keys as given)."""
    typer.echo(json.dumps(value, indent=2, default=str))
