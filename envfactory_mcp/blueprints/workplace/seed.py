"""Deterministic seed state of the workplace environment, drawn from small word lists.

Everything comes from the ``random.Random`` passed in: lists are walked in a fixed order,
never through sets or dict iteration of unordered data, so one seed gives one state. The
environment clock is Wednesday 2026-06-17 14:00: events before it are completed (or were
cancelled), later ones scheduled (or cancelled); nobody is double-booked on events they
still attend, no room is double-booked, every event sits within the working hours of
everyone on it, mail to outside domains was sent only under an approval, and nobody has
more than 8 open tasks.
"""

from __future__ import annotations

import datetime
import itertools
import random
from typing import Any

Row = dict[str, Any]
Rows = dict[str, list[Row]]

TODAY = datetime.date(2026, 6, 17)
NOW = "2026-06-17T14:00:00Z"
NOW_TIME = "14:00"
DOMAIN = "acmecorp.example"
N_EMPLOYEES = 100
OPEN_TASK_LIMIT = 8

FIRST_NAMES = [
    "Aisha", "Ben", "Carmen", "Daniel", "Elena", "Felix", "Grace", "Hiro", "Ines", "Jonas",
    "Keisha", "Liam", "Maya", "Noah", "Olivia", "Pablo", "Quinn", "Rosa", "Samir", "Tara",
    "Umar", "Vera", "Wei", "Ximena", "Yusuf", "Zoe", "Arjun", "Bianca", "Chloe", "Dmitri",
    "Emeka", "Freya", "Gabriel", "Hana", "Isaac", "Julia", "Kofi", "Lena", "Marco", "Nadia",
]  # fmt: skip
LAST_NAMES = [
    "Adams", "Brooks", "Chen", "Diaz", "Evans", "Fischer", "Garcia", "Hughes", "Ito", "Johnson",
    "Khan", "Lopez", "Meyer", "Nguyen", "Okafor", "Patel", "Quintero", "Rossi", "Silva", "Tanaka",
    "Usman", "Volkov", "Walsh", "Xu", "Yilmaz", "Zimmer", "Novak", "Haddad", "Larsen", "Moreau",
]  # fmt: skip
# (department_id, name, floor, staff titles)
DEPARTMENTS: list[tuple[str, str, int, list[str]]] = [
    ("dep_ops", "Operations", 1, ["Operations Analyst", "Office Coordinator", "Facilities Specialist"]),
    ("dep_sales", "Sales", 2, ["Account Executive", "Sales Development Rep", "Account Manager"]),
    ("dep_mkt", "Marketing", 2, ["Marketing Specialist", "Content Writer", "Brand Designer"]),
    ("dep_eng", "Engineering", 3, ["Software Engineer", "Senior Software Engineer", "QA Engineer", "SRE"]),
    ("dep_prod", "Product", 4, ["Product Manager", "UX Designer", "Product Analyst"]),
    ("dep_fin", "Finance", 5, ["Accountant", "Financial Analyst", "Payroll Specialist"]),
    ("dep_hr", "People", 5, ["HR Generalist", "Recruiter", "People Partner"]),
    ("dep_legal", "Legal", 6, ["Counsel", "Paralegal", "Compliance Analyst"]),
]
DEPARTMENT_NAMES = {d: name for d, name, _, _ in DEPARTMENTS}
DEPARTMENT_WEIGHTS = {
    "dep_ops": 9,
    "dep_sales": 14,
    "dep_mkt": 10,
    "dep_eng": 24,
    "dep_prod": 12,
    "dep_fin": 11,
    "dep_hr": 9,
    "dep_legal": 8,
}
HOURS = [("08:00", "16:00"), ("08:30", "16:30"), ("09:00", "17:00"), ("09:00", "17:00"), ("09:30", "17:30"),
         ("10:00", "18:00")]  # fmt: skip
ROOM_NAMES = [
    "Aurora", "Birch", "Cedar", "Delta", "Ember", "Fjord", "Granite", "Harbor", "Iris", "Juniper",
    "Kestrel", "Lagoon", "Maple", "Nimbus", "Orchid", "Pioneer", "Quarry", "Redwood",
]  # fmt: skip
EVENT_TITLES = [
    "Sprint planning", "Weekly sync", "Budget review", "1:1 catch-up", "Design review", "Quarterly planning",
    "Customer feedback review", "Hiring debrief", "Roadmap walkthrough", "Retrospective", "Vendor evaluation",
    "Onboarding session", "Launch readiness", "Incident review", "Brainstorm", "Contract review",
]  # fmt: skip
EXTERNAL_DOMAINS = ["globex.example", "initech.example", "umbrella-partners.example", "vandelay.example",
                    "northwind.example", "contoso.example"]  # fmt: skip
EXTERNAL_CONTACTS = ["jordan", "sam.lee", "accounts", "r.gupta", "support", "m.schmidt"]
JUSTIFICATIONS = [
    "Coordinating the delivery schedule with our supplier",
    "Sending the signed contract back to the client",
    "Answering questions from the auditors",
    "Following up on the joint webinar",
    "Sharing the integration spec with the partner's engineers",
]
MAIL_TOPICS: list[tuple[str, str]] = [
    ("Agenda for Friday", "Here is the draft agenda for Friday; add anything I missed."),
    ("Quick question", "Do you have a minute later today to go over the numbers?"),
    ("Updated slides", "I have updated the slides with the latest figures."),
    ("Travel booking", "My travel for the conference is booked; details attached in the tracker."),
    ("Release notes", "The release notes for this sprint are ready for review."),
    ("Offsite lunch", "Lunch for the offsite is confirmed for 12:30."),
    ("Access request", "Could you give me access to the shared folder?"),
    ("Invoice question", "The invoice total does not match the purchase order."),
    ("Interview feedback", "Please send your interview feedback by tomorrow."),
    ("Policy update", "The expense policy changes on July 1; please read the summary."),
]
EXTERNAL_TOPICS: list[tuple[str, str]] = [
    ("Delivery schedule", "Can you confirm the delivery dates for the next shipment?"),
    ("Contract draft", "Attached is our redline of the contract draft."),
    ("Partnership follow-up", "Thanks for the call; here are the next steps we discussed."),
    ("Invoice 4471", "Our invoice 4471 is now due; please let us know when it is paid."),
]
PROJECT_NAMES = {
    "dep_ops": ["Office move 2026", "Badge system upgrade"],
    "dep_sales": ["CRM cleanup", "Partner program launch"],
    "dep_mkt": ["Summer campaign", "Website refresh"],
    "dep_eng": ["Payments API v2", "Mobile app redesign", "Observability rollout"],
    "dep_prod": ["Onboarding revamp", "Pricing experiments"],
    "dep_fin": ["FY26 budget", "Expense tool migration"],
    "dep_hr": ["Benefits enrollment"],
    "dep_legal": ["Contract templates update"],
}
TASK_TITLES = [
    "Draft the plan", "Collect requirements", "Review the estimates", "Prepare the kickoff deck",
    "Update the documentation", "Write test cases", "Set up the dashboard", "Clean up the backlog",
    "Schedule user interviews", "Get sign-off from finance", "Fix the reported issues", "Prepare the demo",
    "Write the summary report", "Check vendor quotes", "Update the timeline", "Archive old files",
]  # fmt: skip
DOC_TITLES = [
    "Team handbook", "Quarterly report", "Meeting notes", "Hiring plan", "Salary bands", "Roadmap",
    "Vendor list", "Incident postmortem", "Budget forecast", "Brand guidelines", "Contract checklist",
    "Onboarding guide", "Board presentation", "Customer list", "Security review",
]  # fmt: skip


def generate_seed(rng: random.Random) -> Rows:
    departments = [{"department_id": d, "name": n, "floor": f} for d, n, f, _ in DEPARTMENTS]
    employees = _employees(rng)
    rooms = _rooms(rng)
    events, attendees = _events(rng, employees, rooms)
    approvals = _approvals(rng, employees)
    messages = _messages(rng, employees, approvals)
    projects, members, tasks = _projects(rng, employees)
    documents, permissions = _documents(rng, employees)
    return {
        "departments": departments,
        "employees": employees,
        "rooms": rooms,
        "events": events,
        "event_attendees": attendees,
        "messages": messages,
        "external_approvals": approvals,
        "projects": projects,
        "project_members": members,
        "tasks": tasks,
        "documents": documents,
        "document_permissions": permissions,
    }


def _day(rng: random.Random, start: datetime.date, end: datetime.date) -> datetime.date:
    return start + datetime.timedelta(days=rng.randint(0, (end - start).days))


def _workday(rng: random.Random, start: datetime.date, end: datetime.date) -> datetime.date:
    """A Monday-to-Friday day in [start, end]; ``end`` itself when the range holds none."""
    days = [start + datetime.timedelta(days=n) for n in range((end - start).days + 1)]
    weekdays = [d for d in days if d.weekday() < 5]
    return rng.choice(weekdays) if weekdays else end


def _moment(rng: random.Random, day: datetime.date, latest: str = "18:59") -> str:
    hour = rng.randint(7, int(latest[:2]))
    minute = rng.randint(0, 59)
    text = f"{hour:02d}:{minute:02d}"
    if day == TODAY and text >= NOW_TIME:
        text = f"{rng.randint(7, 13):02d}:{minute:02d}"
    return f"{day.isoformat()}T{text}:00Z"


def _hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _employees(rng: random.Random) -> list[Row]:
    pairs = list(itertools.product(FIRST_NAMES, LAST_NAMES))
    picks = rng.sample(range(len(pairs)), N_EMPLOYEES)
    numbers = rng.sample(range(10000, 40000), N_EMPLOYEES)
    # Who works where: the chief executive first, then each department's director, managers and staff.
    slots: list[tuple[str, str]] = [("dep_ops", "ceo")]
    for dep, *_ in DEPARTMENTS:
        slots.append((dep, "director"))
        slots.extend([(dep, "manager")] * (2 if DEPARTMENT_WEIGHTS[dep] >= 12 else 1))
    pool = [dep for dep, *_ in DEPARTMENTS for _ in range(DEPARTMENT_WEIGHTS[dep])]
    while len(slots) < N_EMPLOYEES:
        slots.append((rng.choice(pool), "staff"))
    titles = {d: t for d, _, _, t in DEPARTMENTS}
    names = {d: n for d, n, _, _ in DEPARTMENTS}
    employees: list[Row] = []
    emails: list[str] = []
    heads: dict[str, str] = {}
    managers: dict[str, list[str]] = {}
    for n, ((dep, role), pick) in enumerate(zip(slots, picks, strict=True), start=1):
        first, last = pairs[pick]
        employee_id = f"emp_{n:05d}"
        email = f"{first}.{last}@{DOMAIN}".lower()
        if email in emails:
            email = f"{first}.{last}{n}@{DOMAIN}".lower()
        emails.append(email)
        if role == "ceo":
            title, level, manager = "Chief Executive Officer", "director", None
        elif role == "director":
            title, level, manager = f"Director of {names[dep]}", "director", "emp_00001"
            heads[dep] = employee_id
        elif role == "manager":
            title, level, manager = f"{names[dep]} Manager", "manager", heads[dep]
            managers.setdefault(dep, []).append(employee_id)
        else:
            title, level, manager = rng.choice(titles[dep]), "staff", rng.choice(managers[dep])
        start, end = rng.choice(HOURS)
        employees.append(
            {
                "employee_id": employee_id,
                "employee_number": f"E{numbers[n - 1]}",
                "email": email,
                "first_name": first,
                "last_name": last,
                "title": title,
                "department_id": dep,
                "manager_id": manager,
                "level": level,
                "work_start": start,
                "work_end": end,
                "status": "on_leave" if role == "staff" and rng.random() < 0.08 else "active",
                "hired_on": _day(rng, datetime.date(2012, 1, 9), datetime.date(2026, 5, 29)).isoformat(),
            }
        )
    return employees


def _rooms(rng: random.Random) -> list[Row]:
    rooms: list[Row] = []
    names = iter(ROOM_NAMES)
    capacities = [4, 6, 8, 10, 12, 20, 30]
    plan = [
        (1, [30, 8, 4]),
        (2, [6, 10, 20]),
        (3, [4, 8, 12, 6]),
        (4, [6, 10, 4]),
        (5, [8, 12]),
        (6, [6, 20]),
    ]
    for floor, seats in plan:
        for number, capacity in enumerate(seats, start=1):
            assert capacity in capacities
            rooms.append(
                {
                    "room_id": f"rm_{floor}_{number:02d}",
                    "name": next(names),
                    "floor": floor,
                    "capacity": capacity,
                    "has_video": 1 if capacity >= 8 or rng.random() < 0.4 else 0,
                    "status": "available",
                }
            )
    for room in (rooms[4], rooms[11]):
        room["status"] = "maintenance"
    return rooms


def _overlaps(busy: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and e > start for s, e in busy)


def _events(rng: random.Random, employees: list[Row], rooms: list[Row]) -> tuple[list[Row], list[Row]]:
    active = [e for e in employees if e["status"] == "active"]
    by_dep: dict[str, list[Row]] = {}
    for e in active:
        by_dep.setdefault(e["department_id"], []).append(e)
    busy: dict[tuple[str, str], list[tuple[int, int]]] = {}
    room_busy: dict[tuple[str, str], list[tuple[int, int]]] = {}
    events: list[Row] = []
    attendees: list[Row] = []
    first_day, last_day = datetime.date(2026, 5, 18), datetime.date(2026, 7, 17)
    now_minutes = 14 * 60
    while len(events) < 180:
        organizer = rng.choice(active)
        colleagues = [p for p in by_dep[organizer["department_id"]] if p is not organizer]
        others = [p for p in active if p is not organizer and p not in colleagues]
        count = rng.choice([1, 1, 2, 2, 3, 3, 4, 5])
        chosen = rng.sample(colleagues, min(count, len(colleagues)))
        if rng.random() < 0.35:
            chosen.append(rng.choice(others))
        people = [organizer, *chosen]
        day = _workday(rng, first_day, last_day)
        date = day.isoformat()
        length = rng.choice([30, 30, 45, 60, 60, 90])
        earliest = max(int(p["work_start"][:2]) * 60 + int(p["work_start"][3:]) for p in people)
        latest = min(int(p["work_end"][:2]) * 60 + int(p["work_end"][3:]) for p in people)
        starts = [m for m in range(earliest, latest - length + 1, 30)]
        if day == TODAY:  # nothing in progress at the clock's moment
            starts = [m for m in starts if m + length <= now_minutes or m > now_minutes]
        rng.shuffle(starts)
        start = next(
            (
                m
                for m in starts
                if not any(_overlaps(busy.get((p["employee_id"], date), []), m, m + length) for p in people)
            ),
            None,
        )
        if start is None:
            continue
        end = start + length
        past = (day, start) < (TODAY, now_minutes)
        cancelled = rng.random() < 0.1
        status = "cancelled" if cancelled else "completed" if past else "scheduled"
        room_id = None
        if rng.random() < 0.6:
            fits = [
                r
                for r in rooms
                if r["capacity"] >= len(people)
                and (r["capacity"] < 16 or organizer["level"] != "staff")
                and (r["status"] == "available" or past)
                and not _overlaps(room_busy.get((r["room_id"], date), []), start, end)
            ]
            fits.sort(key=lambda r: (r["capacity"], r["room_id"]))
            if fits:
                room_id = rng.choice(fits[:3])["room_id"]
        created = min(day - datetime.timedelta(days=rng.randint(1, 21)), TODAY)
        event = {
            "event_id": "",
            "organizer_id": organizer["employee_id"],
            "title": rng.choice(EVENT_TITLES),
            "date": date,
            "start_time": _hhmm(start),
            "end_time": _hhmm(end),
            "room_id": room_id,
            "status": status,
            "created_at": _moment(rng, created),
        }
        answers: list[tuple[str, str]] = [(organizer["employee_id"], "organizer")]
        for p in chosen:
            if past:
                response = rng.choice(["accepted", "accepted", "accepted", "declined"])
            else:
                response = rng.choice(["pending", "pending", "accepted", "accepted", "declined"])
            answers.append((p["employee_id"], response))
        if not cancelled:
            for employee_id, response in answers:
                if response != "declined":
                    busy.setdefault((employee_id, date), []).append((start, end))
            if room_id is not None:
                room_busy.setdefault((room_id, date), []).append((start, end))
        events.append(event)
        event["_answers"] = answers
    events.sort(key=lambda e: (e["date"], e["start_time"], e["organizer_id"]))
    base = rng.randint(2000, 3000)
    for i, event in enumerate(events, start=1):
        event["event_id"] = f"EVT{base + i:06d}"
        for employee_id, response in event.pop("_answers"):
            attendees.append(
                {"event_id": event["event_id"], "employee_id": employee_id, "response": response}
            )
    return events, attendees


def _approvals(rng: random.Random, employees: list[Row]) -> list[Row]:
    approvals: list[Row] = []
    askers = rng.sample([e for e in employees if e["manager_id"] is not None], 26)
    for person in askers:
        domains = rng.sample(EXTERNAL_DOMAINS, rng.choice([1, 1, 2]))
        for domain in domains:
            status = rng.choice(["approved", "approved", "approved", "pending", "rejected", "expired"])
            requested = _day(rng, datetime.date(2025, 10, 1), TODAY - datetime.timedelta(days=1))
            expires = None
            if status == "approved":
                expires = _day(
                    rng, TODAY + datetime.timedelta(days=14), datetime.date(2026, 12, 31)
                ).isoformat()
            elif status == "expired":
                expires = _day(
                    rng, datetime.date(2026, 1, 15), TODAY - datetime.timedelta(days=1)
                ).isoformat()
                requested = min(requested, datetime.date(2026, 1, 1))
            if status == "pending":
                requested = _day(rng, datetime.date(2026, 6, 1), TODAY - datetime.timedelta(days=1))
            approvals.append(
                {
                    "approval_id": "",
                    "employee_id": person["employee_id"],
                    "domain": domain,
                    "justification": rng.choice(JUSTIFICATIONS),
                    "approver_id": person["manager_id"],
                    "status": status,
                    "requested_at": _moment(rng, requested),
                    "expires_on": expires,
                }
            )
    # Someone at the limit of pending requests.
    busy = askers[0]
    for domain in EXTERNAL_DOMAINS:
        pending = [
            a for a in approvals if a["employee_id"] == busy["employee_id"] and a["status"] == "pending"
        ]
        taken = [a["domain"] for a in approvals if a["employee_id"] == busy["employee_id"]]
        if len(pending) >= 3:
            break
        if domain not in taken:
            approvals.append(
                {
                    "approval_id": "",
                    "employee_id": busy["employee_id"],
                    "domain": domain,
                    "justification": rng.choice(JUSTIFICATIONS),
                    "approver_id": busy["manager_id"],
                    "status": "pending",
                    "requested_at": _moment(
                        rng, _day(rng, datetime.date(2026, 6, 1), datetime.date(2026, 6, 16))
                    ),
                    "expires_on": None,
                }
            )
    approvals.sort(key=lambda a: (a["requested_at"], a["employee_id"]))
    for i, a in enumerate(approvals, start=1):
        a["approval_id"] = f"APR{i:05d}"
    return approvals


def _messages(rng: random.Random, employees: list[Row], approvals: list[Row]) -> list[Row]:
    by_dep: dict[str, list[Row]] = {}
    for e in employees:
        by_dep.setdefault(e["department_id"], []).append(e)
    by_email = {e["email"]: e for e in employees}
    copies: list[Row] = []

    def copy(owner: str, folder: str, sender: str, to: list[str], subject: str, body: str, at: str, key: int,
             reply: int | None = None) -> None:  # fmt: skip
        copies.append(
            {
                "message_id": "",
                "owner_id": owner,
                "folder": folder,
                "from_email": sender,
                "to_emails": ",".join(to),
                "subject": subject,
                "body": body,
                "sent_at": at,
                "in_reply_to": None,
                "_key": key,
                "_reply": reply,
            }
        )

    def received_folder() -> str:
        return rng.choice(["inbox", "inbox", "inbox", "archive", "archive", "trash"])

    key = 0
    for _ in range(150):
        sender = rng.choice(employees)
        colleagues = [p for p in by_dep[sender["department_id"]] if p is not sender]
        to = rng.sample(colleagues, rng.choice([1, 1, 2]))
        if rng.random() < 0.25:
            outsider = rng.choice([p for p in employees if p not in to and p is not sender])
            to.append(outsider)
        subject, body = rng.choice(MAIL_TOPICS)
        day = _workday(rng, datetime.date(2026, 5, 18), TODAY)
        at = _moment(rng, day, latest="17:59")
        addresses = [p["email"] for p in to]
        key += 1
        copy(sender["employee_id"], "sent", sender["email"], addresses, subject, body, at, key)
        for person in to:
            key += 1
            copy(person["employee_id"], received_folder(), sender["email"], addresses, subject, body, at, key)
            if rng.random() < 0.15 and at < "2026-06-16":
                # The recipient answered: their sent reply and the original sender's inbox copy.
                later = datetime.date.fromisoformat(at[:10]) + datetime.timedelta(days=1)
                reply_at = _moment(rng, later, latest="17:59")
                original = key
                text = "Thanks, noted. I will follow up shortly."
                key += 1
                copy(
                    person["employee_id"],
                    "sent",
                    person["email"],
                    [sender["email"]],
                    f"Re: {subject}",
                    text,
                    reply_at,
                    key,
                    original,
                )
                key += 1
                copy(
                    sender["employee_id"],
                    received_folder(),
                    person["email"],
                    [sender["email"]],
                    f"Re: {subject}",
                    text,
                    reply_at,
                    key,
                    original,
                )
    # Mail from outside partners, and answers sent to them under an approval.
    valid = [a for a in approvals if a["status"] == "approved"]
    for _ in range(45):
        person = rng.choice(employees)
        own = [a for a in valid if a["employee_id"] == person["employee_id"]]
        domain = rng.choice(own)["domain"] if own and rng.random() < 0.7 else rng.choice(EXTERNAL_DOMAINS)
        outside = f"{rng.choice(EXTERNAL_CONTACTS)}@{domain}"
        subject, body = rng.choice(EXTERNAL_TOPICS)
        day = _workday(rng, datetime.date(2026, 5, 18), TODAY)
        at = _moment(rng, day, latest="17:59")
        key += 1
        copy(person["employee_id"], received_folder(), outside, [person["email"]], subject, body, at, key)
    for approval in valid[:14]:
        person = next(e for e in employees if e["employee_id"] == approval["employee_id"])
        address = f"{rng.choice(EXTERNAL_CONTACTS)}@{approval['domain']}"
        subject, body = rng.choice(EXTERNAL_TOPICS)
        day = _workday(rng, datetime.date(2026, 6, 1), TODAY)
        key += 1
        copy(person["employee_id"], "sent", person["email"], [address], subject, body, _moment(rng, day), key)
    assert all(c["from_email"] in by_email or "@" in c["from_email"] for c in copies)
    copies.sort(key=lambda c: (c["sent_at"], c["_key"]))
    ids: dict[int, str] = {}
    for i, c in enumerate(copies, start=1):
        c["message_id"] = f"msg_{i:07d}"
        ids[c["_key"]] = c["message_id"]
    for c in copies:
        reply = c.pop("_reply")
        c.pop("_key")
        c["in_reply_to"] = None if reply is None else ids[reply]
    return copies


def _projects(rng: random.Random, employees: list[Row]) -> tuple[list[Row], list[Row], list[Row]]:
    by_dep: dict[str, list[Row]] = {}
    for e in employees:
        if e["level"] != "director" or e["manager_id"] is not None:
            by_dep.setdefault(e["department_id"], []).append(e)
    projects: list[Row] = []
    members: list[Row] = []
    tasks: list[Row] = []
    open_count: dict[str, int] = {}
    statuses = ["active"] * 9 + ["on_hold"] * 3 + ["completed"] * 2
    names = [(dep, name) for dep, *_ in DEPARTMENTS for name in PROJECT_NAMES[dep]]
    order = rng.sample(range(len(names)), len(names))
    for number, (index, status) in enumerate(zip(order, statuses, strict=False), start=1):
        dep, name = names[index]
        staff = [e for e in by_dep[dep] if e["status"] == "active"]
        lead = rng.choice([e for e in staff if e["level"] == "manager"] or staff)
        team = rng.sample(
            [e for e in by_dep[dep] if e is not lead], min(rng.randint(3, 6), len(by_dep[dep]) - 1)
        )
        if rng.random() < 0.4:
            team.append(rng.choice([e for e in employees if e["department_id"] != dep and e["manager_id"]]))
        project_id = f"PRJ{100 + number * 3:03d}"
        start = _day(rng, datetime.date(2025, 9, 1), datetime.date(2026, 4, 30))
        if status == "completed":
            end = _workday(rng, datetime.date(2026, 5, 1), datetime.date(2026, 6, 12))
        else:
            end = _workday(rng, datetime.date(2026, 7, 20), datetime.date(2026, 12, 18))
        projects.append(
            {
                "project_id": project_id,
                "lead_id": lead["employee_id"],
                "name": name,
                "department_id": dep,
                "status": status,
                "start_date": start.isoformat(),
                "end_date": end.isoformat(),
            }
        )
        members.append({"project_id": project_id, "employee_id": lead["employee_id"], "role": "lead"})
        for person in team:
            members.append({"project_id": project_id, "employee_id": person["employee_id"], "role": "member"})
        crew = [lead, *team]
        for _ in range(rng.randint(9, 17)):
            assignee = rng.choice(crew)
            if status == "completed":
                state = rng.choice(["done", "done", "done", "cancelled"])
            else:
                state = rng.choice(
                    ["todo", "todo", "in_progress", "in_progress", "blocked", "done", "done", "cancelled"]
                )
            if state in ("todo", "in_progress", "blocked"):
                if (
                    open_count.get(assignee["employee_id"], 0) >= OPEN_TASK_LIMIT
                    or assignee["status"] != "active"
                ):
                    state = "done"
                else:
                    open_count[assignee["employee_id"]] = open_count.get(assignee["employee_id"], 0) + 1
            tasks.append(_task(rng, project_id, start, end, assignee, rng.choice([lead, assignee]), state))
    # One busy member of the first active project at the limit of open tasks.
    first = next(p for p in projects if p["status"] == "active")
    crew_ids = [m["employee_id"] for m in members if m["project_id"] == first["project_id"]]
    people = {e["employee_id"]: e for e in employees}
    busy = next(people[i] for i in crew_ids if people[i]["status"] == "active" and i != first["lead_id"])
    lead = people[first["lead_id"]]
    start = datetime.date.fromisoformat(first["start_date"])
    end = datetime.date.fromisoformat(first["end_date"])
    while open_count.get(busy["employee_id"], 0) < OPEN_TASK_LIMIT:
        open_count[busy["employee_id"]] = open_count.get(busy["employee_id"], 0) + 1
        tasks.append(_task(rng, first["project_id"], start, end, busy, lead, "todo"))
    tasks.sort(key=lambda t: (t["created_at"], t["project_id"]))
    base = rng.randint(1000, 2000)
    for i, t in enumerate(tasks, start=1):
        t["task_id"] = f"TSK{base + i:05d}"
    return projects, members, tasks


def _task(
    rng: random.Random,
    project_id: str,
    start: datetime.date,
    end: datetime.date,
    assignee: Row,
    creator: Row,
    state: str,
) -> Row:
    created = _day(rng, start, min(end, TODAY - datetime.timedelta(days=1)))
    if state in ("done", "cancelled"):
        last = min(end, TODAY + datetime.timedelta(days=20))
        due = _workday(rng, min(created + datetime.timedelta(days=1), last), last)
    else:
        due = _workday(
            rng, max(created + datetime.timedelta(days=1), TODAY - datetime.timedelta(days=10)), end
        )
    updated = _day(rng, created, TODAY)
    created_at = _moment(rng, created)
    updated_at = max(_moment(rng, updated), created_at)
    return {
        "task_id": "",
        "assignee_id": assignee["employee_id"],
        "project_id": project_id,
        "title": rng.choice(TASK_TITLES),
        "status": state,
        "priority": rng.choice(["low", "normal", "normal", "normal", "high", "urgent"]),
        "due_date": due.isoformat(),
        "created_by": creator["employee_id"],
        "created_at": created_at,
        "updated_at": updated_at,
    }


def _documents(rng: random.Random, employees: list[Row]) -> tuple[list[Row], list[Row]]:
    by_dep: dict[str, list[Row]] = {}
    for e in employees:
        by_dep.setdefault(e["department_id"], []).append(e)
    documents: list[Row] = []
    permissions: list[Row] = []
    for n in range(1, 81):
        owner = rng.choice(employees)
        dep = owner["department_id"]
        classification = rng.choice(["public", "internal", "internal", "confidential"])
        status = "archived" if rng.random() < 0.15 else "active"
        document_id = f"DOC{n * 7 + 40:05d}"
        updated = _day(rng, datetime.date(2025, 11, 1), TODAY)
        documents.append(
            {
                "document_id": document_id,
                "owner_id": owner["employee_id"],
                "title": f"{rng.choice(DOC_TITLES)} ({DEPARTMENT_NAMES[dep]})",
                "department_id": dep,
                "classification": classification,
                "status": status,
                "updated_at": _moment(rng, updated),
            }
        )
        permissions.append(
            {
                "document_id": document_id,
                "employee_id": owner["employee_id"],
                "role": "owner",
                "granted_at": _moment(rng, updated),
            }
        )
        pool = [e for e in by_dep[dep] if e is not owner]
        if classification != "confidential":
            pool += rng.sample([e for e in employees if e["department_id"] != dep], 3)
        for person in rng.sample(pool, min(rng.choice([1, 2, 2, 3, 4]), len(pool))):
            permissions.append(
                {
                    "document_id": document_id,
                    "employee_id": person["employee_id"],
                    "role": rng.choice(["editor", "viewer", "viewer"]),
                    "granted_at": _moment(rng, _day(rng, datetime.date(2025, 11, 1), updated)),
                }
            )
    return documents, permissions
