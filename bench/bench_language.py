"""Language benchmark (issue 26, its acceptance): is the dialogue language worth imitating?

    python bench/bench_language.py [--envs retail,airline,telecom] [--tasks 150] [--eval-tasks 40]
                                   [--seed 9] [--repeat 1] [--blind-scenario] [--blind-agent NAME]
                                   [--baseline <git rev>]
                                   [--json out.json]

Per environment: ``--tasks`` tasks (``tasks.generate.generate_tasks``, seed 9), played once by
the demonstrator and the scripted user over the in-memory transport through the host's
own rollout (``host.rollout.rollout``, ``RolloutConfig(agent="demonstrator",
transport="memory")``), and ``--eval-tasks`` evaluation prompts built as ``envfactory-mcp
eval`` builds them (``eval.main.eval_tasks`` over that one environment). The figures come
from ``envfactory_mcp/tasks/naturalness.py`` (see its docstring for each definition)
and are printed with their targets and pass/FAIL:

* assistant distinct-2 at 2,000 tokens >= 0.5; assistant sentences recurring in > 5% of
  episodes <= 15%; customer-voice assistant turns 0; snake_case words in user or assistant
  text 0; stock request sentences (shared by >= 3% of tasks) <= 5%; evaluation prompts
  naming a tool or field of their servers 0;
* the demonstrator with the gold removed: the same tasks again, the agent handed a copy of
  each task whose gold is stripped (``strip_gold``: actions, claims, goals' tool / actions /
  taken / reason, required calls, final hash, diff) by ``BlindAgent``, a wrapper that strips
  before delegating ``start()``; the user and the scoring keep the real task. Target: reward
  1.0 on every task. An agent that raises (today's demonstrator reads the gold) ends its
  episode, which counts as reward 0 with the exception in one line. ``--blind-agent`` names
  the agent wrapped (default ``demonstrator``: a rollout agent name, or ``module:Class`` built
  as ``Class(seed=, spec=)`` with the package's spec). ``--blind-scenario``
  also strips what the user knows (``user_scenario`` but the opening message) for a third run.
* assistant turns naming a tool or field of the environment in prose (``names_tool_or_field``:
  "the balance due is", "pay bill B1"), target 0, beside the eval prompts' own figure;
* for information: the demonstrator's own mean reward, field dumps ("Insurance: no.") in
  requests and in assistant turns.

The figures are deterministic for a seed; ``--repeat k`` repeats the whole measurement and
prints the median CPU time (the figures of every repeat must agree, else the bench says so).
``--baseline <rev>`` measures another revision too: a git worktree of it under /tmp, the
same collection run there in a subprocess with ``PYTHONPATH`` pointing at it (its own
``generated_servers``), and its figures printed in brackets beside this one's; the metrics
are always this checkout's ``naturalness.py`` (loaded by path), so both are measured alike. A
revision without the API the collection needs is named in one line.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ENVS = "retail,airline,telecom"
LACKS_API = 3  # the collection's exit status when the revision lacks an API it needs


def load_language() -> ModuleType:
    """This checkout's metrics module, by path (stdlib only), so a baseline revision that
    lacks it is measured with the same definitions."""
    path = ROOT / "envfactory_mcp" / "tasks" / "naturalness.py"
    spec = importlib.util.spec_from_file_location("bench_language_metrics", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


LANG = load_language()


# ----------------------------------------------------------------------------- the blind agent


def strip_gold(task: Any, scenario: bool = False) -> Any:
    """A copy of ``task`` whose gold says nothing: no actions, claims, required calls, final
    hash or diff; goals keep their kind and the user's phrases (intent, requested, condition,
    otherwise, request) but lose their tool, actions, branch taken and reason. With
    ``scenario`` the user scenario keeps only the opening message (the agent sees that
    anyway). Fields a revision does not have are skipped."""
    gold = task.gold
    fields = type(gold).model_fields
    update: dict[str, Any] = {}
    for name, empty in (
        ("actions", []),
        ("claims", []),
        ("required_calls", []),
        ("final_state_hash", ""),
        ("diff", {}),
    ):
        if name in fields:
            update[name] = empty
    if "goals" in fields:
        goals = []
        for goal in gold.goals:
            goal_fields = type(goal).model_fields
            blank: dict[str, Any] = {"tool": "", "actions": [], "taken": None, "reason": None}
            goals.append(goal.model_copy(update={k: v for k, v in blank.items() if k in goal_fields}))
        update["goals"] = goals
    changes: dict[str, Any] = {"gold": gold.model_copy(update=update)}
    if scenario:
        s = task.user_scenario
        blank_s = {
            "known_info": [],
            "unknown_info": [],
            "reason_for_call": "",
            "instructions_overspecified": "",
        }
        changes["user_scenario"] = s.model_copy(
            update={k: v for k, v in blank_s.items() if k in type(s).model_fields}
        )
    return task.model_copy(update=changes)


class BlindAgent:
    """Delegates to ``inner`` after handing it ``strip_gold(task)`` in ``start()``. Whatever
    ``inner`` raises (in ``start`` or ``act``) is kept in ``failures[task_id]`` (one line)
    and re-raised as an ``LLMError`` of kind ``other``, which the host records as the
    agent's failure (``agent_error``) and ends the episode with; the bench counts such an
    episode as reward 0."""

    def __init__(self, inner: Any, failures: dict[str, str], scenario: bool = False) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "demonstrator")
        self.failures = failures
        self.scenario = scenario
        self.task_id = ""
        self.failed: str | None = None

    def start(self, task: Any, tools: list[dict[str, Any]], system_prompt: str) -> None:
        self.task_id = task.task_id
        try:
            self.inner.start(strip_gold(task, self.scenario), tools, system_prompt)
        except Exception as exc:  # noqa: BLE001 - every failure of the agent is the episode's
            self.failed = one_line(exc)

    async def act(self, messages: list[dict[str, Any]]) -> Any:
        from envfactory_mcp.llm import LLMError

        if self.failed is None:
            try:
                return await self.inner.act(messages)
            except LLMError:
                raise
            except Exception as exc:  # noqa: BLE001 - as above
                self.failed = one_line(exc)
        self.failures[self.task_id] = self.failed
        raise LLMError("blind-demonstrator", "other", 1, self.failed)


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}"[:200]


# ----------------------------------------------------------------------------- collection


def collect(
    envs: list[str],
    n: int,
    n_eval: int,
    seed: int,
    servers_dir: Path,
    blind_scenario: bool,
    blind_agent: str = "demonstrator",
) -> dict[str, Any]:
    """Raw material per environment (texts, messages, rewards), with the revision's own API."""
    import anyio

    try:
        from envfactory_mcp.catalog import load_environment
        from envfactory_mcp.eval.main import EvalConfig, eval_tasks
        from envfactory_mcp.host.rollout import RolloutConfig, make_agent, rollout  # noqa: F401 - make_agent: the API blind runs need
        from envfactory_mcp.tasks.generate import generate_tasks
        from envfactory_mcp.tasks.model import write_tasks
    except ImportError as exc:
        print(f"lacks the API the bench needs: {one_line(exc)}", file=sys.stderr)
        sys.exit(LACKS_API)
    out: dict[str, Any] = {}
    for env_name in envs:
        started = time.process_time()
        env = load_environment(env_name, servers_dir).env
        tasks, _ = generate_tasks(env, n, seed=seed)
        by_id = {t.task_id: t for t in tasks}
        with tempfile.TemporaryDirectory(prefix="bench_language_") as tmp:
            path = Path(tmp) / "tasks.jsonl"
            write_tasks(tasks, path)

            def config(path: Path = path, env_name: str = env_name) -> Any:
                return RolloutConfig(
                    envs=[env_name],
                    tasks_path=str(path),
                    agent="demonstrator",
                    transport="memory",
                    servers_dir=str(servers_dir),
                    seed=seed,
                )

            try:
                anyio.run(rollout, config(), Path(tmp) / "run")
            except TypeError as exc:  # an older RolloutConfig without these fields
                print(f"lacks the API the bench needs: {one_line(exc)}", file=sys.stderr)
                sys.exit(LACKS_API)
            records = read_records(Path(tmp) / "run")
            blind: dict[str, list[dict[str, Any]]] = {}
            for label, scenario in [("gold", False)] + ([("scenario", True)] if blind_scenario else []):
                failures: dict[str, str] = {}

                def factory(
                    c: Any, t: Any, failures: dict[str, str] = failures, scenario: bool = scenario
                ) -> Any:
                    return BlindAgent(blind_inner(blind_agent, c, t), failures, scenario)

                anyio.run(rollout, config(), Path(tmp) / f"blind_{label}", None, factory)
                blind[label] = [
                    {
                        "task_id": r["task_id"],
                        "reward": 0.0 if r["task_id"] in failures else r.get("reward"),
                        "reason": failures.get(r["task_id"]) or blind_reason(r),
                    }
                    for r in read_records(Path(tmp) / f"blind_{label}")
                ]
        prompts = []
        tool_names, field_names = LANG.spec_vocabulary(env.spec)
        for et in eval_tasks(EvalConfig(envs=[env_name], n=n_eval, seed=seed), [env]):
            prompts.append(
                {
                    "text": et.task.user_scenario.opening_message,
                    "tools": sorted(tool_names),
                    "fields": sorted(field_names),
                }
            )
        out[env_name] = {
            "requests": [t.user_scenario.opening_message for t in tasks],
            "request_values": [[v for v in [getattr(t.user_scenario, "name", None)] if v] for t in tasks],
            "episodes": [
                {"task_id": r["task_id"], "messages": r["messages"], "reward": r.get("reward")}
                for r in records
            ],
            "blind": blind,
            "prompts": prompts,
            "tools": sorted(tool_names),
            "fields": sorted(field_names),
            "tasks": len(by_id),
            "cpu_s": time.process_time() - started,
        }
    return out


def blind_inner(name: str, config: Any, task: Any) -> Any:
    """The agent the blind run wraps: ``module:Class`` (built as ``Class(seed=, spec=)`` with
    the package's spec), else a rollout agent name (``make_agent`` with ``agent=name``)."""
    import dataclasses

    from envfactory_mcp.host.rollout import make_agent

    if ":" in name:
        from envfactory_mcp.catalog import package_spec

        module, _, cls = name.partition(":")
        agent_class = getattr(importlib.import_module(module), cls)
        return agent_class(seed=config.seed, spec=package_spec(Path(config.servers_dir), task.env))
    return make_agent(dataclasses.replace(config, agent=name), task)


def blind_reason(record: dict[str, Any]) -> str:
    """Why a blind episode fell short, in one line ("" for reward 1.0)."""
    reward = record.get("reward") or 0.0
    if reward == 1.0:
        return ""
    calls = sum(len(m.get("tool_calls") or []) for m in record["messages"] if m.get("role") == "assistant")
    detail = (record.get("termination_detail") or "")[:60]
    return f"reward {reward:.2f} after {calls} tool call{'s' * (calls != 1)} (ended by {record.get('termination')} {detail})"


def read_records(run: Path) -> list[dict[str, Any]]:
    """The last record of each (task, trial) of a run directory, as plain JSON."""
    last: dict[tuple[str, int], dict[str, Any]] = {}
    for line in (run / "trajectories.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            last[(r["task_id"], r.get("trial", 0))] = r
    return list(last.values())


# ----------------------------------------------------------------------------- figures

ROWS: list[tuple[str, str, str]] = [  # key, label, target
    ("assistant_distinct2", "assistant distinct-2 @2,000 tokens", ">= 0.5"),
    ("recurring_sentence_share", "assistant sentences in > 5% of episodes", "<= 15%"),
    ("customer_voice_turns", "customer-voice assistant turns", "0"),
    ("snake_case_words", "snake_case words (user + assistant)", "0"),
    ("stock_sentence_share", "stock request sentences (>= 3% of tasks)", "<= 5%"),
    ("eval_prompts_naming", "eval prompts naming a tool or field", "0"),
    ("assistant_turns_naming", "assistant turns naming a tool or field", "0"),
    ("eval_prompt_snake_case", "snake_case words in eval prompts", "0"),
    ("blind_mean_reward", "gold removed: mean reward", "1.0"),
    ("blind_below_1", "gold removed: tasks below 1.0", "0"),
    ("blind_scenario_mean_reward", "gold + scenario removed: mean reward", "1.0"),
    ("blind_scenario_below_1", "gold + scenario removed: tasks below 1.0", "0"),
    ("demonstrator_mean_reward", "(info) demonstrator mean reward", ""),
    ("customer_voice_episodes", "(info) episodes with customer voice", ""),
    ("request_field_dumps", "(info) field dumps in requests", ""),
    ("assistant_field_dumps", "(info) field dumps in assistant turns", ""),
    ("episodes", "(info) episodes / tasks", ""),
]
PASS_RULES = {
    "assistant_turns_naming": ("<=", 0.0),  # the assistant's voice: never a field name in prose
    "blind_mean_reward": (">=", 1.0),
    "blind_below_1": ("<=", 0.0),
    "blind_scenario_mean_reward": (">=", 1.0),
    "blind_scenario_below_1": ("<=", 0.0),
}
SHARES = {"recurring_sentence_share", "stock_sentence_share"}


def figures(data: dict[str, Any]) -> dict[str, Any]:
    """The figures (and a few examples) of one environment's raw material."""
    episodes = [e["messages"] for e in data["episodes"]]
    prompts = [(p["text"], p["tools"], p["fields"]) for p in data["prompts"]]
    fig: dict[str, Any] = dict(
        LANG.language_figures(episodes, data["requests"], data["request_values"], prompts)
    )
    rewards = [e["reward"] or 0.0 for e in data["episodes"]]
    fig["demonstrator_mean_reward"] = sum(rewards) / len(rewards) if rewards else 0.0
    fig["episodes"] = f"{len(episodes)} / {data['tasks']}"
    for label, key in (("gold", "blind"), ("scenario", "blind_scenario")):
        runs = data["blind"].get(label)
        if runs is None:
            continue
        values = [r["reward"] or 0.0 for r in runs]
        fig[f"{key}_mean_reward"] = sum(values) / len(values) if values else 0.0
        fig[f"{key}_below_1"] = float(sum(1 for v in values if v < 1.0))
        fig[f"{key}_reasons"] = Counter(r["reason"][:110] for r in runs if r["reason"]).most_common(3)
    tools, fields = data["tools"], data["fields"]
    fig["assistant_turns_naming"] = float(
        sum(
            1
            for m in episodes
            for t in LANG.texts_of(m, "assistant")
            if LANG.names_tool_or_field(t, tools, fields)
        )
    )
    rec = LANG.recurring_sentences(episodes, top=3)
    stock = LANG.stock_sentences(data["requests"], values=data["request_values"], top=3)
    fig["examples"] = {
        "recurring": [f"{n} eps: {k[:90]}" for k, n in rec.top],
        "customer_voice": [
            f"{n}x {k[:70]}"
            for k, n in Counter(
                LANG.request_key(f)
                for _, t in LANG.customer_voice_turns(episodes)
                for f in LANG.customer_voice(t)
            ).most_common(3)
        ],
        "snake_case": [
            w for w, _ in Counter(w for _, _, w in LANG.snake_case_in_episodes(episodes)).most_common(3)
        ],
        "stock": [f"{n} tasks: {k[:90]}" for k, n in stock.top],
        "prompt_snake_case": [
            w
            for w, _ in Counter(w for text, _, _ in prompts for w in LANG.snake_case_words(text)).most_common(
                3
            )
        ],
        "assistant_names": [
            w
            for w, _ in Counter(
                h
                for m in episodes
                for t in LANG.texts_of(m, "assistant")
                for h in LANG.names_tool_or_field(t, tools, fields)
            ).most_common(4)
        ],
        "prompt_names": [
            w
            for w, _ in Counter(
                h for text, t, f in prompts for h in LANG.names_tool_or_field(text, t, f)
            ).most_common(4)
        ],
    }
    return fig


def passes(key: str, value: Any) -> bool | None:
    if key in PASS_RULES:
        op, target = PASS_RULES[key]
        return bool(value >= target if op == ">=" else value <= target)
    met: bool | None = LANG.meets(key, value) if isinstance(value, float) else None
    return met


def cell(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    if key in SHARES:
        return f"{100 * value:.1f}%"
    if key.endswith("distinct2") or key.endswith("reward"):
        return f"{value:.3f}"
    return f"{value:.0f}"


def table(
    ours: dict[str, dict[str, Any]], base: dict[str, dict[str, Any]] | None, envs: list[str], base_label: str
) -> str:
    width = 18 if base is None else 26
    lines = [f"{'metric':44} {'target':>8} " + " ".join(f"{e:>{width}}" for e in envs)]
    for key, label, target in ROWS:
        if all(key not in ours.get(e, {}) for e in envs):
            continue
        cells = []
        for e in envs:
            value = ours.get(e, {}).get(key)
            text = cell(key, value)
            ok = passes(key, value) if value is not None else None
            if ok is not None:
                text += " pass" if ok else " FAIL"
            if base is not None:
                text += f" ({cell(key, base.get(e, {}).get(key))})"
            cells.append(f"{text:>{width}}")
        lines.append(f"{label:44} {target:>8} " + " ".join(cells))
    if base is not None:
        lines.append(f"(in brackets: {base_label})")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- baseline


def run_baseline(rev: str, args: argparse.Namespace) -> tuple[dict[str, Any] | None, str]:
    """Collect at ``rev`` in a worktree under /tmp; (its raw material or None, a label)."""
    resolved = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True, text=True
    )
    if resolved.returncode != 0:
        return None, f"baseline {rev}: not a revision of this repository"
    short = resolved.stdout.strip()
    tree = Path(tempfile.mkdtemp(prefix=f"bench_language_{short}_"))
    shutil.rmtree(tree)
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tree), short], check=True
    )
    try:
        out = Path(tempfile.mkdtemp(prefix="bench_language_out_")) / "raw.json"
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--collect",
            str(out),
            "--envs",
            ",".join(args.envs),
            "--tasks",
            str(args.tasks),
            "--eval-tasks",
            str(args.eval_tasks),
            "--seed",
            str(args.seed),
            "--servers-dir",
            str(tree / "generated_servers"),
            "--blind-agent",
            args.blind_agent,
        ] + (["--blind-scenario"] if args.blind_scenario else [])
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        if done.returncode == LACKS_API:
            return None, f"baseline {short}: {done.stderr.strip().splitlines()[-1]}"
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            return None, f"baseline {short}: the collection failed: {last[:200]}"
        return json.loads(out.read_text(encoding="utf-8")), f"baseline {short}"
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)


# ----------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--envs", default=DEFAULT_ENVS, help="comma separated (flagships or library services)"
    )
    parser.add_argument("--tasks", type=int, default=150, help="tasks per environment")
    parser.add_argument("--eval-tasks", type=int, default=40, help="evaluation prompts per environment")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=1, help="repeat the measurement; CPU time as a median")
    parser.add_argument("--blind-scenario", action="store_true", help="also strip what the user knows")
    parser.add_argument(
        "--blind-agent",
        default="demonstrator",
        help="the agent the gold-removed run wraps: a rollout agent name, or module:Class built as Class(seed=, spec=)",
    )
    parser.add_argument("--baseline", help="a git revision to measure beside this checkout")
    parser.add_argument("--servers-dir", type=Path, default=ROOT / "generated_servers")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--collect", type=Path, help=argparse.SUPPRESS)  # raw material only (baseline runs)
    args = parser.parse_args()
    args.envs = [e.strip() for e in args.envs.split(",") if e.strip()]
    if args.collect is not None:
        raw = collect(
            args.envs,
            args.tasks,
            args.eval_tasks,
            args.seed,
            args.servers_dir,
            args.blind_scenario,
            args.blind_agent,
        )
        args.collect.write_text(json.dumps(raw), encoding="utf-8")
        return
    wall = time.perf_counter()
    cpu: dict[str, list[float]] = {e: [] for e in args.envs}
    ours: dict[str, dict[str, Any]] = {}
    for i in range(max(1, args.repeat)):
        raw = collect(
            args.envs,
            args.tasks,
            args.eval_tasks,
            args.seed,
            args.servers_dir,
            args.blind_scenario,
            args.blind_agent,
        )
        for e in args.envs:
            cpu[e].append(raw[e]["cpu_s"])
            fig = figures(raw[e])
            if i and {k: v for k, v in fig.items()} != ours[e]:
                print(f"note: repeat {i + 1} of {e} gave other figures than the first", file=sys.stderr)
            ours[e] = fig
    base, base_label = (None, "")
    if args.baseline:
        base_raw, base_label = run_baseline(args.baseline, args)
        if base_raw is None:
            print(base_label)
        else:
            base = {e: figures(base_raw[e]) for e in args.envs if e in base_raw}
    head = git_head()
    print(
        f"\nlanguage figures at {head}, seed {args.seed}, {args.tasks} tasks and {args.eval_tasks} eval prompts "
        f"per environment, gold removed for {args.blind_agent} "
        f"(load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    print(table(ours, base, args.envs, base_label))
    print(
        "CPU s per environment (collection, median of "
        f"{max(1, args.repeat)}): "
        + ", ".join(f"{e} {statistics.median(cpu[e]):.1f}" for e in args.envs)
        + f"; wall {time.perf_counter() - wall:.0f} s"
    )
    for e in args.envs:
        ex = ours[e]["examples"]
        print(f"\n{e}:")
        for name, items in ex.items():
            if items:
                print(f"  {name}: " + " | ".join(str(x) for x in items))
        for key, label in (("blind_reasons", "gold removed"), ("blind_scenario_reasons", "scenario removed")):
            if ours[e].get(key):
                print(f"  {label}, why: " + " | ".join(f"{n}x {r}" for r, n in ours[e][key]))
    if args.json:
        args.json.write_text(
            json.dumps(
                {"revision": head, "ours": ours, "baseline": base, "baseline_label": base_label}, indent=1
            ),
            encoding="utf-8",
        )


def git_head() -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    )
    return done.stdout.strip() + (" (+ uncommitted changes)" if dirty.stdout.strip() else "")


if __name__ == "__main__":
    main()
