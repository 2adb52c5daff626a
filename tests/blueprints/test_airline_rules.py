"""Airline business rules: every rule a tool enforces is refused cleanly (state untouched),
and happy paths move seats and money exactly."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.runtime import Toolbox, dump_state, state_hash

NOW = "2026-06-01T12:00:00Z"


@pytest.fixture(scope="module")
def airline_env() -> Environment:
    return build_env(load_blueprint("airline"))


class Seed:
    """Indexes over the seed state, for finding rows that fit a test."""

    def __init__(self, state: dict[str, list[dict[str, Any]]]) -> None:
        self.state = state
        self.users = {u["user_id"]: u for u in state["users"]}
        self.flights = {f["flight_number"]: f for f in state["flights"]}
        self.dates = {(d["flight_number"], d["date"]): d for d in state["flight_dates"]}
        self.segments: dict[str, list[dict]] = defaultdict(list)
        for s in sorted(state["reservation_flights"], key=lambda s: s["segment_no"]):
            self.segments[s["reservation_id"]].append(s)
        self.count: dict[str, int] = defaultdict(int)
        for p in state["reservation_passengers"]:
            self.count[p["reservation_id"]] += 1
        self.methods: dict[str, list[dict]] = defaultdict(list)
        for m in state["payment_methods"]:
            self.methods[m["user_id"]].append(m)

    def statuses(self, rid: str) -> list[str]:
        return [self.dates[(s["flight_number"], s["date"])]["status"] for s in self.segments[rid]]

    def clean(self, r: dict) -> bool:
        """Every flight of the reservation can still be booked (none departed or cancelled)."""
        return all(s in ("scheduled", "delayed") for s in self.statuses(r["reservation_id"]))

    def flown(self, rid: str) -> bool:
        return any(s in ("departed", "landed") for s in self.statuses(rid))

    def reservation(self, want: Callable[[dict], bool]) -> dict:
        for r in self.state["reservations"]:
            if want(r):
                return r
        pytest.fail("the seed has no reservation that fits")

    def active(self, want: Callable[[dict], bool] = lambda r: True) -> dict:
        return self.reservation(
            lambda r: r["status"] == "active" and not self.flown(r["reservation_id"]) and want(r)
        )

    def recent(self, r: dict) -> bool:
        return r["created_at"] >= "2026-05-31T12:00:00Z"

    def card(self, user_id: str) -> str:
        return next(m["payment_method_id"] for m in self.methods[user_id] if m["kind"] == "credit_card")

    def paid_with(self, rid: str) -> str:
        return next(p["payment_method_id"] for p in self.state["payments"] if p["reservation_id"] == rid)

    def stranger_card(self, user_id: str) -> str:
        return next(
            m["payment_method_id"]
            for m in self.state["payment_methods"]
            if m["user_id"] != user_id and m["kind"] == "credit_card"
        )

    def alternative(self, rid: str, want: Callable[[dict], bool] = lambda d: True) -> tuple[dict, dict]:
        """(segment, flight date) of another bookable flight on the route of one of its segments."""
        for seg in self.segments[rid]:
            route = (
                self.flights[seg["flight_number"]]["origin"],
                self.flights[seg["flight_number"]]["destination"],
            )
            for d in self.state["flight_dates"]:
                f = self.flights[d["flight_number"]]
                if (f["origin"], f["destination"]) != route or (d["flight_number"], d["date"]) == (
                    seg["flight_number"],
                    seg["date"],
                ):
                    continue
                others = [s for s in self.segments[rid] if s is not seg]
                in_order = all(
                    (o["segment_no"] < seg["segment_no"] and d["date"] >= o["date"])
                    or (o["segment_no"] > seg["segment_no"] and d["date"] <= o["date"])
                    for o in others
                )
                if in_order and d["status"] in ("scheduled", "delayed") and d["date"] >= NOW[:10] and want(d):
                    return seg, d
        pytest.fail(f"no alternative flight for {rid}")


class Desk:
    """One session's database and the toolbox, with assertions around each call."""

    def __init__(self, toolbox: Toolbox, db) -> None:
        self.toolbox, self.db = toolbox, db

    def refused(self, tool: str, phrase: str, **args: Any) -> str:
        before = state_hash(self.db)
        out = self.toolbox.call(self.db, tool, args)
        assert out.ok is False, out
        assert out.internal is False, out.error
        assert out.error is not None
        assert phrase.lower() in out.error.lower(), out.error
        assert state_hash(self.db) == before
        return out.error

    def ok(self, tool: str, **args: Any) -> tuple[dict, dict, dict]:
        before = dump_state(self.db)
        out = self.toolbox.call(self.db, tool, args)
        assert out.ok and out.output is not None, out.error
        after = dump_state(self.db)
        changed = {t for t in before if before[t] != after[t]}
        assert changed <= self.toolbox.tools[tool].writes, (tool, changed)
        return out.output, before, after

    def sql(self, statement: str, params: tuple = ()) -> None:
        """Test set-up outside the tools."""
        self.db.execute(statement, params)


def moves(before: dict, after: dict) -> list[tuple]:
    old = {p["payment_id"] for p in before["payments"]}
    return sorted(
        (p["kind"], p["payment_method_id"], p["amount_cents"], p["reason"])
        for p in after["payments"]
        if p["payment_id"] not in old
    )


def balance(state: dict, method_id: str) -> int | None:
    return next(m["balance_cents"] for m in state["payment_methods"] if m["payment_method_id"] == method_id)


def seats(state: dict, flight_number: str, date: str, cabin: str) -> int:
    row = next(d for d in state["flight_dates"] if (d["flight_number"], d["date"]) == (flight_number, date))
    return row[f"seats_{cabin}"]


@pytest.fixture(scope="module")
def seed(airline_env) -> Seed:
    return Seed(airline_env.seed_state)


@pytest.fixture(scope="module")
def toolbox(airline_env) -> Toolbox:
    return airline_env.toolbox()


@pytest.fixture
def desk(airline_env, toolbox):
    session = airline_env.new_session()
    yield Desk(toolbox, session.db)
    session.close()


# --------------------------------------------------------------------------- identity and lookups


def test_find_user_and_unknown_ids(desk, seed):
    user = seed.state["users"][2]
    out, _, _ = desk.ok("find_user_id_by_email", email=user["email"].upper())
    assert out == {"user_id": user["user_id"]}
    out, _, _ = desk.ok(
        "find_user_id_by_name_dob",
        first_name=user["first_name"].lower(),
        last_name=user["last_name"],
        date_of_birth=user["date_of_birth"],
    )
    assert out == {"user_id": user["user_id"]}
    desk.refused("find_user_id_by_email", "no user found", email="nobody@nowhere.example")
    desk.refused(
        "find_user_id_by_name_dob",
        "no user found",
        first_name="No",
        last_name="Body",
        date_of_birth="1990-01-01",
    )
    desk.refused("get_user_details", "user user_999999 not found", user_id="user_999999")
    desk.refused("get_reservation_details", "reservation ZZZZZZ not found", reservation_id="ZZZZZZ")
    desk.refused("get_flight_status", "flight HAT000 not found", flight_number="HAT000", date="2026-06-03")
    flight = seed.state["flights"][0]["flight_number"]
    desk.refused("get_flight_status", "does not fly on 2027-01-01", flight_number=flight, date="2027-01-01")
    desk.refused(
        "search_direct_flights", "airport XXX not found", origin="XXX", destination="JFK", date="2026-06-03"
    )
    desk.refused("search_direct_flights", "must differ", origin="JFK", destination="JFK", date="2026-06-03")
    desk.refused("cancel_reservation", "invalid arguments", reservation_id="abc", reason="other")
    desk.refused(
        "cancel_reservation", "invalid arguments", reservation_id="ZZZZZZ", reason="found it cheaper"
    )


def test_search_and_status_show_the_schedule(desk, seed):
    d = next(d for d in seed.state["flight_dates"] if d["date"] == "2026-06-04")
    f = seed.flights[d["flight_number"]]
    out, _, _ = desk.ok(
        "search_direct_flights", origin=f["origin"], destination=f["destination"], date=d["date"]
    )
    found = next(x for x in out["flights"] if x["flight_number"] == d["flight_number"])
    assert found["prices"]["economy"] == d["price_economy_cents"] / 100
    assert found["seats"]["business"] == d["seats_business"]
    out, _, _ = desk.ok("get_flight_status", flight_number=d["flight_number"], date=d["date"])
    assert out["status"] == d["status"] and out["origin"] == f["origin"]


# --------------------------------------------------------------------------- cancellation


def test_cancel_refused_unless_active(desk, seed):
    for status in ("cancelled", "completed"):
        r = seed.reservation(lambda r, s=status: r["status"] == s)
        desk.refused(
            "cancel_reservation",
            "only active reservations can be cancelled",
            reservation_id=r["reservation_id"],
            reason="change of plans",
        )


def test_cancel_refused_once_a_flight_departed(desk, seed):
    r = seed.reservation(lambda r: r["status"] == "active" and seed.flown(r["reservation_id"]))
    desk.refused(
        "cancel_reservation", "cannot be cancelled", reservation_id=r["reservation_id"], reason="health"
    )


def test_cancel_refused_without_an_eligible_reason(desk, seed):
    def plain(r: dict) -> bool:
        return (
            r["cabin"] != "business"
            and not seed.recent(r)
            and "cancelled" not in seed.statuses(r["reservation_id"])
        )

    r = seed.active(lambda r: plain(r) and not r["insurance"])
    desk.refused(
        "cancel_reservation", "it has no insurance", reservation_id=r["reservation_id"], reason="health"
    )
    insured = seed.active(lambda r: plain(r) and r["insurance"])
    desk.refused(
        "cancel_reservation",
        "covers only health or weather",
        reservation_id=insured["reservation_id"],
        reason="other",
    )
    desk.refused(
        "cancel_reservation",
        "none of the flights",
        reservation_id=r["reservation_id"],
        reason="airline cancelled flight",
    )


def test_cancel_allowed_for_each_eligibility(desk, seed):
    recent = seed.active(lambda r: seed.recent(r) and r["cabin"] != "business")
    business = seed.active(lambda r: r["cabin"] == "business" and not seed.recent(r))
    insured = seed.active(lambda r: r["insurance"] and not seed.recent(r) and r["cabin"] != "business")
    airline = seed.active(lambda r: "cancelled" in seed.statuses(r["reservation_id"]))
    for r, reason in (
        (recent, "change of plans"),
        (business, "other"),
        (insured, "weather"),
        (airline, "airline cancelled flight"),
    ):
        rid = r["reservation_id"]
        out, before, after = desk.ok("cancel_reservation", reservation_id=rid, reason=reason)
        assert out["status"] == "cancelled" and out["cancel_reason"] == reason
        assert out["totals"]["net_paid"] == 0
        paid = sum(p["amount_cents"] for p in before["payments"] if p["reservation_id"] == rid)
        assert moves(before, after) == [("refund", seed.paid_with(rid), paid, "cancellation")]
        seg = seed.segments[rid][0]
        n = seed.count[rid]
        cabin = r["cabin"]
        assert (
            seats(after, seg["flight_number"], seg["date"], cabin)
            == seats(before, seg["flight_number"], seg["date"], cabin) + n
        )


def test_cancel_restores_a_gift_card(desk, seed):
    r = next(
        (
            r
            for r in seed.state["reservations"]
            if r["status"] == "active"
            and not seed.flown(r["reservation_id"])
            and r["cabin"] == "business"
            and not seed.paid_with(r["reservation_id"]).startswith("credit_card")
        ),
        None,
    )
    assert r is not None, "the seed changed: no business reservation paid by a balance"
    rid, method = r["reservation_id"], seed.paid_with(r["reservation_id"])
    _, before, after = desk.ok("cancel_reservation", reservation_id=rid, reason="other")
    paid = sum(p["amount_cents"] for p in before["payments"] if p["reservation_id"] == rid)
    assert balance(after, method) == balance(before, method) + paid


# --------------------------------------------------------------------------- cabin


def test_cabin_change_rules(desk, seed):
    done = seed.reservation(lambda r: r["status"] == "completed")
    desk.refused(
        "update_reservation_cabin",
        "only active reservations can change cabin",
        reservation_id=done["reservation_id"],
        cabin="business",
        payment_method_id=seed.card(done["user_id"]),
    )
    flown = seed.reservation(lambda r: r["status"] == "active" and seed.flown(r["reservation_id"]))
    desk.refused(
        "update_reservation_cabin",
        "departed flight",
        reservation_id=flown["reservation_id"],
        cabin="business" if flown["cabin"] != "business" else "economy",
        payment_method_id=seed.card(flown["user_id"]),
    )
    r = seed.active(lambda r: r["cabin"] == "economy" and seed.clean(r))
    rid, card = r["reservation_id"], seed.card(r["user_id"])
    desk.refused(
        "update_reservation_cabin",
        "already in economy",
        reservation_id=rid,
        cabin="economy",
        payment_method_id=card,
    )
    desk.refused(
        "update_reservation_cabin",
        "does not belong",
        reservation_id=rid,
        cabin="business",
        payment_method_id=seed.stranger_card(r["user_id"]),
    )
    seg = seed.segments[rid][-1]
    desk.sql(
        "UPDATE flight_dates SET seats_business = 0 WHERE flight_number = ? AND date = ?",
        (seg["flight_number"], seg["date"]),
    )
    desk.refused(
        "update_reservation_cabin",
        "seat(s) left in business",
        reservation_id=rid,
        cabin="business",
        payment_method_id=card,
    )


def test_cabin_upgrade_charges_every_segment_and_downgrade_refunds(desk, seed):
    r = seed.active(lambda r: r["cabin"] == "economy" and r["trip_type"] == "round_trip" and seed.clean(r))
    rid, card, n = r["reservation_id"], seed.paid_with(r["reservation_id"]), seed.count[r["reservation_id"]]
    for seg in seed.segments[rid]:
        desk.sql(
            "UPDATE flight_dates SET seats_business = 9 WHERE flight_number = ? AND date = ?",
            (seg["flight_number"], seg["date"]),
        )
    diff = sum(
        (seed.dates[(s["flight_number"], s["date"])]["price_business_cents"] - s["price_cents"]) * n
        for s in seed.segments[rid]
    )
    out, before, after = desk.ok(
        "update_reservation_cabin", reservation_id=rid, cabin="business", payment_method_id=card
    )
    assert out["cabin"] == "business"
    assert len(out["flights"]) == 2
    assert moves(before, after) == [("payment", card, diff, "cabin_change")]
    for seg in seed.segments[rid]:
        assert seats(after, seg["flight_number"], seg["date"], "business") == 9 - n
    # Back to basic economy: cheaper, refunded to the card that paid; a balance card that never paid is refused.
    gift = next((m for m in seed.methods[r["user_id"]] if m["kind"] != "credit_card"), None)
    if gift is not None:
        desk.refused(
            "update_reservation_cabin",
            "is a refund",
            reservation_id=rid,
            cabin="basic_economy",
            payment_method_id=gift["payment_method_id"],
        )


def test_cabin_change_needs_a_balance_that_covers_it(desk, seed):
    r = seed.active(
        lambda r: (
            r["cabin"] == "basic_economy"
            and seed.clean(r)
            and any(m["kind"] == "gift_card" for m in seed.methods[r["user_id"]])
        )
    )
    gift = next(m for m in seed.methods[r["user_id"]] if m["kind"] == "gift_card")
    desk.sql(
        "UPDATE payment_methods SET balance_cents = 100 WHERE payment_method_id = ?",
        (gift["payment_method_id"],),
    )
    for seg in seed.segments[r["reservation_id"]]:
        desk.sql(
            "UPDATE flight_dates SET seats_economy = 9 WHERE flight_number = ? AND date = ?",
            (seg["flight_number"], seg["date"]),
        )
    desk.refused(
        "update_reservation_cabin",
        "does not cover",
        reservation_id=r["reservation_id"],
        cabin="economy",
        payment_method_id=gift["payment_method_id"],
    )


# --------------------------------------------------------------------------- flight changes


def test_flight_change_rules(desk, seed):
    basic = seed.active(lambda r: r["cabin"] == "basic_economy")
    _, alt = seed.alternative(basic["reservation_id"])
    desk.refused(
        "change_reservation_flight",
        "basic economy flights cannot be changed",
        reservation_id=basic["reservation_id"],
        flight_number=alt["flight_number"],
        date=alt["date"],
        payment_method_id=seed.card(basic["user_id"]),
    )
    cancelled = seed.reservation(lambda r: r["status"] == "cancelled" and r["cabin"] != "basic_economy")
    desk.refused(
        "change_reservation_flight",
        "only active reservations can have flights changed",
        reservation_id=cancelled["reservation_id"],
        flight_number=seed.segments[cancelled["reservation_id"]][0]["flight_number"],
        date="2026-06-05",
        payment_method_id=seed.card(cancelled["user_id"]),
    )
    r = seed.active(lambda r: r["cabin"] != "basic_economy" and r["trip_type"] == "round_trip")
    rid, card = r["reservation_id"], seed.card(r["user_id"])
    first, second = seed.segments[rid]
    desk.refused(
        "change_reservation_flight",
        "already on flight",
        reservation_id=rid,
        flight_number=first["flight_number"],
        date=first["date"],
        payment_method_id=card,
    )
    wrong = next(
        f
        for f in seed.state["flights"]
        if (f["origin"], f["destination"])
        not in {(r["origin"], r["destination"]), (r["destination"], r["origin"])}
    )
    desk.refused(
        "change_reservation_flight",
        "same route",
        reservation_id=rid,
        flight_number=wrong["flight_number"],
        date="2026-06-05",
        payment_method_id=card,
    )
    late = "2026-06-07" if second["date"] < "2026-06-07" else None
    if late is not None:
        desk.refused(
            "change_reservation_flight",
            "out of travel order",
            reservation_id=rid,
            flight_number=first["flight_number"],
            date=late,
            payment_method_id=card,
        )
    desk.refused(
        "change_reservation_flight",
        "does not fly on",
        reservation_id=rid,
        flight_number=first["flight_number"],
        date="2027-01-01",
        payment_method_id=card,
    )
    _, alt = seed.alternative(rid)
    key = (alt["flight_number"], alt["date"])
    desk.sql("UPDATE flight_dates SET status = 'cancelled' WHERE flight_number = ? AND date = ?", key)
    desk.refused(
        "change_reservation_flight",
        "is cancelled and cannot be booked",
        reservation_id=rid,
        flight_number=alt["flight_number"],
        date=alt["date"],
        payment_method_id=card,
    )
    desk.sql(
        "UPDATE flight_dates SET status = 'scheduled', seats_{} = 0 WHERE flight_number = ? AND date = ?".format(
            r["cabin"]
        ),
        key,
    )
    desk.refused(
        "change_reservation_flight",
        "not enough for",
        reservation_id=rid,
        flight_number=alt["flight_number"],
        date=alt["date"],
        payment_method_id=card,
    )


def test_flight_change_refused_for_a_departed_segment(desk, seed):
    r = seed.reservation(
        lambda r: (
            r["status"] == "active"
            and r["cabin"] != "basic_economy"
            and seed.statuses(r["reservation_id"])[0] in ("landed", "departed")
        )
    )
    seg = seed.segments[r["reservation_id"]][0]
    desk.refused(
        "change_reservation_flight",
        "cannot be changed",
        reservation_id=r["reservation_id"],
        flight_number=seg["flight_number"],
        date="2026-06-06",
        payment_method_id=seed.card(r["user_id"]),
    )


def test_flight_change_moves_seats_and_settles_the_fare(desk, seed):
    r = seed.active(lambda r: r["cabin"] != "basic_economy")
    rid, card, n, cabin = (
        r["reservation_id"],
        seed.paid_with(r["reservation_id"]),
        seed.count[r["reservation_id"]],
        r["cabin"],
    )
    seg, alt = seed.alternative(rid, lambda d: d[f"seats_{cabin}"] >= n)
    fare = alt[f"price_{cabin}_cents"]
    diff = (fare - seg["price_cents"]) * n
    out, before, after = desk.ok(
        "change_reservation_flight",
        reservation_id=rid,
        flight_number=alt["flight_number"],
        date=alt["date"],
        payment_method_id=card,
    )
    changed = out["flights"][seg["segment_no"] - 1]
    assert (changed["flight_number"], changed["date"], changed["price"]) == (
        alt["flight_number"],
        alt["date"],
        fare / 100,
    )
    kind = "payment" if diff > 0 else "refund"
    assert moves(before, after) == ([(kind, card, abs(diff), "flight_change")] if diff else [])
    assert seats(after, alt["flight_number"], alt["date"], cabin) == alt[f"seats_{cabin}"] - n
    assert (
        seats(after, seg["flight_number"], seg["date"], cabin)
        == seats(before, seg["flight_number"], seg["date"], cabin) + n
    )


# --------------------------------------------------------------------------- bags and insurance


def test_bag_rules_and_fees_by_tier(desk, seed):
    r = seed.active(lambda r: r["total_bags"] >= 1 and seed.count[r["reservation_id"]] <= 2)
    rid, card, n = r["reservation_id"], seed.card(r["user_id"]), seed.count[r["reservation_id"]]
    desk.refused(
        "update_reservation_bags",
        "not removed",
        reservation_id=rid,
        total_bags=r["total_bags"] - 1,
        payment_method_id=card,
    )
    desk.refused(
        "update_reservation_bags",
        "already has",
        reservation_id=rid,
        total_bags=r["total_bags"],
        payment_method_id=card,
    )
    desk.refused(
        "update_reservation_bags",
        "at most 4 checked bags",
        reservation_id=rid,
        total_bags=4 * n + 1,
        payment_method_id=card,
    )
    done = seed.reservation(lambda r: r["status"] == "cancelled")
    desk.refused(
        "update_reservation_bags",
        "only active reservations can have bags added",
        reservation_id=done["reservation_id"],
        total_bags=done["total_bags"] + 1,
        payment_method_id=seed.card(done["user_id"]),
    )
    free = {
        "regular": {"basic_economy": 0, "economy": 1, "business": 2},
        "silver": {"basic_economy": 1, "economy": 2, "business": 3},
        "gold": {"basic_economy": 2, "economy": 3, "business": 4},
    }
    allowance = free[seed.users[r["user_id"]]["membership"]][r["cabin"]] * n
    target = 4 * n
    extra = max(r["nonfree_bags"], target - allowance) - r["nonfree_bags"]
    out, before, after = desk.ok(
        "update_reservation_bags", reservation_id=rid, total_bags=target, payment_method_id=card
    )
    assert out["total_bags"] == target and out["nonfree_bags"] == r["nonfree_bags"] + extra
    assert moves(before, after) == ([("payment", card, extra * 5000, "baggage")] if extra else [])


def test_insurance_rules(desk, seed):
    old = seed.active(lambda r: not r["insurance"] and not seed.recent(r))
    desk.refused(
        "add_travel_insurance",
        "within 24 hours",
        reservation_id=old["reservation_id"],
        payment_method_id=seed.card(old["user_id"]),
    )
    insured = seed.active(lambda r: r["insurance"])
    desk.refused(
        "add_travel_insurance",
        "already has travel insurance",
        reservation_id=insured["reservation_id"],
        payment_method_id=seed.card(insured["user_id"]),
    )
    done = seed.reservation(lambda r: r["status"] == "completed")
    desk.refused(
        "add_travel_insurance",
        "only active reservations can have insurance added",
        reservation_id=done["reservation_id"],
        payment_method_id=seed.card(done["user_id"]),
    )
    r = seed.active(lambda r: not r["insurance"] and seed.recent(r))
    rid, card = r["reservation_id"], seed.card(r["user_id"])
    out, before, after = desk.ok("add_travel_insurance", reservation_id=rid, payment_method_id=card)
    assert out["insurance"] is True
    assert moves(before, after) == [("payment", card, 3000 * seed.count[rid], "insurance")]


# --------------------------------------------------------------------------- compensation


def test_compensation_rules(desk, seed):
    def disrupted(r: dict) -> bool:
        return any(s in ("delayed", "cancelled") for s in seed.statuses(r["reservation_id"]))

    regular = seed.reservation(lambda r: disrupted(r) and seed.users[r["user_id"]]["membership"] == "regular")
    desk.refused(
        "issue_compensation_certificate",
        "only for silver and gold members",
        user_id=regular["user_id"],
        reservation_id=regular["reservation_id"],
    )
    member = seed.reservation(
        lambda r: (
            disrupted(r) and not r["compensated"] and seed.users[r["user_id"]]["membership"] != "regular"
        )
    )
    smooth = seed.reservation(
        lambda r: not disrupted(r) and seed.users[r["user_id"]]["membership"] != "regular"
    )
    desk.refused(
        "issue_compensation_certificate",
        "no compensation is due",
        user_id=smooth["user_id"],
        reservation_id=smooth["reservation_id"],
    )
    other = next(u for u in seed.users if u != member["user_id"] and seed.users[u]["membership"] != "regular")
    desk.refused(
        "issue_compensation_certificate",
        "does not belong",
        user_id=other,
        reservation_id=member["reservation_id"],
    )
    out, _, after = desk.ok(
        "issue_compensation_certificate", user_id=member["user_id"], reservation_id=member["reservation_id"]
    )
    cause = "cancelled" if "cancelled" in seed.statuses(member["reservation_id"]) else "delayed"
    per = 10000 if cause == "cancelled" else 5000
    assert out["cause"] == cause and out["amount"] == per * seed.count[member["reservation_id"]] / 100
    assert balance(after, out["certificate_id"]) == per * seed.count[member["reservation_id"]]
    desk.refused(
        "issue_compensation_certificate",
        "already issued",
        user_id=member["user_id"],
        reservation_id=member["reservation_id"],
    )


# --------------------------------------------------------------------------- booking


def _bookable(seed: Seed, cabin: str = "economy", n: int = 1, day: str = "2026-06-04") -> dict:
    return next(
        d
        for d in seed.state["flight_dates"]
        if d["date"] == day and d["status"] == "scheduled" and d[f"seats_{cabin}"] >= n
    )


def _back(seed: Seed, out: dict, day: str = "2026-06-06") -> dict:
    f = seed.flights[out["flight_number"]]
    return next(
        d
        for d in seed.state["flight_dates"]
        if d["date"] == day
        and d["status"] == "scheduled"
        and (seed.flights[d["flight_number"]]["origin"], seed.flights[d["flight_number"]]["destination"])
        == (f["destination"], f["origin"])
    )


def _saved(seed: Seed, user_id: str) -> list[str]:
    return [p["passenger_id"] for p in seed.state["saved_passengers"] if p["user_id"] == user_id]


def test_booking_rules(desk, seed):
    user = next(u for u in seed.state["users"] if u["membership"] == "regular")
    card = seed.card(user["user_id"])
    out = _bookable(seed)
    base = {
        "flight_number": out["flight_number"],
        "date": out["date"],
        "cabin": "economy",
        "passenger_ids": _saved(seed, user["user_id"])[:1],
        "payment_method_id": card,
        "total_bags": 0,
        "insurance": "no",
    }
    six = [p["passenger_id"] for p in seed.state["saved_passengers"]][:6]
    desk.refused("book_reservation", "at most 5 passengers", **{**base, "passenger_ids": six})
    stranger = next(
        p["passenger_id"] for p in seed.state["saved_passengers"] if p["user_id"] != user["user_id"]
    )
    desk.refused(
        "book_reservation", "only the user's saved passengers", **{**base, "passenger_ids": [stranger]}
    )
    desk.refused("book_reservation", "pax_999999 not found", **{**base, "passenger_ids": ["pax_999999"]})
    desk.refused("book_reservation", "needs both", **{**base, "return_flight_number": out["flight_number"]})
    desk.refused(
        "book_reservation",
        "not back from",
        **{**base, "return_flight_number": out["flight_number"], "return_date": "2026-06-06"},
    )
    back = _back(seed, out, "2026-06-02")
    desk.refused(
        "book_reservation",
        "must not depart before",
        **{**base, "return_flight_number": back["flight_number"], "return_date": back["date"]},
    )
    landed = next(d for d in seed.state["flight_dates"] if d["status"] == "landed")
    desk.refused(
        "book_reservation",
        "is landed and cannot be booked",
        **{**base, "flight_number": landed["flight_number"], "date": landed["date"]},
    )
    desk.refused("book_reservation", "at most 4 checked bags", **{**base, "total_bags": 5})
    desk.refused(
        "book_reservation",
        "credit_card_999999 not found",
        **{**base, "payment_method_id": "credit_card_999999"},
    )
    full = next(
        d for d in seed.state["flight_dates"] if d["status"] == "scheduled" and d["seats_business"] == 0
    )
    desk.refused(
        "book_reservation",
        "seat(s) left in business",
        **{**base, "flight_number": full["flight_number"], "date": full["date"], "cabin": "business"},
    )
    # A flight of a past date still listed as scheduled (set up by hand) is still refused.
    desk.sql(
        "UPDATE flight_dates SET status = 'scheduled' WHERE flight_number = ? AND date = ?",
        (landed["flight_number"], landed["date"]),
    )
    desk.refused(
        "book_reservation",
        "in the past",
        **{**base, "flight_number": landed["flight_number"], "date": landed["date"]},
    )


def test_booking_a_round_trip_charges_fares_bags_and_insurance(desk, seed):
    user = next(
        u for u in seed.state["users"] if u["membership"] == "silver" and len(_saved(seed, u["user_id"])) >= 2
    )
    card = seed.card(user["user_id"])
    out = _bookable(seed, "economy", 2)
    back = _back(seed, out)
    desk.sql(
        "UPDATE flight_dates SET seats_economy = 5 WHERE flight_number = ? AND date = ?",
        (back["flight_number"], back["date"]),
    )
    passengers = _saved(seed, user["user_id"])[:2]
    result, before, after = desk.ok(
        "book_reservation",
        flight_number=out["flight_number"],
        date=out["date"],
        return_flight_number=back["flight_number"],
        return_date=back["date"],
        cabin="economy",
        passenger_ids=passengers,
        payment_method_id=card,
        total_bags=6,
        insurance="yes",
    )
    fares = (out["price_economy_cents"] + back["price_economy_cents"]) * 2
    nonfree = 6 - 2 * 2  # silver: two free bags per passenger in economy
    total = fares + nonfree * 5000 + 2 * 3000
    assert result["trip_type"] == "round_trip" and result["user_id"] == user["user_id"]
    assert result["reservation_id"] == "N00001" and result["nonfree_bags"] == nonfree
    assert moves(before, after) == [("payment", card, total, "booking")]
    assert seats(after, back["flight_number"], back["date"], "economy") == 3
    gift = next((m for m in seed.state["payment_methods"] if m["kind"] == "gift_card"), None)
    assert gift is not None
    booked = [p["first_name"] for p in result["passengers"]]
    assert booked == [
        p["first_name"] for p in seed.state["saved_passengers"] if p["passenger_id"] in passengers
    ]
    desk.sql(
        "UPDATE payment_methods SET balance_cents = 100 WHERE payment_method_id = ?",
        (gift["payment_method_id"],),
    )
    desk.refused(
        "book_reservation",
        "does not cover",
        flight_number=out["flight_number"],
        date=out["date"],
        cabin="economy",
        passenger_ids=_saved(seed, gift["user_id"])[:1],
        payment_method_id=gift["payment_method_id"],
        total_bags=0,
        insurance="no",
    )


def test_calculator(desk):
    out, _, _ = desk.ok("calculate", expression="(389.99 - 212.5) * 2")
    assert out["result"] == 354.98
    desk.refused("calculate", "only numbers", expression="__import__('os')")
    desk.refused("calculate", "division by zero", expression="1/0")


def test_cabin_change_refused_when_the_airline_cancelled_a_flight(desk, seed):
    r = seed.active(lambda r: "cancelled" in seed.statuses(r["reservation_id"]) and r["cabin"] != "business")
    desk.refused(
        "update_reservation_cabin",
        "is cancelled and cannot be booked",
        reservation_id=r["reservation_id"],
        cabin="business",
        payment_method_id=seed.card(r["user_id"]),
    )


def test_bags_refused_once_a_flight_departed(desk, seed):
    r = seed.reservation(lambda r: r["status"] == "active" and seed.flown(r["reservation_id"]))
    desk.refused(
        "update_reservation_bags",
        "cannot have bags added",
        reservation_id=r["reservation_id"],
        total_bags=r["total_bags"] + 1,
        payment_method_id=seed.card(r["user_id"]),
    )


def test_name_and_birthday_shared_by_two_users_is_ambiguous(desk, seed):
    user = seed.state["users"][0]
    desk.sql(
        "INSERT INTO users (user_id, first_name, last_name, email, date_of_birth, membership) "
        "VALUES ('user_999998', ?, ?, 'twin@example.com', ?, 'regular')",
        (user["first_name"], user["last_name"], user["date_of_birth"]),
    )
    desk.refused(
        "find_user_id_by_name_dob",
        "several users match",
        first_name=user["first_name"],
        last_name=user["last_name"],
        date_of_birth=user["date_of_birth"],
    )
