"""Sports and leisure: studios, courts, courses, rentals and clubs people play at."""

from __future__ import annotations

from envfactory_mcp.library.archetypes import (
    Noun,
    Part,
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
from envfactory_mcp.library.kit import (
    choice,
    date,
    flag,
    integer,
    money,
    ref,
    text,
    update,
)
from envfactory_mcp.library.service import Service

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# --------------------------------------------------------------------------- yoga studio

_yogis = people(
    Noun("yoga_student"),
    "Students of the studio.",
    choice("experience", ("beginner", "intermediate", "advanced"), "How long they have practised."),
    flag("injury_flag", "Whether they have told the studio about an injury."),
)
_yoga_classes = catalog(
    Noun("yoga_class", "yoga_classes"),
    "Weekly classes.",
    choice("style", ("vinyasa", "hatha", "yin", "ashtanga", "restorative", "hot"), "Style."),
    text("teacher", "Teacher.", "Asha Menon", "Ben Wilde", "Clara Sun", "Devi Roy"),
    choice("weekday", _WEEKDAYS, "Day."),
    choice("start_time", ("06:45", "09:30", "12:15", "18:00", "19:45"), "Start time."),
    integer("mats", 10, 30, "Mats in the room."),
    filters=("style", "weekday"),
)
_workshops = catalog(
    Noun("workshop"),
    "Weekend workshops and retreats.",
    text(
        "workshop_name",
        "Name.",
        "Inversions clinic",
        "Yin and sound bath",
        "Teacher training intro",
        "Retreat",
    ),
    date("workshop_date", "Day."),
    money("price", 35, 450, "Price in US dollars."),
    rows=(4, 6),
)
YOGA = Service.composed(
    "yoga_studio",
    "Lotus Flow yoga studio",
    "sports_leisure",
    "The agent reserves mats in weekly classes (confirming places off the waitlist, checking students in, "
    "cancelling), and sells, changes and cancels workshop tickets.",
    _yogis,
    profile(_yogis, "experience", "injury_flag"),
    _yoga_classes,
    _workshops,
    reservation(
        _yogis,
        Noun("mat_reservation"),
        _yoga_classes.resources[0],
        date("class_date", "Date of the class."),
        book="reserve_mat",
        book_fields=("class_date",),
        confirm="confirm_mat_from_waitlist",
        check_in="check_in_mat_reservation",
        cancel="cancel_mat_reservation",
        states=("waitlisted", "reserved", "on_the_mat", "attended", "cancelled"),
        extra_states=("late_cancel",),
    ),
    orders(
        _yogis,
        Noun("workshop_ticket"),
        _workshops.resources[0],
        integer("seats", 1, 3, "Seats."),
        flag("mat_hire", "Whether a mat is hired."),
        place="buy_workshop_ticket",
        place_fields=("seats", "mat_hire"),
        change=("change_workshop_ticket_seats", ("seats", "mat_hire")),
        cancel="cancel_workshop_ticket",
        states=("reserved", "paid", "issued", "used", "cancelled", "refunded"),
    ),
    out_of_scope=(
        "a private lesson at my home",
        "my class pass shared with my partner",
        "the room heated less in hot yoga",
        "a teacher training certificate issued early",
        "a refund for the leggings I bought",
        "advice on yoga for my herniated disc",
    ),
    identify_by=(("email",),),
)

# --------------------------------------------------------------------------- climbing gym

_climbers = people(
    Noun("climber"),
    "Climbers with an account.",
    flag("belay_certified", "Whether they passed the belay check."),
    choice("grade", ("v0_v2", "v3_v5", "v6_v8", "v9_plus"), "Bouldering grade they climb."),
)
_walls = catalog(
    Noun("climbing_area"),
    "Areas of the gym that can be booked.",
    text(
        "area_name",
        "Name.",
        "Main boulder cave",
        "Lead wall",
        "Auto-belay zone",
        "Kids wall",
        "Training board",
    ),
    integer("capacity", 6, 40, "Climbers at once."),
    rows=(5, 5),
)
_gear = catalog(
    Noun("rental_gear", "rental_gear_items"),
    "Rental gear.",
    text(
        "gear_name",
        "Item and size.",
        "Climbing shoes EU 38",
        "Climbing shoes EU 41",
        "Climbing shoes EU 44",
        "Harness size S",
        "Harness size M",
        "Harness size L",
        "Belay device",
        "Helmet",
    ),
    money("day_rate", 3, 8, "Day rate in US dollars."),
)
CLIMB = Service.composed(
    "climbing_gym",
    "Boulder Barn climbing gym",
    "sports_leisure",
    "The agent books climbing sessions in the gym's areas (confirmation and cancellation included), sets "
    "rental gear aside and hands it out, and settles day-pass charges.",
    _climbers,
    profile(_climbers, "belay_certified", "grade"),
    _walls,
    _gear,
    reservation(
        _climbers,
        Noun("climbing_session"),
        _walls.resources[0],
        date("session_date", "Day."),
        choice("block", ("morning", "midday", "afternoon", "evening"), "Time block."),
        integer("party_size", 1, 6, "Climbers in the party."),
        book="book_climbing_session",
        book_fields=("session_date", "block", "party_size"),
        reschedule=("move_climbing_session", ("session_date", "block")),
        confirm="confirm_climbing_session",
        cancel="cancel_climbing_session",
        states=("pending", "confirmed", "climbing", "finished", "cancelled"),
        extra_states=(),
    ),
    holds(
        _climbers,
        Noun("gear_hold"),
        _gear.resources[0],
        place="hold_rental_gear",
        release="release_gear_hold",
        extend=("extend_gear_hold", "expires_on"),
        collect="hand_out_gear",
        states=("set_aside", "at_desk", "handed_out", "released"),
    ),
    invoices(
        _climbers,
        Noun("day_pass_charge"),
        pay="pay_day_pass_charge",
        dispute="dispute_day_pass_charge",
        states=("due", "paid", "disputed", "refunded"),
        low=12,
        high=60,
    ),
    out_of_scope=(
        "an outdoor guided climb booked",
        "my belay check waived because I climb outdoors",
        "the routes on the lead wall reset",
        "my waiver signed by my friend for me",
        "a refund after I sprained my ankle",
        "my own rope stored at the gym",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- swimming lessons

_swim_parents = people(
    Noun("parent"),
    "Parents and guardians who enrol swimmers.",
    text("emergency_contact", "Second contact.", "Grandma Jo 555-0142", "Uncle Sam 555-0199", "Dad 555-0110"),
)
_swimmers = owned(
    _swim_parents,
    Noun("swimmer"),
    "Children who swim with the school.",
    text("swimmer_name", "First name.", "Ella", "Noah", "Ava", "Leo", "Isla", "Finn", "Mia"),
    integer("age", 3, 14, "Age."),
    choice("swim_level", ("starfish", "seahorse", "dolphin", "shark"), "Badge level."),
    add="add_swimmer",
    add_fields=("swimmer_name", "age", "swim_level"),
    edit="update_swimmer_level",
    edit_fields=("swim_level",),
)
_lesson_groups = catalog(
    Noun("lesson_group"),
    "Weekly lesson groups for the term.",
    choice("swim_level", ("starfish", "seahorse", "dolphin", "shark"), "Level taught."),
    choice("weekday", _WEEKDAYS, "Day."),
    choice("pool", ("learner_pool", "main_pool"), "Pool."),
    integer("places", 4, 10, "Places in the group."),
    filters=("swim_level", "weekday"),
)
_enrolments = reservation(
    _swim_parents,
    Noun("term_enrolment"),
    _lesson_groups.resources[0],
    ref("swimmers", "swimmer_id", "The swimmer."),
    choice("term", ("spring", "summer", "autumn"), "Term."),
    book="enrol_swimmer",
    book_fields=("swimmer_id", "term"),
    confirm="confirm_term_enrolment",
    cancel="withdraw_term_enrolment",
    states=("waiting_list", "enrolled", "in_term", "term_finished", "withdrawn"),
    extra_states=(),
    under="swimmer_id",
)
SWIM = Service.composed(
    "swimming_lessons",
    "Splash swim school",
    "sports_leisure",
    "The agent keeps parents' swimmers and their badge levels on file, enrols them in term lesson groups "
    "(confirm from the waiting list, withdraw), and takes payment of term fees.",
    _swim_parents,
    profile(_swim_parents, "emergency_contact"),
    _swimmers,
    _lesson_groups,
    _enrolments,
    invoices(
        _swim_parents,
        Noun("term_fee"),
        about=_enrolments.resources[0],
        pay="pay_term_fee",
        states=("due", "paid", "queried", "cancelled"),
        low=90,
        high=240,
    ),
    out_of_scope=(
        "my child moved up a level without an assessment",
        "a private one-to-one lesson with a named teacher",
        "a refund because my child was sick for three weeks",
        "a swim party booked for my son's birthday",
        "lessons for me as an adult",
        "my child's goggles from lost property posted to me",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- golf tee times

_golfers = people(
    Noun("golfer"),
    "Golfers with a tee-sheet account.",
    integer("handicap", 0, 36, "Handicap index, rounded."),
    flag("club_member", "Whether they are a club member."),
)
_courses = catalog(
    Noun("golf_course"),
    "Courses at the club.",
    text("course_name", "Name.", "Pine Hollow Championship", "Lakeside Nine", "Meadow Executive"),
    choice("holes", ("9", "18"), "Holes."),
    money("green_fee", 25, 180, "Green fee in US dollars."),
    rows=(3, 3),
)
_clubs = catalog(
    Noun("club_set"),
    "Rental club sets.",
    text("set_name", "Set.", "Callaway Strata", "TaylorMade Kalea", "Ping G425", "Wilson Pro Staff"),
    choice("hand", ("right", "left"), "Handedness."),
    rows=(4, 6),
)
GOLF = Service.composed(
    "golf_tee_times",
    "Pine Hollow golf club pro shop",
    "sports_leisure",
    "The agent books, moves, checks in and cancels tee times on the club's courses, reserves rental club sets "
    "for a round, and takes payment of green fees.",
    _golfers,
    profile(_golfers, "handicap"),
    _courses,
    _clubs,
    reservation(
        _golfers,
        Noun("tee_time"),
        _courses.resources[0],
        date("tee_date", "Day."),
        choice("tee_slot", ("07:00", "07:10", "08:20", "09:40", "11:00", "13:30", "15:50"), "Tee time."),
        integer("players", 1, 4, "Players in the group."),
        flag("cart", "Whether a cart is needed."),
        book="book_tee_time",
        book_fields=("tee_date", "tee_slot", "players", "cart"),
        reschedule=("move_tee_time", ("tee_date", "tee_slot")),
        check_in="check_in_at_starter",
        cancel="cancel_tee_time",
        states=("held", "booked", "on_course", "round_complete", "cancelled"),
        extra_states=("rained_off",),
    ),
    holds(
        _golfers,
        Noun("club_rental"),
        _clubs.resources[0],
        date("round_date", "The day of the round."),
        place="reserve_club_set",
        place_fields=("round_date",),
        extend=("change_club_rental_date", "round_date"),
        release="cancel_club_rental",
        states=("reserved", "cleaned_and_ready", "out_on_course", "cancelled"),
    ),
    invoices(
        _golfers,
        Noun("green_fee_charge"),
        choice("paid_with", ("card", "member_account", "cash"), "How.", default="card"),
        pay="pay_green_fee",
        pay_fields=("paid_with",),
        states=("unpaid", "paid", "in_dispute", "comped"),
        low=25,
        high=400,
    ),
    out_of_scope=(
        "a lesson with the club pro",
        "my handicap officially revised",
        "club membership application fast-tracked",
        "a lost ball from the lake retrieved",
        "a tournament entry for next month",
        "the dress code waived for my guest",
    ),
    identify_by=(("email",), ("last_name", "phone")),
)

# --------------------------------------------------------------------------- tennis courts

_tennis_players = people(
    Noun("tennis_player"),
    "Players with a court-booking account.",
    choice("rating", ("2_5", "3_0", "3_5", "4_0", "4_5"), "NTRP rating."),
)
_courts = catalog(
    Noun("court"),
    "Courts at the club.",
    integer("court_number", 1, 12, "Court number."),
    choice("surface", ("hard", "clay", "grass", "indoor_carpet"), "Surface."),
    flag("floodlit", "Whether it has lights."),
    filters=("surface",),
    rows=(6, 10),
)
_coaching = catalog(
    Noun("coaching_plan"),
    "Monthly coaching plans.",
    text(
        "plan_name", "Name.", "Weekly group drills", "Junior squad", "Private monthly four", "Cardio tennis"
    ),
    money("monthly_fee", 40, 260, "Monthly fee in US dollars."),
    rows=(4, 4),
)
TENNIS = Service.composed(
    "tennis_court_booking",
    "Baseline tennis centre",
    "sports_leisure",
    "The agent books, moves and cancels court time, takes reports of court problems (nets, lights, surface) "
    "and closes or reopens them, and manages players' coaching plans (join, change, cancel).",
    _tennis_players,
    profile(_tennis_players, "rating"),
    _courts,
    _coaching,
    reservation(
        _tennis_players,
        Noun("court_booking"),
        _courts.resources[0],
        date("play_date", "Day."),
        choice("hour", ("07:00", "08:00", "17:00", "18:00", "19:00", "20:00"), "Start hour."),
        choice("duration", ("60m", "90m", "120m"), "Length."),
        book="book_court",
        book_fields=("play_date", "hour", "duration"),
        reschedule=("move_court_booking", ("play_date", "hour")),
        cancel="cancel_court_booking",
        states=("provisional", "booked", "playing", "played", "cancelled"),
        extra_states=(),
    ),
    tickets(
        _tennis_players,
        Noun("court_report"),
        choice(
            "issue", ("torn_net", "light_out", "wet_surface", "cracked_line", "gate_broken"), "The issue."
        ),
        open_="report_court_problem",
        open_fields=("issue",),
        close="close_court_report",
        reopen="reopen_court_report",
        states=("reported", "groundskeeper_assigned", "fixed", "closed"),
        about=_courts.resources[0],
    ),
    subscriptions(
        _tennis_players,
        Noun("coaching_membership"),
        _coaching.resources[0],
        start="join_coaching_plan",
        change_plan="change_coaching_plan",
        cancel="cancel_coaching_plan",
        states=("active", "on_pause", "unpaid", "cancelled"),
    ),
    out_of_scope=(
        "my racket restrung",
        "a hitting partner found for me",
        "a ball machine delivered to my home",
        "my rating officially re-assessed",
        "a tournament draw changed",
        "my locker key replaced",
    ),
    identify_by=(("email",),),
)

# --------------------------------------------------------------------------- bowling alley

_bowlers = people(
    Noun("bowler"),
    "Guests who book lanes.",
    integer("shoe_size", 4, 15, "Bowling shoe size (US)."),
)
_lanes = catalog(
    Noun("lane"),
    "Bowling lanes.",
    integer("lane_number", 1, 24, "Lane number."),
    flag("bumpers", "Whether bumpers can be raised."),
    choice("zone", ("main_hall", "vip_suite", "cosmic_room"), "Where it is."),
    filters=("zone",),
    rows=(8, 12),
)
_packages = catalog(
    Noun("party_package"),
    "Party packages.",
    text("package_name", "Name.", "Kids party", "Office social", "Cosmic night", "Birthday deluxe"),
    money("price_per_head", 15, 55, "Price per guest in US dollars."),
    integer("games_included", 1, 3, "Games included."),
    rows=(4, 4),
)
BOWL = Service.composed(
    "bowling_alley",
    "Strike Zone bowling alley",
    "sports_leisure",
    "The agent books and confirms lanes and cancels bookings, takes party package orders (change the guest "
    "count, cancel before the party is prepared), and settles or disputes lane bills.",
    _bowlers,
    profile(_bowlers, "shoe_size"),
    _lanes,
    _packages,
    reservation(
        _bowlers,
        Noun("lane_booking"),
        _lanes.resources[0],
        date("bowl_date", "Day."),
        choice("start", ("12:00", "14:00", "16:00", "18:00", "20:00", "22:00"), "Start."),
        integer("games", 1, 4, "Games booked."),
        book="book_lane",
        book_fields=("bowl_date", "start", "games"),
        confirm="confirm_lane_booking",
        cancel="cancel_lane_booking",
        states=("requested", "confirmed", "bowling", "finished", "cancelled"),
        extra_states=(),
    ),
    orders(
        _bowlers,
        Noun("party_order"),
        _packages.resources[0],
        integer("guests", 6, 40, "Guests."),
        date("party_date", "Day of the party."),
        place="order_party_package",
        place_fields=("guests", "party_date"),
        change=("change_party_guests", ("guests",)),
        cancel="cancel_party_order",
        states=("booked", "preparing", "underway", "held", "cancelled", "refunded"),
    ),
    invoices(
        _bowlers,
        Noun("lane_bill"),
        pay="pay_lane_bill",
        dispute="dispute_lane_bill",
        states=("open", "paid", "disputed", "void"),
        low=20,
        high=600,
    ),
    out_of_scope=(
        "my own bowling ball drilled",
        "the arcade tokens I lost refunded",
        "a bowling league set up for my office",
        "food from outside allowed for the party",
        "the jukebox playing my playlist",
        "a lane kept open past closing",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- ski rental

_skiers = people(
    Noun("skier"),
    "Renters at the shop.",
    integer("height_cm", 100, 200, "Height."),
    integer("weight_kg", 25, 120, "Weight."),
    choice("ability", ("first_timer", "intermediate", "expert"), "Ski ability (sets the binding DIN)."),
)
_packages_ski = catalog(
    Noun("rental_package"),
    "Rental packages.",
    text(
        "package_name",
        "Name.",
        "Beginner skis",
        "Performance skis",
        "Snowboard set",
        "Junior skis",
        "Touring",
    ),
    money("day_rate", 25, 85, "Day rate in US dollars."),
    flag("helmet_included", "Whether a helmet is included."),
)
_rentals = holds(
    _skiers,
    Noun("ski_rental"),
    _packages_ski.resources[0],
    date("pickup_date", "First day."),
    integer("days", 1, 10, "Days."),
    place="reserve_ski_rental",
    place_fields=("pickup_date", "days"),
    extend=("change_rental_days", "days"),
    release="cancel_ski_rental",
    collect="pick_up_ski_rental",
    states=("reserved", "tuned_and_fitted", "out_on_slopes", "cancelled"),
    rows=(1, 2),
)
SKI = Service.composed(
    "ski_rental",
    "Summit ski and board rental",
    "sports_leisure",
    "The agent reserves rental packages, changes how many days, cancels and hands them out, keeps skiers' "
    "height, weight and ability up to date for binding settings, and handles damage reports on rentals.",
    _skiers,
    profile(_skiers, "height_cm", "weight_kg", "ability"),
    _packages_ski,
    _rentals,
    tickets(
        _skiers,
        Noun("damage_report"),
        choice("damage", ("core_shot", "broken_binding", "bent_pole", "cracked_boot"), "What broke."),
        text("how_it_happened", "What they said.", "hit a rock", "fell on ice", "car door", nullable=True),
        open_="report_rental_damage",
        open_fields=("damage",),
        note=("update_damage_account", "how_it_happened"),
        escalate="escalate_damage_report",
        states=("reported", "assessing", "settled", "closed"),
        about=_rentals.resources[0],
    ),
    out_of_scope=(
        "a lift pass sold to me",
        "ski lessons booked for my kids",
        "my own skis waxed",
        "a rental delivered to my chalet",
        "my travel insurance claim filled in",
        "the DIN set higher than the chart allows",
    ),
    identify_by=(("email",), ("last_name", "phone")),
)

# --------------------------------------------------------------------------- escape room

_teams = people(
    Noun("team_lead"),
    "People who book rooms for their group.",
    text(
        "team_name", "Team name.", "The Lockpicks", "Clue Crew", "Puzzle Pals", "Red Herrings", nullable=True
    ),
)
_rooms = catalog(
    Noun("escape_room"),
    "Rooms.",
    text(
        "room_name", "Name.", "The Heist", "Pharaoh's Tomb", "Asylum", "Space Station Omega", "Wizard's Attic"
    ),
    choice("difficulty", ("easy", "medium", "hard", "expert"), "Difficulty."),
    integer("max_players", 4, 10, "Most players."),
    flag("scary", "Whether it has jump scares."),
    filters=("difficulty",),
    rows=(5, 5),
)
_vouchers = catalog(
    Noun("voucher_kind"),
    "Gift vouchers on sale.",
    text("voucher_name", "Name.", "Team of 4", "Team of 6", "Any room", "Birthday bundle"),
    money("price", 80, 220, "Price in US dollars."),
    rows=(4, 4),
)
_games = reservation(
    _teams,
    Noun("room_booking"),
    _rooms.resources[0],
    date("game_date", "Day."),
    choice("slot", ("11:00", "12:30", "14:00", "15:30", "17:00", "18:30", "20:00"), "Start."),
    integer("team_size", 2, 10, "Players."),
    book="book_escape_room",
    book_fields=("game_date", "slot", "team_size"),
    reschedule=("reschedule_room_booking", ("game_date", "slot")),
    confirm="confirm_room_booking",
    check_in="check_in_team",
    cancel="cancel_room_booking",
    states=("pencilled", "confirmed", "in_room", "escaped", "cancelled"),
    extra_states=("timed_out",),
)
ESCAPE = Service.composed(
    "escape_room",
    "Locked In escape rooms",
    "sports_leisure",
    "The agent books, confirms, reschedules, checks in and cancels escape-room games, changes a booking's "
    "team size before the day, and sells gift vouchers (cancel before they are emailed).",
    _teams,
    profile(_teams, "team_name"),
    _rooms,
    _vouchers,
    _games,
    Part(
        "team_size",
        (),
        (
            update(
                _games.resources[0],
                "change_team_size",
                "Change how many players are coming.",
                ("team_size",),
                only_when=(
                    "status",
                    ("pencilled", "confirmed"),
                    "the team size can only change before the game",
                ),
                intent="change the team size of a room booking",
            ),
        ),
    ),
    orders(
        _teams,
        Noun("voucher_order"),
        _vouchers.resources[0],
        text(
            "recipient_email", "Who gets it.", "jo.bright@example.com", "max.t@example.net", "rae@example.org"
        ),
        place="buy_gift_voucher",
        place_fields=("recipient_email",),
        cancel="cancel_voucher_order",
        states=("ordered", "being_designed", "emailed", "redeemed", "cancelled", "refunded"),
    ),
    out_of_scope=(
        "the solution to the Heist room",
        "our time extended by fifteen minutes",
        "a room run for a group of twenty at once",
        "a private room built for a proposal",
        "our team photo retaken",
        "a refund because the room was too hard",
    ),
    identify_by=(("email",),),
)

# --------------------------------------------------------------------------- martial arts dojo

_karateka = people(
    Noun("martial_artist"),
    "Students of the dojo.",
    choice(
        "belt",
        ("white", "yellow", "orange", "green", "blue", "brown", "black"),
        "Current belt.",
        default="white",
    ),
    integer("gi_size", 0, 7, "Gi size."),
)
_dojo_plans = catalog(
    Noun("training_plan"),
    "Training plans.",
    text("plan_name", "Name.", "Kids twice weekly", "Adult unlimited", "Adult twice weekly", "Family plan"),
    integer("classes_per_week", 1, 7, "Classes a week."),
    money("monthly_fee", 55, 180, "Monthly fee in US dollars."),
    rows=(4, 4),
)
_uniforms = catalog(
    Noun("dojo_gear", "dojo_gear_items"),
    "Uniforms and sparring gear.",
    text(
        "gear_name", "Item.", "Heavyweight gi", "Student gi", "Sparring gloves", "Shin guards", "Mouth guard"
    ),
    money("price", 12, 140, "Price in US dollars."),
    rows=(5, 5),
)
DOJO = Service.composed(
    "martial_arts_dojo",
    "Kaizen martial arts dojo",
    "sports_leisure",
    "The agent manages students' training plans (start, change, pause, resume, cancel), enters them for belt "
    "gradings (withdraw before the panel decides, appeal a fail), and orders uniforms and sparring gear.",
    _karateka,
    profile(_karateka, "gi_size"),
    _dojo_plans,
    _uniforms,
    subscriptions(
        _karateka,
        Noun("training_membership"),
        _dojo_plans.resources[0],
        date("started_on", "First day."),
        start="start_training_plan",
        start_fields=("started_on",),
        change_plan="change_training_plan",
        pause="pause_training",
        resume="resume_training",
        cancel="cancel_training_plan",
        states=("training", "paused", "behind_on_fees", "left"),
    ),
    approvals(
        _karateka,
        Noun("grading_entry", "grading_entries"),
        choice("target_belt", ("yellow", "orange", "green", "blue", "brown", "black"), "Belt tested for."),
        date("grading_date", "Grading day."),
        submit="enter_grading",
        submit_fields=("target_belt", "grading_date"),
        withdraw="withdraw_grading_entry",
        appeal="appeal_grading_result",
        states=("entered", "sensei_review", "passed", "failed", "withdrawn"),
    ),
    orders(
        _karateka,
        Noun("gear_order"),
        _uniforms.resources[0],
        integer("size", 0, 7, "Size."),
        place="order_dojo_gear",
        place_fields=("size",),
        change=("change_gear_order_size", ("size",)),
        cancel="cancel_gear_order",
        ret="return_dojo_gear",
        states=("ordered", "embroidering", "shipped", "delivered", "cancelled", "returned"),
    ),
    out_of_scope=(
        "my black belt awarded without grading",
        "self-defence classes at my workplace",
        "my child moved to the adult class",
        "a tournament entry in another federation",
        "a refund for a month I was injured",
        "private lessons with the head sensei",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- dance school

_dancers = people(
    Noun("dancer"),
    "Students of the dance school.",
    choice("dance_level", ("beginner", "improver", "intermediate", "advanced"), "Level."),
)
_dance_courses = catalog(
    Noun("dance_course"),
    "Term courses.",
    choice("style", ("salsa", "ballet", "hip_hop", "tango", "contemporary", "tap"), "Style."),
    choice("weekday", _WEEKDAYS, "Day."),
    integer("weeks", 6, 12, "Weeks in the term."),
    money("term_price", 90, 260, "Term price in US dollars."),
    filters=("style",),
)
_teachers = catalog(
    Noun("dance_teacher"),
    "Teachers for private lessons.",
    text("teacher_name", "Name.", "Lucia Ortega", "Andre Bell", "Mina Sato", "Pavel Novak"),
    choice("style", ("salsa", "ballet", "hip_hop", "tango", "contemporary", "tap"), "Style taught."),
    money("lesson_rate", 45, 110, "Rate per private lesson."),
    rows=(4, 5),
)
DANCE = Service.composed(
    "dance_school",
    "Rhythm House dance school",
    "sports_leisure",
    "The agent signs dancers up for term courses (switch course, drop out), books, reschedules and cancels "
    "private lessons with teachers, and takes payment of term bills.",
    _dancers,
    profile(_dancers, "dance_level"),
    _dance_courses,
    _teachers,
    subscriptions(
        _dancers,
        Noun("course_place"),
        _dance_courses.resources[0],
        flag("partner_needed", "Whether they need a partner found."),
        start="sign_up_for_course",
        start_fields=("partner_needed",),
        change_plan="switch_dance_course",
        cancel="drop_dance_course",
        states=("signed_up", "deferred", "unpaid", "dropped"),
    ),
    reservation(
        _dancers,
        Noun("private_lesson"),
        _teachers.resources[0],
        date("lesson_date", "Day."),
        choice("lesson_time", ("16:00", "17:00", "18:00", "19:00", "20:00"), "Time."),
        text("goal", "What to work on.", "wedding first dance", "competition routine", "basics", "turns"),
        book="book_private_lesson",
        book_fields=("lesson_date", "lesson_time", "goal"),
        reschedule=("reschedule_private_lesson", ("lesson_date", "lesson_time")),
        cancel="cancel_private_lesson",
        states=("requested", "booked", "dancing", "taught", "cancelled"),
        extra_states=(),
    ),
    invoices(
        _dancers,
        Noun("term_bill"),
        choice("instalments", ("one", "two", "three"), "Instalments chosen.", default="one"),
        pay="pay_term_bill",
        pay_fields=("instalments",),
        states=("issued", "paid", "queried", "cancelled"),
        low=45,
        high=300,
    ),
    out_of_scope=(
        "a dance partner matched for the social",
        "a costume made for the showcase",
        "a refund for the showcase tickets",
        "my ballet exam entered with another board",
        "a studio rented for my own class",
        "a video of last week's class",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- marina berths

_boaters = people(
    Noun("berth_holder"),
    "Boat owners who moor at the marina.",
    text(
        "insurance_policy",
        "Boat insurance policy number.",
        "MAR-33012",
        "MAR-48290",
        "YHT-10277",
        "BOA-55163",
    ),
)
_vessels = owned(
    _boaters,
    Noun("vessel"),
    "Boats registered with the marina.",
    text(
        "vessel_name", "Name.", "Sea Breeze", "Wanderer", "Blue Heron", "Second Wind", "Halcyon", "Kittiwake"
    ),
    integer("length_m", 5, 24, "Length overall in metres."),
    choice("hull", ("monohull_sail", "catamaran", "motor_cruiser", "rib"), "Kind of boat."),
    add="register_vessel",
    add_fields=("vessel_name", "length_m", "hull"),
    edit="update_vessel_length",
    edit_fields=("length_m",),
)
_berths = catalog(
    Noun("berth"),
    "Berths at the marina.",
    choice("pontoon", ("a", "b", "c", "d", "visitors"), "Pontoon."),
    integer("max_length_m", 8, 25, "Longest boat it takes."),
    flag("shore_power", "Whether it has shore power."),
    money("nightly_rate", 25, 120, "Visitor rate a night in US dollars."),
    filters=("pontoon",),
    rows=(10, 14),
)
_leases = catalog(
    Noun("mooring_plan"),
    "Annual and seasonal mooring contracts.",
    text("plan_name", "Name.", "Annual berth", "Summer season", "Winter lay-up", "Dry stack"),
    money("monthly_fee", 150, 900, "Monthly fee in US dollars."),
    rows=(4, 4),
)
_stays = reservation(
    _boaters,
    Noun("visitor_stay"),
    _berths.resources[0],
    ref("vessels", "vessel_id", "The boat."),
    date("arrival_date", "Arrival."),
    integer("nights", 1, 14, "Nights."),
    book="book_visitor_berth",
    book_fields=("vessel_id", "arrival_date", "nights"),
    reschedule=("change_visitor_stay", ("arrival_date", "nights")),
    check_in="check_in_vessel",
    cancel="cancel_visitor_stay",
    states=("requested", "allocated", "moored", "departed", "cancelled"),
    extra_states=(),
    under="vessel_id",
)
MARINA = Service.composed(
    "marina_berths",
    "Bayside marina berths office",
    "sports_leisure",
    "The agent registers berth holders' vessels, books, changes, checks in and cancels visitor berth stays, "
    "manages mooring contracts (start, pause over winter, resume), and logs and escalates pontoon service "
    "requests.",
    _boaters,
    profile(_boaters, "insurance_policy"),
    _vessels,
    _berths,
    _leases,
    _stays,
    subscriptions(
        _boaters,
        Noun("mooring_contract"),
        _leases.resources[0],
        ref("vessels", "vessel_id", "The boat moored."),
        start="start_mooring_contract",
        start_fields=("vessel_id",),
        pause="lay_up_mooring_contract",
        resume="resume_mooring_contract",
        states=("in_force", "laid_up", "in_arrears", "terminated"),
    ),
    tickets(
        _boaters,
        Noun("pontoon_request"),
        choice(
            "service", ("pump_out", "fuel_delivery", "crane_lift", "electric_fault", "water_leak"), "What."
        ),
        open_="log_pontoon_request",
        open_fields=("service",),
        escalate="escalate_pontoon_request",
        close="close_pontoon_request",
        states=("logged", "dockhand_assigned", "done", "closed"),
        about=_vessels.resources[0],
    ),
    out_of_scope=(
        "my boat sailed to another harbour by staff",
        "an engine service on my outboard",
        "a mooring transferred to the buyer of my boat",
        "the harbour master to settle a dispute with my neighbour",
        "a sailing lesson booked",
        "my berth fees waived after a storm",
    ),
    identify_by=(("email",), ("last_name", "phone")),
)

SERVICES = [YOGA, CLIMB, SWIM, GOLF, TENNIS, BOWL, SKI, ESCAPE, DOJO, DANCE, MARINA]
