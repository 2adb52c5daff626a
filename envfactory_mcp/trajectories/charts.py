"""Distributions of a run as inline SVG (the viewer's charts): no script, no network.

:func:`bar_chart` draws counts per bin for one or more series side by side (one colour
per run, a legend when there are several); :func:`reward_bins` and :func:`step_bins` put
rewards and step counts into the bins the viewer shows. Every bar is a ``<rect
class="bar">`` carrying ``data-series``, ``data-bin`` and ``data-count`` and a
``<title>`` (its tooltip), so a reader can hover it and a test can read it. The output
depends only on the inputs.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

# One colour per series (run), readable on white and told apart in grey scale too.
COLOURS = ("#2563eb", "#ea580c", "#16a34a", "#9333ea", "#0891b2", "#be123c")
MAX_STEP_BINS = 20
WIDTH, HEIGHT = 560, 230
_LEFT, _RIGHT, _TOP, _BOTTOM = 44, 12, 30, 46


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def reward_bins(rewards: Sequence[float]) -> tuple[list[str], list[int]]:
    """Labels and counts: ten bins of width 0.1 over [0, 1), then exactly 1 (success) on
    its own, so a run's successes are one bar and near misses are not mixed with them."""
    labels = [f"{k / 10:.1f}" for k in range(10)] + ["1.0"]
    counts = [0] * 11
    for reward in rewards:
        index = 10 if reward >= 1.0 else max(0, min(9, math.floor(reward * 10)))
        counts[index] += 1
    return labels, counts


def step_bins(*series: Sequence[int]) -> tuple[list[str], list[list[int]]]:
    """Labels and counts per series over one shared set of integer bins: one bin per step
    count from the smallest to the largest seen, or ranges of equal width when that would
    be more than :data:`MAX_STEP_BINS` bins."""
    seen = [s for values in series for s in values]
    if not seen:
        return [], [[] for _ in series]
    low, high = min(seen), max(seen)
    width = max(1, math.ceil((high - low + 1) / MAX_STEP_BINS))
    starts = list(range(low, high + 1, width))
    labels = [str(s) if width == 1 else f"{s}-{s + width - 1}" for s in starts]
    counts = [[0] * len(starts) for _ in series]
    for i, values in enumerate(series):
        for value in values:
            counts[i][(value - low) // width] += 1
    return labels, counts


def bar_chart(
    ident: str,
    title: str,
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[int]]],
    x_label: str,
    note: str = "",
) -> str:
    """An SVG bar chart with ``id=ident``: for each label, one bar per ``(name, counts)``
    series, a y axis of counts with ticks at 0, half and the top, and ``note`` (e.g. what
    was left out) under the x axis label."""
    plot_w, plot_h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM
    top = max([c for _, counts in series for c in counts] + [1])
    out = [
        f'<svg id="{_e(ident)}" class="chart" width="{WIDTH}" '
        f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{_e(title)}">',
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text x="{_LEFT}" y="18" font-size="13" font-weight="600" fill="#111827">{_e(title)}</text>',
    ]
    # Axes and ticks.
    base = _TOP + plot_h
    out.append(f'<line x1="{_LEFT}" y1="{base}" x2="{_LEFT + plot_w}" y2="{base}" stroke="#6b7280"/>')
    out.append(f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{base}" stroke="#6b7280"/>')
    for value in sorted({0, top // 2, top}):
        y = base - plot_h * value / top
        out.append(
            f'<line x1="{_LEFT - 4}" y1="{y:.1f}" x2="{_LEFT + plot_w}" y2="{y:.1f}" stroke="#e5e7eb"/>'
        )
        out.append(
            f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end" fill="#374151">{value}</text>'
        )
    if not labels:
        out.append(
            f'<text x="{_LEFT + plot_w / 2}" y="{_TOP + plot_h / 2}" font-size="12" text-anchor="middle" '
            'fill="#6b7280">nothing to show</text>'
        )
    group = plot_w / max(1, len(labels))
    bar = group * 0.8 / max(1, len(series))
    label_every = max(1, math.ceil(len(labels) / 12))
    for b, label in enumerate(labels):
        x0 = _LEFT + group * b + group * 0.1
        for s, (name, counts) in enumerate(series):
            count = counts[b]
            h = plot_h * count / top
            colour = COLOURS[s % len(COLOURS)]
            out.append(
                f'<rect class="bar" x="{x0 + bar * s:.1f}" y="{base - h:.1f}" width="{bar:.1f}" '
                f'height="{h:.1f}" fill="{colour}" data-series="{_e(name)}" data-bin="{_e(label)}" '
                f'data-count="{count}"><title>{_e(name)}: {count} at {_e(x_label)} {_e(label)}</title></rect>'
            )
        if b % label_every == 0:
            out.append(
                f'<text x="{_LEFT + group * (b + 0.5):.1f}" y="{base + 14}" font-size="10" '
                f'text-anchor="middle" fill="#374151">{_e(label)}</text>'
            )
    caption = x_label + (f" · {note}" if note else "")
    out.append(
        f'<text x="{_LEFT + plot_w / 2}" y="{base + 32}" font-size="11" text-anchor="middle" '
        f'fill="#6b7280">{_e(caption)}</text>'
    )
    if len(series) > 1:
        x = WIDTH - _RIGHT
        for s, (name, _) in reversed(list(enumerate(series))):
            text = name if len(name) <= 24 else name[:23] + "…"
            x -= 14 + 7 * len(text)
            out.append(
                f'<rect x="{x}" y="8" width="10" height="10" fill="{COLOURS[s % len(COLOURS)]}"/>'
                f'<text x="{x + 13}" y="17" font-size="11" fill="#111827">{_e(text)}</text>'
            )
    out.append("</svg>")
    return "".join(out)
