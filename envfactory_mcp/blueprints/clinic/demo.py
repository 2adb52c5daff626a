"""A short scripted patient session for the quick-start demo, chosen from the seed state.

The patient identifies by email, the agent looks up the record and an upcoming
appointment more than 24 hours away, checks it, cancels it (no fee) and reads it back.
"""

from __future__ import annotations

from typing import Any

State = dict[str, list[dict[str, Any]]]

FREE_FROM = "2026-06-19T15:00:00Z"  # 24 hours after the clock: no late-cancellation fee


def demo_calls(state: State) -> list[tuple[str, dict[str, Any]]]:
    starts = {s["slot_id"]: s["start_time"] for s in state["slots"]}
    appointment = next(
        a for a in state["appointments"] if a["status"] == "scheduled" and starts[a["slot_id"]] >= FREE_FROM
    )
    patient = next(p for p in state["patients"] if p["patient_id"] == appointment["patient_id"])
    return [
        ("find_patient_id_by_email", {"email": patient["email"]}),
        ("get_patient_details", {"patient_id": patient["patient_id"]}),
        ("get_appointment_details", {"appointment_id": appointment["appointment_id"]}),
        ("cancel_appointment", {"appointment_id": appointment["appointment_id"]}),
        ("get_appointment_details", {"appointment_id": appointment["appointment_id"]}),
    ]
