"""Health and wellness: clinics, practices and desks that look after people's health."""

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
    ref,
    text,
    update,
)
from envfactory_mcp.library.service import Service

_SLOTS = ("08:30", "09:15", "10:00", "11:30", "13:45", "14:30", "16:00")

# --------------------------------------------------------------------------- dental practice

_dental_patients = people(
    Noun("patient"),
    "Patients registered with the practice.",
    choice(
        "insurance_provider",
        ("self_pay", "delta_dental", "cigna_dental", "metlife_dental"),
        "Who covers their treatment.",
    ),
    date("last_checkup", "Date of their last check-up.", nullable=True),
)
_dentists = catalog(
    Noun("dentist"),
    "Dentists and hygienists at the practice.",
    text(
        "dentist_name", "Full name.", "Dr. Helen Marsh", "Dr. Raj Patel", "Dr. Ines Costa", "Dr. Owen Blake"
    ),
    choice("specialty", ("general", "hygienist", "orthodontics", "endodontics"), "What they do."),
    flag("accepting_new_patients", "Whether they take new patients."),
    filters=("specialty",),
    rows=(4, 6),
)
_treatments = catalog(
    Noun("dental_treatment"),
    "Treatments the practice offers.",
    text(
        "treatment_name",
        "Name.",
        "Check-up and clean",
        "Filling",
        "Root canal",
        "Crown fitting",
        "Teeth whitening",
        "Wisdom tooth extraction",
    ),
    money("fee", 60, 1200, "Fee before insurance in US dollars."),
    integer("chair_minutes", 20, 120, "Minutes in the chair."),
    rows=(6, 8),
)
_dental_visits = reservation(
    _dental_patients,
    Noun("dental_appointment"),
    _dentists.resources[0],
    ref("dental_treatments", "dental_treatment_id", "The treatment booked."),
    date("visit_date", "Day of the appointment."),
    choice("slot", _SLOTS, "Start time."),
    book="book_dental_appointment",
    book_fields=("dental_treatment_id", "visit_date", "slot"),
    reschedule=("reschedule_dental_appointment", ("visit_date", "slot")),
    confirm="confirm_dental_appointment",
    cancel="cancel_dental_appointment",
    states=("pending", "confirmed", "in_chair", "completed", "cancelled"),
    extra_states=("missed",),
)
DENTAL = Service.composed(
    "dental_practice",
    "Brightside Dental practice front desk",
    "health_wellness",
    "The agent helps patients book, confirm, reschedule and cancel dental appointments with the practice's "
    "dentists and hygienists, keeps their insurance provider up to date, and settles or queries treatment bills.",
    _dental_patients,
    profile(_dental_patients, "insurance_provider"),
    _dentists,
    _treatments,
    _dental_visits,
    invoices(
        _dental_patients,
        Noun("treatment_bill"),
        choice("paid_with", ("card", "hsa_card", "check"), "How it was paid.", default="card"),
        about=_dental_visits.resources[0],
        pay="pay_treatment_bill",
        pay_fields=("paid_with",),
        dispute="query_treatment_bill",
        states=("outstanding", "settled", "queried", "written_off"),
        low=40,
        high=1500,
    ),
    out_of_scope=(
        "a prescription for stronger painkillers after my extraction",
        "my x-rays emailed to another dentist",
        "an estimate of what my insurance will pay for braces",
        "a complaint about the hygienist's manner",
        "my child added to my insurance policy",
        "a same-day emergency slot for a knocked-out tooth",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- physiotherapy clinic

_physio_patients = people(
    Noun("physio_patient"),
    "People treated at the clinic.",
    choice("referred_by", ("gp", "self", "insurer", "sports_club"), "Who referred them."),
)
_physios = catalog(
    Noun("physiotherapist"),
    "Physiotherapists on staff.",
    text(
        "therapist_name",
        "Full name.",
        "Kate Oduya",
        "Marco Rossi",
        "Lena Fischer",
        "Tom Barker",
        "Priya Nair",
    ),
    choice("focus", ("sports_injury", "back_and_neck", "post_surgery", "women_health"), "Their focus."),
    filters=("focus",),
    rows=(4, 6),
)
_physio_sessions = reservation(
    _physio_patients,
    Noun("therapy_session"),
    _physios.resources[0],
    choice("body_area", ("knee", "shoulder", "lower_back", "neck", "ankle", "hip"), "What is treated."),
    date("session_date", "Day of the session."),
    choice("session_length", ("30m", "45m", "60m"), "How long."),
    book="book_therapy_session",
    book_fields=("body_area", "session_date", "session_length"),
    check_in="check_in_therapy_session",
    cancel="cancel_therapy_session",
    states=("scheduled", "confirmed", "in_session", "completed", "cancelled"),
    extra_states=("did_not_attend",),
)
PHYSIO = Service.composed(
    "physiotherapy_clinic",
    "Motion Works physiotherapy clinic",
    "health_wellness",
    "The agent books, checks in and cancels physiotherapy sessions, and handles patients' insurance "
    "pre-authorisation requests for courses of treatment: lodging, changing, withdrawing and appealing them.",
    _physio_patients,
    profile(_physio_patients),
    _physios,
    _physio_sessions,
    approvals(
        _physio_patients,
        Noun("preauthorisation"),
        choice("insurer", ("bluecross", "aetna", "united", "kaiser"), "The insurer asked."),
        integer("sessions_requested", 2, 12, "Sessions asked for."),
        text(
            "diagnosis",
            "What the sessions treat.",
            "ACL reconstruction rehab",
            "rotator cuff tendinopathy",
            "chronic lower back pain",
            "ankle sprain",
            "whiplash",
        ),
        submit="lodge_preauthorisation",
        submit_fields=("insurer", "sessions_requested", "diagnosis"),
        amend=("change_preauthorisation_sessions", ("sessions_requested",)),
        withdraw="withdraw_preauthorisation",
        appeal="appeal_preauthorisation",
        states=("lodged", "with_insurer", "authorised", "declined", "withdrawn"),
    ),
    out_of_scope=(
        "a diagnosis of what is wrong with my knee",
        "a letter for my employer saying I can't lift",
        "dry needling done at home",
        "my insurer called on my behalf",
        "a discount for paying for ten sessions upfront",
        "my MRI scan booked at the hospital",
    ),
    identify_by=(("email",),),
)

# --------------------------------------------------------------------------- optician

_optician_customers = people(
    Noun("eyecare_customer"),
    "Customers of the opticians.",
    choice("wears", ("glasses", "contacts", "both"), "What they wear."),
)
_frames = catalog(
    Noun("frame"),
    "Frames on sale.",
    text(
        "frame_name", "Model.", "Harlow round", "Beckett square", "Nova cat-eye", "Atlas aviator", "Juno oval"
    ),
    choice("material", ("acetate", "titanium", "stainless_steel", "tr90"), "Frame material."),
    money("price", 49, 329, "Frame price in US dollars."),
    filters=("material",),
)
_optometrists = catalog(
    Noun("optometrist"),
    "Optometrists who run eye exams.",
    text(
        "optometrist_name", "Full name.", "Dr. Amy Chen", "Dr. Luis Vega", "Dr. Sara Holt", "Dr. Ben Adeyemi"
    ),
    choice("branch", ("high_street", "mall", "station"), "Which branch."),
    rows=(3, 5),
)
_prescriptions = owned(
    _optician_customers,
    Noun("prescription"),
    "Eye prescriptions on file.",
    text("right_sphere", "Right eye sphere.", "-0.75", "-1.50", "-2.25", "+1.00", "+0.50"),
    text("left_sphere", "Left eye sphere.", "-0.50", "-1.25", "-2.00", "+1.25", "+0.75"),
    date("expires_on", "When it stops being valid."),
)
OPTICIAN = Service.composed(
    "optician",
    "ClearView opticians",
    "health_wellness",
    "The agent books, moves and cancels eye exams, shows customers their prescriptions on file, and takes, "
    "changes, cancels and returns glasses orders made from the frame range.",
    _optician_customers,
    profile(_optician_customers, "wears"),
    _frames,
    _optometrists,
    _prescriptions,
    reservation(
        _optician_customers,
        Noun("eye_exam"),
        _optometrists.resources[0],
        date("exam_date", "Day of the exam."),
        choice("exam_kind", ("standard", "contact_lens", "diabetic_screening"), "What kind of exam."),
        book="book_eye_exam",
        book_fields=("exam_date", "exam_kind"),
        reschedule=("move_eye_exam", ("exam_date",)),
        cancel="cancel_eye_exam",
        states=("booked", "confirmed", "in_progress", "done", "cancelled"),
        extra_states=(),
    ),
    orders(
        _optician_customers,
        Noun("glasses_order"),
        _frames.resources[0],
        ref("prescriptions", "prescription_id", "The prescription the lenses follow."),
        choice("lens_type", ("single_vision", "varifocal", "reading", "blue_light"), "Lenses."),
        flag("anti_glare", "Whether lenses have anti-glare coating."),
        place="order_glasses",
        place_fields=("prescription_id", "lens_type", "anti_glare"),
        change=("change_glasses_lenses", ("lens_type", "anti_glare")),
        cancel="cancel_glasses_order",
        ret="return_glasses",
        states=("placed", "in_lab", "ready_for_fitting", "collected", "cancelled", "returned"),
    ),
    out_of_scope=(
        "my eyes checked for glaucoma over the phone",
        "a copy of my prescription sent to an online retailer",
        "laser eye surgery booked",
        "my sunglasses repaired from another shop",
        "a refund for contact lens solution",
        "the price matched with a competitor",
    ),
    identify_by=(("email",), ("last_name", "phone")),
)

# --------------------------------------------------------------------------- veterinary clinic

_vet_clients = people(
    Noun("client"),
    "Animal owners registered with the clinic.",
    flag("pet_insurance", "Whether they have pet insurance."),
    rows=(30, 36),
)
_animals = owned(
    _vet_clients,
    Noun("animal"),
    "Animals registered as patients.",
    text("animal_name", "Name.", "Bella", "Rocky", "Nala", "Ollie", "Coco", "Jasper", "Willow"),
    choice("species", ("dog", "cat", "rabbit", "ferret"), "Species."),
    integer("age_years", 1, 16, "Age in years."),
    flag("microchipped", "Whether it is microchipped."),
    add="register_animal",
    add_fields=("animal_name", "species", "age_years", "microchipped"),
    edit="update_animal_age",
    edit_fields=("age_years",),
)
_vets = catalog(
    Noun("vet"),
    "Vets at the clinic.",
    text("vet_name", "Full name.", "Dr. Grace Lum", "Dr. Ahmed Said", "Dr. Nora Quinn", "Dr. Felix Brandt"),
    choice("exotics", ("yes", "no"), "Whether they see exotic animals."),
    rows=(4, 5),
)
_medicines = catalog(
    Noun("medicine"),
    "Medicines the clinic dispenses.",
    text(
        "medicine_name",
        "Name.",
        "Flea and tick chew",
        "Worming tablet",
        "Joint supplement",
        "Ear drops",
        "Anti-inflammatory",
    ),
    money("price", 8, 95, "Price in US dollars."),
    flag("prescription_only", "Whether a vet must prescribe it."),
)
VET = Service.composed(
    "veterinary_clinic",
    "Oakhill veterinary clinic",
    "health_wellness",
    "The agent registers clients' animals, books consultations with the vets (check-in and cancellation "
    "included), sets aside medicines for pick-up and releases them, and takes payment of vet bills.",
    _vet_clients,
    profile(_vet_clients, "pet_insurance"),
    _animals,
    _vets,
    _medicines,
    reservation(
        _vet_clients,
        Noun("consultation"),
        _vets.resources[0],
        ref("animals", "animal_id", "The animal seen."),
        date("consult_date", "Day of the consultation."),
        text(
            "reason",
            "Why the animal is coming in.",
            "annual vaccination",
            "limping",
            "skin itching",
            "dental check",
            "not eating",
        ),
        book="book_consultation",
        book_fields=("animal_id", "consult_date", "reason"),
        check_in="check_in_consultation",
        cancel="cancel_consultation",
        states=("requested", "booked", "in_consult", "seen", "cancelled"),
        extra_states=("no_show",),
        under="animal_id",
    ),
    holds(
        _vet_clients,
        Noun("medicine_pickup"),
        _medicines.resources[0],
        integer("packs", 1, 4, "How many packs."),
        place="set_aside_medicine",
        place_fields=("packs",),
        release="release_medicine_pickup",
        collect="collect_medicine_pickup",
        states=("preparing", "ready", "collected", "released"),
    ),
    invoices(
        _vet_clients,
        Noun("vet_bill"),
        pay="pay_vet_bill",
        states=("unpaid", "paid", "contested", "cancelled"),
        low=35,
        high=900,
    ),
    out_of_scope=(
        "advice on whether my dog's lump is cancer",
        "a house call for my elderly cat",
        "a claim filed with my pet insurer",
        "my dog boarded over the holidays",
        "a prescription written without an exam",
        "my pet's records transferred to a clinic in another state",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- pharmacy refills

_pharmacy_patients = people(
    Noun("pharmacy_patient"),
    "Patients with prescriptions at the pharmacy.",
    choice("preferred_branch", ("main_street", "westfield", "harbor"), "Where they collect."),
    flag("auto_text", "Whether they get text reminders."),
)
_drugs = catalog(
    Noun("medication"),
    "Medications the pharmacy fills.",
    text(
        "drug_name",
        "Name and strength.",
        "Atorvastatin 20 mg",
        "Metformin 500 mg",
        "Lisinopril 10 mg",
        "Levothyroxine 50 mcg",
        "Amlodipine 5 mg",
        "Sertraline 50 mg",
        "Omeprazole 20 mg",
    ),
    integer("pack_size", 28, 90, "Tablets or capsules per fill."),
    money("copay", 0, 45, "Copay in US dollars."),
    rows=(7, 10),
)
PHARMACY = Service.composed(
    "pharmacy_refills",
    "Corner Pharmacy refills desk",
    "health_wellness",
    "The agent manages patients' repeat prescriptions (enrol in auto-refill, put on hold, restart, stop), "
    "queues refills for pick-up at a branch, extends or releases them, and marks them picked up.",
    _pharmacy_patients,
    profile(_pharmacy_patients, "preferred_branch", "auto_text"),
    _drugs,
    subscriptions(
        _pharmacy_patients,
        Noun("repeat_prescription"),
        _drugs.resources[0],
        integer("refills_left", 0, 11, "Refills remaining."),
        choice("supply_days", ("30", "60", "90"), "Days of supply per fill."),
        start="enrol_repeat_prescription",
        start_fields=("refills_left", "supply_days"),
        pause="hold_repeat_prescription",
        resume="restart_repeat_prescription",
        cancel="stop_repeat_prescription",
        states=("auto_refill", "on_hold", "needs_renewal", "stopped"),
    ),
    holds(
        _pharmacy_patients,
        Noun("refill"),
        _drugs.resources[0],
        choice("branch", ("main_street", "westfield", "harbor"), "Pick-up branch."),
        place="queue_refill",
        place_fields=("branch",),
        extend=("change_refill_branch", "branch"),
        release="release_refill",
        collect="mark_refill_picked_up",
        states=("queued", "ready", "picked_up", "returned_to_stock"),
    ),
    out_of_scope=(
        "a new prescription for antibiotics",
        "my doctor called to increase my dose",
        "advice on whether I can drink alcohol with this",
        "my prescription delivered by drone",
        "a refund of last year's copays",
        "my insurance prior authorization sorted out",
    ),
    identify_by=(("email",), ("last_name", "phone")),
)

# --------------------------------------------------------------------------- therapy practice

_therapy_clients = people(
    Noun("therapy_client"),
    "Clients of the practice.",
    choice("preferred_format", ("in_person", "video", "phone"), "How they like to meet."),
    flag("sliding_scale", "Whether they pay the reduced rate."),
)
_counsellors = catalog(
    Noun("counsellor"),
    "Counsellors and therapists.",
    text(
        "counsellor_name",
        "Full name.",
        "Maya Goldberg",
        "Daniel Reyes",
        "Ruth Okeke",
        "Simon Hall",
        "Jo Park",
    ),
    choice("modality", ("cbt", "psychodynamic", "couples", "emdr", "person_centred"), "Approach."),
    integer("weekly_openings", 0, 6, "Open slots a week."),
    filters=("modality",),
    rows=(5, 6),
)
_therapy_sessions = reservation(
    _therapy_clients,
    Noun("counselling_session"),
    _counsellors.resources[0],
    date("session_date", "Day of the session."),
    choice("start_time", ("09:00", "11:00", "13:00", "15:00", "17:00", "18:30"), "Start time."),
    choice("meeting_format", ("in_person", "video", "phone"), "How they meet."),
    book="book_counselling_session",
    book_fields=("session_date", "start_time", "meeting_format"),
    reschedule=("reschedule_counselling_session", ("session_date", "start_time")),
    cancel="cancel_counselling_session",
    states=("requested", "booked", "underway", "held", "cancelled"),
    extra_states=("late_cancelled",),
)
_consents = documents(
    _therapy_clients,
    Noun("consent_form"),
    choice("form_kind", ("treatment_consent", "records_release", "telehealth_consent"), "Which form."),
    text(
        "recipient", "Who records may go to.", "family doctor", "psychiatrist", "insurer", "school counsellor"
    ),
    create_="start_consent_form",
    create_fields=("form_kind", "recipient"),
    publish="sign_consent_form",
    archive="revoke_consent_form",
    states=("unsigned", "signed", "revoked"),
)
THERAPY = Service.composed(
    "therapy_practice",
    "Harbour counselling practice",
    "health_wellness",
    "The agent books, reschedules and cancels counselling sessions, prepares, signs and revokes clients' "
    "consent forms, and takes payment of session fees.",
    _therapy_clients,
    profile(_therapy_clients, "preferred_format"),
    _counsellors,
    _therapy_sessions,
    _consents,
    invoices(
        _therapy_clients,
        Noun("session_fee"),
        about=_therapy_sessions.resources[0],
        pay="pay_session_fee",
        states=("due", "paid", "disputed", "waived"),
        low=40,
        high=180,
    ),
    out_of_scope=(
        "my therapist's personal phone number",
        "a letter to my landlord about my anxiety",
        "my notes from last session read out to me",
        "a crisis counsellor to call me right now",
        "my sessions billed to my ex-partner",
        "a recommendation for antidepressants",
    ),
    identify_by=(("email",),),
)

# --------------------------------------------------------------------------- nutrition coaching

_nutrition_clients = people(
    Noun("coaching_client"),
    "People coached by the service.",
    choice("diet", ("omnivore", "vegetarian", "vegan", "pescatarian", "gluten_free"), "How they eat."),
    integer("target_weight_kg", 45, 120, "Their target weight."),
)
_programs = catalog(
    Noun("coaching_program"),
    "Coaching programs on offer.",
    text(
        "program_name",
        "Name.",
        "Fat loss 12-week",
        "Marathon fuelling",
        "Plant-based starter",
        "Gut health reset",
        "Muscle gain",
    ),
    integer("weeks", 4, 24, "Length in weeks."),
    money("monthly_price", 49, 199, "Monthly price in US dollars."),
    rows=(5, 6),
)
# the share table has no get tool of its own, and revoking a share needs one for its rule
_meal_plans = documents(
    _nutrition_clients,
    Noun("meal_plan"),
    text("plan_title", "Title.", "Week 1 reset", "High-protein week", "Race week", "Budget meals"),
    integer("daily_calories", 1200, 3500, "Calories a day."),
    create_="draft_meal_plan",
    create_fields=("plan_title", "daily_calories"),
    rename=("retitle_meal_plan", "plan_title"),
    publish="publish_meal_plan",
    share=("share_meal_plan", Noun("meal_plan_share")),
    revoke="unshare_meal_plan",
    states=("draft", "live", "retired"),
    roles=("viewer", "editor"),
)

NUTRITION = Service.composed(
    "nutrition_coaching",
    "Fuel Well nutrition coaching",
    "health_wellness",
    "The agent enrols clients in coaching programs, switches, pauses, resumes and ends them, and drafts, "
    "retitles, publishes and shares meal plans with a client's family.",
    _nutrition_clients,
    profile(_nutrition_clients, "diet", "target_weight_kg"),
    _programs,
    subscriptions(
        _nutrition_clients,
        Noun("enrolment"),
        _programs.resources[0],
        choice("checkin_day", ("monday", "wednesday", "friday", "sunday"), "Weekly check-in day."),
        start="enrol_in_program",
        start_fields=("checkin_day",),
        change_plan="switch_program",
        pause="pause_enrolment",
        resume="resume_enrolment",
        cancel="end_enrolment",
        states=("enrolled", "on_break", "lapsed", "ended"),
    ),
    _meal_plans,
    Part("sharing", (), (get(_meal_plans.resources[1], "get_meal_plan_share_details"),)),
    out_of_scope=(
        "a diagnosis for my stomach cramps",
        "a prescription for weight-loss injections",
        "groceries ordered for this week's plan",
        "my gym membership cancelled",
        "a refund for the supplements I bought online",
        "my coach swapped for a registered dietitian in person",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- blood donation

_donors = people(
    Noun("donor"),
    "Registered blood donors.",
    choice("blood_group", ("o_pos", "o_neg", "a_pos", "a_neg", "b_pos", "ab_pos"), "Blood group."),
    integer("donations_to_date", 0, 80, "Donations given so far."),
)
_sites = catalog(
    Noun("donation_site"),
    "Donor centres and mobile sessions.",
    text("site_name", "Name.", "City donor centre", "Northside library", "University hall", "Westgate mall"),
    choice("site_kind", ("permanent", "mobile"), "Permanent centre or mobile session."),
    integer("chairs", 4, 20, "Donation chairs."),
    filters=("site_kind",),
    rows=(4, 6),
)
_donations = reservation(
    _donors,
    Noun("donation_appointment"),
    _sites.resources[0],
    choice("donation_kind", ("whole_blood", "platelets", "plasma"), "What is donated."),
    date("donation_date", "Day of the appointment."),
    choice("slot", ("08:00", "09:30", "11:00", "13:00", "15:30", "17:00"), "Start time."),
    book="book_donation",
    book_fields=("donation_kind", "donation_date", "slot"),
    reschedule=("reschedule_donation", ("donation_date", "slot")),
    confirm="confirm_donation",
    cancel="cancel_donation",
    states=("reserved", "confirmed", "donating", "donated", "cancelled"),
    extra_states=("deferred",),
)
BLOOD = Service.composed(
    "blood_donation",
    "Lifeline blood donation centre",
    "health_wellness",
    "The agent books, confirms, reschedules and cancels donors' donation appointments at donor centres and "
    "mobile sessions, and logs and follows up donors' after-donation reports.",
    _donors,
    profile(_donors, "phone"),
    _sites,
    _donations,
    tickets(
        _donors,
        Noun("aftercare_report"),
        choice("symptom", ("bruising", "dizziness", "sore_arm", "fatigue"), "What they felt."),
        text(
            "aftercare_note",
            "Nurse notes.",
            "advised rest and fluids",
            "arm check booked",
            "called back",
            nullable=True,
        ),
        open_="log_aftercare_report",
        open_fields=("symptom",),
        note=("update_aftercare_note", "aftercare_note"),
        close="close_aftercare_report",
        states=("logged", "nurse_reviewing", "resolved", "closed"),
        about=_donations.resources[0],
    ),
    out_of_scope=(
        "my blood test results from the donation",
        "a certificate for my employer for time off",
        "a donation in my name for a specific patient",
        "a blood transfusion arranged for my father",
        "travel reimbursement to the donor centre",
        "my deferral for a recent tattoo lifted",
    ),
    identify_by=(("email",),),
)

# --------------------------------------------------------------------------- hearing aid clinic

_hearing_patients = people(
    Noun("hearing_patient"),
    "People with hearing aids from the clinic.",
    choice("hearing_loss", ("mild", "moderate", "severe"), "Degree of hearing loss."),
)
_aid_models = catalog(
    Noun("aid_model"),
    "Hearing aid models fitted by the clinic.",
    text(
        "model_name", "Model.", "Phonak Audeo", "Oticon More", "Signia Pure", "ReSound Omnia", "Widex Moment"
    ),
    choice("style", ("bte", "ric", "ite", "cic"), "Behind the ear, receiver in canal, in the ear, in canal."),
    choice("power", ("rechargeable", "size_312", "size_13"), "Battery."),
    rows=(5, 7),
)
_accessories = catalog(
    Noun("accessory", "accessories"),
    "Accessories and supplies.",
    text(
        "accessory_name", "Name.", "Battery pack 312", "Domes (10)", "Wax guards", "TV streamer", "Drying kit"
    ),
    money("price", 6, 249, "Price in US dollars."),
    rows=(5, 6),
)
_devices = owned(
    _hearing_patients,
    Noun("hearing_aid"),
    "Hearing aids a patient has been fitted with.",
    ref("aid_models", "aid_model_id", "The model."),
    choice("ear", ("left", "right"), "Which ear."),
    text("serial_number", "Serial number.", "HA-20931", "HA-48120", "HA-77305", "HA-11842", "HA-65019"),
    date("warranty_until", "End of warranty."),
)
HEARING = Service.composed(
    "hearing_aid_clinic",
    "SoundPath hearing aid clinic",
    "health_wellness",
    "The agent shows patients their fitted hearing aids, logs, escalates, closes and reopens repair requests "
    "for them, and orders batteries and accessories (cancel before dispatch).",
    _hearing_patients,
    profile(_hearing_patients),
    _aid_models,
    _accessories,
    _devices,
    tickets(
        _hearing_patients,
        Noun("repair_request"),
        choice("fault", ("no_sound", "whistling", "crackling", "wont_charge", "cracked_shell"), "The fault."),
        flag("loaner_needed", "Whether they need a loaner aid meanwhile."),
        open_="log_repair_request",
        open_fields=("fault", "loaner_needed"),
        escalate="escalate_repair_request",
        close="close_repair_request",
        reopen="reopen_repair_request",
        states=("logged", "at_workshop", "repaired", "returned"),
        about=_devices.resources[0],
    ),
    orders(
        _hearing_patients,
        Noun("supply_order"),
        _accessories.resources[0],
        integer("quantity", 1, 6, "How many."),
        place="order_supplies",
        place_fields=("quantity",),
        cancel="cancel_supply_order",
        states=("received", "packing", "dispatched", "delivered", "cancelled", "sent_back"),
    ),
    out_of_scope=(
        "a hearing test done over the phone",
        "my aids reprogrammed remotely right now",
        "a claim made on my home insurance for a lost aid",
        "cochlear implant referral",
        "a discount because my aid broke twice",
        "the audiologist's personal opinion on a competitor brand",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- vaccination clinic

_vax_patients = people(
    Noun("vaccinee"),
    "People vaccinated at the clinic.",
    integer("birth_year", 1940, 2020, "Year of birth."),
    flag("egg_allergy", "Whether they are allergic to egg."),
)
_vaccines = catalog(
    Noun("vaccine"),
    "Vaccines given at the clinic.",
    text(
        "vaccine_name",
        "Name.",
        "Seasonal flu",
        "Hepatitis A",
        "Typhoid",
        "Yellow fever",
        "Shingles",
        "Tetanus booster",
        "Rabies",
    ),
    integer("doses", 1, 3, "Doses in the course."),
    money("price", 0, 160, "Price per dose in US dollars."),
    rows=(6, 8),
)
_vax_visits = reservation(
    _vax_patients,
    Noun("vaccination"),
    _vaccines.resources[0],
    integer("dose_number", 1, 3, "Which dose of the course."),
    date("vaccination_date", "Day of the appointment."),
    book="book_vaccination",
    book_fields=("dose_number", "vaccination_date"),
    confirm="confirm_vaccination",
    check_in="check_in_vaccination",
    cancel="cancel_vaccination",
    states=("booked", "confirmed", "waiting", "given", "cancelled"),
    extra_states=(),
)
_vax_extra = Part(
    "records",
    (),
    (
        update(
            _vax_patients,
            "update_vaccinee_egg_allergy",
            "Record whether a person is allergic to egg.",
            ("egg_allergy",),
        ),
    ),
)
VACCINATION = Service.composed(
    "vaccination_clinic",
    "Travel & Flu vaccination clinic",
    "health_wellness",
    "The agent books, confirms, checks in and cancels vaccinations, and handles requests for international "
    "vaccination certificates (submit, withdraw, appeal a refusal).",
    _vax_patients,
    profile(_vax_patients),
    _vaccines,
    _vax_visits,
    _vax_extra,
    approvals(
        _vax_patients,
        Noun("certificate_request"),
        text(
            "destination", "Country travelled to.", "Kenya", "Brazil", "Ghana", "Peru", "Uganda", "Colombia"
        ),
        date("travel_date", "Departure date."),
        submit="request_certificate",
        submit_fields=("destination", "travel_date"),
        withdraw="withdraw_certificate_request",
        appeal="appeal_certificate_refusal",
        states=("requested", "checking", "issued", "refused", "withdrawn"),
    ),
    out_of_scope=(
        "advice on whether I need malaria tablets",
        "my vaccination records sent to my school",
        "a home visit to vaccinate my grandmother",
        "a refund for a vaccine I got abroad",
        "the yellow fever vaccine given to my 6-month-old",
        "my COVID test result emailed",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

SERVICES = [DENTAL, PHYSIO, OPTICIAN, VET, PHARMACY, THERAPY, NUTRITION, BLOOD, HEARING, VACCINATION]
