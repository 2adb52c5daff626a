"""Harbor travel: a seaside inn and the trip planner that packages its stays, linked.

The inn's reservation desk knows guests, rooms and stays. The trip planner knows the very
same guests and builds trips around an inn stay (``stay_id`` is the inn's key): it adds
excursions and transfers, and a trip can only be changed while the stay it rests on is
still ahead. A task can find the stay at the inn and act on the trip, or the other way.
"""

from __future__ import annotations

from envfactory_mcp.library.archetypes import Noun, Part, catalog, people, profile, reservation
from envfactory_mcp.library.kit import (
    choice,
    create,
    date,
    get,
    integer,
    link,
    listing,
    money,
    ref,
    table,
    text,
    transition,
    update,
)
from envfactory_mcp.library.service import Foreign, Service, Shared

_guests = people(
    Noun("guest"),
    "People who stay at the inn.",
    choice("loyalty_tier", ("first_stay", "regular", "anchor_club"), "Loyalty tier."),
)
_rooms = catalog(
    Noun("room"),
    "Rooms of the inn.",
    text(
        "room_name",
        "Name on the door.",
        "Lighthouse",
        "Dune",
        "Tidepool",
        "Gull's Rest",
        "Harbor View",
        "Driftwood",
    ),
    choice("room_kind", ("double", "twin", "suite", "family"), "Kind of room."),
    integer("sleeps", 1, 5, "How many it sleeps."),
    money("nightly_rate", 95, 420, "Nightly rate in US dollars."),
    filters=("room_kind",),
    rows=(8, 10),
)
INN = Service.composed(
    "harbor_inn_stays",
    "Harbor Inn reservation desk",
    "hospitality",
    "The agent helps guests of a small seaside inn with their stays: booking rooms, moving dates, confirming, "
    "checking in and cancelling before arrival.",
    _guests,
    profile(_guests, "phone"),
    _rooms,
    reservation(
        _guests,
        Noun("stay"),
        _rooms.resources[0],
        date("arrival", "Arrival date."),
        integer("nights", 1, 14, "Nights."),
        integer("party_size", 1, 5, "Guests in the party."),
        book="book_stay",
        book_fields=("arrival", "nights", "party_size"),
        reschedule=("move_stay_dates", ("arrival", "nights")),
        confirm="confirm_stay",
        check_in="check_in_stay",
        cancel="cancel_stay",
        states=("held", "confirmed", "in_house", "checked_out", "cancelled"),
    ),
    out_of_scope=(
        "a late checkout past two o'clock as a favour",
        "my dog allowed in the Lighthouse room",
        "a bottle of champagne waiting in the room",
        "the noisy guests next door moved",
        "my loyalty nights merged with my husband's",
        "a refund for the parking ticket I got on the promenade",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

_excursions = catalog(
    Noun("excursion"),
    "Excursions the planner can add to a trip.",
    text(
        "excursion_name",
        "Name.",
        "Whale watching",
        "Lighthouse climb",
        "Kayak the cove",
        "Oyster farm tour",
        "Sunset sail",
    ),
    money("price_per_person", 20, 140, "Price per person in US dollars."),
    choice("duration", ("2h", "half_day", "full_day"), "How long it takes."),
    rows=(5, 7),
)
_trips = table(
    "trips",
    "trip",
    "Trips built around an inn stay.",
    ref("guests", "guest_id", "The traveller."),
    link("stay_id", "stay", "The Harbor Inn stay the trip rests on."),
    choice(
        "arrival_transfer",
        ("none_needed", "station_shuttle", "airport_car"),
        "How they reach the inn.",
        default="none_needed",
    ),
    choice(
        "status",
        ("planning", "booked", "travelling", "completed", "cancelled"),
        "Where it stands.",
        default="planning",
    ),
    money("budget", 300, 4000, "Budget in US dollars."),
    under="guest_id",
    rows=(0, 1),
)
_bookings = table(
    "excursion_bookings",
    "excursion_booking",
    "Excursions booked on a trip.",
    ref("trips", "trip_id", "The trip."),
    ref("excursions", "excursion_id", "The excursion."),
    date("excursion_date", "Day of the excursion."),
    integer("people", 1, 5, "People going."),
    choice("status", ("reserved", "cancelled"), "Where it stands.", default="reserved"),
    under="trip_id",
    rows=(0, 2),
)
_ahead = ("planning", "booked")
PLANNER = Service.composed(
    "harbor_trip_planner",
    "Harbor Coast trip planner",
    "hospitality",
    "The agent helps travellers plan trips around their Harbor Inn stay: starting a trip for a stay, arranging "
    "the transfer, booking and cancelling excursions, and booking or cancelling the trip while it is ahead.",
    _guests,
    profile(_guests),
    _excursions,
    Part(
        "trip_planning",
        (_trips, _bookings),
        (
            listing(_trips, "guest_id", "status"),
            get(_trips),
            create(
                _trips,
                "start_trip",
                "Start planning a trip around an inn stay.",
                ("guest_id", "stay_id", "budget"),
            ),
            update(
                _trips,
                "arrange_arrival_transfer",
                "Arrange how the traveller reaches the inn.",
                ("arrival_transfer",),
                only_when=(
                    "status",
                    _ahead,
                    "a trip that has started, ended or was cancelled cannot be changed",
                ),
                intent="arrange a trip's arrival transfer",
            ),
            transition(
                _trips,
                "book_trip",
                "Book a trip that is being planned.",
                "booked",
                ("planning",),
                "only trips still being planned can be booked",
            ),
            transition(
                _trips,
                "cancel_trip",
                "Cancel a trip before it starts.",
                "cancelled",
                _ahead,
                "a trip that has started, ended or was already cancelled cannot be cancelled",
            ),
            listing(_bookings, "trip_id"),
            get(_bookings),
            create(
                _bookings,
                "book_excursion",
                "Book an excursion on a trip.",
                ("trip_id", "excursion_id", "excursion_date", "people"),
            ),
            transition(
                _bookings,
                "cancel_excursion",
                "Cancel a booked excursion.",
                "cancelled",
                ("reserved",),
                "the excursion booking was already cancelled",
                intent="cancel an excursion booking",
            ),
        ),
    ),
    out_of_scope=(
        "a restaurant table on the pier for our anniversary",
        "travel insurance for the whole family",
        "a ferry to the island on Sunday",
        "a babysitter for the evening we go sailing",
        "a rental car upgraded to a convertible",
        "a photographer for the lighthouse climb",
    ),
    identify_by=(("email",),),
    shared=(Shared("guests", "harbor_inn_stays"),),
    foreign=(Foreign("trips", "stay_id", "harbor_inn_stays", "stays"),),
)

SERVICES = [INN, PLANNER]
