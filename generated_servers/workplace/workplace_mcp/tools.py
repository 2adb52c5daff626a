"""Workplace-productivity assistant tools.

An internal help desk for the employees of one company (mail domain acmecorp.example):
each employee belongs to a department, has a manager, a level (staff, manager, director)
and working hours, and may be on leave. Calendars hold events with an organizer, invitees
who answer (pending, accepted, declined) and, optionally, a meeting room; events are
scheduled, completed once over, or cancelled. Mailboxes keep one copy of each message per
person in a folder (inbox, sent, archive, trash); mail to a domain outside the company
needs a manager-approved external-email request for that domain. Projects of a department
have members and tasks that move todo -> in_progress -> (blocked) -> done, or are
cancelled. Shared documents have an owner, editors and viewers and a classification;
confidential documents never leave their department.

Dates are YYYY-MM-DD and times HH:MM office time; the clock is the environment's ``ctx.now``.

Each function is one tool: ``tool(ctx, **arguments) -> dict``. Business-rule violations
call ``ctx.fail`` so the runtime rolls the call back and tells the agent why.
"""

from __future__ import annotations

import ast
import datetime
import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .runtime import ToolContext

Row = dict  # one database row, column name -> value

COMPANY_DOMAIN = "acmecorp.example"
MAX_INVITEES = 12
MAX_RECIPIENTS = 10
MAX_PENDING_APPROVALS = 3
OPEN_TASK_LIMIT = 8
BOOKING_HORIZON_DAYS = 90
MIN_MEETING_MINUTES = 15
MAX_MEETING_MINUTES = 480
LARGE_ROOM_SEATS = 16
LARGE_ROOM_LEVELS = ("manager", "director")
OPEN_TASK = ("todo", "in_progress", "blocked")
TASK_MOVES = {
    "todo": ("in_progress", "cancelled"),
    "in_progress": ("blocked", "done", "todo"),
    "blocked": ("in_progress", "cancelled"),
}
MOVABLE_FOLDERS = ("inbox", "archive", "trash")
REPLYABLE_FOLDERS = ("inbox", "archive")
SHARE_ROLES = ("editor", "viewer")
PRIORITIES = ("low", "normal", "high", "urgent")


# --------------------------------------------------------------------------- helpers


def _today(ctx: ToolContext) -> datetime.date:
    return datetime.date.fromisoformat(ctx.now[:10])


def _now_time(ctx: ToolContext) -> str:
    return ctx.now[11:16]


def _name(row: Row) -> str:
    return f"{row['first_name']} {row['last_name']}"


def _employee(ctx: ToolContext, employee_id: str) -> Row:
    row = ctx.one("SELECT * FROM employees WHERE employee_id = ?", (employee_id,))
    if row is None:
        ctx.fail(f"Employee {employee_id} not found.")
    return row


def _domain(address: str) -> str:
    return address.rsplit("@", 1)[-1]


def _address(ctx: ToolContext, email: str) -> str:
    address = email.strip().lower()
    local, _, domain = address.partition("@")
    if not local or "." not in domain or " " in address or "@" in domain:
        ctx.fail(f"{email!r} is not a valid email address.")
    return address


def _colleague(ctx: ToolContext, email: str, purpose: str) -> Row:
    """The employee with this work email; an address outside the company is refused."""
    address = _address(ctx, email)
    if _domain(address) != COMPANY_DOMAIN:
        ctx.fail(f"{address} is outside {COMPANY_DOMAIN}; {purpose} only colleagues of the company.")
    row = ctx.one("SELECT * FROM employees WHERE email = ?", (address,))
    if row is None:
        ctx.fail(f"No employee with the email {address} is in the company directory.")
    return row


def _event(ctx: ToolContext, event_id: str) -> Row:
    row = ctx.one("SELECT * FROM events WHERE event_id = ?", (event_id,))
    if row is None:
        ctx.fail(f"Event {event_id} not found.")
    return row


def _room(ctx: ToolContext, room_id: str) -> Row:
    row = ctx.one("SELECT * FROM rooms WHERE room_id = ?", (room_id,))
    if row is None:
        ctx.fail(f"Room {room_id} not found.")
    return row


def _message(ctx: ToolContext, message_id: str) -> Row:
    row = ctx.one("SELECT * FROM messages WHERE message_id = ?", (message_id,))
    if row is None:
        ctx.fail(f"Message {message_id} not found.")
    return row


def _project(ctx: ToolContext, project_id: str) -> Row:
    row = ctx.one("SELECT * FROM projects WHERE project_id = ?", (project_id,))
    if row is None:
        ctx.fail(f"Project {project_id} not found.")
    return row


def _task(ctx: ToolContext, task_id: str) -> Row:
    row = ctx.one("SELECT * FROM tasks WHERE task_id = ?", (task_id,))
    if row is None:
        ctx.fail(f"Task {task_id} not found.")
    return row


def _document(ctx: ToolContext, document_id: str) -> Row:
    row = ctx.one("SELECT * FROM documents WHERE document_id = ?", (document_id,))
    if row is None:
        ctx.fail(f"Document {document_id} not found.")
    return row


def _minutes(ctx: ToolContext, text: str) -> int:
    parts = text.strip().split(":")
    if len(parts) != 2 or not all(p.isdigit() and len(p) == 2 for p in parts):
        ctx.fail(f"{text!r} is not a time; use HH:MM, e.g. '14:30'.")
    hours, minutes = int(parts[0]), int(parts[1])
    if hours > 23 or minutes > 59:
        ctx.fail(f"{text!r} is not a time of day.")
    return hours * 60 + minutes


def _date(ctx: ToolContext, text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text.strip())
    except ValueError:
        ctx.fail(f"{text!r} is not a date; use YYYY-MM-DD.")


def _slot(ctx: ToolContext, date: str, start_time: str, end_time: str) -> tuple[str, str, str]:
    """A valid future meeting slot on a working day: (date, start, end) normalised."""
    day = _date(ctx, date)
    start, end = _minutes(ctx, start_time), _minutes(ctx, end_time)
    if start % 15 or end % 15:
        ctx.fail("Meetings start and end on the quarter hour (:00, :15, :30 or :45).")
    if end <= start:
        ctx.fail("The meeting must end after it starts.")
    if not MIN_MEETING_MINUTES <= end - start <= MAX_MEETING_MINUTES:
        ctx.fail(
            f"A meeting lasts between {MIN_MEETING_MINUTES} minutes and {MAX_MEETING_MINUTES // 60} hours."
        )
    if day.weekday() >= 5:
        ctx.fail(f"{day.isoformat()} is a {day.strftime('%A')}; meetings are held on working days only.")
    today = _today(ctx)
    begins = f"{start // 60:02d}:{start % 60:02d}"
    if day < today or (day == today and begins <= _now_time(ctx)):
        ctx.fail(f"{day.isoformat()} {begins} is in the past; meetings can only be booked ahead.")
    if (day - today).days > BOOKING_HORIZON_DAYS:
        ctx.fail(f"Meetings can be booked at most {BOOKING_HORIZON_DAYS} days ahead.")
    return day.isoformat(), begins, f"{end // 60:02d}:{end % 60:02d}"


def _within_hours(ctx: ToolContext, person: Row, start: str, end: str) -> None:
    if start < person["work_start"] or end > person["work_end"]:
        ctx.fail(
            f"{start}-{end} is outside the working hours of {_name(person)} ({person['email']}), "
            f"{person['work_start']}-{person['work_end']}."
        )


def _clash(ctx: ToolContext, employee_id: str, date: str, start: str, end: str, skip: str) -> Row | None:
    """A scheduled event the employee attends (not declined) that overlaps the slot."""
    return ctx.one(
        "SELECT e.event_id, e.title, e.start_time, e.end_time FROM events e "
        "JOIN event_attendees a ON a.event_id = e.event_id "
        "WHERE a.employee_id = ? AND a.response != 'declined' AND e.status = 'scheduled' AND e.date = ? "
        "AND e.start_time < ? AND e.end_time > ? AND e.event_id != ? ORDER BY e.start_time, e.event_id",
        (employee_id, date, end, start, skip),
    )


def _check_free(ctx: ToolContext, people: list[Row], date: str, start: str, end: str, skip: str = "") -> None:
    for person in people:
        _within_hours(ctx, person, start, end)
    for person in people:
        clash = _clash(ctx, person["employee_id"], date, start, end, skip)
        if clash is not None:
            ctx.fail(
                f"{_name(person)} ({person['email']}) is busy then: {clash['event_id']} '{clash['title']}' "
                f"{clash['start_time']}-{clash['end_time']} on {date}."
            )


def _check_room(
    ctx: ToolContext,
    room: Row,
    organizer: Row,
    headcount: int,
    date: str,
    start: str,
    end: str,
    skip: str = "",
) -> None:
    if room["status"] != "available":
        ctx.fail(f"Room {room['name']} ({room['room_id']}) is under maintenance and cannot be booked.")
    if headcount > room["capacity"]:
        ctx.fail(
            f"Room {room['name']} seats {room['capacity']}; the meeting has {headcount} people. Choose a larger room."
        )
    if room["capacity"] >= LARGE_ROOM_SEATS and organizer["level"] not in LARGE_ROOM_LEVELS:
        ctx.fail(
            f"Room {room['name']} seats {room['capacity']}; rooms of {LARGE_ROOM_SEATS} seats or more can be "
            f"booked only by managers and directors, and {_name(organizer)} is {organizer['level']} level."
        )
    taken = ctx.one(
        "SELECT event_id, start_time, end_time FROM events WHERE room_id = ? AND status = 'scheduled' AND date = ? "
        "AND start_time < ? AND end_time > ? AND event_id != ? ORDER BY start_time, event_id",
        (room["room_id"], date, end, start, skip),
    )
    if taken is not None:
        ctx.fail(
            f"Room {room['name']} is already booked {taken['start_time']}-{taken['end_time']} on {date} "
            f"({taken['event_id']})."
        )


def _attending(ctx: ToolContext, event_id: str) -> list[Row]:
    """The employees on an event who have not declined, organizer first."""
    return ctx.all(
        "SELECT p.* FROM event_attendees a JOIN employees p ON p.employee_id = a.employee_id "
        "WHERE a.event_id = ? AND a.response != 'declined' "
        "ORDER BY a.response != 'organizer', p.employee_id",
        (event_id,),
    )


def _require_organizer(ctx: ToolContext, event: Row, employee_id: str, action: str) -> None:
    if event["organizer_id"] != employee_id:
        ctx.fail(f"Only the organizer of {event['event_id']} can {action} it.")


def _require_event_status(ctx: ToolContext, event: Row, action: str) -> None:
    if event["status"] != "scheduled":
        ctx.fail(f"Event {event['event_id']} is {event['status']}; only scheduled events can {action}.")


def _event_view(ctx: ToolContext, event_id: str) -> dict:
    e = _event(ctx, event_id)
    organizer = _employee(ctx, e["organizer_id"])
    room = None if e["room_id"] is None else _room(ctx, e["room_id"])
    people = ctx.all(
        "SELECT p.email, p.first_name, p.last_name, a.response FROM event_attendees a "
        "JOIN employees p ON p.employee_id = a.employee_id WHERE a.event_id = ? "
        "ORDER BY a.response != 'organizer', p.email",
        (event_id,),
    )
    start, end = e["start_time"].split(":"), e["end_time"].split(":")
    minutes = int(end[0]) * 60 + int(end[1]) - int(start[0]) * 60 - int(start[1])
    return {
        "event_id": e["event_id"],
        "title": e["title"],
        "organizer_email": organizer["email"],
        "organizer_name": _name(organizer),
        "date": e["date"],
        "start_time": e["start_time"],
        "end_time": e["end_time"],
        "duration_minutes": minutes,
        "room_id": e["room_id"],
        "room_name": None if room is None else room["name"],
        "status": e["status"],
        "attendees": [{"email": p["email"], "name": _name(p), "response": p["response"]} for p in people],
        "created_at": e["created_at"],
    }


def _message_view(ctx: ToolContext, message_id: str) -> dict:
    m = _message(ctx, message_id)
    return {
        "message_id": m["message_id"],
        "folder": m["folder"],
        "from_email": m["from_email"],
        "to_emails": [a for a in m["to_emails"].split(",") if a],
        "subject": m["subject"],
        "body": m["body"],
        "sent_at": m["sent_at"],
        "in_reply_to": m["in_reply_to"],
    }


def _approval_view(row: Row) -> dict:
    return {
        "approval_id": row["approval_id"],
        "domain": row["domain"],
        "status": row["status"],
        "requested_at": row["requested_at"],
        "expires_on": row["expires_on"],
    }


def _open_tasks(ctx: ToolContext, employee_id: str) -> int:
    return ctx.scalar(
        "SELECT COUNT(*) FROM tasks WHERE assignee_id = ? AND status IN ('todo', 'in_progress', 'blocked')",
        (employee_id,),
    )


def _task_view(ctx: ToolContext, task_id: str) -> dict:
    t = _task(ctx, task_id)
    project = _project(ctx, t["project_id"])
    assignee = _employee(ctx, t["assignee_id"])
    creator = _employee(ctx, t["created_by"])
    return {
        "task_id": t["task_id"],
        "project_id": t["project_id"],
        "project_name": project["name"],
        "title": t["title"],
        "status": t["status"],
        "priority": t["priority"],
        "due_date": t["due_date"],
        "overdue": t["status"] in OPEN_TASK and t["due_date"] < ctx.now[:10],
        "assignee_email": assignee["email"],
        "assignee_name": _name(assignee),
        "created_by_email": creator["email"],
        "created_at": t["created_at"],
        "updated_at": t["updated_at"],
    }


def _member(ctx: ToolContext, project_id: str, employee_id: str) -> Row | None:
    return ctx.one(
        "SELECT * FROM project_members WHERE project_id = ? AND employee_id = ?", (project_id, employee_id)
    )


def _require_task_actor(ctx: ToolContext, task: Row, project: Row, employee_id: str, action: str) -> None:
    if employee_id not in (task["assignee_id"], project["lead_id"]):
        ctx.fail(
            f"Only the assignee of {task['task_id']} or the lead of {project['project_id']} can {action}."
        )


def _require_open_task(ctx: ToolContext, task: Row, action: str) -> None:
    if task["status"] not in OPEN_TASK:
        ctx.fail(f"Task {task['task_id']} is {task['status']}; a done or cancelled task cannot {action}.")


def _assignable(ctx: ToolContext, project: Row, email: str) -> Row:
    person = _colleague(ctx, email, "tasks can be assigned to")
    if _member(ctx, project["project_id"], person["employee_id"]) is None:
        ctx.fail(
            f"{_name(person)} ({person['email']}) is not a member of {project['project_id']} ({project['name']}); "
            "tasks can be assigned only to project members."
        )
    if person["status"] != "active":
        ctx.fail(f"{_name(person)} ({person['email']}) is on leave and cannot take new tasks.")
    count = _open_tasks(ctx, person["employee_id"])
    if count >= OPEN_TASK_LIMIT:
        ctx.fail(
            f"{_name(person)} ({person['email']}) already has {count} open tasks; the limit is {OPEN_TASK_LIMIT}."
        )
    return person


def _document_view(ctx: ToolContext, document_id: str) -> dict:
    d = _document(ctx, document_id)
    owner = _employee(ctx, d["owner_id"])
    department = ctx.one("SELECT name FROM departments WHERE department_id = ?", (d["department_id"],))
    access = ctx.all(
        "SELECT p.email, p.first_name, p.last_name, x.role FROM document_permissions x "
        "JOIN employees p ON p.employee_id = x.employee_id WHERE x.document_id = ? "
        "ORDER BY x.role != 'owner', x.role, p.email",
        (document_id,),
    )
    return {
        "document_id": d["document_id"],
        "title": d["title"],
        "owner_email": owner["email"],
        "department": None if department is None else department["name"],
        "classification": d["classification"],
        "status": d["status"],
        "updated_at": d["updated_at"],
        "access": [{"email": a["email"], "name": _name(a), "role": a["role"]} for a in access],
    }


def _valid_approval(ctx: ToolContext, employee_id: str, domain: str) -> Row | None:
    return ctx.one(
        "SELECT * FROM external_approvals WHERE employee_id = ? AND domain = ? AND status = 'approved' "
        "AND expires_on >= ? ORDER BY approval_id",
        (employee_id, domain, ctx.now[:10]),
    )


def _check_external(ctx: ToolContext, sender: Row, address: str) -> None:
    domain = _domain(address)
    if domain == COMPANY_DOMAIN:
        return
    if _valid_approval(ctx, sender["employee_id"], domain) is None:
        ctx.fail(
            f"{address} is outside the company; mail to {domain} needs an approved external-email request "
            "for that domain (request_external_approval), and there is no valid one."
        )


def _deliver(
    ctx: ToolContext, sender: Row, recipients: list[str], subject: str, body: str, reply_to: str | None
) -> str:
    """The sender's copy in 'sent' and one 'inbox' copy per internal recipient; returns the sender's copy id."""
    sent_id = ctx.next_id("messages", "message_id", "msg_", 7)
    columns = "(message_id, owner_id, folder, from_email, to_emails, subject, body, sent_at, in_reply_to)"
    row = (sender["email"], ",".join(recipients), subject, body, ctx.now, reply_to)
    ctx.execute(
        f"INSERT INTO messages {columns} VALUES (?, ?, 'sent', ?, ?, ?, ?, ?, ?)",
        (sent_id, sender["employee_id"], *row),
    )
    for address in recipients:
        person = ctx.one("SELECT employee_id FROM employees WHERE email = ?", (address,))
        if person is not None:
            copy_id = ctx.next_id("messages", "message_id", "msg_", 7)
            ctx.execute(
                f"INSERT INTO messages {columns} VALUES (?, ?, 'inbox', ?, ?, ?, ?, ?, ?)",
                (copy_id, person["employee_id"], *row),
            )
    return sent_id


# --------------------------------------------------------------------------- lookups


def find_employee_id_by_email(ctx: ToolContext, *, email: str) -> dict:
    row = ctx.one("SELECT employee_id FROM employees WHERE email = ?", (email.strip().lower(),))
    if row is None:
        ctx.fail("No employee found with that work email.")
    return {"employee_id": row["employee_id"]}


def find_employee_id_by_number(ctx: ToolContext, *, employee_number: str) -> dict:
    row = ctx.one(
        "SELECT employee_id FROM employees WHERE employee_number = ?", (employee_number.strip().upper(),)
    )
    if row is None:
        ctx.fail("No employee found with that employee number.")
    return {"employee_id": row["employee_id"]}


def get_employee_details(ctx: ToolContext, *, employee_id: str) -> dict:
    p = _employee(ctx, employee_id)
    manager = None if p["manager_id"] is None else _employee(ctx, p["manager_id"])
    department = ctx.one("SELECT name FROM departments WHERE department_id = ?", (p["department_id"],))
    events = ctx.all(
        "SELECT e.event_id, e.title, e.date, e.start_time, e.end_time, e.status, a.response FROM events e "
        "JOIN event_attendees a ON a.event_id = e.event_id WHERE a.employee_id = ? "
        "ORDER BY e.date, e.start_time, e.event_id",
        (employee_id,),
    )
    messages = ctx.all(
        "SELECT message_id, folder, from_email, subject, sent_at FROM messages WHERE owner_id = ? "
        "ORDER BY sent_at DESC, message_id DESC",
        (employee_id,),
    )
    projects = ctx.all(
        "SELECT project_id, role FROM project_members WHERE employee_id = ? ORDER BY project_id",
        (employee_id,),
    )
    tasks = ctx.all(
        "SELECT task_id FROM tasks WHERE assignee_id = ? ORDER BY due_date, task_id", (employee_id,)
    )
    documents = ctx.all(
        "SELECT d.document_id, d.title, x.role FROM document_permissions x "
        "JOIN documents d ON d.document_id = x.document_id WHERE x.employee_id = ? ORDER BY d.document_id",
        (employee_id,),
    )
    approvals = ctx.all(
        "SELECT * FROM external_approvals WHERE employee_id = ? ORDER BY approval_id", (employee_id,)
    )
    return {
        "employee_id": p["employee_id"],
        "employee_number": p["employee_number"],
        "first_name": p["first_name"],
        "last_name": p["last_name"],
        "email": p["email"],
        "title": p["title"],
        "department": None if department is None else department["name"],
        "level": p["level"],
        "status": p["status"],
        "working_hours": f"{p['work_start']}-{p['work_end']}",
        "manager_email": None if manager is None else manager["email"],
        "manager_name": None if manager is None else _name(manager),
        "open_tasks": _open_tasks(ctx, employee_id),
        "events": events,
        "messages": messages,
        "projects": projects,
        "tasks": [t["task_id"] for t in tasks],
        "documents": documents,
        "external_approvals": [_approval_view(a) for a in approvals],
    }


def get_event_details(ctx: ToolContext, *, event_id: str) -> dict:
    return _event_view(ctx, event_id)


def list_rooms(ctx: ToolContext) -> dict:
    rooms = ctx.all("SELECT * FROM rooms ORDER BY floor, room_id")
    return {
        "rooms": [
            {
                "room_id": r["room_id"],
                "name": r["name"],
                "floor": r["floor"],
                "capacity": r["capacity"],
                "has_video": bool(r["has_video"]),
                "status": r["status"],
                "managers_only": r["capacity"] >= LARGE_ROOM_SEATS,
            }
            for r in rooms
        ]
    }


def get_message_details(ctx: ToolContext, *, message_id: str) -> dict:
    return _message_view(ctx, message_id)


def get_project_details(ctx: ToolContext, *, project_id: str) -> dict:
    p = _project(ctx, project_id)
    lead = _employee(ctx, p["lead_id"])
    department = ctx.one("SELECT name FROM departments WHERE department_id = ?", (p["department_id"],))
    members = ctx.all(
        "SELECT e.employee_id, e.email, e.first_name, e.last_name, e.status, m.role FROM project_members m "
        "JOIN employees e ON e.employee_id = m.employee_id WHERE m.project_id = ? "
        "ORDER BY m.role != 'lead', e.email",
        (project_id,),
    )
    tasks = ctx.all(
        "SELECT t.task_id, t.title, t.status, t.due_date, e.email FROM tasks t "
        "JOIN employees e ON e.employee_id = t.assignee_id WHERE t.project_id = ? ORDER BY t.task_id",
        (project_id,),
    )
    return {
        "project_id": p["project_id"],
        "name": p["name"],
        "department": None if department is None else department["name"],
        "status": p["status"],
        "lead_email": lead["email"],
        "start_date": p["start_date"],
        "end_date": p["end_date"],
        "members": [
            {
                "email": m["email"],
                "name": _name(m),
                "role": m["role"],
                "status": m["status"],
                "open_tasks": _open_tasks(ctx, m["employee_id"]),
            }
            for m in members
        ],
        "tasks": [
            {
                "task_id": t["task_id"],
                "title": t["title"],
                "status": t["status"],
                "due_date": t["due_date"],
                "assignee_email": t["email"],
            }
            for t in tasks
        ],
    }


def get_task_details(ctx: ToolContext, *, task_id: str) -> dict:
    return _task_view(ctx, task_id)


def get_document_details(ctx: ToolContext, *, document_id: str) -> dict:
    return _document_view(ctx, document_id)


# --------------------------------------------------------------------------- calendar


def create_event(
    ctx: ToolContext,
    *,
    employee_id: str,
    title: str,
    date: str,
    start_time: str,
    end_time: str,
    attendee_emails: list,
    room_id: str | None = None,
) -> dict:
    organizer = _employee(ctx, employee_id)
    if organizer["status"] != "active":
        ctx.fail(f"{_name(organizer)} is on leave and cannot organize meetings.")
    text = title.strip()
    if not text:
        ctx.fail("Give the meeting a title.")
    if not attendee_emails:
        ctx.fail("Invite at least one colleague.")
    if len(attendee_emails) > MAX_INVITEES:
        ctx.fail(f"At most {MAX_INVITEES} colleagues can be invited from here.")
    people: list[Row] = []
    for email in attendee_emails:
        person = _colleague(ctx, email, "meetings can invite")
        if person["employee_id"] == employee_id:
            ctx.fail("The organizer is on the event already; do not invite yourself.")
        if any(p["employee_id"] == person["employee_id"] for p in people):
            ctx.fail(f"{person['email']} is listed twice.")
        if person["status"] != "active":
            ctx.fail(f"{_name(person)} ({person['email']}) is on leave and cannot be invited.")
        people.append(person)
    day, start, end = _slot(ctx, date, start_time, end_time)
    _check_free(ctx, [organizer, *people], day, start, end)
    if room_id is not None:
        _check_room(ctx, _room(ctx, room_id), organizer, len(people) + 1, day, start, end)
    event_id = ctx.next_id("events", "event_id", "EVT", 6)
    ctx.execute(
        "INSERT INTO events (event_id, organizer_id, title, date, start_time, end_time, room_id, status, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'scheduled', ?)",
        (event_id, employee_id, text, day, start, end, room_id, ctx.now),
    )
    ctx.execute(
        "INSERT INTO event_attendees (event_id, employee_id, response) VALUES (?, ?, 'organizer')",
        (event_id, employee_id),
    )
    for person in people:
        ctx.execute(
            "INSERT INTO event_attendees (event_id, employee_id, response) VALUES (?, ?, 'pending')",
            (event_id, person["employee_id"]),
        )
    return _event_view(ctx, event_id)


def reschedule_event(
    ctx: ToolContext, *, employee_id: str, event_id: str, date: str, start_time: str, end_time: str
) -> dict:
    event = _event(ctx, event_id)
    _require_event_status(ctx, event, "be rescheduled")
    _require_organizer(ctx, event, employee_id, "reschedule")
    day, start, end = _slot(ctx, date, start_time, end_time)
    if (day, start, end) == (event["date"], event["start_time"], event["end_time"]):
        ctx.fail(f"Event {event_id} is already at {day} {start}-{end}.")
    _check_free(ctx, _attending(ctx, event_id), day, start, end, skip=event_id)
    if event["room_id"] is not None:
        organizer = _employee(ctx, employee_id)
        headcount = len(_attending(ctx, event_id))
        _check_room(ctx, _room(ctx, event["room_id"]), organizer, headcount, day, start, end, skip=event_id)
    ctx.execute(
        "UPDATE events SET date = ?, start_time = ?, end_time = ? WHERE event_id = ?",
        (day, start, end, event_id),
    )
    # Invitees answer again for the new time.
    ctx.execute(
        "UPDATE event_attendees SET response = 'pending' WHERE event_id = ? AND response != 'organizer'",
        (event_id,),
    )
    return _event_view(ctx, event_id)


def cancel_event(ctx: ToolContext, *, employee_id: str, event_id: str) -> dict:
    event = _event(ctx, event_id)
    _require_event_status(ctx, event, "be cancelled")
    _require_organizer(ctx, event, employee_id, "cancel")
    ctx.execute("UPDATE events SET status = 'cancelled' WHERE event_id = ?", (event_id,))
    return _event_view(ctx, event_id)


def respond_to_event(ctx: ToolContext, *, employee_id: str, event_id: str, response: str) -> dict:
    if response not in ("accepted", "declined"):
        ctx.fail("The response must be 'accepted' or 'declined'.")
    event = _event(ctx, event_id)
    _require_event_status(ctx, event, "be answered")
    invite = ctx.one(
        "SELECT response FROM event_attendees WHERE event_id = ? AND employee_id = ?", (event_id, employee_id)
    )
    if invite is None:
        ctx.fail(f"Employee {employee_id} is not invited to {event_id}.")
    if invite["response"] == "organizer":
        ctx.fail(f"Employee {employee_id} organizes {event_id}; organizers do not answer their own events.")
    if invite["response"] == response:
        ctx.fail(f"The invitation to {event_id} is already {response}.")
    if response == "accepted":
        person = _employee(ctx, employee_id)
        clash = _clash(ctx, employee_id, event["date"], event["start_time"], event["end_time"], event_id)
        if clash is not None:
            ctx.fail(
                f"{_name(person)} is already attending {clash['event_id']} '{clash['title']}' "
                f"{clash['start_time']}-{clash['end_time']} that day; decline that one first."
            )
    ctx.execute(
        "UPDATE event_attendees SET response = ? WHERE event_id = ? AND employee_id = ?",
        (response, event_id, employee_id),
    )
    return _event_view(ctx, event_id)


def book_room(ctx: ToolContext, *, employee_id: str, event_id: str, room_id: str) -> dict:
    event = _event(ctx, event_id)
    _require_event_status(ctx, event, "have a room booked")
    _require_organizer(ctx, event, employee_id, "book a room for")
    room = _room(ctx, room_id)
    if event["room_id"] == room_id:
        ctx.fail(f"Event {event_id} is already in {room['name']}.")
    organizer = _employee(ctx, employee_id)
    headcount = len(_attending(ctx, event_id))
    _check_room(
        ctx, room, organizer, headcount, event["date"], event["start_time"], event["end_time"], event_id
    )
    ctx.execute("UPDATE events SET room_id = ? WHERE event_id = ?", (room_id, event_id))
    return _event_view(ctx, event_id)


# --------------------------------------------------------------------------- mail


def send_message(ctx: ToolContext, *, employee_id: str, to_emails: list, subject: str, body: str) -> dict:
    sender = _employee(ctx, employee_id)
    if not to_emails:
        ctx.fail("Give at least one recipient.")
    if len(to_emails) > MAX_RECIPIENTS:
        ctx.fail(f"A message can go to at most {MAX_RECIPIENTS} recipients.")
    recipients: list[str] = []
    for email in to_emails:
        address = _address(ctx, email)
        if address in recipients:
            ctx.fail(f"{address} is listed twice.")
        if _domain(address) == COMPANY_DOMAIN:
            if ctx.one("SELECT employee_id FROM employees WHERE email = ?", (address,)) is None:
                ctx.fail(f"No employee with the email {address} is in the company directory.")
        else:
            _check_external(ctx, sender, address)
        recipients.append(address)
    if not subject.strip() or not body.strip():
        ctx.fail("A message needs a subject and a body.")
    sent_id = _deliver(ctx, sender, recipients, subject.strip(), body.strip(), None)
    return _message_view(ctx, sent_id)


def reply_to_message(ctx: ToolContext, *, employee_id: str, message_id: str, body: str) -> dict:
    message = _message(ctx, message_id)
    if message["owner_id"] != employee_id:
        ctx.fail(f"Message {message_id} is not in the mailbox of {employee_id}.")
    if message["folder"] not in REPLYABLE_FOLDERS:
        ctx.fail(
            f"Message {message_id} is in {message['folder']}; only messages in the inbox or archive can be answered."
        )
    sender = _employee(ctx, employee_id)
    recipient = message["from_email"]
    _check_external(ctx, sender, recipient)
    if not body.strip():
        ctx.fail("The reply needs a body.")
    subject = (
        message["subject"] if message["subject"].lower().startswith("re:") else "Re: " + message["subject"]
    )
    sent_id = _deliver(ctx, sender, [recipient], subject, body.strip(), message_id)
    return _message_view(ctx, sent_id)


def move_message(ctx: ToolContext, *, employee_id: str, message_id: str, folder: str) -> dict:
    if folder not in MOVABLE_FOLDERS:
        ctx.fail("Messages can be moved to inbox, archive or trash only.")
    message = _message(ctx, message_id)
    if message["owner_id"] != employee_id:
        ctx.fail(f"Message {message_id} is not in the mailbox of {employee_id}.")
    if message["folder"] not in MOVABLE_FOLDERS:
        ctx.fail(f"Message {message_id} is in {message['folder']}; sent messages stay in the sent folder.")
    if message["folder"] == folder:
        ctx.fail(f"Message {message_id} is already in {folder}.")
    ctx.execute("UPDATE messages SET folder = ? WHERE message_id = ?", (folder, message_id))
    return _message_view(ctx, message_id)


def request_external_approval(ctx: ToolContext, *, employee_id: str, domain: str, justification: str) -> dict:
    person = _employee(ctx, employee_id)
    name = domain.strip().lower().lstrip("@")
    labels = name.split(".")
    if len(labels) < 2 or not all(label and label.replace("-", "").isalnum() for label in labels):
        ctx.fail(f"{domain!r} is not an email domain such as 'globex.example'.")
    if name == COMPANY_DOMAIN:
        ctx.fail(f"{COMPANY_DOMAIN} is the company's own domain; internal mail needs no approval.")
    if not justification.strip():
        ctx.fail("Say why mail to that domain is needed.")
    if person["manager_id"] is None:
        ctx.fail(f"{_name(person)} has no manager to approve the request; transfer to a human agent.")
    valid = _valid_approval(ctx, employee_id, name)
    if valid is not None:
        ctx.fail(f"Mail to {name} is already approved ({valid['approval_id']}) until {valid['expires_on']}.")
    pending = ctx.all(
        "SELECT approval_id, domain FROM external_approvals WHERE employee_id = ? AND status = 'pending' "
        "ORDER BY approval_id",
        (employee_id,),
    )
    same = [p for p in pending if p["domain"] == name]
    if same:
        ctx.fail(f"A request for {name} ({same[0]['approval_id']}) is already waiting for the manager.")
    if len(pending) >= MAX_PENDING_APPROVALS:
        ctx.fail(
            f"{_name(person)} already has {len(pending)} pending requests; at most {MAX_PENDING_APPROVALS} "
            "can wait at a time."
        )
    approval_id = ctx.next_id("external_approvals", "approval_id", "APR", 5)
    ctx.execute(
        "INSERT INTO external_approvals (approval_id, employee_id, domain, justification, approver_id, status, "
        "requested_at, expires_on) VALUES (?, ?, ?, ?, ?, 'pending', ?, NULL)",
        (approval_id, employee_id, name, justification.strip(), person["manager_id"], ctx.now),
    )
    manager = _employee(ctx, person["manager_id"])
    row = ctx.one("SELECT * FROM external_approvals WHERE approval_id = ?", (approval_id,))
    assert row is not None
    return {**_approval_view(row), "approver_email": manager["email"]}


# --------------------------------------------------------------------------- tasks


def _due(ctx: ToolContext, project: Row, due_date: str) -> str:
    day = _date(ctx, due_date)
    if day < _today(ctx):
        ctx.fail(f"{day.isoformat()} is in the past; a task must be due today or later.")
    if day.weekday() >= 5:
        ctx.fail(f"{day.isoformat()} is a {day.strftime('%A')}; tasks fall due on working days.")
    if day.isoformat() > project["end_date"]:
        ctx.fail(
            f"{project['project_id']} ends on {project['end_date']}; no task can be due after the project's end."
        )
    return day.isoformat()


def create_task(
    ctx: ToolContext,
    *,
    employee_id: str,
    project_id: str,
    title: str,
    teammate_email: str,
    due_date: str,
    priority: str = "normal",
) -> dict:
    project = _project(ctx, project_id)
    if project["status"] != "active":
        ctx.fail(f"Project {project_id} is {project['status']}; tasks can be added only to active projects.")
    if _member(ctx, project_id, employee_id) is None:
        ctx.fail(f"Employee {employee_id} is not a member of {project_id}; only members can add tasks.")
    if priority not in PRIORITIES:
        ctx.fail(f"Priority must be one of: {', '.join(PRIORITIES)}.")
    text = title.strip()
    if not text:
        ctx.fail("Give the task a title.")
    person = _assignable(ctx, project, teammate_email)
    day = _due(ctx, project, due_date)
    task_id = ctx.next_id("tasks", "task_id", "TSK", 5)
    ctx.execute(
        "INSERT INTO tasks (task_id, assignee_id, project_id, title, status, priority, due_date, created_by, "
        "created_at, updated_at) VALUES (?, ?, ?, ?, 'todo', ?, ?, ?, ?, ?)",
        (task_id, person["employee_id"], project_id, text, priority, day, employee_id, ctx.now, ctx.now),
    )
    return _task_view(ctx, task_id)


def reassign_task(ctx: ToolContext, *, employee_id: str, task_id: str, teammate_email: str) -> dict:
    task = _task(ctx, task_id)
    _require_open_task(ctx, task, "be reassigned")
    project = _project(ctx, task["project_id"])
    _require_task_actor(ctx, task, project, employee_id, "reassign it")
    address = _address(ctx, teammate_email)
    current = _employee(ctx, task["assignee_id"])
    if current["email"] == address:
        ctx.fail(f"Task {task_id} is already assigned to {address}.")
    person = _assignable(ctx, project, address)
    ctx.execute(
        "UPDATE tasks SET assignee_id = ?, updated_at = ? WHERE task_id = ?",
        (person["employee_id"], ctx.now, task_id),
    )
    return _task_view(ctx, task_id)


def update_task_status(ctx: ToolContext, *, employee_id: str, task_id: str, status: str) -> dict:
    task = _task(ctx, task_id)
    _require_open_task(ctx, task, "change status")
    project = _project(ctx, task["project_id"])
    _require_task_actor(ctx, task, project, employee_id, "change its status")
    if status == task["status"]:
        ctx.fail(f"Task {task_id} is already {status}.")
    allowed = TASK_MOVES[task["status"]]
    if status not in allowed:
        ctx.fail(f"Task {task_id} is {task['status']}; it can move only to {' or '.join(allowed)}.")
    if status == "cancelled" and employee_id != project["lead_id"]:
        ctx.fail(f"Only the lead of {project['project_id']} can cancel a task.")
    ctx.execute("UPDATE tasks SET status = ?, updated_at = ? WHERE task_id = ?", (status, ctx.now, task_id))
    return _task_view(ctx, task_id)


# --------------------------------------------------------------------------- documents


def share_document(ctx: ToolContext, *, employee_id: str, document_id: str, email: str, role: str) -> dict:
    if role not in SHARE_ROLES:
        ctx.fail("Documents are shared as 'editor' or 'viewer'.")
    document = _document(ctx, document_id)
    if document["status"] != "active":
        ctx.fail(f"Document {document_id} is {document['status']}; archived documents cannot be shared.")
    if document["owner_id"] != employee_id:
        ctx.fail(f"Only the owner of {document_id} can share it.")
    person = _colleague(ctx, email, "documents can be shared with")
    if person["employee_id"] == employee_id:
        ctx.fail(f"{person['email']} owns {document_id} already.")
    if person["status"] != "active":
        ctx.fail(
            f"{_name(person)} ({person['email']}) is on leave; documents are not shared with people on leave."
        )
    if document["classification"] == "confidential" and person["department_id"] != document["department_id"]:
        ctx.fail(
            f"{document_id} is confidential and {_name(person)} ({person['email']}) works in another department; "
            "confidential documents are never shared outside their department."
        )
    current = ctx.one(
        "SELECT role FROM document_permissions WHERE document_id = ? AND employee_id = ?",
        (document_id, person["employee_id"]),
    )
    if current is not None and current["role"] == role:
        ctx.fail(f"{person['email']} is already a {role} of {document_id}.")
    if current is None:
        ctx.execute(
            "INSERT INTO document_permissions (document_id, employee_id, role, granted_at) VALUES (?, ?, ?, ?)",
            (document_id, person["employee_id"], role, ctx.now),
        )
    else:
        ctx.execute(
            "UPDATE document_permissions SET role = ?, granted_at = ? WHERE document_id = ? AND employee_id = ?",
            (role, ctx.now, document_id, person["employee_id"]),
        )
    return _document_view(ctx, document_id)


# --------------------------------------------------------------------------- utilities

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_UNARY: dict[type, Callable[[float], float]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


def _evaluate(ctx: ToolContext, node: ast.AST) -> int | float:
    if isinstance(node, ast.Expression):
        return _evaluate(ctx, node.body)
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(ctx, node.left), _evaluate(ctx, node.right)
        if isinstance(node.op, ast.Div) and right == 0:
            ctx.fail("Division by zero.")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(ctx, node.operand))
    ctx.fail("Only numbers, + - * /, and parentheses are allowed in the expression.")


def calculate(ctx: ToolContext, *, expression: str) -> dict:
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        ctx.fail("The expression is not valid arithmetic; use numbers, + - * /, and parentheses.")
    try:
        value = float(_evaluate(ctx, tree))
    except (OverflowError, RecursionError):
        ctx.fail("The expression is too large to evaluate.")
    if not math.isfinite(value):
        ctx.fail("The result is too large.")
    result = round(value, 2)
    return {"expression": expression, "result": 0.0 if result == 0 else result}


def transfer_to_human_agents(ctx: ToolContext, *, summary: str) -> dict:
    return {
        "transferred": True,
        "message": "The conversation has been transferred to a human agent of the IT and workplace help desk, "
        "who will follow up with the employee.",
        "summary": summary,
    }
