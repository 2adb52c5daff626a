"""Automotive and transport: keeping a car on the road, and getting around without one."""

from __future__ import annotations

from envfactory_mcp.library.archetypes import (
    Noun,
    approvals,
    catalog,
    holds,
    invoices,
    orders,
    owned,
    people,
    profile,
    reservation,
    subscriptions,
    tickets,
)
from envfactory_mcp.library.kit import choice, date, flag, integer, money, text
from envfactory_mcp.library.service import Service

_NAMES = (("email",), ("first_name", "last_name", "phone"))
_MAKES = ("Toyota", "Ford", "Honda", "Volkswagen", "Hyundai", "Subaru", "Kia")
_PLATES = ("KLM 482", "BXR 119", "TDV 730", "JNP 561", "WQA 904", "HGE 257", "RLS 388")

# --------------------------------------------------------------------------- car servicing garage

_motorists = people(
    Noun("motorist"),
    "Customers of the garage.",
    flag("courtesy_car", "Whether they want a courtesy car when the car is in."),
)
_garage_vehicles = owned(
    _motorists,
    Noun("vehicle"),
    "Cars the garage services.",
    text("make", "Make.", *_MAKES),
    text("registration", "Plate.", *_PLATES),
    integer("mileage", 2000, 180000, "Odometer reading."),
    add="register_vehicle",
    add_fields=("make", "registration", "mileage"),
    edit="update_vehicle_mileage",
    edit_fields=("mileage",),
    rows=(1, 2),
)
_garage_services = catalog(
    Noun("garage_service"),
    "Work the garage offers.",
    text(
        "service_title",
        "Name.",
        "Interim service",
        "Full service",
        "Brake pad replacement",
        "Air-con regas",
        "Timing belt",
        "Diagnostic check",
        "Clutch replacement",
    ),
    money("labour_price", 60, 900, "Price in US dollars."),
    choice("duration", ("1h", "2h", "4h", "all_day"), "How long the car is needed."),
    rows=(7, 8),
)
GARAGE = Service.composed(
    "kwik_lane_garage",
    "Kwik Lane service garage",
    "automotive_transport",
    "The agent keeps customers' vehicles on file, books, confirms, reschedules and cancels service bookings, "
    "checks cars in when they are dropped off and settles repair invoices.",
    _motorists,
    profile(_motorists, "courtesy_car"),
    _garage_vehicles,
    _garage_services,
    reservation(
        _motorists,
        Noun("service_booking"),
        _garage_services.resources[0],
        date("drop_off_date", "Day the car is left."),
        book="book_garage_service",
        book_fields=("drop_off_date",),
        reschedule=("reschedule_service_booking", ("drop_off_date",)),
        confirm="confirm_service_booking",
        check_in="drop_off_vehicle",
        cancel="cancel_service_booking",
        states=("requested", "confirmed", "in_workshop", "ready_for_collection", "cancelled"),
        extra_states=("awaiting_parts",),
    ),
    invoices(
        _motorists,
        Noun("repair_invoice"),
        money("parts_cost", 0, 600, "Parts included in US dollars."),
        pay="pay_repair_invoice",
        dispute="dispute_repair_invoice",
        low=60,
        high=1500,
    ),
    out_of_scope=(
        "my car valued so I can sell it",
        "a dent knocked out of the bumper",
        "my car collected from my office and brought back",
        "the warranty claim filed with the dealership",
        "a new set of alloy wheels",
        "my insurance claim for the accident handled",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- tyre shop

_drivers = people(
    Noun("tyre_customer"),
    "Drivers buying tyres.",
    choice("tyre_size", ("195/65R15", "205/55R16", "225/45R17", "235/60R18"), "Size on their car."),
)
_tyres = catalog(
    Noun("tyre"),
    "Tyres stocked.",
    text(
        "model", "Model.", "EcoContact 6", "Pilot Sport 5", "WinterContact", "Turanza T005", "CrossClimate 2"
    ),
    choice("tyre_size", ("195/65R15", "205/55R16", "225/45R17", "235/60R18"), "Size."),
    choice("season", ("summer", "winter", "all_season"), "Season."),
    money("price_each", 70, 290, "Price per tyre in US dollars."),
    integer("in_stock", 0, 24, "Tyres in the warehouse."),
    filters=("tyre_size", "season"),
    rows=(10, 14),
)
_bays = catalog(
    Noun("fitting_bay"),
    "Fitting bays at the shop's branches.",
    choice("branch", ("high_street", "ring_road", "retail_park"), "Branch."),
    integer("bay_number", 1, 6, "Bay."),
    filters=("branch",),
    rows=(4, 6),
)
TYRES = Service.composed(
    "treadright_tyres",
    "TreadRight tyre and fitting centre",
    "automotive_transport",
    "The agent reserves tyres for a customer until they are fitted, extends or releases reservations, and books "
    "or cancels fitting slots at a branch's bays.",
    _drivers,
    profile(_drivers, "tyre_size"),
    _tyres,
    _bays,
    holds(
        _drivers,
        Noun("tyre_reservation"),
        _tyres.resources[0],
        integer("quantity", 1, 4, "How many tyres."),
        place="reserve_tyres",
        place_fields=("quantity",),
        extend=("extend_tyre_reservation", "expires_on"),
        release="release_tyre_reservation",
        collect="mark_tyres_fitted",
        states=("reserved", "in_branch", "fitted", "released"),
    ),
    reservation(
        _drivers,
        Noun("fitting_slot"),
        _bays.resources[0],
        date("fitting_date", "Day."),
        choice("fitting_time", ("08:30", "10:00", "11:30", "13:30", "15:00", "16:30"), "Time."),
        book="book_fitting_slot",
        book_fields=("fitting_date", "fitting_time"),
        cancel="cancel_fitting_slot",
        states=("booked", "confirmed", "on_ramp", "finished", "cancelled"),
        extra_states=(),
    ),
    out_of_scope=(
        "a puncture repaired at the roadside",
        "my wheels refurbished",
        "tyres for my tractor",
        "my old tyres stored over summer for free",
        "a wheel alignment guarantee for a year",
        "a price match with an online retailer",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- car wash club

_wash_members = people(
    Noun("wash_member"),
    "Car wash club members.",
    choice("favourite_site", ("main_st", "airport", "mall", "harbor"), "Site they usually use."),
)
_wash_plans = catalog(
    Noun("wash_plan"),
    "Unlimited wash plans.",
    text("plan_name", "Name.", "Express exterior", "Shine plus", "Ceramic shield", "Ultimate detail"),
    flag("interior_included", "Whether interior vacuuming is included."),
    money("monthly_price", 15, 45, "Monthly price in US dollars."),
    rows=(4, 4),
)
_wash_cars = owned(
    _wash_members,
    Noun("enrolled_car"),
    "Cars whose plate opens the wash gate.",
    text("plate", "Plate.", *_PLATES),
    text("color", "Colour.", "silver", "black", "white", "blue", "red", "grey"),
    add="enroll_car",
    add_fields=("plate", "color"),
    edit="update_enrolled_car_plate",
    edit_fields=("plate",),
    rows=(1, 2),
)
CAR_WASH = Service.composed(
    "sparklewash_club",
    "SparkleWash unlimited club",
    "automotive_transport",
    "The agent manages unlimited wash memberships (join, change plan, pause, resume, cancel), the cars whose "
    "plates are read at the gate, and complaints about damage or a bad wash.",
    _wash_members,
    profile(_wash_members, "favourite_site"),
    _wash_plans,
    _wash_cars,
    subscriptions(
        _wash_members,
        Noun("wash_membership"),
        _wash_plans.resources[0],
        start="join_wash_club",
        change_plan="change_wash_plan",
        pause="pause_wash_membership",
        resume="resume_wash_membership",
        cancel="cancel_wash_membership",
        states=("active", "paused", "card_declined", "cancelled"),
    ),
    tickets(
        _wash_members,
        Noun("wash_complaint"),
        choice(
            "complaint",
            ("mirror_damaged", "still_dirty", "gate_did_not_open", "charged_twice", "wiper_broken"),
            "What went wrong.",
        ),
        about=_wash_cars.resources[0],
        open_="file_wash_complaint",
        open_fields=("complaint",),
        close="close_wash_complaint",
        states=("open", "site_manager_review", "settled", "closed"),
    ),
    out_of_scope=(
        "my car hand-waxed at home",
        "the wash to take my pickup with a roof rack",
        "a refund for the months before I cancelled",
        "my membership shared with my neighbour's car",
        "the dog hair vacuumed out of my van",
        "a fleet plan for my company's twenty vans",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- parking permits

_permit_residents = people(
    Noun("permit_holder"),
    "Residents and businesses applying for parking permits.",
    text("home_street", "Street.", "Ash Road", "Birch Avenue", "Castle Street", "Dock Lane", "Eden Place"),
)
_permit_vehicles = owned(
    _permit_residents,
    Noun("registered_vehicle"),
    "Vehicles a permit can cover.",
    text("plate_number", "Plate.", *_PLATES),
    choice("emissions_band", ("a", "b", "c", "d", "e"), "Emissions band (sets the price)."),
    add="register_permit_vehicle",
    add_fields=("plate_number", "emissions_band"),
    rows=(1, 2),
)
PARKING = Service.composed(
    "riverside_parking_permits",
    "Riverside City parking permits office",
    "automotive_transport",
    "The agent takes applications for resident, visitor and business parking permits, changes or withdraws "
    "them before a decision, handles appeals, and takes payment or challenges of penalty charge notices.",
    _permit_residents,
    profile(_permit_residents),
    _permit_vehicles,
    approvals(
        _permit_residents,
        Noun("permit_application"),
        choice("permit_kind", ("resident", "visitor_book", "business", "carer"), "Kind of permit."),
        choice("zone", ("cpz_a", "cpz_b", "cpz_c", "cpz_d", "cpz_e", "cpz_f"), "Controlled parking zone."),
        submit="apply_for_parking_permit",
        submit_fields=("permit_kind", "zone"),
        amend=("change_permit_application_zone", ("zone",)),
        withdraw="withdraw_permit_application",
        appeal="appeal_permit_refusal",
        states=("received", "checking_proof", "issued", "refused", "withdrawn"),
    ),
    invoices(
        _permit_residents,
        Noun("penalty_notice"),
        text("contravention", "What happened.", "no valid permit", "parked on yellow line", "expired meter"),
        about=_permit_vehicles.resources[0],
        pay="pay_penalty_notice",
        dispute="challenge_penalty_notice",
        low=35,
        high=130,
        states=("issued", "paid", "challenged", "cancelled"),
    ),
    out_of_scope=(
        "a disabled bay painted outside my house",
        "a speeding ticket from the state police cancelled",
        "my car released from the impound lot",
        "the parking zone boundaries redrawn",
        "a dropped kerb built for my driveway",
        "my neighbour's permit revoked",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- EV charging

_ev_drivers = people(
    Noun("ev_driver"),
    "Drivers with a charging network account.",
    choice("connector", ("ccs", "chademo", "type_2", "nacs"), "Their car's connector."),
    integer("charge_limit", 60, 100, "Percent to stop charging at.", default=80),
)
_stations = catalog(
    Noun("charging_station"),
    "Charging sites on the network.",
    text("site_name", "Site.", "Mall North", "Harbor Lot", "I-90 Rest Stop", "City Hall Garage", "Tech Park"),
    choice("connector", ("ccs", "chademo", "type_2", "nacs"), "Connector."),
    integer("power_kw", 7, 350, "Charger power in kW."),
    money("price_per_kwh", 0.25, 0.69, "Price per kWh in US dollars."),
    filters=("connector",),
    rows=(8, 10),
)
_charge_cards = owned(
    _ev_drivers,
    Noun("charge_card"),
    "RFID cards that start sessions.",
    text("card_label", "Name on the card.", "Daily car", "Work van", "Partner's car", "Spare"),
    flag("card_active", "Whether it works at chargers.", default=True),
    add="order_charge_card",
    add_fields=("card_label",),
    edit="update_charge_card_active",
    edit_fields=("card_active",),
    rows=(1, 2),
)
EV = Service.composed(
    "voltcharge_network",
    "VoltCharge EV charging network",
    "automotive_transport",
    "The agent helps drivers with their charging account and RFID cards, reserves chargers ahead of arrival, "
    "starts reserved sessions and takes payment of session charges.",
    _ev_drivers,
    profile(_ev_drivers, "charge_limit"),
    _stations,
    _charge_cards,
    reservation(
        _ev_drivers,
        Noun("charger_reservation"),
        _stations.resources[0],
        date("reserved_for", "Day."),
        choice("arrival", ("07:00", "09:00", "12:00", "15:00", "18:00", "21:00"), "Arrival time."),
        book="reserve_charger",
        book_fields=("reserved_for", "arrival"),
        cancel="cancel_charger_reservation",
        check_in="start_charging_session",
        states=("held", "confirmed", "charging", "ended", "cancelled"),
        extra_states=("expired",),
    ),
    invoices(
        _ev_drivers,
        Noun("session_charge"),
        money("kwh_delivered", 5, 95, "Energy delivered in kWh."),
        pay="pay_session_charge",
        low=3,
        high=70,
    ),
    out_of_scope=(
        "a home charger installed in my garage",
        "my car's battery health checked",
        "a charger at my apartment building",
        "the idle fee waived because I was stuck in a meeting",
        "a tow to the nearest charger",
        "a different car maker's app linked to my account",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- car sharing

_sharers = people(
    Noun("car_share_member"),
    "Members allowed to drive shared cars.",
    text("licence_number", "Driving licence.", "D102-4471", "S556-0932", "M340-1187", "K903-2256"),
    choice("home_zone", ("downtown", "university", "east_end", "airport"), "Usual pick-up zone."),
)
_fleet = catalog(
    Noun("shared_car"),
    "Cars parked around the city.",
    text("car_model", "Model.", "Prius", "Model 3", "Golf", "Civic", "Ioniq 5", "Transit van"),
    choice("home_zone", ("downtown", "university", "east_end", "airport"), "Where it lives."),
    money("hourly_price", 8, 22, "Price per hour in US dollars."),
    filters=("home_zone",),
    rows=(8, 10),
)
CAR_SHARE = Service.composed(
    "zipride_car_sharing",
    "ZipRide car sharing",
    "automotive_transport",
    "The agent books shared cars for members, extends or cancels trips before they start, unlocks a booked car, "
    "takes damage and cleanliness reports about a car, and handles disputes over trip charges.",
    _sharers,
    _fleet,
    reservation(
        _sharers,
        Noun("trip"),
        _fleet.resources[0],
        date("trip_date", "Day."),
        integer("hours", 1, 12, "Hours booked."),
        book="book_shared_car",
        book_fields=("trip_date", "hours"),
        reschedule=("change_trip_length", ("hours",)),
        cancel="cancel_trip",
        check_in="unlock_shared_car",
        states=("reserved", "ready", "driving", "returned", "cancelled"),
        extra_states=("late_return",),
    ),
    tickets(
        _sharers,
        Noun("car_condition_report"),
        choice(
            "condition", ("scratch", "dent", "dirty_interior", "low_fuel", "warning_light"), "What was found."
        ),
        about=_fleet.resources[0],
        open_="report_car_condition",
        open_fields=("condition",),
        escalate="escalate_car_condition_report",
        states=("new", "reviewing", "actioned", "closed"),
    ),
    invoices(
        _sharers,
        Noun("trip_charge"),
        integer("miles", 2, 180, "Miles driven."),
        dispute="dispute_trip_charge",
        low=8,
        high=260,
        states=("pending", "charged", "in_dispute", "refunded"),
    ),
    out_of_scope=(
        "a car for a one-way trip to another city",
        "a parking ticket I got in the car paid by you",
        "my friend added to drive on my account",
        "a car seat fitted before I pick the car up",
        "my lost sunglasses found in the car",
        "a long-term lease of the van",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- bike share

_riders = people(
    Noun("rider"),
    "Bike share riders.",
    flag("ebike_access", "Whether e-bikes are unlocked for them.", default=True),
)
_passes = catalog(
    Noun("bike_pass", "bike_passes"),
    "Passes on sale.",
    text("pass_name", "Name.", "Day pass", "Monthly", "Annual", "Student annual", "Commuter"),
    integer("free_minutes", 30, 60, "Minutes per ride included."),
    money("pass_price", 8, 150, "Price in US dollars."),
    rows=(5, 5),
)
_docks = catalog(
    Noun("docking_station"),
    "Stations bikes are docked at.",
    text("dock_name", "Name.", "Union Square", "River Walk", "Central Library", "5th and Pine", "Ballpark"),
    integer("docks", 10, 40, "Docks."),
    integer("bikes_available", 0, 25, "Bikes ready now."),
    rows=(6, 8),
)
BIKE = Service.composed(
    "cyclecity_bike_share",
    "CycleCity bike share",
    "automotive_transport",
    "The agent sells and cancels bike share passes, logs broken bikes and full or empty docks, and handles "
    "overtime fees for long rides.",
    _riders,
    profile(_riders, "ebike_access"),
    _passes,
    _docks,
    subscriptions(
        _riders,
        Noun("rider_pass", "rider_passes"),
        _passes.resources[0],
        flag("auto_renew", "Whether it renews automatically.", default=True),
        start="buy_bike_pass",
        start_fields=("auto_renew",),
        cancel="cancel_rider_pass",
        states=("valid", "suspended", "payment_failed", "cancelled"),
    ),
    tickets(
        _riders,
        Noun("bike_issue"),
        choice("issue", ("flat_tyre", "broken_chain", "dock_full", "dock_empty", "bike_locked_in"), "Issue."),
        text(
            "bike_number",
            "Number on the bike.",
            "B-1042",
            "B-2207",
            "E-0311",
            "B-0876",
            "E-0459",
            nullable=True,
        ),
        about=_docks.resources[0],
        open_="report_bike_issue",
        open_fields=("issue",),
        note=("update_bike_issue_bike_number", "bike_number"),
        reopen="reopen_bike_issue",
        states=("reported", "crew_sent", "resolved", "closed"),
    ),
    invoices(
        _riders,
        Noun("overtime_fee"),
        integer("extra_minutes", 5, 240, "Minutes over the included time."),
        pay="pay_overtime_fee",
        dispute="dispute_overtime_fee",
        low=2,
        high=60,
    ),
    out_of_scope=(
        "a bike delivered to my house",
        "a child seat on a share bike",
        "my own bike repaired",
        "a refund for a ride I enjoyed",
        "a new docking station on my street",
        "a helmet lent to me",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- commuter rail passes

_commuters = people(
    Noun("commuter"),
    "Passengers with a rail account.",
    text("home_station", "Home station.", "Maple Junction", "Fairview", "Lakeshore", "Brookdale", "Union"),
    text("smartcard_number", "Smartcard.", "ML-0048811", "ML-0092210", "ML-0017734", "ML-0063390"),
)
_zones = catalog(
    Noun("fare_zone"),
    "Fare zones a pass can cover.",
    choice("zones", ("1-2", "1-3", "1-4", "1-5", "2-4", "3-6"), "Zones covered."),
    money("monthly_fare", 65, 310, "Monthly pass price in US dollars."),
    money("weekly_fare", 20, 95, "Weekly pass price in US dollars."),
    rows=(6, 6),
)
_cards = catalog(
    Noun("card_product"),
    "Smartcards and holders that can be ordered.",
    text("product", "Name.", "Replacement smartcard", "Student photocard", "Senior card", "Card wallet"),
    money("card_fee", 0, 15, "Fee in US dollars."),
    rows=(4, 4),
)
RAIL = Service.composed(
    "metrolink_passes",
    "MetroLink commuter rail pass office",
    "automotive_transport",
    "The agent sells monthly commuter passes and changes their zones, takes delay compensation claims and "
    "their appeals, and orders replacement smartcards.",
    _commuters,
    profile(_commuters, "home_station"),
    _zones,
    _cards,
    subscriptions(
        _commuters,
        Noun("commuter_pass", "commuter_passes"),
        _zones.resources[0],
        choice("pass_length", ("weekly", "monthly", "annual"), "Length."),
        start="buy_commuter_pass",
        start_fields=("pass_length",),
        change_plan="change_pass_zones",
        cancel="refund_commuter_pass",
        states=("valid", "stopped", "unpaid", "refunded"),
    ),
    approvals(
        _commuters,
        Noun("delay_claim"),
        date("journey_date", "Day of the delayed train."),
        integer("minutes_late", 15, 180, "How late it arrived."),
        submit="claim_delay_compensation",
        submit_fields=("journey_date", "minutes_late"),
        appeal="appeal_delay_claim",
        states=("claimed", "verifying", "compensated", "rejected", "cancelled"),
    ),
    orders(
        _commuters,
        Noun("card_order"),
        _cards.resources[0],
        text("mail_to", "Postal address.", "12 Fir St", "88 Bay Rd", "3 Kent Ct", "41 Vale Ave"),
        place="order_smartcard",
        place_fields=("mail_to",),
        cancel="cancel_card_order",
        states=("ordered", "printing", "posted", "received", "cancelled", "returned_to_sender"),
    ),
    out_of_scope=(
        "a seat reserved on the 7:42 express",
        "the timetable changed so my train stops at my station",
        "a refund for the taxi I took during the strike",
        "my lost umbrella found on the train",
        "a parking space at the station garage",
        "a complaint about another passenger",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- ferry tickets

_passengers = people(
    Noun("ferry_passenger"),
    "Passengers with a ferry account.",
    flag("islander", "Whether they hold an islander resident discount.", default=False),
)
_sailings = catalog(
    Noun("sailing"),
    "Scheduled sailings.",
    choice("route", ("mainland_to_north_isle", "mainland_to_south_isle", "north_to_south_isle"), "Route."),
    choice("departs", ("06:15", "08:40", "11:00", "14:30", "17:10", "19:45"), "Departure time."),
    integer("car_spaces", 0, 60, "Vehicle spaces left."),
    money("foot_fare", 9, 28, "Foot passenger fare in US dollars."),
    filters=("route",),
    rows=(8, 12),
)
FERRY = Service.composed(
    "island_ferries",
    "Island Ferries booking line",
    "automotive_transport",
    "The agent books ferry crossings for foot passengers and vehicles, moves them to another day, cancels them, "
    "checks passengers in at the port and takes refund requests for disrupted sailings.",
    _passengers,
    profile(_passengers),
    _sailings,
    reservation(
        _passengers,
        Noun("crossing"),
        _sailings.resources[0],
        date("sail_date", "Day of travel."),
        integer("travellers", 1, 8, "People travelling."),
        choice("vehicle", ("foot_only", "car", "campervan", "motorbike", "bicycle"), "What comes aboard."),
        book="book_crossing",
        book_fields=("sail_date", "travellers", "vehicle"),
        reschedule=("change_crossing_date", ("sail_date",)),
        cancel="cancel_crossing",
        check_in="check_in_at_port",
        states=("booked", "ticketed", "boarded", "arrived", "cancelled"),
        extra_states=("missed_sailing",),
    ),
    approvals(
        _passengers,
        Noun("refund_request"),
        choice("reason", ("sailing_cancelled", "weather_delay", "illness", "double_booked"), "Why."),
        money("refund_amount", 9, 240, "Amount asked for in US dollars."),
        submit="request_crossing_refund",
        submit_fields=("reason", "refund_amount"),
        withdraw="withdraw_refund_request",
        states=("submitted", "under_review", "refunded", "declined", "withdrawn"),
    ),
    out_of_scope=(
        "a cabin upgrade on a sailing you do not run",
        "my horse box taken across",
        "a hotel on the island booked for me",
        "the captain asked to wait for me",
        "my seasickness tablets reimbursed",
        "a charter boat for a wedding party",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- driving lessons

_learners = people(
    Noun("learner"),
    "Learner drivers.",
    choice("gearbox", ("manual", "automatic"), "What they learn on."),
)
_instructors = catalog(
    Noun("driving_instructor"),
    "Approved driving instructors.",
    text("instructor_name", "Name.", "Gail Porter", "Imran Aziz", "Ken Walsh", "Lucia Ferri", "Owen Price"),
    choice("gearbox", ("manual", "automatic"), "Car they teach in."),
    money("lesson_rate", 35, 60, "Price per hour in US dollars."),
    filters=("gearbox",),
    rows=(5, 7),
)
_blocks = catalog(
    Noun("lesson_package"),
    "Prepaid bundles of lessons.",
    choice("block_size", ("5", "10", "20"), "Lessons in the bundle."),
    money("block_price", 170, 1000, "Price in US dollars."),
    rows=(3, 3),
)
DRIVING = Service.composed(
    "green_light_driving_school",
    "Green Light driving school office",
    "automotive_transport",
    "The agent books, confirms, moves and cancels driving lessons with instructors, sells prepaid lesson "
    "bundles and takes refund of unused ones, and applies for a driving test slot on the learner's behalf.",
    _learners,
    profile(_learners, "gearbox"),
    _instructors,
    _blocks,
    reservation(
        _learners,
        Noun("driving_lesson"),
        _instructors.resources[0],
        date("lesson_date", "Day."),
        choice("pickup_point", ("home", "school", "work", "station"), "Where the instructor picks them up."),
        book="book_driving_lesson",
        book_fields=("lesson_date", "pickup_point"),
        reschedule=("move_driving_lesson", ("lesson_date", "pickup_point")),
        confirm="confirm_driving_lesson",
        cancel="cancel_driving_lesson",
        states=("requested", "confirmed", "driving", "taught", "cancelled"),
        extra_states=("learner_absent",),
    ),
    orders(
        _learners,
        Noun("bundle_purchase"),
        _blocks.resources[0],
        place="buy_lesson_bundle",
        place_fields=(),
        ret="refund_unused_bundle",
        states=("purchased", "activated", "lessons_booked", "expired_unused", "voided", "refunded"),
    ),
    approvals(
        _learners,
        Noun("test_application"),
        choice("test_centre", ("northfield", "bridgeport", "westgate"), "Test centre."),
        date("earliest_date", "Earliest date they can sit it."),
        submit="apply_for_driving_test",
        submit_fields=("test_centre", "earliest_date"),
        amend=("change_test_centre", ("test_centre",)),
        withdraw="withdraw_test_application",
        states=("sent", "awaiting_slot", "slot_given", "ineligible", "withdrawn"),
    ),
    out_of_scope=(
        "my theory test passed for me",
        "lessons on a motorbike",
        "an instructor to lend me their car for the test",
        "my speeding points removed",
        "a lesson on the highway at night in the snow",
        "my licence posted to a new address",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- roadside assistance

_cover_holders = people(
    Noun("cover_holder"),
    "Motorists with breakdown cover.",
    text("home_town", "Home town.", "Leeds", "Bristol", "Norwich", "Derby", "Exeter", "York"),
)
_cover_levels = catalog(
    Noun("cover_level"),
    "Levels of breakdown cover.",
    text("level_name", "Name.", "Roadside", "Roadside and tow", "Home start", "Nationwide", "Europe"),
    integer("tow_miles", 10, 500, "Longest tow included."),
    money("yearly_price", 45, 220, "Yearly price in US dollars."),
    rows=(5, 5),
)
_covered = owned(
    _cover_holders,
    Noun("covered_vehicle"),
    "Vehicles on the policy.",
    text("make_model", "Make and model.", "Ford Focus", "VW Polo", "Nissan Leaf", "BMW 320d", "Kia Sportage"),
    text("plate", "Plate.", *_PLATES),
    add="add_covered_vehicle",
    add_fields=("make_model", "plate"),
    rows=(1, 2),
)
ROADSIDE = Service.composed(
    "rescueroad_assistance",
    "RescueRoad roadside assistance",
    "automotive_transport",
    "The agent manages breakdown cover and the vehicles on it, logs and follows up breakdown callouts, and "
    "handles claims to be reimbursed for hotels, taxis or a garage paid after a breakdown.",
    _cover_holders,
    _cover_levels,
    _covered,
    subscriptions(
        _cover_holders,
        Noun("breakdown_cover"),
        _cover_levels.resources[0],
        start="buy_breakdown_cover",
        change_plan="upgrade_breakdown_cover",
        cancel="cancel_breakdown_cover",
        states=("covered", "lapsed", "arrears", "cancelled"),
    ),
    tickets(
        _cover_holders,
        Noun("callout"),
        choice("fault", ("flat_battery", "puncture", "locked_out", "wrong_fuel", "engine_failure"), "Fault."),
        text(
            "location", "Where the car is.", "M1 junction 24", "Tesco car park", "home driveway", "A38 layby"
        ),
        about=_covered.resources[0],
        open_="log_breakdown_callout",
        open_fields=("fault", "location"),
        note=("update_callout_location", "location"),
        escalate="escalate_callout",
        close="close_callout",
        states=("logged", "patrol_dispatched", "fixed_at_roadside", "closed"),
    ),
    approvals(
        _cover_holders,
        Noun("expense_claim"),
        choice("expense", ("hotel", "taxi", "hire_car", "garage_labour"), "What was paid for."),
        money("amount_paid", 20, 800, "Amount in US dollars."),
        submit="submit_expense_claim",
        submit_fields=("expense", "amount_paid"),
        withdraw="withdraw_expense_claim",
        appeal="appeal_expense_claim",
        states=("received", "assessing", "reimbursed", "rejected", "withdrawn"),
    ),
    out_of_scope=(
        "my car insurance renewed",
        "my car's MOT booked",
        "a tow for my boat trailer",
        "the repair garage's bill negotiated down",
        "a breakdown for my friend who is not covered",
        "a courtesy car for a month",
    ),
    identify_by=(("email",), ("phone",)),
    notes=("If anyone is in danger on a live road, tell them to get behind the barrier and call 911 first.",),
)

# --------------------------------------------------------------------------- taxi account

_account_riders = people(
    Noun("taxi_account_user"),
    "People riding on a company taxi account.",
    text("company", "Employer.", "Northwind Ltd", "Acme Legal", "Bluefin Media", "Orbit Labs"),
    text("cost_centre", "Cost centre billed.", "CC-100", "CC-220", "CC-310", "CC-450"),
)
_ride_classes = catalog(
    Noun("ride_class", "ride_classes"),
    "Kinds of car that can be sent.",
    choice("car_class", ("saloon", "estate", "executive", "people_carrier", "wheelchair_access"), "Class."),
    integer("seats", 4, 8, "Passenger seats."),
    money("per_mile", 2, 6, "Rate per mile in US dollars."),
    rows=(5, 5),
)
_places = owned(
    _account_riders,
    Noun("saved_place"),
    "Addresses saved for quick booking.",
    text("label", "Name.", "Office", "Home", "Airport T2", "Client site", "Gym"),
    text("address", "Address.", "1 Canary Wharf", "22 Elm Row", "Heathrow T2", "4 King St", "90 Hill Rd"),
    add="save_place",
    add_fields=("label", "address"),
    edit="update_saved_place_address",
    edit_fields=("address",),
    rows=(1, 3),
)
TAXI = Service.composed(
    "citycab_business_account",
    "CityCab business account desk",
    "automotive_transport",
    "The agent pre-books cabs for account users, moves or cancels them, keeps their saved places, settles or "
    "disputes monthly account statements and logs lost property left in a cab.",
    _account_riders,
    profile(_account_riders, "cost_centre"),
    _ride_classes,
    _places,
    reservation(
        _account_riders,
        Noun("prebooked_ride"),
        _ride_classes.resources[0],
        date("pickup_date", "Day."),
        choice("pickup_time", ("05:30", "07:00", "08:30", "12:00", "17:30", "22:00"), "Pick-up time."),
        text("pickup_from", "Pick-up address.", "1 Canary Wharf", "22 Elm Row", "Heathrow T2", "4 King St"),
        book="prebook_ride",
        book_fields=("pickup_date", "pickup_time", "pickup_from"),
        reschedule=("change_ride_pickup", ("pickup_date", "pickup_time")),
        cancel="cancel_prebooked_ride",
        states=("booked", "driver_assigned", "on_board", "dropped_off", "cancelled"),
        extra_states=("passenger_no_show",),
    ),
    invoices(
        _account_riders,
        Noun("account_statement"),
        integer("rides", 1, 40, "Rides on the statement."),
        pay="pay_account_statement",
        dispute="dispute_account_statement",
        low=40,
        high=2200,
    ),
    tickets(
        _account_riders,
        Noun("lost_property_report"),
        text("item_lost", "What was left.", "laptop bag", "umbrella", "phone", "wallet", "suit jacket"),
        open_="report_lost_property",
        open_fields=("item_lost",),
        close="close_lost_property_report",
        states=("reported", "driver_contacted", "returned", "closed"),
    ),
    out_of_scope=(
        "a ride for my family's holiday on the company account",
        "a driver's personal number so I can book directly",
        "a limousine for a wedding",
        "the spending limit for my cost centre raised",
        "a complaint sent to the city licensing office",
        "a helicopter transfer to the airport",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- vehicle inspection

_inspection_customers = people(
    Noun("inspection_customer"),
    "Owners booking the yearly safety and emissions inspection.",
    flag("reminders", "Whether they get reminder emails.", default=True),
)
_inspected = owned(
    _inspection_customers,
    Noun("inspected_vehicle"),
    "Vehicles that need the inspection.",
    text("vin_tail", "Last six of the VIN.", "A48213", "K90231", "T11876", "Z50344", "M72019"),
    integer("model_year", 2004, 2025, "Model year."),
    choice("fuel", ("gasoline", "diesel", "hybrid", "electric"), "Fuel."),
    date("sticker_expires", "When the current sticker expires."),
    add="add_inspected_vehicle",
    add_fields=("vin_tail", "model_year", "fuel", "sticker_expires"),
    rows=(1, 2),
)
_lanes = catalog(
    Noun("inspection_station"),
    "Licensed inspection stations.",
    text(
        "station_name", "Name.", "Route 9 Auto", "Quick Check East", "County Test Lane", "Mill Street Motors"
    ),
    flag("emissions_lane", "Whether it tests emissions."),
    money("inspection_fee", 20, 45, "Fee in US dollars."),
    filters=("emissions_lane",),
    rows=(4, 6),
)
INSPECTION = Service.composed(
    "statecheck_inspections",
    "StateCheck vehicle inspection scheduling",
    "automotive_transport",
    "The agent books, moves and cancels inspection appointments at licensed stations, checks vehicles in on "
    "arrival, and takes requests to extend an inspection deadline.",
    _inspection_customers,
    profile(_inspection_customers, "reminders"),
    _inspected,
    _lanes,
    reservation(
        _inspection_customers,
        Noun("inspection_appointment"),
        _lanes.resources[0],
        date("appointment_date", "Day."),
        book="book_inspection",
        book_fields=("appointment_date",),
        reschedule=("reschedule_inspection", ("appointment_date",)),
        cancel="cancel_inspection",
        check_in="check_in_for_inspection",
        confirm="confirm_inspection",
        states=("pending", "confirmed", "on_lift", "passed", "cancelled"),
        extra_states=("failed_retest_needed",),
    ),
    approvals(
        _inspection_customers,
        Noun("deadline_extension"),
        choice("grounds", ("out_of_state", "military_deployment", "vehicle_in_repair", "medical"), "Why."),
        integer("days_requested", 15, 90, "Extra days asked for."),
        submit="request_deadline_extension",
        submit_fields=("grounds", "days_requested"),
        amend=("change_extension_days", ("days_requested",)),
        states=("filed", "reviewing", "granted", "denied", "withdrawn"),
    ),
    out_of_scope=(
        "my car passed without coming in",
        "the repairs the inspection found done here",
        "my registration renewed",
        "a title transferred to my son",
        "an emissions waiver for my modified exhaust",
        "a refund of the late fee the state charged",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- car rental

_hirers = people(
    Noun("hirer"),
    "Customers renting cars.",
    choice("loyalty_tier", ("blue", "silver", "gold", "platinum"), "Loyalty tier."),
    integer("driver_age", 21, 80, "Age of the main driver."),
)
_car_classes = catalog(
    Noun("car_class", "car_classes"),
    "Car classes for hire.",
    choice(
        "category", ("economy", "compact", "midsize", "suv", "minivan", "convertible", "luxury"), "Class."
    ),
    text(
        "example_model", "Or similar.", "Nissan Versa", "Toyota Corolla", "Ford Explorer", "Chrysler Pacifica"
    ),
    money("daily_rate", 29, 189, "Daily rate in US dollars."),
    flag("automatic", "Whether it has an automatic gearbox.", default=True),
    rows=(7, 7),
)
_extras = catalog(
    Noun("rental_extra"),
    "Add-ons for a rental.",
    text(
        "extra_name",
        "Name.",
        "Child seat",
        "GPS unit",
        "Ski rack",
        "Toll pass",
        "Additional driver",
        "Wi-Fi hotspot",
    ),
    money("per_day", 5, 25, "Price per day in US dollars."),
    rows=(6, 6),
)
CAR_RENTAL = Service.composed(
    "coastline_car_rental",
    "Coastline car rental reservations",
    "automotive_transport",
    "The agent makes, confirms, changes and cancels car rental reservations, checks customers out at the "
    "counter, adds or removes extras like child seats, and handles disputes of post-rental charges.",
    _hirers,
    profile(_hirers, "driver_age"),
    _car_classes,
    _extras,
    reservation(
        _hirers,
        Noun("rental_reservation"),
        _car_classes.resources[0],
        date("pickup_on", "Pick-up day."),
        date("return_on", "Return day."),
        choice("branch", ("airport", "downtown", "cruise_port", "train_station"), "Pick-up branch."),
        book="reserve_rental_car",
        book_fields=("pickup_on", "return_on", "branch"),
        reschedule=("change_rental_dates", ("pickup_on", "return_on")),
        confirm="confirm_rental_reservation",
        check_in="pick_up_rental_car",
        cancel="cancel_rental_reservation",
        states=("quoted", "guaranteed", "on_rent", "closed", "cancelled"),
        extra_states=("no_show",),
    ),
    orders(
        _hirers,
        Noun("extra_booking"),
        _extras.resources[0],
        integer("days", 1, 21, "Days needed."),
        place="add_rental_extra",
        place_fields=("days",),
        cancel="remove_rental_extra",
        states=("requested", "allocated", "in_car", "returned_ok", "removed", "reported_missing"),
    ),
    invoices(
        _hirers,
        Noun("post_rental_charge"),
        choice("charge_reason", ("fuel", "late_return", "cleaning", "toll", "damage"), "What for."),
        dispute="dispute_post_rental_charge",
        low=10,
        high=950,
        states=("posted", "collected", "disputed", "reversed"),
    ),
    out_of_scope=(
        "a car delivered to my hotel",
        "permission to drive the car into Mexico",
        "a one-way rental to another country",
        "my own insurance used instead and the deposit waived",
        "a specific car's license plate guaranteed",
        "a refund for the flight that made me late",
    ),
    identify_by=_NAMES,
)

SERVICES = [
    GARAGE,
    TYRES,
    CAR_WASH,
    PARKING,
    EV,
    CAR_SHARE,
    BIKE,
    RAIL,
    FERRY,
    DRIVING,
    ROADSIDE,
    TAXI,
    INSPECTION,
    CAR_RENTAL,
]
