"""The demonstrator's voice (sim/speech.py): the agent's own words, values as a person says
them, many forms per act drawn per episode; and the optional rewrite by a model
(sim/rewrite.py), which must keep every grounded value."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from types import SimpleNamespace

import anyio
import pytest
from llm_server import openai_server
from paths import SERVERS_DIR

from envfactory_mcp.host.rollout import RolloutConfig, rollout
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.policy import asks_confirmation
from envfactory_mcp.sim import speech, speech_forms
from envfactory_mcp.sim.rewrite import RewritingAgent, check_rewrite
from envfactory_mcp.sim.speech import Speaker, agent_voice, humanise, say_value
from envfactory_mcp.sim.types import AgentTurn
from envfactory_mcp.spec.models import EnumLabel
from envfactory_mcp.tasks import naturalness as language
from envfactory_mcp.tasks.model import Fact, GoldAction, Task, write_tasks

# ---------------------------------------------------------------- the agent's words


@pytest.mark.parametrize(
    ("phrase", "said"),
    [
        ("pay my bill", "pay your bill"),
        ("add checked bags to my reservation", "add checked bags to your reservation"),
        ("return items I received", "return items you received"),
        ("I want to move my appointment to a later slot", "move your appointment to a later slot"),
        ("I'd like to renew our membership for myself", "renew your membership for yourself"),
        (
            "get a refund for a ticket I bought at the kiosk",
            "get a refund for a ticket you bought at the kiosk",
        ),
        ("I'm moving so update my address", "you're moving so update your address"),
    ],
)
def test_the_customers_phrase_becomes_the_agents(phrase: str, said: str) -> None:
    assert agent_voice(phrase) == said
    assert not language.customer_voice(agent_voice(phrase))


def test_fields_read_as_english_and_values_as_a_person_says_them() -> None:
    assert humanise("nonfree_bags") == "non-free bags"
    assert humanise("payment_method_id") == "payment method"
    assert humanise("totals.net_paid") == "net paid"
    assert say_value(48.99, "totals.refunded") == "$48.99"
    assert say_value(1219.8, "amount") == "$1,219.80"
    assert say_value(2, "total_bags") == "2"  # a count, not money
    assert say_value(9.82, "data_remaining_gb") == "9.82 GB"
    assert say_value("2026-06-06") == "June 6, 2026"
    assert say_value("2026-06-06T14:30:00") == "June 6, 2026 at 2:30 PM"
    assert say_value("14:05") == "2:05 PM"
    assert say_value("basic_economy") == "basic economy"
    column = SimpleNamespace(enum_labels={"exchange_requested": EnumLabel(display="awaiting an exchange")})
    spec = SimpleNamespace(tables=[SimpleNamespace(columns=[column])])
    assert say_value("exchange_requested", "status", spec) == "awaiting an exchange"


def test_every_confirmation_asks_for_consent_and_every_close_does_not() -> None:
    questions = speech._forms(speech_forms.YES_LEAD, speech_forms.YES_ASK)
    assert len(questions) >= 100
    action = "change the shipping address of order #W1 to 1 Main St, Austin, TX 78701, USA"
    whole = [form.format(action=action) for form in speech_forms.CONFIRM_QUESTION]
    for question in questions + whole:
        assert asks_confirmation(question), question
        assert asks_confirmation(f"I'll {action}. {question}"), question
    for close in speech._forms(speech_forms.CLOSE_LEAD, speech_forms.CLOSE_CORE):  # an offer of more help
        assert not asks_confirmation(close), close


def test_a_refusal_says_the_policys_reason_in_words() -> None:
    """The policy's reason names states by their values (``out_on_slopes``): said in words,
    the article agreeing ("an out on slopes ..."), never as a generator word."""
    from envfactory_mcp.catalog import environment_spec

    spec = environment_spec(SERVERS_DIR, "ski_rental")
    assert spec is not None
    reasons = [rule.reason for rule in spec.policy_rules.refusals]
    assert reasons and not any("_" in r for r in reasons)  # issue 31: reasons are written in words
    for seed in range(30):
        speaker = Speaker(seed, "t", spec)
        for reason in reasons:
            text = speaker.refusal("cancel my ski rental", reason)
            assert language.snake_case_words(text) == [] and not language.customer_voice(text), text
    text = Speaker(1, "t", spec).refusal(
        "cancel a ski rental", "a out_on_slopes ski rental cannot be released"
    )
    assert "an out on" in text and "out_on" not in text  # the article agrees with the words


def _fact(key: str, kind: str = "identity") -> Fact:
    return Fact.model_validate(
        {"key": key, "value": "x", "text": "x", "kind": kind, "must": ["x"], "in_opening": False}
    )


def test_an_episode_never_says_a_form_twice_and_a_seed_says_the_same() -> None:
    action = GoldAction(
        server="retail", name="cancel_pending_order", arguments={"order_id": "#W1"}, output={}
    )

    def episode(seed: int) -> list[str]:
        speaker = Speaker(seed, "task-1")
        said = [speaker.greeting(), speaker.identity([_fact("email")])]
        said += [speaker.confirm(action, [], "cancel my order") for _ in range(6)]
        said += [speaker.close() for _ in range(6)]
        return said

    first = episode(3)
    assert first == episode(3)
    assert first != episode(4)
    assert len(set(first)) == len(first)
    assert all("order #W1" in text for text in first[2:8])


# ---------------------------------------------------------------- 200 episodes


@pytest.fixture(scope="module")
def episodes(retail_tasks, tmp_path_factory: pytest.TempPathFactory) -> list[TrajectoryRecord]:
    tasks: list[Task] = retail_tasks(200, seed=5)
    tmp = tmp_path_factory.mktemp("speech")
    write_tasks(tasks, tmp / "tasks.jsonl")
    config = RolloutConfig(
        envs=["retail"],
        tasks_path=str(tmp / "tasks.jsonl"),
        servers_dir=str(SERVERS_DIR),
        agent="demonstrator",
        transport="memory",
        concurrency=8,
        seed=5,
    )
    anyio.run(rollout, config, tmp / "run")
    lines = (tmp / "run" / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    return [TrajectoryRecord.model_validate_json(line) for line in lines]


@pytest.mark.slow
def test_two_hundred_episodes_speak_as_the_agent_in_many_forms(episodes: list[TrajectoryRecord]) -> None:
    assert len(episodes) == 200
    assert all(r.reward == 1.0 for r in episodes), [r.task_id for r in episodes if r.reward != 1.0]
    messages = [r.messages for r in episodes]
    assert language.customer_voice_turns(messages) == []
    assert language.snake_case_in_episodes(messages) == []
    assert language.recurring_sentence_share(messages) <= 0.15
    assert (
        language.assistant_distinct2(messages) > 0.45
    )  # 0.29 with the four-form voice, 0.42 before issue 26's rework
    texts = [t for m in messages for t in language.texts_of(m, "assistant")]
    asks = [t for t in texts if asks_confirmation(t)]
    questions = {re.findall(r"[^.!?]*\?", t)[-1].strip() for t in asks if "?" in t}
    assert len(asks) >= 100 and len(questions) >= 30  # not four forms
    lasts = [language.texts_of(m, "assistant")[-1] for m in messages]  # a close, unless handed off
    closes = {re.findall(r"[^.!?]*\?", t)[-1].strip() for t in lasts if t.endswith("?")}
    assert len(closes) >= 30


# ---------------------------------------------------------------- the rewrite

ORIGINAL = (
    "To confirm, I'll cancel order #W0012345, the reason being no longer needed; "
    "the refund of $48.99 goes back to the Visa card ending in 6651."
)


def test_a_rewrite_must_keep_every_value_and_add_none() -> None:
    values = ["#W0012345", "no longer needed", "$48.99", "Visa card ending in 6651"]
    kept = "Just checking: I'll cancel order #W0012345 (no longer needed) and send $48.99 to the Visa card ending in 6651."
    assert check_rewrite(ORIGINAL, kept, values).ok
    dropped = check_rewrite(ORIGINAL, "I'll cancel order #W0012345 and refund your card.", values)
    assert not dropped.ok and "dropped" in dropped.reason
    invented = check_rewrite(ORIGINAL, kept + " It should arrive by June 9.", values)
    assert not invented.ok and "invented" in invented.reason
    named = check_rewrite(ORIGINAL, kept.replace("Just checking", "Thanks Maria, just checking"), values)
    assert not named.ok and "maria" in named.reason


class _Fixed:
    name = "demonstrator"

    def __init__(self) -> None:
        self._speech = SimpleNamespace(take_said=lambda: ["#W0012345", "$48.99", "no longer needed"])

    def start(self, task: object, tools: object, system_prompt: str) -> None:
        pass

    async def act(self, messages: object) -> AgentTurn:
        return AgentTurn(content=ORIGINAL)


@pytest.mark.slow
def test_the_rewrite_over_http_keeps_good_rewrites_and_rejects_the_others(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from envfactory_mcp.llm import LiteLLMClient

    good = "Before I go ahead: cancel order #W0012345 (no longer needed), refunding $48.99 to the Visa card ending in 6651?"
    replies = [
        {"content": good},
        {"content": "I'll cancel order #W0012345 and refund the Visa card ending in 6651."},  # drops $48.99
        {"content": good.replace("$48.99", "$48.99 within 5 days")},  # invents 5
    ]
    with (
        openai_server(replies) as server,
        caplog.at_level(logging.WARNING, logger="envfactory_mcp.sim.rewrite"),
    ):
        client = LiteLLMClient("openai/scripted-model", api_base=server.base_url, max_retries=0)
        agent = RewritingAgent(_Fixed(), client)

        async def three() -> list[str]:
            return [str((await agent.act([])).content) for _ in range(3)]

        said = anyio.run(three)
        sent = server.requests
    assert said == [good, ORIGINAL, ORIGINAL]
    assert agent.accepted == 1
    assert [r.reason for r in agent.rejections] == ["dropped value '$48.99'", "invented value '5'"]
    assert sum("rewrite rejected" in r.getMessage() for r in caplog.records) == 2
    assert ORIGINAL in str(sent[0]["messages"])  # the original went to the model


def test_play_path(tmp_path: Path) -> None:
    """``--agent demonstrator`` alone never rewrites (no model named), and is the blind
    demonstrator; the gold-replaying one is there only by its own name."""
    from envfactory_mcp.host.rollout import make_agent
    from envfactory_mcp.sim.demonstrator import DemonstratorAgent
    from envfactory_mcp.sim.planner import BlindDemonstrator

    config = RolloutConfig(envs=["retail"], tasks_path=str(tmp_path / "t.jsonl"), agent="demonstrator")
    task = SimpleNamespace(env="retail")
    assert isinstance(make_agent(config, task), BlindDemonstrator)  # type: ignore[arg-type]
    replay = RolloutConfig(envs=["retail"], tasks_path=str(tmp_path / "t.jsonl"), agent="gold-replay")
    assert isinstance(make_agent(replay, task), DemonstratorAgent)  # type: ignore[arg-type]


def test_no_form_speaks_in_the_customers_voice() -> None:
    fill = {"action": "cancel order #W1", "what": "your email", "label": "payment method", "subject": "order #W1",
            "act": "cancel it", "reason": "it has shipped", "cond": "pending", "request": "a refund",
            "Request": "A refund"}  # fmt: skip
    forms = (
        speech._forms(speech_forms.CONFIRM_LEAD, speech_forms.CONFIRM_BODY)
        + speech._forms(
            speech_forms.DETAIL_LEAD,
            speech_forms.DETAIL_ASK + speech_forms.VALUE_ASK + speech_forms.REASON_ASK,
        )
        + speech._forms(speech_forms.GREET_HI, speech_forms.GREET_HELP)
        + speech._forms(speech_forms.CLOSE_LEAD, speech_forms.CLOSE_CORE)
        + speech._forms(speech_forms.IDENTITY_LEAD, speech_forms.IDENTITY_ASK, speech_forms.IDENTITY_WHY)
        + speech._forms(speech_forms.DONE_LEAD, speech_forms.UPDATED)
        + [
            *speech_forms.REFUSE,
            *speech_forms.UNMET,
            *speech_forms.MET,
            *speech_forms.INSTEAD,
            *speech_forms.TRANSFER,
            *speech_forms.FOUND_LEAD,
        ]
        + speech_forms.CONFIRM_QUESTION
    )
    assert len(forms) > 1000
    for form in forms:
        text = form.replace("{Request}", fill["Request"]).format(**fill)
        assert not language.customer_voice(text), text
        assert not language.snake_case_words(text), text


# ---------------------------------------------------------------- every environment


def _library_and_flagships() -> list[str]:
    from envfactory_mcp.blueprints import blueprint_names

    return blueprint_names()  # built or not: the checkout commits only golden packages


def test_no_policy_reason_of_any_environment_is_said_as_a_generator_word() -> None:
    """Every refusal reason of every environment's policy, through the agent's voice."""
    from envfactory_mcp.catalog import environment_spec

    names = _library_and_flagships()
    assert len(names) >= 100
    said = 0
    for name in names:
        spec = environment_spec(SERVERS_DIR, name)
        assert spec is not None
        for rule in spec.policy_rules.refusals:
            text = Speaker(9, name, spec).refusal(f"change the {rule.entity}", rule.reason)
            assert language.snake_case_words(text) == [], (name, text)
            said += 1
    assert said >= 100


@pytest.mark.slow
def test_the_demonstrator_says_no_generator_word_in_any_environment(tmp_path: Path) -> None:
    """Tasks of one environment per domain (those with a refusal or a condition first, where
    the policy's own words are said), played by the demonstrator: no snake_case word in any
    of its turns. (Every environment's refusal reasons go through the speaker in the test
    above; playing all 107 would build each one on a fresh checkout.)"""
    from envfactory_mcp.catalog import environment_spec, load_environment
    from envfactory_mcp.tasks.generate import generate_tasks

    per_domain: dict[str, str] = {}
    for name in _library_and_flagships():
        spec = environment_spec(SERVERS_DIR, name)
        assert spec is not None
        per_domain.setdefault(spec.domain, name)
    assert len(per_domain) >= 20
    leaks = []
    for name in sorted(per_domain.values()):
        tasks, _ = generate_tasks(load_environment(name, SERVERS_DIR).env, 12, seed=9)
        kinds = [{g.kind for g in t.gold.goals} for t in tasks]
        ranked = sorted(range(len(tasks)), key=lambda i: (not kinds[i] & {"refuse", "contingent"}, i))
        write_tasks([tasks[i] for i in ranked[:3]], tmp_path / f"{name}.jsonl")
        config = RolloutConfig(
            envs=[name],
            tasks_path=str(tmp_path / f"{name}.jsonl"),
            servers_dir=str(SERVERS_DIR),
            agent="demonstrator",
            transport="memory",
            concurrency=3,
            seed=9,
        )
        anyio.run(rollout, config, tmp_path / name)
        for line in (tmp_path / name / "trajectories.jsonl").read_text(encoding="utf-8").splitlines():
            record = TrajectoryRecord.model_validate_json(line)
            for text in language.texts_of(record.messages, "assistant"):
                leaks += [(name, w, text) for w in language.snake_case_words(text)]
    assert leaks == []


@pytest.mark.slow
def test_no_lead_or_result_form_says_a_state_that_contradicts_the_answer() -> None:
    """A lead ("That's taken care of: ") or a result form ("{subject} is sorted") beside a
    correct answer ("the order is pending") never reads to the claim checker as another
    state of the thing: for every enum value a tool of any environment returns at the top
    of its output, the answer with the form still states it."""
    from envfactory_mcp.catalog import environment_spec
    from envfactory_mcp.scoring import meaning, said

    leads = [lead for lead in speech_forms.DONE_LEAD + speech_forms.FOUND_LEAD if lead]
    updated = [form.format(subject="your order") for form in speech_forms.UPDATED]
    checked = 0
    for name in _library_and_flagships():
        spec = environment_spec(SERVERS_DIR, name)
        assert spec is not None
        for tool in spec.tools:
            for path, schema in ((tool.output_schema or {}).get("properties") or {}).items():
                for value in (schema.get("enum") or [])[:6]:
                    if not isinstance(value, str):
                        continue
                    meant = meaning.value_of(value, path, spec, tool.name)
                    answer = f"your {tool.name.split('_')[-1]} is {value.replace('_', ' ')}."
                    if said.mentions(meant, answer) != 1:
                        continue  # the bare answer is not read as stating it: nothing to keep
                    for form in leads:
                        assert said.mentions(meant, form + answer) >= 1, (name, tool.name, form + answer)
                    for form in updated:
                        assert (
                            said.mentions(meant, f"{form[0].upper()}{form[1:]}. {answer.capitalize()}") >= 1
                        ), (
                            name,
                            tool.name,
                            form,
                            answer,
                        )
                    checked += 1
    assert checked >= 200


def test_the_words_joining_and_naming_claims_are_no_state_of_any_environment() -> None:
    """The slots added to result sentences and proposals (the join before a sentence's last
    claim or an action's last detail, a money total's names, other nouns for the thing acted
    on and the word joining it) hold no word that is a state value some
    tool of any environment returns: the claim checker would read it as the thing's state
    ("overall" or "sum" beside "pending")."""
    from envfactory_mcp.catalog import environment_spec

    states: set[str] = set()
    for name in _library_and_flagships():
        spec = environment_spec(SERVERS_DIR, name)
        assert spec is not None
        for tool in spec.tools:
            for schema in ((tool.output_schema or {}).get("properties") or {}).values():
                states |= {v.lower() for v in schema.get("enum") or [] if isinstance(v, str)}
    assert {"pending", "processed", "cancelled"} <= states  # the reading sees the states
    slots = [*speech.LAST_JOINS, *speech.TOTAL_NAMES, *speech.NOUN_JOINS, *speech.OF_WORDS]
    words = {
        w for slot in slots for w in re.findall(r"[a-z]+", slot.replace("{label}", "").replace("{name}", ""))
    }
    for noun, others in speech_forms.AGENT_NOUNS.items():  # the other names' words ("booking reference")
        words |= {w for other in others for w in other.split()} - set(noun.split())
    assert len(words) >= 12
    assert sorted(words & states) == []


@pytest.mark.parametrize("name", ["retail", "airline", "telecom"])
def test_the_agent_says_no_tool_or_field_name_in_prose(name: str) -> None:
    """What the agent reports and what it proposes never says a tool's or a field's name in
    words ("the balance due is", "pay bill B1", "the net paid total"): the words a person
    uses instead ("the balance still due", "settle bill B1"), every value still said (issue
    26, point 2)."""
    from envfactory_mcp.catalog import load_environment
    from envfactory_mcp.tasks.model import Claim

    spec = load_environment(name, SERVERS_DIR, allow_unverified=True).env.spec
    tools, fields = language.spec_vocabulary(spec)
    checked = 0
    for seed in range(12):
        for tool in spec.tools:
            voice = Speaker(seed, f"{name}:{tool.name}", spec)
            for path in tool.claims:
                for value in _values_of(tool.output_schema, path):
                    claim = Claim(tool=tool.name, path=path, value=value, text=str(value))
                    text = voice.claims([claim], "the account", None, lead=False)
                    assert language.names_tool_or_field(text, tools, fields) == [], (path, text)
                    checked += 1
            if tool.intent and tool.effect != "read":
                action = GoldAction(server="", name=tool.name, arguments={}, output={}, confirm=True)
                text = voice.confirm(action, [], tool.intent)
                assert not language.names_tool_or_field(text, tools, set()), (tool.name, text)
                checked += 1
    assert checked > 100


def _values_of(schema: dict[str, object], path: str) -> list[object]:
    """Values of the type the output schema declares at ``path`` ("totals.refunded",
    "flights[].prices.economy"); a string only as a date."""
    node: object = schema
    for part in path.split("."):
        for step in [part[:-2], "[]"] if part.endswith("[]") else [part]:
            if not isinstance(node, dict):
                return []
            node = node.get("items") if step == "[]" else (node.get("properties") or {}).get(step)
    kind = node.get("type") if isinstance(node, dict) else None
    kinds = kind if isinstance(kind, list) else [kind]
    values: list[object] = []
    if "boolean" in kinds:
        values += [True, False]
    if "integer" in kinds:
        values += [0, 2]
    if "number" in kinds:
        values += [12.5]
    if "string" in kinds and path.endswith(("date", "_at")):
        values += ["2026-07-01"]
    return values
