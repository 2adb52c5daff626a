"""Are two environments distinct services, or one service renamed?

A rename keeps every shape and changes every name, so the comparison ignores names and
looks at shapes only:

* a **table shape** is the sorted list of its column types (an enum counts as
  ``enum<k>`` with its number of values, a reference as ``ref``), with its key width;
* a **tool shape** is its effect, its arguments' types and which are required, and the
  shape of what it returns (a row of a table returns that table's column types);
* a **rule shape** is a policy rule's kind and numbers: a status refusal by how many
  states allow it, and each business rule beyond status (issue 31) by its kind, limit,
  side and hours, states and matched columns (a quota of two among two states, a window of
  24 hours before a moment), names left out.

An environment is the multiset of its table and tool shapes; the similarity of two is
the weighted Jaccard index of those multisets (shared shapes counted as often as both
have them, over all shapes). A renamed copy scores 1.0. Two services composed from the
same archetypes score high only where their columns and operations match too; the
threshold (``THRESHOLD``) is set from the measured distribution (see
``bench/bench_library.py``) well below 1.0 and above every pair of the shipped library.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

from envfactory_mcp.spec import EnvSpec

# Above this share of identical table and tool shapes, two environments are one service.
# A renamed copy is 1.0; two services that share an archetype and differ in their own
# columns and operations stay under 0.5 (see the module doc and the bench).
THRESHOLD = 0.6


def _type(node: dict[str, Any]) -> str:
    if "enum" in node:
        return f"enum{len([v for v in node['enum'] if v is not None])}"
    kind = node.get("type", "any")
    if isinstance(kind, list):
        kind = "|".join(sorted(str(k) for k in kind if k != "null")) or "null"
    if kind == "array":
        return f"array[{_type(node.get('items', {}))}]"
    if kind == "object":
        return "object{" + ",".join(sorted(_type(v) for v in node.get("properties", {}).values())) + "}"
    return str(kind)


def shapes(spec: EnvSpec) -> Counter[str]:
    """The multiset of table and tool shapes of ``spec`` (names left out)."""
    out: Counter[str] = Counter()
    for table in spec.tables:
        columns = sorted(
            "ref"
            if c.references
            else (f"enum{len(c.enum)}" if c.enum else c.type.lower()) + ("?" if c.nullable else "")
            for c in table.columns
        )
        out[f"table key{len(table.primary_key)}:" + ",".join(columns)] += 1
    for tool in spec.tools:
        props = tool.input_schema.get("properties", {})
        required = set(tool.input_schema.get("required", []))
        args = sorted(_type(v) + ("!" if k in required else "") for k, v in props.items())
        out[f"tool {tool.effect}(" + ",".join(args) + ")->" + _type(tool.output_schema)] += 1
    rules = spec.policy_rules
    if rules is not None:
        for refusal in rules.refusals:
            out[f"rule status allowed{len(refusal.allowed)}"] += 1
        for rule in rules.rules:
            out["rule " + _rule_shape(rule.model_dump(mode="json"))] += 1
    return out


def _rule_shape(rule: dict[str, Any]) -> str:
    """A business rule's kind and numbers, names left out."""
    kind = rule["kind"]
    if kind == "amount":
        return f"amount at_most{rule['at_most']:g}"
    if kind == "window":
        return f"window {rule['side']} {rule['hours']:g}h"
    if kind == "eligibility":
        return f"eligibility allowed{len(rule['allowed'])}"
    states = len(rule.get("states") or [])
    also = len(rule.get("also") or [])
    if kind == "quota":
        period = rule.get("period_days")
        return f"quota at_most{rule['at_most']} states{states} also{also}" + (
            f" per{period}d" if period else ""
        )
    return f"{kind} states{states} also{also}"


def similarity(a: Counter[str], b: Counter[str]) -> float:
    """Weighted Jaccard: shapes both have (as often as both have them) over all shapes."""
    union = sum((a | b).values())
    return sum((a & b).values()) / union if union else 1.0


def pairwise(specs: dict[str, EnvSpec]) -> list[tuple[float, str, str]]:
    """Every pair's similarity, most similar first."""
    shaped = {name: shapes(spec) for name, spec in specs.items()}
    pairs = [(similarity(shaped[x], shaped[y]), x, y) for x, y in combinations(sorted(shaped), 2)]
    return sorted(pairs, reverse=True)


def too_similar(specs: dict[str, EnvSpec], threshold: float = THRESHOLD) -> list[tuple[float, str, str]]:
    """The pairs above ``threshold``: services that are not distinct."""
    return [p for p in pairwise(specs) if p[0] > threshold]
