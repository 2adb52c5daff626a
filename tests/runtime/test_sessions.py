"""SessionStore alone, with a fake clock: which database a request gets, and when it is refused."""

from __future__ import annotations

import pytest
from tool_calls import key

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime.sessions import SessionLimits, SessionRefused, SessionStore


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Owner:
    """Stands in for a transport session (anything weak-referenceable)."""


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


def test_the_per_connection_limit_refuses_and_a_lone_owner_at_the_server_limit_is_refused(
    mini_env: Environment, clock: Clock
):
    sessions, first = store(mini_env, clock, keys_per_owner=2, max_keys=3), Owner()
    kept = sessions.open(key("a"), first).db
    sessions.open(key("b"), first)
    with pytest.raises(SessionRefused, match="--session-keys-per-connection"):
        sessions.open(key("c"), first)
    alone = store(mini_env, clock, keys_per_owner=5, max_keys=3)
    opened = [alone.open(key(f"k{i}"), first).db for i in range(3)]
    with pytest.raises(
        SessionRefused, match=r"^The server has 3 session keys open, its limit \(--max-session-keys\)"
    ):
        alone.open(key("k3"), first)  # nobody else competes: refused as ever, nothing ended
    assert [alone.session(key(f"k{i}"), first, write=True).db for i in range(3)] == opened
    assert sessions.session(key("a"), first, write=True).db is kept


def test_a_full_server_makes_room_for_an_owner_below_its_share_from_the_biggest_holder(
    mini_env: Environment, clock: Clock
):
    sessions, flooder, victim = store(mini_env, clock, keys_per_owner=100, max_keys=10), Owner(), Owner()
    for i in range(10):
        sessions.open(key(f"f{i}"), flooder).release()
    sessions.session(key("f0"), flooder, write=False).release()  # f0 is now the most recent
    # Below its share (10 / 2 owners), each new key of the victim ends one of the flooder's.
    mine = [sessions.open(key(f"v{i}"), victim).db for i in range(5)]
    with pytest.raises(SessionRefused, match="holds 5, its fair share or more"):
        sessions.open(key("v5"), victim)
    with pytest.raises(SessionRefused, match="holds 5, its fair share or more"):
        sessions.open(key("f-more"), flooder)
    # The flooder's least recently used keys went, in order; the one it used is kept.
    for ended in ("f1", "f2", "f3", "f4", "f5"):
        with pytest.raises(SessionRefused, match=r"not open on this connection.*more than its share"):
            sessions.session(key(ended), flooder, write=False)
    for kept in ("f6", "f7", "f8", "f9", "f0"):
        sessions.session(key(kept), flooder, write=False).release()
    assert [sessions.session(key(f"v{i}"), victim, write=True).db for i in range(5)] == mine
    assert sessions.open_keys() == 10


def test_a_flood_over_many_connections_never_refuses_or_evicts_an_owner_below_its_share(
    mini_env: Environment, clock: Clock
):
    sessions = store(mini_env, clock, keys_per_owner=1_000, max_keys=12)
    flooders, victim = [Owner() for _ in range(3)], Owner()
    refused, mine, n = 0, {}, 0

    def flood(count: int) -> None:
        nonlocal refused, n
        for _ in range(count):
            for owner in flooders:
                n += 1
                try:
                    sessions.open(key(f"flood-{n}"), owner).release()
                except SessionRefused:
                    refused += 1

    flood(20)
    for i in range(3):  # the share of 4 owners in 12 keys: every one granted, mid-flood
        session = sessions.open(key(f"mine-{i}"), victim)
        session.db.db.execute("UPDATE accounts SET balance_cents = ?", (i,))
        session.release()
        mine[f"mine-{i}"] = session.db
        flood(20)
    with pytest.raises(SessionRefused, match="holds 3, its fair share or more"):
        sessions.open(key("mine-3"), victim)
    assert refused > 0 and sessions.open_keys() == 12
    for name, db in mine.items():
        got = sessions.session(key(name), victim, write=False)
        assert got.db is db and got.db.db.execute("SELECT balance_cents FROM accounts").fetchone() == (
            int(name[-1]),
        )
    # The flood was refused, or ended its own keys: the flooders hold the rest, evenly.
    holdings = [sum(_open(sessions, owner, f"flood-{i}") for i in range(1, n + 1)) for owner in flooders]
    assert holdings == [3, 3, 3]


def _open(sessions: SessionStore, owner: Owner, name: str) -> bool:
    try:
        sessions.session(key(name), owner, write=False).release()
    except SessionRefused:
        return False
    return True


def test_keys_with_a_request_in_flight_are_never_ended_to_make_room(mini_env: Environment, clock: Clock):
    sessions, flooder, victim = store(mini_env, clock, max_keys=3), Owner(), Owner()
    held = [sessions.open(key(f"f{i}"), flooder) for i in range(3)]  # none released yet
    with pytest.raises(SessionRefused, match="has a request in flight"):
        sessions.open(key("v0"), victim)
    held[1].release()
    held[1].release()  # a second release changes nothing
    sessions.open(key("v0"), victim).release()  # f1, the only idle one, made room
    with pytest.raises(SessionRefused, match="not open on this connection"):
        sessions.session(key("f1"), flooder, write=False)
    for name in ("f0", "f2"):
        assert _open(sessions, flooder, name)
    assert sessions.open_keys() == 3


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
