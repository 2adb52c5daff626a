"""Simulated users on real retail tasks: the scripted user's rules, and the LLM user through
litellm to a scripted OpenAI server on 127.0.0.1 (role mapping, stop, early-stop guard)."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from llm_server import SCRIPTED_USAGE, openai_server

from envfactory_mcp.llm import LiteLLMClient, TokenCounts
from envfactory_mcp.sim import users
from envfactory_mcp.sim.types import STOP, TRANSFER, Message
from envfactory_mcp.sim.users import ACKNOWLEDGE, CONFIRM_REPLY, LLMUser, ScriptedUser
from envfactory_mcp.tasks.model import Fact, Task


class FakeView:
    """An ``EpisodeView`` whose answers the test sets; counts ``goal_met`` questions."""

    def __init__(self, goal_met: bool = False, writes: int = 0) -> None:
        self.met = goal_met
        self.writes = writes
        self.asked = 0

    async def goal_met(self) -> bool:
        self.asked += 1
        return self.met

    def writes_done(self) -> int:
        return self.writes


@pytest.fixture(scope="module")
def tasks(retail_tasks) -> list[Task]:
    return retail_tasks(40, seed=5)


def identity_keys(task: Task) -> set[str]:
    return {f.key for f in task.user_scenario.known_info if f.kind == "identity"}


def fact(task: Task, key: str) -> Fact:
    return next(f for f in task.user_scenario.known_info if f.key == key)


def said(text: str) -> list[Message]:
    """A conversation whose last agent message is ``text`` (after a tool-call-only turn)."""
    return [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": text},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function"}]},
        {"role": "tool", "tool_call_id": "c", "content": "{}"},
    ]


def with_email_and_name_zip(task: Task) -> Task:
    """``task`` whose user knows both an email and name + zip (to test progressive reveal)."""
    extra = [
        Fact(
            key="email",
            kind="identity",
            value="q@x.example",
            text="q@x.example",
            must=["q@x.example"],
            in_opening=False,
        ),
        Fact(
            key="first_name", kind="identity", value="Quinn", text="Quinn", must=["Quinn"], in_opening=False
        ),
        Fact(key="last_name", kind="identity", value="Ueda", text="Ueda", must=["Ueda"], in_opening=False),
        Fact(key="zip", kind="identity", value="27647", text="27647", must=["27647"], in_opening=False),
    ]
    known = [f for f in task.user_scenario.known_info if f.kind != "identity"] + extra
    scenario = task.user_scenario.model_copy(update={"known_info": known})
    return task.model_copy(update={"user_scenario": scenario})


# ---------------------------------------------------------------- scripted user


async def test_scripted_user_opens_with_the_task_opening(tasks):
    user = ScriptedUser()
    assert user.name == "scripted"
    for task in tasks:
        assert user.start(task) == task.user_scenario.opening_message


async def test_scripted_user_reveals_the_email_when_asked_for_it(tasks):
    task = next(t for t in tasks if identity_keys(t) == {"email"})
    user = ScriptedUser()
    user.start(task)
    reply = await user.reply(said("To get started, could you give me the email on your account?"), FakeView())
    assert reply.content == f"My email is {fact(task, 'email').text}." and reply.stop_token is None


async def test_scripted_user_reveals_only_what_was_asked_then_the_rest(tasks):
    task = with_email_and_name_zip(tasks[0])
    user = ScriptedUser()
    user.start(task)
    view = FakeView()
    first = await user.reply(said("Could you please provide your email address?"), view)
    assert first.content == "My email is q@x.example."
    second = await user.reply(said("That email was not found. What is your name and zip code?"), view)
    assert second.content == "My name is Quinn Ueda and my zip code is 27647."


async def test_scripted_user_gives_all_identity_when_the_request_is_generic(tasks):
    task = next(
        t
        for t in tasks
        if identity_keys(t) == {"first_name", "last_name", "zip"}
        and fact(t, "last_name").text not in t.user_scenario.opening_message
    )
    user = ScriptedUser()
    user.start(task)
    reply = await user.reply(said("Before anything else I need to verify who you are."), FakeView())
    name = f"{fact(task, 'first_name').text} {fact(task, 'last_name').text}"
    assert reply.content == f"My name is {name} and my zip code is {fact(task, 'zip').text}."


async def test_scripted_user_confirms_a_yes_no_question_once_then_nudges(tasks):
    task = next(t for t in tasks if t.kind == "write")
    user = ScriptedUser()
    user.start(task)
    view = FakeView()
    question = said("I will cancel the order with reason 'no longer needed'. Shall I proceed?")
    assert (await user.reply(question, view)).content == CONFIRM_REPLY
    again = await user.reply(question, view)  # no progress since: no second yes
    assert again.content.startswith("Could you please take care of it?")
    view.writes = 1  # a write is progress: the user confirms the next step again
    assert (await user.reply(question, view)).content == CONFIRM_REPLY


async def test_scripted_user_answers_every_question_of_a_turn(tasks):
    """Two questions in one message, the one that matters first: both are answered (the
    user used to read only the last question)."""
    task = with_email_and_name_zip(tasks[0])
    user = ScriptedUser()
    user.start(task)
    reply = await user.reply(
        said("Could you give me your email address? And is there anything I should know first?"), FakeView()
    )
    assert reply.content.startswith("My email is q@x.example.")
    held = next(
        (t, f)
        for t in tasks
        for f in t.user_scenario.known_info
        if f.kind == "detail" and not f.in_opening and "reason" in f.key
    )
    task, reason = held
    user = ScriptedUser()
    user.start(task)
    both = await user.reply(said("What is your email? Also, may I ask the reason for it?"), FakeView())
    email = next(f for f in task.user_scenario.known_info if f.kind == "identity")
    assert email.text in both.content and all(m.lower() in both.content.lower() for m in reason.must)


@pytest.mark.parametrize(
    "question",
    [
        "Shall I change the address on your account to 1 Main St, Austin, TX 78701?",
        "Does that sound right?",
        "Happy for me to go ahead with the zip code change?",
        "How does that sound?",
    ],
)
async def test_a_request_for_consent_is_answered_yes_whatever_it_names(tasks, question: str):
    task = next(t for t in tasks if t.kind == "write")
    user = ScriptedUser()
    user.start(task)
    for i, f in enumerate(task.user_scenario.known_info):  # identity already given
        if f.kind == "identity":
            user._revealed.add(i)
    reply = await user.reply(said(f"I'll update it for you. {question}"), FakeView())
    assert reply.content == CONFIRM_REPLY


async def test_scripted_user_restates_known_facts_by_their_text_not_internal_ids(tasks):
    task, ref = next(
        (t, f)
        for t in tasks
        for f in t.user_scenario.known_info
        if f.kind == "reference" and f.key == "order_id" and f.text != f.value
    )
    user = ScriptedUser()
    user.start(task)
    reply = await user.reply(said("I see several recent orders. Which order do you mean?"), FakeView())
    assert ref.text in reply.content and str(ref.value) not in reply.content


async def test_scripted_user_stops_when_the_goal_is_met(tasks):
    user = ScriptedUser()
    user.start(tasks[0])
    view = FakeView(goal_met=True)
    reply = await user.reply(said("Your order has been cancelled. Anything else?"), view)
    assert reply.stop_token == STOP and view.asked == 1


async def test_scripted_user_nudges_then_stops_after_max_nudges(tasks):
    task = tasks[0]
    user = ScriptedUser(max_nudges=2)
    user.start(task)
    view = FakeView()
    replies = [(await user.reply(said("Thank you for your message."), view)).content for _ in range(4)]
    nudge = f"Could you please take care of it? I want to {task.user_scenario.reason_for_call.replace('; ', ' and ')}."
    # A statement that asks nothing is acknowledged once; said again, it gets nudges.
    assert replies == [ACKNOWLEDGE, nudge, nudge, STOP]


async def test_scripted_user_progress_resets_the_nudge_budget(tasks):
    user = ScriptedUser(max_nudges=1)
    user.start(tasks[0])
    view = FakeView()
    assert (await user.reply(said("Okay."), view)).content == ACKNOWLEDGE
    assert (await user.reply(said("Okay."), view)).stop_token is None  # the one nudge
    view.writes = 1  # progress: acknowledged again, and the nudge budget is back
    assert (await user.reply(said("Okay."), view)).content == ACKNOWLEDGE
    assert (await user.reply(said("Okay."), view)).stop_token is None
    assert (await user.reply(said("Okay."), view)).stop_token == STOP


@pytest.mark.parametrize(
    "text",
    [
        "I have transferred you to a human agent.",
        "I've handed your case to a human agent, who will get in touch with you.",
        "Transferring you to a specialist now.",
    ],
)
async def test_scripted_user_says_transfer_when_transferred(tasks, text: str):
    user = ScriptedUser()
    user.start(tasks[0])
    reply = await user.reply(said(text), FakeView())
    assert reply.stop_token == TRANSFER


@pytest.mark.parametrize(
    "text",
    [
        "I will transfer $500 from checking to savings. Shall I go ahead?",
        "The transfer to your savings is done.",
    ],
)
async def test_a_money_transfer_is_not_a_hand_off(tasks, text: str):
    user = ScriptedUser()
    user.start(tasks[0])
    reply = await user.reply(said(text), FakeView())
    assert reply.stop_token != TRANSFER


# ---------------------------------------------------------------- LLM user over HTTP


def llm_user(base_url: str, **kw: int) -> LLMUser:
    return LLMUser(
        LiteLLMClient("openai/user-model", api_base=base_url, timeout_s=5, max_retries=1, backoff_s=0.01),
        **kw,
    )


@pytest.mark.slow
async def test_llm_user_sees_the_conversation_from_its_side(tasks):
    task = next(
        t
        for t in tasks
        if any(f.kind == "reference" and f.text != f.value for f in t.user_scenario.known_info)
    )
    with openai_server([{"content": "It's the one I mentioned."}]) as server:
        user = llm_user(server.base_url)
        assert user.name == "llm"
        opening = user.start(task)
        assert opening == task.user_scenario.opening_message
        messages: list[Message] = [
            {"role": "user", "content": opening},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"user_id": "user_000001"}'},
            {"role": "assistant", "content": "Which order is it?"},
        ]
        reply = await user.reply(messages, FakeView())
    assert reply.content == "It's the one I mentioned." and reply.stop_token is None
    assert reply.usage == TokenCounts(SCRIPTED_USAGE["prompt_tokens"], SCRIPTED_USAGE["completion_tokens"])
    (body,) = server.requests
    system, *rest = body["messages"]
    assert rest == [
        {"role": "assistant", "content": opening},
        {"role": "user", "content": "Which order is it?"},
    ]
    assert "tools" not in body
    prompt = system["content"]
    assert system["role"] == "system"
    assert task.user_scenario.persona in prompt and task.user_scenario.reason_for_call in prompt
    assert STOP in prompt and TRANSFER in prompt
    for known in task.user_scenario.known_info:
        assert known.text in prompt
        if known.kind == "reference" and known.text != known.value:
            assert str(known.value) not in prompt  # internal ids the user does not know
    for unknown in task.user_scenario.unknown_info:
        assert unknown in prompt


@pytest.mark.slow
async def test_llm_user_stop_is_honoured_on_a_read_task(tasks):
    task = next(t for t in tasks if t.kind == "read")
    with openai_server([{"content": "Great, thanks! ###STOP###"}]) as server:
        user = llm_user(server.base_url)
        user.start(task)
        reply = await user.reply(said("Your order was delivered."), FakeView())
    assert reply.content == "Great, thanks! ###STOP###" and reply.stop_token == STOP


@pytest.mark.slow
async def test_llm_user_is_kept_from_stopping_a_write_task_before_any_write(tasks):
    task = next(t for t in tasks if t.kind == "write")
    script = [{"content": "Thanks, bye! ###STOP###"}] * 3
    with openai_server(script) as server:
        user = llm_user(server.base_url, max_guard=2)
        user.start(task)
        view = FakeView()
        replies = [await user.reply(said("Let me look into it."), view) for _ in range(3)]
    first, second, third = replies
    for guarded in (first, second):
        assert guarded.stop_token is None
        assert task.user_scenario.reason_for_call.split("; ")[0] in guarded.content
        assert guarded.usage is not None and guarded.usage.prompt_tokens > 0  # the model was still asked
    assert third.stop_token == STOP  # after max_guard guards the stop goes through
    assert view.asked == 2 and user.guards == 2


@pytest.mark.slow
async def test_llm_user_stop_goes_through_once_something_was_written(tasks):
    task = next(t for t in tasks if t.kind == "write")
    with openai_server([{"content": "All good. ###STOP###"}]) as server:
        user = llm_user(server.base_url)
        user.start(task)
        view = FakeView(writes=1)
        reply = await user.reply(said("I have updated your order."), view)
    assert reply.stop_token == STOP and view.asked == 0


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([*"ab ?.!\n\t", "please tell", "what"]), max_size=30).map("".join))
def test_questions_are_the_runs_up_to_each_question_mark(text: str):
    """``questions_of`` finds what ``re.findall(r"[^.!?\\n]*\\?")`` finds (each run of text up
    to a question mark, stripped, a bare mark left out), and in time linear in the text."""
    found = [q.strip() for q in re.findall(r"[^.!?\n]*\?", text) if q.strip(" ?")]
    asks = any(cue in text.lower() for cue in users.REQUEST_CUES)
    assert users.questions_of(text) == (found or ([text] if asks else []))


def test_a_long_message_without_sentence_marks_costs_linear_time():
    """An agent's message of 400,000 characters with no ``.``, ``!``, ``?`` or newline: the
    pattern above takes hours of CPU on it (quadratic backtracking), a split milliseconds."""
    started = time.process_time()
    assert users.questions_of("please tell me your order number " * 12_000) == [
        "please tell me your order number " * 12_000
    ]
    assert time.process_time() - started < 5  # linear: ~10 ms; quadratic: hours
