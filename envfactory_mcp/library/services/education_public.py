"""Education and public services: libraries, schools, childcare, and the city's front desks."""

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
    create,
    date,
    flag,
    get,
    integer,
    listing,
    money,
    ref,
    table,
    text,
    transition,
    update,
)
from envfactory_mcp.library.service import Service

DOMAIN = "education_public"
_BRANCHES = ("central", "eastside", "harbor", "hillcrest")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday")

# --------------------------------------------------------------------------- public library

_patrons = people(
    Noun("patron"),
    "People holding a library card.",
    choice("card_type", ("adult", "teen", "senior", "visitor"), "Kind of library card."),
    choice("home_branch", _BRANCHES, "Branch they usually use."),
)
_titles = catalog(
    Noun("title"),
    "Items in the library catalogue.",
    text(
        "title_name",
        "Title.",
        "The Lighthouse Keeper's Daughter",
        "Atlas of Lost Rivers",
        "Cooking with Grains",
        "The Quiet Orbit",
        "Birds of the Coast",
        "Midnight at the Archive",
        "Learn Spanish in 30 Days",
        "The Long Field",
    ),
    text("creator", "Author or director.", "P. Nakamura", "D. Osei", "H. Lindgren", "C. Alvarez", "M. Doyle"),
    choice("media", ("book", "large_print", "dvd", "audiobook", "magazine"), "Kind of item."),
    integer("copies", 1, 8, "Copies the library owns."),
    filters=("media",),
    rows=(10, 14),
)
PUBLIC_LIBRARY = Service.composed(
    "riverbend_public_library",
    "Riverbend public library circulation desk",
    DOMAIN,
    "The agent helps card holders place, move and cancel holds on catalogue items, pay overdue fines, "
    "and suggest items for the library to buy.",
    _patrons,
    profile(_patrons, "home_branch"),
    _titles,
    holds(
        _patrons,
        Noun("hold"),
        _titles.resources[0],
        choice("pickup_branch", _BRANCHES, "Branch it will be sent to."),
        integer("queue_position", 1, 12, "Place in the waiting list.", default=1),
        place="place_hold",
        place_fields=("pickup_branch",),
        extend=("change_hold_pickup_branch", "pickup_branch"),
        release="cancel_hold",
        states=("waiting", "on_shelf", "checked_out", "cancelled"),
    ),
    invoices(
        _patrons,
        Noun("fine"),
        choice("reason", ("overdue", "lost_item", "damaged_item"), "What it is for."),
        pay="pay_fine",
        low=0.5,
        high=35,
        states=("unpaid", "paid", "contested", "waived"),
    ),
    approvals(
        _patrons,
        Noun("purchase_suggestion"),
        text("suggested_title", "What they want the library to buy.", "The Salt Garden", "Nine Bridges"),
        choice("media_wanted", ("book", "dvd", "audiobook", "ebook"), "Format wanted."),
        submit="suggest_purchase",
        submit_fields=("suggested_title", "media_wanted"),
        withdraw="withdraw_purchase_suggestion",
        states=("received", "with_selector", "ordered", "declined", "withdrawn"),
    ),
    out_of_scope=(
        "a meeting room for my book club next Thursday",
        "my late husband's library card closed and his fines cleared",
        "the wifi password for the reading room",
        "a replacement card mailed to my holiday address abroad",
        "a librarian to research my family tree for me",
        "the noise from the children's corner dealt with",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- university registrar

_students = people(
    Noun("student"),
    "Enrolled university students.",
    choice(
        "program", ("BSc Biology", "BA History", "BEng Civil", "BA Economics", "BSc Computing"), "Degree."
    ),
    integer("year_of_study", 1, 4, "Year of study."),
    text(
        "mailing_address", "Postal address.", "12 Elm Row", "4 Quarry Lane", "88 College Ave", "7 Mill Court"
    ),
    rows=(30, 40),
)
_sections = catalog(
    Noun("course_section"),
    "Course sections offered this term.",
    text("course_code", "Course code.", "BIO201", "HIS110", "ECO305", "CIV220", "CMP150", "MAT101"),
    text("instructor", "Who teaches it.", "Dr. Amari", "Prof. Kessler", "Dr. Quinn", "Dr. Santos"),
    integer("credits", 2, 6, "Credit hours."),
    choice("meets", ("MWF 09:00", "TTh 11:00", "MW 14:00", "TTh 16:00", "F 10:00"), "When it meets."),
    integer("seats_left", 0, 40, "Open seats."),
    rows=(8, 12),
)
_enrol = reservation(
    _students,
    Noun("enrollment"),
    _sections.resources[0],
    choice("grading_basis", ("letter", "pass_fail", "audit"), "How it is graded."),
    book="enroll_in_section",
    book_fields=("grading_basis",),
    cancel="drop_enrollment",
    states=("waitlisted", "enrolled", "in_progress", "completed", "dropped"),
    extra_states=("withdrawn_w",),
)
_enrollments = _enrol.resources[0]
REGISTRAR = Service.composed(
    "northfield_registrar",
    "Northfield University registrar's office",
    DOMAIN,
    "The agent helps students enrol in and drop course sections, change a course's grading basis, file "
    "academic petitions, and pay their tuition bills.",
    _students,
    profile(_students, "mailing_address"),
    _sections,
    _enrol,
    Part(
        "registrar_rules",
        (),
        (
            update(
                _enrollments,
                "change_grading_basis",
                "Switch an enrollment between letter grade, pass/fail and audit.",
                ("grading_basis",),
                only_when=(
                    "status",
                    ("waitlisted", "enrolled"),
                    "the grading basis can only be changed before the course starts",
                ),
            ),
        ),
    ),
    approvals(
        _students,
        Noun("petition"),
        choice(
            "petition_kind",
            ("credit_overload", "late_withdrawal", "prerequisite_waiver", "residency_change"),
            "What is asked for.",
        ),
        text("justification", "Why.", "medical leave", "graduating this term", "took equivalent course"),
        submit="file_petition",
        submit_fields=("petition_kind", "justification"),
        amend=("amend_petition_justification", ("justification",)),
        withdraw="withdraw_petition",
        states=("filed", "with_dean", "granted", "denied", "withdrawn"),
    ),
    invoices(
        _students,
        Noun("tuition_bill"),
        choice("term", ("fall", "spring", "summer"), "Term billed."),
        choice("paid_with", ("card", "bank_transfer", "financial_aid"), "How it was paid.", default="card"),
        pay="pay_tuition_bill",
        pay_fields=("paid_with",),
        low=400,
        high=9000,
    ),
    out_of_scope=(
        "my grade in BIO201 changed to an A",
        "a letter confirming I am a student for my visa interview sent to the embassy",
        "my parking permit renewed",
        "a roommate change in my dormitory",
        "my professor's phone number",
        "my degree classification recalculated with my transfer credits",
    ),
    identify_by=(("email",),),
)

# --------------------------------------------------------------------------- tutoring centre

_families = people(
    Noun("family"),
    "Families whose children are tutored.",
    choice("contact_pref", ("email", "sms", "phone_call"), "How they like to be reached."),
    rows=(25, 35),
)
_learners = owned(
    _families,
    Noun("pupil"),
    "Children tutored at the centre.",
    text("pupil_name", "Child's first name.", "Maya", "Theo", "Ines", "Kofi", "Lena", "Arjun", "Ruby"),
    choice("school_grade", ("grade_3", "grade_5", "grade_7", "grade_9", "grade_11"), "School grade."),
    text("learning_goal", "What to work on.", "fractions", "essay structure", "exam prep", "reading speed"),
    add="add_pupil",
    add_fields=("pupil_name", "school_grade", "learning_goal"),
    edit="update_pupil_learning_goal",
    edit_fields=("learning_goal",),
)
_tutors = catalog(
    Noun("tutor"),
    "Tutors at the centre.",
    text("tutor_name", "Name.", "Grace Holm", "Peter Adu", "Nadia Karim", "Owen Blake", "Sofia Ruiz"),
    choice("subject", ("maths", "english", "science", "french"), "What they teach."),
    money("hourly_rate", 30, 75, "Rate per hour in US dollars."),
    filters=("subject",),
    rows=(5, 8),
)
TUTORING = Service.composed(
    "brightpath_tutoring",
    "BrightPath tutoring centre",
    DOMAIN,
    "The agent helps parents manage their children's profiles, book, confirm, move and cancel tutoring "
    "sessions, and pay session invoices.",
    _families,
    profile(_families, "contact_pref"),
    _learners,
    _tutors,
    reservation(
        _families,
        Noun("session"),
        _tutors.resources[0],
        ref("pupils", "pupil_id", "The child tutored."),
        date("session_date", "Day of the session."),
        choice("slot", ("15:30", "16:30", "17:30", "18:30"), "Start time."),
        choice("mode", ("in_centre", "online"), "Where it happens."),
        book="book_session",
        under="pupil_id",
        book_fields=("pupil_id", "session_date", "slot", "mode"),
        reschedule=("reschedule_session", ("session_date", "slot")),
        confirm="confirm_session",
        cancel="cancel_session",
        states=("pencilled_in", "confirmed", "underway", "delivered", "cancelled"),
        extra_states=("pupil_absent",),
    ),
    invoices(
        _families,
        Noun("session_invoice"),
        pay="pay_session_invoice",
        low=30,
        high=300,
    ),
    out_of_scope=(
        "a tutor sent to our house for the weekend",
        "my son's school report card explained",
        "a refund because my daughter's grades did not improve",
        "a tutor's personal phone number",
        "help writing my college application essay myself",
        "my sibling discount applied to my cousin's account",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- language school

_learners_ls = people(
    Noun("learner"),
    "Adult language learners.",
    text("native_language", "First language.", "Portuguese", "Japanese", "Arabic", "Polish", "Korean"),
)
_courses_ls = catalog(
    Noun("language_course"),
    "Courses on the timetable.",
    choice("language", ("spanish", "german", "italian", "mandarin", "english"), "Language taught."),
    choice("cefr_level", ("A1", "A2", "B1", "B2", "C1"), "Level."),
    choice("timetable", ("weekday_evenings", "saturday_mornings", "intensive_daytime"), "When it runs."),
    money("course_fee", 180, 620, "Fee for the term in US dollars."),
    filters=("language", "cefr_level"),
    rows=(8, 12),
)
LANGUAGE_SCHOOL = Service.composed(
    "polyglot_language_school",
    "Polyglot language school",
    DOMAIN,
    "The agent helps learners enrol in, confirm and withdraw from language courses, and write, retitle and "
    "hand in essays for marking.",
    _learners_ls,
    profile(_learners_ls),
    _courses_ls,
    reservation(
        _learners_ls,
        Noun("course_enrollment"),
        _courses_ls.resources[0],
        flag("placement_test_done", "Whether they sat the placement test."),
        book="enrol_in_course",
        book_fields=("placement_test_done",),
        confirm="confirm_course_enrollment",
        cancel="withdraw_from_course",
        states=("pending_placement", "placed", "attending", "finished", "withdrawn"),
        extra_states=(),
    ),
    documents(
        _learners_ls,
        Noun("essay"),
        text("essay_title", "Title.", "My home town", "A memorable trip", "Food and culture", "Work life"),
        integer("word_count", 80, 900, "Length in words."),
        create_="start_essay",
        create_fields=("essay_title", "word_count"),
        rename=("retitle_essay", "essay_title"),
        publish="hand_in_essay",
        states=("draft", "handed_in", "marked"),
    ),
    out_of_scope=(
        "my essay marked right now",
        "a certificate saying I am fluent for my job application",
        "a visa sponsorship letter",
        "lessons with a specific teacher at my office",
        "my classmate's phone number for practice",
        "a refund for a course I finished last year",
    ),
)

# --------------------------------------------------------------------------- daycare

_guardians = people(
    Noun("guardian"),
    "Parents and guardians of children in care.",
    text(
        "emergency_contact",
        "Second contact.",
        "Grandma Rose 555-0141",
        "Uncle Dev 555-0199",
        "Aunt Mei 555-0120",
    ),
    rows=(25, 35),
)
_children = owned(
    _guardians,
    Noun("child", "children"),
    "Children in the centre's care.",
    text("child_name", "First name.", "Ava", "Leo", "Zara", "Finn", "Noor", "Eli", "Isla"),
    choice("age_group", ("infant", "toddler", "preschool"), "Room by age."),
    text("allergies", "Allergies and diet.", "peanuts", "dairy", "egg", "gluten", "no known allergies"),
    add="register_child",
    add_fields=("child_name", "age_group", "allergies"),
    edit="update_child_allergies",
    edit_fields=("allergies",),
)
_care_plans = catalog(
    Noun("care_plan"),
    "Attendance plans.",
    text("plan_label", "Name.", "Full time 5 days", "3 days Mon-Wed", "2 days Thu-Fri", "Mornings only"),
    integer("days_per_week", 2, 5, "Days a week."),
    money("monthly_fee", 600, 1900, "Monthly fee in US dollars."),
    rows=(4, 6),
)
_places = subscriptions(
    _guardians,
    Noun("care_place"),
    _care_plans.resources[0],
    ref("children", "child_id", "The child in care."),
    date("start_date", "First day."),
    start="enrol_child",
    start_fields=("child_id", "start_date"),
    change_plan="change_care_plan",
    pause="pause_care_place",
    resume="resume_care_place",
    cancel="withdraw_child",
    states=("attending", "on_break", "fees_overdue", "withdrawn"),
)
_absences = table(
    "absences",
    "absence",
    "Days a child will not come in.",
    ref("guardians", "guardian_id", "Who reported it."),
    ref("children", "child_id", "The child."),
    date("absent_on", "The day."),
    choice("cause", ("illness", "family_trip", "appointment", "other"), "Why."),
    choice("status", ("reported", "acknowledged", "retracted"), "Where it stands.", default="reported"),
    under="child_id",
    rows=(0, 2),
)
DAYCARE = Service.composed(
    "little_acorns_daycare",
    "Little Acorns daycare",
    DOMAIN,
    "The agent helps guardians register children, keep allergy notes current, enrol children on care plans, "
    "pause, resume or end a place, and report or retract absences.",
    _guardians,
    profile(_guardians, "emergency_contact"),
    _children,
    _care_plans,
    _places,
    Part(
        "absences",
        (_absences,),
        (
            listing(_absences, "guardian_id", "child_id"),
            get(_absences),
            create(
                _absences,
                "report_absence",
                "Tell the centre a child will be away on a day.",
                ("guardian_id", "child_id", "absent_on", "cause"),
            ),
            transition(
                _absences,
                "retract_absence",
                "The child will come in after all.",
                "retracted",
                ("reported", "acknowledged"),
                "the absence was already retracted",
                intent="retract an absence report",
            ),
        ),
    ),
    out_of_scope=(
        "my child's nap times changed in the room schedule",
        "a staff member's home address",
        "photos of other children from the summer party",
        "a childcare tax certificate for last year",
        "my child picked up early today by a neighbour not on the list",
        "a discount because we were on holiday for two weeks",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- music lessons

_music_students = people(
    Noun("music_student"),
    "Students of the music school.",
    choice("age_band", ("child", "teen", "adult"), "Age band."),
)
_teachers = catalog(
    Noun("teacher"),
    "Music teachers.",
    text(
        "teacher_name", "Name.", "Elena Vasquez", "Marcus Hill", "Yuki Tanabe", "Olu Adebayo", "Clara Novak"
    ),
    choice("instrument", ("piano", "violin", "guitar", "cello", "voice", "drums"), "What they teach."),
    choice("lesson_length", ("30m", "45m", "60m"), "Lesson length."),
    filters=("instrument",),
    rows=(6, 9),
)
_rentals = catalog(
    Noun("rental_instrument"),
    "Instruments the school rents out.",
    text("model", "Make and model.", "Yamaha P-45", "Stentor Student II", "Fender CD-60", "Eastman VC80"),
    choice("size", ("full", "three_quarter", "half"), "Size."),
    money("monthly_rent", 12, 60, "Monthly rent in US dollars."),
    rows=(5, 8),
)
MUSIC_LESSONS = Service.composed(
    "crescendo_music_school",
    "Crescendo music school",
    DOMAIN,
    "The agent helps students book, move, cancel and check in to lessons with teachers, and rent instruments "
    "(change or cancel a rental before dispatch, return one in use).",
    _music_students,
    profile(_music_students, "age_band"),
    _teachers,
    _rentals,
    reservation(
        _music_students,
        Noun("lesson"),
        _teachers.resources[0],
        date("lesson_date", "Day of the lesson."),
        choice("start_time", ("14:00", "15:00", "16:00", "17:00", "18:00"), "Start time."),
        book="book_lesson",
        book_fields=("lesson_date", "start_time"),
        reschedule=("move_lesson", ("lesson_date", "start_time")),
        cancel="cancel_lesson",
        check_in="check_in_lesson",
        states=("booked", "confirmed", "in_room", "taught", "cancelled"),
    ),
    orders(
        _music_students,
        Noun("rental"),
        _rentals.resources[0],
        integer("months", 1, 12, "Months rented."),
        place="rent_instrument",
        place_fields=("months",),
        change=("change_rental_months", ("months",)),
        cancel="cancel_rental",
        ret="return_rental",
        states=("requested", "being_serviced", "dispatched", "with_student", "cancelled", "returned"),
    ),
    out_of_scope=(
        "my violin repaired after my dog chewed the bow",
        "an exam entry for grade 5 piano with the national board",
        "a recital slot for my daughter",
        "my teacher's rates lowered",
        "sheet music photocopied for the whole band",
        "the practice room heating fixed",
    ),
)

# --------------------------------------------------------------------------- online course platform

_online_learners = people(
    Noun("account_holder"),
    "People with a learning account.",
    choice("time_zone", ("UTC-8", "UTC-5", "UTC+0", "UTC+1", "UTC+5:30", "UTC+9"), "Their time zone."),
    text("display_name", "Name shown in forums.", "data_dan", "lena_codes", "quietfox", "sam.writes"),
)
_online_courses = catalog(
    Noun("online_course"),
    "Courses in the catalogue.",
    text(
        "course_title",
        "Title.",
        "Intro to Python",
        "Bookkeeping Basics",
        "UX Research Methods",
        "Watercolour for Beginners",
        "SQL for Analysts",
        "Public Speaking",
    ),
    integer("video_hours", 2, 40, "Hours of video."),
    choice("difficulty", ("beginner", "intermediate", "advanced"), "Difficulty."),
    filters=("difficulty",),
)
_learning_plans = catalog(
    Noun("learning_plan"),
    "Subscription plans.",
    text("plan_title", "Name.", "Monthly", "Annual", "Teams", "Student"),
    money("price", 9, 39, "Price per month in US dollars."),
    rows=(3, 4),
)
ONLINE_COURSES = Service.composed(
    "skillforge_online",
    "SkillForge online courses help centre",
    DOMAIN,
    "The agent helps learners with their subscription (start, switch plan, cancel), support requests about "
    "courses, and disputes of charges.",
    _online_learners,
    profile(_online_learners, "time_zone", "display_name"),
    _online_courses,
    _learning_plans,
    subscriptions(
        _online_learners,
        Noun("plan_subscription"),
        _learning_plans.resources[0],
        start="subscribe_to_plan",
        change_plan="switch_learning_plan",
        cancel="cancel_plan_subscription",
        states=("active", "paused", "payment_failed", "cancelled"),
    ),
    tickets(
        _online_learners,
        Noun("support_request"),
        choice(
            "problem",
            ("video_wont_play", "quiz_not_graded", "certificate_missing", "login_issue"),
            "Problem.",
        ),
        text(
            "details", "What happened.", "stops at 2 minutes", "scored 0 despite answers", "name misspelled"
        ),
        open_="open_support_request",
        open_fields=("problem", "details"),
        note=("update_support_request_details", "details"),
        close="close_support_request",
        reopen="reopen_support_request",
        about=_online_courses.resources[0],
    ),
    invoices(
        _online_learners,
        Noun("charge"),
        dispute="dispute_charge",
        states=("pending", "settled", "disputed", "refunded"),
        low=9,
        high=399,
    ),
    out_of_scope=(
        "a course on underwater welding added to the catalogue",
        "my certificate accredited by my university",
        "the instructor to answer my question personally by phone",
        "my answers to the final exam",
        "my account merged with my work account",
        "a job at SkillForge",
    ),
)

# --------------------------------------------------------------------------- exam / test centre

_candidates = people(
    Noun("candidate"),
    "People sitting exams.",
    choice("id_document", ("passport", "driving_licence", "national_id"), "ID they will bring."),
)
_exams = catalog(
    Noun("exam"),
    "Exams the centre delivers.",
    text(
        "exam_name",
        "Exam.",
        "IELTS Academic",
        "CompTIA A+ Core 1",
        "GMAT Focus",
        "ACCA FR",
        "AWS Cloud Practitioner",
        "TOEFL iBT",
    ),
    integer("duration_minutes", 60, 240, "Length in minutes."),
    money("exam_fee", 90, 300, "Fee in US dollars."),
    choice("delivery", ("computer", "paper"), "How it is sat."),
    rows=(6, 9),
)
TEST_CENTRE = Service.composed(
    "cityview_test_centre",
    "Cityview exam and test centre",
    DOMAIN,
    "The agent helps candidates book, move, cancel and check in to exam sittings, and request, change, "
    "withdraw or appeal special accommodations.",
    _candidates,
    profile(_candidates, "id_document"),
    _exams,
    reservation(
        _candidates,
        Noun("sitting"),
        _exams.resources[0],
        date("exam_date", "Day of the exam."),
        choice("session", ("morning", "afternoon"), "Session."),
        choice("seat_room", ("room_a", "room_b", "quiet_room"), "Room.", default="room_a"),
        book="book_sitting",
        book_fields=("exam_date", "session"),
        reschedule=("reschedule_sitting", ("exam_date", "session")),
        cancel="cancel_sitting",
        check_in="check_in_candidate",
        states=("scheduled", "id_verified", "seated", "results_pending", "cancelled"),
        extra_states=("absent",),
    ),
    approvals(
        _candidates,
        Noun("accommodation_request"),
        choice(
            "adjustment",
            ("extra_time_25", "extra_time_50", "separate_room", "reader", "rest_breaks"),
            "What.",
        ),
        text("evidence", "Supporting evidence.", "doctor's letter", "school report", "psychologist report"),
        submit="request_accommodation",
        submit_fields=("adjustment", "evidence"),
        amend=("change_accommodation_request", ("adjustment", "evidence")),
        withdraw="withdraw_accommodation_request",
        appeal="appeal_accommodation_decision",
    ),
    out_of_scope=(
        "my exam score raised by five points",
        "the questions that will be on my exam",
        "a remote proctored sitting from my home",
        "my friend allowed to sit the exam for me",
        "my results sent to a university I have not named",
        "a refund for an exam I failed",
    ),
)

# --------------------------------------------------------------------------- city permits office

_applicants = people(
    Noun("applicant"),
    "Residents and contractors applying for permits.",
    choice("applicant_role", ("homeowner", "contractor", "business_owner"), "Who they are."),
)
_inspectors = catalog(
    Noun("inspector"),
    "Building inspectors.",
    text("inspector_name", "Name.", "R. Delgado", "K. Brandt", "S. Yoon", "T. Fofana"),
    choice("trade", ("building", "electrical", "plumbing"), "Discipline."),
    filters=("trade",),
    rows=(4, 6),
)
_permit = approvals(
    _applicants,
    Noun("permit_application"),
    choice("permit_kind", ("deck", "fence", "kitchen_remodel", "solar_panels", "shed", "signage"), "Permit."),
    text("site_address", "Where the work is.", "18 Birch St", "402 Harbor Rd", "9 Vine Ct", "77 Canal Way"),
    money("project_value", 1500, 90000, "Estimated cost of the work in US dollars."),
    submit="apply_for_permit",
    submit_fields=("permit_kind", "site_address", "project_value"),
    amend=("amend_permit_application", ("site_address", "project_value")),
    withdraw="withdraw_permit_application",
    appeal="appeal_permit_denial",
    states=("received", "plan_review", "issued", "denied", "withdrawn"),
    extra_states=("expired",),
)
PERMITS = Service.composed(
    "city_permits_counter",
    "Maple City permits office",
    DOMAIN,
    "The agent helps residents and contractors apply for building permits, amend, withdraw or appeal "
    "applications, book and move site inspections, and pay permit fees.",
    _applicants,
    profile(_applicants, "applicant_role"),
    _inspectors,
    _permit,
    reservation(
        _applicants,
        Noun("inspection"),
        _inspectors.resources[0],
        ref("permit_applications", "permit_application_id", "The permit inspected."),
        date("inspection_date", "Day of the inspection."),
        choice("window", ("8-10", "10-12", "13-15"), "Arrival window."),
        book="request_inspection",
        book_fields=("permit_application_id", "inspection_date", "window"),
        reschedule=("reschedule_inspection", ("inspection_date", "window")),
        cancel="cancel_inspection",
        states=("requested", "scheduled", "on_site", "passed", "cancelled"),
        extra_states=("failed",),
    ),
    invoices(
        _applicants,
        Noun("permit_fee"),
        about=_permit.resources[0],
        pay="pay_permit_fee",
        low=50,
        high=1200,
    ),
    out_of_scope=(
        "my neighbour's fence taken down",
        "the zoning of my lot changed to commercial",
        "a property tax reassessment",
        "an inspector who will pass my deck without looking",
        "a pothole on my street filled",
        "a business license for my food truck",
    ),
)

# --------------------------------------------------------------------------- parks & recreation

_residents = people(
    Noun("resident"),
    "Residents with a recreation account.",
    flag("city_resident", "Whether they live in the city (resident rates)."),
)
_facilities = catalog(
    Noun("facility"),
    "Bookable park facilities.",
    text(
        "facility_name",
        "Name.",
        "Lakeside picnic shelter",
        "Oak Park tennis court 2",
        "Memorial ball field",
        "Riverside pavilion",
        "Community garden plot",
    ),
    choice("park", ("lakeside", "oak_park", "memorial", "riverside"), "Park."),
    integer("capacity", 4, 150, "People allowed."),
    money("daily_rate", 10, 180, "Rate per day in US dollars."),
    filters=("park",),
)
_programs = table(
    "rec_programs",
    "rec_program",
    "Recreation programs on the seasonal brochure.",
    text(
        "program_name", "Name.", "Junior swim level 1", "Summer day camp", "Pickleball clinic", "Senior yoga"
    ),
    choice("season", ("spring", "summer", "fall"), "Season."),
    integer("spots", 0, 25, "Open spots."),
    rows=(5, 8),
)
_registrations = table(
    "registrations",
    "registration",
    "Sign-ups for recreation programs.",
    ref("residents", "resident_id", "Who signed up."),
    ref("rec_programs", "rec_program_id", "The program."),
    text("participant", "Who takes part.", "self", "Jonah (age 8)", "Priya (age 11)", "Walt (age 70)"),
    choice(
        "status",
        ("registered", "waitlisted", "attended", "withdrawn"),
        "Where it stands.",
        default="registered",
    ),
    under="resident_id",
    rows=(0, 2),
)
PARKS = Service.composed(
    "parks_and_rec_bookings",
    "Greenway parks and recreation department",
    DOMAIN,
    "The agent helps residents reserve park facilities (confirm, move, cancel) and sign up for or withdraw "
    "from recreation programs, and pay reservation deposits.",
    _residents,
    profile(_residents),
    _facilities,
    reservation(
        _residents,
        Noun("facility_booking"),
        _facilities.resources[0],
        date("use_date", "Day."),
        integer("attendees", 1, 150, "Expected people."),
        book="reserve_facility",
        book_fields=("use_date", "attendees"),
        reschedule=("change_facility_booking_date", ("use_date",)),
        confirm="confirm_facility_booking",
        cancel="cancel_facility_booking",
        states=("pending_deposit", "reserved", "in_use", "finished", "cancelled"),
    ),
    Part(
        "registrations",
        (_programs, _registrations),
        (
            listing(_programs, "season"),
            listing(_registrations, "resident_id", "status"),
            get(_registrations),
            create(
                _registrations,
                "register_for_program",
                "Sign someone up for a program.",
                ("resident_id", "rec_program_id", "participant"),
            ),
            transition(
                _registrations,
                "withdraw_registration",
                "Take someone out of a program.",
                "withdrawn",
                ("registered", "waitlisted"),
                "only registered or waitlisted sign-ups can be withdrawn",
            ),
        ),
    ),
    invoices(
        _residents,
        Noun("deposit"),
        choice("paid_with", ("card", "check"), "How it was paid.", default="card"),
        pay="pay_deposit",
        pay_fields=("paid_with",),
        states=("due", "paid", "withheld", "returned"),
        low=25,
        high=250,
    ),
    out_of_scope=(
        "the grass at Oak Park mowed before my party",
        "a permit to sell alcohol at my picnic",
        "a lifeguard for a private pool party",
        "the dog park rules changed",
        "a refund of my deposit after the damage report",
        "a fallen tree removed from my yard",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

# --------------------------------------------------------------------------- passport appointments

_travellers = people(
    Noun("traveller"),
    "People applying for passports.",
    date("date_of_birth", "Date of birth."),
    text("mailing_address", "Where the passport is sent.", "5 Court St", "210 Pine Ave", "33 Shore Rd"),
)
_offices = catalog(
    Noun("passport_office"),
    "Passport acceptance offices.",
    text("office_name", "Name.", "Downtown federal building", "Northside post office", "Airport annex"),
    choice("opening_days", ("mon_fri", "tue_sat", "mon_sat"), "Days open."),
    rows=(3, 5),
)
_applications = approvals(
    _travellers,
    Noun("passport_application"),
    choice("application_kind", ("first_passport", "renewal", "child_under_16", "lost_or_stolen"), "Kind."),
    choice("processing", ("routine", "expedited"), "Processing speed."),
    submit="lodge_passport_application",
    submit_fields=("application_kind", "processing"),
    amend=("change_processing_speed", ("processing",)),
    withdraw="withdraw_passport_application",
    states=("lodged", "in_process", "printed", "refused", "withdrawn"),
    extra_states=("mailed",),
)
PASSPORTS = Service.composed(
    "passport_appointment_line",
    "Federal passport appointment line",
    DOMAIN,
    "The agent helps travellers book, move and cancel acceptance appointments, lodge passport applications, "
    "switch processing speed, and withdraw applications.",
    _travellers,
    profile(_travellers, "mailing_address"),
    _offices,
    reservation(
        _travellers,
        Noun("acceptance_appointment"),
        _offices.resources[0],
        date("appointment_date", "Day."),
        choice("time", ("08:30", "09:15", "10:00", "11:30", "13:45", "15:00"), "Time."),
        book="book_acceptance_appointment",
        book_fields=("appointment_date", "time"),
        reschedule=("move_acceptance_appointment", ("appointment_date", "time")),
        cancel="cancel_acceptance_appointment",
        states=("booked", "reminded", "attending", "documents_accepted", "cancelled"),
    ),
    _applications,
    out_of_scope=(
        "a visa for my trip to Brazil",
        "my passport delivered to my hotel abroad",
        "my name spelled differently from my birth certificate",
        "a second passport for business travel",
        "the status of my husband's application",
        "my photo retaken at home by an officer",
    ),
    identify_by=(("email",), ("first_name", "last_name", "date_of_birth")),
)

# --------------------------------------------------------------------------- bulky waste / recycling

_households = people(
    Noun("household"),
    "Households on the city's collection service.",
    text("street_address", "Address.", "14 Linden Ave", "3 Brook Close", "560 Market St", "21 Alder Way"),
    choice("collection_day", ("monday", "tuesday", "wednesday", "thursday", "friday"), "Weekly bin day."),
)
_item_kinds = catalog(
    Noun("bulky_item_kind"),
    "What the bulky waste crew collects.",
    text(
        "item_label",
        "Item.",
        "Mattress",
        "Sofa",
        "Fridge or freezer",
        "Washing machine",
        "Television",
        "Desk",
    ),
    money("fee_per_item", 0, 45, "Fee per item in US dollars."),
    flag("needs_degassing", "Whether it holds refrigerant."),
    rows=(6, 8),
)
_bins = owned(
    _households,
    Noun("bin"),
    "Bins delivered to the household.",
    choice("stream", ("landfill", "recycling", "garden_waste", "food_waste"), "What goes in it."),
    choice("bin_size", ("small_80l", "standard_140l", "large_240l"), "Size."),
    edit="change_bin_size",
    edit_fields=("bin_size",),
)
BULKY_WASTE = Service.composed(
    "bulky_waste_pickup",
    "Clearwater city bulky waste and recycling line",
    DOMAIN,
    "The agent helps households book, change and cancel bulky item collections, swap bin sizes, and report, "
    "escalate or close missed collection reports.",
    _households,
    profile(_households),
    _item_kinds,
    _bins,
    orders(
        _households,
        Noun("pickup"),
        _item_kinds.resources[0],
        integer("item_count", 1, 6, "How many items."),
        date("pickup_date", "Collection day."),
        text("placement", "Where the items are left.", "front kerb", "side alley", "driveway", "back lane"),
        place="book_pickup",
        place_fields=("item_count", "pickup_date", "placement"),
        change=("change_pickup", ("item_count", "pickup_date")),
        cancel="cancel_pickup",
        states=("requested", "scheduled", "on_route", "collected", "cancelled", "missed_by_crew"),
    ),
    tickets(
        _households,
        Noun("missed_collection"),
        choice(
            "bin_stream", ("landfill", "recycling", "garden_waste", "food_waste"), "Which bin was missed."
        ),
        date("missed_on", "Day it was missed."),
        open_="report_missed_collection",
        open_fields=("bin_stream", "missed_on"),
        escalate="escalate_missed_collection",
        close="close_missed_collection",
        states=("logged", "crew_notified", "collected_late", "closed"),
    ),
    out_of_scope=(
        "asbestos removed from my garage",
        "a skip delivered for my renovation",
        "my neighbour fined for fly-tipping",
        "my council tax reduced because the bins are late",
        "hazardous chemicals collected from my shed",
        "a street sweeper sent to my road",
    ),
    identify_by=(("email",), ("first_name", "last_name", "phone")),
)

SERVICES = [
    PUBLIC_LIBRARY,
    REGISTRAR,
    TUTORING,
    LANGUAGE_SCHOOL,
    DAYCARE,
    MUSIC_LESSONS,
    ONLINE_COURSES,
    TEST_CENTRE,
    PERMITS,
    PARKS,
    PASSPORTS,
    BULKY_WASTE,
]
