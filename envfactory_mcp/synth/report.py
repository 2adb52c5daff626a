"""The fidelity report of an imported resource: how much of the document the environment serves.

``synthesize --resource`` prints it as a table and writes it into the package as
``<package>/data/fidelity.json`` (written before verification, so the verification
report's file hashes cover it). Its figures are the importer's: ``ImportedEnv.coverage``
(operations or ``CREATE TABLE`` statements in the document, those served, fields seen and
kept) and ``ImportedEnv.ignored`` (every part left out, where and why), grouped by kind.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from envfactory_mcp.crud.model import Ignored, ImportedEnv

FIDELITY_FILE = "fidelity.json"
FIDELITY_FORMAT = 1
REASONS_SHOWN = 6  # per kind of ignored part, in the table; the JSON has them all


@dataclass(frozen=True)
class FidelityReport:
    """What became of one resource: the fidelity table's figures and every ignored part."""

    resource: str  # the file's name, as given
    kind: Literal["openapi", "sql"]
    operations: int  # in the document (OpenAPI operations, SQL CREATE TABLE statements)
    served: int  # of those, served by the environment
    tools: int
    tables: int
    fields: int  # properties or columns seen
    fields_kept: int
    ignored: list[Ignored] = field(default_factory=list)

    @classmethod
    def of(cls, imported: ImportedEnv, resource: Path) -> FidelityReport:
        coverage = imported.coverage
        return cls(
            resource=resource.name,
            kind="sql" if imported.spec.seed.generator.startswith("importer:sql") else "openapi",
            operations=coverage.operations,
            served=coverage.served,
            tools=len(imported.spec.tools),
            tables=len(imported.spec.tables),
            fields=coverage.fields,
            fields_kept=coverage.fields_kept,
            ignored=sorted(imported.ignored),
        )

    @property
    def unit(self) -> str:
        return "CREATE TABLE statements" if self.kind == "sql" else "operations"

    @property
    def fields_dropped(self) -> int:
        return max(0, self.fields - self.fields_kept)

    def by_kind(self) -> dict[str, list[Ignored]]:
        """The ignored parts grouped by kind, the most numerous kind first."""
        groups: dict[str, list[Ignored]] = {}
        for item in self.ignored:
            groups.setdefault(item.kind, []).append(item)
        return dict(sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])))

    def summary(self) -> dict[str, Any]:
        """The figures alone (no ignored list): what ``synthesize`` puts in its JSON result."""
        return {
            "operations": self.operations,
            "served": self.served,
            "tools": self.tools,
            "tables": self.tables,
            "fields": self.fields,
            "fields_kept": self.fields_kept,
            "fields_dropped": self.fields_dropped,
            "ignored": len(self.ignored),
            "ignored_by_kind": {kind: len(items) for kind, items in self.by_kind().items()},
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FIDELITY_FORMAT,
            "resource": self.resource,
            "kind": self.kind,
            **self.summary(),
            "ignored_parts": {
                kind: [{"where": i.where, "reason": i.reason} for i in items]
                for kind, items in self.by_kind().items()
            },
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    def strict_failure(self) -> str | None:
        """The one-line reason ``--strict`` refuses this import, or None when nothing was ignored."""
        if not self.ignored:
            return None
        counts = ", ".join(f"{len(items)} {kind}" for kind, items in self.by_kind().items())
        first = min(self.ignored)
        return (
            f"{self.resource}: {len(self.ignored)} part(s) ignored ({counts}) and --strict was given; "
            f"first: {first.where}: {first.reason}"
        )


def fidelity_relpath(env_name: str) -> str:
    """Where the report lives inside ``generated_servers/<env>/``."""
    from envfactory_mcp.emit.render import package_name

    return f"{package_name(env_name)}/data/{FIDELITY_FILE}"


def render_fidelity(report: FidelityReport) -> Any:
    """The report as rich renderables (a figures table, then the ignored parts by kind)."""
    from rich.console import Group
    from rich.markup import escape
    from rich.table import Table

    title = f"fidelity: {escape(report.resource)}"
    figures = Table(show_header=False)
    figures.add_column("what")
    figures.add_column("count", justify="right")
    figures.add_row(f"{report.unit} in the document", str(report.operations))
    figures.add_row("served as tools" if report.kind == "openapi" else "served as tables", str(report.served))
    figures.add_row("tools", str(report.tools))
    figures.add_row("tables", str(report.tables))
    figures.add_row("fields kept", str(report.fields_kept))
    figures.add_row("fields dropped", str(report.fields_dropped))
    figures.add_row("ignored", str(len(report.ignored)))
    if not report.ignored:
        return Group(title, figures)
    ignored = Table(title="ignored, by kind", title_justify="left", title_style="")
    ignored.add_column("kind")
    ignored.add_column("count", justify="right")
    ignored.add_column("reasons (count, first place)")
    for kind, items in report.by_kind().items():
        reasons = Counter(i.reason for i in items)
        first_place: dict[str, str] = {}
        for item in items:
            first_place.setdefault(item.reason, item.where)
        lines = [
            f"{escape(reason)} (x{count}, {escape(first_place[reason])})"
            for reason, count in reasons.most_common(REASONS_SHOWN)
        ]
        if len(reasons) > REASONS_SHOWN:
            lines.append(f"... and {len(reasons) - REASONS_SHOWN} more reason(s)")
        ignored.add_row(kind, str(len(items)), "\n".join(lines))
    return Group(title, figures, ignored)
