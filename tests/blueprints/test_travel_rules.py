"""Travel business rules: every rule a tool enforces is refused cleanly (state untouched), and the
happy paths change exactly what they should (money in cents, inventory per night, trip totals)."""

from __future__ import annotations

import ast
import datetime
import inspect
import sys
from collections import defaultdict
from typing import Any

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.runtime import Toolbox, dump_state, state_hash
from envfactory_mcp.spec.policy import RefusalRule

TODAY = "2026-06-18"
NOW = "2026-06-18T15:00:00Z"


def _age(birth: str, on: str) -> int:
    b, d = datetime.date.fromisoformat(birth), datetime.date.fromisoformat(on)
    return d.year - b.year - (1 if (d.month, d.day) < (b.month, b.day) else 0)


def _plus(day: str, n: int) -> str:
    return (datetime.date.fromisoformat(day) + datetime.timedelta(days=n)).isoformat()


# --------------------------------------------------------------------------- helpers


class Seed:
    """Indexes over the seed state, for finding rows that fit a test."""

    def __init__(self, state: dict[str, list[dict[str, Any]]]) -> None:
        self.state = state
        self.travelers = {t["traveler_id"]: t for t in state["travelers"]}
        self.rooms = {r["room_type_id"]: r for r in state["room_types"]}
        self.hotels = {h["hotel_id"]: h for h in state["hotels"]}
        self.cards: dict[str, list[dict]] = defaultdict(list)
        for m in state["payment_methods"]:
            self.cards[m["traveler_id"]].append(m)
        self.trip_of_booking = {t["hotel_booking_id"]: t for t in state["trips"]}
        self.trip_of_rental = {t["car_rental_id"]: t for t in state["trips"] if t["car_rental_id"]}
        self.nights = {(n["room_type_id"], n["night"]): n for n in state["room_nights"]}

    def card(self, traveler_id: str) -> str:
        return next(m for m in self.cards[traveler_id] if m["expires"] >= "2026-06")["payment_method_id"]

    def traveler(self, want) -> dict:
        found = next((t for t in self.state["travelers"] if want(t)), None)
        if found is None:
            pytest.fail("the seed has no traveler that fits")
        return found

    def booking(self, want=lambda b: True, **fields: Any) -> dict:
        found = next(
            (
                b
                for b in self.state["hotel_bookings"]
                if all(b[k] == v for k, v in fields.items()) and want(b)
            ),
            None,
        )
        if found is None:
            pytest.fail(f"the seed has no hotel booking with {fields}")
        return found

    def rental(self, want=lambda r: True, **fields: Any) -> dict:
        found = next(
            (r for r in self.state["car_rentals"] if all(r[k] == v for k, v in fields.items()) and want(r)),
            None,
        )
        if found is None:
            pytest.fail(f"the seed has no car rental with {fields}")
        return found

    def trip(self, want=lambda t: True, **fields: Any) -> dict:
        found = next(
            (t for t in self.state["trips"] if all(t[k] == v for k, v in fields.items()) and want(t)), None
        )
        if found is None:
            pytest.fail(f"the seed has no trip with {fields}")
        return found

    def deadline(self, booking: dict) -> str:
        hotel = self.hotels[self.rooms[booking["room_type_id"]]["hotel_id"]]
        return _plus(booking["check_in"], -hotel["free_cancel_days"])

    def free_for(self, room_type_id: str, check_in: str, nights: int, rooms: int) -> bool:
        for i in range(nights):
            n = self.nights.get((room_type_id, _plus(check_in, i)))
            if n is None or n["rooms_total"] - n["rooms_booked"] < rooms:
                return False
        return True


class Desk:
    """One session's database and the toolbox, with assertions around each call."""

    def __init__(self, toolbox: Toolbox, db) -> None:
        self.toolbox, self.db = toolbox, db

    def refused(self, tool: str, phrase: str, **args: Any) -> str:
        """The call fails as a request error mentioning phrase, and the state is untouched."""
        before = state_hash(self.db)
        out = self.toolbox.call(self.db, tool, args)
        assert out.ok is False, out
        assert out.internal is False, out.error
        assert out.error is not None
        assert phrase.lower() in out.error.lower(), out.error
        assert state_hash(self.db) == before
        return out.error

    def ok(self, tool: str, **args: Any) -> tuple[dict, dict, dict]:
        """A successful call that changes only declared tables. Returns (output, state before, state after)."""
        before = dump_state(self.db)
        out = self.toolbox.call(self.db, tool, args)
        assert out.ok, out.error
        assert out.output is not None
        after = dump_state(self.db)
        changed = {t for t in before if before[t] != after[t]}
        assert changed <= self.toolbox.tools[tool].writes, (tool, changed)
        return out.output, before, after

    def sql(self, statement: str, params: tuple = ()) -> None:
        """Test set-up outside the tools."""
        self.db.execute(statement, params)


def new_rows(before: dict, after: dict, table: str) -> list[dict]:
    old = [repr(sorted(r.items())) for r in before[table]]
    return [r for r in after[table] if repr(sorted(r.items())) not in old]


def row(state: dict, table: str, **keys: Any) -> dict:
    return next(r for r in state[table] if all(r[k] == v for k, v in keys.items()))


@pytest.fixture(scope="module")
def travel_env() -> Environment:
    return build_env(load_blueprint("travel"))


@pytest.fixture(scope="module")
def seed(travel_env) -> Seed:
    return Seed(travel_env.seed_state)


@pytest.fixture(scope="module")
def toolbox(travel_env) -> Toolbox:
    return travel_env.toolbox()


@pytest.fixture
def desk(travel_env, toolbox):
    session = travel_env.new_session()
    yield Desk(toolbox, session.db)
    session.close()


# --------------------------------------------------------------------------- the spec


def test_every_tool_has_code_and_the_policy_covers_every_write(travel_env):
    spec = travel_env.spec
    module = load_blueprint("travel").tools_module
    assert len(spec.tools) >= 15 and len(spec.tables) >= 7
    for tool in spec.tools:
        params = [p for p in inspect.signature(vars(module)[tool.name]).parameters if p != "ctx"]
        assert sorted(params) == sorted(tool.input_schema["properties"]), tool.name
    rules = spec.policy_rules
    writes = {t.name for t in spec.tools if t.effect == "write"}
    assert set(rules.confirm) == writes and len(writes) >= 8
    assert all(f"`{name}`" in spec.policy for name in writes)
    assert rules.authentication is not None and rules.authentication.entity == "traveler"
    assert rules.transfer is not None and len(rules.transfer.out_of_scope) >= 6
    assert {r.tool for r in rules.refusals} == writes - {"book_hotel", "book_car_rental"}
    first: dict[str, RefusalRule] = {}
    for rule in rules.refusals:
        first.setdefault(rule.tool, rule)
        assert spec.tool(rule.shown_by).effect == "read"
    assert all(rule.column == "status" for rule in first.values())  # the task generator reads the first
    assert all(t.claims for t in spec.tools if t.effect == "write")


def test_tool_code_imports_only_the_standard_library():
    source = load_blueprint("travel").code()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            continue
        for name in names:
            assert name.split(".")[0] in sys.stdlib_module_names or name == "envfactory_mcp.runtime", name


# --------------------------------------------------------------------------- identity and lookups


def test_find_traveler_by_email_and_by_name_dob(desk, seed):
    t = seed.state["travelers"][7]
    out, _, _ = desk.ok("find_traveler_id_by_email", email=t["email"].upper())
    assert out == {"traveler_id": t["traveler_id"]}
    out, _, _ = desk.ok(
        "find_traveler_id_by_name_dob",
        first_name=t["first_name"].lower(),
        last_name=t["last_name"],
        date_of_birth=t["date_of_birth"],
    )
    assert out == {"traveler_id": t["traveler_id"]}


def test_unknown_ids_are_refused(desk, seed):
    desk.refused("find_traveler_id_by_email", "no traveler found", email="nobody@nowhere.example")
    desk.refused(
        "find_traveler_id_by_name_dob",
        "no traveler found",
        first_name="No",
        last_name="Body",
        date_of_birth="1900-01-01",
    )
    desk.refused("get_traveler_details", "trv_999999 not found", traveler_id="trv_999999")
    desk.refused("get_hotel_booking_details", "hb999999 not found", booking_id="HB999999")
    desk.refused("get_car_rental_details", "cr999999 not found", rental_id="CR999999")
    desk.refused("get_trip_details", "tr999999 not found", trip_id="TR999999")
    desk.refused("get_voucher_details", "tv999999 not found", voucher_id="TV999999")
    desk.refused("search_hotels", "no partner hotels", city="Gotham")
    desk.refused(
        "check_room_availability",
        "rm_99999 not found",
        room_type_id="rm_99999",
        check_in="2026-07-01",
        nights=2,
    )
    desk.refused(
        "check_car_availability",
        "xxx-xxx not found",
        location_id="XXX-XXX",
        class_id="ECAR",
        pickup_date="2026-07-01",
        days=2,
    )


def test_invalid_arguments_are_rejected_before_the_tool_runs(desk, seed):
    b = seed.booking(status="confirmed", rate_type="refundable")
    desk.refused(
        "change_hotel_dates",
        "invalid arguments",
        booking_id=b["booking_id"],
        check_in="2026-07-01",
        nights=15,
    )
    desk.refused(
        "change_hotel_dates", "invalid arguments", booking_id=b["booking_id"], check_in="1st July", nights=2
    )
    t = seed.trip(status="planned")
    desk.refused("set_flight_locator", "invalid arguments", trip_id=t["trip_id"], flight_locator="AB-12C")
    desk.refused("get_hotel_booking_details", "invalid arguments", booking_id="hb204003")


def test_reads_show_state_in_dollars(desk, seed):
    b = seed.booking(status="confirmed", rate_type="refundable")
    out, _, _ = desk.ok("get_hotel_booking_details", booking_id=b["booking_id"])
    assert out["total"] == b["total_cents"] / 100 and out["paid"] == out["total"]
    assert out["free_cancellation_until"] == seed.deadline(b)
    nr = seed.booking(rate_type="non_refundable")
    out, _, _ = desk.ok("get_hotel_booking_details", booking_id=nr["booking_id"])
    assert out["free_cancellation_until"] is None
    t = seed.trip(lambda t: t["car_rental_id"] is not None, status="planned")
    out, _, _ = desk.ok("get_trip_details", trip_id=t["trip_id"])
    assert out["total"] == t["total_cents"] / 100 and out["car_rental_id"] == t["car_rental_id"]
    traveler = seed.travelers[t["traveler_id"]]
    out, _, _ = desk.ok("get_traveler_details", traveler_id=traveler["traveler_id"])
    assert t["trip_id"] in out["trips"] and out["age"] == _age(traveler["date_of_birth"], TODAY)
    out, _, _ = desk.ok("search_hotels", city="denver")
    assert out["city"] == "Denver" and len(out["rooms"]) == 6
    out, _, _ = desk.ok("list_rental_locations")
    assert {c["class_id"] for c in out["car_classes"]} == {"ECAR", "CCAR", "ICAR", "SFAR", "PCAR"}


def test_room_and_car_availability(desk, seed):
    n = next(x for x in seed.state["room_nights"] if x["night"] == "2026-07-01")
    out, _, _ = desk.ok(
        "check_room_availability", room_type_id=n["room_type_id"], check_in="2026-07-01", nights=1
    )
    assert out["rooms_available"] == n["rooms_total"] - n["rooms_booked"]
    desk.refused(
        "check_room_availability",
        "not on sale",
        room_type_id=n["room_type_id"],
        check_in="2026-07-14",
        nights=4,
    )
    a = next(x for x in seed.state["car_availability"] if x["day"] == "2026-06-25")
    out, _, _ = desk.ok(
        "check_car_availability",
        location_id=a["location_id"],
        class_id=a["class_id"],
        pickup_date="2026-06-25",
        days=1,
    )
    assert out["cars_available"] == a["cars_total"] - a["cars_booked"]
    desk.refused(
        "check_car_availability",
        "not bookable",
        location_id=a["location_id"],
        class_id=a["class_id"],
        pickup_date="2026-07-15",
        days=3,
    )


# --------------------------------------------------------------------------- booking hotels


def _free_room(seed: Seed, check_in: str, nights: int, rooms: int) -> str:
    room = next(
        (r for r in seed.state["room_types"] if seed.free_for(r["room_type_id"], check_in, nights, rooms)),
        None,
    )
    assert room is not None
    return room["room_type_id"]


def test_book_hotel_refusals(desk, seed):
    member = seed.traveler(lambda t: t["tier"] == "member")
    tid, card = member["traveler_id"], seed.card(member["traveler_id"])
    room = _free_room(seed, "2026-07-02", 2, 3)
    args = {
        "traveler_id": tid,
        "room_type_id": room,
        "nights": 2,
        "rate_type": "refundable",
        "payment_method_id": card,
    }
    desk.refused("book_hotel", "after today", check_in=TODAY, rooms=1, **args)
    desk.refused("book_hotel", "after today", check_in="2026-06-01", rooms=1, **args)
    desk.refused("book_hotel", "1 to 2 rooms", check_in="2026-07-02", rooms=3, **args)
    desk.refused("book_hotel", "not on sale", check_in="2026-07-15", rooms=1, **args)
    stranger = next(m for m in seed.state["payment_methods"] if m["traveler_id"] != tid)
    desk.refused(
        "book_hotel",
        "does not belong",
        check_in="2026-07-02",
        rooms=1,
        **{**args, "payment_method_id": stranger["payment_method_id"]},
    )
    expired = next(m for m in seed.state["payment_methods"] if m["expires"] < "2026-06")
    owner = expired["traveler_id"]
    desk.refused(
        "book_hotel",
        "expired",
        check_in="2026-07-02",
        rooms=1,
        **{**args, "traveler_id": owner, "payment_method_id": expired["payment_method_id"]},
    )
    sold = next(
        n for n in seed.state["room_nights"] if n["rooms_booked"] == n["rooms_total"] and n["night"] > TODAY
    )
    desk.refused(
        "book_hotel",
        "left for the night",
        check_in=sold["night"],
        rooms=1,
        **{**args, "room_type_id": sold["room_type_id"], "nights": 1},
    )


def test_book_hotel_voucher_refusals(desk, seed):
    for status, phrase in (("redeemed", "used up"), ("expired", "expired")):
        v = next(v for v in seed.state["vouchers"] if v["status"] == status)
        tid = v["traveler_id"]
        room = _free_room(seed, "2026-07-02", 1, 1)
        desk.refused(
            "book_hotel",
            phrase,
            traveler_id=tid,
            room_type_id=room,
            check_in="2026-07-02",
            nights=1,
            rooms=1,
            rate_type="refundable",
            payment_method_id=seed.card(tid),
            voucher_id=v["voucher_id"],
        )
    v = next(v for v in seed.state["vouchers"] if v["status"] == "active")
    other = seed.traveler(lambda t: t["traveler_id"] != v["traveler_id"])
    desk.refused(
        "book_hotel",
        "does not belong",
        traveler_id=other["traveler_id"],
        room_type_id=_free_room(seed, "2026-07-02", 1, 1),
        check_in="2026-07-02",
        nights=1,
        rooms=1,
        rate_type="refundable",
        payment_method_id=seed.card(other["traveler_id"]),
        voucher_id=v["voucher_id"],
    )


def test_book_hotel_holds_rooms_and_pays_voucher_first(desk, seed):
    v = next(v for v in seed.state["vouchers"] if v["status"] == "active")
    tid = v["traveler_id"]
    room_id = _free_room(seed, "2026-07-03", 3, 1)
    room = seed.rooms[room_id]
    out, before, after = desk.ok(
        "book_hotel",
        traveler_id=tid,
        room_type_id=room_id,
        check_in="2026-07-03",
        nights=3,
        rooms=1,
        rate_type="non_refundable",
        payment_method_id=seed.card(tid),
        voucher_id=v["voucher_id"],
    )
    total = room["non_refundable_rate_cents"] * 3
    assert out["total"] == total / 100 and out["status"] == "confirmed" and out["check_out"] == "2026-07-06"
    assert out["free_cancellation_until"] is None
    (booking,) = new_rows(before, after, "hotel_bookings")
    assert booking["booking_id"] == out["booking_id"] and booking["created_at"] == NOW
    for night in ("2026-07-03", "2026-07-04", "2026-07-05"):
        old = row(before, "room_nights", room_type_id=room_id, night=night)
        new = row(after, "room_nights", room_type_id=room_id, night=night)
        assert new["rooms_booked"] == old["rooms_booked"] + 1
    payments = new_rows(before, after, "payments")
    used = min(v["balance_cents"], total)
    assert sum(p["amount_cents"] for p in payments) == total
    assert payments[0]["voucher_id"] == v["voucher_id"] and payments[0]["amount_cents"] == used
    voucher = row(after, "vouchers", voucher_id=v["voucher_id"])
    assert voucher["balance_cents"] == v["balance_cents"] - used
    assert voucher["status"] == ("redeemed" if voucher["balance_cents"] == 0 else "active")


def test_gold_members_book_three_rooms(desk, seed):
    gold = seed.traveler(lambda t: t["tier"] == "gold")
    room_id = _free_room(seed, "2026-07-08", 2, 3)
    out, _, _ = desk.ok(
        "book_hotel",
        traveler_id=gold["traveler_id"],
        room_type_id=room_id,
        check_in="2026-07-08",
        nights=2,
        rooms=3,
        rate_type="refundable",
        payment_method_id=seed.card(gold["traveler_id"]),
    )
    assert out["total"] == seed.rooms[room_id]["refundable_rate_cents"] * 6 / 100
    desk.refused(
        "book_hotel",
        "1 to 3 rooms",
        traveler_id=gold["traveler_id"],
        room_type_id=room_id,
        check_in="2026-07-08",
        nights=2,
        rooms=4,
        rate_type="refundable",
        payment_method_id=seed.card(gold["traveler_id"]),
    )


# --------------------------------------------------------------------------- changing dates


def test_change_dates_refusals(desk, seed):
    for status in ("checked_in", "completed", "cancelled"):
        b = seed.booking(status=status)
        desk.refused(
            "change_hotel_dates",
            "only confirmed bookings",
            booking_id=b["booking_id"],
            check_in="2026-07-01",
            nights=2,
        )
    nr = seed.booking(status="confirmed", rate_type="non_refundable")
    desk.refused(
        "change_hotel_dates", "non-refundable", booking_id=nr["booking_id"], check_in="2026-07-01", nights=2
    )
    b = seed.booking(lambda b: b["check_in"] > "2026-06-22", status="confirmed", rate_type="refundable")
    desk.sql(
        "UPDATE hotel_bookings SET check_in = ?, check_out = ? WHERE booking_id = ?",
        (TODAY, _plus(TODAY, b["nights"]), b["booking_id"]),
    )
    desk.refused(
        "change_hotel_dates",
        "before the check-in day",
        booking_id=b["booking_id"],
        check_in="2026-07-01",
        nights=2,
    )
    b = seed.booking(lambda b: b["check_in"] > TODAY, status="confirmed", rate_type="refundable")
    desk.refused("change_hotel_dates", "after today", booking_id=b["booking_id"], check_in=TODAY, nights=2)
    desk.refused(
        "change_hotel_dates",
        "already has those dates",
        booking_id=b["booking_id"],
        check_in=b["check_in"],
        nights=b["nights"],
    )
    # A night outside the stay, sold out.
    night = "2026-07-14" if b["check_out"] <= "2026-07-14" else "2026-06-19"
    desk.sql(
        "UPDATE room_nights SET rooms_booked = rooms_total WHERE room_type_id = ? AND night = ?",
        (b["room_type_id"], night),
    )
    desk.refused(
        "change_hotel_dates", "left for the night", booking_id=b["booking_id"], check_in=night, nights=1
    )


def _changeable(seed: Seed, in_trip: bool) -> dict:
    return seed.booking(
        lambda b: (
            b["check_in"] > TODAY
            and (b["booking_id"] in seed.trip_of_booking) == in_trip
            and (not in_trip or seed.trip_of_booking[b["booking_id"]]["status"] == "planned")
            and b["nights"] >= 2
        ),
        status="confirmed",
        rate_type="refundable",
    )


def test_longer_stay_is_charged_and_moves_inventory(desk, seed):
    b = _changeable(seed, in_trip=True)
    desk.sql(
        "UPDATE room_nights SET rooms_total = rooms_booked + ? WHERE room_type_id = ?",
        (b["rooms"], b["room_type_id"]),
    )
    new_in = "2026-07-10"
    out, before, after = desk.ok(
        "change_hotel_dates", booking_id=b["booking_id"], check_in=new_in, nights=b["nights"] + 1
    )
    extra = b["nightly_rate_cents"] * b["rooms"]
    assert out["charged"] == extra / 100 and out["refunded"] == 0
    assert (
        out["booking"]["check_in"] == new_in and out["booking"]["total"] == (b["total_cents"] + extra) / 100
    )
    (payment,) = new_rows(before, after, "payments")
    assert payment["amount_cents"] == extra and payment["payment_method_id"] is not None
    for i in range(b["nights"]):
        night = _plus(b["check_in"], i)
        if night not in [_plus(new_in, k) for k in range(b["nights"] + 1)]:
            old = row(before, "room_nights", room_type_id=b["room_type_id"], night=night)
            assert row(after, "room_nights", room_type_id=b["room_type_id"], night=night)["rooms_booked"] == (
                old["rooms_booked"] - b["rooms"]
            )
    trip = seed.trip_of_booking[b["booking_id"]]
    assert row(after, "trips", trip_id=trip["trip_id"])["total_cents"] == trip["total_cents"] + extra


def test_shorter_stay_is_refunded(desk, seed):
    b = _changeable(seed, in_trip=False)
    out, before, after = desk.ok(
        "change_hotel_dates", booking_id=b["booking_id"], check_in=b["check_in"], nights=1
    )
    back = b["nightly_rate_cents"] * b["rooms"] * (b["nights"] - 1)
    assert out["refunded"] == back / 100 and out["charged"] == 0
    refunds = new_rows(before, after, "refunds")
    assert sum(r["amount_cents"] for r in refunds) == back
    assert row(after, "hotel_bookings", booking_id=b["booking_id"])["check_out"] == _plus(b["check_in"], 1)


# --------------------------------------------------------------------------- cancelling hotel bookings


def test_cancel_hotel_refusals(desk, seed):
    for status in ("checked_in", "completed", "cancelled"):
        b = seed.booking(status=status)
        desk.refused("cancel_hotel_booking", "only confirmed bookings", booking_id=b["booking_id"])
    nr = seed.booking(
        lambda b: b["booking_id"] not in seed.trip_of_booking, status="confirmed", rate_type="non_refundable"
    )
    desk.refused("cancel_hotel_booking", "cannot be cancelled for a refund", booking_id=nr["booking_id"])
    planned = seed.trip(status="planned")
    desk.refused("cancel_hotel_booking", "cancel the trip instead", booking_id=planned["hotel_booking_id"])


def test_free_cancellation_refunds_everything(desk, seed):
    b = seed.booking(
        lambda b: b["booking_id"] not in seed.trip_of_booking and seed.deadline(b) >= TODAY,
        status="confirmed",
        rate_type="refundable",
    )
    out, before, after = desk.ok("cancel_hotel_booking", booking_id=b["booking_id"])
    assert out["fee"] == 0 and out["refunded"] == b["total_cents"] / 100
    assert out["booking"]["status"] == "cancelled"
    assert sum(r["amount_cents"] for r in new_rows(before, after, "refunds")) == b["total_cents"]
    old = row(before, "room_nights", room_type_id=b["room_type_id"], night=b["check_in"])
    assert row(after, "room_nights", room_type_id=b["room_type_id"], night=b["check_in"])["rooms_booked"] == (
        old["rooms_booked"] - b["rooms"]
    )


def test_late_cancellation_keeps_one_night_unless_platinum(desk, seed):
    b = seed.booking(
        lambda b: b["booking_id"] not in seed.trip_of_booking and seed.deadline(b) >= TODAY,
        status="confirmed",
        rate_type="refundable",
    )
    member = seed.traveler(lambda t: t["tier"] == "member")
    desk.sql(
        "UPDATE hotel_bookings SET check_in = ?, check_out = ?, traveler_id = ? WHERE booking_id = ?",
        (TODAY, _plus(TODAY, b["nights"]), member["traveler_id"], b["booking_id"]),
    )
    out, _, after = desk.ok("cancel_hotel_booking", booking_id=b["booking_id"])
    fee = b["nightly_rate_cents"] * b["rooms"]
    assert out["fee"] == fee / 100 and out["refunded"] == (b["total_cents"] - fee) / 100
    assert row(after, "hotel_bookings", booking_id=b["booking_id"])["cancellation_fee_cents"] == fee
    other = seed.booking(
        lambda x: x["booking_id"] not in seed.trip_of_booking and x["booking_id"] != b["booking_id"],
        status="confirmed",
        rate_type="refundable",
    )
    platinum = seed.traveler(lambda t: t["tier"] == "platinum")
    desk.sql(
        "UPDATE hotel_bookings SET check_in = ?, check_out = ?, traveler_id = ? WHERE booking_id = ?",
        (TODAY, _plus(TODAY, other["nights"]), platinum["traveler_id"], other["booking_id"]),
    )
    out, _, _ = desk.ok("cancel_hotel_booking", booking_id=other["booking_id"])
    assert out["fee"] == 0 and out["refunded"] == other["total_cents"] / 100


# --------------------------------------------------------------------------- car rentals


def _fleet_free(seed: Seed, location: str, class_id: str, start: str, days: int) -> bool:
    rows = {(a["location_id"], a["class_id"], a["day"]): a for a in seed.state["car_availability"]}
    for i in range(days):
        a = rows.get((location, class_id, _plus(start, i)))
        if a is None or a["cars_booked"] >= a["cars_total"]:
            return False
    return True


def _free_car(seed: Seed, start: str, days: int, class_id: str = "ECAR") -> str:
    for loc in seed.state["rental_locations"]:
        if _fleet_free(seed, loc["location_id"], class_id, start, days):
            return loc["location_id"]
    pytest.fail("no free car")


def test_book_car_refusals(desk, seed):
    adult = seed.traveler(lambda t: _age(t["date_of_birth"], "2026-07-01") >= 30 and t["tier"] == "member")
    tid = adult["traveler_id"]
    loc = _free_car(seed, "2026-07-01", 3)
    args = {"class_id": "ECAR", "pickup_location_id": loc, "dropoff_location_id": loc, "days": 3}
    desk.refused(
        "book_car_rental",
        "after today",
        traveler_id=tid,
        pickup_date=TODAY,
        payment_method_id=seed.card(tid),
        **args,
    )
    desk.refused(
        "book_car_rental",
        "not bookable",
        traveler_id=tid,
        pickup_date="2026-07-14",
        payment_method_id=seed.card(tid),
        **args,
    )
    teen = seed.traveler(lambda t: _age(t["date_of_birth"], "2026-07-01") < 21)
    desk.refused(
        "book_car_rental",
        "must be at least 21",
        traveler_id=teen["traveler_id"],
        pickup_date="2026-07-01",
        payment_method_id=seed.card(teen["traveler_id"]),
        **args,
    )
    young = seed.traveler(lambda t: 21 <= _age(t["date_of_birth"], "2026-07-01") < 25)
    desk.refused(
        "book_car_rental",
        "aged 25 or older",
        traveler_id=young["traveler_id"],
        pickup_date="2026-07-01",
        payment_method_id=seed.card(young["traveler_id"]),
        **{**args, "class_id": "PCAR"},
    )
    full = next(
        a for a in seed.state["car_availability"] if a["cars_booked"] == a["cars_total"] and a["day"] > TODAY
    )
    desk.refused(
        "book_car_rental",
        "is left",
        traveler_id=tid,
        pickup_date=full["day"],
        payment_method_id=seed.card(tid),
        class_id=full["class_id"],
        pickup_location_id=full["location_id"],
        dropoff_location_id=full["location_id"],
        days=1,
    )


def test_young_driver_pays_surcharge_and_member_pays_one_way(desk, seed):
    young = seed.traveler(
        lambda t: 21 <= _age(t["date_of_birth"], "2026-07-01") < 25 and t["tier"] in ("member", "silver")
    )
    loc = _free_car(seed, "2026-07-01", 4, "CCAR")
    other = next(x["location_id"] for x in seed.state["rental_locations"] if x["location_id"] != loc)
    out, before, after = desk.ok(
        "book_car_rental",
        traveler_id=young["traveler_id"],
        class_id="CCAR",
        pickup_location_id=loc,
        dropoff_location_id=other,
        pickup_date="2026-07-01",
        days=4,
        payment_method_id=seed.card(young["traveler_id"]),
    )
    assert out["young_driver_fee"] == 100.0 and out["one_way_fee"] == 95.0
    assert (
        out["total"] == 49 * 4 + 100 + 95
        and out["status"] == "reserved"
        and out["return_date"] == "2026-07-05"
    )
    for i in range(4):
        key = {"location_id": loc, "class_id": "CCAR", "day": _plus("2026-07-01", i)}
        assert (
            row(after, "car_availability", **key)["cars_booked"]
            == row(before, "car_availability", **key)["cars_booked"] + 1
        )
    (payment,) = new_rows(before, after, "payments")
    assert payment["amount_cents"] == out["total"] * 100 and payment["car_rental_id"] == out["rental_id"]


def test_gold_members_pay_no_one_way_fee(desk, seed):
    gold = seed.traveler(lambda t: t["tier"] == "gold" and _age(t["date_of_birth"], "2026-07-01") >= 25)
    loc = _free_car(seed, "2026-07-02", 2, "SFAR")
    other = next(x["location_id"] for x in seed.state["rental_locations"] if x["location_id"] != loc)
    out, _, _ = desk.ok(
        "book_car_rental",
        traveler_id=gold["traveler_id"],
        class_id="SFAR",
        pickup_location_id=loc,
        dropoff_location_id=other,
        pickup_date="2026-07-02",
        days=2,
        payment_method_id=seed.card(gold["traveler_id"]),
    )
    assert out["one_way_fee"] == 0 and out["young_driver_fee"] == 0 and out["total"] == 158.0


def test_cancel_car_rental_rules(desk, seed):
    for status in ("picked_up", "returned", "cancelled"):
        r = seed.rental(status=status)
        desk.refused("cancel_car_rental", "only reserved rentals", rental_id=r["rental_id"])
    r = seed.rental(lambda r: r["pickup_date"] > TODAY, status="reserved")
    desk.sql(
        "UPDATE car_rentals SET pickup_date = ?, return_date = ? WHERE rental_id = ?",
        (TODAY, _plus(TODAY, r["days"]), r["rental_id"]),
    )
    desk.refused("cancel_car_rental", "before the pick-up day", rental_id=r["rental_id"])


def test_cancelling_a_trip_car_refunds_it_and_lowers_the_trip_total(desk, seed):
    trip = seed.trip(lambda t: t["car_rental_id"] is not None, status="planned")
    rental = next(r for r in seed.state["car_rentals"] if r["rental_id"] == trip["car_rental_id"])
    out, before, after = desk.ok("cancel_car_rental", rental_id=rental["rental_id"])
    assert out["refunded"] == rental["total_cents"] / 100 and out["rental"]["status"] == "cancelled"
    assert out["rental"]["trip_id"] is None
    stored = row(after, "trips", trip_id=trip["trip_id"])
    assert (
        stored["car_rental_id"] is None
        and stored["total_cents"] == trip["total_cents"] - rental["total_cents"]
    )
    key = {
        "location_id": rental["pickup_location_id"],
        "class_id": rental["class_id"],
        "day": rental["pickup_date"],
    }
    assert (
        row(after, "car_availability", **key)["cars_booked"]
        == row(before, "car_availability", **key)["cars_booked"] - 1
    )


# --------------------------------------------------------------------------- trips


def test_add_car_to_trip_rules(desk, seed):
    for status in ("in_progress", "completed", "cancelled"):
        t = seed.trip(status=status)
        own = [
            x
            for x in seed.state["car_rentals"]
            if x["status"] == "reserved" and x["traveler_id"] == t["traveler_id"]
        ]
        r = own[0] if own else seed.rental(status="reserved")
        desk.refused(
            "add_car_rental_to_trip",
            "only be added to a planned trip",
            trip_id=t["trip_id"],
            rental_id=r["rental_id"],
        )
    with_car = seed.trip(lambda t: t["car_rental_id"] is not None, status="planned")
    free = seed.rental(lambda r: r["rental_id"] not in seed.trip_of_rental, status="reserved")
    desk.refused(
        "add_car_rental_to_trip",
        "already has car rental",
        trip_id=with_car["trip_id"],
        rental_id=free["rental_id"],
    )
    bare = seed.trip(lambda t: t["car_rental_id"] is None, status="planned")
    stranger = seed.rental(lambda r: r["traveler_id"] != bare["traveler_id"], status="reserved")
    desk.refused(
        "add_car_rental_to_trip", "another traveler", trip_id=bare["trip_id"], rental_id=stranger["rental_id"]
    )
    mine = next(
        (
            r
            for r in seed.state["car_rentals"]
            if r["traveler_id"] == bare["traveler_id"] and r["status"] != "reserved"
        ),
        None,
    )
    if mine is None:
        mine = seed.rental(lambda r: r["rental_id"] not in seed.trip_of_rental, status="returned")
        desk.sql(
            "UPDATE car_rentals SET traveler_id = ? WHERE rental_id = ?",
            (bare["traveler_id"], mine["rental_id"]),
        )
    desk.refused(
        "add_car_rental_to_trip",
        "only reserved rentals",
        trip_id=bare["trip_id"],
        rental_id=mine["rental_id"],
    )
    taken = seed.trip_of_rental[with_car["car_rental_id"]]
    desk.sql(
        "UPDATE car_rentals SET traveler_id = ? WHERE rental_id = ?",
        (bare["traveler_id"], with_car["car_rental_id"]),
    )
    desk.refused(
        "add_car_rental_to_trip",
        f"already part of trip {taken['trip_id']}",
        trip_id=bare["trip_id"],
        rental_id=with_car["car_rental_id"],
    )


def _loose_pair(seed: Seed) -> tuple[dict, dict]:
    """A planned trip without a car and a reserved rental of the same traveler for its stay."""
    locations = {x["location_id"]: x for x in seed.state["rental_locations"]}
    bookings = {b["booking_id"]: b for b in seed.state["hotel_bookings"]}
    for t in seed.state["trips"]:
        if t["status"] != "planned" or t["car_rental_id"] is not None:
            continue
        hotel = bookings[t["hotel_booking_id"]]
        city = seed.hotels[seed.rooms[hotel["room_type_id"]]["hotel_id"]]["city"]
        for r in seed.state["car_rentals"]:
            if (
                r["traveler_id"] == t["traveler_id"]
                and r["status"] == "reserved"
                and r["rental_id"] not in seed.trip_of_rental
                and locations[r["pickup_location_id"]]["city"] == city
                and hotel["check_in"] <= r["pickup_date"] <= hotel["check_out"]
            ):
                return t, r
    pytest.fail("the seed has no car waiting to be added to a trip")


def test_add_car_to_trip_checks_city_and_dates_then_adds_it(desk, seed):
    trip, rental = _loose_pair(seed)
    hotel = next(b for b in seed.state["hotel_bookings"] if b["booking_id"] == trip["hotel_booking_id"])
    late = _plus(hotel["check_out"], 1)
    desk.sql(
        "UPDATE car_rentals SET pickup_date = ?, return_date = ? WHERE rental_id = ?",
        (late, _plus(late, rental["days"]), rental["rental_id"]),
    )
    desk.refused(
        "add_car_rental_to_trip", "outside the stay", trip_id=trip["trip_id"], rental_id=rental["rental_id"]
    )
    desk.sql(
        "UPDATE car_rentals SET pickup_date = ?, return_date = ? WHERE rental_id = ?",
        (rental["pickup_date"], rental["return_date"], rental["rental_id"]),
    )
    elsewhere = next(
        x["location_id"]
        for x in seed.state["rental_locations"]
        if x["city"]
        != next(
            y for y in seed.state["rental_locations"] if y["location_id"] == rental["pickup_location_id"]
        )["city"]
    )
    desk.sql(
        "UPDATE car_rentals SET pickup_location_id = ? WHERE rental_id = ?", (elsewhere, rental["rental_id"])
    )
    desk.refused(
        "add_car_rental_to_trip", "is picked up in", trip_id=trip["trip_id"], rental_id=rental["rental_id"]
    )
    desk.sql(
        "UPDATE car_rentals SET pickup_location_id = ? WHERE rental_id = ?",
        (rental["pickup_location_id"], rental["rental_id"]),
    )
    out, _, after = desk.ok("add_car_rental_to_trip", trip_id=trip["trip_id"], rental_id=rental["rental_id"])
    assert out["car_rental_id"] == rental["rental_id"] and out["car_status"] == "reserved"
    assert out["total"] == (trip["total_cents"] + rental["total_cents"]) / 100
    assert (
        row(after, "trips", trip_id=trip["trip_id"])["total_cents"]
        == trip["total_cents"] + rental["total_cents"]
    )


def test_flight_locator_rules(desk, seed):
    for status in ("in_progress", "completed", "cancelled"):
        t = seed.trip(status=status)
        desk.refused(
            "set_flight_locator",
            "only be recorded on a planned trip",
            trip_id=t["trip_id"],
            flight_locator="K7XQ2M",
        )
    t = seed.trip(lambda t: t["flight_locator"] is not None, status="planned")
    desk.refused(
        "set_flight_locator",
        "already carries",
        trip_id=t["trip_id"],
        flight_locator=t["flight_locator"].lower(),
    )
    out, _, after = desk.ok("set_flight_locator", trip_id=t["trip_id"], flight_locator="zp4tra")
    assert out["flight_locator"] == "ZP4TRA"
    assert row(after, "trips", trip_id=t["trip_id"])["flight_locator"] == "ZP4TRA"


def test_cancel_trip_rules(desk, seed):
    for status in ("in_progress", "completed", "cancelled"):
        t = seed.trip(status=status)
        desk.refused("cancel_trip", "only planned trips", trip_id=t["trip_id"])
    bookings = {b["booking_id"]: b for b in seed.state["hotel_bookings"]}
    nr = seed.trip(
        lambda t: bookings[t["hotel_booking_id"]]["rate_type"] == "non_refundable", status="planned"
    )
    desk.refused("cancel_trip", "non-refundable", trip_id=nr["trip_id"])


def test_cancel_trip_cancels_stay_and_car(desk, seed):
    bookings = {b["booking_id"]: b for b in seed.state["hotel_bookings"]}
    trip = seed.trip(
        lambda t: (
            t["car_rental_id"] is not None
            and bookings[t["hotel_booking_id"]]["rate_type"] == "refundable"
            and seed.deadline(bookings[t["hotel_booking_id"]]) >= TODAY
        ),
        status="planned",
    )
    hotel = bookings[trip["hotel_booking_id"]]
    rental = next(r for r in seed.state["car_rentals"] if r["rental_id"] == trip["car_rental_id"])
    out, before, after = desk.ok("cancel_trip", trip_id=trip["trip_id"])
    assert out["fee"] == 0 and out["refunded"] == (hotel["total_cents"] + rental["total_cents"]) / 100
    assert out["trip"]["status"] == "cancelled" and out["trip"]["total"] == 0
    assert row(after, "hotel_bookings", booking_id=hotel["booking_id"])["status"] == "cancelled"
    assert row(after, "car_rentals", rental_id=rental["rental_id"])["status"] == "cancelled"
    assert (
        sum(r["amount_cents"] for r in new_rows(before, after, "refunds"))
        == hotel["total_cents"] + rental["total_cents"]
    )


def test_calculate_and_transfer(desk):
    out, _, _ = desk.ok("calculate", expression="189 * 3 - 50")
    assert out["result"] == 517.0
    desk.refused("calculate", "only numbers", expression="__import__('os')")
    out, _, _ = desk.ok("transfer_to_human_agents", summary="Wants a flight booked.")
    assert out["transferred"] is True


def test_hotel_details_and_impossible_dates(desk, seed):
    out, _, _ = desk.ok("get_hotel_details", hotel_id="htl_0005")
    assert out["city"] == "Austin" and out["free_cancellation_days"] == 7
    rates = [r["refundable_rate"] for r in out["room_types"]]
    assert rates == sorted(rates) and len(rates) == 3
    desk.refused("get_hotel_details", "htl_0999 not found", hotel_id="htl_0999")
    room = seed.state["room_types"][0]["room_type_id"]
    desk.refused(
        "check_room_availability", "written yyyy-mm-dd", room_type_id=room, check_in="2026-02-30", nights=1
    )
    traveler = seed.traveler(lambda t: _age(t["date_of_birth"], "2026-07-01") >= 30)
    tid = traveler["traveler_id"]
    args = {"traveler_id": tid, "pickup_date": "2026-07-01", "days": 2, "payment_method_id": seed.card(tid)}
    desk.refused(
        "book_car_rental",
        "car class limo not found",
        class_id="LIMO",
        pickup_location_id="DEN-APT",
        dropoff_location_id="DEN-APT",
        **args,
    )
    desk.refused(
        "book_car_rental",
        "location xyz-abc not found",
        class_id="ECAR",
        pickup_location_id="DEN-APT",
        dropoff_location_id="XYZ-ABC",
        **args,
    )


def test_a_longer_stay_needs_a_card_to_charge(desk, seed):
    b = _changeable(seed, in_trip=False)
    v = next(
        (v for v in seed.state["vouchers"] if v["traveler_id"] == b["traveler_id"]), seed.state["vouchers"][0]
    )
    desk.sql(
        "UPDATE payments SET payment_method_id = NULL, voucher_id = ? WHERE hotel_booking_id = ?",
        (v["voucher_id"], b["booking_id"]),
    )
    desk.sql(
        "UPDATE room_nights SET rooms_total = rooms_booked + ? WHERE room_type_id = ?",
        (b["rooms"], b["room_type_id"]),
    )
    desk.refused(
        "change_hotel_dates",
        "paid without a card",
        booking_id=b["booking_id"],
        check_in=b["check_in"],
        nights=b["nights"] + 1,
    )


def test_a_longer_stay_is_not_charged_to_an_expired_card(desk, seed):
    b = _changeable(seed, in_trip=False)
    card = next(
        p["payment_method_id"]
        for p in seed.state["payments"]
        if p["hotel_booking_id"] == b["booking_id"] and p["payment_method_id"] is not None
    )
    desk.sql("UPDATE payment_methods SET expires = '2026-01' WHERE payment_method_id = ?", (card,))
    desk.sql(
        "UPDATE room_nights SET rooms_total = rooms_booked + ? WHERE room_type_id = ?",
        (b["rooms"], b["room_type_id"]),
    )
    desk.refused(
        "change_hotel_dates",
        "has expired",
        booking_id=b["booking_id"],
        check_in=b["check_in"],
        nights=b["nights"] + 1,
    )


def test_refundable_booking_shows_its_free_cancellation_day(desk, seed):
    traveler = seed.traveler(lambda t: t["tier"] == "silver")
    room_id = _free_room(seed, "2026-07-06", 2, 2)
    hotel = seed.hotels[seed.rooms[room_id]["hotel_id"]]
    out, _, _ = desk.ok(
        "book_hotel",
        traveler_id=traveler["traveler_id"],
        room_type_id=room_id,
        check_in="2026-07-06",
        nights=2,
        rooms=2,
        rate_type="refundable",
        payment_method_id=seed.card(traveler["traveler_id"]),
    )
    assert out["free_cancellation_until"] == _plus("2026-07-06", -hotel["free_cancel_days"])
    assert out["paid"] == out["total"] == seed.rooms[room_id]["refundable_rate_cents"] * 4 / 100
    out, _, _ = desk.ok("cancel_hotel_booking", booking_id=out["booking_id"])
    assert out["fee"] == 0 and out["refunded"] == out["booking"]["total"]
