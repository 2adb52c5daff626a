"""Business services: the desks that small companies call (workspace, software, domains,
printing, couriers, leasing, payroll, accounting, supplies, translation)."""

from __future__ import annotations

from envfactory_mcp.library.archetypes import (
    Noun,
    Part,
    approvals,
    catalog,
    documents,
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
    transition,
)
from envfactory_mcp.library.service import Service
from envfactory_mcp.spec.policy import WindowRule

DOMAIN = "business_services"
_COMPANIES = (
    "Acme Widgets LLC",
    "Bluebird Analytics",
    "Cedar & Stone Architects",
    "Delta Freight Co",
    "Evergreen Dental Group",
    "Foxglove Studio",
)

# --------------------------------------------------------------------------- coworking space

_coworkers = people(
    Noun("coworker"),
    "Members of the coworking space.",
    text("company_name", "Their company.", *_COMPANIES),
    choice("home_location", ("soho", "midtown", "brooklyn"), "Location they use."),
)
_desk_plans = catalog(
    Noun("desk_plan"),
    "Membership plans.",
    text("plan_title", "Name.", "Hot desk", "Dedicated desk", "Private office (2)", "Virtual office"),
    money("monthly_price", 99, 1400, "Monthly price in US dollars."),
    integer("meeting_credits", 0, 40, "Meeting room hours a month."),
    rows=(4, 4),
)
_rooms = catalog(
    Noun("meeting_room"),
    "Meeting rooms.",
    text("room_name", "Name.", "Hudson", "Liberty", "Chelsea", "Bowery", "Tribeca"),
    choice("location", ("soho", "midtown", "brooklyn"), "Location."),
    integer("seats", 4, 16, "Seats."),
    flag("has_video_kit", "Video conferencing kit."),
    filters=("location",),
    rows=(6, 9),
)
COWORKING = Service.composed(
    "commonground_coworking",
    "CommonGround coworking community desk",
    DOMAIN,
    "The agent helps members start, switch, pause, resume and cancel desk memberships, book, move and cancel "
    "meeting rooms, and raise and escalate facility requests.",
    _coworkers,
    profile(_coworkers, "home_location"),
    _desk_plans,
    _rooms,
    subscriptions(
        _coworkers,
        Noun("desk_membership"),
        _desk_plans.resources[0],
        start="start_desk_membership",
        change_plan="switch_desk_plan",
        pause="pause_desk_membership",
        resume="resume_desk_membership",
        cancel="end_desk_membership",
        states=("active", "on_hold", "overdue", "ended"),
    ),
    reservation(
        _coworkers,
        Noun("room_booking"),
        _rooms.resources[0],
        date("meeting_date", "Day."),
        choice("start_hour", ("09:00", "10:00", "11:00", "13:00", "14:00", "15:00", "16:00"), "Start."),
        integer("hours", 1, 4, "Hours."),
        book="book_meeting_room",
        book_fields=("meeting_date", "start_hour", "hours"),
        reschedule=("move_room_booking", ("meeting_date", "start_hour")),
        cancel="cancel_room_booking",
        states=("tentative", "booked", "in_use", "ended", "cancelled"),
        extra_states=(),
    ),
    tickets(
        _coworkers,
        Noun("facility_request"),
        choice("area", ("wifi", "air_conditioning", "printer", "kitchen", "access_card"), "What is wrong."),
        text("location_detail", "Where.", "3rd floor phone booth", "desk 42", "kitchen B", "front door"),
        open_="raise_facility_request",
        open_fields=("area", "location_detail"),
        escalate="escalate_facility_request",
        states=("open", "assigned", "fixed", "closed"),
    ),
    out_of_scope=(
        "my company registered at your address for tax purposes",
        "a parking space in the building garage",
        "a private office at a location you do not have",
        "another member told to stop taking calls at their desk",
        "my mail forwarded overseas every day",
        "a refund for a room booking I missed last month",
    ),
)

# --------------------------------------------------------------------------- SaaS helpdesk

_admins = people(
    Noun("account_admin"),
    "Administrators of customer workspaces.",
    text("organisation", "Organisation.", *_COMPANIES),
    choice("role", ("owner", "billing_admin", "it_admin"), "Their admin role."),
)
_workspaces = owned(
    _admins,
    Noun("workspace"),
    "Workspaces the admin manages.",
    text("workspace_slug", "Workspace address.", "acme-hq", "bluebird-data", "cedar-design", "delta-ops"),
    choice("tier", ("starter", "growth", "enterprise"), "Tier."),
    integer("seats", 3, 500, "Paid seats."),
    choice("sso", ("off", "google", "okta", "azure_ad"), "Single sign-on."),
    edit="change_workspace_seats",
    edit_fields=("seats",),
    rows=(1, 2),
)
SAAS = Service.composed(
    "taskflow_saas_helpdesk",
    "TaskFlow SaaS helpdesk",
    DOMAIN,
    "The agent helps workspace admins change seat counts, open, update, escalate, close and reopen support "
    "tickets about a workspace, and dispute subscription invoices.",
    _admins,
    profile(_admins),
    _workspaces,
    tickets(
        _admins,
        Noun("support_ticket"),
        choice(
            "category",
            ("bug", "billing_question", "sso_setup", "data_export", "performance", "feature_request"),
            "Category.",
        ),
        text(
            "description", "Problem.", "board won't load", "SAML error 403", "export times out", "slow search"
        ),
        open_="open_support_ticket",
        open_fields=("category", "description"),
        note=("update_ticket_description", "description"),
        escalate="escalate_support_ticket",
        close="close_support_ticket",
        reopen="reopen_support_ticket",
        about=_workspaces.resources[0],
        states=("new", "investigating", "solved", "closed"),
        rows=(1, 3),
    ),
    invoices(
        _admins,
        Noun("saas_invoice"),
        choice("billing_period", ("2026-03", "2026-04", "2026-05"), "Month billed."),
        about=_workspaces.resources[0],
        dispute="dispute_saas_invoice",
        states=("due", "paid", "in_dispute", "credited"),
        low=30,
        high=9000,
    ),
    out_of_scope=(
        "a custom integration built for our ERP",
        "another company's workspace data",
        "our data restored from a backup from two years ago",
        "an engineer on a call right now",
        "a discount for a non-profit we have not registered",
        "the product roadmap for next year",
    ),
)

# --------------------------------------------------------------------------- domain registrar

_registrants = people(
    Noun("registrant"),
    "Domain owners.",
    text("organisation", "Organisation.", *_COMPANIES),
    choice("country", ("US", "CA", "GB", "DE", "AU"), "Country of the registrant."),
)
_tlds = catalog(
    Noun("tld"),
    "Extensions the registrar sells.",
    choice("extension", (".com", ".net", ".org", ".io", ".shop", ".dev"), "Extension."),
    money("yearly_price", 9, 59, "Price per year in US dollars."),
    rows=(6, 6),
)
_domains = owned(
    _registrants,
    Noun("domain"),
    "Domains registered to the registrant.",
    text("domain_name", "Name.", "acmewidgets.com", "bluebird.io", "cedarstone.org", "foxglove.shop"),
    choice("nameservers", ("registrar_default", "cloudflare", "aws_route53", "custom"), "DNS host."),
    flag("auto_renew", "Renews by itself."),
    date("expires_on", "Expiry date."),
    choice("lock_state", ("locked", "unlocked"), "Transfer lock."),
    edit="change_domain_nameservers",
    edit_fields=("nameservers",),
    rows=(1, 3),
)
_domain_table = _domains.resources[0]
REGISTRAR = Service.composed(
    "namecrate_registrar",
    "NameCrate domain registrar",
    DOMAIN,
    "The agent helps registrants point domains at other nameservers, lock and unlock domains, request, "
    "amend or withdraw transfers out, and pay renewal invoices.",
    _registrants,
    profile(_registrants, "country"),
    _tlds,
    _domains,
    Part(
        "domain_lock",
        (),
        (
            transition(
                _domain_table,
                "unlock_domain",
                "Remove the transfer lock.",
                "unlocked",
                ("locked",),
                "the domain is already unlocked",
                column="lock_state",
            ),
            transition(
                _domain_table,
                "lock_domain",
                "Set the transfer lock.",
                "locked",
                ("unlocked",),
                "the domain is already locked",
                column="lock_state",
            ),
        ),
    ),
    approvals(
        _registrants,
        Noun("transfer_out"),
        text("domain_to_move", "Domain.", "acmewidgets.com", "bluebird.io", "cedarstone.org"),
        choice("gaining_registrar", ("Porkbun", "Gandi", "Namecheap", "Hover"), "Where it goes."),
        submit="request_transfer_out",
        submit_fields=("domain_to_move", "gaining_registrar"),
        amend=("change_gaining_registrar", ("gaining_registrar",)),
        withdraw="cancel_transfer_out",
        states=("requested", "pending_auth", "completed", "rejected", "cancelled"),
    ),
    invoices(
        _registrants,
        Noun("renewal_invoice"),
        about=_domain_table,
        pay="pay_renewal_invoice",
        low=9,
        high=180,
    ),
    out_of_scope=(
        "a domain that someone else owns taken away from them",
        "my website designed",
        "an SSL certificate installed on my server",
        "the WHOIS details of another domain",
        "my email hosting moved to another provider",
        "a trademark registered for my brand",
    ),
    rules=(
        WindowRule(
            tool="unlock_domain",
            table="domains",
            key="domain_id",
            column="expires_on",
            side="before",
            hours=15 * 24,
            reason="a domain cannot be unlocked in the last 15 days before it expires, while it is due for renewal",
        ),
    ),
)

# --------------------------------------------------------------------------- print shop

_print_customers = people(
    Noun("print_customer"),
    "Customers of the print shop.",
    text("business_name", "Business.", *_COMPANIES),
)
_print_products = catalog(
    Noun("print_product"),
    "What the shop prints.",
    text(
        "product_name",
        "Product.",
        "Business cards",
        "A2 poster",
        "Tri-fold flyer",
        "Roll-up banner",
        "Stickers",
    ),
    money("unit_price", 0.05, 120, "Price per unit in US dollars."),
    integer("turnaround_days", 1, 7, "Working days to print."),
    rows=(5, 7),
)
PRINT_SHOP = Service.composed(
    "inkwell_print_shop",
    "Inkwell print shop",
    DOMAIN,
    "The agent helps customers upload and approve artwork, order print jobs, change quantity or paper before "
    "printing, cancel, and ask for a reprint of a delivered job.",
    _print_customers,
    profile(_print_customers, "business_name"),
    _print_products,
    documents(
        _print_customers,
        Noun("artwork"),
        text("file_name", "File.", "card_front.pdf", "poster_v3.pdf", "flyer_final.ai", "banner.png"),
        choice("colour_mode", ("cmyk", "rgb", "spot"), "Colour mode."),
        create_="upload_artwork",
        create_fields=("file_name", "colour_mode"),
        publish="approve_artwork_proof",
        archive="archive_artwork",
        states=("proof_ready", "approved", "archived"),
    ),
    orders(
        _print_customers,
        Noun("print_job"),
        _print_products.resources[0],
        integer("quantity", 10, 5000, "Copies."),
        choice("paper", ("matte_350gsm", "gloss_170gsm", "recycled_120gsm", "vinyl"), "Paper stock."),
        choice("finish", ("no_finish", "soft_touch", "spot_uv"), "Finish.", default="no_finish"),
        place="order_print_job",
        place_fields=("quantity", "paper"),
        change=("change_print_job", ("quantity", "paper")),
        cancel="cancel_print_job",
        ret="request_reprint",
        states=("awaiting_proof", "printing", "dispatched", "delivered", "cancelled", "reprint_requested"),
    ),
    out_of_scope=(
        "my logo redesigned",
        "a copyrighted cartoon printed on my t-shirts",
        "my banner installed on the building",
        "a quote from your competitor matched",
        "my job printed overnight on a Sunday",
        "the files of another customer's job",
    ),
)

# --------------------------------------------------------------------------- courier accounts

_shippers = people(
    Noun("shipper"),
    "Business accounts sending parcels.",
    text("account_company", "Company.", *_COMPANIES),
    text("pickup_address", "Default collection address.", "1 Commerce Way", "88 Dock St", "410 Mill Rd"),
    choice("credit_terms", ("prepaid", "net_15", "net_30"), "Payment terms."),
)
_service_levels = catalog(
    Noun("service_level"),
    "Delivery services.",
    text("service_title", "Name.", "Same day", "Next day 9am", "Next day", "Economy 3-day", "Pallet"),
    money("base_rate", 6, 140, "Base price in US dollars."),
    integer("max_kg", 5, 1000, "Heaviest parcel."),
    rows=(5, 5),
)
_shipments = orders(
    _shippers,
    Noun("shipment"),
    _service_levels.resources[0],
    money("weight_kg", 0.2, 900, "Weight in kilograms."),
    text("destination_city", "Where it goes.", "Boston", "Chicago", "Atlanta", "Seattle", "Denver"),
    text("recipient", "Who receives it.", "J. Park", "Front desk", "Warehouse B", "M. Greene"),
    place="book_shipment",
    place_fields=("weight_kg", "destination_city", "recipient"),
    change=("redirect_shipment", ("destination_city", "recipient")),
    cancel="cancel_shipment",
    states=("booked", "collected", "in_transit", "delivered", "cancelled", "returned_to_sender"),
)
COURIER = Service.composed(
    "swiftline_courier_accounts",
    "Swiftline courier business accounts",
    DOMAIN,
    "The agent helps business accounts book shipments, redirect or cancel them before they leave the depot, "
    "file damage and loss claims, and pay account statements.",
    _shippers,
    profile(_shippers, "pickup_address"),
    _service_levels,
    _shipments,
    tickets(
        _shippers,
        Noun("claim"),
        choice("claim_kind", ("damaged", "lost", "late", "wrong_address"), "What went wrong."),
        money("claimed_value", 10, 2000, "Value claimed in US dollars."),
        open_="file_claim",
        open_fields=("claim_kind", "claimed_value"),
        close="withdraw_claim",
        about=_shipments.resources[0],
        states=("filed", "assessing", "settled", "closed"),
    ),
    invoices(
        _shippers,
        Noun("statement"),
        choice("paid_with", ("ach", "card", "check"), "How it was paid.", default="ach"),
        pay="pay_statement",
        pay_fields=("paid_with",),
        low=40,
        high=5000,
    ),
    out_of_scope=(
        "a parcel with lithium batteries flown abroad",
        "the driver's personal phone number",
        "a parcel delivered to a PO box",
        "my competitor's shipping volumes",
        "a late fee waived on a statement I have not paid",
        "a van and driver for a whole day",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- IT equipment leasing

_lessees = people(
    Noun("lessee"),
    "Companies leasing equipment (contact person).",
    text("company", "Company.", *_COMPANIES),
    integer("employee_count", 5, 400, "Staff."),
)
_device_models = catalog(
    Noun("device_model"),
    "Devices available to lease.",
    text(
        "model_name",
        "Model.",
        "ThinkPad T14",
        "MacBook Air 13",
        "Dell U2723 monitor",
        "Surface Pro 9",
        "iPhone 15",
        "Poly Sync 20",
    ),
    choice("device_class", ("laptop", "monitor", "tablet", "phone", "audio"), "Class."),
    money("monthly_lease", 8, 95, "Monthly lease per unit in US dollars."),
    filters=("device_class",),
    rows=(6, 9),
)
_leases = orders(
    _lessees,
    Noun("lease"),
    _device_models.resources[0],
    integer("units", 1, 50, "Units."),
    choice("term_months", ("12", "24", "36"), "Lease term in months."),
    place="order_lease",
    place_fields=("units", "term_months"),
    change=("change_lease_units", ("units",)),
    cancel="cancel_lease_order",
    ret="return_leased_equipment",
    states=("submitted", "credit_check", "shipping", "in_service", "cancelled", "returned"),
)
LEASING = Service.composed(
    "kitbridge_it_leasing",
    "KitBridge IT equipment leasing",
    DOMAIN,
    "The agent helps companies order device leases, change units or cancel before shipping, return equipment "
    "in service, raise repair requests, and pay lease invoices.",
    _lessees,
    profile(_lessees, "employee_count"),
    _device_models,
    _leases,
    tickets(
        _lessees,
        Noun("repair_request"),
        text(
            "fault", "Fault.", "cracked screen", "battery swelling", "keyboard keys stuck", "won't power on"
        ),
        integer("affected_units", 1, 10, "Units affected."),
        open_="raise_repair_request",
        open_fields=("fault", "affected_units"),
        note=("update_repair_fault", "fault"),
        reopen="reopen_repair_request",
        about=_leases.resources[0],
        states=("logged", "courier_sent", "repaired", "closed"),
    ),
    invoices(
        _lessees,
        Noun("lease_invoice"),
        about=_leases.resources[0],
        pay="pay_lease_invoice",
        low=50,
        high=4500,
    ),
    out_of_scope=(
        "our own laptops bought from a shop added to the lease",
        "software licences for Microsoft Office",
        "a lease buy-out price negotiated",
        "data recovered from a broken drive",
        "a technician on site to set up our network",
        "equipment shipped to an employee in another country",
    ),
)

# --------------------------------------------------------------------------- payroll bureau

_employers = people(
    Noun("employer"),
    "Employers whose payroll the bureau runs.",
    text("legal_name", "Company.", *_COMPANIES),
    choice("pay_schedule", ("weekly", "biweekly", "semimonthly", "monthly"), "How often staff are paid."),
)
_employees = owned(
    _employers,
    Noun("employee"),
    "Employees on the payroll.",
    text("employee_name", "Name.", "Nora Blake", "Ivan Petrov", "Keisha Grant", "Tomás Ruiz", "Hana Sato"),
    money("annual_salary", 28000, 180000, "Salary in US dollars."),
    choice("filing_status", ("single", "married_joint", "head_of_household"), "Tax filing status."),
    choice("employment", ("active", "on_leave", "terminated"), "Employment.", default="active"),
    add="add_employee",
    add_fields=("employee_name", "annual_salary", "filing_status"),
    edit="change_employee_salary",
    edit_fields=("annual_salary",),
    rows=(2, 5),
)
PAYROLL = Service.composed(
    "ledgerline_payroll_bureau",
    "LedgerLine payroll bureau",
    DOMAIN,
    "The agent helps employers add employees, change salaries, request, amend or withdraw off-cycle payments, "
    "and pay and dispute bureau fee invoices.",
    _employers,
    profile(_employers, "pay_schedule"),
    _employees,
    approvals(
        _employers,
        Noun("off_cycle_payment"),
        text("payee", "Employee paid.", "Nora Blake", "Ivan Petrov", "Keisha Grant", "Hana Sato"),
        money("gross_amount", 100, 20000, "Gross pay in US dollars."),
        choice("pay_reason", ("bonus", "missed_hours", "final_pay", "commission"), "Why."),
        submit="request_off_cycle_payment",
        submit_fields=("payee", "gross_amount", "pay_reason"),
        amend=("change_off_cycle_amount", ("gross_amount",)),
        withdraw="withdraw_off_cycle_payment",
        states=("requested", "queued", "paid_out", "rejected", "withdrawn"),
    ),
    invoices(
        _employers,
        Noun("bureau_fee"),
        pay="pay_bureau_fee",
        dispute="dispute_bureau_fee",
        low=60,
        high=900,
    ),
    out_of_scope=(
        "an employee fired on my behalf",
        "my quarterly sales tax filed",
        "a payroll loan to cover this week's wages",
        "an employee's salary hidden from the tax authority",
        "my staff's personal bank details read out to me",
        "legal advice on a wrongful dismissal claim",
    ),
)

# --------------------------------------------------------------------------- accounting firm client desk

_tax_clients = people(
    Noun("tax_client"),
    "Clients of the accounting firm.",
    choice(
        "entity_kind", ("individual", "sole_proprietor", "s_corp", "llc", "partnership"), "Filing entity."
    ),
    integer("fiscal_year_end_month", 1, 12, "Month their fiscal year ends."),
)
_accountants = catalog(
    Noun("accountant"),
    "Accountants at the firm.",
    text(
        "accountant_name", "Name.", "Helen Park, CPA", "David Osei, CPA", "Marta Klein, EA", "Raj Iyer, CPA"
    ),
    choice("focus", ("personal_tax", "small_business", "bookkeeping", "audit"), "Focus."),
    filters=("focus",),
    rows=(4, 6),
)
_client_docs = documents(
    _tax_clients,
    Noun("client_document"),
    text("document_name", "Name.", "W-2 2025", "1099-NEC", "Bank statements Q4", "Receipts folder"),
    choice("tax_year", ("2023", "2024", "2025"), "Tax year."),
    create_="upload_client_document",
    create_fields=("document_name", "tax_year"),
    rename=("rename_client_document", "document_name"),
    share=("share_client_document", Noun("document_access")),
    revoke="revoke_document_access",
    states=("uploaded", "reviewed", "archived"),
    roles=("read_only", "annotate"),
)
ACCOUNTING = Service.composed(
    "brooks_and_hale_accounting",
    "Brooks & Hale accounting client desk",
    DOMAIN,
    "The agent helps clients upload, rename and share tax documents (and take access back), book and confirm "
    "meetings with their accountant, and pay or dispute fee notes.",
    _tax_clients,
    profile(_tax_clients),
    _accountants,
    _client_docs,
    Part("access_lookup", (), (get(_client_docs.resources[1], "get_document_access_details"),)),
    reservation(
        _tax_clients,
        Noun("advisory_meeting"),
        _accountants.resources[0],
        date("meeting_day", "Day."),
        choice("meeting_format", ("office", "phone", "video"), "Format."),
        text("agenda", "Topic.", "estimated taxes", "year-end planning", "IRS letter", "payroll setup"),
        book="book_advisory_meeting",
        book_fields=("meeting_day", "meeting_format", "agenda"),
        confirm="confirm_advisory_meeting",
        cancel="cancel_advisory_meeting",
        states=("requested", "confirmed", "in_session", "held", "cancelled"),
    ),
    invoices(
        _tax_clients,
        Noun("fee_note"),
        choice("service_line", ("tax_return", "bookkeeping", "advisory"), "What it is for."),
        pay="pay_fee_note",
        dispute="dispute_fee_note",
        low=150,
        high=3500,
    ),
    out_of_scope=(
        "my taxes filed without my signature",
        "income left off my return",
        "a letter to my landlord saying I earn more than I do",
        "my ex-spouse's tax documents",
        "representation in a criminal tax case",
        "investment advice on which stocks to buy",
    ),
)

# --------------------------------------------------------------------------- office supplies

_buyers = people(
    Noun("buyer"),
    "Office managers buying supplies for their company.",
    text("company", "Company.", *_COMPANIES),
    text(
        "delivery_floor", "Where deliveries go.", "reception", "floor 3 mailroom", "loading bay", "suite 210"
    ),
)
_supplies = catalog(
    Noun("supply_item"),
    "Products stocked.",
    text(
        "item_name",
        "Product.",
        "A4 copy paper (5 reams)",
        "Black toner HP 26A",
        "Ballpoint pens (50)",
        "Sticky notes (24 pads)",
        "Coffee beans 1kg",
        "Hand soap refill",
    ),
    choice("aisle", ("paper", "ink_toner", "writing", "breakroom", "cleaning"), "Category."),
    money("pack_price", 4, 160, "Price per pack in US dollars."),
    integer("stock_packs", 0, 300, "Packs in stock."),
    filters=("aisle",),
    rows=(10, 14),
)
OFFICE_SUPPLIES = Service.composed(
    "deskmate_office_supplies",
    "DeskMate office supplies",
    DOMAIN,
    "The agent helps buyers order supplies (change quantity or cancel before dispatch, return delivered "
    "orders) and set up, pause, resume, switch or stop automatic replenishment of an item.",
    _buyers,
    profile(_buyers, "delivery_floor"),
    _supplies,
    orders(
        _buyers,
        Noun("supply_order"),
        _supplies.resources[0],
        integer("packs", 1, 100, "Packs."),
        flag("next_day", "Next-day delivery.", default=False),
        place="order_supplies",
        place_fields=("packs",),
        change=("change_supply_order_packs", ("packs",)),
        cancel="cancel_supply_order",
        ret="return_supply_order",
    ),
    subscriptions(
        _buyers,
        Noun("replenishment"),
        _supplies.resources[0],
        integer("packs_each_time", 1, 40, "Packs per delivery."),
        choice("every", ("weekly", "fortnightly", "monthly"), "How often."),
        start="set_up_replenishment",
        start_fields=("packs_each_time", "every"),
        change_plan="switch_replenished_item",
        pause="pause_replenishment",
        resume="resume_replenishment",
        cancel="stop_replenishment",
        states=("running", "paused", "card_failed", "stopped"),
    ),
    out_of_scope=(
        "office furniture assembled in our new space",
        "a printer repaired on site",
        "our coffee machine leased",
        "a price match with a supermarket",
        "branded notebooks with our logo designed",
        "supplies billed to another company's account",
    ),
)

# --------------------------------------------------------------------------- translation agency

_translation_clients = people(
    Noun("translation_client"),
    "Clients of the translation agency.",
    text("organisation", "Organisation.", *_COMPANIES),
    choice("preferred_register", ("formal", "neutral", "marketing"), "Tone they want."),
)
_pairs = catalog(
    Noun("language_pair"),
    "Language pairs the agency covers.",
    choice(
        "pair",
        ("en>es", "en>de", "en>fr", "en>ja", "es>en", "zh>en", "de>en"),
        "From and into.",
    ),
    money("rate_per_word", 0.08, 0.32, "Rate per word in US dollars."),
    flag("certified_available", "Certified translation offered."),
    rows=(6, 7),
)
_jobs = orders(
    _translation_clients,
    Noun("translation_job"),
    _pairs.resources[0],
    integer("word_count", 200, 40000, "Words."),
    date("deadline", "Delivery deadline."),
    choice("subject_area", ("legal", "medical", "marketing", "technical", "general"), "Subject."),
    place="commission_translation",
    place_fields=("word_count", "deadline", "subject_area"),
    change=("change_translation_deadline", ("deadline",)),
    cancel="cancel_translation_job",
    states=("quoted", "assigned", "in_review", "delivered", "cancelled", "withdrawn_by_agency"),
)
TRANSLATION = Service.composed(
    "lingobridge_translations",
    "LingoBridge translation agency",
    DOMAIN,
    "The agent helps clients commission translations, move deadlines or cancel before review, ask for "
    "revisions of delivered work (and reopen or close them), and pay job invoices.",
    _translation_clients,
    profile(_translation_clients, "preferred_register"),
    _pairs,
    _jobs,
    tickets(
        _translation_clients,
        Noun("revision_request"),
        text(
            "passage", "What to revise.", "page 3 terminology", "product names", "tone of headline", "table 2"
        ),
        open_="request_revision",
        open_fields=("passage",),
        close="close_revision_request",
        reopen="reopen_revision_request",
        about=_jobs.resources[0],
        states=("received", "translator_working", "revised", "closed"),
    ),
    invoices(
        _translation_clients,
        Noun("job_invoice"),
        choice("currency_paid", ("usd", "eur", "gbp"), "Currency paid in.", default="usd"),
        about=_jobs.resources[0],
        pay="pay_job_invoice",
        pay_fields=("currency_paid",),
        low=40,
        high=8000,
    ),
    out_of_scope=(
        "an interpreter at my court hearing tomorrow",
        "a sworn translation notarised by a notary public",
        "my document translated into Klingon",
        "my website localised and published for me",
        "the translator's personal contact details",
        "a machine translation checked for free",
    ),
)

SERVICES = [
    COWORKING,
    SAAS,
    REGISTRAR,
    PRINT_SHOP,
    COURIER,
    LEASING,
    PAYROLL,
    ACCOUNTING,
    OFFICE_SUPPLIES,
    TRANSLATION,
]
