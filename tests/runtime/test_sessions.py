"""SessionStore alone, with a fake clock: which database a request gets, and when it is refused."""

from __future__ import annotations

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime.sessions import SESSION_META_KEY, SessionLimits, SessionRefused, SessionStore


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Owner:
    """Stands in for a transport session (anything weak-referenceable)."""


def key(name: str) -> dict[str, str]:
    return {SESSION_META_KEY: name}


@pytest.fixture
def clock() -> Clock:
    return Clock()


def store(env: Environment, clock: Clock, **limits) -> SessionStore:
    return SessionStore(env.seed_image, keys_allowed=True, limits=SessionLimits(**limits), clock=clock)


def test_a_key_expires_exactly_after_the_idle_limit_and_each_use_renews_it(
    mini_env: Environment, clock: Clock
):
    sessions, owner = store(mini_env, clock, idle_seconds=10), Owner()
    opened = sessions.open(key("k"), owner).db
    clock.now = 10.0
    assert sessions.session(key("k"), owner, write=True).db is opened  # used at the limit: renewed
    clock.now = 20.0
    assert sessions.session(key("k"), owner, write=False).db is opened
    clock.now = 30.01
    with pytest.raises(SessionRefused, match="not open on this connection"):
        sessions.session(key("k"), owner, write=False)


def test_idle_keys_of_every_owner_are_swept(mini_env: Environment, clock: Clock):
    sessions, first, second = store(mini_env, clock, idle_seconds=10), Owner(), Owner()
    for i in range(3):
        sessions.open(key(f"a{i}"), first)
    sessions.open(key("b"), second)
    clock.now = 5.0
    sessions.session(key("b"), second, write=False)
    clock.now = 12.0
    sessions.session(None, second, write=False)  # any request may sweep
    sessions.session(key("b"), second, write=False)
    assert sessions.open_keys() == 1


def test_keys_live_in_their_owners_namespace(mini_env: Environment, clock: Clock):
    sessions, first, second = store(mini_env, clock), Owner(), Owner()
    mine = sessions.open(key("same"), first).db
    theirs = sessions.open(key("same"), second).db
    assert mine is not theirs
    assert sessions.end(key("same"), second) is True
    assert sessions.session(key("same"), first, write=True).db is mine


def test_an_owner_gone_takes_its_sessions_with_it(mini_env: Environment, clock: Clock):
    sessions, owner = store(mini_env, clock, keys_per_owner=2, max_keys=2), Owner()
    sessions.open(key("a"), owner)
    sessions.open(key("b"), owner)
    del owner
    assert sessions.open_keys() == 0
    sessions.open(key("c"), Owner())


def test_limits_refuse_and_never_evict(mini_env: Environment, clock: Clock):
    sessions, first, second = store(mini_env, clock, keys_per_owner=2, max_keys=3), Owner(), Owner()
    kept = sessions.open(key("a"), first).db
    sessions.open(key("b"), first)
    with pytest.raises(SessionRefused, match="--session-keys-per-connection"):
        sessions.open(key("c"), first)
    sessions.open(key("x"), second)
    with pytest.raises(SessionRefused, match="--max-session-keys"):
        sessions.open(key("y"), second)
    assert sessions.session(key("a"), first, write=True).db is kept


def test_without_keys_allowed_any_key_is_refused(mini_env: Environment, clock: Clock):
    sessions = SessionStore(mini_env.seed_image, clock=clock)
    with pytest.raises(SessionRefused, match="--control"):
        sessions.session(key("k"), Owner(), write=False)


def test_a_request_without_an_owner_reads_a_copy_of_the_seed_and_cannot_write(
    mini_env: Environment, clock: Clock
):
    sessions = store(mini_env, clock)
    first = sessions.session(None, None, write=False)
    first.db.db.execute("UPDATE accounts SET balance_cents = 0")  # a write that got through stays here
    second = sessions.session(None, None, write=False)
    assert first.ephemeral and second.db is not first.db
    assert second.db.hash() == mini_env.seed_hash
    first.release()
    second.release()
    with pytest.raises(SessionRefused, match="does not accept writes"):
        sessions.session(None, None, write=True)
    with pytest.raises(SessionRefused, match="2025-11-25"):
        sessions.open(key("k"), None)
