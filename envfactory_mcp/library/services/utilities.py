"""Utilities: the energy, water, internet, waste and monitoring services a home runs on."""

from __future__ import annotations

from dataclasses import replace

from envfactory_mcp.library.archetypes import (
    Noun,
    approvals,
    catalog,
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
    create,
    date,
    flag,
    get,
    integer,
    listing,
    money,
    ref,
    stamp,
    table,
    text,
)
from envfactory_mcp.library.service import Service

# --------------------------------------------------------------------------- electricity supplier

_account_holders = people(
    Noun("account_holder"),
    "Households buying electricity from the supplier.",
    choice("payment_method", ("direct_debit", "card", "prepayment"), "How bills are paid."),
    flag("paperless", "Whether bills are emailed only.", default=True),
)
_tariffs = catalog(
    Noun("tariff"),
    "Electricity tariffs on sale.",
    text(
        "tariff_name", "Name.", "Fixed 12", "Fixed 24", "Flexible", "Green Saver", "EV Night", "Time of use"
    ),
    money("unit_rate", 0.12, 0.38, "Price per kWh in US dollars."),
    money("standing_charge", 0.2, 0.7, "Daily standing charge in US dollars."),
    flag("renewable", "Whether it is 100% renewable."),
    filters=("renewable",),
    rows=(6, 6),
)
_meters = table(
    "electricity_meters",
    "electricity_meter",
    "Meters on a household's supply.",
    ref("account_holders", "account_holder_id", "Whose supply."),
    text("serial", "Meter serial.", "E17K04412", "E22M81930", "E19S33007", "E21T55120", "E18L90011"),
    choice("meter_kind", ("smart", "standard", "economy_7"), "Kind of meter."),
    under="account_holder_id",
    rows=(1, 1),
)
_readings = table(
    "meter_readings",
    "meter_reading",
    "Readings given for a meter.",
    ref("account_holders", "account_holder_id", "Whose reading."),
    ref("electricity_meters", "electricity_meter_id", "The meter read."),
    integer("kwh_reading", 1000, 99999, "The number on the meter."),
    stamp("read_at", "When it was given."),
    under="electricity_meter_id",
    rows=(1, 2),
)
ELECTRICITY = Service.composed(
    "voltway_energy",
    "Voltway Energy customer service",
    "utilities",
    "The agent helps households with their electricity supply contract and tariff, takes meter readings, "
    "and settles or disputes electricity bills.",
    _account_holders,
    profile(_account_holders, "payment_method", "paperless"),
    _tariffs,
    subscriptions(
        _account_holders,
        Noun("supply_contract"),
        _tariffs.resources[0],
        date("supply_start", "First day of supply."),
        start="start_supply_contract",
        start_fields=("supply_start",),
        change_plan="switch_tariff",
        cancel="close_supply_contract",
        states=("live", "on_hold", "in_arrears", "closed"),
    ),
    invoices(
        _account_holders,
        Noun("electricity_bill"),
        integer("kwh_used", 80, 1400, "Units billed."),
        pay="pay_electricity_bill",
        dispute="dispute_electricity_bill",
        low=25,
        high=480,
    ),
    out_of_scope=(
        "a power cut in my street fixed",
        "a new meter fitted in the garage",
        "my gas account moved over to you as well",
        "the solar panels on my roof connected to the grid",
        "compensation for food spoiled in last week's outage",
        "the price cap explained for next winter",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)
# Meters and the readings customers give: no archetype has them, so they are kit tables.
ELECTRICITY = replace(
    ELECTRICITY,
    resources=(*ELECTRICITY.resources, _meters, _readings),
    operations=(
        *ELECTRICITY.operations,
        listing(_meters, "account_holder_id"),
        get(_meters, "get_electricity_meter_details"),
        listing(_readings, "electricity_meter_id"),
        create(
            _readings,
            "submit_meter_reading",
            "Record a reading the customer took from their meter.",
            ("account_holder_id", "electricity_meter_id", "kwh_reading"),
        ),
    ),
)

# --------------------------------------------------------------------------- water utility

_water_customers = people(
    Noun("water_customer"),
    "Households on the water network.",
    choice("district", ("lakeside", "hilltop", "millbrook", "old_town", "riverbend"), "Supply district."),
    flag("on_meter", "Whether charges are metered."),
)
_connections = owned(
    _water_customers,
    Noun("service_connection"),
    "Water connections at the customer's properties.",
    text("address", "Property.", "14 Brook Ln", "220 Quarry Rd", "5 Mill Row", "61 Spring St", "8 Weir Ave"),
    choice("pipe_size", ("15mm", "22mm", "32mm"), "Supply pipe size."),
    flag("sewer", "Whether wastewater is collected too.", default=True),
    rows=(1, 2),
)
WATER = Service.composed(
    "clearbrook_water",
    "Clearbrook Water customer center",
    "utilities",
    "The agent takes leak and supply problem reports for a customer's connection, handles requests for a "
    "leak allowance on a high bill, and takes bill payments.",
    _water_customers,
    profile(_water_customers),
    _connections,
    tickets(
        _water_customers,
        Noun("supply_report"),
        choice(
            "issue",
            ("leak_on_street", "no_water", "low_pressure", "discoloured_water", "sewer_blockage"),
            "What is wrong.",
        ),
        about=_connections.resources[0],
        open_="report_supply_problem",
        open_fields=("issue",),
        escalate="escalate_supply_report",
        note=("update_supply_report_issue", "issue"),
        states=("reported", "crew_assigned", "repaired", "closed"),
    ),
    approvals(
        _water_customers,
        Noun("leak_allowance"),
        money("disputed_usage", 20, 900, "Charge the customer asks to have reduced, in US dollars."),
        text(
            "repair_proof", "What shows the leak was fixed.", "plumber invoice", "photo of repair", "receipt"
        ),
        submit="request_leak_allowance",
        submit_fields=("disputed_usage", "repair_proof"),
        withdraw="withdraw_leak_allowance",
        appeal="appeal_leak_allowance",
        states=("lodged", "assessing", "granted", "refused", "withdrawn"),
    ),
    invoices(
        _water_customers,
        Noun("water_bill"),
        integer("gallons", 1500, 24000, "Gallons billed."),
        about=_connections.resources[0],
        pay="pay_water_bill",
        low=18,
        high=420,
        states=("unpaid", "paid", "queried", "cancelled"),
    ),
    out_of_scope=(
        "a water softener installed",
        "my swimming pool filled by tanker",
        "the lead pipes inside my house replaced",
        "a bottled water delivery during the outage",
        "my neighbour reported for watering during the ban",
        "a new fire hydrant on my street",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- broadband

_subscribers = people(
    Noun("subscriber"),
    "Broadband customers.",
    choice("router_model", ("hub_5", "hub_6", "mesh_pro"), "Router they have."),
    text("wifi_name", "Home network name.", "HomeNet", "TheBurrow", "Casa-Wifi", "Flat4B", "Hive"),
)
_speed_plans = catalog(
    Noun("speed_plan"),
    "Broadband packages.",
    text("package", "Name.", "Fibre 100", "Fibre 300", "Fibre 500", "Gigabit", "Essential 36"),
    integer("download_mbps", 36, 1000, "Download speed."),
    integer("upload_mbps", 10, 500, "Upload speed."),
    money("monthly_price", 25, 90, "Monthly price in US dollars."),
    integer("contract_months", 0, 24, "Minimum term."),
    rows=(5, 5),
)
_engineers = catalog(
    Noun("field_engineer"),
    "Engineers who visit homes.",
    text("engineer_name", "Name.", "Colm Byrne", "Yusuf Adel", "Nina Petrov", "Sid Rao", "Bea Hale"),
    choice("area", ("city", "suburbs", "rural"), "Area covered."),
    filters=("area",),
    rows=(5, 6),
)
BROADBAND = Service.composed(
    "fibrelink_broadband",
    "FibreLink broadband support",
    "utilities",
    "The agent manages customers' broadband packages (start, upgrade or downgrade, cancel), logs connection "
    "faults and follows them up, and books, moves or cancels engineer visits.",
    _subscribers,
    profile(_subscribers, "wifi_name"),
    _speed_plans,
    _engineers,
    subscriptions(
        _subscribers,
        Noun("broadband_line"),
        _speed_plans.resources[0],
        start="order_broadband_line",
        change_plan="change_speed_plan",
        cancel="cancel_broadband_line",
        states=("connected", "suspended", "overdue", "ceased"),
    ),
    tickets(
        _subscribers,
        Noun("connection_fault"),
        choice(
            "symptom", ("no_sync", "slow_speeds", "dropouts", "no_dial_tone", "wifi_only"), "What happens."
        ),
        integer("hours_down", 0, 96, "How long it has been going on."),
        open_="log_connection_fault",
        open_fields=("symptom", "hours_down"),
        escalate="escalate_connection_fault",
        reopen="reopen_connection_fault",
        close="close_connection_fault",
        states=("logged", "testing_line", "cleared", "closed"),
    ),
    reservation(
        _subscribers,
        Noun("engineer_visit"),
        _engineers.resources[0],
        date("visit_day", "Day of the visit."),
        choice("slot", ("am", "pm"), "Morning or afternoon."),
        book="book_engineer_visit",
        book_fields=("visit_day", "slot"),
        reschedule=("move_engineer_visit", ("visit_day", "slot")),
        cancel="cancel_engineer_visit",
        states=("requested", "booked", "engineer_on_site", "complete", "cancelled"),
        extra_states=("missed_appointment",),
    ),
    out_of_scope=(
        "a TV channel package added",
        "my mobile phone contract moved to you",
        "faster speeds than the line can carry",
        "the cable dug under my neighbour's garden",
        "my gaming console's NAT settings fixed",
        "a refund for the streaming service I signed up to",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- gas supplier

_gas_customers = people(
    Noun("gas_customer"),
    "Homes supplied with natural gas.",
    choice("heating", ("boiler", "furnace", "cooker_only"), "What the gas runs."),
    flag("priority_register", "Whether they are on the vulnerable-customer register."),
)
_inspectors = catalog(
    Noun("gas_inspector"),
    "Certified gas safety inspectors.",
    text("inspector_name", "Name.", "Ray Doyle", "Fatima Noor", "Pete Lang", "Ama Owusu", "Kurt Hess"),
    choice("certified_for", ("domestic", "commercial"), "Certification."),
    rows=(4, 5),
)
GAS = Service.composed(
    "northern_gas",
    "Northern Gas customer care",
    "utilities",
    "The agent books annual gas safety inspections, handles requests to spread arrears over a payment plan "
    "and takes payments of gas bills.",
    _gas_customers,
    profile(_gas_customers, "priority_register"),
    _inspectors,
    reservation(
        _gas_customers,
        Noun("safety_inspection"),
        _inspectors.resources[0],
        date("inspection_date", "Day of the inspection."),
        flag("landlord_certificate", "Whether a landlord certificate is needed."),
        book="book_safety_inspection",
        book_fields=("inspection_date", "landlord_certificate"),
        reschedule=("rebook_safety_inspection", ("inspection_date",)),
        confirm="confirm_safety_inspection",
        cancel="cancel_safety_inspection",
        states=("provisional", "confirmed", "inspecting", "certified", "cancelled"),
        extra_states=("failed",),
    ),
    approvals(
        _gas_customers,
        Noun("payment_plan_request"),
        money("arrears", 50, 1500, "Amount owed in US dollars."),
        choice("instalments", ("3", "6", "9", "12"), "Monthly instalments asked for."),
        submit="request_payment_plan",
        submit_fields=("arrears", "instalments"),
        amend=("change_payment_plan_instalments", ("instalments",)),
        withdraw="withdraw_payment_plan_request",
        states=("received", "credit_check", "agreed", "turned_down", "withdrawn"),
    ),
    invoices(
        _gas_customers,
        Noun("gas_bill"),
        integer("therms", 5, 260, "Therms used."),
        pay="pay_gas_bill",
        dispute="dispute_gas_bill",
        low=20,
        high=560,
    ),
    out_of_scope=(
        "someone to come now because I smell gas",
        "my boiler replaced with a heat pump",
        "a gas line run to my new barbecue",
        "my electricity switched to you too",
        "a grant for loft insulation",
        "the meter moved outside the house",
    ),
    identify_by=(("email",), ("phone",)),
    notes=(
        "If the customer smells gas, tell them to leave the property and call the emergency line at once.",
    ),
)

# --------------------------------------------------------------------------- waste collection

_residents = people(
    Noun("resident"),
    "Households on the collection round.",
    choice("collection_day", ("monday", "tuesday", "wednesday", "thursday", "friday"), "Regular bin day."),
    text(
        "street", "Street.", "Acorn Way", "Bell Lane", "Canal Walk", "Dove Close", "Elm Grove", "Ferry Road"
    ),
)
_bins = owned(
    _residents,
    Noun("wheelie_bin"),
    "Bins issued to the household.",
    choice("stream", ("general", "recycling", "garden", "food"), "What goes in it."),
    choice("litres", ("140", "180", "240", "360"), "Bin size in litres."),
    edit="change_wheelie_bin_size",
    edit_fields=("litres",),
    rows=(2, 3),
)
_bulky = catalog(
    Noun("bulky_item_kind"),
    "Bulky items the council collects for a fee.",
    text(
        "item_label", "Name.", "Sofa", "Mattress", "Fridge freezer", "Washing machine", "Wardrobe", "Bicycle"
    ),
    money("fee", 15, 60, "Collection fee in US dollars."),
    rows=(6, 6),
)
_garden = catalog(
    Noun("garden_waste_option"),
    "Garden waste subscription options.",
    text("option_name", "Name.", "One bin", "Two bins", "Sack service"),
    money("yearly_fee", 40, 95, "Yearly fee in US dollars."),
    rows=(3, 3),
)
WASTE = Service.composed(
    "citybin_waste_services",
    "CityBin waste and recycling services",
    "utilities",
    "The agent handles a household's bins (sizes, missed collection reports), the garden waste subscription "
    "and paid bulky item collections.",
    _residents,
    profile(_residents),
    _bins,
    _bulky,
    _garden,
    tickets(
        _residents,
        Noun("missed_collection"),
        date("missed_on", "Day the bin was missed."),
        about=_bins.resources[0],
        open_="report_missed_collection",
        open_fields=("missed_on",),
        close="close_missed_collection",
        states=("reported", "crew_returning", "collected", "closed"),
    ),
    subscriptions(
        _residents,
        Noun("garden_waste_subscription"),
        _garden.resources[0],
        start="subscribe_to_garden_waste",
        change_plan="change_garden_waste_option",
        cancel="cancel_garden_waste_subscription",
        states=("current", "paused", "expired", "cancelled"),
    ),
    orders(
        _residents,
        Noun("bulky_collection"),
        _bulky.resources[0],
        date("collection_date", "Day it will be picked up."),
        text("location", "Where it will be left.", "front drive", "kerbside", "back gate", "bin store"),
        place="book_bulky_collection",
        place_fields=("collection_date", "location"),
        change=("change_bulky_collection_date", ("collection_date",)),
        cancel="cancel_bulky_collection",
        states=("booked", "scheduled", "on_route", "collected", "cancelled", "refused_at_kerb"),
    ),
    out_of_scope=(
        "asbestos taken away from my garage",
        "a skip delivered for my renovation",
        "fly-tipping on the common cleaned up tonight",
        "my council tax band changed",
        "a commercial waste contract for my shop",
        "the recycling centre's opening hours extended",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- home security monitoring

_alarm_customers = people(
    Noun("monitored_customer"),
    "Homes with a monitored alarm.",
    text(
        "verbal_password", "Password said to the monitoring center.", "bluebird", "copper", "lantern", "maple"
    ),
    choice("panel", ("ajax_hub", "dsc_neo", "qolsys_iq"), "Alarm panel installed."),
)
_monitoring_plans = catalog(
    Noun("monitoring_plan"),
    "Monitoring plans.",
    text("plan_name", "Name.", "Intruder basic", "Intruder plus video", "Fire and intruder", "Total guard"),
    flag("police_dispatch", "Whether police are dispatched on a verified alarm."),
    flag("video_verification", "Whether cameras are checked before dispatch."),
    money("monthly_fee", 19, 69, "Monthly fee in US dollars."),
    rows=(4, 4),
)
_keyholders = owned(
    _alarm_customers,
    Noun("keyholder"),
    "People called when the alarm goes off.",
    text("keyholder_name", "Name.", "Ruth Fenn", "Abdul Sami", "Tess Hart", "Leo Brandt", "Ivy Chen"),
    text("keyholder_phone", "Phone.", "555-0141", "555-0178", "555-0102", "555-0166", "555-0190"),
    integer("call_order", 1, 3, "Order they are called in."),
    add="add_keyholder",
    add_fields=("keyholder_name", "keyholder_phone", "call_order"),
    edit="update_keyholder_call_order",
    edit_fields=("call_order",),
    rows=(1, 3),
)
SECURITY = Service.composed(
    "sentinel_alarm_monitoring",
    "Sentinel alarm monitoring center",
    "utilities",
    "The agent manages monitoring plans (start, upgrade, vacation suspension, cancel), the keyholders the "
    "center calls, and faults reported on the alarm system.",
    _alarm_customers,
    profile(_alarm_customers, "verbal_password"),
    _monitoring_plans,
    _keyholders,
    subscriptions(
        _alarm_customers,
        Noun("monitoring_contract"),
        _monitoring_plans.resources[0],
        start="start_monitoring_contract",
        change_plan="change_monitoring_plan",
        pause="suspend_monitoring_for_vacation",
        resume="resume_monitoring",
        cancel="cancel_monitoring_contract",
        states=("armed_service", "vacation_suspended", "payment_overdue", "cancelled"),
    ),
    tickets(
        _alarm_customers,
        Noun("alarm_fault"),
        choice(
            "component",
            ("door_contact", "motion_sensor", "siren", "keypad", "camera", "smoke_detector"),
            "What part is faulty.",
        ),
        flag("false_alarms", "Whether it is causing false alarms."),
        open_="report_alarm_fault",
        open_fields=("component", "false_alarms"),
        escalate="escalate_alarm_fault",
        states=("open", "remote_check", "fixed", "closed"),
    ),
    out_of_scope=(
        "the police report for last night's break-in",
        "a camera installed at my holiday home",
        "the alarm recording from the neighbour's house",
        "my insurance company told my alarm was off",
        "a guard posted outside my house this weekend",
        "my smart lights linked to the alarm app",
    ),
    identify_by=(("email",), ("phone",)),
)

# --------------------------------------------------------------------------- propane delivery

_tank_customers = people(
    Noun("propane_customer"),
    "Rural homes with a propane tank.",
    choice("delivery_plan", ("will_call", "automatic"), "How refills are triggered."),
    flag("budget_billing", "Whether costs are spread evenly over the year."),
)
_tanks = owned(
    _tank_customers,
    Noun("propane_tank"),
    "Tanks at the customer's property.",
    choice("capacity_gallons", ("120", "250", "500", "1000"), "Tank size."),
    integer("percent_full", 5, 85, "Last gauge reading."),
    flag("company_owned", "Whether the company leases the tank.", default=True),
    edit="update_propane_tank_gauge",
    edit_fields=("percent_full",),
    rows=(1, 2),
)
_fuels = catalog(
    Noun("fuel_grade"),
    "What the trucks deliver.",
    text("grade_name", "Name.", "HD-5 propane", "Propane plus additive", "Winter-blend propane"),
    money("price_per_gallon", 1.9, 3.6, "Price per gallon in US dollars."),
    integer("minimum_gallons", 50, 150, "Smallest delivery."),
    rows=(3, 3),
)
PROPANE = Service.composed(
    "prairie_propane",
    "Prairie Propane delivery desk",
    "utilities",
    "The agent schedules propane deliveries to customers' tanks, changes or cancels them before the truck "
    "goes out, records gauge readings and takes payment of delivery invoices.",
    _tank_customers,
    profile(_tank_customers, "delivery_plan", "budget_billing"),
    _tanks,
    _fuels,
    orders(
        _tank_customers,
        Noun("propane_delivery", "propane_deliveries"),
        _fuels.resources[0],
        integer("gallons", 50, 800, "Gallons to deliver."),
        date("deliver_by", "Latest delivery day."),
        place="schedule_propane_delivery",
        place_fields=("gallons", "deliver_by"),
        change=("change_propane_delivery", ("gallons", "deliver_by")),
        cancel="cancel_propane_delivery",
        states=("requested", "routed", "on_truck", "filled", "cancelled", "pumped_back"),
    ),
    invoices(
        _tank_customers,
        Noun("delivery_invoice"),
        choice("pay_method", ("check", "card", "ach", "cash"), "How it was paid.", default="card"),
        pay="pay_delivery_invoice",
        pay_fields=("pay_method",),
        low=120,
        high=2600,
        states=("open", "paid", "contested", "voided"),
    ),
    out_of_scope=(
        "a new propane line run to my pool heater",
        "my furnace serviced",
        "a leak check done right now because I smell gas",
        "heating oil delivered instead",
        "my tank bought out from the lease",
        "a cylinder exchanged for my grill",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
    notes=("If the customer smells gas, tell them to leave and call 911; do not schedule anything first.",),
)

SERVICES = [ELECTRICITY, WATER, BROADBAND, GAS, WASTE, SECURITY, PROPANE]
