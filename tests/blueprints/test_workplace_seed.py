"""The workplace seed: deterministic, big enough, every state present, and internally consistent."""

from __future__ import annotations

import datetime
import random
from collections import Counter, defaultdict

import pytest

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.env import Environment, build_env

NOW = "2026-06-17T14:00:00Z"
TODAY = "2026-06-17"
DOMAIN = "acmecorp.example"


@pytest.fixture(scope="module")
def workplace_env() -> Environment:
    return build_env(load_blueprint("workplace"))


@pytest.fixture(scope="module")
def state(workplace_env) -> dict:
    return workplace_env.seed_state


def test_same_seed_gives_identical_sql(workplace_env):
    blueprint = load_blueprint("workplace")
    assert blueprint.generate_seed(random.Random(5)) == blueprint.generate_seed(random.Random(5))
    again = build_env(blueprint, blueprint.default_seed)
    assert again.seed_sql == workplace_env.seed_sql
    assert again.seed_hash == workplace_env.seed_hash


def test_different_seed_gives_different_state():
    blueprint = load_blueprint("workplace")
    assert blueprint.generate_seed(random.Random(1)) != blueprint.generate_seed(random.Random(2))


def test_sizes_and_every_state_present(state):
    total = sum(len(rows) for rows in state.values())
    assert 1000 <= total <= 2500
    assert len(state["employees"]) >= 80 and len(state["events"]) >= 150
    expected = {
        ("employees", "status"): {"active", "on_leave"},
        ("employees", "level"): {"staff", "manager", "director"},
        ("rooms", "status"): {"available", "maintenance"},
        ("events", "status"): {"scheduled", "completed", "cancelled"},
        ("event_attendees", "response"): {"organizer", "pending", "accepted", "declined"},
        ("messages", "folder"): {"inbox", "sent", "archive", "trash"},
        ("external_approvals", "status"): {"pending", "approved", "rejected", "expired"},
        ("projects", "status"): {"active", "on_hold", "completed"},
        ("project_members", "role"): {"lead", "member"},
        ("tasks", "status"): {"todo", "in_progress", "blocked", "done", "cancelled"},
        ("tasks", "priority"): {"low", "normal", "high", "urgent"},
        ("documents", "classification"): {"public", "internal", "confidential"},
        ("documents", "status"): {"active", "archived"},
        ("document_permissions", "role"): {"owner", "editor", "viewer"},
    }
    for (table, column), values in expected.items():
        assert {r[column] for r in state[table]} == values, (table, column)
    assert any(r["capacity"] >= 16 for r in state["rooms"]) and any(
        r["capacity"] < 16 for r in state["rooms"]
    )


def test_keys_are_unique_and_references_resolve(workplace_env, state):
    for table in workplace_env.spec.tables:
        keys = [tuple(r[k] for k in table.primary_key) for r in state[table.name]]
        assert len(keys) == len(set(keys)), table.name
        for column in table.columns:
            if column.references is None:
                continue
            target, target_column = column.references.split(".")
            known = {r[target_column] for r in state[target]}
            for r in state[table.name]:
                assert r[column.name] is None or r[column.name] in known, (table.name, column.name, r)


def test_employees_form_one_hierarchy(state):
    people = {e["employee_id"]: e for e in state["employees"]}
    assert len({e["email"] for e in state["employees"]}) == len(people)
    assert len({e["employee_number"] for e in state["employees"]}) == len(people)
    assert [e["employee_id"] for e in state["employees"] if e["manager_id"] is None] == ["emp_00001"]
    for e in state["employees"]:
        assert e["email"].endswith("@" + DOMAIN) and e["email"] == e["email"].lower()
        assert e["work_start"] < e["work_end"] and e["hired_on"] <= TODAY
        if e["manager_id"] is not None:
            boss = people[e["manager_id"]]
            assert boss["level"] in ("manager", "director")
            if e["level"] == "staff":
                assert boss["department_id"] == e["department_id"]
        # Every chain of managers ends at the chief executive.
        seen, at = set(), e
        while at["manager_id"] is not None:
            assert at["employee_id"] not in seen
            seen.add(at["employee_id"])
            at = people[at["manager_id"]]
        assert at["employee_id"] == "emp_00001"


def _minutes(text: str) -> int:
    return int(text[:2]) * 60 + int(text[3:])


def test_events_fit_the_clock_hours_and_nobody_is_double_booked(state):
    people = {e["employee_id"]: e for e in state["employees"]}
    rooms = {r["room_id"]: r for r in state["rooms"]}
    events = {e["event_id"]: e for e in state["events"]}
    going: dict[str, list[str]] = defaultdict(list)
    organizers: Counter[str] = Counter()
    for a in state["event_attendees"]:
        if a["response"] == "organizer":
            organizers[a["event_id"]] += 1
            assert events[a["event_id"]]["organizer_id"] == a["employee_id"]
        if a["response"] != "declined":
            going[a["event_id"]].append(a["employee_id"])
    assert all(organizers[e] == 1 for e in events)
    busy: dict[tuple[str, str], list[tuple[int, int, str]]] = defaultdict(list)
    room_busy: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for e in state["events"]:
        day = datetime.date.fromisoformat(e["date"])
        assert day.weekday() < 5
        start, end = _minutes(e["start_time"]), _minutes(e["end_time"])
        assert start % 15 == 0 and end % 15 == 0 and start < end
        begins = f"{e['date']}T{e['start_time']}:00Z"
        if e["status"] == "completed":
            assert f"{e['date']}T{e['end_time']}:00Z" <= NOW
        if e["status"] == "scheduled":
            assert begins > NOW
        assert e["created_at"] <= NOW
        for who in going[e["event_id"]]:
            person = people[who]
            assert person["work_start"] <= e["start_time"] and e["end_time"] <= person["work_end"], (
                e,
                person,
            )
        if e["status"] == "cancelled":
            continue
        for who in going[e["event_id"]]:
            for s, t, other in busy[(who, e["date"])]:
                assert not (s < end and t > start), (who, e["event_id"], other)
            busy[(who, e["date"])].append((start, end, e["event_id"]))
        if e["room_id"] is not None:
            room = rooms[e["room_id"]]
            assert room["capacity"] >= len(going[e["event_id"]]) or e["status"] == "completed"
            if e["status"] == "scheduled":
                assert room["status"] == "available"
                if room["capacity"] >= 16:
                    assert people[e["organizer_id"]]["level"] != "staff"
            for s, t in room_busy[(e["room_id"], e["date"])]:
                assert not (s < end and t > start), e
            room_busy[(e["room_id"], e["date"])].append((start, end))


def test_mail_copies_and_external_approvals_agree(state):
    people = {e["employee_id"]: e for e in state["employees"]}
    messages = {m["message_id"]: m for m in state["messages"]}
    approved = defaultdict(list)
    for a in state["external_approvals"]:
        assert people[a["employee_id"]]["manager_id"] == a["approver_id"]
        assert a["requested_at"] <= NOW and not a["domain"].endswith(DOMAIN)
        if a["status"] == "approved":
            assert a["expires_on"] >= TODAY
            approved[a["employee_id"]].append(a["domain"])
        elif a["status"] == "expired":
            assert a["expires_on"] < TODAY
        else:
            assert a["expires_on"] is None
    pending = Counter(a["employee_id"] for a in state["external_approvals"] if a["status"] == "pending")
    assert max(pending.values()) == 3
    for m in state["messages"]:
        owner = people[m["owner_id"]]
        assert m["sent_at"] <= NOW
        recipients = m["to_emails"].split(",")
        if m["folder"] == "sent":
            assert m["from_email"] == owner["email"]
            for address in recipients:
                if not address.endswith("@" + DOMAIN):
                    assert address.split("@")[1] in approved[owner["employee_id"]]
        else:
            assert owner["email"] in recipients
        if m["in_reply_to"] is not None:
            original = messages[m["in_reply_to"]]
            assert original["sent_at"] < m["sent_at"] and m["subject"] == "Re: " + original["subject"]
    folders = Counter(m["folder"] for m in state["messages"] if not m["from_email"].endswith("@" + DOMAIN))
    assert folders["inbox"] + folders["archive"] > 0


def test_projects_members_and_tasks(state):
    people = {e["employee_id"]: e for e in state["employees"]}
    projects = {p["project_id"]: p for p in state["projects"]}
    members = defaultdict(set)
    for m in state["project_members"]:
        members[m["project_id"]].add(m["employee_id"])
        if m["role"] == "lead":
            assert projects[m["project_id"]]["lead_id"] == m["employee_id"]
    open_tasks: Counter[str] = Counter()
    for p in state["projects"]:
        assert p["lead_id"] in members[p["project_id"]]
        assert people[p["lead_id"]]["department_id"] == p["department_id"]
        if p["status"] == "completed":
            assert p["end_date"] < TODAY
        else:
            assert p["end_date"] > TODAY
    for t in state["tasks"]:
        project = projects[t["project_id"]]
        assert t["assignee_id"] in members[t["project_id"]]
        assert t["created_at"] <= t["updated_at"] <= NOW
        assert t["due_date"] <= project["end_date"]
        assert datetime.date.fromisoformat(t["due_date"]).weekday() < 5
        if t["status"] in ("todo", "in_progress", "blocked"):
            assert project["status"] != "completed"
            assert people[t["assignee_id"]]["status"] == "active"
            open_tasks[t["assignee_id"]] += 1
    assert max(open_tasks.values()) == 8  # someone is at the limit
    assert any(t["due_date"] < TODAY and t["status"] == "todo" for t in state["tasks"])  # overdue work exists


def test_documents_and_permissions(state):
    people = {e["employee_id"]: e for e in state["employees"]}
    documents = {d["document_id"]: d for d in state["documents"]}
    owners: Counter[str] = Counter()
    for p in state["document_permissions"]:
        doc = documents[p["document_id"]]
        if p["role"] == "owner":
            owners[p["document_id"]] += 1
            assert doc["owner_id"] == p["employee_id"]
        if doc["classification"] == "confidential":
            assert people[p["employee_id"]]["department_id"] == doc["department_id"]
        assert p["granted_at"] <= NOW
    assert all(owners[d] == 1 for d in documents)
    for d in state["documents"]:
        assert people[d["owner_id"]]["department_id"] == d["department_id"]
