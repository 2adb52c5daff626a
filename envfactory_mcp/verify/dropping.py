"""Per-tool verdicts: a tool that fails verification is dropped, and the rest is served.

A document of hundreds of operations should not be lost to one operation whose tool
cannot be made to work from its seed. ``droppable`` reads a failed report and says which
tools failed on their own (each with its reasons), or None when the failure is the
environment's: a stage before the probes (spec, files, runtime, static gate, data SQL,
seed, load), an attempt to get out of the sandbox, a reset that does not restore the
seed, or a tool the policy cannot do without (an authentication tool, the read tool a
refusal rule shows its state with, the hand-off, the calculator). ``without_tools``
makes the environment without those tools: their spec entries, their mentions in the
policy rules (``confirm``, ``exempt``, ``utilities``, their own refusal rules), the
policy text (``policy_without``: never a word about a tool that is not served) and their
top-level functions in the tool code (when nothing else names them).

The package is then rendered and verified again from scratch (``build.emit_verified``),
so what is signed is exactly the package served: it holds only tools that passed, and
its report lists the dropped ones, with their reasons, in ``dropped``. ``--strict``
keeps the old all-or-nothing verdict.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from envfactory_mcp.env.environment import Environment, environment_from_parts
from envfactory_mcp.errors import EnvFactoryError, SpecError
from envfactory_mcp.spec import EnvSpec
from envfactory_mcp.spec.validate import validate_spec
from envfactory_mcp.verify.report import DroppedTool, VerificationReport
from envfactory_mcp.verify.static_gate import parse_python

T = TypeVar("T")
MAX_ROUNDS = 4  # verifications of one environment: the first, then after each drop

# Environment checks whose failure is a tool's own, when the failure names the tool.
_TOOL_OWNED_ENVIRONMENT_CHECKS = frozenset({"stdio"})


def essential_tools(spec: EnvSpec) -> set[str]:
    """Tools the policy cannot do without: dropping one would change what the policy says."""
    rules = spec.policy_rules
    names: set[str] = set()
    if rules.authentication is not None:
        names.update(rules.authentication.tools)
    names.update(rule.shown_by for rule in rules.refusals)
    if rules.transfer is not None:
        names.add(rules.transfer.tool)
    if rules.calculator is not None:
        names.add(rules.calculator)
    return names


def failing_tools(report: VerificationReport) -> dict[str, str]:
    """Each tool with a failed check, and its failed checks as one reason."""
    failing: dict[str, str] = {}
    for tool in report.tools:
        reasons = [f"{c.check}: {c.reason}" for c in tool.checks if c.failed]
        if reasons:
            failing[tool.tool] = "; ".join(reasons)
    for check in report.environment:
        if check.failed and check.check in _TOOL_OWNED_ENVIRONMENT_CHECKS and check.probe is not None:
            owner = check.probe.id.split("/", 1)[0]
            failing.setdefault(owner, f"{check.check}: {check.reason}")
    return failing


def droppable(report: VerificationReport, spec: EnvSpec) -> tuple[dict[str, str] | None, str]:
    """``({tool: reason}, "")`` when the report failed only through tools that can be
    dropped (some tool remaining), else ``(None, why not)``."""
    if report.passed:
        return {}, ""
    declared = {t.name for t in spec.tools}
    failing = failing_tools(report)
    for check in report.environment:
        if not check.failed:
            continue
        owned = check.check in _TOOL_OWNED_ENVIRONMENT_CHECKS and check.probe is not None
        if not owned or check.probe is None or check.probe.id.split("/", 1)[0] not in declared:
            return None, f"the environment failed its {check.check!r} check: {check.reason}"
    if not failing:
        return None, "nothing to drop"
    unknown = sorted(set(failing) - declared)
    if unknown:
        return None, f"the report names tools the spec does not declare: {', '.join(unknown)}"
    needed = sorted(set(failing) & essential_tools(spec))
    if needed:
        return None, f"the policy cannot do without {', '.join(needed)}, which failed"
    if set(failing) >= declared:
        return None, "every tool failed"
    return failing, ""


def dropped_entries(spec: EnvSpec, failing: dict[str, str]) -> list[DroppedTool]:
    effects = {t.name: t.effect for t in spec.tools}
    return [
        DroppedTool(tool=name, effect=effects.get(name, "read"), reason=failing[name])
        for name in sorted(failing)
    ]


def without_tools(env: Environment, names: Iterable[str]) -> Environment:
    """``env`` without the tools ``names``: spec, policy rules and their code.

    Raises ``EnvFactoryError`` when the rest is not a consistent environment (a shared
    entity only those tools named)."""
    gone = set(names)
    spec = env.spec
    rules = spec.policy_rules
    auth = rules.authentication
    if auth is not None:
        auth = auth.model_copy(update={"exempt": [t for t in auth.exempt if t not in gone]})
    rules = rules.model_copy(
        update={
            "authentication": auth,
            "confirm": [t for t in rules.confirm if t not in gone],
            "refusals": [r for r in rules.refusals if r.tool not in gone],
            "utilities": [t for t in rules.utilities if t not in gone],
        }
    )
    kept = [t for t in spec.tools if t.name not in gone]
    policy = policy_without(spec.policy, gone)
    try:
        reduced = validate_spec(
            spec.model_copy(update={"tools": kept, "policy_rules": rules, "policy": policy})
        )
    except SpecError as exc:
        raise EnvFactoryError(
            f"{spec.name}: without {', '.join(sorted(gone))} the spec is inconsistent: {exc}"
        ) from None
    return environment_from_parts(
        reduced,
        remove_functions(env.tools_source, gone),
        env.tools_module,
        env.schema_sql,
        env.seed_sql,
        check_tools=False,
    )


_NAME_LIST = re.compile(r"`[^`\n]+`(?:(?:,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)`[^`\n]+`)*(?:,\s*\.\.\.)?")


def policy_without(text: str, gone: Iterable[str]) -> str:
    """The policy ``text`` without a word about the tools ``gone``: each is taken out of
    the lists of quoted names it is in (```a`, `b` and `c```); a sentence whose list is
    left empty, and any other sentence that still names one of them, goes; a line left
    with nothing goes, and a heading left with nothing under it. The agent is never told
    about a tool the server does not serve."""
    names = {n for n in gone if n}
    if not names:
        return text
    word = re.compile(
        r"(?<![\w.])(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?!\w)"
    )

    def shorten(match: re.Match[str]) -> str:
        listed = re.findall(r"`([^`\n]+)`", match.group(0))
        kept = [n for n in listed if n not in names]
        if len(kept) == len(listed):
            return match.group(0)
        if not kept:
            return "\x00"  # the sentence holding it goes
        more = ", ..." if match.group(0).rstrip().endswith("...") else ""
        quoted = [f"`{n}`" for n in kept]
        joiner = " and " if " and `" in match.group(0) else " or " if " or `" in match.group(0) else ", "
        if len(quoted) > 1 and joiner != ", ":
            return ", ".join(quoted[:-1]) + joiner + quoted[-1] + more
        return ", ".join(quoted) + more

    out: list[str] = []
    for line in text.split("\n"):
        changed = _NAME_LIST.sub(shorten, line)
        if changed == line and not word.search(line):
            out.append(line)
            continue
        body = changed.lstrip()
        indent = changed[: len(changed) - len(body)]
        bullet = re.match(r"(?:[-*+]|\d+[.)])\s+", body)
        lead = bullet.group(0) if bullet else ""
        sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z`(])", body[len(lead) :])
        kept = [s for s in sentences if "\x00" not in s and not word.search(s)]
        if kept:
            out.append(indent + lead + " ".join(kept))
    return _without_empty_sections("\n".join(out))


def _without_empty_sections(text: str) -> str:
    """Headings with nothing under them (up to the next heading of the same or a higher
    level) taken out, and runs of blank lines made one."""
    lines = text.split("\n")
    keep = [True] * len(lines)
    for i, line in enumerate(lines):
        heading = re.match(r"(#+)\s", line)
        if not heading:
            continue
        level = len(heading.group(1))
        j = i + 1
        while j < len(lines):
            other = re.match(r"(#+)\s", lines[j])
            if other and len(other.group(1)) <= level:
                break
            if lines[j].strip() and not other:
                break
            j += 1
        else:
            j = len(lines)
        if j == len(lines) or re.match(r"(#+)\s", lines[j]):
            keep[i] = False
    kept = [line for line, k in zip(lines, keep, strict=True) if k]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept))


def remove_functions(source: str, names: set[str]) -> str:
    """``source`` without its top-level functions ``names`` (decorators included), each
    only when no other code of the module mentions its name; unchanged when it does not parse."""
    try:
        tree = parse_python(source)
    except SyntaxError:
        return source
    targets = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in names
    ]
    if not targets:
        return source
    mentioned: dict[str, int] = {}
    for node in ast.walk(tree):
        name = (
            node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        )
        if name is not None:
            mentioned[name] = mentioned.get(name, 0) + 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
            mentioned[node.value] = mentioned.get(node.value, 0) + 1
    lines = source.splitlines(keepends=True)
    for node in sorted(targets, key=lambda n: n.lineno, reverse=True):
        if mentioned.get(node.name):
            continue  # called or looked up by name elsewhere: the code stays, unserved
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)]) - 1
        last = node.end_lineno or node.lineno
        while last < len(lines) and not lines[last].strip():
            last += 1  # the blank lines after it go too
        del lines[first:last]
    return "".join(lines)


def keep_what_verifies(
    env: Environment,
    build: Callable[[Environment, tuple[DroppedTool, ...]], T],
    strict: bool = False,
    progress: Callable[[str], None] | None = None,
) -> T:
    """``build(env, ())``; when it fails verification (an ``EnvFactoryError`` carrying a
    ``report``, as ``build.VerificationFailed`` does) only through tools that can be
    dropped, ``build`` again without them, passing every tool dropped so far (for the
    report's ``dropped`` and the fidelity table). ``strict``: all or nothing, the first
    failure is raised. The last failure is raised when nothing can be dropped."""
    dropped: tuple[DroppedTool, ...] = ()
    for round_number in range(1, MAX_ROUNDS + 1):
        try:
            return build(env, dropped)
        except EnvFactoryError as exc:
            report = getattr(exc, "report", None)
            if strict or not isinstance(report, VerificationReport) or round_number == MAX_ROUNDS:
                raise
            failing, why = droppable(report, env.spec)
            if not failing:
                if progress:
                    progress(f"{env.spec.name}: no tool dropped ({why})")
                raise
            more = dropped_entries(env.spec, failing)
            if progress:
                shown = ", ".join(d.tool for d in more[:8]) + (
                    f" and {len(more) - 8} more" if len(more) > 8 else ""
                )
                progress(
                    f"{env.spec.name}: {len(more)} of {len(env.spec.tools)} tools failed verification and are "
                    f"dropped ({shown}); verifying the other {len(env.spec.tools) - len(more)} again"
                )
            env = without_tools(env, failing)
            dropped += tuple(more)
    raise AssertionError("unreachable")  # pragma: no cover
