"""Pet care: services that look after animals and their owners."""

from __future__ import annotations

from envfactory_mcp.library.kit import (
    choice,
    create,
    date,
    get,
    listing,
    money,
    ref,
    stamp,
    table,
    text,
    transition,
    update,
)
from envfactory_mcp.library.service import Service

_owners = table(
    "owners",
    "owner",
    "People who bring their pets to the salon.",
    text("first_name", "First name."),
    text("last_name", "Last name."),
    text("email", "Email address.", unique=True),
    text("phone", "Phone number."),
    choice("loyalty", ("none", "silver", "gold"), "Loyalty level."),
    rows=(30, 40),
)
_pets = table(
    "pets",
    "pet",
    "The animals groomed here.",
    ref("owners", "owner_id", "The pet's owner."),
    text(
        "pet_name", "The pet's name.", "Biscuit", "Luna", "Pepper", "Milo", "Hazel", "Otis", "Maple", "Ziggy"
    ),
    choice("species", ("dog", "cat", "rabbit"), "Species."),
    text("breed", "Breed.", "poodle", "beagle", "labrador", "maine coon", "lionhead", "terrier", "siamese"),
    choice("coat", ("short", "medium", "long", "double"), "Coat type."),
    text(
        "care_notes",
        "Handling notes for the groomer.",
        "nervous with dryers",
        "senior, go gently",
        "likes treats",
        "bites at nail trims",
        nullable=True,
    ),
    under="owner_id",
    rows=(1, 2),
)
_groomers = table(
    "groomers",
    "groomer",
    "Staff groomers.",
    text(
        "groomer_name",
        "Full name.",
        "Rosa Ibarra",
        "Tom Whitfield",
        "Aiko Mori",
        "Dee Okafor",
        "Sam Lindqvist",
    ),
    choice("specialty", ("dogs", "cats", "all"), "What they groom."),
    choice("employment", ("active", "on_leave"), "Whether they take appointments."),
    rows=(5, 6),
)
_services = table(
    "grooming_services",
    "grooming_service",
    "The menu of grooming services.",
    text(
        "service_name",
        "Name.",
        "Bath and brush",
        "Full groom",
        "Nail trim",
        "De-shedding treatment",
        "Puppy intro groom",
        "Teeth brushing",
    ),
    money("price", 15, 140, "Price in US dollars."),
    choice("duration", ("30m", "60m", "90m", "120m"), "How long it takes."),
)
_appointments = table(
    "appointments",
    "appointment",
    "Grooming appointments.",
    ref("owners", "owner_id", "Who booked."),
    ref("pets", "pet_id", "The pet being groomed."),
    ref("groomers", "groomer_id", "The groomer."),
    ref("grooming_services", "grooming_service_id", "The service booked."),
    date("day", "Day of the appointment."),
    choice("start_time", ("09:00", "10:30", "12:00", "13:30", "15:00", "16:30"), "Start time."),
    choice(
        "status",
        ("requested", "confirmed", "checked_in", "completed", "cancelled", "no_show"),
        "Where it stands.",
        default="requested",
    ),
    text("cancel_reason", "Why it was cancelled.", "schedule conflict", "pet is unwell", nullable=True),
    stamp("booked_at", "When it was booked."),
    under="pet_id",
    rows=(1, 3),
)
_invoices = table(
    "invoices",
    "invoice",
    "What an owner owes for a completed appointment.",
    ref("owners", "owner_id", "Who pays."),
    ref("appointments", "appointment_id", "The appointment billed."),
    money("amount", 15, 160, "Amount due in US dollars."),
    choice("status", ("open", "paid", "refunded", "void"), "Where it stands."),
    choice("paid_with", ("card", "cash", "gift_card"), "How it was paid.", default="card"),
    under="appointment_id",
    rows=(0, 1),
)

PET_GROOMING = Service(
    name="pet_grooming",
    title="Paws and Suds pet grooming salon",
    domain="pet_care",
    description=(
        "The agent helps pet owners with their pets' profiles, books, reschedules and cancels grooming "
        "appointments with the salon's groomers, and takes payment of open invoices."
    ),
    customer="owners",
    resources=(_owners, _pets, _groomers, _services, _appointments, _invoices),
    operations=(
        get(_owners, "get_owner_details", "Show an owner's profile."),
        listing(_pets, "owner_id", "species"),
        get(_pets, "get_pet_details"),
        create(
            _pets,
            "add_pet",
            "Add a pet to an owner's profile.",
            ("owner_id", "pet_name", "species", "breed", "coat"),
            optional=("care_notes",),
        ),
        update(
            _pets, "update_pet_care_notes", "Replace a pet's handling notes for the groomer.", ("care_notes",)
        ),
        listing(_groomers, "specialty", "employment"),
        listing(_services),
        listing(_appointments, "owner_id", "pet_id", "status"),
        get(_appointments, "get_appointment_details"),
        create(
            _appointments,
            "book_appointment",
            "Book a grooming appointment for a pet (it starts as requested).",
            ("owner_id", "pet_id", "groomer_id", "grooming_service_id", "day", "start_time"),
        ),
        update(
            _appointments,
            "reschedule_appointment",
            "Move an appointment to another day and time.",
            ("day", "start_time"),
            only_when=(
                "status",
                ("requested", "confirmed"),
                "only requested or confirmed appointments can be rescheduled",
            ),
        ),
        transition(
            _appointments,
            "confirm_appointment",
            "Confirm a requested appointment.",
            "confirmed",
            ("requested",),
            "only requested appointments can be confirmed",
        ),
        transition(
            _appointments,
            "cancel_appointment",
            "Cancel an appointment, with the owner's reason.",
            "cancelled",
            ("requested", "confirmed"),
            "appointments that have started, finished or were already cancelled cannot be cancelled",
            fields=("cancel_reason",),
        ),
        listing(_invoices, "owner_id", "status"),
        get(_invoices, "get_invoice_details"),
        transition(
            _invoices,
            "pay_invoice",
            "Pay an open invoice with the given method.",
            "paid",
            ("open",),
            "only open invoices can be paid",
            fields=("paid_with",),
        ),
    ),
    out_of_scope=(
        "a discount on my next groom because the last one ran late",
        "my dog's vaccination record updated",
        "a mobile groomer sent to my house",
        "a complaint filed against a groomer",
        "my loyalty points moved to my sister's account",
        "a custom dye job for my poodle",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
    archetypes=("reservation", "invoice"),
)

SERVICES = [PET_GROOMING]
