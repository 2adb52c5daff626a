"""Tool declarations of the workplace environment: schemas, effects, tables, entities and claims."""

from __future__ import annotations

from envfactory_mcp.blueprints import kit
from envfactory_mcp.blueprints.kit import Schema
from envfactory_mcp.spec import ParamSpec, ToolSpec

from .spec_tables import (
    ACCESS_ROLES,
    APPROVAL_STATUSES,
    CLASSIFICATIONS,
    DOCUMENT_STATUSES,
    EMPLOYEE_STATUSES,
    EVENT_STATUSES,
    FOLDERS,
    LEVELS,
    MEMBER_ROLES,
    PRIORITIES,
    PROJECT_STATUSES,
    RESPONSES,
    ROOM_STATUSES,
    TASK_STATUSES,
)

TEXT: Schema = {"type": "string"}
BOOL: Schema = {"type": "boolean"}
INT: Schema = {"type": "integer"}
NTEXT = kit.nullable("string")

EMPLOYEE_ID = kit.string(
    9, "Internal employee id from a find_employee_id_* tool, e.g. 'emp_00042'.", pattern=r"^emp_[0-9]{5}$"
)
EVENT_ID = kit.string(9, "Event id shown on the invitation, e.g. 'EVT004512'.", pattern=r"^EVT[0-9]{6}$")
ROOM_ID = kit.string(8, "Room id from list_rooms, e.g. 'rm_3_02'.", pattern=r"^rm_[0-9]{1,2}_[0-9]{2}$")
MESSAGE_ID = kit.string(
    11, "Message id from get_employee_details, e.g. 'msg_0001234'.", pattern=r"^msg_[0-9]{7}$"
)
PROJECT_ID = kit.string(6, "Project key, e.g. 'PRJ104'.", pattern=r"^PRJ[0-9]{3}$")
TASK_ID = kit.string(8, "Task key from the tracker, e.g. 'TSK01234'.", pattern=r"^TSK[0-9]{5}$")
DOCUMENT_ID = kit.string(8, "Document id from its link, e.g. 'DOC00042'.", pattern=r"^DOC[0-9]{5}$")
WORK_EMAIL = kit.string(
    254, "Work email of a colleague, e.g. 'maya.chen@acmecorp.example'.", pattern=r"^[^@\s]+@[^@\s]+$"
)
DATE = kit.string(10, "Date, YYYY-MM-DD.", pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
TIME = kit.string(
    5, "Time of day, HH:MM (24-hour office time), on the quarter hour.", pattern=r"^[0-9]{2}:[0-9]{2}$"
)

EVENT_OUT = kit.obj(
    {
        "event_id": TEXT,
        "title": TEXT,
        "organizer_email": TEXT,
        "organizer_name": TEXT,
        "date": TEXT,
        "start_time": TEXT,
        "end_time": TEXT,
        "duration_minutes": INT,
        "room_id": NTEXT,
        "room_name": NTEXT,
        "status": kit.enum(EVENT_STATUSES),
        "attendees": kit.array(kit.obj({"email": TEXT, "name": TEXT, "response": kit.enum(RESPONSES)})),
        "created_at": TEXT,
    }
)
EVENT_OUTPUTS = {
    "event_id": "event"
}  # room ids come from list_rooms: an event's own room is never the one to book
EVENT_READS = ["employees", "event_attendees", "events", "rooms"]

MESSAGE_OUT = kit.obj(
    {
        "message_id": TEXT,
        "folder": kit.enum(FOLDERS),
        "from_email": TEXT,
        "to_emails": kit.array(TEXT),
        "subject": TEXT,
        "body": TEXT,
        "sent_at": TEXT,
        "in_reply_to": NTEXT,
    }
)
MESSAGE_OUTPUTS = {"message_id": "message"}

TASK_OUT = kit.obj(
    {
        "task_id": TEXT,
        "project_id": TEXT,
        "project_name": TEXT,
        "title": TEXT,
        "status": kit.enum(TASK_STATUSES),
        "priority": kit.enum(PRIORITIES),
        "due_date": TEXT,
        "overdue": BOOL,
        "assignee_email": TEXT,
        "assignee_name": TEXT,
        "created_by_email": TEXT,
        "created_at": TEXT,
        "updated_at": TEXT,
    }
)
TASK_OUTPUTS = {"task_id": "task", "project_id": "project"}
TASK_READS = ["employees", "projects", "tasks"]

DOCUMENT_OUT = kit.obj(
    {
        "document_id": TEXT,
        "title": TEXT,
        "owner_email": TEXT,
        "department": NTEXT,
        "classification": kit.enum(CLASSIFICATIONS),
        "status": kit.enum(DOCUMENT_STATUSES),
        "updated_at": TEXT,
        "access": kit.array(kit.obj({"email": TEXT, "name": TEXT, "role": kit.enum(ACCESS_ROLES)})),
    }
)
DOCUMENT_READS = ["departments", "document_permissions", "documents", "employees"]

APPROVAL_OUT = kit.obj(
    {
        "approval_id": TEXT,
        "domain": TEXT,
        "status": kit.enum(APPROVAL_STATUSES),
        "requested_at": TEXT,
        "expires_on": NTEXT,
    }
)


def _slot_inputs() -> dict[str, tuple[Schema, ParamSpec]]:
    return {
        "date": (
            {**DATE, "description": "Date of the meeting, YYYY-MM-DD (a working day)."},
            kit.param(None, True),
        ),
        "start_time": ({**TIME, "description": "Start, HH:MM office time."}, kit.param(None, True)),
        "end_time": ({**TIME, "description": "End, HH:MM office time."}, kit.param(None, True)),
    }


def build_tools() -> list[ToolSpec]:
    employee_id = (EMPLOYEE_ID, kit.param("employee", False))
    event_id = (EVENT_ID, kit.param("event", True))
    message_id = (MESSAGE_ID, kit.param("message", False))
    project_id = (PROJECT_ID, kit.param("project", True))
    task_id = (TASK_ID, kit.param("task", True))
    document_id = (DOCUMENT_ID, kit.param("document", True))
    return [
        kit.tool(
            "find_employee_id_by_email",
            "identify myself by my work email",
            "Find an employee's internal id from their work email (case-insensitive). Use this to authenticate "
            "the employee before anything else. Fails if no employee has that email.",
            {
                "email": (
                    kit.string(254, "Work email of the employee.", pattern=r"^[^@\s]+@[^@\s]+$"),
                    kit.param(None, True),
                )
            },
            kit.obj({"employee_id": TEXT}),
            reads=["employees"],
            outputs={"employee_id": "employee"},
        ),
        kit.tool(
            "find_employee_id_by_number",
            "identify myself by my employee number",
            "Find an employee's internal id from the employee number on their badge (e.g. 'E20417'). Use this "
            "to authenticate an employee who gives their number instead of their email.",
            {
                "employee_number": (
                    kit.string(6, "Employee number, e.g. 'E20417'.", pattern=r"^[Ee][0-9]{5}$"),
                    kit.param(None, True),
                )
            },
            kit.obj({"employee_id": TEXT}),
            reads=["employees"],
            outputs={"employee_id": "employee"},
        ),
        kit.tool(
            "get_employee_details",
            "see my profile, calendar, mailbox and work items",
            "Get an employee's profile (number, name, email, title, department, level, status, working hours, "
            "manager) and what is theirs: calendar events they organize or are invited to (with their answer), "
            "their mailbox (message ids, folder, sender, subject; newest first), projects with their role, tasks "
            "assigned to them, documents they can open with their access role, and their external-email "
            "approval requests.",
            {"employee_id": employee_id},
            kit.obj(
                {
                    "employee_id": TEXT,
                    "employee_number": TEXT,
                    "first_name": TEXT,
                    "last_name": TEXT,
                    "email": TEXT,
                    "title": TEXT,
                    "department": NTEXT,
                    "level": kit.enum(LEVELS),
                    "status": kit.enum(EMPLOYEE_STATUSES),
                    "working_hours": TEXT,
                    "manager_email": NTEXT,
                    "manager_name": NTEXT,
                    "open_tasks": INT,
                    "events": kit.array(
                        kit.obj(
                            {
                                "event_id": TEXT,
                                "title": TEXT,
                                "date": TEXT,
                                "start_time": TEXT,
                                "end_time": TEXT,
                                "status": kit.enum(EVENT_STATUSES),
                                "response": kit.enum(RESPONSES),
                            }
                        )
                    ),
                    "messages": kit.array(
                        kit.obj(
                            {
                                "message_id": TEXT,
                                "folder": kit.enum(FOLDERS),
                                "from_email": TEXT,
                                "subject": TEXT,
                                "sent_at": TEXT,
                            }
                        )
                    ),
                    "projects": kit.array(kit.obj({"project_id": TEXT, "role": kit.enum(MEMBER_ROLES)})),
                    "tasks": kit.array(TEXT),
                    "documents": kit.array(
                        kit.obj({"document_id": TEXT, "title": TEXT, "role": kit.enum(ACCESS_ROLES)})
                    ),
                    "external_approvals": kit.array(APPROVAL_OUT),
                }
            ),
            reads=[
                "departments",
                "document_permissions",
                "documents",
                "employees",
                "event_attendees",
                "events",
                "external_approvals",
                "messages",
                "project_members",
                "tasks",
            ],
            outputs={
                "employee_id": "employee",
                "events[].event_id": "event",
                "messages[].message_id": "message",
                "projects[].project_id": "project",
                "tasks[]": "task",
                "documents[].document_id": "document",
                "external_approvals[].approval_id": "approval",
            },
        ),
        kit.tool(
            "get_event_details",
            "check on a meeting",
            "Get a calendar event: title, organizer, date, start and end time, duration, room, status "
            "(scheduled, completed, cancelled) and every attendee with their answer (organizer, pending, "
            "accepted, declined).",
            {"event_id": event_id},
            EVENT_OUT,
            reads=EVENT_READS,
            outputs=EVENT_OUTPUTS,
            claims=["status", "date", "start_time"],
        ),
        kit.tool(
            "list_rooms",
            "see the meeting rooms",
            "List the meeting rooms: id, name, floor, seats, video equipment, status (available or under "
            "maintenance) and whether only managers and directors may book it (16 seats or more).",
            {},
            kit.obj(
                {
                    "rooms": kit.array(
                        kit.obj(
                            {
                                "room_id": TEXT,
                                "name": TEXT,
                                "floor": INT,
                                "capacity": INT,
                                "has_video": BOOL,
                                "status": kit.enum(ROOM_STATUSES),
                                "managers_only": BOOL,
                            }
                        )
                    )
                }
            ),
            reads=["rooms"],
            outputs={"rooms[].room_id": "room"},
        ),
        kit.tool(
            "get_message_details",
            "read an email",
            "Get one message of a mailbox: folder, sender, recipients, subject, body, when it was sent and the "
            "message it replies to.",
            {"message_id": message_id},
            MESSAGE_OUT,
            reads=["messages"],
            outputs=MESSAGE_OUTPUTS,
            claims=["folder"],
        ),
        kit.tool(
            "get_project_details",
            "check on a project",
            "Get a project: name, department, status (active, on_hold, completed), lead, start and planned end "
            "date, members (role, status, open tasks each) and its tasks.",
            {"project_id": project_id},
            kit.obj(
                {
                    "project_id": TEXT,
                    "name": TEXT,
                    "department": NTEXT,
                    "status": kit.enum(PROJECT_STATUSES),
                    "lead_email": TEXT,
                    "start_date": TEXT,
                    "end_date": TEXT,
                    "members": kit.array(
                        kit.obj(
                            {
                                "email": TEXT,
                                "name": TEXT,
                                "role": kit.enum(MEMBER_ROLES),
                                "status": kit.enum(EMPLOYEE_STATUSES),
                                "open_tasks": INT,
                            }
                        )
                    ),
                    "tasks": kit.array(
                        kit.obj(
                            {
                                "task_id": TEXT,
                                "title": TEXT,
                                "status": kit.enum(TASK_STATUSES),
                                "due_date": TEXT,
                                "assignee_email": TEXT,
                            }
                        )
                    ),
                }
            ),
            reads=["departments", "employees", "project_members", "projects", "tasks"],
            outputs={"project_id": "project", "tasks[].task_id": "task"},
            claims=["status", "end_date"],
        ),
        kit.tool(
            "get_task_details",
            "check on a task",
            "Get a task: project, title, status (todo, in_progress, blocked, done, cancelled), priority, due "
            "date and whether it is overdue, assignee and creator.",
            {"task_id": task_id},
            TASK_OUT,
            reads=TASK_READS,
            outputs=TASK_OUTPUTS,
            claims=["status", "due_date"],
        ),
        kit.tool(
            "get_document_details",
            "check who can open a document",
            "Get a shared document: title, owner, department, classification (public, internal, confidential), "
            "status (active or archived) and everyone with access and their role (owner, editor, viewer).",
            {"document_id": document_id},
            DOCUMENT_OUT,
            reads=DOCUMENT_READS,
            outputs={"document_id": "document"},
            claims=["classification", "status"],
        ),
        kit.tool(
            "create_event",
            "set up a meeting",
            "Create a calendar event organized by the employee and invite colleagues by work email (1 to 12, "
            "all in the company and not on leave). The slot must be on a working day, in the future and at most "
            "90 days ahead, on the quarter hour, 15 minutes to 8 hours long, within the working hours of the "
            "organizer and every invitee, and free for all of them (a clash with a scheduled event they have not "
            "declined is refused, naming it). A room is optional: it must be available, seat everyone, be free "
            "then, and rooms of 16 seats or more are for managers and directors. Returns the event.",
            {
                "employee_id": employee_id,
                "title": (
                    {
                        **kit.string(120, "Title of the meeting."),
                        "examples": ["Sprint planning", "Budget review", "1:1 catch-up", "Design sync"],
                    },
                    kit.param(None, True),
                ),
                **_slot_inputs(),
                "attendee_emails": (
                    kit.array(
                        WORK_EMAIL, "Work emails of the colleagues to invite.", minItems=1, maxItems=12
                    ),
                    kit.param("email", True),
                ),
                "room_id": (ROOM_ID, kit.param("room", False)),
            },
            EVENT_OUT,
            effect="write",
            reads=EVENT_READS,
            writes=["event_attendees", "events"],
            outputs=EVENT_OUTPUTS,
            claims=["event_id"],
            required=["employee_id", "title", "date", "start_time", "end_time", "attendee_emails"],
        ),
        kit.tool(
            "reschedule_event",
            "move a meeting",
            "Move a scheduled event the employee organizes to another slot (same slot rules as create_event). "
            "Everyone still attending must be free and within working hours then, and a booked room must be "
            "free too. Invitees' answers go back to pending. Returns the event.",
            {"employee_id": employee_id, "event_id": event_id, **_slot_inputs()},
            EVENT_OUT,
            effect="write",
            reads=EVENT_READS,
            writes=["event_attendees", "events"],
            outputs=EVENT_OUTPUTS,
            claims=["date", "start_time"],
        ),
        kit.tool(
            "cancel_event",
            "cancel a meeting",
            "Cancel a scheduled event the employee organizes. Completed or already cancelled events cannot be "
            "cancelled. Returns the event.",
            {"employee_id": employee_id, "event_id": event_id},
            EVENT_OUT,
            effect="write",
            reads=EVENT_READS,
            writes=["events"],
            outputs=EVENT_OUTPUTS,
            claims=["status"],
        ),
        kit.tool(
            "respond_to_event",
            "answer a meeting invitation",
            "Accept or decline an invitation to a scheduled event (not one the employee organizes). Accepting is "
            "refused while the employee attends another scheduled event at an overlapping time. Returns the event.",
            {
                "employee_id": employee_id,
                "event_id": (EVENT_ID, kit.param("event", False)),
                "response": (kit.enum(["accepted", "declined"], "The answer."), kit.param(None, True)),
            },
            EVENT_OUT,
            effect="write",
            reads=EVENT_READS,
            writes=["event_attendees"],
            outputs=EVENT_OUTPUTS,
            idempotent=True,
        ),
        kit.tool(
            "book_room",
            "book a room for my meeting",
            "Book (or change) the room of a scheduled event the employee organizes. The room must be available "
            "(not under maintenance), seat everyone still attending, be free at that time, and rooms of 16 seats "
            "or more can be booked only by managers and directors. Returns the event.",
            {
                "employee_id": employee_id,
                "event_id": event_id,
                "room_id": (ROOM_ID, kit.param("room", False)),
            },
            EVENT_OUT,
            effect="write",
            reads=EVENT_READS,
            writes=["events"],
            outputs=EVENT_OUTPUTS,
            claims=["room_name"],
            idempotent=True,
        ),
        kit.tool(
            "send_message",
            "send an email",
            "Send an email from the employee to 1 to 10 addresses. Company addresses must be in the directory; "
            "an address outside acmecorp.example needs a manager-approved, unexpired external-email request for "
            "its domain. The sender keeps a copy in 'sent' and each colleague gets one in their inbox. Returns "
            "the sent message.",
            {
                "employee_id": employee_id,
                "to_emails": (
                    kit.array(
                        kit.string(254, "Email address.", pattern=r"^[^@\s]+@[^@\s]+$"),
                        "Recipient addresses.",
                        minItems=1,
                        maxItems=10,
                    ),
                    kit.param("email", True),
                ),
                "subject": (
                    {**kit.string(200, "Subject line."), "examples": ["Quick question", "Agenda for Friday"]},
                    kit.param(None, True),
                ),
                "body": (
                    {
                        **kit.string(5000, "Text of the message."),
                        "examples": ["Hi, could we talk about this tomorrow? Thanks."],
                    },
                    ParamSpec(user_provided=True, composed=True),
                ),
            },
            MESSAGE_OUT,
            effect="write",
            reads=["employees", "external_approvals", "messages"],
            writes=["messages"],
            outputs=MESSAGE_OUTPUTS,
            claims=["message_id"],
        ),
        kit.tool(
            "reply_to_message",
            "reply to an email",
            "Reply to the sender of a message in the employee's inbox or archive (not in sent or trash). A reply "
            "to an address outside the company needs a valid external-email approval for its domain. Returns "
            "the reply as sent.",
            {
                "employee_id": employee_id,
                "message_id": message_id,
                "body": (
                    {
                        **kit.string(5000, "Text of the reply."),
                        "examples": ["Thanks, that works for me.", "Got it, I will send it by Friday."],
                    },
                    ParamSpec(user_provided=True, composed=True),
                ),
            },
            MESSAGE_OUT,
            effect="write",
            reads=["employees", "external_approvals", "messages"],
            writes=["messages"],
            outputs=MESSAGE_OUTPUTS,
            claims=["message_id"],
        ),
        kit.tool(
            "move_message",
            "file an email",
            "Move a message of the employee's mailbox between inbox, archive and trash. Sent messages stay in "
            "the sent folder. Returns the message.",
            {
                "employee_id": employee_id,
                "message_id": message_id,
                "folder": (
                    kit.enum(["inbox", "archive", "trash"], "Folder to move it to."),
                    kit.param(None, True),
                ),
            },
            MESSAGE_OUT,
            effect="write",
            reads=["messages"],
            writes=["messages"],
            outputs=MESSAGE_OUTPUTS,
            claims=["folder"],
            idempotent=True,
        ),
        kit.tool(
            "request_external_approval",
            "get approval to email an outside company",
            "Ask the employee's manager to approve email to an external domain (e.g. 'globex.example'). Refused "
            "for the company's own domain, when a valid approval or a pending request for that domain exists, "
            "when the employee has no manager, or with 3 requests already pending. Returns the pending request.",
            {
                "employee_id": employee_id,
                "domain": (
                    {
                        **kit.string(100, "External email domain, e.g. 'globex.example'."),
                        "examples": ["globex.example", "initech.example"],
                    },
                    kit.param(None, True),
                ),
                "justification": (
                    {
                        **kit.string(500, "Why mail to that domain is needed."),
                        "examples": ["Coordinating the delivery schedule with our supplier"],
                    },
                    ParamSpec(user_provided=True, composed=True),
                ),
            },
            kit.obj({**APPROVAL_OUT["properties"], "approver_email": TEXT}),
            effect="write",
            reads=["employees", "external_approvals"],
            writes=["external_approvals"],
            outputs={"approval_id": "approval"},
            claims=["status", "approver_email"],
        ),
        kit.tool(
            "create_task",
            "add a task to a project",
            "Add a task to an active project the employee is a member of, assigned to a project member (by work "
            "email) who is not on leave and has fewer than 8 open tasks. The due date must be a working day, "
            "today or later and not after the project's end date. Priority defaults to normal. Returns the task.",
            {
                "employee_id": employee_id,
                "project_id": project_id,
                "title": (
                    {**kit.string(160, "What is to be done."), "examples": ["Draft the rollout checklist"]},
                    kit.param(None, True),
                ),
                "teammate_email": (
                    {
                        **WORK_EMAIL,
                        "description": "Work email of the teammate (a project member) to assign the task to.",
                    },
                    kit.param("email", True),
                ),
                "due_date": ({**DATE, "description": "Due date, YYYY-MM-DD."}, kit.param(None, True)),
                "priority": (
                    kit.enum(list(PRIORITIES), "Priority; normal if left out."),
                    kit.param(None, True),
                ),
            },
            TASK_OUT,
            effect="write",
            reads=[*TASK_READS, "project_members"],
            writes=["tasks"],
            outputs=TASK_OUTPUTS,
            claims=["task_id", "due_date"],
            required=["employee_id", "project_id", "title", "teammate_email", "due_date"],
        ),
        kit.tool(
            "reassign_task",
            "reassign a task to another project member",
            "Reassign an open task (todo, in_progress or blocked) to another member of its project, by work "
            "email. Only the current assignee or the project lead can do it; the new assignee must not be on "
            "leave and must have fewer than 8 open tasks. Returns the task.",
            {
                "employee_id": employee_id,
                "task_id": task_id,
                "teammate_email": (
                    {
                        **WORK_EMAIL,
                        "description": "Work email of the teammate (a project member) to take the task over.",
                    },
                    kit.param("email", True),
                ),
            },
            TASK_OUT,
            effect="write",
            reads=[*TASK_READS, "project_members"],
            writes=["tasks"],
            outputs=TASK_OUTPUTS,
            claims=["assignee_email"],
            idempotent=True,
        ),
        kit.tool(
            "update_task_status",
            "update the status of a task",
            "Move an open task along its workflow: todo -> in_progress or cancelled; in_progress -> blocked, "
            "done or back to todo; blocked -> in_progress or cancelled. Done and cancelled are final. Only the "
            "assignee or the project lead can do it, and only the lead can cancel. Returns the task.",
            {
                "employee_id": employee_id,
                "task_id": task_id,
                "status": (
                    kit.enum(["todo", "in_progress", "blocked", "done", "cancelled"], "New status."),
                    kit.param(None, True),
                ),
            },
            TASK_OUT,
            effect="write",
            reads=TASK_READS,
            writes=["tasks"],
            outputs=TASK_OUTPUTS,
            claims=["status"],
            idempotent=True,
        ),
        kit.tool(
            "share_document",
            "share a document with a colleague",
            "Give a colleague (by work email) editor or viewer access to an active document the employee owns, "
            "or change their role. Only owners share; archived documents cannot be shared; a confidential "
            "document is never shared outside its department; colleagues on leave are not given access. Returns "
            "the document.",
            {
                "employee_id": employee_id,
                "document_id": document_id,
                "email": (
                    {**WORK_EMAIL, "description": "Work email of the colleague."},
                    kit.param("email", True),
                ),
                "role": (kit.enum(["editor", "viewer"], "Access to give."), kit.param(None, True)),
            },
            DOCUMENT_OUT,
            effect="write",
            reads=DOCUMENT_READS,
            writes=["document_permissions"],
            outputs={"document_id": "document"},
            idempotent=True,
        ),
        kit.tool(
            "calculate",
            "work out a number",
            "Evaluate an arithmetic expression with numbers, + - * /, and parentheses, e.g. '(17 - 9.5) * 60'. "
            "The result is rounded to 2 decimals. Anything else is rejected.",
            {
                "expression": (
                    {
                        **kit.string(200, "Arithmetic expression."),
                        "examples": ["(17 - 9.5) * 60", "45 + 30 + 60"],
                    },
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"expression": TEXT, "result": {"type": "number"}}),
            claims=["result"],
        ),
        kit.tool(
            "transfer_to_human_agents",
            "talk to a human",
            "Transfer the employee to a human agent of the IT and workplace help desk, with a summary of the "
            "issue. Use only when the employee explicitly asks for a human or the request cannot be handled "
            "with the other tools under the policy.",
            {
                "summary": (
                    kit.string(2000, "Summary of the employee's issue for the human agent."),
                    ParamSpec(user_provided=True, composed=True),
                )
            },
            kit.obj({"transferred": BOOL, "message": TEXT, "summary": TEXT}),
        ),
    ]
