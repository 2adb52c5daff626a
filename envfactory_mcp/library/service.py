"""A library service and how it becomes an environment: spec, tool code, seed rows, policy.

A :class:`Service` declares its tables and operations (see :mod:`.kit`) and who its
customer is. Everything a hand-crafted blueprint writes by hand is derived from that, so
the task generator, the demonstrator, the scorer and the verifier read the same rules:

* **authentication**: ``find_<customer>_id_by_<...>`` tools, one per way a customer can
  be identified (``identify_by``); reads of tables that hold no customer's data (a
  catalog, a schedule) need none;
* **confirmation** before every write;
* **refusals**: each operation's :class:`~envfactory_mcp.crud.model.Guard` is a
  :class:`~envfactory_mcp.spec.RefusalRule`, shown by the table's ``get`` tool;
* **hand-off**: ``transfer_to_human_agents`` for the requests in ``out_of_scope``;
* **the policy text**, written from the same declarations.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from envfactory_mcp.crud.core import build_imported
from envfactory_mcp.crud.model import Operation, Resource, Rows
from envfactory_mcp.crud.tables import Tables
from envfactory_mcp.errors import BlueprintError
from envfactory_mcp.spec import (
    Authentication,
    EnvSpec,
    ParamSpec,
    PolicyRules,
    RefusalRule,
    SeedSpec,
    ToolSpec,
    Transfer,
)

from .archetypes import Part, compose
from .kit import find, said
from .rules import Rule, derive

TRANSFER_TOOL = "transfer_to_human_agents"

_TRANSFER_CODE = '''

def transfer_to_human_agents(ctx: ToolContext, summary: str) -> dict[str, Any]:
    """Hand the conversation to a human agent, with a summary of what the user needs."""
    return {
        "transferred": True,
        "message": "The conversation has been transferred to a human agent, who will follow up with the user.",
        "summary": summary,
    }
'''


@dataclass(frozen=True)
class Shared:
    """Linked services: ``table`` holds the very rows of the same table of ``service`` (the
    same customers, with the same ids, names and emails)."""

    table: str
    service: str


@dataclass(frozen=True)
class Foreign:
    """Linked services: ``table.column`` holds keys of ``service``'s ``other_table`` (a
    payment's order in the shop). The column is declared with :func:`.kit.link`; its seed
    values are the other service's keys, and a row's references to a shared table follow
    the row it points at (a payment of an order names the order's customer)."""

    table: str
    column: str
    service: str
    other_table: str


@dataclass(frozen=True)
class Service:
    """One library environment: a real service's tables, its agent's operations and rules."""

    name: str
    title: str
    domain: str
    description: str  # what the agent does, for the spec and the package README
    customer: str  # the table whose rows are the people the agent serves
    resources: tuple[Resource, ...]
    operations: tuple[Operation, ...]
    out_of_scope: tuple[str, ...]  # requests no tool serves, said as a customer would
    identify_by: tuple[tuple[str, ...], ...] = (("email",),)
    notes: tuple[str, ...] = ()  # policy lines of the service's own (opening hours, fees)
    clock: str = "2026-06-15T10:00:00Z"
    seed: int = 1
    archetypes: tuple[str, ...] = field(default=())  # which archetypes it composes, for the catalog
    shared: tuple[Shared, ...] = ()
    foreign: tuple[Foreign, ...] = ()
    rules: tuple[Rule, ...] = ()  # business rules of the service's own, beside the derived ones

    @classmethod
    def composed(
        cls,
        name: str,
        title: str,
        domain: str,
        description: str,
        customer: Resource,
        *parts: Part,
        out_of_scope: tuple[str, ...],
        identify_by: tuple[tuple[str, ...], ...] = (("email",),),
        notes: tuple[str, ...] = (),
        seed: int = 1,
        shared: tuple[Shared, ...] = (),
        foreign: tuple[Foreign, ...] = (),
        rules: tuple[Rule, ...] = (),
    ) -> Service:
        """A service made of ``customer``'s table and the archetype ``parts``."""
        resources, operations, archetypes = compose(customer, *parts)
        return cls(
            name=name,
            title=title,
            domain=domain,
            description=description,
            customer=customer.name,
            resources=resources,
            operations=operations,
            out_of_scope=out_of_scope,
            identify_by=identify_by,
            notes=notes,
            seed=seed,
            archetypes=archetypes,
            shared=shared,
            foreign=foreign,
            rules=rules,
        )

    # ------------------------------------------------------------------ derived

    def customer_resource(self) -> Resource:
        return next(r for r in self.resources if r.name == self.customer)

    def all_operations(self) -> list[Operation]:
        customer = self.customer_resource()
        finds = [find(customer, *by) for by in self.identify_by]
        return [*finds, *self.operations]

    def private_tables(self) -> set[str]:
        """Tables holding a customer's data: the customer table and every table pointing at one."""
        private = {self.customer}
        grew = True
        while grew:
            grew = False
            for r in self.resources:
                if r.name not in private and any(f.references in private for f in r.fields):
                    private.add(r.name)
                    grew = True
        return private

    def policy_rules(self) -> PolicyRules:
        ops = self.all_operations()
        by_table = {r.name: r for r in self.resources}
        private = self.private_tables()
        getters = {op.resource: op.name for op in ops if op.kind == "get"}
        writes = [op.name for op in ops if op.kind not in ("get", "list", "find")]
        exempt = [op.name for op in ops if op.kind in ("get", "list") and op.resource not in private]
        for op in ops:
            if op.guard is not None and op.resource not in getters:
                raise BlueprintError(
                    f"library service {self.name}: {op.name} has a rule on {op.resource}'s {op.guard.column}, "
                    f"but {op.resource} has no get operation to show it; add get({op.resource})"
                )
        refusals = [
            RefusalRule(
                tool=op.name,
                entity=by_table[op.resource].entity,
                column=op.guard.column,
                allowed=list(op.guard.allowed),
                shown_by=getters[op.resource],
                path=op.guard.column,
                reason=op.guard.reason,
            )
            for op in ops
            if op.guard is not None
        ]
        customer = self.customer_resource()
        return PolicyRules(
            rules=[*derive(customer, self.resources, ops), *self.rules],
            authentication=Authentication(
                tools=[op.name for op in ops if op.kind == "find"],
                entity=customer.entity,
                exempt=[*exempt, TRANSFER_TOOL],
            ),
            confirm=writes,
            refusals=refusals,
            transfer=Transfer(tool=TRANSFER_TOOL, out_of_scope=list(self.out_of_scope)),
        )

    def policy_text(self) -> str:
        rules = self.policy_rules()
        customer = self.customer_resource().entity.replace("_", " ")
        auth = rules.authentication
        assert auth is not None
        finds = " or ".join(f"`{t}`" for t in auth.tools)
        open_reads = [t for t in auth.exempt if t != TRANSFER_TOOL]
        lines = [
            f"# {self.title}: agent policy",
            "",
            f"You are the customer service agent of {self.title.lower()}. {self.description}",
            f"You help **one** {customer} per conversation. The current time is {self.clock}; do not assume any other date.",
            "",
            "## General rules",
            "",
            f"- **Authenticate first.** Before you give out any {customer}'s information or change anything, "
            f"find the {customer}'s id with {finds}, from what they tell you."
            + (
                f" These need no authentication: {', '.join(f'`{t}`' for t in open_reads)}."
                if open_reads
                else ""
            ),
            f"- **Only their own records.** Once authenticated, only act on records that belong to that {customer}.",
            "- **Confirm before every change.** Before calling "
            + ", ".join(f"`{t}`" for t in rules.confirm)
            + ", say exactly what you will do and get an explicit yes.",
            (
                "- **No making things up.** Only state facts that come from the user or from tool results; "
                "ask for anything you need and do not have. Ids are internal: get them from tools."
            ),
            "- **One tool call at a time**, and do not answer the user in the same turn as a tool call.",
            (
                f"- **Transfer to a human** with `{TRANSFER_TOOL}` only when the user asks for a human or the "
                "request cannot be handled with your tools under this policy; then tell the user a human will "
                "follow up. A request this policy says to refuse is refused, not transferred."
            ),
        ]
        ops = self.all_operations()
        if rules.refusals or rules.rules or self.notes:
            lines += ["", "## Rules", ""]
            for rule in rules.refusals:
                words = [said(a) for a in rule.allowed]
                states = words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
                lines.append(
                    f"- `{rule.tool}`: only when the {rule.entity.replace('_', ' ')}'s {rule.column.replace('_', ' ')} "
                    f"is {states} (check it with `{rule.shown_by}` first); otherwise refuse: {rule.reason}."
                )
            lines += [self._rule_line(rule, ops) for rule in rules.rules]
            lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines) + "\n"

    @staticmethod
    def _rule_line(rule: Rule, ops: list[Operation]) -> str:
        """A business rule beyond status as a policy line: what to check and the reason."""
        reads = {(op.kind, op.resource): op.name for op in ops if op.kind in ("get", "list")}
        shown = None
        if rule.kind in ("quota", "exclusive"):
            shown = reads.get(("list", rule.table))
        elif rule.kind == "window":
            shown = reads.get(("get", rule.table))
        elif rule.kind == "eligibility":
            shown = reads.get(("get", rule.other))
        check = f" (check it with `{shown}` first)" if shown else ""
        return f"- `{rule.tool}`: {rule.reason}{check}; otherwise refuse and say so."

    def check(self) -> None:
        """Declaration mistakes, named before anything is built: a create that leaves a
        required column empty, an operation on a column its table does not have."""
        for op in self.operations:
            resource = self._resource(op.resource)
            for name in (*(op.fields or ()), *op.filters, *((op.guard.column,) if op.guard else ())):
                if not resource.has(name):
                    raise BlueprintError(
                        f"library service {self.name}: {op.name} names {name!r}, not a column of {op.resource}"
                    )
            if op.kind == "create" and op.fields is not None:
                given = {*op.fields, *resource.keys}
                empty = [
                    f.name
                    for f in resource.fields
                    if f.required_on_create and f.name not in given and f.name != resource.parent
                ]
                if empty:
                    raise BlueprintError(
                        f"library service {self.name}: {op.name} leaves {', '.join(empty)} of {op.resource} empty; "
                        "take them as arguments or give them a default"
                    )

    def linked_rows(self) -> dict[str, Rows]:
        """The seed rows of every service this one links to."""
        from envfactory_mcp.library import load_service

        names = {link.service for link in self.shared} | {link.service for link in self.foreign}
        return {name: load_service(name).build()[2] for name in sorted(names)}

    def shared_entities(self) -> list[str]:
        """Entities whose ids mean the same here and in a linked service: declared by the
        service that links and by the one linked to."""
        from envfactory_mcp.library import load_service, service_names

        mine = {r.name: r.entity for r in self.resources}
        out = {mine[link.table] for link in self.shared}
        for link in self.foreign:
            out.add(next(f for f in self._resource(link.table).fields if f.name == link.column).entity or "")
        for name in service_names():  # services linking to this one
            other = load_service(name)
            for shared in other.shared:
                if shared.service == self.name and shared.table in mine:
                    out.add(mine[shared.table])
            for link in other.foreign:
                if link.service == self.name and link.other_table in mine:
                    out.add(mine[link.other_table])
        return sorted(e for e in out if e)

    def _resource(self, name: str) -> Resource:
        return next(r for r in self.resources if r.name == name)

    def _linked_resources(self, linked: dict[str, Rows]) -> list[Resource]:
        """The resources, with each foreign column's seed vocabulary set to the other
        service's keys."""
        from dataclasses import replace as replaced

        from envfactory_mcp.library import load_service

        resources = []
        for resource in self.resources:
            fields = list(resource.fields)
            for link in self.foreign:
                if link.table != resource.name:
                    continue
                other = load_service(link.service)._resource(link.other_table)
                keys = tuple(row[other.keys[0]] for row in linked[link.service][link.other_table])
                fields = [replaced(f, values=keys) if f.name == link.column else f for f in fields]
            resources.append(replaced(resource, fields=tuple(fields)))
        return resources

    def _follow_links(self, rows: Rows, linked: dict[str, Rows]) -> Rows:
        """A row pointing at another service's row names the same shared rows it does."""
        from envfactory_mcp.library import load_service

        shared = {link.table for link in self.shared}
        for link in self.foreign:
            other = load_service(link.service)._resource(link.other_table)
            index = {row[other.keys[0]]: row for row in linked[link.service][link.other_table]}
            columns = [
                f.name
                for f in self._resource(link.table).fields
                if f.references in shared and other.has(f.name)
            ]
            resource = self._resource(link.table)
            for row in rows.get(link.table, []):
                target = index.get(row[link.column])
                for column in columns:
                    if target is not None and target[column] is not None:
                        row[column] = target[column]
                        self._repick(resource, row, column, rows)
        return rows

    def _repick(self, resource: Resource, row: dict[str, object], owner: str, rows: Rows) -> None:
        """After ``row[owner]`` changed, its other references that belong to an owner (a
        saved card) are moved to one of the new owner's (one of their cards)."""
        for f in resource.fields:
            if not f.references or f.name == owner:
                continue
            target = self._resource(f.references)
            if not target.has(owner):
                continue
            mine = [r[target.keys[0]] for r in rows.get(target.name, []) if r[owner] == row[owner]]
            if mine and row[f.name] not in mine:
                row[f.name] = mine[sum(map(ord, str(row[resource.keys[0]]))) % len(mine)]

    def build(self, rows_seed: int | None = None) -> tuple[EnvSpec, str, Rows]:
        """The spec, the tool module's source and the seed rows.

        The rows come from ``rows_seed``, by default the first draw of ``Random(self.seed)``:
        what ``build_env`` gets from the blueprint's ``generate_seed(Random(seed))``, so a
        linked service sees the very rows the other service's package holds."""
        self.check()
        if rows_seed is None:
            rows_seed = random.Random(self.seed).randrange(2**31)
        linked = self.linked_rows()
        given = {link.table: [dict(r) for r in linked[link.service][link.table]] for link in self.shared}
        imported = build_imported(
            name=self.name,
            title=self.title,
            description=self.description,
            source=f"the envfactory-mcp library ({', '.join(self.archetypes) or 'composed'})",
            generator=f"library:{self.name}",
            seed=rows_seed,
            resources=self._linked_resources(linked),
            operations=self.all_operations(),
            ignored=[],
            given=given,
        )
        transfer = ToolSpec(
            name=TRANSFER_TOOL,
            description=(
                "Transfer the user to a human agent, with a summary of the issue. Use only when the user explicitly "
                "asks for a human or the request cannot be handled with the other tools under the policy."
            ),
            intent="talk to a human",
            effect="read",
            input_schema={
                "type": "object",
                "properties": {
                    "summary": {
                        "type": "string",
                        "minLength": 1,
                        "maxLength": 2000,
                        "description": "Summary of the user's issue for the human agent.",
                    }
                },
                "required": ["summary"],
                "additionalProperties": False,
            },
            output_schema={
                "type": "object",
                "properties": {
                    "transferred": {"type": "boolean"},
                    "message": {"type": "string"},
                    "summary": {"type": "string"},
                },
                "required": ["transferred", "message", "summary"],
                "additionalProperties": False,
            },
            params={"summary": ParamSpec(user_provided=True, composed=True)},
        )
        spec = imported.spec.model_copy(
            update={
                "domain": self.domain,
                "clock": self.clock,
                "tools": [*imported.spec.tools, transfer],
                "policy": self.policy_text(),
                "policy_rules": self.policy_rules(),
                "seed": SeedSpec(generator=f"library:{self.name}", seed=self.seed),
                "shared_entities": self.shared_entities(),
            }
        )
        rows = self._settle(self._follow_links(agree_on_keys(list(self.resources), imported.rows), linked))
        return spec, imported.tools_source + _TRANSFER_CODE, rows

    def _settle(self, rows: Rows) -> Rows:
        """Columns a transition fills (a cancellation's reason and time) stay empty on rows
        that never went through it; moments a row was made (``stamp`` columns) are never
        after the service's clock (one that would be is moved a year back)."""
        for resource in self.resources:
            made = [f.name for f in resource.fields if f.auto == "now"]
            for row in rows.get(resource.name, []):
                for column in made:
                    value = row.get(column)
                    if isinstance(value, str) and value > self.clock:
                        row[column] = f"{int(value[:4]) - 1:04d}{value[4:]}"
        self._recent(rows)
        for op in self.operations:
            if op.kind != "action" or op.guard is None:
                continue
            resource = next(r for r in self.resources if r.name == op.resource)
            state, target = op.sets[0]
            filled = [c for c, _ in op.sets[1:]] + list(op.fields or ())
            filled = [c for c in filled if resource.field(c).nullable]
            for row in rows.get(resource.name, []):
                if row.get(state) != target:
                    for column in filled:
                        row[column] = None
        return rows

    def _recent(self, rows: Rows) -> None:
        """Every other row a window-after rule's tool may act on (by status) has its moment
        within the window, so the seed holds rows on both sides of it (a claim recent
        enough to appeal, and one too old)."""
        clock = datetime.fromisoformat(self.clock.replace("Z", "+00:00"))
        ops = {op.name: op for op in self.operations}
        for rule in self.policy_rules().rules:
            if rule.kind != "window" or rule.side != "after" or rule.tool not in ops:
                continue
            guard = ops[rule.tool].guard
            if guard is None:
                continue
            mine = [r for r in rows.get(rule.table, []) if r.get(guard.column) in guard.allowed]
            for i, row in enumerate(mine):
                value = row.get(rule.column)
                if i % 2 or not isinstance(value, str):
                    continue
                moment = clock - timedelta(hours=rule.hours * (0.1 + 0.3 * ((i // 2) % 3)))
                row[rule.column] = (
                    moment.strftime("%Y-%m-%dT%H:%M:%SZ") if "T" in value else moment.strftime("%Y-%m-%d")
                )

    def tables(self) -> Tables:
        return Tables(list(self.resources))


def agree_on_keys(resources: list[Resource], rows: Rows) -> Rows:
    """Make a row's keys tell one story: an appointment for a pet names the pet's owner.

    Where a row points at ``A`` (its pet) and at ``B`` (an owner) and ``A`` itself points at
    a ``B``, the row's ``B`` is set to ``A``'s. Tables are fixed parents first, so the rule
    carries down chains (an invoice of an appointment names the appointment's owner)."""
    from envfactory_mcp.crud.seed_rows import fill_order

    by_name = {r.name: r for r in resources}
    for resource in fill_order(resources):
        links = [f for f in resource.fields if f.references and f.references != resource.name]
        for via in links:
            target = by_name[via.references or ""]
            index = {row[target.keys[0]]: row for row in rows.get(target.name, [])}
            for derived in links:
                through = next(
                    (
                        g
                        for g in target.fields
                        if g.references == derived.references and g.name != target.keys[0]
                    ),
                    None,
                )
                if derived is via or through is None:
                    continue
                for row in rows.get(resource.name, []):
                    parent = index.get(row[via.name])
                    if parent is not None and parent[through.name] is not None:
                        row[derived.name] = parent[through.name]
    return rows
