"""How eval prompts read (issue 28, item 3): figures over the standing eval set's prompts.

    python bench/bench_eval_prompts.py [--set standing.jsonl] [--groups 0,1,...] [--json FILE]
                                       [--examples N]

Reads an eval set (``--set``, e.g. written by ``envfactory-mcp eval-standing -o``) or builds
the standing set (``eval.standing.build_standing``, not checked against the manifest:
``--groups`` builds only those groups), and prints, over every task's prompt (its opening
message), overall and per kind of task (single, chain, flow):

* ``naming``: the share of prompts that name a tool or a field of an offered server
  (``tasks.naturalness.names_tool_or_field``; must be 0);
* ``then``: the share of prompts with the word "then" (a step list; must be 0);
* ``stock``: the share of prompt sentences whose key (``naturalness.request_key``: ids,
  emails, names and digits masked) recurs in more than 5% of the prompts, and the widest
  of them;
* ``distinct2``: distinct bigrams over bigrams of the prompts' tokens (2000-token windows,
  ``naturalness.distinct2``);
* ``form``: prompts with a form's sentence ("Label: value", "For the X, use ...",
  ``naturalness.form_fragments`` and the flow's "use the same X as" frame);
* ``claims``: how many tasks have 1, 2, ... claims (the reward's claim checker judges them;
  every task must have 2 to 6).

``prompt_figures`` is what ``tests/eval/test_prompts.py`` holds over a sample of the set.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envfactory_mcp.eval.compose import EvalTask, read_eval_set
from envfactory_mcp.tasks.naturalness import (
    distinct2,
    form_fragments,
    names_tool_or_field,
    request_key,
    sentences,
    spec_vocabulary,
    tokens,
)

STOCK_SHARE = 0.05  # a sentence in more than this share of the prompts is stock
_THEN = re.compile(r"\bthen\b", re.IGNORECASE)
_USE_THE_SAME = re.compile(r"\b(?:use|using) the same \w+ as\b|\bshould be the same as\b", re.IGNORECASE)


def prompt_figures(
    tasks: Sequence[EvalTask], vocabulary: Callable[[str], tuple[set[str], set[str]]], top: int = 8
) -> dict[str, Any]:
    """The figures over ``tasks``' prompts; ``vocabulary(server)`` gives a server's (tool
    names, field names)."""
    prompts = [t.task.user_scenario.opening_message for t in tasks]
    naming: list[list[str]] = []
    for task, text in zip(tasks, prompts, strict=True):
        tools: set[str] = set()
        fields: set[str] = set()
        for server in task.offered:
            t, f = vocabulary(server)
            tools |= t
            fields |= f
        naming.append(names_tool_or_field(text, tools, fields))
    keyed = [[request_key(s) for s in sentences(text)] for text in prompts]
    frequency = Counter(k for keys in keyed for k in set(keys))
    floor = math.floor(STOCK_SHARE * len(prompts)) + 1  # more than 5% of the prompts
    stock = {k for k, n in frequency.items() if n >= max(2, floor)}
    occurrences = sum(len(keys) for keys in keyed)
    stocked = sum(1 for keys in keyed for k in keys if k in stock)
    widest = sorted(((k, frequency[k]) for k in stock), key=lambda kv: (-kv[1], kv[0]))[:top]
    words = [w for text in prompts for w in tokens(text)]
    n = max(1, len(prompts))
    return {
        "prompts": len(prompts),
        "naming": sum(1 for h in naming if h) / n,
        "naming_examples": [(t.task_id, h) for t, h in zip(tasks, naming, strict=True) if h][:top],
        "then": sum(1 for text in prompts if _THEN.search(text)) / n,
        "stock": stocked / occurrences if occurrences else 0.0,
        "stock_prompts": sum(1 for keys in keyed if any(k in stock for k in keys)) / n,
        "stock_top": widest,
        "distinct2": distinct2(words),
        "form": sum(1 for text in prompts if form_fragments(text) or _USE_THE_SAME.search(text)) / n,
        "words_per_prompt": len(words) / n,
        "claims": dict(sorted(Counter(len(t.claims) for t in tasks).items())),
    }


def figures_by_kind(
    tasks: Sequence[EvalTask], vocabulary: Callable[[str], tuple[set[str], set[str]]]
) -> dict[str, dict[str, Any]]:
    """``prompt_figures`` over all tasks and over each kind present."""
    out = {"all": prompt_figures(tasks, vocabulary)}
    for kind in sorted({t.kind for t in tasks}):
        out[kind] = prompt_figures([t for t in tasks if t.kind == kind], vocabulary)
    return out


def spec_vocabularies(servers_dir: Path | None = None) -> Callable[[str], tuple[set[str], set[str]]]:
    """A cached ``server -> (tool names, field names)`` from the built packages."""
    from envfactory_mcp.catalog import load_environment
    from envfactory_mcp.settings import DEFAULT_SERVERS_DIR

    cache: dict[str, tuple[set[str], set[str]]] = {}

    def vocabulary(server: str) -> tuple[set[str], set[str]]:
        if server not in cache:
            cache[server] = spec_vocabulary(
                load_environment(server, servers_dir or DEFAULT_SERVERS_DIR, allow_unverified=True).env.spec
            )
        return cache[server]

    return vocabulary


def standing_tasks(groups: Iterable[int] | None = None) -> list[EvalTask]:
    from envfactory_mcp.blueprints import blueprint_names
    from envfactory_mcp.catalog import load_environment
    from envfactory_mcp.eval.standing import build_standing
    from envfactory_mcp.settings import DEFAULT_SERVERS_DIR

    tasks, _ = build_standing(
        lambda name: load_environment(name, DEFAULT_SERVERS_DIR).env,
        blueprint_names(),
        list(groups) if groups is not None else None,
    )
    return tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set", type=Path, default=None, help="an eval set (.jsonl); default: build the standing set"
    )
    parser.add_argument("--groups", default=None, help="standing groups to build, by index (default: all)")
    parser.add_argument("--examples", type=int, default=0, help="print this many prompts of each kind")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    started = time.process_time()
    if args.set is not None:
        tasks = read_eval_set(args.set)
    else:
        groups = [int(g) for g in args.groups.split(",")] if args.groups else None
        tasks = standing_tasks(groups)
    figures = figures_by_kind(tasks, spec_vocabularies())
    for kind, row in figures.items():
        claims = ", ".join(f"{k}: {v}" for k, v in row["claims"].items())
        print(
            f"{kind:>6} {row['prompts']:4d} prompts: naming a tool or field {row['naming']:.3f},"
            f" 'then' {row['then']:.3f}, stock sentences {row['stock']:.3f}"
            f" (prompts holding one {row['stock_prompts']:.3f}), distinct-2 {row['distinct2']:.3f},"
            f" form sentences {row['form']:.3f}, words/prompt {row['words_per_prompt']:.1f};"
            f" claims per task {{{claims}}}"
        )
    for key, count in figures["all"]["stock_top"]:
        print(f"  stock ({count} prompts): {key}")
    for task_id, hits in figures["all"]["naming_examples"]:
        print(f"  names {hits}: {task_id}")
    if args.examples:
        rng = random.Random(0)
        for kind in ("single", "chain", "flow"):
            some = [t for t in tasks if t.kind == kind]
            for task in rng.sample(some, min(args.examples, len(some))):
                print(f"[{kind}] {task.task.user_scenario.opening_message}")
    print(f"({time.process_time() - started:.1f} s CPU)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
