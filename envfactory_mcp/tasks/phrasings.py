"""Word and phrase tables of the offline realiser (``tasks.realise``): data only, no logic.

Placeholders: ``{do}`` a verb phrase built from the goal's intent ("cancel order #W0012345"),
``{r}`` a reason clause ("it was ordered by mistake"), ``{ref}``/``{role}``/``{id}`` a
reference, ``{items}``/``{order}``/``{old}``/``{new}`` items, ``{pay}`` a payment method,
``{addr}`` an address line, ``{words}``/``{text}`` a plain detail, ``{first}``/``{full}`` the
customer's name. The realiser capitalises sentence starts itself, so a template may begin
with a placeholder. Nothing here may name a tool ("calculate" is one) or a parameter key.
"""

from __future__ import annotations

from dataclasses import dataclass

from envfactory_mcp.tasks.addresses import ADDRESS_PARTS as _ADDRESS_PARTS

# fmt: off
# The tables are packed several phrases to a line, to be read and extended as lists.


@dataclass(frozen=True)
class Voice:
    """How one persona style talks: its own frames are mixed with the common ones."""

    greetings: tuple[str, ...]  # "" = no greeting; a trailing comma runs into the next sentence
    requests: tuple[str, ...]  # frames for doing something, with {do}
    asks: tuple[str, ...]  # frames for asking something, with {do}
    moods: tuple[str, ...]  # a sentence of tone, now and then
    closers: tuple[str, ...]
    signoffs: tuple[str, ...]  # with {first} / {full}
    identity_rate: float  # how often this person says who they are up front
    hedges: tuple[str, ...] = ()  # put before a reason ("I think it was ...")


VOICES: dict[str, Voice] = {
    "polite and patient": Voice(
        greetings=(
            "Hello,", "Hi there,", "Good morning,", "Good afternoon,", "Good evening,", "Hello there,",
            "Hello, I hope you're having a good day.", "Hi, thank you for taking the time to help.",
            "Hi, I hope you're well.",
        ),
        requests=(
            "Could you please {do}?", "Would you kindly help me {do}?", "If it's no trouble, I'd like to {do}.",
            "I'd be grateful if you could help me {do}.", "When you have a moment, could you {do}?",
            "I wonder if you could help me {do}.", "May I ask you to help me {do}?",
            "I would really appreciate your help to {do}.",
        ),
        asks=(
            "Would you be so kind as to {do}?", "Could you please {do} and let me know what you see?",
            "If you don't mind, I'd like to {do}.", "May I ask you to {do}?",
        ),
        moods=("I hope this is a simple one.", "There's no rush on my end.", "Take your time."),
        closers=(
            "Thank you so much.", "Thanks in advance for your help.", "I really appreciate it.", "Many thanks.",
            "Thank you for your time.", "Have a lovely day.", "Thank you kindly.", "I'm grateful for your help.",
        ),
        signoffs=("Kind regards, {full}", "Best wishes, {first}", "Thank you, {first}", "Warmly, {full}"),
        identity_rate=0.5,
    ),
    "brief and to the point": Voice(
        greetings=("", "", "", "Hi,", "Hello,", "Hey,"),
        requests=(
            "{do}, please.", "Need to {do}.", "{do}.", "Please {do}.", "Want to {do}.", "Looking to {do}.",
            "Just need to {do}.",
        ),
        asks=("{do}, please.", "Need to {do}.", "Can you {do}?", "Quick one: {do}?"),
        moods=(),
        closers=("", "", "Thanks.", "Thx.", "Ty.", "That's all.", "Cheers."),
        signoffs=("{first}", "Thanks, {first}", "{full}"),
        identity_rate=0.35,
    ),
    "a little impatient": Voice(
        greetings=(
            "Hi,", "", "Hello.", "Hi, I don't have much time, so let's be quick.", "Okay,", "Right,",
            "Hi, let's make this fast.",
        ),
        requests=(
            "I need to {do}, and I'd like it done quickly.", "Can you just {do}?", "I need you to {do} right away.",
            "Please {do} as soon as possible.", "I've been trying to {do} for a while now.",
            "I just want to {do}, nothing complicated.", "How fast can you {do}?",
            "I need to {do} today, no delays.", "Let's just {do}.",
        ),
        asks=(
            "Can you just {do}?", "I need to {do}, quickly please.", "Please {do} right now.",
            "I'd like to {do} without waiting around.",
        ),
        moods=("I'm in a hurry.", "I've already spent too long on this.", "Let's keep this quick.",
               "I really don't have time for a long back-and-forth."),
        closers=(
            "Please be quick.", "Thanks.", "I'd appreciate a fast answer.", "", "Let's get this done.",
            "Hope this won't take long.", "Waiting on you.",
        ),
        signoffs=("{first}", "Thanks, {first}", "{full}"),
        identity_rate=0.4,
    ),
    "chatty and friendly": Voice(
        greetings=(
            "Hey there!", "Hi! Hope your day is going well.", "Hello hello!", "Hi there! Thanks so much for being here.",
            "Hey! Happy to reach someone.", "Good morning! Hope you're doing great.", "Hiya!",
            "Hi friend!",
        ),
        requests=(
            "So I've been meaning to {do} for a few days now.", "Okay, so I'd love to {do}.",
            "I'm hoping you can help me {do} today!", "Long story short, I need to {do}.",
            "So here's the thing: I want to {do}.", "Funny story, but I need to {do}.",
            "I'd love a hand to {do}!",
        ),
        asks=(
            "I'm super curious, could you {do}?", "So I was wondering if you could {do}!",
            "Would you mind helping me {do}? I've been wondering about it.",
            "Could you do me a favor and {do}?",
        ),
        moods=(
            "It's been a busy week, so bear with me!", "I've been meaning to sort this out for a while.",
            "You folks are always so helpful.", "I love shopping with you guys, by the way.",
        ),
        closers=(
            "Thanks a bunch!", "You're a lifesaver!", "Thanks so much, have a great day!", "Cheers!",
            "Appreciate you!", "Talk soon!", "You rock, thanks!",
        ),
        signoffs=("Cheers, {first}", "Thanks again, {first}!", "Best, {full}", "{first} :)"),
        identity_rate=0.5,
    ),
    "careful and detail-oriented": Voice(
        greetings=(
            "Hello,", "Good afternoon.", "Hello. I'd like to make sure this is handled correctly.", "Hi,",
            "Good morning.", "Dear support team,", "Hello, I have a specific request.",
        ),
        requests=(
            "I would like to {do}.", "My request is to {do}.",
            "I'd like to {do}, and I want to be sure it's done correctly.", "To be precise, I need to {do}.",
            "Specifically, I want to {do}.", "I am writing to {do}.", "Exactly what I need is to {do}.",
        ),
        asks=(
            "I would like to {do}, please.", "Could you {do} and give me the exact details?",
            "Please {do} and tell me precisely what you find.", "I'd like to {do}, with the full details.",
        ),
        moods=("I want to get the details exactly right.", "Let me be precise about this.",
               "I've checked my records carefully."),
        closers=(
            "Please confirm the details before making any changes.", "Please let me know once it's done.",
            "Thank you.", "Let me know if anything needs verifying.",
            "Please double-check everything before you go ahead.", "I'd appreciate a confirmation.",
        ),
        signoffs=("Regards, {full}", "Sincerely, {full}", "Thank you, {full}"),
        identity_rate=0.7,
    ),
    "unsure and hesitant": Voice(
        greetings=(
            "Hi,", "Hello,", "Hi, I hope this is the right place.", "Hello... can you help?", "Um, hi.",
            "Hi, sorry to bother you.", "Hello, I'm a bit lost.",
        ),
        requests=(
            "I think I need to {do}?", "I'm not totally sure how this works, but I'd like to {do}.",
            "Would it be possible to {do}? I'm not sure if that's allowed.", "Um, I was hoping to {do}.",
            "Sorry, I'm not sure who to ask, but can I {do}?", "I might need to {do}, if that makes sense.",
            "Is this where I can {do}?", "I'm sorry, but I'd like to {do}.",
        ),
        asks=(
            "I'm not sure, but could you {do}?", "Maybe you can help me {do}?",
            "I was hoping you could {do}, if that's okay.", "Sorry, is it possible to {do}?",
        ),
        moods=("I've never done this before.", "Sorry, I'm not great with these things.",
               "Not sure I'm asking the right way.", "I find all this a bit confusing."),
        closers=(
            "Sorry if this is confusing.", "Thanks, and sorry for the trouble.", "Does that make sense?",
            "Thank you, I think that's everything.", "Sorry, and thank you.", "Thanks for your patience.",
        ),
        signoffs=("Thanks, {first}", "{first}"),
        identity_rate=0.3,
        hedges=("I think ", "I guess ", "I believe "),
    ),
}
DEFAULT_STYLE = "polite and patient"

COMMON_REQUESTS = (
    "I'd like to {do}.", "I need to {do}.", "I want to {do}.", "I'm here to {do}.", "Can somebody help me {do}?",
    "My goal today is to {do}.", "You'd be a big help if you could {do}.", "Is it doable to {do}?", "Can you help me {do}?", "Could you {do} for me?",
    "I'm writing to {do}.", "I'm reaching out to {do}.", "Is it possible to {do}?", "Would you be able to {do}?",
    "I'd appreciate it if you could {do}.", "Please {do}.", "I'm looking to {do}.", "Can I {do}?",
    "I was hoping to {do}.", "What I need today is to {do}.", "I'm getting in touch to {do}.",
    "Any chance you could {do}?", "I've got to {do}.", "Could I {do}?", "Help me {do}, please.",
    "I'd like your help to {do}.", "Is there a way to {do}?", "I'm contacting you to {do}.",
    "I've decided I want to {do}.", "Would it be okay to {do}?", "Are you able to {do}?",
    "I'm trying to {do}.", "Can we {do}?", "Hoping you can help me {do}.", "I've made up my mind to {do}.",
)
COMMON_ASKS = (
    "Could you {do} for me?", "Can you {do}?", "I'd like to {do}.", "I want to {do}. What can you see on your end?",
    "I'm trying to {do}. Can you tell me what you find?", "Would you mind helping me {do}?",
    "Can you help me {do}? I'd like to know where things stand.", "I'm wondering if you can help me {do}.",
    "Quick question: can you {do}?", "I just need to {do}. What does it say?", "I'd like some help to {do}.",
    "Is there any way you could {do}?", "Could you take a look and {do}?", "Can you {do}? Just curious.",
    "I was hoping to {do}. Anything you can tell me helps.", "Are you able to {do}?",
    "I've been meaning to {do}. Can you see anything?", "Can you please {do}? I'm curious what it shows.",
    "Mind if I ask you to {do}?", "Help me {do}, would you?",
)
STYLE_SHARE = 0.5  # how often a frame comes from the style's own list rather than the common one

# Other ways to say a known intent (the tool's user phrase); an intent not listed is used as it is.
# Each keeps the nouns the realiser works references into ("my order", "items", "a different method").
INTENT_PARAPHRASES: dict[str, tuple[str, ...]] = {
    "cancel an order": ("cancel an order", "cancel my order", "get my order cancelled", "cancel this order"),
    "check on my order": (
        "check on my order", "find out what's happening with my order", "see where my order is",
        "get an update on my order", "get the status of my order", "look into my order",
    ),
    "change my default address": (
        "change my default address", "update the address on my account", "change my saved address",
        "update my home address", "put a new address on my account", "update the address on file",
        "change my mailing address",
    ),
    "change the shipping address of my order": (
        "change the shipping address of my order", "send my order to a different address",
        "have my order shipped somewhere else", "update where my order is going",
        "change where my order ships to",
    ),
    "return items I received": (
        "return items I received", "send back items I received", "return some items",
        "send some items back", "return items I got",
    ),
    "exchange items I received": (
        "exchange items I received", "exchange some items", "exchange items I got",
    ),
    "change the items of my order": (
        "change the items of my order", "change items in my order", "swap items in my order",
        "switch items in my order",
    ),
    "pay for my order with a different method": (
        "pay for my order with a different method", "pay for my order with another card",
        "use a different payment method for my order", "switch my order to a different payment method",
    ),
    "tell me where it stands": (
        "tell me where it stands", "let me know its status", "tell me what state it's in",
        "fill me in on where it is", "tell me how it's doing",
    ),
    "work out an amount": ("work out an amount", "figure out an amount", "work out a total", "do a quick sum"),
}

# Situations: what brought the customer here, before the request, by the verb of the goal's
# intent ({thing}: what the goal is about, "my ski rental", "my line"). General words only:
# every environment's goals are said with them.
SITUATIONS: dict[str, tuple[str, ...]] = {
    "cancel": (
        "my plans have changed and I won't need {thing} after all.", "something came up, so {thing} isn't happening anymore.",
        "it turns out I don't need {thing}.", "I've had a change of plans about {thing}.",
        "I've thought it over and I don't want {thing} anymore.", "things have changed on my end and {thing} no longer works for me.",
        "I won't be able to use {thing} after all.", "I made {thing} a while ago but my situation is different now.",
    ),
    "return": (
        "{thing} didn't work out for me.", "I'm not happy with {thing}.", "{thing} isn't what I expected.",
        "I've had {thing} for a bit and it's just not right for me.", "I've decided {thing} isn't for me.",
        "{thing} turned out to be a disappointment.", "I've changed my mind about {thing}.",
    ),
    "exchange": (
        "{thing} isn't quite right for me.", "I picked the wrong one when I got {thing}.",
        "{thing} is close, but not what I wanted.", "I've realised {thing} isn't the version I need.",
        "{thing} doesn't suit me as it is.", "I had second thoughts about {thing}.",
    ),
    "address": (
        "I've moved recently.", "I won't be at my usual address for a while.", "my address has changed.",
        "I'm staying somewhere else at the moment.", "we just moved house.", "I relocated last month.",
        "I'm in the middle of a move.", "I've got a new place now.", "I'm not living at the old address anymore.",
        "I moved across town a few weeks ago.", "I'll be at a different address from now on.",
        "my old address isn't current anymore.",
    ),
    "pay": (
        "{thing} came in and I'd like to settle it.", "I've got {thing} to take care of.",
        "I don't want {thing} to go overdue.", "I saw {thing} and want to sort it out now.",
        "{thing} is due soon and I'd rather not forget.", "I'm catching up on {thing}.",
    ),
    "book": (
        "I'm planning ahead.", "I've got something coming up and I'd like to be ready.",
        "I've been meaning to sort this out for a while.", "I'm getting organised for the coming weeks.",
        "a friend recommended you.", "I've made up my mind and want to get it booked.",
    ),
    "change": (
        "some of the details of {thing} are out of date.", "my situation has changed since I set up {thing}.",
        "I made a mistake when I set up {thing}.", "{thing} doesn't quite fit what I need anymore.",
        "I've had second thoughts about how {thing} is set up.", "something about {thing} needs fixing.",
    ),
    "report": (
        "something's wrong with {thing}.", "I've run into a problem with {thing}.", "{thing} has been giving me trouble.",
        "I ran into an issue with {thing}.", "things haven't been right with {thing} lately.",
        "there's a problem with {thing} I need to tell you about.",
    ),
    "close": (
        "the issue with {thing} has been sorted out.", "I don't need {thing} open anymore.",
        "everything about {thing} is fine now.", "the problem behind {thing} went away.",
        "I'm done with {thing}.",
    ),
    "reopen": (
        "the problem behind {thing} is back.", "I thought {thing} was settled, but it isn't.",
        "the issue in {thing} came back this week.", "{thing} was closed too soon.",
        "the fix for {thing} didn't hold.",
    ),
    "escalate": (
        "{thing} has been dragging on with no progress.", "nobody seems to be moving {thing} along.",
        "I've waited a long time on {thing}.", "{thing} is taking far too long.",
        "I'm getting frustrated with how {thing} is going.",
    ),
    "suspend": (
        "I'll be away for a while.", "I won't be using {thing} for some time.", "I need to put {thing} on pause.",
        "I'm taking a break for a few months.", "money's a bit tight right now.",
    ),
    "resume": (
        "I'm back and need {thing} working again.", "my break is over.", "I'm ready to use {thing} again.",
        "I'm home again.", "the pause on {thing} can end now.",
    ),
    "upgrade": (
        "{thing} is getting old.", "I'm ready for something newer than {thing}.", "{thing} has been struggling lately.",
        "I've had {thing} for years.", "I'd like something better than {thing}.",
    ),
    "add": (
        "I realised I need a bit more.", "my plans grew since I set up {thing}.", "I'll need more than I thought.",
        "I underestimated what I'd need for {thing}.", "it turns out {thing} needs a little extra.",
    ),
    "check": (
        "I haven't heard anything about {thing} in a while.", "I'm trying to keep track of {thing}.",
        "I'm not sure where things stand with {thing}.", "I'd like to know what's happening with {thing}.",
        "I've been wondering about {thing}.", "I want to make sure {thing} is on track.",
        "I'm curious about {thing}.",
    ),
    "pick": (
        "I'm on my way over.", "I'm about to come by for {thing}.", "I'm ready to collect {thing}.",
        "I'm heading over today for {thing}.",
    ),
    "enable": (
        "I've got a trip coming up.", "I'll need {thing} set up differently soon.",
        "something's coming up and I'll need this.", "I'm heading abroad next week.",
    ),
    "disable": (
        "I'm back home now.", "I don't need that on {thing} anymore.", "I'd like to keep costs down on {thing}.",
    ),
}
# The verb of an intent -> its situation family (an intent whose verb is not here gets none).
SITUATION_VERBS = {
    "cancel": "cancel", "void": "cancel", "withdraw": "cancel", "drop": "cancel", "delete": "cancel",
    "return": "return", "refund": "return", "send": "return",
    "exchange": "exchange", "swap": "exchange", "replace": "exchange", "switch": "exchange",
    "pay": "pay", "settle": "pay",
    "book": "book", "reserve": "book", "schedule": "book", "create": "book", "open": "book", "order": "book",
    "enroll": "book", "register": "book", "sign": "book", "join": "book", "request": "book", "apply": "book",
    "change": "change", "update": "change", "modify": "change", "edit": "change", "set": "change",
    "move": "change", "rename": "change", "adjust": "change", "reschedule": "change", "extend": "change",
    "report": "report", "file": "report", "submit": "report", "log": "report", "flag": "report",
    "close": "close", "resolve": "close", "archive": "close",
    "reopen": "reopen", "escalate": "escalate",
    "suspend": "suspend", "pause": "suspend", "freeze": "suspend", "hold": "suspend",
    "resume": "resume", "reactivate": "resume", "unfreeze": "resume", "restore": "resume", "renew": "resume",
    "upgrade": "upgrade", "add": "add", "buy": "add", "purchase": "add", "top": "add",
    "check": "check", "see": "check", "get": "check", "look": "check", "find": "check", "list": "check",
    "track": "check", "view": "check", "show": "check", "tell": "check",
    "pick": "pick", "collect": "pick", "turn": "enable", "enable": "enable", "activate": "enable",
    "disable": "disable", "deactivate": "disable",
}
SITUATION_SHARE = 0.75
SITUATION_TAILS = (", so I'm reaching out.", ", which is why I'm writing.", ", hence this message.", ", so here I am.",
                   " and I'd like to get it sorted.", ", so I need a hand.", ", and I'd like to deal with it now.",
                   ", so I figured I'd ask.", " and it's been on my mind.", ", if that makes sense.")
SITUATION_TAIL_SHARE = 0.45  # how often a request is preceded by what brought the customer here

# Verbs of a tool name that a person says otherwise ("get invoice" -> "check on my invoice").
LOOKUP_VERBS = {"get": "check on", "list": "go over", "find": "look up", "search": "look for", "fetch": "check on",
                "read": "look at", "view": "look at", "lookup": "look up", "query": "look into"}

# What the user needs to be told ({x}: "the carrier and the expected arrival"), as a need.
WANTS = (
    "I'll need {x} for my records.", "could you tell me {x} once you've looked?",
    "I need {x}, it's for a form I'm filling in.", "please let me know {x}.", "what I really need to know is {x}.",
    "I have to write down {x}, so please include that.", "and I'm hoping to come away knowing {x}.",
    "I'd like to know {x} at the end.", "I need {x} before I can move on.", "can you share {x} too?",
    "someone asked me for {x}, so I need that as well.", "I want to be sure about {x}.",
)

# Other verbs for an intent no paraphrase above lists (the rest of the intent kept, so its
# nouns still take references): "cancel a ski rental" -> "call off a ski rental".
VERB_SYNONYMS: dict[str, tuple[str, ...]] = {
    "cancel": ("cancel", "call off", "drop"), "change": ("change", "adjust", "alter"),
    "update": ("update", "correct", "fix", "change"), "report": ("report", "flag", "let you know about"),
    "close": ("close", "close out", "wrap up"), "book": ("book", "reserve", "arrange"),
    "reserve": ("reserve", "book", "arrange"), "buy": ("buy", "get", "purchase"), "purchase": ("purchase", "buy", "get"),
    "pay": ("pay", "settle", "pay off"), "suspend": ("suspend", "pause", "put a hold on"),
    "resume": ("resume", "restart", "reactivate"), "upgrade": ("upgrade", "replace"),
    "escalate": ("escalate", "raise the priority of", "push for action on"), "check on": ("check on", "look into", "ask about"),
    "see": ("see", "look at", "go over"), "schedule": ("schedule", "set up", "arrange"), "create": ("create", "set up"),
    "submit": ("submit", "send in", "file"), "file": ("file", "submit", "lodge"), "renew": ("renew", "extend"),
    "remove": ("remove", "take off", "drop"), "delete": ("delete", "remove"), "request": ("request", "ask for"),
    "turn on": ("turn on", "switch on", "activate"), "turn off": ("turn off", "switch off", "deactivate"),
    "pick up": ("pick up", "collect"), "register": ("register", "sign up"), "modify": ("modify", "change", "adjust"),
    "transfer": ("transfer", "move"), "redeem": ("redeem", "use"), "refund": ("refund", "get my money back for"),
}
VERB_SYNONYM_SHARE = 0.6

# Later goals: a lead-in before the goal's first sentence, or a sentence of its own.
CONNECTORS = (
    "Also, ", "And ", "Oh, and ", "On top of that, ", "Separately, ", "While I have you, ", "Another thing: ",
    "Besides that, ", "After that, ", "Plus, ", "One more thing: ", "Next, ", "Secondly, ", "Apart from that, ",
)
TRANSITIONS = ("One more thing.", "There's something else too.", "That's not all.", "Next thing.",
               "While I'm here, something else.", "And there's one more matter.", "Something else, too.",
               "I also have another question.", "There's a second thing.", "Before I forget, one more.",
               "Oh, and another thing.", "Also, a separate matter.")
ANNOUNCEMENTS = (
    "I have {n} things to sort out.", "There are {n} things I need help with.", "I've got {n} requests today.",
    "I need help with {n} things.", "So, {n} things, if that's okay.", "I'm hoping to get {n} things sorted.",
    "bear with me, there are {n} parts to this.", "this is about {n} separate things.",
    "I have {n} questions, really.", "let me go through {n} things.", "I've got {n} things on my list.",
    "there are {n} issues I'd like to clear up.",
)
ANNOUNCE_SHARE = 0.15
# A closer made of a thanks and a tail, now and then, beside the voice's own closers.
THANKS = ("thanks", "thank you", "many thanks", "thanks a lot", "thanks so much", "thanks in advance", "thank you again",
          "big thanks", "thanks very much", "cheers")
THANKS_TAILS = ("", " for your help", " for looking into this", " for sorting this out", " for your time",
                " for checking", " for the help with this", " for getting back to me", " for handling this",
                " for taking care of it", " for your patience", " for any help")
CLOSER_SHARE = 0.6  # how often a message ends with a closer at all
WITHHELD_SHARE = 0.35  # how often a user who holds details back says so
NUMBER_WORDS = {2: "two", 3: "three", 4: "four"}
I_WORDS = ("I", "I'm", "I'd", "I've", "I'll")
# Frames that only open a turn: after "Also," or "since ..., " they read badly.
OPENING_ONLY = ("so ", "so, ", "okay", "long story", "funny story", "um,", "sorry,", "request:", "specifically",
                "to be precise", "exactly", "quick one", "here's", "need to", "want to", "looking to", "just need")

# Reasons: the clause by the shape of the value, then where it goes.
REASON_NEGATIVE = ("it's {v}", "it is {v}", "it turns out it's {v}", "it's simply {v}", "it's just {v}",
                   "it's {v} now", "it's {v} after all", "I realised it's {v}", "that one is {v}")
REASON_PARTICIPLE = ("it was {v}", "it turns out it was {v}", "it was actually {v}", "the whole thing was {v}",
                     "it was simply {v}", "I realised it was {v}", "that one was {v}", "it was all {v}")
REASON_OTHER = ("the reason is {v}", "it's because of {v}", "it comes down to {v}", "{v} is the reason",
                "it's a matter of {v}", "it's due to {v}")
REASON_UNSAID = ("it's for some other reason", "there's another reason behind it", "it's for other reasons",
                 "it's for a reason that's not on your list, so other")  # the value "other"
REASON_AFTER = (" because {r}", ", since {r}", ", as {r}")
REASON_BEFORE = ("{r}, so {s}", "since {r}, {s}", "because {r}, {s}")
REASON_ALONE = ("{r}.", "{r}, that's why.", "basically, {r}.", "to explain, {r}.", "for context, {r}.",
                "in short, {r}.", "in case you need a reason, {r}.", "just so you know, {r}.")

# References by what they are ("the order with the Desk Lamp") or by a number the user has.
NUMBERED_ROLES = ("order", "reservation", "booking", "ticket", "account", "invoice", "confirmation", "tracking")
REFERENCE = (
    "it's about {ref}.", "this is about {ref}.", "I mean {ref}.", "it concerns {ref}.",
    "I'm talking about {ref}.", "the {role} in question is {ref}.", "that's {ref}.", "it's {ref}, to be clear.",
    "the one I mean is {ref}.",
)
RAW_REFERENCE = (
    "it's {role} {id}.", "I have my {role} here, it's {id}.", "my {role} is {id}, if that helps.",
    "that's {role} {id}.", "you'll want {role} {id}.", "look for {role} {id}.", "it's under {role} {id}.",
    "{role} {id} is the one.", "my {role}? It's {id}.", "I'm looking at {role} {id} right now.",
)
NUMBERED_REFERENCE = (
    "my {role} number is {id}.", "it's {role} {id}.", "I have my {role} number here, it's {id}.",
    "for reference, it's {role} number {id}.", "it's {role} number {id}.", "my {role} number? {id}.",
    "{id} is my {role} number.", "you'll find it under {role} number {id}.", "that's {role} number {id}.",
    "it should be {role} number {id}.", "I've got {role} number {id} in front of me.",
)
# A reference the intent has no noun for, put after the verb phrase ({ref}: "phone number 3053112248").
REFERENCE_TAILS = (" for {ref}", " on {ref}", " - that's {ref}", " ({ref})", " for {ref}, please", " with {ref}",
                   ", the one being {ref}", " - I mean {ref}")
REFERENCE_TAIL_SHARE = 0.7
TOPICS = ("about {ref}: ", "regarding {ref}, ", "so, {ref}: ", "as for {ref}, ", "it's about {ref}. ",
          "I have a question about {ref}. ", "this is about {ref}. ", "I'm writing about {ref}. ",
          "concerning {ref}, ")
# Other ways to say "the [status] order with the X [from May 10]" (every must string kept).
DESCRIBED_OBJECT = (
    "the {pre}{role} with the {contents}{date}", "my {pre}{role} with the {contents}{date}",
    "the {pre}{role} containing the {contents}{date}", "the {pre}{role} that has the {contents} in it{date}",
    "my {pre}{role}{date} with the {contents}", "the {pre}{role} I placed for the {contents}{date}",
    "the {pre}{role} where I got the {contents}{date}", "that {pre}{role} with the {contents}{date}",
    "the {pre}{role} that included the {contents}{date}", "my {pre}{role} for the {contents}{date}",
)
ITEMS_ALONE_ONE = ("it's {items}.", "the item is {items}.", "I mean {items}.", "this is about {items}.")
ITEMS_ALONE_MANY = ("it's {items}.", "the items are {items}.", "I mean {items}.", "this is about {items}.")
ITEMS_FROM_ONE = ("it came in {order}.", "it's from {order}.", "that's in {order}.", "it was part of {order}.",
                  "I got it in {order}.", "it arrived with {order}.")
ITEMS_FROM_MANY = ("they came in {order}.", "they're from {order}.", "they were part of {order}.",
                   "both are in {order}.")

# The new items of a swap: every frame says plainly which are the new ones.
NEW_NO_OLD = (
    "I'd like {new} instead.", "what I want instead is {new}.", "the new one should be {new}.",
    "I'd rather have {new} instead.", "instead, I'd like {new}.", "I'd like to switch to {new}.",
    "my new pick is {new}.", "I'd prefer {new} instead.", "the replacement should be {new}.",
)
NEW_WITH_OLD = ("please swap {old} for {new}.", "please replace {old} with {new}.",
                "I'd like to switch {old} to {new}.", "could you swap {old} for {new}?")
NEW_NAMED_OLD = ("I want {new} in place of {old}.", "can it be {new} instead of {old}?",
                 "I'd like {new} instead of {old}.")
NEW_INLINE = (" for {new} instead", " and get {new} instead", " so I can get {new} instead")
NEW_PAIR = ("{new} instead of {old}", "{new} in place of {old}")
NEW_PAIRS = ("I'd like {pairs}.", "what I want is {pairs}.", "so that's {pairs}.")
SWAP_VERBS = ("exchange", "swap", "replace", "change", "switch", "modify")
INLINE_SWAP_VERBS = ("exchange", "swap", "replace", "switch")  # "exchange X for Y instead"

# Payment methods: how the describer's words read as a person says them.
PAYMENT_KINDS = {
    "credit card": "credit card", "debit card": "debit card", "gift card": "gift card",
    "paypal": "PayPal account", "store credit": "store credit", "bank account": "bank account",
}
CARD_BRANDS = {
    "visa": "Visa", "mastercard": "Mastercard", "amex": "Amex", "american express": "American Express",
    "discover": "Discover",
}
PAY_REFUND = (
    "please send the refund to {pay}.", "I'd like the refund to go to {pay}.", "refund it to {pay}, please.",
    "the money can go back to {pay}.", "put the refund on {pay}, please.", "refund {pay}, if you can.",
    "the refund should land on {pay}.", "credit the money back to {pay}.", "I want my money back on {pay}.",
)
PAY_DIFFERENCE = (
    "any price difference can go on {pay}.", "please use {pay} for any difference.",
    "use {pay} to settle the difference.", "if the price changes, put it on {pay}.",
    "charge or refund the difference through {pay}.", "whatever the difference is, use {pay}.",
    "settle up any difference with {pay}.", "{pay} can cover any gap in price.",
    "bill the price difference to {pay}, or refund it there.",
)
PAY_METHOD = ("please use {pay}.", "I'd like to use {pay} for it.", "put it on {pay}, please.",
              "let's go with {pay}.", "{pay} is the one I want to use.", "charge {pay} for it.",
              "I want it paid with {pay}.", "I'll pay with {pay}.", "{pay} works best for me.",
              "can you take it from {pay}?", "I'd rather use {pay} this time.", "bill {pay}, please.",
              "go ahead and use {pay}.", "{pay} should cover it.", "use {pay} for the payment.",
              "I have {pay} ready for this.")

# Addresses: shipping one order, or the address kept on file.
ADDRESS_SHIP = (
    "please send it to {addr} instead.", "it should go to {addr}.", "the new shipping address is {addr}.",
    "I'd like it delivered to {addr}.", "ship it to {addr}, please.", "the right address is {addr}.",
    "it needs to arrive at {addr}.", "have it sent to {addr}.",
)
ADDRESS_HOME = (
    "the new address is {addr}.", "my new address is {addr}.", "I've moved to {addr}.",
    "please update it to {addr}.", "it should be {addr} from now on.", "I live at {addr} now.",
    "I'm now at {addr}.", "use {addr} going forward.",
)
ADDRESS_PARTS = _ADDRESS_PARTS  # one definition, in tasks/addresses.py

# Details: one phrase per value, by its shape and its key's words ({h}), joined into one
# sentence ({list}); never "Label: value".
UNITS = {"cm": "cm", "kg": "kg", "gb": "GB", "mb": "MB", "km": "km", "lbs": "lbs", "lb": "lb", "mi": "miles",
         "usd": "dollars", "min": "minutes", "mins": "minutes", "hrs": "hours", "pct": "percent", "kwh": "kWh"}
UNIT_ATTRIBUTES = {
    "height": ("{v} {u} tall", "a height of {v} {u}", "{v} {u} in height"),
    "weight": ("{v} {u} in weight", "a weight of {v} {u}", "weighing {v} {u}"),
    "length": ("{v} {u} long", "a length of {v} {u}"),
    "width": ("{v} {u} wide", "a width of {v} {u}"),
}
# Keys said with a preposition rather than a label ("from SFO", not "origin SFO").
DETAIL_LEXICON = {
    "origin": ("from {v}", "leaving from {v}", "out of {v}", "departing {v}"),
    "departure": ("from {v}", "leaving from {v}", "departing {v}"),
    "destination": ("to {v}", "going to {v}", "into {v}", "arriving in {v}"),
    "arrival": ("to {v}", "arriving in {v}"),
}
# Details people name in these words anyway (a field name in words is said otherwise).
EVERYDAY_PHRASES = ("first name", "last name", "zip code", "postal code", "phone number", "email address",
                    "date of birth", "start date", "end date", "due date", "card number", "home address")
MONEY_WORDS = ("amount", "price", "cost", "fee", "balance", "payment", "budget", "deposit", "sum", "total", "tip")
DETAIL_UNIT = ("{v} {u} of {h}", "{h} of {v} {u}", "{v} {u} for the {h}")
DETAIL_MONEY = ("${v}", "{v} dollars", "an {h} of ${v}", "${v} in all")
DETAIL_COUNT = ("{v} {n}", "{v} {n} in all", "just {v} {n}", "{v} {n}, please")
DETAIL_COUNT_TOTAL = ("{v} {n} in total", "{v} {n} altogether", "{v} {n} all together", "a total of {v} {n}")
DETAIL_NUMBER = ("{h} {v}", "a {h} of {v}", "{h} of {v}")
DETAIL_YES = ("yes to {h}", "{h} as well, yes", "yes, I'd like {h}", "yes to the {h}")
DETAIL_NO = ("no {h}", "no {h} for me", "no to the {h}", "no {h} at all")
DETAIL_DATE = ("on {v}", "for {v}", "the date {v}", "dated {v}")
DETAIL_DATE_OF = ("{h} on {v}", "the {h} on {v}", "{h} set for {v}", "{h} for {v}")
DETAIL_CODE = ("{h} {v}", "the {h} {v}", "{v} for the {h}")
DETAIL_WORD = ("{v} {h}", "{h} {v}", "{v} for the {h}", "the {v} {h}")
DETAILS = (
    "I'd want {list}.", "that's {list}.", "it would be {list}.", "ideally {list}.", "to be exact, {list}.",
    "I'm thinking {list}.", "so {list}.", "I'd go with {list}.", "let's say {list}.", "what I have in mind is {list}.",
    "put me down for {list}.", "the plan is {list}.", "I'd like it with {list}.", "make it {list}.",
    "{list} would be perfect.", "{list}, if that works.", "I was thinking {list}.", "I'd need {list}.",
)

# Who the user is: every identity fact in one sentence ({rest}: the parts other than the name).
IDENTITY_PARTS: dict[str, tuple[str, ...]] = {
    "email": ("my email is {v}", "the email on my account is {v}", "I'm registered under {v}", "my login is {v}",
              "you'll find me under {v}", "I signed up with {v}", "my account email is {v}", "email {v}"),
    "birth": ("born {v}", "date of birth {v}", "my birthday is {v}", "born on {v}"),
    "dob": ("born {v}", "date of birth {v}", "my birthday is {v}", "born on {v}"),
    "zip": ("zip {v}", "my zip code is {v}", "zip code {v}", "postal code {v}", "living in zip {v}"),
    "postcode": ("postcode {v}", "my postcode is {v}"),
    "phone": ("my number is {v}", "phone {v}", "you can reach me at {v}", "my phone is {v}", "the number is {v}",
              "calling from {v}"),
}
IDENTITY_OTHER = ("my {words} is {v}", "{words} {v}")
IDENTITY_NAMED = (
    "I'm {name}{rest}.", "this is {name}{rest}.", "my name is {name}{rest}.", "{name} here{rest}.",
    "the account is under {name}{rest}.", "it's {name}{rest}.", "you can look me up as {name}{rest}.",
    "name's {name}{rest}.", "I'm {name} by the way{rest}.",
)
IDENTITY_SURNAME = ("the account's under the name {name}, {rest}.", "last name {name}, {rest}.",
                    "it's under {name}; {rest}.", "I'm listed as {name}, {rest}.", "surname {name}, {rest}.")
IDENTITY_PLAIN = ("{rest}.", "for my account, {rest}.", "to find me, {rest}.", "in case you need it, {rest}.",
                  "for reference, {rest}.", "account-wise, {rest}.")
NAME_INTROS = ("this is {first}.", "{first} here.", "my name is {full}.")

WITHHELD = (
    "I can give you the details if you need them.", "I have the rest of the details here.",
    "just ask if you need anything more specific.", "what else do you need from me?",
    "I can fill in the specifics when you ask.", "I'll share more once you tell me what you need.",
    "there's more I can tell you, just ask.", "ask away if something's missing.",
    "I've got the specifics handy for when you need them.", "tell me which details you need.",
    "more info is available on request.", "I'll answer any questions you have.",
    "happy to give more details as we go.", "I know the particulars, so just ask.",
    "let me know what else you need to know.", "I've got all the particulars with me.",
    "I can walk you through the rest.", "if you need more, I'm right here.",
    "ask me anything you need for it.", "I have everything else written down.",
)

# "If it's still pending, cancel it; otherwise I'd like to return it." CONTINGENT is for a state
# the object may have left ("pending"); CONTINGENT_REACHED for one it may not have reached yet
# ("delivered": "if it has been delivered, ...").
CONTINGENT_REACHED = (
    "if {obj} has been {cond} already, please {then}; otherwise {other}.",
    "could you check whether {obj} was {cond}? If it was, I'd like to {then}. If not, {other}.",
    "I'd like to {then_obj} if it's been {cond}. If it hasn't, {other}.",
    "has {obj} been {cond} yet? If so, I want to {then}, and if not, {other}.",
    "assuming {obj} has been {cond} by now, I want to {then}. If it hasn't, {other}.",
    "once {obj} is {cond}, I'd like to {then}; if it isn't {cond} yet, {other}.",
)
CONTINGENT = (
    "check {obj} for me: is it still {cond}? If so, please {then}. If it's moved on, {other}.",
    "I'd like to {then_obj}, but only if it's still {cond}; if it's too late for that, {other}.",
    "assuming {obj} is still {cond}, I want to {then}. If it isn't, {other}.",
    "{obj} should still be {cond}, I think. If so, I'd like to {then}; if not, {other}.",
    "if {obj} is still {cond}, please {then}; otherwise {other}.",
    "could you check whether {obj} is still {cond}? If it is, please {then}. If not, {other}.",
    "I'd like to {then_obj} if it's still {cond}. If it's not, {other}.",
    "is {obj} still {cond}? If so, I want to {then}, and if not, {other}.",
    "if {obj} hasn't moved past {cond} yet, I want to {then}. Otherwise, {other}.",
    "I'm hoping {obj} is still {cond}, because in that case I'd like to {then}. If that's not the case, {other}.",
    "as long as {obj} is still {cond}, I'd like to {then}. Should it be past that, {other}.",
    "please look at {obj}: if it's still {cond}, I want to {then}; if it isn't, {other}.",
)
OTHERWISE_ASK = ("just {x}", "please {x}", "I'd like you to {x}", "at least {x}")  # "tell me its status"
OTHERWISE_ACT = ("I'd like to {x} instead", "I'll {x} instead", "I'd want to {x}", "let's {x} instead",
                 "I'd settle for being able to {x}", "plan B is to {x}", "in that case I'll just {x}")
AGENT_VERBS = ("tell", "show", "let", "give", "send", "explain", "check", "fill", "keep", "walk", "update")
CODE_NOUNS = ("number", "code", "name", "email", "id", "date")

# Out of scope, or a person asked for outright.
HUMAN = (
    "can I speak to a real person, please?", "I'd like to talk to a human agent.", "please put me through to a human.",
    "is there a person I can talk to?", "I want to speak with a person from your team, not a bot.",
    "could you connect me with a human representative?", "I'd rather deal with an actual person.",
    "get me a human, please.",
)
OUT_OF_SCOPE = (
    "I'm looking for {request}.", "can you set me up with {request}?", "I'd like to ask about {request}.",
    "is it possible to get {request}?", "could I get {request}?", "I want {request}.",
    "I'm hoping to arrange {request}.", "what are my options for {request}?", "I'm asking for {request}.",
)
# An ask for a person (tasks.policy_text.ASKS_FOR_PERSON reads every one of them as one).
OUT_OF_SCOPE_TAIL = ("If that's not something you handle, please pass me to a person who can.",
                     "If you can't do it, I'd like to talk to a human who can.",
                     "If that's beyond what you can do, please put me through to a human agent.",
                     "Otherwise, could you connect me with a representative who can help?",
                     "If you can't, I'd like to speak to a person who can.",
                     "If that's not you, please transfer me to a person on your team who can.",
                     "If it's out of your hands, can I talk to a human about it?",
                     "Should you not be able to, please get me a representative.",
                     "And if that's not possible here, I'd like a human agent to call me back.",
                     "If not, I'd like to be put through to a person, please.")
# fmt: on
