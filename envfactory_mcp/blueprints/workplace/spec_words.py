"""How people say the workplace environment's values, and its free text (scoring reads
answers and state by meaning).

Every text enum column is labelled (``kit.worded``): its values in words, and here the other
words an agent would use for one value and no other of its column. A message's body and an
external-mail request's justification are written by the agent from what the employee
wants said (``send_message``, ``reply_to_message``, ``request_external_approval``): compared
by the facts they carry. Subjects and titles of meetings and tasks are the employee's own
words, kept exact."""

from __future__ import annotations

WORDS: dict[str, dict[str, list[str]]] = {
    "employees.status": {"on_leave": ["away on leave", "out of office"]},
    "rooms.status": {"maintenance": ["under maintenance", "out of service"]},
    "events.status": {
        "scheduled": ["upcoming", "on the calendar"],
        "completed": ["already happened", "finished"],
        "cancelled": ["called off"],
    },
    "event_attendees.response": {
        "pending": ["no response yet", "not yet responded", "awaiting a response"],
        "accepted": ["said yes", "will attend"],
        "declined": ["said no", "turned down"],
    },
    "messages.folder": {"sent": ["sent items"], "trash": ["deleted", "bin"]},
    "external_approvals.status": {
        "pending": ["awaiting approval", "waiting for approval"],
        "approved": ["granted"],
        "rejected": ["denied", "declined"],
        "expired": ["lapsed"],
    },
    "projects.status": {"active": ["ongoing", "underway"], "on_hold": ["paused"], "completed": ["finished"]},
    "project_members.role": {"lead": ["project lead", "leader"]},
    "tasks.status": {
        "todo": ["not started", "not yet started"],
        "in_progress": ["being worked on", "underway"],
        "blocked": ["stuck"],
        "done": ["completed", "finished"],
        "cancelled": ["called off", "dropped"],
    },
    "tasks.priority": {"normal": ["medium"]},
    "document_permissions.role": {
        "editor": ["edit access", "can edit"],
        "viewer": ["view only", "read-only"],
    },
}

DISPLAY: dict[str, dict[str, str]] = {
    "tasks.status": {"todo": "to do"},
}

TEXT = ["messages.body", "external_approvals.justification"]
