"""The run directory: ``runs/<run>/`` with its configuration, trajectories and summary.

``metadata.json``
    The exact configuration of the run, written once, atomically. Resuming a run with a
    different configuration is an error naming the keys that differ, except keys that
    may change between sessions (``resumable_keys``, e.g. ``concurrency``); the stored
    file is never rewritten.
``trajectories.jsonl``
    One :class:`TrajectoryRecord` per line. Each line is written with one ``write`` of
    the whole line (``\\n`` included), then ``fsync``; a lock keeps concurrent episodes
    from interleaving, and an episode already recorded is refused, so a resumed run never
    duplicates one. The one exception is a retry (:meth:`RunStore.retrying`): an episode
    whose last record is a harness failure (``TrajectoryRecord.excluded``) may be recorded
    again, appended after it, never in its place. Every reader takes the LAST record of
    each ``(task_id, trial)``, so a retried episode counts once, as its retry.
``summary.json``
    Rewritten atomically (temporary file, ``fsync``, rename) whenever the host asks. The
    rollout summarises from :meth:`RunStore.summary_records`: the last record of each
    episode as this store read it on open or appended it (written and fsynced first),
    without its conversation, tools and diff, which no summary reads (issue 32: reading the
    file back cost ~0.3 ms of CPU an episode). Appending a record the file does not hold
    is impossible through the store, and only one process holds the run (the lock below).

Crash safety. A process killed in the middle of a write leaves at most one partial last
line. :meth:`RunStore.open` cuts a last line that lacks its ``\\n`` or does not parse
(the file is truncated to the end of the last good line) and says so in ``repaired``;
it never loses a complete line and never raises for this. A complete but invalid line
anywhere else is corruption, not a crash: :class:`RunStoreError` names its line number.
Only one process may hold a run directory at a time (a ``lockf`` lock on ``.lock``).
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Self

import anyio.to_thread
from pydantic import ValidationError

from envfactory_mcp import files
from envfactory_mcp.errors import EnvFactoryError
from envfactory_mcp.records.trajectory import TrajectoryRecord

METADATA = "metadata.json"
TRAJECTORIES = "trajectories.jsonl"
SUMMARY = "summary.json"
LOCK = ".lock"


class RunStoreError(EnvFactoryError):
    """A run directory that cannot be used: corrupt, in use, or configured differently."""


class MetadataMismatch(RunStoreError):
    """Resuming a run with a configuration that differs in keys that must not change; the
    message names each key with its stored and its new value."""

    def __init__(
        self,
        path: Path,
        keys: list[str],
        stored: dict[str, Any] | None = None,
        wanted: dict[str, Any] | None = None,
    ) -> None:
        self.keys = keys
        stored, wanted = stored or {}, wanted or {}

        def shown(values: dict[str, Any], key: str) -> str:
            text = json.dumps(values[key], ensure_ascii=False) if key in values else "(unset)"
            return text if len(text) <= 60 else text[:57] + "..."

        parts = [f"{key} (stored {shown(stored, key)}, now {shown(wanted, key)})" for key in keys]
        super().__init__(f"{path}: the run was started with another configuration: {', '.join(parts)}")


def _canonical(value: Any) -> Any:
    """The JSON form of a value (tuples become lists, keys strings), for comparison."""
    return json.loads(json.dumps(value, sort_keys=True, ensure_ascii=False))


def _why(exc: Exception) -> str:
    """The first problem of a record that did not parse, in one line."""
    if isinstance(exc, ValidationError) and exc.errors():
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        return f"{where + ': ' if where else ''}{error['msg']}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _brief(record: TrajectoryRecord) -> TrajectoryRecord:
    """The record as the run summary reads it: its conversation, tools and final diff left
    out (a shallow copy; kept in memory for each episode of the run)."""
    return record.model_copy(update={"messages": [], "tools": [], "final_diff": None})


def _write_all(fh: BinaryIO, data: bytes) -> None:
    """One ``write`` of the whole line; loops only if the kernel wrote part of it."""
    view = memoryview(data)
    while view:
        written = fh.write(view)
        if not written:
            raise OSError(f"could not write to {fh.name}")
        view = view[written:]


class RunStore:
    """One run directory, opened for appending trajectory records (see the module doc).

    Use :meth:`open`, not the constructor; close it (or use it as a context manager) to
    release the directory for another process.
    """

    def __init__(
        self,
        run_dir: Path,
        metadata: dict[str, Any],
        lock_fh: BinaryIO,
        keys: dict[tuple[str, int], bool],
        repaired: str | None,
        duplicates: list[str],
        latest: dict[tuple[str, int], TrajectoryRecord] | None = None,
    ) -> None:
        self.run_dir = run_dir
        self.metadata = metadata
        self.repaired = repaired  # what open() cut off the end of trajectories.jsonl, if anything
        # Earlier records of an episode recorded again although they were not harness
        # failures (found on open; readers keep the last). Retries are not listed.
        self.duplicates = duplicates
        self._lock_fh: BinaryIO | None = lock_fh
        self._keys = keys  # (task_id, trial) -> whether its last record is a harness failure
        self._retrying: set[tuple[str, int]] = set()
        # (task_id, trial) -> its last record, brief (``_brief``), in the order episodes first appear
        self._latest: dict[tuple[str, int], TrajectoryRecord] = dict(latest or {})
        self._lock = threading.Lock()
        self._fh: BinaryIO | None = open(self.trajectories_path, "ab", buffering=0)  # noqa: SIM115 - kept open

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(
        cls, run_dir: Path, metadata: dict[str, Any], resumable_keys: Iterable[str] = ("concurrency",)
    ) -> RunStore:
        """Create the run directory, or resume it.

        A new run gets ``metadata.json`` and an empty ``trajectories.jsonl``. A resumed
        one must have been started with the same metadata, except ``resumable_keys``
        (:class:`MetadataMismatch` otherwise); its trajectories are checked line by line
        and a partial last line is cut off (see ``repaired``).
        """
        run_dir = Path(run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        lock_fh = open(run_dir / LOCK, "ab")  # noqa: SIM115 - held until close()
        try:
            try:  # a POSIX record lock: other processes are refused, this one may reopen
                fcntl.lockf(lock_fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise RunStoreError(f"{run_dir}: the run is in use by another process") from None
            stored = cls._metadata(run_dir, metadata, set(resumable_keys))
            keys, repaired, duplicates, latest = cls._scan(run_dir / TRAJECTORIES)
            return cls(run_dir, stored, lock_fh, keys, repaired, duplicates, latest)
        except BaseException:
            lock_fh.close()
            raise

    @staticmethod
    def _metadata(run_dir: Path, metadata: dict[str, Any], resumable: set[str]) -> dict[str, Any]:
        path = run_dir / METADATA
        wanted = _canonical(metadata)
        if not path.exists():
            if (run_dir / TRAJECTORIES).exists():
                raise RunStoreError(f"{run_dir}: {TRAJECTORIES} without {METADATA}; not a run directory")
            files.write_json(path, wanted, sort_keys=True, ensure_ascii=False)
            return dict(wanted)
        stored = check_metadata(run_dir, metadata, resumable)
        assert stored is not None
        return stored

    @staticmethod
    def _scan(
        path: Path,
    ) -> tuple[dict[tuple[str, int], bool], str | None, list[str], dict[tuple[str, int], TrajectoryRecord]]:
        """Check every line, cut a partial last one, note duplicates; returns
        ``(keys, repaired, duplicates, latest)``, ``keys`` mapping each episode to whether its
        last record is a harness failure, ``latest`` to that record (``_brief``)."""
        if not path.exists():
            with open(path, "xb") as fh:
                os.fsync(fh.fileno())
            files.sync_dir(path.parent)
            return {}, None, [], {}
        keys: dict[tuple[str, int], int] = {}
        latest: dict[tuple[str, int], TrajectoryRecord] = {}
        failed: dict[tuple[str, int], bool] = {}
        duplicates: list[str] = []
        good_end = 0  # byte offset just past the last good line
        bad: tuple[int, str] | None = None  # a complete line that did not parse, waiting
        number = 0
        with open(path, "rb") as fh:
            for number, line in enumerate(fh, 1):
                if bad is not None:  # a bad line followed by more data: not a crash artefact
                    raise RunStoreError(f"{path}:{bad[0]}: not a valid trajectory record: {bad[1]}")
                if not line.endswith(b"\n"):
                    break  # a partial last line: cut below
                try:
                    record = TrajectoryRecord.model_validate_json(line)
                except (ValidationError, ValueError) as exc:
                    bad = (number, _why(exc))
                    continue
                if record.key in keys and not failed[record.key]:
                    duplicates.append(
                        f"line {number}: duplicate of {record.key} at line {keys[record.key]}; kept the last"
                    )
                keys[record.key] = number
                failed[record.key] = record.excluded
                latest[record.key] = _brief(record)
                good_end += len(line)
        size = path.stat().st_size
        repaired = None
        if good_end < size:
            what = f"an unparsable last line {number}" if bad is not None else f"a partial last line {number}"
            repaired = f"{path}: cut {what} ({size - good_end} bytes) after the last complete record"
            with open(path, "r+b") as fh:
                fh.truncate(good_end)
                os.fsync(fh.fileno())
        return failed, repaired, duplicates, latest

    # ------------------------------------------------------------------ paths

    @property
    def trajectories_path(self) -> Path:
        return self.run_dir / TRAJECTORIES

    @property
    def summary_path(self) -> Path:
        return self.run_dir / SUMMARY

    @property
    def metadata_path(self) -> Path:
        return self.run_dir / METADATA

    # ------------------------------------------------------------------ use

    def done_keys(self) -> set[tuple[str, int]]:
        """The ``(task_id, trial)`` episodes already recorded."""
        with self._lock:
            return set(self._keys)

    def failed_keys(self) -> set[tuple[str, int]]:
        """The recorded episodes whose last record is a harness failure (not scored)."""
        with self._lock:
            return {key for key, failed in self._keys.items() if failed}

    def retrying(self, keys: Iterable[tuple[str, int]]) -> None:
        """Allow each of ``keys`` (episodes whose last record is a harness failure) to be
        appended once more; any other key is refused with :class:`RunStoreError`."""
        with self._lock:
            keys = set(keys)
            scored = sorted(key for key in keys if not self._keys.get(key, False))
            if scored:
                raise RunStoreError(f"{self.run_dir}: not harness failures, so not retried: {scored[:3]}")
            self._retrying |= keys

    def append(self, record: TrajectoryRecord) -> None:
        """Append one record durably (written, flushed, fsynced before returning).

        An episode already recorded is refused with :class:`RunStoreError`, unless it was
        announced with :meth:`retrying` (once: its new record is then the one readers take).
        """
        line = record.to_line()
        with self._lock:
            fh = self._open_fh()
            if record.key in self._keys and record.key not in self._retrying:
                raise RunStoreError(f"{self.trajectories_path}: episode {record.key} is already recorded")
            _write_all(fh, line)
            fh.flush()
            os.fsync(fh.fileno())
            self._keys[record.key] = record.excluded
            self._latest[record.key] = _brief(record)
            self._retrying.discard(record.key)

    async def aappend(self, record: TrajectoryRecord) -> None:
        """:meth:`append` from async code, in a worker thread so ``fsync`` does not
        block the event loop."""
        await anyio.to_thread.run_sync(self.append, record)

    def records(self) -> list[TrajectoryRecord]:
        """One record per episode, the last of each, in the order episodes first appear."""
        with self._lock:
            latest: dict[tuple[str, int], TrajectoryRecord] = {}
            for record in self._read():
                latest[record.key] = record
            return list(latest.values())

    def summary_records(self) -> list[TrajectoryRecord]:
        """What :meth:`records` gives, the same records in the same order, without reading
        the file: as this store read them on open or appended them (after their ``fsync``),
        each without ``messages``, ``tools`` and ``final_diff`` (emptied), which is what a
        run summary reads (``scoring.passk.run_summary``) and no more."""
        with self._lock:
            return list(self._latest.values())

    def all_records(self) -> list[TrajectoryRecord]:
        """Every line's record in file order, superseded harness failures included."""
        with self._lock:
            return list(self._read())

    def _read(self) -> Iterator[TrajectoryRecord]:
        with open(self.trajectories_path, "rb") as fh:
            for number, line in enumerate(fh, 1):
                try:
                    record = TrajectoryRecord.model_validate_json(line)
                except (ValidationError, ValueError) as exc:
                    raise RunStoreError(
                        f"{self.trajectories_path}:{number}: not a valid trajectory record: {_why(exc)}"
                    ) from None
                yield record

    def write_summary(self, summary: dict[str, Any]) -> None:
        """Replace ``summary.json`` atomically (key order kept as given)."""
        data = (json.dumps(summary, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()
        with self._lock:
            files.write_bytes(self.summary_path, data)

    def rewrite(self, records: list[TrajectoryRecord]) -> None:
        """Replace every record at once, atomically (for rescoring): in file order, an
        episode may appear again only after a harness failure (a retry)."""
        seen: dict[tuple[str, int], bool] = {}
        for record in records:
            if record.key in seen and not seen[record.key]:
                raise RunStoreError(f"rewrite: episode {record.key} appears twice")
            seen[record.key] = record.excluded
        data = b"".join(r.to_line() for r in records)
        with self._lock:
            self._open_fh()
            files.write_bytes(self.trajectories_path, data)
            if self._fh is not None:
                self._fh.close()
            self._fh = open(self.trajectories_path, "ab", buffering=0)  # noqa: SIM115 - the new file
            self._keys = seen
            self._latest = {}
            for record in records:
                self._latest[record.key] = _brief(record)
            self.duplicates = []

    def _open_fh(self) -> BinaryIO:
        if self._fh is None:
            raise RunStoreError(f"{self.run_dir}: the run store is closed")
        return self._fh

    def close(self) -> None:
        """Release the run directory; further appends fail."""
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None
            if self._lock_fh is not None:
                self._lock_fh.close()  # closing releases the lock
                self._lock_fh = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_metadata(
    run_dir: Path, metadata: dict[str, Any], resumable: Iterable[str] = ("concurrency",)
) -> dict[str, Any] | None:
    """The stored metadata of ``run_dir`` if it has any (None for a new run), checked
    against ``metadata`` as :meth:`RunStore.open` does, without writing anything:
    :class:`MetadataMismatch` names every key that differs outside ``resumable``."""
    path = Path(run_dir) / METADATA
    if not path.exists():
        return None
    wanted = _canonical(metadata)
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise RunStoreError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(stored, dict):
        raise RunStoreError(f"{path}: not a JSON object")
    resumable = set(resumable)
    differing = sorted(
        key
        for key in stored.keys() | wanted.keys()
        if key not in resumable and (key not in stored or key not in wanted or stored[key] != wanted[key])
    )
    if differing:
        raise MetadataMismatch(path, differing, stored, wanted)
    return stored


def recorded_path(run_dir: Path, value: str) -> Path:
    """A path stored in a run's metadata: absolute since issue 17; an older run's relative
    path is tried from the current directory, then from the run directory."""
    path = Path(value)
    if path.is_absolute() or path.exists():
        return path
    beside = Path(run_dir) / path
    return beside if beside.exists() else path


def read_records(run_dir: Path) -> list[TrajectoryRecord]:
    """The records of a run directory ordered by ``(task_id, trial)``, read without taking
    the run's lock (a running rollout can be viewed or exported): a partial last line
    (being written, or cut by a crash) is ignored, of an episode recorded more than once
    (a retried harness failure) the last record is kept, and any other bad line is an
    error naming its number."""
    path = Path(run_dir) / TRAJECTORIES
    if not path.is_file():
        raise RunStoreError(f"{run_dir} is not a run directory (no {TRAJECTORIES})")
    records: dict[tuple[str, int], TrajectoryRecord] = {}
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, 1):
            if not line.endswith(b"\n"):
                break
            try:
                record = TrajectoryRecord.model_validate_json(line)
            except ValueError as exc:
                raise RunStoreError(f"{path}:{number}: not a valid trajectory record: {_why(exc)}") from None
            records[record.key] = record
    return [records[key] for key in sorted(records)]
