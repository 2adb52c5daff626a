"""Hospitality and events: restaurants, caterers, venues, tickets, clubs and classes."""

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
    get,
    integer,
    money,
    text,
    update,
)
from envfactory_mcp.library.service import Service

DOMAIN = "hospitality_events"

# --------------------------------------------------------------------------- restaurant reservations

_diners = people(
    Noun("diner"),
    "Guests with a reservation profile.",
    text(
        "dietary_notes", "Dietary needs.", "vegetarian", "shellfish allergy", "gluten free", "no restrictions"
    ),
    flag("vip", "Regular guest treated as VIP."),
)
_tables = catalog(
    Noun("dining_table"),
    "Tables in the dining room.",
    text(
        "table_label", "Label.", "T1 window", "T4 booth", "T7 patio", "T9 chef's counter", "T12 private nook"
    ),
    choice("section", ("main_room", "patio", "bar", "private_room"), "Section."),
    integer("seats", 2, 12, "Seats."),
    filters=("section",),
    rows=(8, 12),
)
_tasting = catalog(
    Noun("set_menu"),
    "Set menus that can be pre-ordered for a booking.",
    text("menu_name", "Name.", "Seasonal tasting", "Sunday roast", "Vegan garden", "Seafood feast"),
    money("price_per_head", 35, 140, "Price per guest in US dollars."),
    rows=(3, 5),
)
_table_bookings = reservation(
    _diners,
    Noun("table_booking"),
    _tables.resources[0],
    date("dining_date", "Date."),
    choice("arrival_time", ("12:00", "13:00", "18:00", "19:00", "20:00", "21:00"), "Arrival time."),
    integer("party_size", 1, 12, "Guests."),
    choice(
        "occasion", ("none_given", "birthday", "anniversary", "business"), "Occasion.", default="none_given"
    ),
    book="book_table",
    book_fields=("dining_date", "arrival_time", "party_size"),
    reschedule=("change_table_booking", ("dining_date", "arrival_time")),
    confirm="confirm_table_booking",
    check_in="seat_party",
    cancel="cancel_table_booking",
    states=("pending", "confirmed", "seated", "finished", "cancelled"),
    extra_states=("no_show",),
)
RESTAURANT = Service.composed(
    "harbour_kitchen_reservations",
    "Harbour Kitchen restaurant reservations",
    DOMAIN,
    "The agent helps diners book, confirm, change and cancel tables, note an occasion, seat arriving parties, "
    "and pay booking deposits.",
    _diners,
    profile(_diners, "dietary_notes"),
    _tables,
    _tasting,
    _table_bookings,
    Part(
        "occasion",
        (),
        (
            update(
                _table_bookings.resources[0],
                "set_booking_occasion",
                "Tell the kitchen what the booking celebrates.",
                ("occasion",),
                only_when=(
                    "status",
                    ("pending", "confirmed"),
                    "the occasion can only be set before the party is seated",
                ),
            ),
        ),
    ),
    invoices(
        _diners,
        Noun("booking_deposit"),
        about=_table_bookings.resources[0],
        pay="pay_booking_deposit",
        low=20,
        high=200,
        states=("requested", "paid", "forfeited", "refunded"),
    ),
    out_of_scope=(
        "the chef's recipe for the crab bisque",
        "a table at your sister restaurant across town",
        "a job as a waiter",
        "a refund because the music was too loud last night",
        "my coat that I left here last week found",
        "a birthday cake baked with my own decorations",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- catering orders

_caterer_clients = people(
    Noun("client"),
    "People and companies ordering catering.",
    text(
        "company", "Company.", "Brightline Legal", "Orchard Dental", "self", "Kite Studios", "Meridian Bank"
    ),
    text("delivery_address", "Default delivery address.", "100 Main St, fl 4", "22 Dock Rd", "9 Elm Park"),
)
_packages = catalog(
    Noun("menu_package"),
    "Catering menus.",
    text(
        "package_name",
        "Name.",
        "Continental breakfast",
        "Sandwich platter lunch",
        "Mezze spread",
        "Hot buffet dinner",
        "Canape reception",
    ),
    choice("cuisine", ("american", "mediterranean", "asian_fusion", "mexican"), "Cuisine."),
    money("price_per_head", 9, 65, "Price per person in US dollars."),
    integer("minimum_guests", 8, 40, "Smallest order."),
    filters=("cuisine",),
)
_catering_orders = orders(
    _caterer_clients,
    Noun("catering_order"),
    _packages.resources[0],
    integer("headcount", 8, 300, "People to feed."),
    date("event_date", "Day of delivery."),
    choice("service_style", ("drop_off", "buffet_setup", "staffed"), "How it is served."),
    place="place_catering_order",
    place_fields=("headcount", "event_date", "service_style"),
    change=("change_catering_order", ("headcount", "event_date")),
    cancel="cancel_catering_order",
    states=("quoted", "confirmed", "in_kitchen", "served", "cancelled", "credited"),
)
CATERING = Service.composed(
    "fork_and_basket_catering",
    "Fork and Basket catering",
    DOMAIN,
    "The agent helps clients order catering packages, change headcount or date before the kitchen starts, "
    "cancel, and pay or dispute catering invoices.",
    _caterer_clients,
    profile(_caterer_clients, "delivery_address"),
    _packages,
    _catering_orders,
    invoices(
        _caterer_clients,
        Noun("catering_invoice"),
        choice("paid_with", ("card", "invoice_terms", "ach"), "How it was paid.", default="card"),
        about=_catering_orders.resources[0],
        pay="pay_catering_invoice",
        pay_fields=("paid_with",),
        dispute="dispute_catering_invoice",
        low=150,
        high=6000,
    ),
    out_of_scope=(
        "a wedding cake with five tiers",
        "our office kitchen cleaned after the party",
        "a bartender licensed to serve spirits",
        "a tasting session at our office tomorrow",
        "the calorie count of every dish certified by a dietitian",
        "catering for a cruise ship",
    ),
)

# --------------------------------------------------------------------------- event venue hire

_organisers = people(
    Noun("organiser"),
    "People who hire the venue.",
    choice("organisation_kind", ("private", "corporate", "charity", "school"), "Who they book for."),
)
_spaces = catalog(
    Noun("venue_space"),
    "Rooms and spaces for hire.",
    text("space_name", "Name.", "Grand hall", "Garden terrace", "Library room", "Loft studio", "Courtyard"),
    integer("standing_capacity", 30, 500, "Standing capacity."),
    money("hire_rate", 400, 6000, "Daily hire rate in US dollars."),
    choice("layout_options", ("theatre_or_banquet", "cabaret_only", "standing_only"), "Layouts."),
    rows=(5, 7),
)
_hires = reservation(
    _organisers,
    Noun("hire"),
    _spaces.resources[0],
    date("event_date", "Day of the event."),
    integer("guest_count", 10, 500, "Guests expected."),
    choice("layout", ("theatre", "banquet", "cabaret", "standing"), "Room layout."),
    book="hold_venue_date",
    book_fields=("event_date", "guest_count", "layout"),
    reschedule=("change_hire_layout", ("layout", "guest_count")),
    confirm="contract_hire",
    cancel="release_hire",
    states=("provisional", "contracted", "in_use", "concluded", "released"),
    extra_states=(),
)
VENUE = Service.composed(
    "old_mill_venue_hire",
    "The Old Mill event venue",
    DOMAIN,
    "The agent helps organisers hold dates in the venue's spaces, contract or release them, change layout and "
    "numbers, ask for special permissions, and pay hire deposits.",
    _organisers,
    profile(_organisers, "organisation_kind"),
    _spaces,
    _hires,
    approvals(
        _organisers,
        Noun("special_permission"),
        choice(
            "permission_for",
            ("outside_caterer", "late_finish_01h", "open_flame", "live_band_amplified", "fireworks"),
            "What is asked.",
        ),
        submit="request_special_permission",
        submit_fields=("permission_for",),
        withdraw="withdraw_special_permission",
        states=("asked", "with_manager", "permitted", "refused", "withdrawn"),
    ),
    invoices(
        _organisers,
        Noun("hire_deposit"),
        about=_hires.resources[0],
        pay="pay_hire_deposit",
        low=200,
        high=3000,
    ),
    out_of_scope=(
        "hotel rooms for my guests nearby",
        "the venue's wifi upgraded for a livestream",
        "a DJ recommended and booked for me",
        "parking for 200 cars on the street",
        "a discount because another venue is cheaper",
        "my guests' coats insured",
    ),
)

# --------------------------------------------------------------------------- concert ticketing

_fans = people(
    Noun("fan"),
    "Ticket buyers.",
    flag("marketing_opt_in", "Gets presale emails."),
)
_concerts = catalog(
    Noun("concert"),
    "Upcoming concerts.",
    text(
        "headliner",
        "Headliner.",
        "The Velvet Lines",
        "Mara Quinn",
        "Static Bloom",
        "Orchestra Nova",
        "DJ Kestrel",
        "Low Tide Choir",
    ),
    text("venue", "Venue.", "Riverside Arena", "The Blue Room", "Civic Amphitheatre", "Hall 9"),
    date("show_date", "Date."),
    money("face_value", 25, 180, "Ticket price in US dollars."),
    choice("genre", ("rock", "pop", "classical", "electronic", "folk"), "Genre."),
    filters=("genre",),
    rows=(8, 12),
)
_ticket_orders = orders(
    _fans,
    Noun("ticket_order"),
    _concerts.resources[0],
    integer("quantity", 1, 8, "Tickets."),
    choice("section", ("floor", "lower_tier", "upper_tier", "balcony"), "Section."),
    place="buy_tickets",
    place_fields=("quantity", "section"),
    cancel="cancel_ticket_order",
    ret="list_tickets_for_resale",
    states=("reserved", "payment_processing", "issuing", "in_wallet", "cancelled", "listed_for_resale"),
)
CONCERTS = Service.composed(
    "soundwave_tickets",
    "Soundwave concert ticketing",
    DOMAIN,
    "The agent helps fans buy concert tickets, cancel orders before they are issued, put issued tickets up "
    "for resale, and open, update and close support cases.",
    _fans,
    profile(_fans, "marketing_opt_in"),
    _concerts,
    _ticket_orders,
    tickets(
        _fans,
        Noun("support_case"),
        choice(
            "issue",
            ("tickets_not_in_wallet", "wrong_name", "accessibility_seating", "event_postponed"),
            "Issue.",
        ),
        text("summary", "What happened.", "app shows no tickets", "need wheelchair space", "show moved"),
        open_="open_support_case",
        open_fields=("issue", "summary"),
        note=("update_support_case_summary", "summary"),
        close="close_support_case",
        about=_ticket_orders.resources[0],
        states=("new", "with_agent", "answered", "closed"),
    ),
    out_of_scope=(
        "a backstage pass to meet the band",
        "the setlist for Saturday's show",
        "tickets for a concert at another ticketing site",
        "a refund because I did not like the support act",
        "my tickets upgraded to VIP for free",
        "the price of resale tickets capped",
    ),
)

# --------------------------------------------------------------------------- museum memberships

_museum_members = people(
    Noun("museum_member"),
    "Members and visitors of the museum.",
    text("postal_code", "Postal code.", "10024", "11215", "07030", "10463"),
)
_levels = catalog(
    Noun("membership_level"),
    "Membership levels.",
    text("level_name", "Name.", "Individual", "Dual", "Family", "Patron", "Student"),
    money("annual_price", 45, 500, "Price per year in US dollars."),
    integer("guest_passes", 0, 6, "Guest passes a year."),
    rows=(4, 5),
)
_exhibitions = catalog(
    Noun("exhibition"),
    "Exhibitions with timed entry.",
    text(
        "exhibition_title",
        "Title.",
        "Gold of the Andes",
        "Monet's Gardens",
        "Dinosaurs Alive",
        "Photography Now",
        "Silk Road Textiles",
    ),
    choice("gallery", ("north_wing", "east_wing", "special_exhibitions_hall"), "Where."),
    rows=(4, 6),
)
MUSEUM = Service.composed(
    "metro_museum_members",
    "Metropolitan Art Museum membership office",
    DOMAIN,
    "The agent helps members join, upgrade or cancel their membership, reserve and cancel timed entry to "
    "exhibitions, and add guest cardholders.",
    _museum_members,
    profile(_museum_members, "postal_code"),
    _levels,
    _exhibitions,
    subscriptions(
        _museum_members,
        Noun("museum_membership"),
        _levels.resources[0],
        flag("auto_renew", "Renews every year.", default=True),
        start="join_museum",
        change_plan="upgrade_membership_level",
        cancel="cancel_museum_membership",
        states=("current", "suspended", "lapsed", "cancelled"),
    ),
    reservation(
        _museum_members,
        Noun("timed_entry"),
        _exhibitions.resources[0],
        date("visit_date", "Day."),
        choice("entry_slot", ("10:00", "11:30", "13:00", "14:30", "16:00"), "Entry slot."),
        integer("party", 1, 6, "People entering."),
        book="reserve_timed_entry",
        book_fields=("visit_date", "entry_slot", "party"),
        cancel="cancel_timed_entry",
        states=("reserved", "ticketed", "scanned_in", "visited", "cancelled"),
    ),
    owned(
        _museum_members,
        Noun("guest_cardholder"),
        "Second names on a membership card.",
        text("cardholder_name", "Name.", "Alex Moreno", "Jamie Chen", "Robin Ellis", "Pat Singh"),
        add="add_guest_cardholder",
        add_fields=("cardholder_name",),
        rows=(0, 1),
    ),
    out_of_scope=(
        "a painting in my attic valued",
        "permission to photograph with a flash in the galleries",
        "my membership fee counted as a tax-deductible donation retroactively",
        "a private after-hours tour for my company",
        "a refund for the gift shop scarf",
        "the cafe's opening hours changed",
    ),
)

# --------------------------------------------------------------------------- theatre box office

_theatregoers = people(
    Noun("theatregoer"),
    "Box office customers.",
    choice("access_needs", ("standard", "wheelchair_space", "hearing_loop", "step_free"), "Access needs."),
)
_performances = catalog(
    Noun("performance"),
    "Performances on sale.",
    text("production", "Show.", "Hamlet", "The Mousetrap", "Into the Woods", "A Doll's House", "Cabaret"),
    date("performance_date", "Date."),
    choice("curtain", ("14:30", "19:30"), "Curtain up."),
    money("top_price", 30, 150, "Top seat price in US dollars."),
    rows=(8, 12),
)
_season_packages = catalog(
    Noun("season_package"),
    "Season subscription packages.",
    text("package_label", "Name.", "Four-play season", "Six-play season", "Matinee season", "Under-30 pass"),
    integer("plays", 3, 8, "Plays included."),
    rows=(3, 4),
)
THEATRE = Service.composed(
    "lyric_theatre_box_office",
    "Lyric Theatre box office",
    DOMAIN,
    "The agent helps theatregoers hold seats for performances, move them to another seat row, release them, "
    "mark them collected at the box office, and manage season subscriptions.",
    _theatregoers,
    profile(_theatregoers, "access_needs"),
    _performances,
    _season_packages,
    holds(
        _theatregoers,
        Noun("seat_hold"),
        _performances.resources[0],
        integer("seats", 1, 6, "Seats held."),
        choice("seat_row", ("A", "C", "F", "K", "M", "P"), "Row."),
        place="hold_seats",
        place_fields=("seats", "seat_row"),
        extend=("move_seat_hold_row", "seat_row"),
        release="release_seat_hold",
        collect="collect_tickets",
        states=("held", "paid_awaiting_collection", "collected", "released"),
    ),
    subscriptions(
        _theatregoers,
        Noun("season_subscription"),
        _season_packages.resources[0],
        choice("seat_preference", ("stalls", "dress_circle", "upper_circle"), "Where they sit."),
        start="subscribe_to_season",
        start_fields=("seat_preference",),
        change_plan="change_season_package",
        pause="defer_season_subscription",
        resume="reinstate_season_subscription",
        states=("subscribed", "deferred", "unpaid", "cancelled"),
    ),
    out_of_scope=(
        "an actor's autograph",
        "a recording of last night's performance",
        "the interval extended for my group",
        "seats in the royal box for free",
        "a script of the new play",
        "a complaint about the person who sat in front of me",
    ),
)

# --------------------------------------------------------------------------- wedding planner

_couples = people(
    Noun("couple"),
    "Couples planning a wedding.",
    date("wedding_date", "The big day."),
    integer("guest_estimate", 20, 300, "Guests expected."),
    text("partner_name", "Partner's name.", "Jordan Lee", "Sam Rivera", "Alexis Grant", "Morgan Patel"),
)
_planners = catalog(
    Noun("planner"),
    "Wedding planners on the team.",
    text("planner_name", "Name.", "Bianca Rossi", "Hugo Laurent", "Amara Nwosu", "Lily Chen"),
    choice("speciality", ("destination", "garden", "city", "elopement"), "Speciality."),
    rows=(4, 5),
)
_planning_docs = documents(
    _couples,
    Noun("planning_document"),
    text("doc_title", "Title.", "Seating plan", "Run of the day", "Vendor contacts", "Budget sheet"),
    choice("doc_kind", ("seating_plan", "timeline", "budget", "vendor_list"), "Kind."),
    create_="create_planning_document",
    create_fields=("doc_title", "doc_kind"),
    rename=("retitle_planning_document", "doc_title"),
    publish="finalise_planning_document",
    share=("share_planning_document", Noun("document_share")),
    revoke="revoke_document_share",
    states=("working", "final", "archived"),
    roles=("view_only", "can_comment", "co_planner"),
)
WEDDING = Service.composed(
    "ever_after_weddings",
    "Ever After wedding planning",
    DOMAIN,
    "The agent helps couples book and cancel planning consultations, keep planning documents (create, retitle, "
    "finalise, share with family and vendors, take shares back), and pay planning instalments.",
    _couples,
    profile(_couples, "guest_estimate"),
    _planners,
    reservation(
        _couples,
        Noun("consultation"),
        _planners.resources[0],
        date("meeting_date", "Day."),
        choice("meeting_place", ("studio", "video_call", "at_venue"), "Where."),
        book="book_consultation",
        book_fields=("meeting_date", "meeting_place"),
        confirm="confirm_consultation",
        cancel="cancel_consultation",
        states=("proposed", "agreed", "in_meeting", "held", "called_off"),
    ),
    _planning_docs,
    # the documents archetype has no get for its shares; revoking needs one to show the status
    Part("share_lookup", (), (get(_planning_docs.resources[1], "get_document_share_details"),)),
    invoices(
        _couples,
        Noun("planning_instalment"),
        pay="pay_planning_instalment",
        low=500,
        high=4000,
    ),
    out_of_scope=(
        "an officiant to perform the ceremony",
        "my future mother-in-law uninvited",
        "the weather on our wedding day guaranteed",
        "a marriage licence filed with the county",
        "our honeymoon flights booked",
        "a refund of a florist's deposit we paid directly",
    ),
)

# --------------------------------------------------------------------------- cooking classes

_cooks = people(
    Noun("cook"),
    "People taking cooking classes.",
    choice("skill_level", ("beginner", "home_cook", "confident"), "Kitchen experience."),
    text("allergy_note", "Allergies.", "tree nuts", "sesame", "lactose", "no allergies"),
)
_cooking_classes = catalog(
    Noun("cooking_class", "cooking_classes"),
    "Classes in the teaching kitchen.",
    text(
        "class_title", "Title.", "Fresh pasta", "Thai street food", "Knife skills", "French pastry", "Sushi"
    ),
    date("class_date", "Date."),
    integer("stations_left", 0, 12, "Stations free."),
    money("class_price", 45, 160, "Price in US dollars."),
    rows=(8, 12),
)
_kits = catalog(
    Noun("meal_kit"),
    "Ingredient kits for cooking along at home.",
    text("kit_name", "Name.", "Ramen night", "Tapas for four", "Curry from scratch", "Sourdough starter"),
    money("kit_price", 25, 80, "Price in US dollars."),
    rows=(4, 6),
)
COOKING = Service.composed(
    "saffron_cooking_school",
    "Saffron cooking school",
    DOMAIN,
    "The agent helps cooks book stations in classes, confirm, cancel or check in to them, and order, change, "
    "cancel or return ingredient kits.",
    _cooks,
    profile(_cooks, "skill_level", "allergy_note"),
    _cooking_classes,
    _kits,
    reservation(
        _cooks,
        Noun("station_booking"),
        _cooking_classes.resources[0],
        integer("stations", 1, 2, "Stations (one per person cooking)."),
        book="book_station",
        book_fields=("stations",),
        confirm="confirm_station_booking",
        check_in="check_in_cook",
        cancel="cancel_station_booking",
        states=("reserved", "paid", "cooking", "completed", "cancelled"),
    ),
    orders(
        _cooks,
        Noun("kit_order"),
        _kits.resources[0],
        integer("servings", 2, 8, "Servings."),
        date("delivery_date", "Delivery day."),
        place="order_meal_kit",
        place_fields=("servings", "delivery_date"),
        change=("change_kit_order", ("servings", "delivery_date")),
        cancel="cancel_kit_order",
        ret="return_meal_kit",
    ),
    out_of_scope=(
        "a private chef for my dinner party",
        "the chef's knife I used in class",
        "a certificate that qualifies me to work in a restaurant",
        "a food hygiene inspection of my kitchen",
        "my friend's booking moved onto my account",
        "the recipe booklet for a class I did not attend",
    ),
)

# --------------------------------------------------------------------------- wine club

_club_members = people(
    Noun("club_member"),
    "Wine club members (21 and over).",
    date("birth_date", "Date of birth (age check)."),
    choice("palate", ("reds", "whites", "mixed", "sparkling"), "What they like."),
)
_tiers = catalog(
    Noun("club_tier"),
    "Club shipments tiers.",
    text("tier_name", "Name.", "Discovery 3", "Cellar 6", "Collector 12"),
    integer("bottles_per_shipment", 3, 12, "Bottles each shipment."),
    money("shipment_price", 60, 480, "Price per shipment in US dollars."),
    rows=(3, 3),
)
_wines = catalog(
    Noun("wine"),
    "Wines for sale to members.",
    text(
        "wine_name",
        "Wine.",
        "Ridgeback Pinot Noir",
        "Stonewall Chardonnay",
        "Casa Alta Malbec",
        "Seaspray Albarino",
        "Hillcrest Brut",
    ),
    integer("vintage", 2015, 2024, "Vintage."),
    choice("region", ("sonoma", "willamette", "mendoza", "rias_baixas", "champagne"), "Region."),
    money("bottle_price", 14, 90, "Price in US dollars."),
    filters=("region",),
    rows=(8, 12),
)
WINE_CLUB = Service.composed(
    "vineyard_wine_club",
    "Cellar Door wine club",
    DOMAIN,
    "The agent helps members join a club tier, change tier, skip and resume shipments, cancel, order extra "
    "bottles (change, cancel, return), and keep delivery addresses.",
    _club_members,
    profile(_club_members, "palate"),
    _tiers,
    _wines,
    subscriptions(
        _club_members,
        Noun("club_membership"),
        _tiers.resources[0],
        start="join_wine_club",
        change_plan="change_club_tier",
        pause="skip_shipments",
        resume="resume_shipments",
        cancel="cancel_club_membership",
        states=("active", "skipping", "card_declined", "cancelled"),
    ),
    orders(
        _club_members,
        Noun("bottle_order"),
        _wines.resources[0],
        integer("bottles", 1, 24, "Bottles."),
        place="order_bottles",
        place_fields=("bottles",),
        change=("change_bottle_count", ("bottles",)),
        cancel="cancel_bottle_order",
        ret="return_bottle_order",
        states=("placed", "picking", "in_transit", "delivered", "cancelled", "returned"),
    ),
    owned(
        _club_members,
        Noun("delivery_address", "delivery_addresses"),
        "Addresses shipments go to (an adult must sign).",
        text("street", "Street.", "40 Vine St", "1200 Oak Blvd", "7 Harbor View", "55 Cedar Ln"),
        text("city", "City.", "Portland", "Napa", "Denver", "Austin"),
        flag("weekday_signature", "Someone is in on weekdays to sign."),
        add="add_delivery_address",
        add_fields=("street", "city", "weekday_signature"),
        edit="change_delivery_signature_option",
        edit_fields=("weekday_signature",),
    ),
    out_of_scope=(
        "wine shipped to a state where you do not ship",
        "a bottle delivered to my 19-year-old son",
        "a tasting appointment at the winery",
        "my wine rated for resale at auction",
        "a refund for a bottle I opened and did not like",
        "your winemaker's blending notes",
    ),
    identify_by=(("email",), ("first_name", "last_name", "birth_date")),
)

SERVICES = [RESTAURANT, CATERING, VENUE, CONCERTS, MUSEUM, THEATRE, WEDDING, COOKING, WINE_CLUB]
