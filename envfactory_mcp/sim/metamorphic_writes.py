"""The ``extra_write`` mode's planner: a write nobody asked for, after the gold's last write.

Environments guard their writes (a cancelled order cannot be cancelled again), so a
blind repeat mostly fails and changes nothing. The planner tries, one call at a time
and reading each answer: the last write again; with a number, an enum value or a flag
changed; with another value the tools showed under the same name (another payment
method, another item); another write tool on the same object (every required argument
from the write's own, an enum's first value or a value the tools showed); the write on
another object of the same kind that a lookup shows in the state the user's object was
in. After three failed writes in a row the object is looked up again, because five tool
errors in a row end an episode. It stops at the first write that went through and
answered something other than the last write did (a repeat that changes nothing is not
an extra write).
"""

from __future__ import annotations

import json
import re
from typing import Any

from envfactory_mcp.llm import ToolCall
from envfactory_mcp.spec.models import EnvSpec
from envfactory_mcp.tasks.model import GoldAction, Task

MAX_EXTRA_CALLS = 12  # lookups included
Step = tuple[str, dict[str, Any]]  # ("write" | "look" | "check" | <another write tool>, arguments)


def is_write(action: GoldAction, spec: EnvSpec | None) -> bool:
    """Whether the spec says the action's tool writes (without a spec: the policy confirms it)."""
    tool = next((t for t in spec.tools if t.name == action.name), None) if spec else None
    return tool.effect == "write" if tool is not None else action.confirm


def offered_name(tools: dict[str, dict[str, Any]], tool: str) -> str:
    """The name the agent was offered for a spec tool (namespaced when several servers are)."""
    return next((n for n in tools if n.rsplit("__", 1)[-1] == tool), tool)


def values_of(text: str, key: str | None) -> list[str]:
    """String values under ``key`` (any key and list item: None) anywhere in a JSON tool output."""
    try:
        node = json.loads(text)
    except ValueError:
        return []
    found: list[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found += [v for k, v in item.items() if key in (k, None) and isinstance(v, str)]
            stack += list(item.values())
        elif isinstance(item, list):
            found += [v for v in item if key is None and isinstance(v, str)]
            stack += item
    return found


def _shape(value: str) -> str:
    return re.sub(r"\d", "0", value)


def variants(arguments: dict[str, Any], schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The arguments with one value changed within the schema: a number, an enum value, a flag."""
    properties = schema.get("properties", {})
    found: list[dict[str, Any]] = []
    for key, value in arguments.items():
        spec = properties.get(key, {})
        if isinstance(value, bool):
            found.append({**arguments, key: not value})
        elif "enum" in spec:
            choices = [v for v in spec["enum"] if v != value]
            if choices:
                found.append({**arguments, key: choices[0]})
        elif isinstance(value, int | float):
            new: float = value + 1 if isinstance(value, int) else round(value * 2, 2) if value else 10.0
            if "maximum" in spec and new > spec["maximum"]:
                new = value - 1 if isinstance(value, int) else round(value / 2, 2)
            if (
                new != value
                and new >= spec.get("minimum", new)
                and new > spec.get("exclusiveMinimum", new - 1)
            ):
                found.append({**arguments, key: new})
    return found


class ExtraWrites:
    """Plans and follows the extra write of one episode (see the module doc). ``results``
    is the agent's record of what each gold call answered (gold index -> text), read as it
    grows; ``tools`` the offered tools by name."""

    def __init__(
        self, task: Task, spec: EnvSpec | None, tools: dict[str, dict[str, Any]], results: dict[int, str]
    ) -> None:
        self.task, self.spec, self.tools, self.results = task, spec, tools, results
        writes = [i for i, a in enumerate(task.gold.actions) if is_write(a, spec)]
        self.after = writes[-1] if writes else None  # the gold write it follows
        self.base: str | None = None  # that write's answer, while an extra write is due
        self.plan: list[Step] | None = None
        self.doing: Step | None = None
        self.calls = 0
        self.failing = 0  # extra writes that failed in a row

    def gold_answered(self, index: int, text: str, failed: bool) -> None:
        """A gold call was answered: after the last write, an extra write is due."""
        if index == self.after and not failed:
            self.base = text

    def next_call(self) -> ToolCall | None:
        """The next call towards the extra write, or None when none is due (or left to try)."""
        if self.base is None or self.after is None:
            return None
        action = self.task.gold.actions[self.after]
        lookup, key, _ = self.looked_with(action)
        if self.plan is None:
            schema = self._tool(action.name).get("parameters") or {}
            tries = [
                action.arguments,
                *variants(action.arguments, schema)[:1],
                *self.other_values(action)[:2],
            ]
            self.plan = [("write", a) for a in tries] + self.other_tools(action)
            self.plan += [("look", a) for a in self.lookups(action)]
        if not self.plan or self.calls >= MAX_EXTRA_CALLS:
            self.base = None
            return None
        if self.failing >= 3 and self.plan[0][0] != "look":
            if not lookup:
                self.base = None
                return None
            step: Step = ("check", {key: action.arguments[key]})
        else:
            step = self.plan.pop(0)
        self.doing = step
        self.calls += 1
        kind, arguments = step
        tool = action.name if kind == "write" else lookup if kind in ("look", "check") else kind
        return ToolCall.parse(f"extra_{self.calls}", offered_name(self.tools, tool), json.dumps(arguments))

    def answered(self, name: str, text: str, failed: bool) -> str | None:
        """An extra call was answered; returns what was written when an extra write went through."""
        if self.doing is None or self.after is None:
            return None
        kind, arguments = self.doing
        self.doing = None
        self.failing = self.failing + 1 if failed else 0
        if kind in ("look", "check"):
            action = self.task.gold.actions[self.after]
            _, key, before = self.looked_with(action)
            try:
                status = json.loads(text).get("status")
            except (ValueError, AttributeError):
                status = None
            if kind == "look" and not failed and status == before and self.plan is not None:
                # another object in the state the user's was in: the write may go through there
                self.plan.insert(0, ("write", {**action.arguments, key: arguments[key]}))
            return None
        if failed or text == self.base:
            return None
        self.base = None
        return f"extra write {name}({json.dumps(arguments)[:120]})"

    def looked_with(self, action: GoldAction) -> tuple[str, str, Any]:
        """The gold's lookup of the write's object: (its tool, the id's name, the status it showed)."""
        for looked in self.task.gold.actions:
            if is_write(looked, self.spec) or len(looked.arguments) != 1:
                continue
            ((key, value),) = looked.arguments.items()
            if action.arguments.get(key) == value:
                return looked.name, key, looked.output.get("status")
        return "", "", None

    def _seen(self, key: str | None) -> list[str]:
        """Values the tools showed under ``key``, the latest first, each once."""
        return list(
            dict.fromkeys(v for text in reversed(self.results.values()) for v in values_of(text, key))
        )

    def _tool(self, name: str) -> dict[str, Any]:
        return self.tools.get(offered_name(self.tools, name), {})

    def other_values(self, action: GoldAction) -> list[dict[str, Any]]:
        """The write with one argument (not its object's id, not an enum) set to another
        value the tools showed under the same name: another payment method, another item."""
        _, subject, _ = self.looked_with(action)
        properties = (self._tool(action.name).get("parameters") or {}).get("properties", {})
        found = []
        for key, value in action.arguments.items():
            first = value[0] if isinstance(value, list) and value else value
            if key == subject or not isinstance(first, str) or "enum" in properties.get(key, {}):
                continue
            listed = value if isinstance(value, list) else [value]
            other = next(
                (
                    v
                    for v in self._seen(key.removesuffix("s") if isinstance(value, list) else key)
                    if v not in listed
                ),
                None,
            )
            if other is not None:
                found.append(
                    {**action.arguments, key: [other, *value[1:]] if isinstance(value, list) else other}
                )
        return found

    def other_tools(self, action: GoldAction) -> list[Step]:
        """Other write tools on the write's object, each with the latest and the one-before
        value the tools showed for what the write does not say."""
        if self.spec is None:
            return []
        found: list[Step] = []
        for tool in self.spec.tools:
            if (
                tool.effect != "write"
                or tool.name == action.name
                or offered_name(self.tools, tool.name) not in self.tools
            ):
                continue
            schema = self._tool(tool.name).get("parameters") or {}
            properties = schema.get("properties", {})
            for pick in (0, 1):
                arguments: dict[str, Any] = {}
                for key in schema.get("required", []):
                    seen, enum = self._seen(key), properties.get(key, {}).get("enum")
                    if key in action.arguments:
                        arguments[key] = action.arguments[key]
                    elif enum:
                        arguments[key] = enum[pick % len(enum)]
                    elif seen:
                        arguments[key] = seen[pick % len(seen)]
                    else:
                        break
                else:
                    if set(arguments) & set(action.arguments) and (tool.name, arguments) not in found:
                        found.append((tool.name, arguments))  # about the same object
        return found

    def lookups(self, action: GoldAction) -> list[dict[str, Any]]:
        """Lookups of other objects like the write's (ids of the same shape the tools showed)."""
        tool, key, _ = self.looked_with(action)
        if not tool:
            return []
        value = str(action.arguments[key])
        return [{key: v} for v in self._seen(None) if v != value and _shape(v) == _shape(value)]
