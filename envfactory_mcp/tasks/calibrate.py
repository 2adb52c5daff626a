"""Calibration: from the over-specified instruction to the opening message a real user sends.

The over-specified instruction names every tool and argument (kept for audit). A real
user states a goal in their own words, refers to things by what they are ("the desk lamp
I ordered", not an item id), leaves out what the agent can look up, never lists steps,
and often asks for two things at once. Offline, ``tasks.realise`` writes such a message
from a plan; ``calibrate_llm`` asks any model (through ``envfactory_mcp.llm``) for the
same, with the same rules.

Both are held to ``check_message``: a message is rejected if it leaks a tool name, an
identifier-like parameter key, an internal id the user does not know, or a numbered step
list, if it writes a generator word (``broken_binding``) or a sentence that reads as a form
("Insurance: no."), or if it drops a fact the opening message must carry.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from envfactory_mcp.tasks.model import Calibration, Fact, Task
from envfactory_mcp.tasks.naturalness import field_dumps, snake_case_tokens

_NUMBERED = re.compile(r"(?m)^\s*(?:\d+\s*[.)]|step\s+\d+\b|[-*•]\s)", re.IGNORECASE)


@dataclass(frozen=True)
class LeakRules:
    """What a user's message may not contain, for one task."""

    tool_names: list[str]
    param_keys: list[str]  # identifier-like keys only ('order_id', 'address1'); 'reason' is a word
    hidden_ids: list[str]  # ids the user does not know


def leak_rules_for(spec: Any, facts: list[Fact], actions: list[tuple[str, dict[str, Any]]]) -> LeakRules:
    """The rules for one task of ``spec`` (an ``EnvSpec``): its tool names, identifier-like
    parameter keys, and every id in the gold arguments that the user does not know."""
    keys = sorted(
        {
            k
            for t in spec.tools
            for k in t.input_schema.get("properties", {})
            if "_" in k or any(c.isdigit() for c in k)
        }
    )
    entity_params = {(t.name, n) for t in spec.tools for n, p in t.params.items() if p.entity}
    known = {str(f.value) for f in facts if f.text == str(f.value)}
    hidden: set[str] = set()
    for tool, arguments in actions:
        for name, value in arguments.items():
            if (tool, name) not in entity_params:
                continue
            for v in value if isinstance(value, list) else [value]:
                if str(v) not in known and len(str(v)) >= 3:
                    hidden.add(str(v))
    return LeakRules(sorted(t.name for t in spec.tools), keys, sorted(hidden))


def leak_problems(message: str, rules: LeakRules) -> list[str]:
    """Leaks in ``message``: empty when it reads like something a user could write."""
    problems = []
    lowered = message.lower()
    # Each word is looked for as a plain substring first: only a message that holds it can
    # hold it as a whole word (most hold none of the tools' names and keys).
    for name in rules.tool_names:
        for form in {name.lower(), name.lower().replace("_", " ")}:
            if form in lowered and re.search(rf"(?<![\w]){re.escape(form)}(?![\w])", lowered):
                problems.append(f"names the tool {name!r}")
                break
    for key in rules.param_keys:
        form = key.lower()
        if form in lowered and re.search(rf"(?<![\w]){re.escape(form)}(?![\w])", lowered):
            problems.append(f"uses the parameter key {key!r}")
    for value in rules.hidden_ids:
        if value and value.lower() in lowered:
            problems.append(f"contains the internal id {value!r}, which the user does not know")
    if _NUMBERED.search(message):
        problems.append("lists numbered steps")
    return problems


def missing_facts(message: str, facts: list[Fact]) -> list[str]:
    """Facts the opening message must carry but does not."""
    lowered = message.lower()
    missing = []
    for fact in facts:
        if fact.in_opening and not all(m.lower() in lowered for m in fact.must):
            missing.append(f"drops {fact.text!r} (needs {', '.join(repr(m) for m in fact.must)})")
    return missing


def wording_problems(message: str, facts: list[Fact]) -> list[str]:
    """Words a person would not write: a generator word (``broken_binding``) that is not a
    value the user holds themselves, or a sentence that reads as a form ("Insurance: no.")."""
    own = " ".join(m for f in facts for m in f.must).lower()
    problems = [
        f"writes {token!r} as a code; say it in words"
        for token in snake_case_tokens(message)
        if token not in own
    ]
    problems += [f"reads as a form ({dump!r}); say it in a sentence" for dump in field_dumps(message)]
    return problems


def check_message(message: str, facts: list[Fact], rules: LeakRules) -> list[str]:
    return leak_problems(message, rules) + wording_problems(message, facts) + missing_facts(message, facts)


# ---------------------------------------------------------------- the LLM path


LLM_SYSTEM_PROMPT = """You write the first message a customer sends to a support agent.
Rules:
- Write as the customer, in the first person, in plain conversational prose (2-5 sentences).
- Start from your situation: what happened or what you need, then what you would like; do not
  describe how the agent should do it, and never chain steps ("do this; then that").
- Never mention tools, functions, APIs, parameter names, or internal ids.
- Never use a numbered or bulleted list of steps, and never write "Label: value".
- Say things in words as a person would, never a code with underscores.
- Include every fact marked MUST, copying each quoted string exactly as given.
- Do not include identity details unless you want to; the agent can ask for them.
- Reply with the message only."""


def llm_prompt(facts: list[Fact], goal_intents: list[str], persona: str) -> list[dict[str, Any]]:
    """The chat messages asking a model for one task's opening message.

    The prompt carries no tool name, parameter key or internal id, not even as a list of
    words to avoid: a small model copies what it is shown. ``check_message`` judges the
    reply afterwards and its reasons go back to the model (``calibrate_llm``)."""
    must = [
        f"- MUST: {', '.join(json.dumps(m, ensure_ascii=False) for m in f.must)} ({f.kind})"
        for f in facts
        if f.in_opening
    ]
    optional = [
        f"- may mention: {_fact_label(f.key)} = {json.dumps(f.text, ensure_ascii=False)}"
        for f in facts
        if not f.in_opening
    ]
    body = "\n".join([f"Persona: {persona}", f"Goals: {'; '.join(goal_intents)}", "Facts:", *must, *optional])
    return [{"role": "system", "content": LLM_SYSTEM_PROMPT}, {"role": "user", "content": body}]


def _fact_label(key: str) -> str:
    """What a fact is about in plain words: ``modify_user_address.zip`` -> ``zip``,
    ``payment_method_id`` -> ``payment method`` (a key's tool prefix and ``id`` never show)."""
    words = re.findall(r"[a-z]+", key.rsplit(".", 1)[-1].lower())
    return " ".join(w for w in words if w not in ("id", "ids")) or "detail"


@dataclass(frozen=True)
class Rewrite:
    """One task's LLM calibration. ``message`` is the accepted opening message, or None
    when every attempt was rejected or the endpoint failed (``endpoint_error`` says how);
    ``calibration`` records the rejections and the tokens and cost of every attempt."""

    message: str | None
    calibration: Calibration
    endpoint_error: str | None = None


async def calibrate_llm(
    client: Any, facts: list[Fact], goal_intents: list[str], persona: str, rules: LeakRules, attempts: int = 2
) -> Rewrite:
    """Ask ``client`` (an ``envfactory_mcp.llm.LLMClient``) for the opening message, at most
    ``attempts`` times; a reply ``check_message`` rejects goes back with the reasons.

    Never raises for the endpoint: an ``LLMError`` ends the attempts and is returned in
    ``endpoint_error``. Tokens and cost are summed over every answered attempt, rejected
    ones included (``cost_usd`` stays None when the model's price is unknown)."""
    from envfactory_mcp.llm import LLMError

    method = f"llm:{client.model}"
    messages = llm_prompt(facts, goal_intents, persona)
    rejected: list[str] = []
    spent: dict[str, Any] = {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None}
    for _ in range(attempts):
        try:
            response = await client.complete(messages, temperature=0.7)
        except LLMError as exc:
            rejected.append(f"model error: {exc}")
            return Rewrite(None, Calibration(method=method, rejected=rejected, **spent), str(exc))
        spent["prompt_tokens"] += response.usage.prompt_tokens
        spent["completion_tokens"] += response.usage.completion_tokens
        if response.cost_usd is not None:
            spent["cost_usd"] = (spent["cost_usd"] or 0.0) + response.cost_usd
        text = (response.content or "").strip()
        problems = check_message(text, facts, rules) if text else ["empty reply"]
        if not problems:
            calibration = Calibration(method=method, operations=["llm_rewrite"], rejected=rejected, **spent)
            return Rewrite(text, calibration)
        rejected.append("; ".join(problems))
        messages = [
            *messages,
            {"role": "assistant", "content": text},
            {
                "role": "user",
                "content": "That message was rejected: " + "; ".join(problems) + ". Write it again.",
            },
        ]
    return Rewrite(None, Calibration(method=method, rejected=rejected, **spent))


@dataclass(frozen=True)
class Recalibration:
    """The tasks after LLM calibration, in input order, and what happened to them:
    ``rewritten`` got the model's message; the others kept their offline message, either
    because every rewrite was ``rejected`` or because the endpoint failed
    (``endpoint_errors``, with the distinct ``errors``)."""

    tasks: list[Task]
    rewritten: int
    rejected: int
    endpoint_errors: int
    errors: list[str]
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None


async def recalibrate_with_llm(
    tasks: list[Task], spec: Any, client: Any, concurrency: int = 4
) -> Recalibration:
    """Rewrite every task's opening message through ``client``, ``concurrency`` at a time.

    A rewrite that fails the checks twice, or an endpoint that errors after its retries,
    leaves the offline message in place; ``calibration.rejected`` records why and the
    calibration's token and cost fields what was spent, so nothing is lost and nothing
    unchecked gets in. The result counts each outcome: a caller must not mistake tasks
    kept offline for an endpoint failure for calibrated ones."""
    import anyio

    results: list[Task | None] = [None] * len(tasks)
    rewrites: list[Rewrite | None] = [None] * len(tasks)
    limiter = anyio.CapacityLimiter(max(1, concurrency))

    async def one(index: int, task: Task) -> None:
        async with limiter:
            scenario = task.user_scenario
            rules = leak_rules_for(
                spec, scenario.known_info, [(a.name, a.arguments) for a in task.gold.actions]
            )
            intents = scenario.reason_for_call.split("; ")
            rewrite = await calibrate_llm(client, scenario.known_info, intents, scenario.persona, rules)
            rewrites[index] = rewrite
            calibration = rewrite.calibration
            if rewrite.message is None:
                spent = calibration.model_dump(
                    include={"rejected", "prompt_tokens", "completion_tokens", "cost_usd"}
                )
                kept = scenario.calibration.model_copy(update=spent)
                results[index] = task.model_copy(
                    update={"user_scenario": scenario.model_copy(update={"calibration": kept})}
                )
            else:
                updated = scenario.model_copy(
                    update={"opening_message": rewrite.message, "calibration": calibration}
                )
                results[index] = task.model_copy(update={"user_scenario": updated})

    async with anyio.create_task_group() as group:
        for index, task in enumerate(tasks):
            group.start_soon(one, index, task)
    done = [t for t in results if t is not None]
    calibrations = [t.user_scenario.calibration for t in done]
    costs = [c.cost_usd for c in calibrations if c.cost_usd is not None]
    rewritten = sum(1 for r in rewrites if r is not None and r.message is not None)
    failed = [r.endpoint_error for r in rewrites if r is not None and r.endpoint_error is not None]
    return Recalibration(
        tasks=done,
        rewritten=rewritten,
        rejected=len(done) - rewritten - len(failed),
        endpoint_errors=len(failed),
        errors=sorted(set(failed)),
        prompt_tokens=sum(c.prompt_tokens for c in calibrations),
        completion_tokens=sum(c.completion_tokens for c in calibrations),
        cost_usd=sum(costs) if costs else None,
    )
