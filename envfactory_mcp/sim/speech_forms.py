"""The demonstrator's phrasings, as data: the parts every dialogue act of its varied voice is
composed from (``sim/speech.Speaker`` draws and joins them; this module holds no logic).

Each list is one slot of a form; ``speech._forms`` joins one string from each slot, so a
form's variety is the product of its slots'. Placeholders: ``{what}`` the identity details
asked for, ``{label}`` a field in words, ``{action}`` the action in words, ``{subject}`` what
it is about, ``{act}`` an action the agent cannot do, ``{reason}`` the policy's reason in
words, ``{cond}`` a condition, ``{request}``/``{Request}`` a request handed to a person.

Rules every form keeps (tests check them): the agent's own voice (never the customer's
"my"), no generator word, a yes-question that ``scoring.policy.asks_confirmation`` reads as
a request for consent, a close that is an offer of more help (never a request for consent).
"""

from __future__ import annotations

# ---------------------------------------------------------------- greeting

GREET_HI = ["Hi", "Hello", "Hi there", "Thanks for reaching out", "Thanks for getting in touch", "Good to hear from you",
            "Thanks for contacting us", "Hello and thanks for writing in", "Welcome", "Good day",
            "Thanks for your message", "Nice to hear from you", "Hey there", "Good to have you here",
            "Hello, and welcome", "Glad you wrote in", "Many thanks for your message", "Greetings"]  # fmt: skip
GREET_HELP = ["I can help with that", "I'd be glad to help", "I'll be happy to look into this",
              "let's get this sorted out", "I can take care of that for you", "I'm glad to assist",
              "I'll look into it right away", "we can sort this out together", "you've come to the right place",
              "this is something I can handle", "let's see what we can do", "I'm on it",
              "happy to take a look", "let me see to it", "that's exactly what I'm here for",
              "we'll get it done", "count me in", "that shouldn't take long", "leave it with me",
              "consider it in hand", "we'll have a look together", "that sounds very doable",
              "we'll work through it", "glad to be of service"]  # fmt: skip

# ---------------------------------------------------------------- who the customer is

IDENTITY_LEAD = ["First", "Before I look into this", "To get started", "Before I pull anything up",
                 "So I can find your records", "Before we go any further", "To begin",
                 "Just so I'm looking at the right profile", "For security", "As a first step",
                 "Before anything else", "To bring up your details", "To start with",
                 "So that I open the right file", "Our policy asks me to check first, so",
                 "Step one is identification, so", "Quick security check", "To locate your profile"]  # fmt: skip
IDENTITY_ASK = ["could you give me {what}", "may I have {what}", "could you share {what}", "can you tell me {what}",
                "would you mind sharing {what}", "what is {what}", "please send me {what}",
                "I'll need {what}", "would you pass along {what}", "could I trouble you for {what}",
                "what's {what}", "might I ask for {what}"]  # fmt: skip
IDENTITY_WHY = ["", " so I can verify who I'm speaking with", " to verify your identity", " so I can look you up",
                " to confirm it's you", " to pull up your file", " for verification",
                " so the records match", " to find your profile"]  # fmt: skip

# ---------------------------------------------------------------- a detail the next step needs

DETAIL_LEAD = ["", "Before I go ahead, ", "One thing first: ", "So I get this right, ", "Just to be sure, ",
               "To set this up, ", "Quick question: ", "One more thing: ", "Before I continue, ",
               "To finish this off, ", "Almost there; ", "Good. Next, ",
               "Right, and ", "Now, ", "For this step, "]  # fmt: skip
DETAIL_ASK = ["which {label} would you like to use?", "which {label} should I use?", "which {label} do you mean?",
              "could you tell me which {label} you'd like?", "which {label} did you have in mind?",
              "which {label} are we talking about?", "which {label} works best for you?",
              "which {label} shall I put this on?", "which {label} is it?", "which {label} would you prefer?"]  # fmt: skip
VALUE_ASK = ["what should the {label} be?", "could you tell me the {label}?", "what {label} would you like?",
             "what's the {label} you'd like me to use?", "can you let me know the {label}?",
             "what {label} should I put down?", "which {label} would suit you?",
             "what {label} are you after?", "what would you like the {label} to be?",
             "what {label} do you need?"]  # fmt: skip
REASON_ASK = ["may I ask the reason?", "what's the reason for this?", "could you tell me the reason?",
              "can I ask the reason behind it?", "what is the reason, if you don't mind me asking?",
              "could you let me know the reason for it?", "what's the reason behind the request?",
              "what is your reason for it?", "could you share the reason?", "can you tell me the reason for this?"]  # fmt: skip
ADDRESS_ASK = ["what is the new address, with street, city, state, zip code and country?",
               "could you give me the full new address (street, city, state, zip code and country)?",
               "where should it go (street, city, state, zip code and country)?",
               "what's the new address? Street, city, state, zip code and country, please.",
               "which address should I use? I'll need the street, city, state, zip code and country."]  # fmt: skip

# ---------------------------------------------------------------- a proposal and its yes-question

CONFIRM_LEAD = ["To confirm, ", "Just to be sure, ", "Before I make the change, ", "So we're on the same page, ",
                "Let me check with you first: ", "Okay, ", "Alright, ", "Here's the plan: ", "Right, ",
                "Let me run this by you: ", "Before I touch anything, ", "If I've understood correctly, ",
                "Good, everything checks out. ", "Thanks. ", "Got it. ", "Understood. ", "Perfect. ",
                "From what you've said, ", "So, ", "With that, "]  # fmt: skip
CONFIRM_BODY = ["I'll {action}", "I'm going to {action}", "I will {action}", "the next step is to {action}",
                "I'm about to {action}", "the next step would be to {action}", "I'd {action}",
                "I can {action} right away", "what I'll do is {action}", "I'm set to {action}", "I'm ready to {action}", "this would {action}", "the plan is to {action}"]  # fmt: skip
YES_LEAD = ["", "So, ", "Then ", "Now, ", "If that's right, ", "And "]
YES_ASK = ["shall I go ahead?", "is that okay with you?", "should I proceed?", "do you want me to go ahead?",
           "okay to proceed?", "would you like me to proceed?", "is that correct?", "shall I do that?",
           "should I go ahead with it?", "can you confirm?", "are you happy for me to go ahead?",
           "is it okay to go ahead?", "shall I make it happen?", "do you want me to confirm it?",
           "is that fine by you?", "should I finalise it?", "shall I carry on?", "would you like me to do that?",
           "does that sound right?", "does that look right to you?", "how does that sound?",
           "do I have your go-ahead?", "may I proceed?", "is that what you'd like?", "does that work for you?",
           "sound good?", "are you okay with that?", "can I go ahead?", "shall I put it through?",
           "are you good with that?", "all right with you?", "okay with that?", "is that acceptable?",
           "do you agree?", "happy with that?", "does everything look correct?", "any objection if I proceed?",
           "do you approve?", "are we good to continue?", "is this what you want done?", "is that agreeable?",
           "fine to proceed?", "are you comfortable with this?", "is that alright?", "good to submit?",
           "may I put this through?", "okay to make the change?", "would that be fine?"]  # fmt: skip
# The whole proposal as one question ({action}: the action in words).
CONFIRM_QUESTION = ["Shall I {action}?", "Would you like me to {action}?", "Do you want me to {action} now?",
                    "Should I go ahead and {action}?", "Shall I go ahead and {action}?",
                    "Can you confirm you'd like me to {action}?", "Just to confirm: should I {action}?",
                    "Are you sure you'd like me to {action}?", "Okay to {action}?",
                    "May I {action}?", "Are you happy for me to {action}?", "Is it alright if I {action}?",
                    "Do I have your go-ahead to {action}?", "Can I {action} for you?", "Is it okay if I {action}?",
                    "Would it be alright to {action}?", "Am I clear to {action}?", "Okay if I {action} now?",
                    "Is it fine to {action}?", "All right if I {action}?", "Do you approve if I {action}?",
                    "Should I {action} then?", "So, may I {action} now?",
                    "Do you agree that I should {action}?"]  # fmt: skip
CONFIRM_QUESTION_SHARE = 0.35  # how often a proposal is one question rather than a statement and a question

# ---------------------------------------------------------------- results

DONE_LEAD = ["", "Done: ", "There we go: ", "That's taken care of: ", "Thanks for confirming; ", "All set: ",
             "Thanks, that went through: ", "It's done, and ", "Okay, that's through: ", "Good news: ",
             "Right, ", "That worked: ", "I've taken care of that: ", "Perfect, ", "Success: ", "All done: ",
             "That's sorted: ", "Finished. ", "The system accepted it: ", "Great, ", "Complete: ",
             "It went through without a hitch: "]  # fmt: skip
FOUND_LEAD = ["", "I've checked, and ", "I looked it up: ", "Here's what I found: ", "According to our records, ",
              "I can see that ", "Our records show that ", "From what I can see, ", "On my screen, ",
              "Having checked, ", "I've pulled it up: ", "The system shows that ", "I had a look, and ",
              "Looking at it now, ", "It says here that ", "From the account, ", "Checking now: "]  # fmt: skip
UPDATED = ["{subject} has been updated", "{subject} is updated", "the change to {subject} went through",
           "{subject} now has the change", "I've made the change to {subject}", "the update to {subject} is in",
           "I've updated {subject}", "{subject} reflects the change now", "your request for {subject} went through",
           "{subject} is sorted", "{subject} is changed as agreed", "the change is saved on {subject}",
           "{subject} now carries the new details"]  # fmt: skip

# ---------------------------------------------------------------- refusals, conditions, hand-offs

REFUSE = ["I'm sorry, but I can't {act}: {reason}.", "Unfortunately I'm not able to {act}, because {reason}.",
          "I'm afraid I can't {act}, since {reason}.", "I can't {act} here, I'm sorry: {reason}.",
          "That's one thing I can't do: I'm unable to {act} because {reason}.",
          "I'm sorry, I'm not able to {act}; {reason}.", "Regrettably, I can't {act}, as {reason}.",
          "I have to say no to that: I can't {act}, because {reason}.",
          "The rules don't let me {act}: {reason}.", "I wish I could {act}, but {reason}.",
          "Our policy stops me from being able to {act}; {reason}."]  # fmt: skip
UNMET = ["Since it is not {cond}, I can't {act}; that's where it stands.",
         "Because it isn't {cond}, I'm not able to {act}, so that's where things are.",
         "It isn't {cond}, so I can't {act}; that's the current state.",
         "As it's not {cond}, I'm unable to {act}, and that's where it stands.",
         "I can't {act} because it is not {cond}, so it stays as it is.",
         "It's no longer {cond}, which rules out being able to {act}; that's the situation.",
         "Being no longer {cond}, it can't be changed that way, so I won't {act}."]  # fmt: skip
MET = ["{subject} is {cond}, so I can go ahead with that.", "{subject} is {cond}, which means I can do that.",
       "Good news: {subject} is {cond}, so that's possible.", "{subject} is {cond}, so there's no problem there.",
       "I checked: {subject} is {cond}, so we can do it.", "{subject} is still {cond}, so this is doable.",
       "{subject} is {cond}, which keeps that option open."]  # fmt: skip
INSTEAD = ["{subject} does not qualify for that, so as you asked I'll {act} instead.",
           "{subject} isn't eligible for that; as you asked, I'll {act} instead.",
           "That isn't possible for {subject}, so, as you said, I'll {act} instead.",
           "{subject} doesn't qualify, so I'll {act} instead, as you asked.",
           "As {subject} can't have that, I'll follow your fallback and {act}."]  # fmt: skip
TRANSFER = ["I'm not able to arrange {request} myself, so I've transferred you to a human agent; they will follow up "
            "with you.",
            "{Request} is outside what I can do here, so I've handed your case to a human agent, who will get in "
            "touch.",
            "I can't handle {request} from here, so I've passed your case to a human agent who can; they'll "
            "contact you.",
            "For {request} you'll need one of my colleagues: I've transferred you to a human agent, and they'll "
            "reach out shortly.",
            "That one needs a person: I've escalated {request} to a human agent, who will be in touch with you.",
            "{Request} needs a person's decision, so I've transferred you to a human agent; expect to hear from "
            "them soon."]  # fmt: skip

# ---------------------------------------------------------------- close

CLOSE_LEAD = ["", "Before you go, ", "Now, ", "Alright, ", "Okay, ", "And ", "Lastly, ", "So, ", "Meanwhile, ",
              "While I have you, "]  # fmt: skip
CLOSE_CORE = ["is there anything else I can help you with?", "anything else I can do for you today?",
              "is there something else you'd like me to look at?", "can I help with anything else?",
              "what else can I do for you?", "do you need help with anything else?",
              "is there anything more I can look into for you?", "anything else on your list?",
              "is there anything else you need from me?", "can I do anything else for you today?",
              "is there any other matter I can help with?", "was there something further you needed?",
              "can I assist with something more?", "is that everything for today?",
              "does that cover what you needed?", "shall we look at something else too?",
              "do you have any other questions?", "is there more you'd like to sort out?",
              "what more can I sort out for you?", "any other questions on your mind?",
              "is there some other thing worth checking?", "has that answered everything?",
              "did you need anything further?", "any further questions I can answer?"]  # fmt: skip

# ---------------------------------------------------------------- the action's verb, said otherwise

# Other verbs the agent may use for the first verb of an intent ("change the shipping address
# of order #W1" -> "update the shipping address of order #W1"); the rest of the intent is kept.
# Only words that mean the same act in an agent's mouth.
AGENT_VERBS: dict[str, tuple[str, ...]] = {
    "change": ("change", "update", "modify", "amend"), "update": ("update", "change", "amend"),
    "modify": ("modify", "change", "update"), "cancel": ("cancel", "call off"),
    "book": ("book", "reserve", "arrange"), "reserve": ("reserve", "book"), "buy": ("buy", "purchase", "add"),
    "purchase": ("purchase", "buy"), "pay": ("pay", "settle"), "suspend": ("suspend", "pause"),
    "resume": ("resume", "reactivate", "restart"), "reopen": ("reopen",), "close": ("close", "close out"),
    "report": ("report", "log", "file a report about"), "turn on": ("turn on", "switch on", "enable"),
    "turn off": ("turn off", "switch off", "disable"), "enable": ("enable", "turn on", "switch on"),
    "disable": ("disable", "turn off", "switch off"), "schedule": ("schedule", "set up", "arrange"),
    "create": ("create", "set up", "open"), "submit": ("submit", "send in", "file"),
    "renew": ("renew", "extend"),
    "return": ("return", "send back"), "exchange": ("exchange", "swap"), "upgrade": ("upgrade",),
    "request": ("request", "put in for"), "register": ("register", "sign up"), "transfer": ("transfer", "move"),
    "get": ("get", "arrange"), "add": ("add", "include", "set up"),
}  # fmt: skip

# Other names for the thing acted on, when the agent names it by its number ("reservation
# KSQ27B" -> "booking KSQ27B", "phone number 5034912018" -> "line 5034912018").
AGENT_NOUNS: dict[str, tuple[str, ...]] = {
    "reservation": ("reservation", "booking", "booking reference", "reservation code"),
    "phone number": ("phone number", "number", "line"),
    "support ticket": ("support ticket", "ticket"),
    "ticket": ("ticket", "support ticket"),
    "appointment": ("appointment", "booking"),
}

# Other words for a detail the agent asks for, each keeping a word of the field's name so the
# customer knows what is meant ("payment method" -> "form of payment").
LABEL_WORDS: dict[str, tuple[str, ...]] = {
    "payment method": ("payment method", "form of payment", "payment option", "payment method on file",
                       "method of payment"),
    "passenger": ("passenger", "passenger on the booking"),
    "cabin": ("cabin", "cabin class", "class of cabin"),
    "reason": ("reason", "reason for it"),
    "total bags": ("number of bags", "total number of bags", "bag count"),
    "plan": ("plan", "plan option"),
}  # fmt: skip

# A field's name, where it is not what a person says (``tasks.naturalness.names_tool_or_field``),
# in the words a person would use instead ("the balance still due", not "the balance due").
FIELD_WORDS: dict[str, tuple[str, ...]] = {
    "balance due": ("balance still due", "amount still owing", "balance left to pay"),
    "effective date": ("date it takes effect", "date it kicks in"),
    "payoff charge": ("charge to pay it off", "cost of paying it off"),
    "monthly installment": ("installment each month", "payment each month"),
    "monthly price": ("price per month", "cost each month"),
    "active outages": ("current outages",),
}
# A field's first word that says how often ("monthly price" -> "price per month").
PER_PERIOD = {"monthly": "per month", "daily": "per day", "weekly": "per week", "yearly": "per year",
              "annual": "per year", "hourly": "per hour", "nightly": "per night"}  # fmt: skip
