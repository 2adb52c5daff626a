"""Fitness: gyms, studios and the memberships that pay for them."""

from __future__ import annotations

from envfactory_mcp.library.archetypes import (
    Noun,
    catalog,
    invoices,
    people,
    profile,
    reservation,
    subscriptions,
)
from envfactory_mcp.library.kit import choice, date, integer, money, text
from envfactory_mcp.library.service import Service

_members = people(
    Noun("member"),
    "People with a gym account.",
    choice("home_club", ("downtown", "riverside", "northgate"), "The club they usually train at."),
)
_classes = catalog(
    Noun("gym_class", "gym_classes"),
    "Group classes on the weekly timetable.",
    text(
        "class_name",
        "Name.",
        "Spin 45",
        "Power yoga",
        "HIIT circuit",
        "Pilates core",
        "Boxing basics",
        "Aqua fit",
    ),
    choice("club", ("downtown", "riverside", "northgate"), "Where it runs."),
    choice(
        "weekday", ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday"), "Day of the week."
    ),
    choice("start_time", ("06:30", "07:30", "12:15", "17:30", "18:30", "19:30"), "Start time."),
    integer("capacity", 8, 30, "Places in the class."),
    filters=("club", "weekday"),
)
_plans = catalog(
    Noun("membership_plan"),
    "Membership plans on sale.",
    text("plan_name", "Name.", "Off-peak", "Standard", "All clubs", "Student", "Premium plus"),
    money("monthly_fee", 19, 89, "Monthly fee in US dollars."),
    choice("access", ("one_club", "all_clubs"), "Which clubs it opens."),
    rows=(5, 6),
)
GYM = Service.composed(
    "gym_membership",
    "Ironworks gym membership desk",
    "fitness",
    "The agent helps members with their membership plan (start, switch, freeze, unfreeze, cancel), books and "
    "cancels places in group classes, and settles open membership invoices.",
    _members,
    profile(_members, "home_club"),
    _classes,
    _plans,
    reservation(
        _members,
        Noun("class_booking"),
        _classes.resources[0],
        date("class_date", "Date of the class."),
        book="book_class",
        book_fields=("class_date",),
        cancel="cancel_class_booking",
        check_in="check_in_to_class",
        states=("waitlisted", "booked", "attended", "attended_late", "cancelled"),
        extra_states=("missed",),
    ),
    subscriptions(
        _members,
        Noun("membership"),
        _plans.resources[0],
        date("started_on", "First day of the membership."),
        start="start_membership",
        start_fields=("started_on",),
        change_plan="switch_membership_plan",
        pause="freeze_membership",
        resume="unfreeze_membership",
        cancel="cancel_membership",
        states=("active", "frozen", "past_due", "cancelled"),
    ),
    invoices(
        _members,
        Noun("membership_invoice"),
        choice("paid_with", ("card", "bank_transfer", "cash"), "How it was paid.", default="card"),
        pay="pay_membership_invoice",
        pay_fields=("paid_with",),
    ),
    out_of_scope=(
        "a personal trainer assigned to me for the summer",
        "my locker moved closer to the pool",
        "a refund for the protein shakes I bought at the bar",
        "a guest pass for my cousin this weekend",
        "the sauna temperature turned down",
        "my old membership's loyalty credit transferred to my partner",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

SERVICES = [GYM]
