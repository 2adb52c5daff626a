"""Home and property: renting, storing, moving, repairing and looking after a home."""

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

# --------------------------------------------------------------------------- apartment rentals

_tenants = people(
    Noun("tenant"),
    "Residents holding a lease at the building.",
    choice("building", ("north_tower", "south_tower", "garden_court"), "Building they live in."),
    text("unit_number", "Apartment number.", "4B", "12A", "7C", "2D", "9F", "15E", "3A"),
    flag("autopay", "Whether rent is charged automatically.", default=False),
)
_amenities = catalog(
    Noun("amenity_space"),
    "Shared spaces residents can book.",
    text(
        "space_name", "Name.", "Rooftop terrace", "Party room", "Guest suite", "Co-working lounge", "BBQ deck"
    ),
    choice("building", ("north_tower", "south_tower", "garden_court"), "Where it is."),
    integer("max_guests", 4, 40, "Most people allowed."),
    money("deposit", 0, 150, "Refundable deposit in US dollars."),
    filters=("building",),
    rows=(5, 7),
)
APARTMENTS = Service.composed(
    "harborview_apartments",
    "Harborview Apartments resident desk",
    "home_property",
    "The agent helps tenants with maintenance requests for their apartment, rent charges, lease renewal "
    "applications and bookings of the shared amenity spaces.",
    _tenants,
    profile(_tenants, "autopay"),
    _amenities,
    tickets(
        _tenants,
        Noun("maintenance_request"),
        choice(
            "problem",
            ("plumbing", "heating", "appliance", "electrical", "pest", "lock_or_key"),
            "What is wrong.",
        ),
        text(
            "details",
            "What the tenant reported.",
            "kitchen sink drips",
            "radiator cold in bedroom",
            "dishwasher will not drain",
            "hallway light flickers",
            "front door lock sticks",
        ),
        flag("permission_to_enter", "Whether staff may enter when the tenant is out.", default=True),
        open_="submit_maintenance_request",
        open_fields=("problem", "details", "permission_to_enter"),
        note=("update_maintenance_request_details", "details"),
        close="close_maintenance_request",
        states=("received", "scheduled", "fixed", "closed"),
    ),
    invoices(
        _tenants,
        Noun("rent_charge"),
        choice("charge_kind", ("monthly_rent", "late_fee", "parking", "pet_rent"), "What it is for."),
        pay="pay_rent_charge",
        low=35,
        high=2600,
        states=("due", "paid", "contested", "waived"),
    ),
    approvals(
        _tenants,
        Noun("lease_renewal"),
        choice("term_months", ("6", "12", "18", "24"), "Length of the new lease in months."),
        date("start_on", "When the renewed lease would start."),
        submit="apply_for_lease_renewal",
        submit_fields=("term_months", "start_on"),
        withdraw="withdraw_lease_renewal",
        amend=("change_lease_renewal_term", ("term_months",)),
        states=("submitted", "with_leasing_office", "offered", "declined", "withdrawn"),
    ),
    reservation(
        _tenants,
        Noun("amenity_booking"),
        _amenities.resources[0],
        date("event_date", "Day of the booking."),
        choice("time_block", ("morning", "afternoon", "evening"), "Part of the day."),
        book="book_amenity_space",
        book_fields=("event_date", "time_block"),
        cancel="cancel_amenity_booking",
        states=("pending", "approved", "in_use", "finished", "cancelled"),
        extra_states=(),
    ),
    out_of_scope=(
        "my neighbour's music turned down tonight",
        "a rent reduction because the gym was closed",
        "permission to paint my bedroom dark green",
        "a second parking space for my partner's car",
        "my security deposit returned early",
        "a copy of the building's insurance policy",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- self storage

_renters = people(
    Noun("storage_customer"),
    "People renting storage units.",
    choice("facility", ("eastside", "airport_road", "old_mill"), "Facility they use."),
    integer("gate_pin", 1000, 9999, "Four-digit gate code."),
)
_sizes = catalog(
    Noun("unit_size"),
    "Sizes of unit for rent.",
    choice("size_label", ("5x5", "5x10", "10x10", "10x15", "10x20", "10x30"), "Dimensions in feet."),
    money("monthly_rate", 29, 310, "Monthly rate in US dollars."),
    flag("climate_controlled", "Whether it is heated and cooled."),
    flag("drive_up", "Whether a vehicle can park at the door."),
    rows=(6, 6),
)
STORAGE = Service.composed(
    "stowaway_self_storage",
    "StowAway self storage office",
    "home_property",
    "The agent helps customers rent storage units, move to a bigger or smaller unit, give notice to vacate, "
    "keep the people allowed to access their unit up to date and pay rent.",
    _renters,
    profile(_renters, "gate_pin"),
    _sizes,
    subscriptions(
        _renters,
        Noun("unit_rental"),
        _sizes.resources[0],
        text(
            "unit_label",
            "The unit's door label (assigned by the office).",
            "A-112",
            "B-047",
            "C-230",
            "D-015",
            "A-301",
            "E-088",
            nullable=True,
        ),
        flag("insured", "Whether contents protection is included.", default=False),
        start="rent_storage_unit",
        start_fields=("insured",),
        change_plan="transfer_to_other_unit_size",
        cancel="give_notice_to_vacate",
        states=("occupied", "overlocked", "delinquent", "vacated"),
    ),
    owned(
        _renters,
        Noun("access_contact"),
        "People allowed into the customer's unit.",
        text("contact_name", "Full name.", "Jo Alvarez", "Priya Shah", "Ben Cole", "Mara Lind", "Oscar Dube"),
        choice("relationship", ("family", "friend", "employee", "mover"), "Who they are to the customer."),
        add="add_access_contact",
        add_fields=("contact_name", "relationship"),
        rows=(0, 2),
    ),
    invoices(
        _renters,
        Noun("storage_bill"),
        choice("paid_by", ("card", "ach", "cash"), "How it was paid.", default="card"),
        pay="pay_storage_bill",
        pay_fields=("paid_by",),
        dispute="dispute_storage_bill",
        low=29,
        high=620,
    ),
    out_of_scope=(
        "someone to help me carry boxes into my unit",
        "a lock cut off because I lost my key",
        "storage for my boat on the water",
        "the value of what I stored insured for more than the plan covers",
        "a unit kept open after hours on Sunday",
        "a truck rented for the weekend",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- moving company

_clients = people(
    Noun("moving_client"),
    "Households that booked a move.",
    text("origin_city", "City they are moving from.", "Portland", "Denver", "Austin", "Raleigh", "Boise"),
)
_crews = catalog(
    Noun("moving_crew"),
    "Crews and the trucks they drive.",
    text("crew_lead", "Crew lead.", "Dale Ruiz", "Hana Kim", "Marcus Bell", "Ines Costa", "Tyrell Grant"),
    choice("truck", ("16ft", "20ft", "26ft"), "Truck size."),
    integer("movers", 2, 5, "People on the crew."),
    money("hourly_rate", 95, 260, "Hourly rate in US dollars."),
    filters=("truck",),
    rows=(5, 7),
)
_supplies = catalog(
    Noun("packing_supply", "packing_supplies"),
    "Boxes and packing material sold by the company.",
    text(
        "supply_name",
        "Name.",
        "Small box bundle",
        "Wardrobe box",
        "Bubble wrap roll",
        "Dish pack kit",
        "Mattress bag",
        "Tape gun",
    ),
    money("price", 4, 60, "Price in US dollars."),
    rows=(6, 6),
)
MOVERS = Service.composed(
    "bluebird_movers",
    "Bluebird Movers booking office",
    "home_property",
    "The agent books moving days with a crew, moves or cancels them before the truck is loaded, sells packing "
    "supplies delivered ahead of the move and takes damage claims.",
    _clients,
    _crews,
    _supplies,
    reservation(
        _clients,
        Noun("move_job"),
        _crews.resources[0],
        date("move_date", "Moving day."),
        text(
            "destination", "Where everything goes.", "Seattle", "Salt Lake City", "Dallas", "Atlanta", "Reno"
        ),
        choice("home_size", ("studio", "one_bed", "two_bed", "three_bed", "house"), "Size of the home."),
        book="book_move",
        book_fields=("move_date", "destination", "home_size"),
        reschedule=("change_move_date", ("move_date",)),
        cancel="cancel_move",
        states=("quoted", "scheduled", "loading", "delivered", "cancelled"),
        extra_states=("in_transit",),
    ),
    orders(
        _clients,
        Noun("supply_order"),
        _supplies.resources[0],
        integer("quantity", 1, 20, "How many."),
        place="order_packing_supplies",
        place_fields=("quantity",),
        change=("change_supply_order_quantity", ("quantity",)),
        cancel="cancel_supply_order",
        states=("received", "packed", "dispatched", "dropped_off", "cancelled", "taken_back"),
    ),
    approvals(
        _clients,
        Noun("damage_claim"),
        text("item", "What was damaged.", "oak dresser", "flat-screen TV", "glass table top", "floor lamp"),
        money("claimed_amount", 40, 2500, "Amount claimed in US dollars."),
        submit="file_damage_claim",
        submit_fields=("item", "claimed_amount"),
        amend=("change_damage_claim_amount", ("claimed_amount",)),
        appeal="appeal_damage_claim",
        states=("filed", "adjuster_review", "paid_out", "denied", "dropped"),
    ),
    out_of_scope=(
        "my piano moved across the country",
        "the crew to also clean the old apartment",
        "storage for my furniture for three months",
        "a tip added for the movers",
        "my car shipped on the same truck",
        "a quote for an office relocation",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- handyman

_homeowners = people(
    Noun("homeowner"),
    "Customers of the handyman service.",
    choice("zone", ("north", "central", "south", "west"), "Service zone."),
)
_jobs = catalog(
    Noun("job_type"),
    "Jobs the handymen take on.",
    text(
        "job_name",
        "Name.",
        "Mount a TV",
        "Assemble furniture",
        "Patch drywall",
        "Replace a faucet",
        "Hang shelves",
        "Fix a squeaky door",
        "Caulk a bathtub",
    ),
    choice("estimate", ("1h", "2h", "half_day", "full_day"), "How long it usually takes."),
    money("base_price", 60, 480, "Starting price in US dollars."),
    rows=(7, 9),
)
HANDYMAN = Service.composed(
    "fixit_handyman",
    "FixIt handyman service",
    "home_property",
    "The agent keeps customers' home addresses, books handyman visits for a job, confirms and reschedules them, "
    "and settles visit invoices.",
    _homeowners,
    profile(_homeowners, "zone"),
    _jobs,
    owned(
        _homeowners,
        Noun("home_address", "home_addresses"),
        "Addresses the customer has work done at.",
        text(
            "street",
            "Street address.",
            "12 Elm St",
            "480 Pine Ave",
            "9 Lake Rd",
            "77 Cedar Ct",
            "301 Oak Blvd",
        ),
        text(
            "access_notes",
            "How to get in.",
            "key under mat",
            "call on arrival",
            "gate code 4411",
            "side door",
        ),
        add="add_home_address",
        add_fields=("street", "access_notes"),
        edit="update_home_address_access_notes",
        edit_fields=("access_notes",),
    ),
    reservation(
        _homeowners,
        Noun("handyman_visit"),
        _jobs.resources[0],
        date("visit_date", "Day of the visit."),
        choice("arrival_window", ("8-10", "10-12", "12-2", "2-4"), "When the handyman arrives."),
        book="book_handyman_visit",
        book_fields=("visit_date", "arrival_window"),
        reschedule=("reschedule_handyman_visit", ("visit_date", "arrival_window")),
        confirm="confirm_handyman_visit",
        cancel="cancel_handyman_visit",
        states=("tentative", "confirmed", "on_site", "done", "cancelled"),
        extra_states=("no_access",),
    ),
    invoices(
        _homeowners,
        Noun("visit_invoice"),
        integer("hours_billed", 1, 8, "Hours on the job."),
        pay="pay_visit_invoice",
        dispute="dispute_visit_invoice",
        low=60,
        high=900,
    ),
    out_of_scope=(
        "a licensed electrician to rewire my kitchen",
        "a roof replacement quote",
        "the handyman to buy the paint for me",
        "a discount because the last visit ran late",
        "work on my neighbour's fence too",
        "a permit pulled from the city",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- pest control

_households = people(
    Noun("household"),
    "Homes on the pest control route.",
    choice("property_kind", ("house", "townhome", "condo", "mobile_home"), "Kind of property."),
    flag("has_pets", "Whether pets live there (treatments are pet safe)."),
)
_programs = catalog(
    Noun("protection_program"),
    "Recurring pest protection programs.",
    text(
        "program_name",
        "Name.",
        "Quarterly perimeter",
        "Termite guard",
        "Mosquito season",
        "Rodent exclusion",
        "Total home",
    ),
    choice("visits_per_year", ("4", "6", "12"), "Scheduled visits a year."),
    money("price_per_visit", 45, 180, "Price per visit in US dollars."),
    rows=(5, 5),
)
_technicians = catalog(
    Noun("pest_technician"),
    "Licensed technicians.",
    text("tech_name", "Full name.", "Luis Ortega", "Kara Voss", "Jamal Reed", "Eve Novak", "Dan Pryor"),
    choice("license", ("general_pest", "termite", "wildlife"), "What they are licensed for."),
    filters=("license",),
    rows=(4, 6),
)
PEST = Service.composed(
    "guardian_pest_control",
    "Guardian pest control customer line",
    "home_property",
    "The agent enrols homes in pest protection programs, pauses or ends them, books and moves treatment visits "
    "with technicians, and logs re-treatment callbacks when pests come back between visits.",
    _households,
    profile(_households, "has_pets"),
    _programs,
    _technicians,
    subscriptions(
        _households,
        Noun("protection_plan"),
        _programs.resources[0],
        start="enrol_in_protection_program",
        pause="put_protection_plan_on_hold",
        resume="resume_protection_plan",
        cancel="end_protection_plan",
        states=("active", "on_hold", "lapsed", "ended"),
    ),
    reservation(
        _households,
        Noun("treatment_visit"),
        _technicians.resources[0],
        date("visit_on", "Day of the treatment."),
        choice("treatment_area", ("interior", "exterior", "both", "attic", "crawlspace"), "Where to treat."),
        book="schedule_treatment_visit",
        book_fields=("visit_on", "treatment_area"),
        reschedule=("move_treatment_visit", ("visit_on",)),
        states=("requested", "booked", "treating", "treated", "called_off"),
        extra_states=(),
    ),
    tickets(
        _households,
        Noun("retreatment_callback"),
        choice(
            "pest", ("ants", "roaches", "mice", "spiders", "wasps", "bed_bugs", "termites"), "What came back."
        ),
        open_="request_retreatment_callback",
        open_fields=("pest",),
        escalate="escalate_retreatment_callback",
        reopen="reopen_retreatment_callback",
        states=("logged", "assigned", "retreated", "closed"),
    ),
    out_of_scope=(
        "a raccoon trapped and removed from my attic tonight",
        "the damage the termites did repaired",
        "a refund for a program I cancelled last year",
        "an inspection letter for my home sale",
        "my neighbour's yard sprayed too",
        "an organic-only treatment that is not on your menu",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- HOA

_owners = people(
    Noun("homeowner_member"),
    "Owners of lots in the community.",
    text("lot_number", "Lot number.", "L-014", "L-102", "L-077", "L-230", "L-158", "L-009"),
    choice("phase", ("phase_1", "phase_2", "phase_3", "phase_4"), "Section of the community."),
    flag("on_board", "Whether they sit on the board."),
)
_facilities = catalog(
    Noun("common_facility", "common_facilities"),
    "Community facilities members can reserve.",
    text(
        "facility_name", "Name.", "Clubhouse", "Pool cabana", "Tennis court 1", "Tennis court 2", "Pavilion"
    ),
    money("reservation_fee", 0, 120, "Fee in US dollars."),
    rows=(5, 5),
)
HOA = Service.composed(
    "maple_ridge_hoa",
    "Maple Ridge homeowners association office",
    "home_property",
    "The agent takes architectural change requests (fences, paint, additions) for the review committee, "
    "collects assessments and reserves community facilities for members.",
    _owners,
    profile(_owners),
    _facilities,
    approvals(
        _owners,
        Noun("architectural_request"),
        choice(
            "project",
            ("fence", "exterior_paint", "deck", "solar_panels", "shed", "landscaping", "roof"),
            "What the owner wants to change.",
        ),
        text("plan_summary", "What is planned.", "6ft cedar privacy fence", "repaint trim sage green"),
        date("planned_start", "When work would start."),
        submit="submit_architectural_request",
        submit_fields=("project", "plan_summary", "planned_start"),
        withdraw="withdraw_architectural_request",
        amend=("revise_architectural_request", ("plan_summary", "planned_start")),
        appeal="appeal_architectural_decision",
        states=("received", "committee_review", "approved", "denied", "withdrawn"),
        extra_states=("approved_with_conditions",),
    ),
    invoices(
        _owners,
        Noun("assessment"),
        choice("assessment_kind", ("quarterly_dues", "special_assessment", "fine"), "What it is."),
        pay="pay_assessment",
        low=75,
        high=1800,
        states=("outstanding", "paid", "under_appeal", "written_off"),
    ),
    reservation(
        _owners,
        Noun("facility_reservation"),
        _facilities.resources[0],
        date("reserved_on", "Date reserved."),
        integer("guest_count", 1, 60, "Guests expected."),
        book="reserve_common_facility",
        book_fields=("reserved_on", "guest_count"),
        reschedule=("change_facility_reservation_date", ("reserved_on",)),
        cancel="cancel_facility_reservation",
        confirm="confirm_facility_reservation",
        states=("held", "confirmed", "in_use", "closed_out", "cancelled"),
        extra_states=(),
    ),
    out_of_scope=(
        "a fine against my neighbour for their overgrown lawn",
        "the HOA bylaws changed to allow short-term rentals",
        "a vote on the new pool hours",
        "the road in front of my house repaved",
        "a copy of the board's private meeting minutes",
        "my dues lowered because I am never at the pool",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- furniture rental

_renting = people(
    Noun("renter"),
    "Customers renting furniture.",
    text("delivery_city", "City deliveries go to.", "Chicago", "Evanston", "Oak Park", "Skokie", "Cicero"),
)
_pieces = catalog(
    Noun("furniture_piece"),
    "Furniture available to rent.",
    text(
        "piece_name",
        "Name.",
        "Mid-century sofa",
        "Queen bed set",
        "Oak dining table",
        "Standing desk",
        "Accent armchair",
        "Bookcase",
        "Dresser",
    ),
    choice("room", ("living", "bedroom", "dining", "office"), "Room it belongs in."),
    money("monthly_rent", 15, 120, "Monthly rent in US dollars."),
    integer("available", 0, 12, "Pieces in the warehouse."),
    filters=("room",),
    rows=(8, 10),
)
FURNITURE = Service.composed(
    "loft_furniture_rental",
    "Loft furniture rental",
    "home_property",
    "The agent places furniture rental orders for delivery, changes the delivery date or cancels before the "
    "truck leaves, schedules pickups of delivered pieces and handles damage-waiver charges.",
    _renting,
    profile(_renting, "delivery_city"),
    _pieces,
    orders(
        _renting,
        Noun("rental_order"),
        _pieces.resources[0],
        date("delivery_date", "Requested delivery day."),
        integer("term_months", 3, 24, "Rental term in months."),
        place="rent_furniture_piece",
        place_fields=("delivery_date", "term_months"),
        change=("change_rental_delivery_date", ("delivery_date",)),
        cancel="cancel_rental_order",
        ret="schedule_rental_pickup",
        states=("ordered", "prepping", "on_truck", "in_home", "cancelled", "pickup_scheduled"),
    ),
    invoices(
        _renting,
        Noun("rental_charge"),
        flag("damage_waiver", "Whether the damage waiver was included.", default=True),
        pay="pay_rental_charge",
        dispute="dispute_rental_charge",
        low=15,
        high=700,
    ),
    out_of_scope=(
        "to buy the sofa I am renting outright",
        "furniture delivered to a second address in another state",
        "interior design advice for my living room",
        "my old couch hauled away",
        "a rent-to-own contract",
        "a custom fabric on the armchair",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- appliance repair

_appl_customers = people(
    Noun("repair_customer"),
    "Customers of the appliance repair service.",
    flag("extended_warranty", "Whether they bought the repair warranty."),
)
_parts = catalog(
    Noun("replacement_part"),
    "Parts the workshop can order.",
    text(
        "part_name",
        "Name.",
        "Drain pump",
        "Door gasket",
        "Igniter",
        "Thermostat",
        "Control board",
        "Water inlet valve",
        "Drive belt",
    ),
    choice("fits", ("washer", "dryer", "dishwasher", "oven", "refrigerator"), "Appliance it fits."),
    money("part_price", 12, 340, "Price in US dollars."),
    filters=("fits",),
    rows=(7, 10),
)
_appliances = owned(
    _appl_customers,
    Noun("appliance"),
    "Appliances registered for repair.",
    choice("appliance_kind", ("washer", "dryer", "dishwasher", "oven", "refrigerator"), "What it is."),
    text("brand", "Brand.", "Whirlpool", "Bosch", "LG", "Samsung", "GE", "Maytag"),
    integer("age_years", 0, 15, "How old it is."),
    add="register_appliance",
    add_fields=("appliance_kind", "brand", "age_years"),
    rows=(1, 3),
)
APPLIANCE = Service.composed(
    "appliance_md_repair",
    "ApplianceMD repair service",
    "home_property",
    "The agent registers customers' appliances, opens repair jobs for them, follows them up (notes, escalation, "
    "closing) and sets aside replacement parts for a job.",
    _appl_customers,
    profile(_appl_customers, "extended_warranty"),
    _parts,
    _appliances,
    tickets(
        _appl_customers,
        Noun("repair_job"),
        text(
            "symptom",
            "What the appliance does.",
            "will not spin",
            "not heating",
            "leaking water",
            "error code E21",
            "loud grinding noise",
        ),
        about=_appliances.resources[0],
        open_="open_repair_job",
        open_fields=("symptom",),
        note=("update_repair_job_symptom", "symptom"),
        escalate="escalate_repair_job",
        close="close_repair_job",
        states=("diagnosing", "awaiting_part", "repaired", "closed"),
    ),
    holds(
        _appl_customers,
        Noun("part_reservation"),
        _parts.resources[0],
        integer("quantity", 1, 3, "How many."),
        place="reserve_replacement_part",
        place_fields=("quantity",),
        release="release_part_reservation",
        states=("on_order", "arrived", "installed", "released"),
    ),
    out_of_scope=(
        "a brand new washer delivered instead of a repair",
        "my microwave's recall claim filed with the maker",
        "help installing a gas line for the new stove",
        "a repair for my car's air conditioning",
        "a refund for a part I bought online elsewhere",
        "the technician's personal phone number",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- solar servicing

_solar_owners = people(
    Noun("solar_owner"),
    "Homeowners with solar systems under service.",
    choice("utility", ("pge", "sce", "sdge"), "Their electric utility."),
)
_care_plans = catalog(
    Noun("care_plan"),
    "Monitoring and maintenance plans.",
    text("plan_title", "Name.", "Monitor only", "Clean and monitor", "Full care", "Battery care"),
    integer("cleanings_per_year", 0, 4, "Panel cleanings included."),
    money("annual_fee", 90, 540, "Yearly fee in US dollars."),
    rows=(4, 4),
)
_systems = owned(
    _solar_owners,
    Noun("solar_system"),
    "Installed solar arrays.",
    integer("panel_count", 8, 40, "Panels on the roof."),
    money("kw_capacity", 3, 15, "Capacity in kilowatts."),
    choice("inverter", ("string", "microinverter", "hybrid"), "Inverter kind."),
    flag("has_battery", "Whether a home battery is attached."),
    edit="update_solar_system_battery",
    edit_fields=("has_battery",),
    rows=(1, 1),
)
SOLAR = Service.composed(
    "suncrest_solar_care",
    "SunCrest solar care desk",
    "home_property",
    "The agent looks after customers' installed solar systems: monitoring and maintenance plans, production "
    "fault reports, and panel cleaning or inspection appointments.",
    _solar_owners,
    _care_plans,
    _systems,
    subscriptions(
        _solar_owners,
        Noun("care_contract"),
        _care_plans.resources[0],
        start="sign_care_contract",
        change_plan="change_care_plan",
        cancel="cancel_care_contract",
        states=("in_force", "suspended", "unpaid", "terminated"),
    ),
    tickets(
        _solar_owners,
        Noun("production_fault"),
        choice(
            "fault",
            ("low_output", "inverter_offline", "monitoring_gap", "panel_cracked", "battery_not_charging"),
            "What was noticed.",
        ),
        about=_systems.resources[0],
        open_="report_production_fault",
        open_fields=("fault",),
        close="close_production_fault",
        reopen="reopen_production_fault",
        states=("reported", "investigating", "remedied", "closed"),
    ),
    reservation(
        _solar_owners,
        Noun("panel_service"),
        _care_plans.resources[0],
        date("service_date", "Day of the visit."),
        choice("work", ("cleaning", "inspection", "bird_proofing"), "What is done."),
        book="book_panel_service",
        book_fields=("service_date", "work"),
        cancel="cancel_panel_service",
        check_in="start_panel_service",
        states=("requested", "scheduled", "on_roof", "completed", "cancelled"),
        extra_states=("weather_delayed",),
        under="solar_owner_id",
    ),
    out_of_scope=(
        "more panels added to my roof",
        "my net metering credit changed by the utility",
        "a roof leak under the panels repaired",
        "the tax credit paperwork filled in for me",
        "my system moved to my new house",
        "a lower electricity rate from the utility",
    ),
    identify_by=_NAMES,
)

# --------------------------------------------------------------------------- landscaping

_yards = people(
    Noun("landscaping_client"),
    "Customers with yard care.",
    choice("lot_size", ("small", "medium", "large", "acreage"), "Size of the yard."),
    text("gate_code", "Gate code for the crew.", "1122", "8090", "4471", "3005", "6612", nullable=True),
)
_yard_plans = catalog(
    Noun("yard_plan"),
    "Recurring yard care plans.",
    text("plan_label", "Name.", "Weekly mow", "Biweekly mow", "Mow and edge", "Full grounds care"),
    choice("frequency", ("weekly", "biweekly", "monthly"), "How often the crew comes."),
    money("per_visit", 35, 160, "Price per visit in US dollars."),
    rows=(4, 5),
)
_products = catalog(
    Noun("yard_product"),
    "Materials delivered and spread by the crew.",
    text(
        "product_name",
        "Name.",
        "Black mulch",
        "Red mulch",
        "River rock",
        "Topsoil",
        "Pine straw",
        "Pea gravel",
    ),
    choice("unit", ("cubic_yard", "bale", "ton"), "How it is sold."),
    money("unit_price", 8, 95, "Price per unit in US dollars."),
    rows=(6, 6),
)
LANDSCAPING = Service.composed(
    "greenthumb_landscaping",
    "GreenThumb landscaping",
    "home_property",
    "The agent manages yard care plans (start, pause over winter, resume, switch), orders mulch and other "
    "materials delivered and spread, and takes payment of open bills.",
    _yards,
    profile(_yards, "gate_code"),
    _yard_plans,
    _products,
    subscriptions(
        _yards,
        Noun("yard_service"),
        _yard_plans.resources[0],
        choice("service_day", ("monday", "tuesday", "wednesday", "thursday", "friday"), "Crew's day."),
        start="start_yard_service",
        start_fields=("service_day",),
        change_plan="switch_yard_plan",
        pause="pause_yard_service",
        resume="resume_yard_service",
        states=("running", "winter_pause", "overdue", "stopped"),
    ),
    orders(
        _yards,
        Noun("material_order"),
        _products.resources[0],
        integer("units", 1, 30, "How many units."),
        flag("spread_by_crew", "Whether the crew spreads it.", default=True),
        place="order_yard_material",
        place_fields=("units", "spread_by_crew"),
        cancel="cancel_material_order",
        states=("placed", "loaded", "en_route", "spread", "cancelled", "hauled_back"),
    ),
    invoices(
        _yards,
        Noun("yard_bill"),
        pay="pay_yard_bill",
        low=35,
        high=1200,
        states=("unpaid", "paid", "questioned", "credited"),
    ),
    out_of_scope=(
        "a tree removed that is leaning on the power line",
        "a sprinkler system designed and installed",
        "my neighbour's hedge trimmed from my side",
        "snow plowed this winter",
        "a pond dug in the back yard",
        "the crew to come on Sunday",
    ),
    identify_by=(("email",), ("phone",)),
)

SERVICES = [
    APARTMENTS,
    STORAGE,
    MOVERS,
    HANDYMAN,
    PEST,
    HOA,
    FURNITURE,
    APPLIANCE,
    SOLAR,
    LANDSCAPING,
]
