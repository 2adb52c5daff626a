"""Tables of the workplace environment. Dates are YYYY-MM-DD, times HH:MM office time; statuses are enums."""

from __future__ import annotations

from typing import Any

from envfactory_mcp.blueprints.kit import col
from envfactory_mcp.spec import ColumnSpec, TableSpec

COMPANY_DOMAIN = "acmecorp.example"
LEVELS = ["staff", "manager", "director"]
EMPLOYEE_STATUSES = ["active", "on_leave"]
ROOM_STATUSES = ["available", "maintenance"]
EVENT_STATUSES = ["scheduled", "completed", "cancelled"]
RESPONSES = ["organizer", "pending", "accepted", "declined"]
FOLDERS = ["inbox", "sent", "archive", "trash"]
APPROVAL_STATUSES = ["pending", "approved", "rejected", "expired"]
PROJECT_STATUSES = ["active", "on_hold", "completed"]
MEMBER_ROLES = ["lead", "member"]
TASK_STATUSES = ["todo", "in_progress", "blocked", "done", "cancelled"]
PRIORITIES = ["low", "normal", "high", "urgent"]
CLASSIFICATIONS = ["public", "internal", "confidential"]
DOCUMENT_STATUSES = ["active", "archived"]
ACCESS_ROLES = ["owner", "editor", "viewer"]

_DATE = "GLOB '20[0-9][0-9]-[01][0-9]-[0-3][0-9]'"
_TIME = "GLOB '[0-2][0-9]:[0-5][0-9]'"


def _ref(name: str, target: str, entity: str, description: str, **kw: Any) -> ColumnSpec:
    return col(name, description=description, references=target, entity=entity, **kw)


def build_tables() -> list[TableSpec]:
    departments = TableSpec(
        name="departments",
        entity="department",
        description="Departments of the company.",
        primary_key=["department_id"],
        columns=[
            col("department_id", description="Id such as 'dep_eng'.", entity="department"),
            col("name", description="Department name.", unique=True),
            col("floor", "INTEGER", description="Floor of the headquarters it sits on.", check="floor >= 1"),
        ],
    )
    employees = TableSpec(
        name="employees",
        entity="employee",
        description="Employees: department, manager, level, working hours and whether they are on leave.",
        primary_key=["employee_id"],
        columns=[
            col("employee_id", description="Internal id, e.g. 'emp_00042'.", entity="employee"),
            col(
                "employee_number",
                description="Employee number printed on the badge, e.g. 'E20417'; unique.",
                unique=True,
                check="employee_number GLOB 'E[0-9][0-9][0-9][0-9][0-9]'",
            ),
            col(
                "email",
                description="Work email (lower case, @" + COMPANY_DOMAIN + "); unique.",
                unique=True,
                entity="email",
                check="email LIKE '%_@" + COMPANY_DOMAIN + "'",
            ),
            col("first_name", description="First name.", check="length(first_name) > 0"),
            col("last_name", description="Last name.", check="length(last_name) > 0"),
            col("title", description="Job title.", check="length(title) > 0"),
            _ref("department_id", "departments.department_id", "department", "Department."),
            _ref(
                "manager_id",
                "employees.employee_id",
                "employee",
                "Manager; NULL for the chief executive.",
                nullable=True,
            ),
            col(
                "level", description="Level; managers and directors may book large rooms.", enum=list(LEVELS)
            ),
            col("work_start", description="Start of working hours, HH:MM.", check="work_start " + _TIME),
            col(
                "work_end",
                description="End of working hours, HH:MM.",
                check="work_end " + _TIME + " AND work_end > work_start",
            ),
            col("status", description="Employment status.", enum=list(EMPLOYEE_STATUSES)),
            col("hired_on", description="Hire date, YYYY-MM-DD.", check="hired_on " + _DATE),
        ],
    )
    rooms = TableSpec(
        name="rooms",
        entity="room",
        description="Meeting rooms with capacity and equipment; rooms under maintenance cannot be booked.",
        primary_key=["room_id"],
        columns=[
            col("room_id", description="Id such as 'rm_3_02' (floor 3, room 2).", entity="room"),
            col("name", description="Room name as on the door.", unique=True),
            col("floor", "INTEGER", description="Floor.", check="floor >= 1"),
            col("capacity", "INTEGER", description="Seats.", check="capacity >= 2"),
            col("has_video", "INTEGER", description="1 when it has video conferencing.", enum=[0, 1]),
            col("status", description="Room status.", enum=list(ROOM_STATUSES)),
        ],
    )
    events = TableSpec(
        name="events",
        entity="event",
        description="Calendar events: organizer, date and time, optional room, status "
        "(scheduled, completed once over, cancelled).",
        primary_key=["event_id"],
        columns=[
            col(
                "event_id",
                description="Event id shown on the invitation, e.g. 'EVT004512'.",
                entity="event",
                check="event_id GLOB 'EVT[0-9][0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("organizer_id", "employees.employee_id", "employee", "Organizer."),
            col("title", description="Title of the meeting.", check="length(title) > 0"),
            col("date", description="Date, YYYY-MM-DD.", check="date " + _DATE),
            col("start_time", description="Start, HH:MM office time.", check="start_time " + _TIME),
            col(
                "end_time",
                description="End, HH:MM office time.",
                check="end_time " + _TIME + " AND end_time > start_time",
            ),
            _ref("room_id", "rooms.room_id", "room", "Room booked, if any.", nullable=True),
            col("status", description="Event status.", enum=list(EVENT_STATUSES)),
            col("created_at", description="When it was created (ISO 8601, UTC)."),
        ],
    )
    event_attendees = TableSpec(
        name="event_attendees",
        description="Who is on each event and how they answered; the organizer is listed with response 'organizer'.",
        primary_key=["event_id", "employee_id"],
        columns=[
            _ref("event_id", "events.event_id", "event", "Event."),
            _ref("employee_id", "employees.employee_id", "employee", "Attendee."),
            col("response", description="Answer to the invitation.", enum=list(RESPONSES)),
        ],
    )
    messages = TableSpec(
        name="messages",
        entity="message",
        description="Mailbox copies of email messages: each sender and internal recipient has their own copy in a folder.",
        primary_key=["message_id"],
        columns=[
            col(
                "message_id",
                description="Id such as 'msg_0001234'.",
                entity="message",
                check="message_id GLOB 'msg_[0-9]*'",
            ),
            _ref("owner_id", "employees.employee_id", "employee", "Whose mailbox the copy is in."),
            col("folder", description="Folder of this copy.", enum=list(FOLDERS)),
            col("from_email", description="Sender address.", entity="email", check="from_email LIKE '%_@_%'"),
            col("to_emails", description="Recipients, comma-separated.", check="length(to_emails) > 0"),
            col("subject", description="Subject line.", check="length(subject) > 0"),
            col("body", description="Text of the message.", check="length(body) > 0"),
            col("sent_at", description="When it was sent (ISO 8601, UTC)."),
            col("in_reply_to", description="Message id this one answers, if a reply.", nullable=True),
        ],
    )
    approvals = TableSpec(
        name="external_approvals",
        entity="approval",
        description="Manager approvals to email an external domain: pending, approved (valid until expires_on), "
        "rejected or expired.",
        primary_key=["approval_id"],
        columns=[
            col(
                "approval_id",
                description="Id such as 'APR00012'.",
                entity="approval",
                check="approval_id GLOB 'APR[0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("employee_id", "employees.employee_id", "employee", "Employee who asked."),
            col(
                "domain",
                description="External email domain, e.g. 'globex.example'.",
                check="domain LIKE '%_._%'",
            ),
            col("justification", description="Why the employee needs to write to that domain."),
            _ref("approver_id", "employees.employee_id", "employee", "Manager who decides."),
            col("status", description="Approval status.", enum=list(APPROVAL_STATUSES)),
            col("requested_at", description="When requested (ISO 8601, UTC)."),
            col(
                "expires_on",
                description="Last day an approval is valid, YYYY-MM-DD; NULL unless approved or expired.",
                nullable=True,
                check="(expires_on IS NULL) = (status IN ('pending', 'rejected'))",
            ),
        ],
    )
    projects = TableSpec(
        name="projects",
        entity="project",
        description="Projects of a department, led by one employee, with a planned end date.",
        primary_key=["project_id"],
        columns=[
            col(
                "project_id",
                description="Project key, e.g. 'PRJ104'.",
                entity="project",
                check="project_id GLOB 'PRJ[0-9][0-9][0-9]'",
            ),
            _ref("lead_id", "employees.employee_id", "employee", "Project lead."),
            col("name", description="Project name.", unique=True),
            _ref("department_id", "departments.department_id", "department", "Owning department."),
            col("status", description="Project status.", enum=list(PROJECT_STATUSES)),
            col("start_date", description="Start date, YYYY-MM-DD.", check="start_date " + _DATE),
            col(
                "end_date",
                description="Planned end date, YYYY-MM-DD; no task is due after it.",
                check="end_date " + _DATE + " AND end_date > start_date",
            ),
        ],
    )
    project_members = TableSpec(
        name="project_members",
        description="Members of each project; tasks are assigned only to members.",
        primary_key=["project_id", "employee_id"],
        columns=[
            _ref("project_id", "projects.project_id", "project", "Project."),
            _ref("employee_id", "employees.employee_id", "employee", "Member."),
            col("role", description="Role in the project.", enum=list(MEMBER_ROLES)),
        ],
    )
    tasks = TableSpec(
        name="tasks",
        entity="task",
        description="Tasks of projects: todo -> in_progress -> (blocked) -> done, or cancelled.",
        primary_key=["task_id"],
        columns=[
            col(
                "task_id",
                description="Task key from the tracker, e.g. 'TSK01234'.",
                entity="task",
                check="task_id GLOB 'TSK[0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("assignee_id", "employees.employee_id", "employee", "Employee the task is assigned to."),
            _ref("project_id", "projects.project_id", "project", "Project."),
            col("title", description="What is to be done.", check="length(title) > 0"),
            col("status", description="Task status.", enum=list(TASK_STATUSES)),
            col("priority", description="Priority.", enum=list(PRIORITIES)),
            col("due_date", description="Due date, YYYY-MM-DD.", check="due_date " + _DATE),
            _ref("created_by", "employees.employee_id", "employee", "Who created it."),
            col("created_at", description="When created (ISO 8601, UTC)."),
            col("updated_at", description="Last change (ISO 8601, UTC)."),
        ],
    )
    documents = TableSpec(
        name="documents",
        entity="document",
        description="Shared documents with an owner, a department and a classification.",
        primary_key=["document_id"],
        columns=[
            col(
                "document_id",
                description="Document id from its link, e.g. 'DOC00042'.",
                entity="document",
                check="document_id GLOB 'DOC[0-9][0-9][0-9][0-9][0-9]'",
            ),
            _ref("owner_id", "employees.employee_id", "employee", "Owner."),
            col("title", description="Title.", check="length(title) > 0"),
            _ref("department_id", "departments.department_id", "department", "Department it belongs to."),
            col(
                "classification",
                description="Confidential documents are never shared outside their department.",
                enum=list(CLASSIFICATIONS),
            ),
            col(
                "status",
                description="Archived documents can no longer be shared.",
                enum=list(DOCUMENT_STATUSES),
            ),
            col("updated_at", description="Last edit (ISO 8601, UTC)."),
        ],
    )
    permissions = TableSpec(
        name="document_permissions",
        description="Who can open each document: the owner, editors and viewers.",
        primary_key=["document_id", "employee_id"],
        columns=[
            _ref("document_id", "documents.document_id", "document", "Document."),
            _ref("employee_id", "employees.employee_id", "employee", "Employee with access."),
            col("role", description="Access role.", enum=list(ACCESS_ROLES)),
            col("granted_at", description="When access was granted (ISO 8601, UTC)."),
        ],
    )
    return [
        departments,
        employees,
        rooms,
        events,
        event_attendees,
        messages,
        approvals,
        projects,
        project_members,
        tasks,
        documents,
        permissions,
    ]
