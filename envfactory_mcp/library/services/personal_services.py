"""Personal services: salons, cleaners, tailors, walkers and studios that serve people directly."""

from __future__ import annotations

from envfactory_mcp.library.archetypes import (
    Noun,
    Part,
    approvals,
    catalog,
    documents,
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
from envfactory_mcp.library.kit import (
    choice,
    date,
    flag,
    integer,
    money,
    ref,
    text,
    transition,
    update,
)
from envfactory_mcp.library.service import Service

# --------------------------------------------------------------------------- hair salon

_salon_clients = people(
    Noun("salon_client"),
    "Clients of the salon.",
    choice("hair_length", ("short", "shoulder", "long", "very_long"), "Current hair length."),
    text("allergy_note", "Product allergies.", "PPD in dyes", "fragrance", "latex gloves", nullable=True),
)
_stylists = catalog(
    Noun("stylist"),
    "Stylists at the salon.",
    text("stylist_name", "Full name.", "Chloe Durand", "Mateo Silva", "Jess Park", "Nia Roberts", "Ivy Chen"),
    choice("level", ("junior", "senior", "art_director"), "Seniority (prices rise with it)."),
    filters=("level",),
    rows=(5, 6),
)
_hair_services = catalog(
    Noun("hair_service"),
    "The salon menu.",
    text(
        "service_name",
        "Name.",
        "Cut and blow-dry",
        "Full head colour",
        "Balayage",
        "Keratin smoothing",
        "Root touch-up",
        "Wedding updo",
    ),
    money("price", 35, 320, "Price in US dollars."),
    integer("minutes", 30, 240, "How long it takes."),
)
_retail = catalog(
    Noun("hair_product"),
    "Products sold at the salon.",
    text(
        "product_name",
        "Name.",
        "Bond repair mask",
        "Sulfate-free shampoo",
        "Heat protect spray",
        "Curl cream",
    ),
    money("price", 14, 48, "Price in US dollars."),
    rows=(4, 6),
)
HAIR = Service.composed(
    "hair_salon",
    "Mane Street hair salon",
    "personal_services",
    "The agent books, confirms, reschedules and cancels salon appointments with the stylists, keeps clients' "
    "hair length and product allergies on file, and puts retail products aside for collection.",
    _salon_clients,
    profile(_salon_clients, "hair_length", "allergy_note"),
    _stylists,
    _hair_services,
    _retail,
    reservation(
        _salon_clients,
        Noun("salon_appointment"),
        _stylists.resources[0],
        ref("hair_services", "hair_service_id", "The service booked."),
        date("appointment_date", "Day of the appointment."),
        choice("start_time", ("09:00", "10:00", "11:30", "13:00", "14:30", "16:00", "17:30"), "Start time."),
        book="book_salon_appointment",
        book_fields=("hair_service_id", "appointment_date", "start_time"),
        reschedule=("reschedule_salon_appointment", ("appointment_date", "start_time")),
        confirm="confirm_salon_appointment",
        cancel="cancel_salon_appointment",
        states=("requested", "confirmed", "in_chair", "finished", "cancelled"),
    ),
    holds(
        _salon_clients,
        Noun("product_hold"),
        _retail.resources[0],
        integer("quantity", 1, 3, "How many."),
        place="hold_product",
        place_fields=("quantity",),
        release="release_product_hold",
        collect="collect_product_hold",
        states=("held", "bagged", "collected", "released"),
    ),
    out_of_scope=(
        "a refund because I don't like my colour",
        "my stylist's personal Instagram handle",
        "a house call for my wedding party",
        "a patch test result emailed to me",
        "a job application as a stylist",
        "my gift card from another salon accepted",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- barbershop

_barber_customers = people(
    Noun("barber_customer"),
    "Customers of the barbershop.",
    choice("usual_cut", ("skin_fade", "taper", "buzz", "scissor_cut", "crew_cut"), "Their usual cut."),
)
_barbers = catalog(
    Noun("barber"),
    "Barbers and their chairs.",
    text("barber_name", "Name.", "Eddie Vance", "Luis Moreno", "Kwame Asante", "Danny Cho"),
    integer("chair_number", 1, 6, "Their chair."),
    flag("does_shaves", "Whether they do hot towel shaves."),
    rows=(4, 5),
)
_clubs = catalog(
    Noun("grooming_club_plan"),
    "Monthly grooming club plans.",
    text("plan_name", "Name.", "Two cuts a month", "Cut and beard", "Unlimited cuts", "Student cut club"),
    integer("cuts_per_month", 1, 8, "Cuts included each month."),
    money("monthly_fee", 30, 120, "Monthly fee in US dollars."),
    rows=(4, 4),
)
BARBER = Service.composed(
    "barbershop",
    "Sharp & Co barbershop",
    "personal_services",
    "The agent books chair time with the barbers, checks customers in and cancels bookings, and runs "
    "grooming club plans (join, pause, cancel).",
    _barber_customers,
    profile(_barber_customers, "usual_cut"),
    _barbers,
    _clubs,
    reservation(
        _barber_customers,
        Noun("chair_booking"),
        _barbers.resources[0],
        choice(
            "cut", ("skin_fade", "taper", "buzz", "scissor_cut", "beard_trim", "hot_towel_shave"), "What."
        ),
        date("booking_date", "Day."),
        choice("time", ("10:00", "10:30", "11:00", "12:30", "15:00", "18:00"), "Time."),
        book="book_chair",
        book_fields=("cut", "booking_date", "time"),
        check_in="check_in_chair_booking",
        cancel="cancel_chair_booking",
        states=("held", "booked", "in_chair", "done", "cancelled"),
        extra_states=("walked_out",),
    ),
    subscriptions(
        _barber_customers,
        Noun("club_membership"),
        _clubs.resources[0],
        start="join_grooming_club",
        pause="pause_club_membership",
        cancel="cancel_club_membership",
        states=("active", "paused", "overdue", "ended"),
    ),
    out_of_scope=(
        "my beard dyed to match a photo",
        "a barber sent to the hospital for my dad",
        "a refund for a cut last year",
        "a barbering apprenticeship",
        "hair clippers sold to me",
        "the music in the shop changed",
    ),
    identify_by=(("phone",),),
)

# --------------------------------------------------------------------------- nail studio

_nail_clients = people(
    Noun("nail_client"),
    "Clients of the nail studio.",
    choice("nail_shape", ("square", "almond", "coffin", "oval", "stiletto"), "Preferred shape."),
    flag("gel_sensitive", "Whether gel polish irritates them."),
)
_techs = catalog(
    Noun("nail_technician"),
    "Nail technicians.",
    text("tech_name", "Name.", "Mai Tran", "Bree Lopez", "Kira Novak", "Ada Obi", "Sun Lee"),
    choice("specialty", ("gel", "acrylic", "nail_art", "pedicure"), "What they do best."),
    filters=("specialty",),
    rows=(5, 6),
)
_nail_visits = reservation(
    _nail_clients,
    Noun("nail_appointment"),
    _techs.resources[0],
    choice(
        "treatment",
        ("gel_manicure", "acrylic_full_set", "infill", "spa_pedicure", "nail_art_add_on", "removal"),
        "Treatment.",
    ),
    text("colour", "Polish colour.", "nude pink", "cherry red", "milky white", "navy", "chrome silver"),
    date("visit_date", "Day."),
    book="book_nail_appointment",
    book_fields=("treatment", "colour", "visit_date"),
    reschedule=("change_nail_appointment_date", ("visit_date",)),
    cancel="cancel_nail_appointment",
    states=("booked", "confirmed", "in_progress", "completed", "cancelled"),
    extra_states=(),
)
NAILS = Service.composed(
    "nail_studio",
    "Polished nail studio",
    "personal_services",
    "The agent books, moves and cancels nail appointments, changes the polish colour of upcoming ones, takes "
    "free fix requests for chipped or lifting nails (changed, escalated, closed), and takes payment of visits.",
    _nail_clients,
    profile(_nail_clients, "nail_shape"),
    _techs,
    _nail_visits,
    Part(
        "nail_extras",
        (),
        (
            update(
                _nail_visits.resources[0],
                "change_nail_polish_colour",
                "Change the polish colour of an upcoming nail appointment.",
                ("colour",),
                only_when=(
                    "status",
                    ("booked", "confirmed"),
                    "the colour can only be changed before the visit",
                ),
                intent="change the polish colour of a nail appointment",
            ),
            transition(
                _nail_visits.resources[0],
                "mark_nail_appointment_confirmed",
                "Confirm a booked nail appointment after the deposit reminder.",
                "confirmed",
                ("booked",),
                "only booked nail appointments can be confirmed",
            ),
        ),
    ),
    tickets(
        _nail_clients,
        Noun("fix_request"),
        choice("problem", ("chipped", "lifting", "broken_nail", "uneven_colour"), "What went wrong."),
        integer("nails_affected", 1, 10, "How many nails."),
        open_="request_nail_fix",
        open_fields=("problem", "nails_affected"),
        note=("change_fix_request_nails", "nails_affected"),
        escalate="escalate_fix_request",
        close="close_fix_request",
        states=("new", "scheduled", "fixed", "closed"),
        about=_nail_visits.resources[0],
    ),
    invoices(
        _nail_clients,
        Noun("nail_receipt"),
        money("tip", 0, 30, "Tip added in US dollars."),
        pay="pay_nail_receipt",
        states=("unpaid", "paid", "charged_back", "void"),
        low=25,
        high=140,
    ),
    out_of_scope=(
        "a fungal nail infection diagnosed",
        "press-on nails shipped to me",
        "a tech sent to my bachelorette party",
        "my eyebrows waxed",
        "a refund because the colour is not what I wanted",
        "my late fee from another branch waived",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- tailor alterations

_tailor_customers = people(
    Noun("tailor_customer"),
    "Customers of the alterations shop.",
    text(
        "measurements_note", "Measurements on file.", "chest 40, waist 34", "waist 28, inseam 30", "bust 36"
    ),
)
_alteration_kinds = catalog(
    Noun("alteration"),
    "Alterations the shop does.",
    text(
        "alteration_name",
        "Name.",
        "Hem trousers",
        "Take in waist",
        "Shorten sleeves",
        "Replace zip",
        "Taper legs",
        "Wedding dress bustle",
    ),
    money("price", 12, 180, "Price in US dollars."),
    integer("days_needed", 1, 14, "Working days it takes."),
)
_garments = owned(
    _tailor_customers,
    Noun("garment"),
    "Garments the customer has brought in.",
    choice("garment_kind", ("suit_jacket", "trousers", "dress", "coat", "shirt", "skirt"), "What it is."),
    text("fabric", "Fabric.", "wool", "linen", "cotton", "silk", "denim", "polyester"),
    text("colour", "Colour.", "charcoal", "navy", "black", "ivory", "olive"),
    add="drop_off_garment",
    add_fields=("garment_kind", "fabric", "colour"),
    rows=(1, 3),
)
TAILOR = Service.composed(
    "tailor_alterations",
    "Stitch Right tailoring and alterations",
    "personal_services",
    "The agent logs garments customers drop off, takes alteration jobs on them, moves their fitting date, "
    "cancels jobs before work starts and sends finished jobs back for redo; it also takes payment of tickets.",
    _tailor_customers,
    profile(_tailor_customers, "measurements_note"),
    _alteration_kinds,
    _garments,
    orders(
        _tailor_customers,
        Noun("alteration_job"),
        _alteration_kinds.resources[0],
        ref("garments", "garment_id", "The garment altered."),
        date("fitting_date", "When the customer comes in for a fitting."),
        flag("rush", "Whether it is a rush job."),
        place="take_alteration_job",
        place_fields=("garment_id", "fitting_date", "rush"),
        change=("move_fitting_date", ("fitting_date",)),
        cancel="cancel_alteration_job",
        ret="send_back_for_redo",
        states=("taken_in", "pinned", "sewing", "collected", "cancelled", "redo"),
    ),
    invoices(
        _tailor_customers,
        Noun("tailor_ticket"),
        pay="pay_tailor_ticket",
        pay_fields=(),
        states=("awaiting_payment", "paid", "in_dispute", "void"),
        low=12,
        high=260,
    ),
    out_of_scope=(
        "a bespoke suit made from scratch",
        "my garment dry cleaned before it's altered",
        "a garment I left two years ago found",
        "a discount for altering five bridesmaid dresses",
        "my wedding dress stored until next year",
        "a button matched from a designer brand",
    ),
    identify_by=(("email",), ("last_name", "phone")),
)

# --------------------------------------------------------------------------- dry cleaning

_dc_customers = people(
    Noun("cleaning_customer"),
    "Dry cleaning customers.",
    choice("starch", ("no_starch", "light", "medium", "heavy"), "How shirts are starched."),
    flag("eco_clean", "Whether they want solvent-free cleaning."),
)
_dc_services = catalog(
    Noun("cleaning_service"),
    "Cleaning services and per-item prices.",
    text(
        "service_name",
        "Name.",
        "Shirt laundered and pressed",
        "Suit dry clean",
        "Dress dry clean",
        "Duvet wash",
        "Leather jacket clean",
        "Curtain clean",
    ),
    money("price_per_item", 3, 65, "Price per item in US dollars."),
)
_dc_orders = orders(
    _dc_customers,
    Noun("cleaning_order"),
    _dc_services.resources[0],
    integer("item_count", 1, 15, "Items in the bag."),
    flag("express", "Same-day express."),
    date("ready_by", "When it should be ready."),
    place="drop_off_cleaning",
    place_fields=("item_count", "express", "ready_by"),
    change=("change_cleaning_ready_date", ("ready_by",)),
    cancel="cancel_cleaning_order",
    ret="request_reclean",
    states=("received", "cleaning", "pressing", "picked_up", "cancelled", "recleaning"),
)
DRY = Service.composed(
    "dry_cleaning",
    "FreshPress dry cleaners",
    "personal_services",
    "The agent takes cleaning orders, changes their ready date, cancels them before cleaning starts and sends "
    "picked-up orders back for re-cleaning; it also files, changes, withdraws and appeals damage claims.",
    _dc_customers,
    profile(_dc_customers, "starch", "eco_clean"),
    _dc_services,
    _dc_orders,
    approvals(
        _dc_customers,
        Noun("damage_claim"),
        ref("cleaning_orders", "cleaning_order_id", "The order the item was in."),
        text(
            "damage",
            "What happened.",
            "shrunk sweater",
            "colour ran",
            "missing button",
            "torn lining",
            "stain",
        ),
        money("claimed_amount", 10, 400, "Amount claimed in US dollars."),
        submit="file_damage_claim",
        submit_fields=("cleaning_order_id", "damage", "claimed_amount"),
        amend=("change_damage_claim_amount", ("claimed_amount",)),
        withdraw="withdraw_damage_claim",
        appeal="appeal_damage_claim",
        states=("filed", "inspecting", "compensated", "denied", "withdrawn"),
    ),
    out_of_scope=(
        "my wedding dress preserved in a box",
        "a stain removal guarantee in writing",
        "pickup from my office building",
        "a leather sofa cleaned at my home",
        "a cheaper price than the shop across the road",
        "my coat that someone else picked up tracked down",
    ),
    identify_by=(("phone",), ("email",)),
)

# --------------------------------------------------------------------------- house cleaning

_households = people(
    Noun("household"),
    "Households that book cleans.",
    text(
        "access_note",
        "How cleaners get in.",
        "key in lockbox",
        "doorman has key",
        "code 4471",
        "call on arrival",
    ),
)
_homes = owned(
    _households,
    Noun("home"),
    "Homes cleaned for a household.",
    text(
        "address", "Street address.", "12 Elm Road", "88 Harbour View Apt 4", "5 Mill Lane", "240 Cedar Ave"
    ),
    integer("bedrooms", 1, 6, "Bedrooms."),
    integer("bathrooms", 1, 4, "Bathrooms."),
    flag("has_pets", "Whether pets live there."),
    add="add_home",
    add_fields=("address", "bedrooms", "bathrooms", "has_pets"),
    edit="update_home_rooms",
    edit_fields=("bedrooms", "bathrooms"),
)
_crews = catalog(
    Noun("cleaning_crew"),
    "Cleaning crews.",
    text("crew_name", "Name.", "Team Aurora", "Team Birch", "Team Coral", "Team Delta"),
    integer("cleaners", 2, 4, "Cleaners in the crew."),
    choice("zone", ("north", "south", "east", "west"), "Area they cover."),
    filters=("zone",),
    rows=(4, 5),
)
_cleaning_plans = catalog(
    Noun("cleaning_plan"),
    "Recurring cleaning plans.",
    text("plan_name", "Name.", "Weekly standard", "Fortnightly standard", "Monthly deep", "Weekly premium"),
    choice("frequency", ("weekly", "fortnightly", "monthly"), "How often."),
    money("price_per_visit", 70, 260, "Price per visit in US dollars."),
    rows=(4, 4),
)
HOUSE = Service.composed(
    "house_cleaning",
    "Sparkle home cleaning",
    "personal_services",
    "The agent keeps households' homes on file, books, reschedules, confirms and cancels one-off cleaning "
    "visits by a crew, and manages recurring cleaning plans (start, change frequency plan, pause, resume).",
    _households,
    profile(_households, "access_note"),
    _homes,
    _crews,
    _cleaning_plans,
    reservation(
        _households,
        Noun("cleaning_visit"),
        _crews.resources[0],
        ref("homes", "home_id", "The home cleaned."),
        choice("visit_kind", ("standard", "deep_clean", "move_out", "post_party"), "What kind of clean."),
        date("visit_date", "Day of the visit."),
        book="book_cleaning_visit",
        book_fields=("home_id", "visit_kind", "visit_date"),
        reschedule=("reschedule_cleaning_visit", ("visit_date",)),
        confirm="confirm_cleaning_visit",
        cancel="cancel_cleaning_visit",
        states=("requested", "scheduled", "cleaning", "done", "cancelled"),
        extra_states=("locked_out",),
        under="home_id",
    ),
    subscriptions(
        _households,
        Noun("cleaning_subscription"),
        _cleaning_plans.resources[0],
        ref("homes", "home_id", "The home on the plan."),
        start="start_cleaning_plan",
        start_fields=("home_id",),
        change_plan="change_cleaning_plan",
        pause="pause_cleaning_plan",
        resume="resume_cleaning_plan",
        states=("active", "paused", "payment_failed", "ended"),
    ),
    out_of_scope=(
        "my oven cleaned inside with chemicals",
        "compensation for a broken vase",
        "the same cleaner every time guaranteed",
        "my windows cleaned from outside on the third floor",
        "a cleaner hired privately off the books",
        "my carpets shampooed",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- dog walking

_dog_owners = people(
    Noun("dog_owner"),
    "Owners whose dogs are walked.",
    choice("neighbourhood", ("riverside", "old_town", "hillcrest", "parkside"), "Where they live."),
)
_dogs = owned(
    _dog_owners,
    Noun("dog"),
    "Dogs walked by the service.",
    text("dog_name", "Name.", "Buddy", "Daisy", "Max", "Rosie", "Teddy", "Lola", "Scout"),
    choice("size", ("small", "medium", "large", "giant"), "Size."),
    flag("leash_reactive", "Whether the dog reacts to other dogs on the leash."),
    text(
        "walk_notes", "Notes for the walker.", "pulls hard", "afraid of bikes", "loves fetch", nullable=True
    ),
    add="add_dog",
    add_fields=("dog_name", "size", "leash_reactive"),
    edit="update_dog_walk_notes",
    edit_fields=("walk_notes",),
)
_walkers = catalog(
    Noun("walker"),
    "Dog walkers.",
    text("walker_name", "Name.", "Jamie Ross", "Ali Kaya", "Beth Moore", "Chris Dunn", "Pia Lund"),
    choice("neighbourhood", ("riverside", "old_town", "hillcrest", "parkside"), "Where they walk."),
    integer("max_dogs", 1, 6, "Dogs per group walk."),
    filters=("neighbourhood",),
    rows=(5, 6),
)
_walk_packs = catalog(
    Noun("walk_pack"),
    "Prepaid weekly walk packs.",
    text("pack_name", "Name.", "Three walks a week", "Weekday walks", "Daily walks", "Puppy visits"),
    integer("walks_per_week", 2, 7, "Walks a week."),
    money("weekly_price", 45, 150, "Weekly price in US dollars."),
    rows=(4, 4),
)
WALKS = Service.composed(
    "dog_walking",
    "Happy Tails dog walking",
    "personal_services",
    "The agent keeps owners' dogs on file, books and cancels single walks with local walkers, confirms them, "
    "and manages weekly walk packs (start, switch, cancel).",
    _dog_owners,
    profile(_dog_owners, "neighbourhood"),
    _dogs,
    _walkers,
    _walk_packs,
    reservation(
        _dog_owners,
        Noun("walk"),
        _walkers.resources[0],
        ref("dogs", "dog_id", "The dog walked."),
        choice("walk_length", ("30m", "45m", "60m"), "How long."),
        choice("walk_style", ("solo", "group"), "Solo or group walk."),
        date("walk_date", "Day."),
        book="book_walk",
        book_fields=("dog_id", "walk_length", "walk_style", "walk_date"),
        confirm="confirm_walk",
        cancel="cancel_walk",
        states=("requested", "confirmed", "out_walking", "returned_home", "cancelled"),
        extra_states=(),
        under="dog_id",
    ),
    subscriptions(
        _dog_owners,
        Noun("walk_subscription"),
        _walk_packs.resources[0],
        start="start_walk_pack",
        change_plan="switch_walk_pack",
        cancel="cancel_walk_pack",
        states=("running", "suspended", "card_declined", "cancelled"),
    ),
    out_of_scope=(
        "my dog trained not to pull",
        "my dog boarded overnight",
        "a vet visit arranged for my dog",
        "the walker to pick up my groceries",
        "compensation for a lost leash",
        "a walker background check report sent to me",
    ),
    identify_by=(("email",),),
)

# --------------------------------------------------------------------------- photography studio

_photo_clients = people(
    Noun("photo_client"),
    "Clients of the studio.",
)
_photographers = catalog(
    Noun("photographer"),
    "Studio photographers.",
    text("photographer_name", "Name.", "Elena Kowal", "Marcus Green", "Yuki Sato", "Olu Adebayo"),
    choice("genre", ("portrait", "newborn", "family", "headshot", "pet"), "What they shoot."),
    filters=("genre",),
    rows=(4, 5),
)
_prints = catalog(
    Noun("print_product"),
    "Prints and albums.",
    text(
        "product_name", "Name.", "8x10 print", "Canvas 24x36", "Linen album", "Framed 16x20", "Wallet prints"
    ),
    money("price", 15, 450, "Price in US dollars."),
    rows=(5, 6),
)
_shoots = reservation(
    _photo_clients,
    Noun("photo_shoot"),
    _photographers.resources[0],
    choice("location", ("studio", "outdoor_park", "client_home", "beach"), "Where."),
    date("shoot_date", "Day."),
    integer("people_in_shot", 1, 10, "How many people."),
    book="book_photo_shoot",
    book_fields=("location", "shoot_date", "people_in_shot"),
    reschedule=("reschedule_photo_shoot", ("shoot_date", "location")),
    cancel="cancel_photo_shoot",
    states=("enquiry", "booked", "shooting", "shot", "cancelled"),
    extra_states=(),
)
_galleries = documents(
    _photo_clients,
    Noun("gallery", "galleries"),
    ref("photo_shoots", "photo_shoot_id", "The shoot."),
    integer("photo_count", 10, 300, "Photos in it."),
    create_="open_gallery",
    create_fields=("photo_shoot_id", "photo_count"),
    publish="deliver_gallery",
    archive="archive_gallery",
    share=("share_gallery", Noun("gallery_access", "gallery_accesses")),
    states=("proofing", "delivered", "archived"),
    roles=("viewer", "downloader"),
)
PHOTO = Service.composed(
    "photography_studio",
    "Lumen portrait studio",
    "personal_services",
    "The agent books, moves and cancels photo shoots, opens, delivers, archives and shares clients' online "
    "galleries, and takes orders for prints and albums.",
    _photo_clients,
    profile(_photo_clients, "phone"),
    _photographers,
    _prints,
    _shoots,
    _galleries,
    orders(
        _photo_clients,
        Noun("print_order"),
        _prints.resources[0],
        integer("copies", 1, 20, "Copies."),
        choice("finish", ("matte", "lustre", "gloss"), "Paper finish."),
        place="order_prints",
        place_fields=("copies", "finish"),
        change=("change_print_finish", ("finish",)),
        cancel="cancel_print_order",
        states=("ordered", "printing", "shipped", "delivered", "cancelled", "returned"),
    ),
    out_of_scope=(
        "the RAW files of my shoot",
        "my photos retouched to remove a person",
        "a photographer for a wedding in another state",
        "my photo used in the studio's ads taken down",
        "a refund because I blinked in every photo",
        "my photos printed on a mug",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- tattoo studio

_tattoo_clients = people(
    Noun("tattoo_client"),
    "Clients of the studio.",
    flag("over_18_verified", "Whether ID has been checked."),
    choice("skin_tone_note", ("fair", "medium", "olive", "deep"), "For the artist's ink choice."),
)
_artists = catalog(
    Noun("tattoo_artist"),
    "Resident artists.",
    text("artist_name", "Name.", "Rook Delgado", "Sable Kim", "Finn O'Hara", "Vera Lind", "Jax Moreau"),
    choice("style", ("fine_line", "traditional", "blackwork", "realism", "japanese"), "Their style."),
    money("hourly_rate", 120, 250, "Hourly rate in US dollars."),
    filters=("style",),
    rows=(5, 6),
)
_designs = approvals(
    _tattoo_clients,
    Noun("design_request"),
    ref("tattoo_artists", "tattoo_artist_id", "The artist asked."),
    choice("placement", ("forearm", "upper_arm", "back", "ankle", "ribs", "shoulder"), "Where on the body."),
    integer("size_cm", 3, 40, "Approximate size in cm."),
    text("idea", "The idea.", "botanical sleeve", "koi fish", "minimal moon phases", "portrait of a dog"),
    submit="send_design_request",
    submit_fields=("tattoo_artist_id", "placement", "size_cm", "idea"),
    amend=("change_design_size", ("size_cm", "placement")),
    withdraw="withdraw_design_request",
    states=("sent", "sketching", "accepted", "declined", "withdrawn"),
)
TATTOO = Service.composed(
    "tattoo_studio",
    "Inkwell tattoo studio",
    "personal_services",
    "The agent sends clients' design requests to the artists (change or withdraw them before the artist "
    "decides), books, reschedules and cancels tattoo sessions, and takes deposits.",
    _tattoo_clients,
    profile(_tattoo_clients),
    _artists,
    _designs,
    reservation(
        _tattoo_clients,
        Noun("tattoo_session"),
        _artists.resources[0],
        date("session_date", "Day."),
        integer("hours", 1, 8, "Hours booked."),
        book="book_tattoo_session",
        book_fields=("session_date", "hours"),
        reschedule=("reschedule_tattoo_session", ("session_date",)),
        cancel="cancel_tattoo_session",
        states=("pencilled", "deposit_paid", "inking", "healed_check_done", "cancelled"),
        extra_states=("forfeited",),
    ),
    invoices(
        _tattoo_clients,
        Noun("deposit"),
        choice("method", ("card", "cash", "bank_transfer"), "How it was paid.", default="card"),
        pay="pay_deposit",
        pay_fields=("method",),
        states=("requested", "received", "disputed", "forfeited"),
        low=50,
        high=300,
    ),
    out_of_scope=(
        "a tattoo on someone under 18 with parental consent",
        "a tattoo removal session",
        "a cover-up of another studio's work for free",
        "a numbing cream prescription",
        "my deposit transferred to a friend",
        "a piercing done during my session",
    ),
    identify_by=(("email",),),
)

# --------------------------------------------------------------------------- home removals

_movers = people(
    Noun("moving_customer"),
    "People moving home.",
    text("current_address", "Where they live now.", "14 Birch Close", "7 Quay Street Apt 2", "301 Pine Rd"),
)
_crews_r = catalog(
    Noun("removal_crew"),
    "Removal crews and their vans.",
    text("crew_name", "Name.", "Crew Atlas", "Crew Bison", "Crew Condor", "Crew Dingo"),
    choice("van_size", ("luton", "7_5_tonne", "18_tonne"), "Van size."),
    integer("movers", 2, 5, "Movers in the crew."),
    rows=(4, 5),
)
_boxes = catalog(
    Noun("packing_supply", "packing_supplies"),
    "Packing supplies for sale.",
    text(
        "supply_name",
        "Name.",
        "Medium boxes (10)",
        "Wardrobe box",
        "Bubble wrap roll",
        "Tape gun",
        "Mattress bag",
    ),
    money("price", 4, 40, "Price in US dollars."),
    rows=(5, 5),
)
_moves = reservation(
    _movers,
    Noun("move"),
    _crews_r.resources[0],
    text(
        "new_address",
        "Where they move to.",
        "22 Oak Lane",
        "9 Harbour Rise",
        "140 Lake Drive",
        "3 Hill Court",
    ),
    date("move_date", "Moving day."),
    integer("rooms", 1, 8, "Rooms of furniture."),
    flag("packing_service", "Whether the crew packs too."),
    book="book_move",
    book_fields=("new_address", "move_date", "rooms", "packing_service"),
    reschedule=("change_move_date", ("move_date",)),
    confirm="confirm_move",
    cancel="cancel_move",
    states=("quoted", "confirmed", "loading", "delivered", "cancelled"),
    extra_states=(),
)
REMOVALS = Service.composed(
    "home_removals",
    "Two Hands home removals",
    "personal_services",
    "The agent books, confirms, re-dates and cancels house moves with the removal crews, sells packing "
    "supplies, and handles claims for items damaged in a move.",
    _movers,
    profile(_movers, "current_address"),
    _crews_r,
    _boxes,
    _moves,
    orders(
        _movers,
        Noun("supply_order"),
        _boxes.resources[0],
        integer("quantity", 1, 10, "How many."),
        place="order_packing_supplies",
        place_fields=("quantity",),
        cancel="cancel_supply_order",
        states=("ordered", "picking", "out_for_delivery", "delivered", "cancelled", "returned"),
    ),
    approvals(
        _movers,
        Noun("breakage_claim"),
        ref("moves", "move_id", "The move."),
        text("item", "Item damaged.", "glass coffee table", "TV", "oak wardrobe", "dining chair", "mirror"),
        money("amount", 20, 1500, "Claimed in US dollars."),
        submit="file_breakage_claim",
        submit_fields=("move_id", "item", "amount"),
        withdraw="withdraw_breakage_claim",
        appeal="appeal_breakage_claim",
        states=("received", "assessing", "paid_out", "rejected", "withdrawn"),
    ),
    out_of_scope=(
        "my piano moved to another country",
        "storage for my furniture for six months",
        "my old sofa taken to the dump",
        "a crew to clean the old house after the move",
        "my utilities switched to the new address",
        "my car shipped along with the furniture",
    ),
    identify_by=(("email",), ("last_name", "phone")),
)

SERVICES = [HAIR, BARBER, NAILS, TAILOR, DRY, HOUSE, WALKS, PHOTO, TATTOO, REMOVALS]
