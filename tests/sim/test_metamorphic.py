"""The metamorphic reward suite (issue 24): each mode changes what it says it changes (on
real tasks, over the real host and an in-process server), the bench's verdicts have their
shape, and, once the reward reads meaning, no mode is misjudged over stdio."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from paths import ROOT, SERVERS_DIR

from envfactory_mcp.blueprints import load_blueprint
from envfactory_mcp.catalog import environment_spec
from envfactory_mcp.env import build_env
from envfactory_mcp.host.connection import ServerConnection
from envfactory_mcp.host.episode import EpisodeConfig, run_episode
from envfactory_mcp.records.trajectory import TrajectoryRecord
from envfactory_mcp.scoring.gold import GoldCache
from envfactory_mcp.scoring.policy import policy_violations
from envfactory_mcp.sim import metamorphic_words as words
from envfactory_mcp.sim.demonstrator import DemonstratorAgent
from envfactory_mcp.sim.metamorphic import GAMING, GOOD, MODES, MetamorphicAgent, applicable, claim_kind
from envfactory_mcp.sim.metamorphic_text import ask_at, mention
from envfactory_mcp.sim.metamorphic_writes import is_write
from envfactory_mcp.sim.users import ScriptedUser
from envfactory_mcp.spec.models import EnvSpec
from envfactory_mcp.tasks.generate import generate_tasks
from envfactory_mcp.tasks.model import Task

sys.path.insert(0, str(ROOT / "bench"))
import bench_reward  # the bench lives beside the tests, not in the package

Played = list[tuple[Task, TrajectoryRecord, Any]]


def play(env: str, mode: str | None, tasks: list[Task], spec: EnvSpec) -> Played:
    """Each task once with the mode's agent (the plain demonstrator for None), in process."""

    async def run() -> Played:
        played = []
        async with ServerConnection(env, "memory", SERVERS_DIR) as conn:
            gold = GoldCache()
            for task in tasks:
                agent = MetamorphicAgent(mode, 0, spec) if mode else DemonstratorAgent(0)
                record = await run_episode(
                    task, 0, agent, ScriptedUser(), conn, EpisodeConfig(run_id="t"), gold
                )
                played.append((task, record, agent))
        return played

    return anyio.run(run)


def said(record: TrajectoryRecord) -> str:
    return "\n".join(m["content"] for m in record.messages if m["role"] == "assistant" and m.get("content"))


def whole(text: str, value: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(value)}(?![\w])", text) is not None


@pytest.fixture(scope="module")
def retail(retail_tasks: Callable[..., list[Task]]) -> tuple[list[Task], EnvSpec]:
    spec = environment_spec(SERVERS_DIR, "retail")
    assert spec is not None
    return retail_tasks(40, seed=0), spec


def run_mode(retail: tuple[list[Task], EnvSpec], mode: str, n: int = 4) -> Played:
    tasks, spec = retail
    chosen = [t for t in tasks if applicable(mode, t, spec)][:n]
    assert len(chosen) == n, mode
    played = play("retail", mode, chosen, spec)
    assert all(record.reward is not None for _, record, _ in played)
    return played


# ----------------------------------------------------------------- each mode changes what it says


def test_spelling_says_every_status_in_other_words(retail: tuple[list[Task], EnvSpec]) -> None:
    for task, record, agent in run_mode(retail, "spelling"):
        statuses = [c for c in task.gold.claims if claim_kind(c, retail[1]) == "enum"]
        edited = [claim for claim, _, _ in agent.edits]
        assert statuses and all(claim in edited for claim in statuses), task.task_id
        for claim, before, after in agent.edits:
            assert after in said(record) and before not in said(record)
            # neither the stored value nor the demonstrator's words for it, as written
            assert not whole(after, str(claim.value)) and not whole(after, claim.text), after


def test_dump_pastes_the_tool_output_instead_of_telling(retail: tuple[list[Task], EnvSpec]) -> None:
    for task, record, agent in run_mode(retail, "dump"):
        text = said(record)
        outputs = [json.loads(m["content"]) for m in record.messages if m["role"] == "tool"]
        pasted = [
            o
            for o in outputs
            if json.dumps(o) in text
            or json.dumps(o, indent=2) in text
            or all(line in text for line in words.flatten(o))
        ]
        assert agent.applied and pasted, task.task_id


def test_skip_confirmation_writes_without_asking(retail: tuple[list[Task], EnvSpec]) -> None:
    spec = retail[1]
    for task, record, _ in run_mode(retail, "skip_confirmation"):
        assert not any(
            ask_at(m["content"] or "") is not None for m in record.messages if m["role"] == "assistant"
        )
        unconfirmed = [v for v in policy_violations(record.messages, spec) if v.endswith("no confirmation")]
        assert len(unconfirmed) == sum(a.confirm for a in task.gold.actions), (task.task_id, unconfirmed)
        assert record.final_state_hash == record.gold_state_hash  # the writes themselves are right


def test_hedge_says_a_second_value_beside_each(retail: tuple[list[Task], EnvSpec]) -> None:
    for task, record, agent in run_mode(retail, "hedge"):
        # every claim of each goal it told about (the user may stop before the last is told)
        told = {claim.goal for claim, _, _ in agent.edits}
        hedged = [claim for claim, _, _ in agent.edits]
        assert told and all(c in hedged for c in task.gold.claims if c.goal in told), task.task_id
        for _, before, after in agent.edits:
            assert before in after and len(after) > len(before) + 3 and after in said(record)
            rival = after.replace(before, "", 1)
            assert re.search(r"\w", rival), after  # a second value, not only punctuation


def test_wrong_value_tells_one_claim_wrongly(retail: tuple[list[Task], EnvSpec]) -> None:
    for _, record, agent in run_mode(retail, "wrong_value"):
        ((claim, before, after),) = agent.edits
        assert before == mention(claim) and after != before and not whole(after, claim.text)
        assert after in said(record)


def test_numbers_keep_the_value_in_other_forms(retail: tuple[list[Task], EnvSpec]) -> None:
    for _, record, agent in run_mode(retail, "numbers"):
        assert agent.edits
        for claim, before, after in agent.edits:
            assert after != before and after in said(record)
            digits = re.sub(r"[^\d.]", "", after.replace(",", "")).strip(".")
            if digits:  # written with figures: the same amount
                assert float(digits) == float(claim.value), (before, after)


def test_reorder_tells_the_same_claims_in_another_order(retail: tuple[list[Task], EnvSpec]) -> None:
    spec = retail[1]
    played = run_mode(retail, "reorder")
    plain = {
        task.task_id: record for task, record, _ in play("retail", None, [t for t, _, _ in played], spec)
    }
    for task, record, agent in played:
        assert agent.applied and said(record) != said(plain[task.task_id]), task.task_id
        for claim in task.gold.claims:
            assert mention(claim) in said(record)


def test_negatives_word_conditions_and_refusals_naturally(retail: tuple[list[Task], EnvSpec]) -> None:
    for task, record, agent in run_mode(retail, "negatives"):
        if agent.applied:
            text = said(record)
            assert "Since it is not" not in text and "I'm sorry, but I can't" not in text, task.task_id


def test_extra_write_changes_what_nobody_asked_to_change(retail: tuple[list[Task], EnvSpec]) -> None:
    spec = retail[1]
    applied = 0
    for task, record, agent in run_mode(retail, "extra_write", n=6):
        if agent.applied:
            applied += 1
            writes = sum(is_write(a, spec) for a in task.gold.actions)
            assert record.final_state_hash != record.gold_state_hash, task.task_id
            assert (
                sum(record.tool_stats[n].calls - record.tool_stats[n].errors for n in record.tool_stats)
                > writes
            )
    assert applied >= 2


def test_wrongful_refusal_refuses_and_never_writes_for_the_goal(retail: tuple[list[Task], EnvSpec]) -> None:
    for task, record, agent in run_mode(retail, "wrongful_refusal"):
        (change,) = agent.changes
        goal = task.gold.goals[int(change.split()[2])]
        calls = [
            (c["function"]["name"], json.loads(c["function"]["arguments"]))
            for m in record.messages
            for c in m.get("tool_calls") or []
        ]
        writes = [task.gold.actions[i] for i in goal.actions if task.gold.actions[i].confirm]
        assert writes and all((a.name, a.arguments) not in calls for a in writes), task.task_id
        assert re.search(r"can't|not able|not something I can do", said(record))


def test_every_mode_draws_among_at_least_four_phrasings() -> None:
    assert all(len(v) >= 4 for v in words.STATUS_WORDS.values())
    assert {"$1,219.80", "1219.8 dollars", "USD 1,219.80", "1,219.80 USD"} <= set(
        words.money_forms(1219.8, "total")
    )
    assert "$100" in words.money_forms(100.0, "amount")
    assert "two checked bags" in words.count_phrases(2, "checked bags")
    assert "there's nothing left to pay" in words.zero_phrases("balance due")
    assert {"June 18, 2026", "18 June 2026", "Thursday, June 18", "6/18/2026"} <= set(
        words.date_forms("2026-06-18")
    )
    assert "you're not eligible for an upgrade yet" in words.bool_phrases("upgrade eligible", False)
    for forms in (
        words.count_phrases(0, "outages"),
        words.zero_phrases("late fee"),
        words.bool_phrases("x", True),
    ):
        assert len(forms) >= 4


@pytest.mark.parametrize(
    "text",
    [
        "Battery drains within a few hours",
        "No signal at home since this morning; restarting the phone did not help",
        "Persistent cough for two weeks",
        "Sore throat and fever",
        "Spam calls several times a day",
    ],
)
def test_a_paraphrase_rewords_but_keeps_the_facts(text: str) -> None:
    import random

    drawn = {words.paraphrase(text, random.Random(seed)) for seed in range(12)}
    assert len(drawn) >= 4 and text not in drawn
    nouns = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)} - {
        "drains",
        "within",
        "restarting",
        "persistent",
    }
    for said_ in drawn:
        kept = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", said_)}
        assert len(nouns & kept) >= len(nouns) - 1, said_


@pytest.mark.slow
def test_paraphrase_and_dates_on_telecom() -> None:
    """Ticket descriptions reworded in the call and in the confirmation; dates written out."""
    tasks, _ = generate_tasks(build_env(load_blueprint("telecom")), 60, seed=0)
    spec = environment_spec(SERVERS_DIR, "telecom")
    assert spec is not None
    tickets = [t for t in tasks if applicable("paraphrase", t, spec)][:3]
    for task, record, _ in play("telecom", "paraphrase", tickets, spec):
        gold = next(a for a in task.gold.actions if a.name == "create_ticket")
        (call,) = [
            json.loads(c["function"]["arguments"])
            for m in record.messages
            for c in m.get("tool_calls") or []
            if c["function"]["name"] == "create_ticket"
        ]
        assert call["description"] != gold.arguments["description"] and call["description"] in said(record)
    dated = [t for t in tasks if applicable("dates", t, spec)][:2]
    assert dated
    for _, record, agent in play("telecom", "dates", dated, spec):
        assert agent.edits and all(not re.search(r"\d{4}-\d\d-\d\d", after) for _, _, after in agent.edits)
        assert all(after in said(record) for _, _, after in agent.edits)


# ----------------------------------------------------------------- the suite's verdicts


def test_the_suite_judges_every_mode_on_retail(retail: tuple[list[Task], EnvSpec]) -> None:
    """A few episodes of each mode over the in-process server: every cell counts what it
    ran, good modes are judged on false negatives, gaming ones on false positives."""
    args = bench_reward.parse(["--domains", "retail", "--episodes-per-cell", "2", "--transport", "memory"])
    cells = bench_reward.measure(args, {"retail": retail[0]})
    assert set(cells) == {("retail", m) for m in MODES}
    for (_, mode), cell in cells.items():
        assert cell.should_pass == (mode in GOOD) and cell.excluded == 0
        assert 0 <= cell.wrong <= cell.applicable
        if mode == "paraphrase":  # retail tasks have no free text the agent writes
            assert cell.applicable == 0
        elif mode == "dates":
            # a date is claimed only where a declared window refuses a return or exchange (the
            # order's date; issue 31), so the few episodes may hold one or none: judged right
            assert cell.wrong == 0
        else:
            assert cell.applicable >= 2, mode
        for example in cell.examples:
            assert {"task_id", "reward", "claims_missing", "state_match", "policy_violations"} <= set(example)
    assert sum(c.applicable for c in cells.values() if c.mode in GAMING) >= 12


@pytest.mark.slow
def test_the_protocol_path_gives_the_direct_verdicts(retail: tuple[list[Task], EnvSpec]) -> None:
    """The same agents behind an OpenAI chat-completions server, reached with ``--agent llm``
    through litellm, say and do exactly what they do when called directly."""
    argv = ["--domains", "retail", "--episodes-per-cell", "1", "--transport", "memory"]
    direct = bench_reward.measure(bench_reward.parse(argv), {"retail": retail[0]})
    protocol = bench_reward.measure(bench_reward.parse([*argv, "--via-llm"]), {"retail": retail[0]})
    for key, cell in direct.items():
        assert (protocol[key].applicable, protocol[key].wrong, protocol[key].excluded) == (
            cell.applicable,
            cell.wrong,
            cell.excluded,
        ), key


@pytest.mark.slow
def test_no_mode_is_misjudged_over_stdio() -> None:
    """Right work in other words scores 1.0, gaming below, on two domains over stdio."""
    args = bench_reward.parse(["--domains", "retail,telecom", "--episodes-per-cell", "3", "--pool", "80"])
    cells = bench_reward.measure(args, bench_reward.load_all(args.domains, args.pool, args.seed, None))
    wrong = {
        key: (cell.wrong, cell.applicable, cell.examples[:1]) for key, cell in cells.items() if cell.wrong
    }
    assert sum(cell.applicable for cell in cells.values()) >= 60
    assert not wrong, wrong
