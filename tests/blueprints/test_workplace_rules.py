"""Workplace business rules: every rule a tool enforces is refused cleanly (state untouched), and the
happy paths change exactly what they should (dates and times from the fixed clock)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.runtime import Toolbox, dump_state, state_hash
from envfactory_mcp.spec.policy import RefusalRule

TODAY = datetime.date(2026, 6, 17)
NOW = "2026-06-17T14:00:00Z"
FREE_DAY = "2026-07-21"  # a Tuesday after the last seeded event
DOMAIN = "acmecorp.example"

# --------------------------------------------------------------------------- helpers


class Seed:
    """Indexes over the seed state, for finding rows that fit a test."""

    def __init__(self, state: dict[str, list[dict[str, Any]]]) -> None:
        self.state = state
        self.employees = {e["employee_id"]: e for e in state["employees"]}
        self.by_email = {e["email"]: e for e in state["employees"]}
        self.events = {e["event_id"]: e for e in state["events"]}
        self.rooms = {r["room_id"]: r for r in state["rooms"]}
        self.projects = {p["project_id"]: p for p in state["projects"]}
        self.attendees: dict[str, list[dict]] = {}
        for a in state["event_attendees"]:
            self.attendees.setdefault(a["event_id"], []).append(a)
        self.members: dict[str, list[str]] = {}
        for m in state["project_members"]:
            self.members.setdefault(m["project_id"], []).append(m["employee_id"])
        self.open_tasks: dict[str, int] = {}
        for t in state["tasks"]:
            if t["status"] in ("todo", "in_progress", "blocked"):
                self.open_tasks[t["assignee_id"]] = self.open_tasks.get(t["assignee_id"], 0) + 1

    def first(self, table: str, want, what: str) -> dict:
        found = next((r for r in self.state[table] if want(r)), None)
        if found is None:
            pytest.fail(f"the seed has no {what}")
        return found

    def employee(self, want=lambda e: True) -> dict:
        return self.first("employees", want, "employee that fits")

    def colleague_of(self, person: dict, want=lambda e: True) -> dict:
        return self.employee(
            lambda e: (
                e["employee_id"] != person["employee_id"]
                and e["status"] == "active"
                and e["work_start"] <= "10:00"
                and e["work_end"] >= "16:00"
                and want(e)
            )
        )

    def event(self, want=lambda e: True) -> dict:
        return self.first("events", want, "event that fits")

    def going(self, event_id: str) -> list[dict]:
        """Who still goes, the organizer first."""
        going = [a for a in self.attendees[event_id] if a["response"] != "declined"]
        return sorted(going, key=lambda a: a["response"] != "organizer")

    def task(self, want) -> dict:
        return self.first("tasks", want, "task that fits")

    def message(self, want) -> dict:
        return self.first("messages", want, "message that fits")

    def document(self, want) -> dict:
        return self.first("documents", want, "document that fits")

    def room(self, want) -> dict:
        return self.first("rooms", want, "room that fits")


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


def new_rows(before: dict, after: dict, table: str) -> list[dict]:
    old = [repr(sorted(r.items())) for r in before[table]]
    return [r for r in after[table] if repr(sorted(r.items())) not in old]


def row(state: dict, table: str, key: str, value: Any) -> dict:
    return next(r for r in state[table] if r[key] == value)


def changed_rows(before: dict, after: dict, table: str) -> int:
    old = {repr(sorted(r.items())) for r in before[table]}
    return sum(1 for r in after[table] if repr(sorted(r.items())) not in old)


@pytest.fixture(scope="module")
def workplace_env() -> Environment:
    return build_env(load_blueprint("workplace"))


@pytest.fixture(scope="module")
def seed(workplace_env) -> Seed:
    return Seed(workplace_env.seed_state)


@pytest.fixture(scope="module")
def toolbox(workplace_env) -> Toolbox:
    return workplace_env.toolbox()


@pytest.fixture
def desk(workplace_env, toolbox):
    session = workplace_env.new_session()
    yield Desk(toolbox, session.db)
    session.close()


def _organizer(seed: Seed, level: str | None = None) -> dict:
    return seed.employee(
        lambda e: (
            e["status"] == "active"
            and e["work_start"] <= "10:00"
            and e["work_end"] >= "16:00"
            and (level is None or e["level"] == level)
        )
    )


def _future_event(seed: Seed, want=lambda e: True) -> dict:
    """A scheduled event whose organizer is active, with at least one invitee still going."""
    return seed.event(
        lambda e: (
            e["status"] == "scheduled"
            and seed.employees[e["organizer_id"]]["status"] == "active"
            and len(seed.going(e["event_id"])) >= 2
            and want(e)
        )
    )


# --------------------------------------------------------------------------- identity and lookups


def test_find_employee_by_email_and_by_number(desk, seed):
    e = seed.state["employees"][7]
    out, _, _ = desk.ok("find_employee_id_by_email", email=e["email"].upper())
    assert out == {"employee_id": e["employee_id"]}
    out, _, _ = desk.ok("find_employee_id_by_number", employee_number=e["employee_number"].lower())
    assert out == {"employee_id": e["employee_id"]}


def test_unknown_ids_are_refused(desk, seed):
    desk.refused("find_employee_id_by_email", "no employee found", email="nobody@acmecorp.example")
    desk.refused("find_employee_id_by_number", "no employee found", employee_number="E99999")
    desk.refused("get_employee_details", "emp_99999 not found", employee_id="emp_99999")
    desk.refused("get_event_details", "evt999999 not found", event_id="EVT999999")
    desk.refused("get_message_details", "msg_9999999 not found", message_id="msg_9999999")
    desk.refused("get_project_details", "prj999 not found", project_id="PRJ999")
    desk.refused("get_task_details", "tsk99999 not found", task_id="TSK99999")
    desk.refused("get_document_details", "doc99999 not found", document_id="DOC99999")
    event = _future_event(seed)
    desk.refused(
        "book_room",
        "rm_9_99 not found",
        employee_id=event["organizer_id"],
        event_id=event["event_id"],
        room_id="rm_9_99",
    )


def test_invalid_arguments_are_rejected_before_the_tool_runs(desk, seed):
    person = _organizer(seed)
    desk.refused("find_employee_id_by_number", "invalid arguments", employee_number="20417")
    desk.refused(
        "create_event",
        "invalid arguments",
        employee_id=person["employee_id"],
        title="Sync",
        date="21/07/2026",
        start_time="10:00",
        end_time="11:00",
        attendee_emails=["x@acmecorp.example"],
    )
    many = [e["email"] for e in seed.state["employees"][:13]]
    desk.refused(
        "create_event",
        "invalid arguments",
        employee_id=person["employee_id"],
        title="All hands",
        date=FREE_DAY,
        start_time="10:00",
        end_time="11:00",
        attendee_emails=many,
    )
    desk.refused(
        "send_message",
        "invalid arguments",
        employee_id=person["employee_id"],
        to_emails=[e["email"] for e in seed.state["employees"][:11]],
        subject="Hi",
        body="Text",
    )
    task = seed.task(lambda t: t["status"] == "todo")
    desk.refused(
        "update_task_status",
        "invalid arguments",
        employee_id=task["assignee_id"],
        task_id=task["task_id"],
        status="finished",
    )
    message = seed.message(lambda m: m["folder"] == "inbox")
    desk.refused(
        "move_message",
        "invalid arguments",
        employee_id=message["owner_id"],
        message_id=message["message_id"],
        folder="sent",
    )


def test_reads_show_the_employee_world(desk, seed):
    person = seed.employee(lambda e: e["manager_id"] is not None)
    out, _, _ = desk.ok("get_employee_details", employee_id=person["employee_id"])
    assert out["manager_email"] == seed.employees[person["manager_id"]]["email"]
    assert out["working_hours"] == f"{person['work_start']}-{person['work_end']}"
    mine = [m["message_id"] for m in seed.state["messages"] if m["owner_id"] == person["employee_id"]]
    assert sorted(m["message_id"] for m in out["messages"]) == sorted(mine)
    assert out["open_tasks"] == seed.open_tasks.get(person["employee_id"], 0)
    event = _future_event(seed)
    out, _, _ = desk.ok("get_event_details", event_id=event["event_id"])
    assert out["attendees"][0]["response"] == "organizer"
    assert len(out["attendees"]) == len(seed.attendees[event["event_id"]])
    out, _, _ = desk.ok("list_rooms")
    assert {r["room_id"] for r in out["rooms"] if r["managers_only"]} == {
        r["room_id"] for r in seed.state["rooms"] if r["capacity"] >= 16
    }
    task = seed.task(lambda t: t["status"] == "todo" and t["due_date"] < "2026-06-17")
    out, _, _ = desk.ok("get_task_details", task_id=task["task_id"])
    assert out["overdue"] is True


# --------------------------------------------------------------------------- create_event


def test_create_event_invites_colleagues_and_books_a_room(desk, seed):
    organizer = _organizer(seed)
    guests = [
        seed.colleague_of(organizer),
        seed.colleague_of(organizer, lambda e: e["employee_id"] > "emp_00050"),
    ]
    room = seed.room(lambda r: r["status"] == "available" and 3 <= r["capacity"] < 16)
    out, before, after = desk.ok(
        "create_event",
        employee_id=organizer["employee_id"],
        title="  Design sync ",
        date=FREE_DAY,
        start_time="10:30",
        end_time="11:15",
        attendee_emails=[g["email"].upper() for g in guests],
        room_id=room["room_id"],
    )
    assert out["status"] == "scheduled" and out["duration_minutes"] == 45 and out["title"] == "Design sync"
    assert out["room_id"] == room["room_id"]
    [event] = new_rows(before, after, "events")
    assert event["created_at"] == NOW and event["organizer_id"] == organizer["employee_id"]
    invites = new_rows(before, after, "event_attendees")
    assert sorted(a["response"] for a in invites) == ["organizer", "pending", "pending"]


def test_create_event_refuses_bad_people(desk, seed):
    organizer = _organizer(seed)
    guest = seed.colleague_of(organizer)
    base = {
        "employee_id": organizer["employee_id"],
        "title": "Sync",
        "date": FREE_DAY,
        "start_time": "10:00",
        "end_time": "10:30",
    }
    away = seed.employee(lambda e: e["status"] == "on_leave")
    desk.refused(
        "create_event",
        "on leave and cannot organize",
        **{**base, "employee_id": away["employee_id"]},
        attendee_emails=[guest["email"]],
    )
    desk.refused(
        "create_event",
        "give the meeting a title",
        **{**base, "title": "   "},
        attendee_emails=[guest["email"]],
    )
    desk.refused(
        "create_event", "outside acmecorp.example", **base, attendee_emails=["jordan@globex.example"]
    )
    desk.refused("create_event", "not a valid email", **base, attendee_emails=["jordan@localhost"])
    desk.refused(
        "create_event", "no employee with the email", **base, attendee_emails=["ghost@acmecorp.example"]
    )
    desk.refused("create_event", "do not invite yourself", **base, attendee_emails=[organizer["email"]])
    desk.refused("create_event", "listed twice", **base, attendee_emails=[guest["email"], guest["email"]])
    desk.refused("create_event", "on leave and cannot be invited", **base, attendee_emails=[away["email"]])


def test_create_event_refuses_bad_slots(desk, seed):
    organizer = _organizer(seed)
    guest = seed.colleague_of(organizer)
    base = {"employee_id": organizer["employee_id"], "title": "Sync", "attendee_emails": [guest["email"]]}
    desk.refused("create_event", "quarter hour", **base, date=FREE_DAY, start_time="10:10", end_time="10:40")
    desk.refused("create_event", "not a time", **base, date=FREE_DAY, start_time="25:00", end_time="26:00")
    desk.refused(
        "create_event", "not a date", **base, date="2026-02-30", start_time="10:00", end_time="10:30"
    )
    desk.refused(
        "create_event", "end after it starts", **base, date=FREE_DAY, start_time="11:00", end_time="10:00"
    )
    desk.refused(
        "create_event", "between 15 minutes", **base, date=FREE_DAY, start_time="07:00", end_time="15:15"
    )
    desk.refused(
        "create_event", "working days", **base, date="2026-07-25", start_time="10:00", end_time="10:30"
    )
    desk.refused(
        "create_event", "in the past", **base, date="2026-06-17", start_time="13:00", end_time="13:30"
    )
    desk.refused(
        "create_event", "in the past", **base, date="2026-06-16", start_time="10:00", end_time="10:30"
    )
    desk.refused(
        "create_event", "at most 90 days", **base, date="2026-09-16", start_time="10:00", end_time="10:30"
    )
    early = seed.employee(lambda e: e["status"] == "active" and e["work_start"] >= "09:00")
    desk.refused(
        "create_event",
        "outside the working hours",
        employee_id=early["employee_id"],
        title="Breakfast sync",
        attendee_emails=[seed.colleague_of(early)["email"]],
        date=FREE_DAY,
        start_time="08:00",
        end_time="08:30",
    )


def test_create_event_refuses_a_clash_naming_the_event(desk, seed):
    event = _future_event(seed)
    guest = seed.employees[seed.going(event["event_id"])[1]["employee_id"]]
    error = desk.refused(
        "create_event",
        "is busy then",
        employee_id=event["organizer_id"],
        title="Overlap",
        date=event["date"],
        start_time=event["start_time"],
        end_time=event["end_time"],
        attendee_emails=[guest["email"]],
    )
    assert event["event_id"] in error


def test_create_event_refuses_unfit_rooms(desk, seed):
    staff = _organizer(seed, "staff")
    boss = _organizer(seed, "manager")
    guest = seed.colleague_of(staff, lambda e: e["employee_id"] != boss["employee_id"])
    base = {"title": "Sync", "date": FREE_DAY, "start_time": "10:00", "end_time": "10:30"}
    broken = seed.room(lambda r: r["status"] == "maintenance")
    desk.refused(
        "create_event",
        "under maintenance",
        employee_id=staff["employee_id"],
        attendee_emails=[guest["email"]],
        room_id=broken["room_id"],
        **base,
    )
    big = seed.room(lambda r: r["status"] == "available" and r["capacity"] >= 16)
    desk.refused(
        "create_event",
        "managers and directors",
        employee_id=staff["employee_id"],
        attendee_emails=[guest["email"]],
        room_id=big["room_id"],
        **base,
    )
    desk.ok(
        "create_event",
        employee_id=boss["employee_id"],
        attendee_emails=[guest["email"]],
        room_id=big["room_id"],
        **base,
    )
    small = seed.room(lambda r: r["status"] == "available" and r["capacity"] == 4)
    crowd = [
        e["email"]
        for e in seed.state["employees"]
        if e["status"] == "active"
        and e["work_start"] <= "10:00"
        and e["work_end"] >= "16:00"
        and e["employee_id"] != staff["employee_id"]
    ][:4]
    desk.refused(
        "create_event",
        "seats 4",
        employee_id=staff["employee_id"],
        attendee_emails=crowd,
        room_id=small["room_id"],
        **{**base, "date": "2026-07-22"},
    )
    booked = seed.event(lambda e: e["status"] == "scheduled" and e["room_id"] is not None)
    organizer = seed.employee(
        lambda e: (
            e["status"] == "active"
            and e["level"] != "staff"
            and e["work_start"] <= booked["start_time"]
            and e["work_end"] >= booked["end_time"]
            and all(a["employee_id"] != e["employee_id"] for a in seed.attendees[booked["event_id"]])
        )
    )
    other = seed.employee(
        lambda e: (
            e["status"] == "active"
            and e["employee_id"] != organizer["employee_id"]
            and e["work_start"] <= booked["start_time"]
            and e["work_end"] >= booked["end_time"]
            and all(a["employee_id"] != e["employee_id"] for a in seed.attendees[booked["event_id"]])
        )
    )
    desk.refused(
        "create_event",
        "already booked",
        employee_id=organizer["employee_id"],
        title="Sync",
        date=booked["date"],
        start_time=booked["start_time"],
        end_time=booked["end_time"],
        attendee_emails=[other["email"]],
        room_id=booked["room_id"],
    )


# --------------------------------------------------------------------------- reschedule, cancel, answer, rooms


def test_reschedule_event_moves_it_and_resets_answers(desk, seed):
    event = _future_event(seed, lambda e: e["room_id"] is None)
    going = [seed.employees[a["employee_id"]] for a in seed.going(event["event_id"])]
    start = max(p["work_start"] for p in going)
    hour = int(start[:2]) + (1 if start[3:] != "00" else 0)
    out, before, after = desk.ok(
        "reschedule_event",
        employee_id=event["organizer_id"],
        event_id=event["event_id"],
        date=FREE_DAY,
        start_time=f"{hour:02d}:00",
        end_time=f"{hour:02d}:30",
    )
    assert (out["date"], out["start_time"], out["end_time"]) == (FREE_DAY, f"{hour:02d}:00", f"{hour:02d}:30")
    assert all(a["response"] in ("organizer", "pending") for a in out["attendees"])
    assert changed_rows(before, after, "events") == 1


def test_reschedule_event_rules(desk, seed):
    done = seed.event(lambda e: e["status"] == "completed")
    desk.refused(
        "reschedule_event",
        "only scheduled events",
        employee_id=done["organizer_id"],
        event_id=done["event_id"],
        date=FREE_DAY,
        start_time="10:00",
        end_time="10:30",
    )
    cancelled = seed.event(lambda e: e["status"] == "cancelled")
    desk.refused(
        "reschedule_event",
        "is cancelled",
        employee_id=cancelled["organizer_id"],
        event_id=cancelled["event_id"],
        date=FREE_DAY,
        start_time="10:00",
        end_time="10:30",
    )
    event = _future_event(seed)
    guest = seed.going(event["event_id"])[1]["employee_id"]
    desk.refused(
        "reschedule_event",
        "only the organizer",
        employee_id=guest,
        event_id=event["event_id"],
        date=FREE_DAY,
        start_time="10:00",
        end_time="10:30",
    )
    desk.refused(
        "reschedule_event",
        "already at",
        employee_id=event["organizer_id"],
        event_id=event["event_id"],
        date=event["date"],
        start_time=event["start_time"],
        end_time=event["end_time"],
    )
    # Onto the slot of another event the organizer still goes to.
    pairs = [
        (mine, other)
        for mine in seed.state["events"]
        if mine["status"] == "scheduled"
        for other in seed.state["events"]
        if other["status"] == "scheduled"
        and other["date"] != mine["date"]
        and any(x["employee_id"] == mine["organizer_id"] for x in seed.going(other["event_id"]))
        and seed.employees[mine["organizer_id"]]["work_start"] <= other["start_time"]
        and other["end_time"] <= seed.employees[mine["organizer_id"]]["work_end"]
    ]
    assert pairs, "the seed has no organizer busy on another day"
    mine, other = pairs[0]
    error = desk.refused(
        "reschedule_event",
        "busy then",
        employee_id=mine["organizer_id"],
        event_id=mine["event_id"],
        date=other["date"],
        start_time=other["start_time"],
        end_time=other["end_time"],
    )
    assert other["event_id"] in error


def test_reschedule_event_keeps_its_room_free(desk, seed):
    event = _future_event(seed, lambda e: e["room_id"] is not None)
    going = [seed.employees[a["employee_id"]] for a in seed.going(event["event_id"])]
    holder = next(
        e
        for e in seed.state["employees"]
        if e["status"] == "active"
        and e["level"] != "staff"
        and e["work_start"] <= "10:00"
        and e["work_end"] >= "16:00"
        and e not in going
    )
    guest = seed.colleague_of(holder, lambda e: e not in going)
    start = max(["10:00", *(p["work_start"] for p in going)])
    hour = int(start[:2]) + (1 if start[3:] != "00" else 0)
    slot = {"date": FREE_DAY, "start_time": f"{hour:02d}:00", "end_time": f"{hour:02d}:30"}
    desk.ok(
        "create_event",
        employee_id=holder["employee_id"],
        title="Room holder",
        attendee_emails=[guest["email"]],
        room_id=event["room_id"],
        **slot,
    )
    desk.refused(
        "reschedule_event",
        "already booked",
        employee_id=event["organizer_id"],
        event_id=event["event_id"],
        **slot,
    )


def test_cancel_event(desk, seed):
    event = _future_event(seed)
    guest = seed.going(event["event_id"])[1]["employee_id"]
    desk.refused("cancel_event", "only the organizer", employee_id=guest, event_id=event["event_id"])
    out, before, after = desk.ok(
        "cancel_event", employee_id=event["organizer_id"], event_id=event["event_id"]
    )
    assert out["status"] == "cancelled"
    assert changed_rows(before, after, "events") == 1
    desk.refused(
        "cancel_event", "is cancelled", employee_id=event["organizer_id"], event_id=event["event_id"]
    )
    done = seed.event(lambda e: e["status"] == "completed")
    desk.refused(
        "cancel_event", "only scheduled events", employee_id=done["organizer_id"], event_id=done["event_id"]
    )


def test_respond_to_event(desk, seed):
    event = seed.event(
        lambda e: (
            e["status"] == "scheduled"
            and any(a["response"] == "pending" for a in seed.attendees[e["event_id"]])
        )
    )
    invite = next(a for a in seed.attendees[event["event_id"]] if a["response"] == "pending")
    who = invite["employee_id"]
    desk.refused(
        "respond_to_event",
        "organizers do not answer",
        employee_id=event["organizer_id"],
        event_id=event["event_id"],
        response="accepted",
    )
    stranger = seed.employee(
        lambda e: all(a["employee_id"] != e["employee_id"] for a in seed.attendees[event["event_id"]])
    )
    desk.refused(
        "respond_to_event",
        "not invited",
        employee_id=stranger["employee_id"],
        event_id=event["event_id"],
        response="accepted",
    )
    out, before, after = desk.ok(
        "respond_to_event", employee_id=who, event_id=event["event_id"], response="accepted"
    )
    answered = [
        a for a in after["event_attendees"] if (a["event_id"], a["employee_id"]) == (event["event_id"], who)
    ]
    assert [a["response"] for a in answered] == ["accepted"]
    assert {
        "email": seed.employees[who]["email"],
        "name": f"{seed.employees[who]['first_name']} {seed.employees[who]['last_name']}",
        "response": "accepted",
    } in out["attendees"]
    assert changed_rows(before, after, "event_attendees") == 1
    desk.refused(
        "respond_to_event",
        "already accepted",
        employee_id=who,
        event_id=event["event_id"],
        response="accepted",
    )
    past = seed.event(lambda e: e["status"] == "completed" and len(seed.attendees[e["event_id"]]) >= 2)
    guest = next(a for a in seed.attendees[past["event_id"]] if a["response"] != "organizer")
    desk.refused(
        "respond_to_event",
        "only scheduled events",
        employee_id=guest["employee_id"],
        event_id=past["event_id"],
        response="declined",
    )


def test_accepting_an_overlapping_invitation_is_refused(desk, seed):
    event = _future_event(seed)
    guest = seed.employees[seed.going(event["event_id"])[1]["employee_id"]]
    desk.ok(
        "respond_to_event", employee_id=guest["employee_id"], event_id=event["event_id"], response="declined"
    )
    other = seed.colleague_of(
        guest, lambda e: e["employee_id"] != event["organizer_id"] and e["level"] == "staff"
    )
    helper = seed.employee(
        lambda e: (
            e["status"] == "active"
            and e["employee_id"] not in (guest["employee_id"], other["employee_id"], event["organizer_id"])
            and e["work_start"] <= event["start_time"]
            and e["work_end"] >= event["end_time"]
            and all(a["employee_id"] != e["employee_id"] for a in seed.attendees[event["event_id"]])
            and not any(
                x["date"] == event["date"]
                and any(a["employee_id"] == e["employee_id"] for a in seed.going(x["event_id"]))
                for x in seed.state["events"]
                if x["status"] == "scheduled"
            )
        )
    )
    desk.ok(
        "create_event",
        employee_id=helper["employee_id"],
        title="Overlapping",
        date=event["date"],
        start_time=event["start_time"],
        end_time=event["end_time"],
        attendee_emails=[guest["email"]],
    )
    error = desk.refused(
        "respond_to_event",
        "already attending",
        employee_id=guest["employee_id"],
        event_id=event["event_id"],
        response="accepted",
    )
    assert "decline that one first" in error


def test_book_room(desk, seed):
    event = _future_event(
        seed, lambda e: e["room_id"] is None and seed.employees[e["organizer_id"]]["level"] == "staff"
    )
    organizer = event["organizer_id"]
    headcount = len(seed.going(event["event_id"]))
    guest = seed.going(event["event_id"])[1]["employee_id"]
    fits = seed.room(lambda r: r["status"] == "available" and headcount <= r["capacity"] < 16)
    desk.refused(
        "book_room",
        "only the organizer",
        employee_id=guest,
        event_id=event["event_id"],
        room_id=fits["room_id"],
    )
    broken = seed.room(lambda r: r["status"] == "maintenance")
    desk.refused(
        "book_room",
        "under maintenance",
        employee_id=organizer,
        event_id=event["event_id"],
        room_id=broken["room_id"],
    )
    big = seed.room(lambda r: r["status"] == "available" and r["capacity"] >= 16)
    desk.refused(
        "book_room",
        "managers and directors",
        employee_id=organizer,
        event_id=event["event_id"],
        room_id=big["room_id"],
    )
    out, before, after = desk.ok(
        "book_room", employee_id=organizer, event_id=event["event_id"], room_id=fits["room_id"]
    )
    assert out["room_id"] == fits["room_id"]
    assert changed_rows(before, after, "events") == 1
    desk.refused(
        "book_room", "already in", employee_id=organizer, event_id=event["event_id"], room_id=fits["room_id"]
    )
    crowded = _future_event(
        seed,
        lambda e: (
            len(seed.going(e["event_id"])) > 4 and seed.employees[e["organizer_id"]]["level"] == "staff"
        ),
    )
    tiny = seed.room(lambda r: r["status"] == "available" and r["capacity"] == 4)
    desk.refused(
        "book_room",
        "seats 4",
        employee_id=crowded["organizer_id"],
        event_id=crowded["event_id"],
        room_id=tiny["room_id"],
    )
    done = seed.event(lambda e: e["status"] == "completed")
    desk.refused(
        "book_room",
        "only scheduled events",
        employee_id=done["organizer_id"],
        event_id=done["event_id"],
        room_id=fits["room_id"],
    )


def test_book_room_refuses_a_room_taken_then(desk, seed):
    boss = _organizer(seed, "manager")
    other = _organizer(seed, "director")
    guests = [
        e
        for e in seed.state["employees"]
        if e["status"] == "active"
        and e["work_start"] <= "10:00"
        and e["work_end"] >= "16:00"
        and e["employee_id"] not in (boss["employee_id"], other["employee_id"])
    ]
    room = seed.room(lambda r: r["status"] == "available" and 3 <= r["capacity"] < 16)
    slot = {"date": FREE_DAY, "start_time": "13:00", "end_time": "14:00"}
    desk.ok(
        "create_event",
        employee_id=boss["employee_id"],
        title="First",
        attendee_emails=[guests[0]["email"]],
        room_id=room["room_id"],
        **slot,
    )
    mine, _, _ = desk.ok(
        "create_event",
        employee_id=other["employee_id"],
        title="Second",
        attendee_emails=[guests[1]["email"]],
        **slot,
    )
    error = desk.refused(
        "book_room",
        "already booked",
        employee_id=other["employee_id"],
        event_id=mine["event_id"],
        room_id=room["room_id"],
    )
    assert "13:00-14:00" in error


# --------------------------------------------------------------------------- mail


def _approved(seed: Seed) -> dict:
    return seed.first(
        "external_approvals",
        lambda a: a["status"] == "approved" and a["expires_on"] >= "2026-06-17",
        "valid approval",
    )


def test_send_message_delivers_internal_copies(desk, seed):
    sender = seed.employee()
    to = [seed.state["employees"][10]["email"], seed.state["employees"][11]["email"]]
    out, before, after = desk.ok(
        "send_message", employee_id=sender["employee_id"], to_emails=to, subject=" Hello ", body="Body text"
    )
    assert (
        out["folder"] == "sent"
        and out["to_emails"] == to
        and out["subject"] == "Hello"
        and out["sent_at"] == NOW
    )
    copies = new_rows(before, after, "messages")
    assert sorted(c["folder"] for c in copies) == ["inbox", "inbox", "sent"]
    assert {c["owner_id"] for c in copies if c["folder"] == "inbox"} == {
        seed.by_email[a]["employee_id"] for a in to
    }


def test_send_message_outside_needs_a_valid_approval(desk, seed):
    approval = _approved(seed)
    sender = approval["employee_id"]
    _, before, after = desk.ok(
        "send_message",
        employee_id=sender,
        to_emails=[f"jordan@{approval['domain']}"],
        subject="Hi",
        body="Text",
    )
    assert [c["folder"] for c in new_rows(before, after, "messages")] == ["sent"]
    others = [d for d in ("globex.example", "initech.example", "vandelay.example", "contoso.example", "northwind.example")
              if not any(a["employee_id"] == sender and a["domain"] == d and a["status"] == "approved" for a in seed.state["external_approvals"])]  # fmt: skip
    desk.refused(
        "send_message",
        "needs an approved external-email request",
        employee_id=sender,
        to_emails=[f"x@{others[0]}"],
        subject="Hi",
        body="Text",
    )
    approved = {
        (a["employee_id"], a["domain"]) for a in seed.state["external_approvals"] if a["status"] == "approved"
    }
    expired = seed.first(
        "external_approvals",
        lambda a: a["status"] == "expired" and (a["employee_id"], a["domain"]) not in approved,
        "expired approval without a newer one",
    )
    desk.refused(
        "send_message",
        "no valid one",
        employee_id=expired["employee_id"],
        to_emails=[f"x@{expired['domain']}"],
        subject="Hi",
        body="Text",
    )
    desk.refused(
        "send_message",
        "no employee with the email",
        employee_id=sender,
        to_emails=["ghost@acmecorp.example"],
        subject="Hi",
        body="Text",
    )
    desk.refused(
        "send_message",
        "listed twice",
        employee_id=sender,
        to_emails=[seed.state["employees"][3]["email"], seed.state["employees"][3]["email"].upper()],
        subject="Hi",
        body="Text",
    )
    desk.refused(
        "send_message",
        "subject and a body",
        employee_id=sender,
        to_emails=[seed.state["employees"][3]["email"]],
        subject=" ",
        body="Text",
    )


def test_reply_to_message(desk, seed):
    message = seed.message(
        lambda m: (
            m["folder"] == "inbox"
            and m["from_email"].endswith("@" + DOMAIN)
            and not m["subject"].startswith("Re:")
        )
    )
    stranger = seed.employee(lambda e: e["employee_id"] != message["owner_id"])
    desk.refused(
        "reply_to_message",
        "not in the mailbox",
        employee_id=stranger["employee_id"],
        message_id=message["message_id"],
        body="Thanks",
    )
    desk.refused(
        "reply_to_message",
        "needs a body",
        employee_id=message["owner_id"],
        message_id=message["message_id"],
        body="  ",
    )
    out, before, after = desk.ok(
        "reply_to_message", employee_id=message["owner_id"], message_id=message["message_id"], body="Thanks!"
    )
    assert out["subject"] == "Re: " + message["subject"] and out["in_reply_to"] == message["message_id"]
    assert out["to_emails"] == [message["from_email"]]
    copies = new_rows(before, after, "messages")
    assert sorted(c["folder"] for c in copies) == ["inbox", "sent"]
    assert (
        next(c for c in copies if c["folder"] == "inbox")["owner_id"]
        == seed.by_email[message["from_email"]]["employee_id"]
    )
    for folder in ("sent", "trash"):
        other = seed.message(lambda m, f=folder: m["folder"] == f)
        desk.refused(
            "reply_to_message",
            "only messages in the inbox or archive",
            employee_id=other["owner_id"],
            message_id=other["message_id"],
            body="Thanks",
        )


def test_reply_outside_needs_approval(desk, seed):
    valid = {
        (a["employee_id"], a["domain"]) for a in seed.state["external_approvals"] if a["status"] == "approved"
    }
    blocked = seed.message(
        lambda m: (
            m["folder"] in ("inbox", "archive")
            and not m["from_email"].endswith("@" + DOMAIN)
            and (m["owner_id"], m["from_email"].split("@")[1]) not in valid
        )
    )
    desk.refused(
        "reply_to_message",
        "outside the company",
        employee_id=blocked["owner_id"],
        message_id=blocked["message_id"],
        body="Thanks",
    )
    allowed = seed.message(
        lambda m: (
            m["folder"] in ("inbox", "archive")
            and not m["from_email"].endswith("@" + DOMAIN)
            and (m["owner_id"], m["from_email"].split("@")[1]) in valid
        )
    )
    _, before, after = desk.ok(
        "reply_to_message", employee_id=allowed["owner_id"], message_id=allowed["message_id"], body="Thanks"
    )
    assert [c["folder"] for c in new_rows(before, after, "messages")] == ["sent"]


def test_move_message(desk, seed):
    message = seed.message(lambda m: m["folder"] == "inbox")
    stranger = seed.employee(lambda e: e["employee_id"] != message["owner_id"])
    desk.refused(
        "move_message",
        "not in the mailbox",
        employee_id=stranger["employee_id"],
        message_id=message["message_id"],
        folder="archive",
    )
    desk.refused(
        "move_message",
        "already in inbox",
        employee_id=message["owner_id"],
        message_id=message["message_id"],
        folder="inbox",
    )
    out, before, after = desk.ok(
        "move_message", employee_id=message["owner_id"], message_id=message["message_id"], folder="trash"
    )
    assert out["folder"] == "trash" and changed_rows(before, after, "messages") == 1
    sent = seed.message(lambda m: m["folder"] == "sent")
    desk.refused(
        "move_message",
        "sent messages stay",
        employee_id=sent["owner_id"],
        message_id=sent["message_id"],
        folder="archive",
    )


def test_request_external_approval(desk, seed):
    person = seed.employee(
        lambda e: (
            e["manager_id"] is not None
            and not any(a["employee_id"] == e["employee_id"] for a in seed.state["external_approvals"])
        )
    )
    pid = person["employee_id"]
    desk.refused(
        "request_external_approval",
        "own domain",
        employee_id=pid,
        domain="acmecorp.example",
        justification="x",
    )
    desk.refused(
        "request_external_approval",
        "not an email domain",
        employee_id=pid,
        domain="globex",
        justification="x",
    )
    desk.refused(
        "request_external_approval", "say why", employee_id=pid, domain="globex.example", justification="  "
    )
    ceo = seed.employee(lambda e: e["manager_id"] is None)
    desk.refused(
        "request_external_approval",
        "no manager",
        employee_id=ceo["employee_id"],
        domain="globex.example",
        justification="x",
    )
    out, before, after = desk.ok(
        "request_external_approval", employee_id=pid, domain="@Globex.example", justification="Supplier"
    )
    assert out["status"] == "pending" and out["domain"] == "globex.example" and out["expires_on"] is None
    assert out["approver_email"] == seed.employees[person["manager_id"]]["email"]
    [new] = new_rows(before, after, "external_approvals")
    assert new["approver_id"] == person["manager_id"] and new["requested_at"] == NOW
    desk.refused(
        "request_external_approval",
        "already waiting",
        employee_id=pid,
        domain="globex.example",
        justification="again",
    )
    approval = _approved(seed)
    desk.refused(
        "request_external_approval",
        "already approved",
        employee_id=approval["employee_id"],
        domain=approval["domain"],
        justification="x",
    )
    pending: dict[str, list[str]] = {}
    for a in seed.state["external_approvals"]:
        if a["status"] == "pending":
            pending.setdefault(a["employee_id"], []).append(a["domain"])
    full = next(e for e, domains in pending.items() if len(domains) >= 3)
    desk.refused(
        "request_external_approval",
        "at most 3",
        employee_id=full,
        domain="brand-new.example",
        justification="x",
    )


# --------------------------------------------------------------------------- tasks


def _active_project(seed: Seed, want=lambda p: True) -> dict:
    return seed.first("projects", lambda p: p["status"] == "active" and want(p), "active project")


def _free_member(seed: Seed, project: dict, exclude: tuple[str, ...] = ()) -> dict:
    for employee_id in seed.members[project["project_id"]]:
        person = seed.employees[employee_id]
        if (
            employee_id not in exclude
            and person["status"] == "active"
            and seed.open_tasks.get(employee_id, 0) < 8
        ):
            return person
    pytest.fail("no free member")


def test_create_task(desk, seed):
    project = _active_project(seed)
    lead = project["lead_id"]
    assignee = _free_member(seed, project, (lead,))
    out, before, after = desk.ok(
        "create_task",
        employee_id=lead,
        project_id=project["project_id"],
        title=" Draft the FAQ ",
        teammate_email=assignee["email"],
        due_date="2026-06-19",
    )
    assert out["status"] == "todo" and out["priority"] == "normal" and out["title"] == "Draft the FAQ"
    [task] = new_rows(before, after, "tasks")
    assert (
        task["created_by"] == lead
        and task["created_at"] == NOW
        and task["assignee_id"] == assignee["employee_id"]
    )


def test_create_task_rules(desk, seed):
    project = _active_project(seed)
    pid, lead = project["project_id"], project["lead_id"]
    assignee = _free_member(seed, project, (lead,))
    base = {"employee_id": lead, "project_id": pid, "title": "Do it", "teammate_email": assignee["email"]}
    for status in ("on_hold", "completed"):
        other = seed.first("projects", lambda p, s=status: p["status"] == s, f"{status} project")
        desk.refused(
            "create_task",
            "only to active projects",
            **{**base, "employee_id": other["lead_id"], "project_id": other["project_id"]},
            due_date="2026-06-19",
        )
    outsider = seed.employee(lambda e: e["employee_id"] not in seed.members[pid])
    desk.refused(
        "create_task",
        "only members can add",
        **{**base, "employee_id": outsider["employee_id"]},
        due_date="2026-06-19",
    )
    desk.refused(
        "create_task",
        "not a member of",
        **{**base, "teammate_email": outsider["email"]},
        due_date="2026-06-19",
    )
    desk.refused(
        "create_task",
        "outside acmecorp.example",
        **{**base, "teammate_email": "x@globex.example"},
        due_date="2026-06-19",
    )
    desk.refused("create_task", "in the past", **base, due_date="2026-06-16")
    desk.refused("create_task", "working days", **base, due_date="2026-06-20")
    desk.refused("create_task", "not a date", **base, due_date="2026-06-31")
    desk.refused("create_task", "ends on", **base, due_date="2027-01-05")
    desk.refused("create_task", "title", **{**base, "title": "  "}, due_date="2026-06-19")
    desk.refused("create_task", "invalid arguments", **base, due_date="2026-06-19", priority="critical")
    away = seed.first(
        "project_members",
        lambda m: (
            seed.projects[m["project_id"]]["status"] == "active"
            and seed.employees[m["employee_id"]]["status"] == "on_leave"
        ),
        "member on leave",
    )
    p = seed.projects[away["project_id"]]
    desk.refused(
        "create_task",
        "on leave",
        employee_id=p["lead_id"],
        project_id=p["project_id"],
        title="x",
        teammate_email=seed.employees[away["employee_id"]]["email"],
        due_date="2026-06-19",
    )
    busy = next(e for e, n in seed.open_tasks.items() if n >= 8)
    crowded = seed.first(
        "projects",
        lambda p: p["status"] == "active" and busy in seed.members[p["project_id"]],
        "project of the busy member",
    )
    desk.refused(
        "create_task",
        "the limit is 8",
        employee_id=crowded["lead_id"],
        project_id=crowded["project_id"],
        title="x",
        teammate_email=seed.employees[busy]["email"],
        due_date="2026-06-19",
    )


def test_reassign_task(desk, seed):
    task = seed.task(
        lambda t: (
            t["status"] == "in_progress"
            and seed.projects[t["project_id"]]["lead_id"] != t["assignee_id"]
            and len(seed.members[t["project_id"]]) >= 3
        )
    )
    project = seed.projects[task["project_id"]]
    new = _free_member(seed, project, (task["assignee_id"], project["lead_id"]))
    outsider = seed.employee(lambda e: e["employee_id"] not in seed.members[project["project_id"]])
    desk.refused(
        "reassign_task",
        "only the assignee",
        employee_id=outsider["employee_id"],
        task_id=task["task_id"],
        teammate_email=new["email"],
    )
    desk.refused(
        "reassign_task",
        "already assigned",
        employee_id=task["assignee_id"],
        task_id=task["task_id"],
        teammate_email=seed.employees[task["assignee_id"]]["email"],
    )
    desk.refused(
        "reassign_task",
        "not a member of",
        employee_id=task["assignee_id"],
        task_id=task["task_id"],
        teammate_email=outsider["email"],
    )
    out, before, after = desk.ok(
        "reassign_task", employee_id=project["lead_id"], task_id=task["task_id"], teammate_email=new["email"]
    )
    assert out["assignee_email"] == new["email"] and out["status"] == "in_progress"
    changed = row(after, "tasks", "task_id", task["task_id"])
    assert changed["assignee_id"] == new["employee_id"] and changed["updated_at"] == NOW
    assert changed_rows(before, after, "tasks") == 1
    for status in ("done", "cancelled"):
        closed = seed.task(lambda t, s=status: t["status"] == s)
        desk.refused(
            "reassign_task",
            "cannot be reassigned",
            employee_id=closed["assignee_id"],
            task_id=closed["task_id"],
            teammate_email=new["email"],
        )
    busy = next(e for e, n in seed.open_tasks.items() if n >= 8)
    mine = seed.task(
        lambda t: t["status"] == "todo" and t["assignee_id"] != busy and busy in seed.members[t["project_id"]]
    )
    desk.refused(
        "reassign_task",
        "the limit is 8",
        employee_id=mine["assignee_id"],
        task_id=mine["task_id"],
        teammate_email=seed.employees[busy]["email"],
    )


def test_update_task_status_follows_the_workflow(desk, seed):
    task = seed.task(
        lambda t: t["status"] == "todo" and seed.projects[t["project_id"]]["lead_id"] != t["assignee_id"]
    )
    tid, me = task["task_id"], task["assignee_id"]
    lead = seed.projects[task["project_id"]]["lead_id"]
    outsider = seed.employee(lambda e: e["employee_id"] not in (me, lead))
    desk.refused(
        "update_task_status",
        "only the assignee",
        employee_id=outsider["employee_id"],
        task_id=tid,
        status="in_progress",
    )
    desk.refused("update_task_status", "already todo", employee_id=me, task_id=tid, status="todo")
    desk.refused(
        "update_task_status",
        "can move only to in_progress or cancelled",
        employee_id=me,
        task_id=tid,
        status="done",
    )
    desk.refused("update_task_status", "only the lead", employee_id=me, task_id=tid, status="cancelled")
    for status in ("in_progress", "blocked", "in_progress", "done"):
        out, before, after = desk.ok("update_task_status", employee_id=me, task_id=tid, status=status)
        assert out["status"] == status and changed_rows(before, after, "tasks") == 1
    desk.refused("update_task_status", "is done", employee_id=me, task_id=tid, status="in_progress")
    other = seed.task(lambda t: t["status"] == "blocked")
    out, _, _ = desk.ok(
        "update_task_status",
        employee_id=seed.projects[other["project_id"]]["lead_id"],
        task_id=other["task_id"],
        status="cancelled",
    )
    assert out["status"] == "cancelled"
    cancelled = seed.task(lambda t: t["status"] == "cancelled")
    desk.refused(
        "update_task_status",
        "done or cancelled task",
        employee_id=cancelled["assignee_id"],
        task_id=cancelled["task_id"],
        status="todo",
    )


# --------------------------------------------------------------------------- documents


def test_share_document(desk, seed):
    doc = seed.document(lambda d: d["status"] == "active" and d["classification"] == "internal")
    holders = {
        p["employee_id"]: p["role"]
        for p in seed.state["document_permissions"]
        if p["document_id"] == doc["document_id"]
    }
    target = seed.employee(lambda e: e["status"] == "active" and e["employee_id"] not in holders)
    out, before, after = desk.ok(
        "share_document",
        employee_id=doc["owner_id"],
        document_id=doc["document_id"],
        email=target["email"],
        role="viewer",
    )
    assert {
        "email": target["email"],
        "name": f"{target['first_name']} {target['last_name']}",
        "role": "viewer",
    } in out["access"]
    [grant] = new_rows(before, after, "document_permissions")
    assert grant["granted_at"] == NOW
    desk.refused(
        "share_document",
        "already a viewer",
        employee_id=doc["owner_id"],
        document_id=doc["document_id"],
        email=target["email"],
        role="viewer",
    )
    out, before, after = desk.ok(
        "share_document",
        employee_id=doc["owner_id"],
        document_id=doc["document_id"],
        email=target["email"],
        role="editor",
    )
    assert len(after["document_permissions"]) == len(before["document_permissions"])
    assert changed_rows(before, after, "document_permissions") == 1


def test_share_document_rules(desk, seed):
    doc = seed.document(lambda d: d["status"] == "active" and d["classification"] == "confidential")
    owner = seed.employees[doc["owner_id"]]
    outside = seed.employee(lambda e: e["status"] == "active" and e["department_id"] != doc["department_id"])
    inside = seed.employee(
        lambda e: (
            e["status"] == "active"
            and e["department_id"] == doc["department_id"]
            and e["employee_id"] != owner["employee_id"]
        )
    )
    desk.refused(
        "share_document",
        "confidential documents are never shared outside",
        employee_id=owner["employee_id"],
        document_id=doc["document_id"],
        email=outside["email"],
        role="viewer",
    )
    desk.refused(
        "share_document",
        "only the owner",
        employee_id=inside["employee_id"],
        document_id=doc["document_id"],
        email=outside["email"],
        role="viewer",
    )
    desk.refused(
        "share_document",
        "owns",
        employee_id=owner["employee_id"],
        document_id=doc["document_id"],
        email=owner["email"],
        role="editor",
    )
    desk.refused(
        "share_document",
        "outside acmecorp.example",
        employee_id=owner["employee_id"],
        document_id=doc["document_id"],
        email="x@globex.example",
        role="viewer",
    )
    away = seed.employee(lambda e: e["status"] == "on_leave")
    desk.refused(
        "share_document",
        "on leave",
        employee_id=owner["employee_id"],
        document_id=doc["document_id"],
        email=away["email"],
        role="viewer",
    )
    archived = seed.document(lambda d: d["status"] == "archived")
    desk.refused(
        "share_document",
        "archived documents cannot be shared",
        employee_id=archived["owner_id"],
        document_id=archived["document_id"],
        email=inside["email"],
        role="viewer",
    )
    desk.refused(
        "share_document",
        "invalid arguments",
        employee_id=owner["employee_id"],
        document_id=doc["document_id"],
        email=inside["email"],
        role="owner",
    )


# --------------------------------------------------------------------------- utilities


def test_calculate_and_transfer(desk):
    out, _, _ = desk.ok("calculate", expression="(17 - 9.5) * 60")
    assert out["result"] == 450.0
    desk.refused("calculate", "only numbers", expression="__import__('os')")
    desk.refused("calculate", "division by zero", expression="1 / 0")
    out, _, _ = desk.ok("transfer_to_human_agents", summary="Employee needs a laptop.")
    assert out["transferred"] is True


def test_every_refusal_rule_matches_the_tools(workplace_env, seed, toolbox):
    """The policy as data: a lifecycle rule first for each restricted write (each is broken above),
    every write confirmed, and enough out-of-scope requests to hand over."""
    spec = workplace_env.spec
    firsts: dict[str, RefusalRule] = {}
    for rule in spec.policy_rules.refusals:
        firsts.setdefault(rule.tool, rule)
    assert set(firsts) == {
        "reschedule_event", "cancel_event", "respond_to_event", "book_room", "reply_to_message", "move_message",
        "create_task", "reassign_task", "update_task_status", "share_document",
    }  # fmt: skip
    writes = {t.name for t in spec.tools if t.effect == "write"}
    assert set(spec.policy_rules.confirm) == writes
    assert len(spec.policy_rules.transfer.out_of_scope) >= 6
