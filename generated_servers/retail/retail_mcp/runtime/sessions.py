# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Which database a request touches, and who may touch it.

Every request has an *owner*, the transport session it arrived on (``server.py`` finds
it): the handshake-era connection (one per stdio process, per ``Mcp-Session-Id`` on
streamable HTTP, per legacy in-memory client), the pipe of a 2026-07-28 stdio
connection, or, on the 2026-07-28 in-process path, the process itself (callers in one
address space cannot be kept from each other's data anyway). A 2026-07-28 request over
HTTP is one self-contained POST and has no owner.

The database of a request is chosen in this order:

1. ``_meta["envfactory/session"]``, an explicit key: a host feature, honoured only when
   the server runs with ``--control`` and refused otherwise. ``control.reset`` opens a
   key for the owner that sends it; keys live in their owner's namespace, so the same
   key sent on another connection is not open there and is refused, as is any key that
   is not open (never opened, ended with ``control.end_session``, idle past the limit,
   or its connection closed, or evicted, below). A lost session is therefore an error,
   never a fresh database. An owner may hold ``keys_per_owner`` keys (past that a new
   one is refused) and the server ``max_keys`` in all, shared fairly: when the server
   is full, an owner holding fewer than its share (``max_keys`` / the owners holding
   keys, itself included) still gets its new key, made room for by ending the least
   recently used idle key (no request in flight) of the owner holding the most (the
   earliest-made owner among equals), which holds more than its share; an owner at or
   above its share is refused. So one owner's flood of keys refuses only that owner and
   ends only its own keys; an owner below its share never loses a key to make room, and
   an owner alone is refused at the limit, as it always was. The owner is the only
   identity the server has: a client with many connections gets a share per connection
   (which makes every share smaller).
2. The owner's own database, made on first use and released with the owner.
3. No owner and no key: a fresh copy of the seed for this one request. Reads answer from
   it; writes are refused, since nothing could keep them for this client without showing
   them to every other sessionless client.

With ``--db PATH`` every request shares the one file-backed database instead (keys still
need ``--control``): that mode exists to keep one user's world across restarts.
"""

from __future__ import annotations

import itertools
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .database import HotSet, SessionDatabase

SESSION_META_KEY = "envfactory/session"
# Ended keys' databases an owner keeps for its next new keys (``SessionStore._spare``): a
# host replaying golds, or running episodes, at a concurrency of a few.
SPARES_PER_OWNER = 4
MAX_KEY_CHARS = 256

KEYS_NEED_CONTROL = (
    f"_meta[{SESSION_META_KEY!r}] session keys are a host feature; this server was started without "
    "--control, so it does not accept them. Leave the key out to use this connection's own session."
)
KEYS_NEED_A_CONNECTION = (
    "A session key belongs to the connection that opened it, and a 2026-07-28 request over HTTP "
    "has no connection (each POST stands alone). Connect with protocol version 2025-11-25 "
    "(the initialize handshake; 'auto' clients get it) to open keys."
)
SESSIONLESS_WRITES = (
    "This server keeps state per session, and a 2026-07-28 request over HTTP has none (each POST "
    "stands alone), so it does not accept writes; reads answer from the seed state. Connect with "
    "protocol version 2025-11-25 (the initialize handshake; 'auto' clients get it) for a session "
    "of your own."
)


class SessionRefused(Exception):
    """A request whose session cannot be used; the message says why and what to do instead."""


@dataclass(frozen=True)
class SessionLimits:
    """How many keyed sessions may be open, and how long an unused one is kept.

    The defaults leave room for a host running hundreds of episodes on one connection
    (each holds one key, plus one while its task's gold actions replay); a keyed
    session of the retail seed costs about 400 KB while it holds a copy (RSS, with its
    indexes and change logs), next to nothing while it only reads (it shares the seed)
    or once parked (the rows it changed; see ``hot_sessions``).
    """

    keys_per_owner: int = 1_000
    max_keys: int = 10_000
    idle_seconds: float = 3_600.0
    # Writing sessions kept materialized (a copy of the seed each); past either bound the
    # least recently used idle one is parked as its row delta (database.HotSet). None: no
    # bound. 256 retail copies are about 100 MB; the memory bound takes over for big
    # seeds (about 12 copies of the 20 MB 100x retail seed). A parked session's next call pays
    # one unpark: a seed copy plus its delta (well under 1 ms at 1x, a few ms at 100x).
    hot_sessions: int | None = 256
    hot_megabytes: float | None = 256.0

    def __post_init__(self) -> None:
        if self.keys_per_owner < 1 or self.max_keys < 1 or not self.idle_seconds > 0:
            raise ValueError(f"session limits must be positive: {self}")
        if (self.hot_sessions is not None and self.hot_sessions < 1) or (
            self.hot_megabytes is not None and not self.hot_megabytes > 0
        ):
            raise ValueError(f"session limits must be positive: {self}")

    def hot_set(self) -> HotSet:
        budget = None if self.hot_megabytes is None else int(self.hot_megabytes * 1024 * 1024)
        return HotSet(self.hot_sessions, budget)


@dataclass(frozen=True, slots=True)
class Session:
    """The database one request works on; the caller releases it when the request is
    done. ``ephemeral``: a copy of the seed made for this request only (no owner),
    closed on release. A keyed session is in flight (never evicted) until released."""

    db: SessionDatabase
    ephemeral: bool = False
    _done: Callable[[], None] | None = None

    def release(self) -> None:
        if self.ephemeral:
            self.db.close()
        if self._done is not None:
            self._done()


@dataclass
class _Keyed:
    db: SessionDatabase
    last_used: float
    in_flight: int = 0  # requests holding it (``Session`` not yet released)

    @property
    def idle(self) -> bool:
        return self.in_flight == 0 and not self.db.busy

    def hold(self) -> Session:
        """The session of one request, in flight until released (once)."""
        self.in_flight += 1
        released = False

        def done() -> None:
            nonlocal released
            if not released:
                released = True
                self.in_flight -= 1

        return Session(self.db, _done=done)


class _Owner:
    """What one transport session holds: its own database and the keys it opened, least
    recently used first.

    Kept in a ``WeakKeyDictionary`` on the owner object, so it (and every database it
    holds) goes away with the connection."""

    __slots__ = ("db", "keys", "serial", "spares")

    def __init__(self, serial: int) -> None:
        self.db: SessionDatabase | None = None
        self.keys: dict[str, _Keyed] = {}
        self.serial = serial  # the order owners were made in: ties go to the earliest
        # Databases of keys this owner ended, reset to the seed, for its next new keys
        # (``SessionStore.end``): never handed to another owner.
        self.spares: list[SessionDatabase] = []


class SessionStore:
    """Owns every session database of one server process."""

    def __init__(
        self,
        seed_image: bytes,
        db_path: Path | None = None,
        *,
        keys_allowed: bool = False,
        limits: SessionLimits = SessionLimits(),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._seed_image = seed_image
        self._keys_allowed = keys_allowed
        self.limits = limits
        self._clock = clock
        self._owners: weakref.WeakKeyDictionary[Any, _Owner] = weakref.WeakKeyDictionary()
        self._serials = itertools.count()
        self._shared: SessionDatabase | None = SessionDatabase(seed_image, db_path) if db_path else None
        self.hot = limits.hot_set()  # the materialized writing sessions, parked past its bounds
        self._next_sweep = 0.0

    @property
    def file_backed(self) -> bool:
        return self._shared is not None

    def session(self, meta: Any, owner: Any | None, *, write: bool) -> Session:
        """The database for a request carrying ``meta`` from ``owner`` (None: no transport
        session). ``write``: the request may change state. Raises ``SessionRefused``."""
        key = self._key_of(meta)
        if self._shared is not None:
            return Session(self._shared)
        if owner is None:
            if key is not None:
                raise SessionRefused(KEYS_NEED_A_CONNECTION)
            if write:
                raise SessionRefused(SESSIONLESS_WRITES)
            return Session(SessionDatabase(self._seed_image), ephemeral=True)
        record = self._record(owner)
        if key is None:
            if record.db is None:
                record.db = SessionDatabase(self._seed_image, hot=self.hot)
            return Session(record.db)
        now = self._clock()
        self._sweep(now)
        entry = self._live(record, key, now)
        if entry is None:
            raise SessionRefused(self._not_open(key))
        return self._use(record, key, entry, now)

    def open(self, meta: Any, owner: Any | None) -> Session:
        """Like ``session`` for a write, except that a key not open for ``owner`` is
        opened (from the seed) when the limits allow: what ``control.reset`` uses."""
        key = self._key_of(meta)
        if key is None or self._shared is not None or owner is None:
            return self.session(meta, owner, write=True)
        record = self._record(owner)
        now = self._clock()
        self._sweep(now)
        entry = self._live(record, key, now)
        if entry is None:
            if len(record.keys) >= self.limits.keys_per_owner:
                raise SessionRefused(
                    f"This connection already has {len(record.keys)} session keys open, its limit "
                    "(--session-keys-per-connection): end some with control.end_session first."
                )
            if self.open_keys() >= self.limits.max_keys:
                self._sweep(now, force=True)
            if self.open_keys() >= self.limits.max_keys:
                self._make_room(record)
            db = record.spares.pop() if record.spares else SessionDatabase(self._seed_image, hot=self.hot)
            entry = record.keys[key] = _Keyed(db, now)
        return self._use(record, key, entry, now)

    def end(self, meta: Any, owner: Any | None) -> bool:
        """Forget the session a request belongs to; True if there was one. Its owner's
        next request without a key starts from the seed; an ended key is no longer open."""
        key = self._key_of(meta)
        if self._shared is not None or owner is None:
            return False
        record = self._owners.get(owner)
        if record is None:
            return False
        if key is None:
            db, record.db = record.db, None
        else:
            entry = record.keys.pop(key, None)
            db = entry.db if entry is not None else None
            if entry is not None and entry.idle and self._spare(record, entry.db):
                return True
        if db is not None:
            db.close()
        return db is not None

    def _spare(self, record: _Owner, db: SessionDatabase) -> bool:
        """Keep an ended key's database, reset to the seed, as ``record``'s next new key's.

        A fresh session costs a copy of the seed and, on its first calls, a compile of
        every statement it runs (~2 ms of CPU for a retail gold replay's few calls); an
        ended one undone to the seed (``SessionDatabase.reset``: what the episode
        changed) keeps its connection and its compiled statements. What the next key
        gets is what ``control.reset`` on the ended key would have given the same owner:
        the seed state, on the same connection (whose counters, ``last_insert_rowid``
        and ``total_changes``, a reset does not restore either), so spares never cross
        owners. Only a database holding a copy in memory (not parked, not in a call) is
        kept, at most ``SPARES_PER_OWNER``; False: the caller closes it."""
        if len(record.spares) >= SPARES_PER_OWNER or not db.spare_ready():
            return False
        try:
            db.reset()
        except Exception:  # noqa: BLE001 - a database that cannot be reset is closed instead
            return False
        record.spares.append(db)
        return True

    def open_keys(self) -> int:
        """Keyed sessions open now, across every live owner."""
        return sum(len(record.keys) for record in list(self._owners.values()))

    # ------------------------------------------------------------------ internals

    def _key_of(self, meta: Any) -> str | None:
        key = meta.get(SESSION_META_KEY) if isinstance(meta, dict) else None
        if key is None:
            return None
        if not self._keys_allowed:
            raise SessionRefused(KEYS_NEED_CONTROL)
        if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY_CHARS:
            raise SessionRefused(
                f"_meta[{SESSION_META_KEY!r}] must be a string of 1 to {MAX_KEY_CHARS} characters."
            )
        return key

    def _record(self, owner: Any) -> _Owner:
        record = self._owners.get(owner)
        if record is None:
            record = self._owners[owner] = _Owner(next(self._serials))
        return record

    def _use(self, record: _Owner, key: str, entry: _Keyed, now: float) -> Session:
        """A request on an open key: renewed, moved to the recently used end, in flight."""
        entry.last_used = now
        record.keys[key] = record.keys.pop(key)
        return entry.hold()

    def _make_room(self, record: _Owner) -> None:
        """The server holds ``max_keys`` keys and ``record`` wants one more: end the least
        recently used idle key of the owner holding the most keys, if ``record`` holds
        less than its fair share and that owner more; else refuse."""
        cap = self.limits.max_keys
        holders = [r for r in list(self._owners.values()) if r.keys]
        owners = len(holders) + (0 if record.keys else 1)
        mine = len(record.keys)
        if mine * owners >= cap:  # at or above max_keys / owners
            raise SessionRefused(
                f"The server has {cap} session keys open, its limit (--max-session-keys), and this "
                f"connection holds {mine}, its fair share or more ({cap} over the {owners} connections "
                "holding keys): end some with control.end_session, or try again after sessions end "
                "or expire."
            )
        over = [r for r in holders if len(r.keys) * owners > cap]  # never empty: the keys add up to cap
        for victim in sorted(over, key=lambda r: (-len(r.keys), r.serial)):
            for key, entry in victim.keys.items():  # least recently used first
                if entry.idle:
                    del victim.keys[key]
                    entry.db.close()
                    return
        raise SessionRefused(
            f"The server has {cap} session keys open, its limit (--max-session-keys), and every "
            "key it could end to make room has a request in flight: try again shortly."
        )

    def _live(self, record: _Owner, key: str, now: float) -> _Keyed | None:
        entry = record.keys.get(key)
        if entry is not None and now - entry.last_used > self.limits.idle_seconds:
            del record.keys[key]
            entry.db.close()
            return None
        return entry

    def _not_open(self, key: str) -> str:
        shown = key if len(key) <= 80 else key[:77] + "..."
        return (
            f"Session key {shown!r} is not open on this connection. Open it with control.reset; a key "
            "belongs to the connection that opened it and ends with control.end_session, when that "
            f"connection closes, after {self.limits.idle_seconds:g} s without a request, or when the "
            "server is full and that connection holds more than its share of keys."
        )

    def _sweep(self, now: float, force: bool = False) -> None:
        """Release keyed sessions idle past the limit (at most a few times per idle period)."""
        if not force and now < self._next_sweep:
            return
        self._next_sweep = now + min(self.limits.idle_seconds / 4, 60.0)
        for record in list(self._owners.values()):
            for key in list(record.keys):
                self._live(record, key, now)
