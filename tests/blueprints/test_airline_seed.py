"""The airline seed: deterministic, big enough, realistic and internally consistent."""

from __future__ import annotations

import random
from collections import Counter, defaultdict

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.blueprints.airline.seed import FREE_BAGS
from envfactory_mcp.env import Environment, build_env

CLOCK_DAY = "2026-06-01"


@pytest.fixture(scope="module")
def airline_env() -> Environment:
    return build_env(load_blueprint("airline"))


def _net(state: dict, rid: str) -> dict[str, int]:
    net: dict[str, int] = defaultdict(int)
    for p in state["payments"]:
        if p["reservation_id"] == rid:
            net[p["payment_method_id"]] += p["amount_cents"] if p["kind"] == "payment" else -p["amount_cents"]
    return dict(net)


def test_same_seed_gives_identical_sql(airline_env):
    blueprint = load_blueprint("airline")
    assert blueprint.generate_seed(random.Random(5)) == blueprint.generate_seed(random.Random(5))
    again = build_env(blueprint, blueprint.default_seed)
    assert again.seed_sql == airline_env.seed_sql and again.seed_hash == airline_env.seed_hash
    default = blueprint.generate_seed(random.Random(blueprint.default_seed))
    assert blueprint.generate_seed(random.Random(blueprint.default_seed + 1)) != default


def test_size_is_a_few_hundred_to_two_thousand_rows(airline_env):
    state = airline_env.seed_state
    total = sum(len(rows) for rows in state.values())
    assert 500 <= total <= 2100, total
    assert len(state["users"]) >= 40 and len(state["reservations"]) >= 150
    assert len(state["airports"]) >= 12 and len(state["flights"]) >= 30
    assert len(airline_env.seed_image) < 400_000


def test_every_status_tier_and_cabin_is_represented(airline_env):
    state = airline_env.seed_state
    assert set(Counter(r["status"] for r in state["reservations"])) == {"active", "cancelled", "completed"}
    assert set(Counter(r["cabin"] for r in state["reservations"])) == {"basic_economy", "economy", "business"}
    assert set(Counter(r["trip_type"] for r in state["reservations"])) == {"one_way", "round_trip"}
    assert set(Counter(u["membership"] for u in state["users"])) == {"regular", "silver", "gold"}
    flight_statuses = Counter(f["status"] for f in state["flight_dates"])
    assert set(flight_statuses) == {"scheduled", "delayed", "cancelled", "departed", "landed"}
    kinds = Counter(m["kind"] for m in state["payment_methods"])
    assert kinds["credit_card"] >= 40 and kinds["gift_card"] >= 10 and kinds["certificate"] >= 5
    recent = [
        r for r in state["reservations"] if r["status"] == "active" and r["created_at"] >= "2026-05-31T12:00"
    ]
    assert len(recent) >= 5  # bookings inside the 24-hour window


def test_users_can_be_identified_and_each_has_a_card_and_a_reservation(airline_env):
    state = airline_env.seed_state
    users = state["users"]
    assert len({u["email"] for u in users}) == len(users)
    assert len({(u["first_name"], u["last_name"], u["date_of_birth"]) for u in users}) == len(users)
    cards = {m["user_id"] for m in state["payment_methods"] if m["kind"] == "credit_card"}
    assert cards == {u["user_id"] for u in users}
    assert {r["user_id"] for r in state["reservations"]} == {u["user_id"] for u in users}


def test_flights_are_a_consistent_daily_schedule(airline_env):
    state = airline_env.seed_state
    airports = {a["code"] for a in state["airports"]}
    routes: Counter[tuple[str, str]] = Counter()
    for f in state["flights"]:
        assert f["origin"] in airports and f["destination"] in airports and f["origin"] != f["destination"]
        routes[(f["origin"], f["destination"])] += 1
    assert all((b, a) in routes for a, b in routes)  # every route is flown both ways
    per_flight = Counter(d["flight_number"] for d in state["flight_dates"])
    assert len(set(per_flight.values())) == 1  # every flight flies every day
    for d in state["flight_dates"]:
        assert d["price_basic_economy_cents"] < d["price_economy_cents"] < d["price_business_cents"]
        if d["date"] < CLOCK_DAY:
            assert d["status"] in ("landed", "cancelled")
        elif d["date"] > CLOCK_DAY:
            assert d["status"] in ("scheduled", "delayed", "cancelled")


def test_reservations_are_consistent_with_their_flights(airline_env):
    state = airline_env.seed_state
    flights = {f["flight_number"]: f for f in state["flights"]}
    dates = {(d["flight_number"], d["date"]): d for d in state["flight_dates"]}
    segments = defaultdict(list)
    for s in state["reservation_flights"]:
        segments[s["reservation_id"]].append(s)
    passengers = Counter(p["reservation_id"] for p in state["reservation_passengers"])
    for r in state["reservations"]:
        segs = sorted(segments[r["reservation_id"]], key=lambda s: s["segment_no"])
        assert len(segs) == (2 if r["trip_type"] == "round_trip" else 1)
        assert 1 <= passengers[r["reservation_id"]] <= 5
        first = flights[segs[0]["flight_number"]]
        assert (first["origin"], first["destination"]) == (r["origin"], r["destination"])
        if len(segs) == 2:
            back = flights[segs[1]["flight_number"]]
            assert (back["origin"], back["destination"]) == (r["destination"], r["origin"])
            assert segs[0]["date"] <= segs[1]["date"]
        assert r["created_at"][:10] <= segs[0]["date"] and r["created_at"] <= "2026-06-01T12:00:00Z"
        statuses = [dates[(s["flight_number"], s["date"])]["status"] for s in segs]
        if r["status"] == "completed":
            assert statuses == ["landed"] * len(segs)
        if r["status"] == "active":
            assert statuses[-1] not in ("landed", "departed")
        assert (r["status"] == "cancelled") == (r["cancel_reason"] is not None)


def test_money_matches_fares_bags_and_insurance(airline_env):
    state = airline_env.seed_state
    users = {u["user_id"]: u for u in state["users"]}
    owner = {m["payment_method_id"]: m["user_id"] for m in state["payment_methods"]}
    fares: dict[str, int] = defaultdict(int)
    for s in state["reservation_flights"]:
        fares[s["reservation_id"]] += s["price_cents"]
    count = Counter(p["reservation_id"] for p in state["reservation_passengers"])
    for r in state["reservations"]:
        rid = r["reservation_id"]
        free = FREE_BAGS[users[r["user_id"]]["membership"]][r["cabin"]] * count[rid]
        assert r["nonfree_bags"] == max(0, r["total_bags"] - free)
        expected = fares[rid] * count[rid] + r["nonfree_bags"] * 5000 + r["insurance"] * 3000 * count[rid]
        net = _net(state, rid)
        assert all(owner[m] == r["user_id"] for m in net)
        if r["status"] == "cancelled":
            assert all(v == 0 for v in net.values())
        else:
            assert sum(net.values()) == expected
    assert all(m["balance_cents"] is None for m in state["payment_methods"] if m["kind"] == "credit_card")
    assert all(m["balance_cents"] >= 0 for m in state["payment_methods"] if m["kind"] != "credit_card")


def test_passengers_are_saved_on_the_owners_profile(airline_env):
    state = airline_env.seed_state
    owner = {r["reservation_id"]: r["user_id"] for r in state["reservations"]}
    saved = {
        (p["user_id"], p["first_name"], p["last_name"], p["date_of_birth"]) for p in state["saved_passengers"]
    }
    for p in state["reservation_passengers"]:
        assert (owner[p["reservation_id"]], p["first_name"], p["last_name"], p["date_of_birth"]) in saved
    users = {u["user_id"]: u for u in state["users"]}
    selves = {
        (p["user_id"], p["first_name"], p["last_name"], p["date_of_birth"]) for p in state["saved_passengers"]
    }
    assert all((u, x["first_name"], x["last_name"], x["date_of_birth"]) in selves for u, x in users.items())
