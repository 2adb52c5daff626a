# A vendored copy of envfactory_mcp.runtime, identical in every generated server.
# Do not edit: regenerate the package with `envfactory-mcp build <env>`.
"""Which database a request touches.

The unit of isolation is the session, chosen per request in this order:

1. ``_meta["envfactory/session"]`` on the request: an explicit key. Hosts send it so one
   server process (even one stdio pipe) can run many isolated episodes at once, and it
   is the only way to get isolation on the sessionless 2026-07-28 wire.
2. The MCP connection on the handshake-era protocol (one per stdio process, one per
   ``Mcp-Session-Id`` on streamable HTTP, one per in-memory client). Its database is
   released when the connection goes away.
3. Otherwise one shared default session (a sessionless request without a key).

With ``--db PATH`` every session shares the one file-backed database instead: that mode
exists to keep one user's world across restarts.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from pathlib import Path
from typing import Any

from .database import SessionDatabase

SESSION_META_KEY = "envfactory/session"
_DEFAULT = "default"


class SessionStore:
    """Owns every session database of one server process."""

    def __init__(
        self, seed_image: bytes, db_path: Path | None = None, max_keyed_sessions: int = 10_000
    ) -> None:
        self._seed_image = seed_image
        self._max_keyed = max_keyed_sessions
        self._keyed: OrderedDict[str, SessionDatabase] = OrderedDict()
        self._by_connection: weakref.WeakKeyDictionary[Any, SessionDatabase] = weakref.WeakKeyDictionary()
        self._shared: SessionDatabase | None = SessionDatabase(seed_image, db_path) if db_path else None
        self._default: SessionDatabase | None = None

    @property
    def file_backed(self) -> bool:
        return self._shared is not None

    def for_request(self, meta: Any, connection: Any | None) -> SessionDatabase:
        """The database for a request carrying ``meta`` on ``connection`` (None when sessionless)."""
        if self._shared is not None:
            return self._shared
        key = meta.get(SESSION_META_KEY) if isinstance(meta, dict) else None
        if key is not None:
            return self._keyed_session(str(key))
        if connection is not None:
            session = self._by_connection.get(connection)
            if session is None:
                session = self._by_connection[connection] = SessionDatabase(self._seed_image)
            return session
        if self._default is None:
            self._default = SessionDatabase(self._seed_image)
        return self._default

    def end(self, meta: Any, connection: Any | None) -> bool:
        """Forget the session a request belongs to; its next request starts from the seed."""
        if self._shared is not None:
            return False
        key = meta.get(SESSION_META_KEY) if isinstance(meta, dict) else None
        if key is not None:
            session = self._keyed.pop(str(key), None)
        elif connection is not None:
            session = self._by_connection.pop(connection, None)
        else:
            session, self._default = self._default, None
        if session is not None:
            session.close()
        return session is not None

    def _keyed_session(self, key: str) -> SessionDatabase:
        session = self._keyed.get(key)
        if session is not None:
            self._keyed.move_to_end(key)
            return session
        while len(self._keyed) >= self._max_keyed:
            _, evicted = self._keyed.popitem(last=False)  # least recently used
            evicted.close()
        session = self._keyed[key] = SessionDatabase(self._seed_image)
        return session
