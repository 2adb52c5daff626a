"""Hand-built OpenAI chat-format conversations for the scoring tests."""

from __future__ import annotations

import json
from itertools import count
from typing import Any

Message = dict[str, Any]
_ids = count()


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def say(text: str) -> Message:
    return {"role": "assistant", "content": text}


def calls(*named: tuple[str, dict[str, Any]]) -> Message:
    """An assistant turn with these tool calls (arguments as a JSON string, as recorded)."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{next(_ids)}",
                "type": "function",
                "function": {"name": n, "arguments": json.dumps(a)},
            }
            for n, a in named
        ],
    }


def call(name: str, **arguments: Any) -> Message:
    """An assistant turn with one tool call."""
    return calls((name, arguments))


def results(turn: Message, *outputs: Any) -> list[Message]:
    """The tool messages answering the calls of ``turn``, in order (non-text outputs as JSON)."""
    return [
        {
            "role": "tool",
            "tool_call_id": c["id"],
            "name": c["function"]["name"],
            "content": out if isinstance(out, str) else json.dumps(out),
        }
        for c, out in zip(turn["tool_calls"], outputs, strict=True)
    ]


def exchange(name: str, output: Any = '{"ok": true}', **arguments: Any) -> list[Message]:
    """One call and its answer."""
    turn = call(name, **arguments)
    return [turn, *results(turn, output)]


def solving_script(task: Any) -> list[dict[str, Any]]:
    """Replies of a scripted model that solves ``task`` (an ``OpenAI`` script for
    ``llm_server.openai_server``): before each write the policy wants confirmed it asks
    (the scripted user says yes), then the gold calls one by one, then every claim."""
    script: list[dict[str, Any]] = []
    for action in task.gold.actions:
        if action.confirm:
            script.append({"content": f"I can {action.name.replace('_', ' ')} now. Shall I go ahead?"})
        script.append({"tool_calls": [{"name": action.name, "arguments": json.dumps(action.arguments)}]})
    return [*script, {"content": "All done. " + " ".join(c.text for c in task.gold.claims)}]
