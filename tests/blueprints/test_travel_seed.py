"""The travel seed: deterministic, big enough, every state present, and internally consistent
(inventory holds every active booking, money adds up, trips cost what their bookings cost)."""

from __future__ import annotations

import datetime
import random
from collections import Counter, defaultdict

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env

TODAY = "2026-06-18"


@pytest.fixture(scope="module")
def travel_env() -> Environment:
    return build_env(load_blueprint("travel"))


@pytest.fixture(scope="module")
def state(travel_env) -> dict:
    return travel_env.seed_state


def _days(start: str, count: int) -> list[str]:
    day = datetime.date.fromisoformat(start)
    return [(day + datetime.timedelta(days=i)).isoformat() for i in range(count)]


def _age(birth: str, on: str) -> int:
    b, d = datetime.date.fromisoformat(birth), datetime.date.fromisoformat(on)
    return d.year - b.year - (1 if (d.month, d.day) < (b.month, b.day) else 0)


def test_same_seed_gives_identical_sql(travel_env):
    blueprint = load_blueprint("travel")
    assert blueprint.generate_seed(random.Random(5)) == blueprint.generate_seed(random.Random(5))
    again = build_env(blueprint, blueprint.default_seed)
    assert again.seed_sql == travel_env.seed_sql
    assert again.seed_hash == travel_env.seed_hash


def test_different_seed_gives_different_state():
    blueprint = load_blueprint("travel")
    assert blueprint.generate_seed(random.Random(1)) != blueprint.generate_seed(random.Random(2))


def test_sizes_and_every_state_present(state):
    total = sum(len(rows) for rows in state.values())
    assert 1000 <= total <= 2500
    assert len(state["travelers"]) >= 40 and len(state["hotel_bookings"]) >= 80
    assert {t["tier"] for t in state["travelers"]} == {"member", "silver", "gold", "platinum"}
    assert {b["status"] for b in state["hotel_bookings"]} == {
        "confirmed",
        "checked_in",
        "completed",
        "cancelled",
    }
    assert {b["rate_type"] for b in state["hotel_bookings"]} == {"refundable", "non_refundable"}
    assert {r["status"] for r in state["car_rentals"]} == {"reserved", "picked_up", "returned", "cancelled"}
    assert {t["status"] for t in state["trips"]} == {"planned", "in_progress", "completed", "cancelled"}
    assert {v["status"] for v in state["vouchers"]} == {"active", "redeemed", "expired"}
    assert {m["kind"] for m in state["payment_methods"]} == {"credit_card", "debit_card"}
    assert any(m["expires"] < "2026-06" for m in state["payment_methods"])
    assert any(p["voucher_id"] is not None for p in state["payments"])
    assert any(b["cancellation_fee_cents"] > 0 for b in state["hotel_bookings"])
    assert any(r["young_driver_fee_cents"] > 0 for r in state["car_rentals"])
    assert any(r["one_way_fee_cents"] > 0 for r in state["car_rentals"])
    assert any(t["car_rental_id"] is None for t in state["trips"])
    assert any(t["flight_locator"] is not None for t in state["trips"])
    assert any(_age(t["date_of_birth"], TODAY) < 21 for t in state["travelers"])
    assert any(n["rooms_booked"] == n["rooms_total"] for n in state["room_nights"])
    assert any(a["cars_booked"] == a["cars_total"] for a in state["car_availability"])


def test_keys_are_unique_and_references_resolve(travel_env, state):
    for table in travel_env.spec.tables:
        keys = [tuple(r[k] for k in table.primary_key) for r in state[table.name]]
        assert len(keys) == len(set(keys)), table.name
        for column in table.columns:
            if column.references is None:
                continue
            target, target_column = column.references.split(".")
            known = {r[target_column] for r in state[target]}
            for r in state[table.name]:
                assert r[column.name] is None or r[column.name] in known, (table.name, column.name, r)


def test_travelers_are_identifiable_and_can_pay(state):
    travelers = state["travelers"]
    assert len({t["email"] for t in travelers}) == len(travelers)
    assert len({(t["first_name"], t["last_name"], t["date_of_birth"]) for t in travelers}) == len(travelers)
    usable = {m["traveler_id"] for m in state["payment_methods"] if m["expires"] >= "2026-06"}
    assert usable == {t["traveler_id"] for t in travelers}


def test_hotel_bookings_follow_dates_rates_and_tiers(state):
    rooms = {r["room_type_id"]: r for r in state["room_types"]}
    tiers = {t["traveler_id"]: t["tier"] for t in state["travelers"]}
    limit = {"member": 2, "silver": 2, "gold": 3, "platinum": 4}
    for b in state["hotel_bookings"]:
        room = rooms[b["room_type_id"]]
        rate = room[
            "refundable_rate_cents" if b["rate_type"] == "refundable" else "non_refundable_rate_cents"
        ]
        assert b["nightly_rate_cents"] == rate
        assert b["total_cents"] == rate * b["rooms"] * b["nights"]
        assert b["rooms"] <= limit[tiers[b["traveler_id"]]]
        assert b["created_at"][:10] < b["check_in"] or b["status"] != "confirmed"
        if b["status"] == "confirmed":
            assert b["check_in"] >= TODAY
        elif b["status"] == "checked_in":
            assert b["check_in"] <= TODAY < b["check_out"]
        elif b["status"] == "completed":
            assert b["check_out"] <= TODAY
        else:
            assert b["rate_type"] == "refundable"
        if b["cancellation_fee_cents"]:
            assert b["status"] == "cancelled"
            assert b["cancellation_fee_cents"] == b["nightly_rate_cents"] * b["rooms"]


def test_room_inventory_holds_every_active_booking(state):
    held: dict[tuple[str, str], int] = defaultdict(int)
    for b in state["hotel_bookings"]:
        if b["status"] in ("confirmed", "checked_in"):
            for night in _days(b["check_in"], b["nights"]):
                held[(b["room_type_id"], night)] += b["rooms"]
    nights = {(n["room_type_id"], n["night"]): n for n in state["room_nights"]}
    for (room, night), rooms in held.items():
        if night < TODAY:
            continue
        assert (room, night) in nights, (room, night)
        assert nights[(room, night)]["rooms_booked"] >= rooms
    assert len(nights) == len(state["room_types"]) * 28


def test_car_rentals_follow_age_fees_and_fleet(state):
    travelers = {t["traveler_id"]: t for t in state["travelers"]}
    classes = {c["class_id"]: c for c in state["car_classes"]}
    held: dict[tuple[str, str, str], int] = defaultdict(int)
    for r in state["car_rentals"]:
        traveler = travelers[r["traveler_id"]]
        age = _age(traveler["date_of_birth"], r["pickup_date"])
        assert r["driver_age"] == age >= classes[r["class_id"]]["min_age"] >= 21
        assert r["young_driver_fee_cents"] == (2500 * r["days"] if age < 25 else 0)
        one_way = r["pickup_location_id"] != r["dropoff_location_id"] and traveler["tier"] in (
            "member",
            "silver",
        )
        assert r["one_way_fee_cents"] == (9500 if one_way else 0)
        assert r["daily_rate_cents"] == classes[r["class_id"]]["daily_rate_cents"]
        if r["status"] == "reserved":
            assert r["pickup_date"] >= TODAY
        elif r["status"] == "picked_up":
            assert r["pickup_date"] <= TODAY < r["return_date"]
        elif r["status"] == "returned":
            assert r["return_date"] <= TODAY
        if r["status"] in ("reserved", "picked_up"):
            for day in _days(r["pickup_date"], r["days"]):
                held[(r["pickup_location_id"], r["class_id"], day)] += 1
    fleet = {(a["location_id"], a["class_id"], a["day"]): a for a in state["car_availability"]}
    for key, cars in held.items():
        if key[2] >= TODAY:
            assert fleet[key]["cars_booked"] >= cars, key


def test_trips_cost_what_their_bookings_cost(state):
    bookings = {b["booking_id"]: b for b in state["hotel_bookings"]}
    rentals = {r["rental_id"]: r for r in state["car_rentals"]}
    rooms = {r["room_type_id"]: r for r in state["room_types"]}
    hotels = {h["hotel_id"]: h for h in state["hotels"]}
    locations = {x["location_id"]: x for x in state["rental_locations"]}
    expected = {
        "planned": "confirmed",
        "in_progress": "checked_in",
        "completed": "completed",
        "cancelled": "cancelled",
    }
    for t in state["trips"]:
        hotel = bookings[t["hotel_booking_id"]]
        assert hotel["traveler_id"] == t["traveler_id"]
        assert hotel["status"] == expected[t["status"]]
        total = hotel["cancellation_fee_cents"] if hotel["status"] == "cancelled" else hotel["total_cents"]
        if t["status"] == "planned":
            assert hotel["check_in"] > TODAY
        if t["car_rental_id"] is not None:
            car = rentals[t["car_rental_id"]]
            assert car["traveler_id"] == t["traveler_id"]
            city = hotels[rooms[hotel["room_type_id"]]["hotel_id"]]["city"]
            assert locations[car["pickup_location_id"]]["city"] == city
            assert hotel["check_in"] <= car["pickup_date"] <= hotel["check_out"]
            if car["status"] != "cancelled":
                total += car["total_cents"]
        assert t["total_cents"] == total, t


def test_payments_refunds_and_vouchers_add_up(state):
    cards = {m["payment_method_id"]: m for m in state["payment_methods"]}
    paid: dict[str, int] = defaultdict(int)
    for p in state["payments"]:
        paid[p["hotel_booking_id"] or p["car_rental_id"]] += p["amount_cents"]
        if p["payment_method_id"] is not None:
            assert cards[p["payment_method_id"]]["traveler_id"] == p["traveler_id"]
        assert p["created_at"] <= "2026-06-18T15:00:00Z"
    for item in [*state["hotel_bookings"], *state["car_rentals"]]:
        key = item.get("booking_id") or item["rental_id"]
        assert paid[key] == item["total_cents"], key
    payments = {p["payment_id"]: p for p in state["payments"]}
    refunded: dict[str, int] = defaultdict(int)
    for r in state["refunds"]:
        p = payments[r["payment_id"]]
        refunded[p["hotel_booking_id"] or p["car_rental_id"]] += r["amount_cents"]
        assert r["amount_cents"] <= p["amount_cents"]
    for b in state["hotel_bookings"]:
        kept = b["total_cents"] - b["cancellation_fee_cents"] if b["status"] == "cancelled" else 0
        assert refunded[b["booking_id"]] == kept
    for r in state["car_rentals"]:
        assert refunded[r["rental_id"]] == (r["total_cents"] if r["status"] == "cancelled" else 0)
    used: Counter[str] = Counter()
    for p in state["payments"]:
        if p["voucher_id"] is not None:
            used[p["voucher_id"]] += p["amount_cents"]
    for v in state["vouchers"]:
        assert v["amount_cents"] - v["balance_cents"] == used[v["voucher_id"]]
        if v["status"] == "redeemed":
            assert v["balance_cents"] == 0
        if v["status"] == "expired":
            assert v["expires_on"] < TODAY
        if v["status"] == "active":
            assert v["balance_cents"] > 0 and v["expires_on"] >= TODAY
