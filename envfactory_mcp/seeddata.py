"""The seed state as a source of realistic values: ids that exist, and values that belong together.

A tool call that needs several ids (an order, items of that order, a payment method of
the order's user) only makes sense when they come from related rows. ``SeedData``
indexes the seed state by entity value; two rows are one hop apart when they share an
entity value (an order row and its order_items rows share the order id). ``valid_arguments``
draws schema-shaped arguments for a tool from rows near a random anchor row.

Used by the verifier's probes (inside the sandbox, so this module imports only the
standard library and ``jsonschema_rs``) and by the task oracle.
"""

from __future__ import annotations

import itertools
import json
import operator
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

Row = dict[str, Any]
State = dict[str, list[Row]]


@dataclass
class ParamInfo:
    name: str
    schema: dict[str, Any]
    required: bool
    entity: str | None


class SeedData:
    """The seed state indexed by entity value, for related-row sampling."""

    def __init__(self, spec: dict[str, Any], state: State) -> None:
        self.rows: list[tuple[str, Row]] = []
        self.entity_columns: dict[str, list[tuple[str, str]]] = defaultdict(list)  # entity -> (table, column)
        self.owner: dict[str, tuple[str, str]] = {}  # entity -> (table, pk column) of the table it names
        self.table_columns: dict[str, dict[str, str | None]] = {}
        self.enum_columns: dict[str, list[str]] = {}
        for table in spec["tables"]:
            self.enum_columns[table["name"]] = [c["name"] for c in table["columns"] if c.get("enum")]
            pk = table["primary_key"]
            cols: dict[str, str | None] = {}
            for col in table["columns"]:
                entity = col.get("entity") or (table.get("entity") if pk == [col["name"]] else None)
                cols[col["name"]] = entity
                if entity:
                    self.entity_columns[entity].append((table["name"], col["name"]))
            self.table_columns[table["name"]] = cols
            if table.get("entity") and len(pk) == 1:
                self.owner[table["entity"]] = (table["name"], pk[0])
        self._fits_cache: dict[tuple[int, type, Any], bool] = {}
        self._related_cache: dict[tuple[int, int, int], list[list[int]]] = {}
        self._values_cache: dict[tuple[Any, ...], dict[int, list[Any]]] = {}
        self._entity_values: dict[str, list[Any]] = {}
        self._entity_table_columns: dict[str, dict[str, list[str]]] = {}
        self._row_entity_values: dict[str, list[tuple[Any, ...]]] = {}
        self._row_column_values: dict[tuple[str, frozenset[str] | None], list[tuple[Any, ...]]] = {}
        self._fitting_entity: dict[tuple[str, int], list[Any]] = {}
        self._fitting_column: dict[tuple[str, frozenset[str] | None, int], list[Any]] = {}
        self._anchors: dict[tuple[str | None, str], tuple[list[int], list[tuple[str, Any]]]] = {}
        self._strata: dict[tuple[str | None, str, tuple[str, Any]], list[int]] = {}
        # Per set of plain parameter names: the home tables, and whether a record fills them.
        self._homes: dict[frozenset[str], tuple[set[str] | None, bool]] = {}
        self._home_rows: dict[tuple[int, frozenset[str]], tuple[list[int], list[int]]] = {}
        self._plans: dict[int, _Plan] = {}  # id of a parameter list -> ``plan`` (which holds the list)
        self._owner_rows: dict[tuple[str, Any], int | None] = {}  # ``owner_row``, remembered
        self.by_value: dict[tuple[str, Any], list[int]] = defaultdict(list)
        self.by_table: dict[str, list[int]] = defaultdict(list)
        for table_name in sorted(state):
            cols = self.table_columns.get(table_name, {})
            for row in state[table_name]:
                index = len(self.rows)
                self.rows.append((table_name, row))
                self.by_table[table_name].append(index)
                for col, entity in cols.items():
                    if entity and row.get(col) is not None:
                        self.by_value[(entity, row[col])].append(index)
        # per row, its ``_links_of`` (made when the walk first reaches it)
        self._links: list[tuple[list[int], ...] | None] = [None] * len(self.rows)

    def known(self, entity: str) -> set[Any]:
        """Every value of ``entity`` that exists (the owning table's ids, else any mention)."""
        if entity in self.owner:
            table, col = self.owner[entity]
            return {self.rows[i][1][col] for i in self.by_table[table]}
        return {v for (e, v) in self.by_value if e == entity}

    def owner_row(self, entity: str, value: Any) -> int | None:
        """The row of the table that ``entity`` names whose id is ``value``."""
        if entity not in self.owner:
            return None
        key = (entity, value)
        if key in self._owner_rows:
            return self._owner_rows[key]
        table = self.owner[entity][0]
        found = next((i for i in self.by_value.get(key, []) if self.rows[i][0] == table), None)
        self._owner_rows[key] = found
        return found

    def values_of(self, entity: str) -> list[Any]:
        """``known(entity)`` sorted by ``repr``, remembered (the seed does not change). The
        list is shared: do not modify it."""
        cached = self._entity_values.get(entity)
        if cached is None:
            cached = self._entity_values[entity] = sorted(self.known(entity), key=repr)
        return cached

    def fitting_entity_values(self, entity: str, schema: dict[str, Any]) -> list[Any]:
        """``values_of(entity)`` that fit ``schema``, in that order, remembered (shared)."""
        key = (entity, id(schema))
        cached = self._fitting_entity.get(key)
        if cached is None:
            cached = [v for v in self.values_of(entity) if self.fits(schema, v)]
            self._fitting_entity[key] = cached
        return cached

    def fitting_column_values(self, name: str, home: set[str] | None, schema: dict[str, Any]) -> list[Any]:
        """The value of column ``name`` in every row (of the ``home`` tables, when given)
        that fits ``schema``, in row order, duplicates kept; remembered (shared)."""
        key = (name, None if home is None else frozenset(home), id(schema))
        cached = self._fitting_column.get(key)
        if cached is None:
            cached = [
                v
                for t, cols in self.table_columns.items()
                if name in cols and (home is None or t in home)
                for i in self.by_table.get(t, [])
                if self.fits(schema, v := self.rows[i][1].get(name))
            ]
            self._fitting_column[key] = cached
        return cached

    def anchor_choices(self, param: ParamInfo) -> tuple[list[int], list[tuple[str, Any]]]:
        """The rows that can fill ``param`` (of its entity's table, else of tables with its
        column) and the (enum column, value) pairs of the first such row's table they
        hold, sorted by ``repr``; remembered (shared)."""
        key = (param.entity, "" if param.entity else param.name)
        cached = self._anchors.get(key)
        if cached is None:
            if param.entity:
                tables = (
                    [self.owner[param.entity][0]]
                    if param.entity in self.owner
                    else [t for t, _ in self.entity_columns.get(param.entity, [])]
                )
            else:
                tables = [t for t, cols in self.table_columns.items() if param.name in cols]
            rows = [i for t in tables for i in self.by_table.get(t, [])]
            pairs: list[tuple[str, Any]] = []
            if rows:
                strata = self.enum_columns.get(self.rows[rows[0]][0], [])
                pairs = sorted({(c, self.rows[i][1].get(c)) for c in strata for i in rows}, key=repr)
            cached = self._anchors[key] = (rows, pairs)
        return cached

    def stratum(self, param: ParamInfo, pair: tuple[str, Any]) -> list[int]:
        """``anchor_choices(param)`` rows whose ``pair[0]`` column holds ``pair[1]`` (shared)."""
        key = (param.entity, "" if param.entity else param.name, pair)
        cached = self._strata.get(key)
        if cached is None:
            column, value = pair
            rows = self.anchor_choices(param)[0]
            cached = self._strata[key] = [i for i in rows if self.rows[i][1].get(column) == value]
        return cached

    def home_of(self, params: list[ParamInfo]) -> tuple[set[str] | None, bool]:
        """``home_tables(params)`` and whether ``record_row`` draws a row for them (two or
        more plain parameters are columns of one home table), remembered per set of plain
        parameter names. The set is shared: do not modify it."""
        names = frozenset(p.name for p in params if not p.entity)
        cached = self._homes.get(names)
        if cached is None:
            home = home_tables(params, self)
            recorded = home is not None and any(len(names & self.table_columns[t].keys()) >= 2 for t in home)
            cached = self._homes[names] = (home, recorded)
        return cached

    def record_near(
        self, anchor: int | None, levels: list[list[int]], home: set[str] | None, rng: random.Random
    ) -> int | None:
        """``record_row`` for parameters whose home tables fill a record, with ``levels``
        being ``related(anchor)`` (empty for no anchor): its row lists remembered."""
        if home is None:
            return None
        key = (-1 if anchor is None else anchor, frozenset(home))
        cached = self._home_rows.get(key)
        if cached is None:
            near = [i for level in levels for i in level if self.rows[i][0] in home]
            anywhere = [i for t in sorted(home) for i in self.by_table.get(t, [])]
            cached = self._home_rows[key] = (near, anywhere)
        near, anywhere = cached
        pool = near if near and rng.random() >= 0.8 else anywhere
        return rng.choice(pool) if pool else None

    def related(self, anchor: int, depth: int = 3, per_level: int = 300) -> list[list[int]]:
        """Rows by hop distance from ``anchor``: sharing an entity value is one hop.

        Remembered per (anchor, depth): callers draw many calls around the same rows. The
        returned lists are shared; do not modify them."""
        key = (anchor, depth, per_level)
        cached = self._related_cache.get(key)
        if cached is None:
            cached = self._related_cache[key] = self._walk(anchor, depth, per_level)
        return cached

    def _walk(self, anchor: int, depth: int, per_level: int) -> list[list[int]]:
        levels, seen = [[anchor]], {anchor}
        links = self._links
        for hop in range(depth):
            # The last level is cut at ``per_level`` rows and nothing is walked from it, so
            # its walk stops there (the rows beyond are seen by no later level).
            last = hop == depth - 1
            nxt: list[int] = []
            for index in levels[-1]:
                near = links[index]
                if near is None:
                    near = links[index] = self._links_of(index)
                for others in near:
                    for other in others:
                        if other not in seen:
                            seen.add(other)
                            nxt.append(other)
                if last and len(nxt) >= per_level:
                    break
            if not nxt:
                break
            levels.append(nxt[:per_level])
        return levels

    def _links_of(self, index: int) -> tuple[list[int], ...]:
        """The rows sharing each of row ``index``'s entity values (``by_value``'s lists,
        in column order): its hop of the walk."""
        table, row = self.rows[index]
        by_value = self.by_value
        return tuple(
            by_value[(entity, value)]
            for col, entity in self.table_columns[table].items()
            if entity and (value := row.get(col)) is not None
        )

    def column_values(
        self, rows: Iterable[int], param: ParamInfo, tables: set[str] | None = None
    ) -> list[Any]:
        """Values in ``rows`` that fit ``param``: same entity, or (no entity) same column name
        (only in ``tables`` when given)."""
        if param.entity:
            # each row's values of the entity, in row then column order, first one kept
            per_row = self._entity_values_of_rows(param.entity)
            return list(dict.fromkeys(itertools.chain.from_iterable(map(per_row.__getitem__, rows))))
        per_row = self._column_values_of_rows(param.name, tables)
        return list(dict.fromkeys(itertools.chain.from_iterable(map(per_row.__getitem__, rows))))

    def first_value(self, rows: Iterable[int], entity: str) -> Any:
        """``column_values(rows, <a parameter of entity>)[0]`` (the first value of ``entity``
        in row then column order), or None when they hold none, reading only up to it."""
        per_row = self._entity_values_of_rows(entity)
        for index in rows:
            values = per_row[index]
            if values:
                return values[0]
        return None

    def _column_values_of_rows(self, name: str, tables: set[str] | None) -> list[tuple[Any, ...]]:
        """Per row (by index), its value of column ``name`` when it has one (and is a row
        of ``tables``, when given), else nothing (remembered)."""
        key = (name, None if tables is None else frozenset(tables))
        cached = self._row_column_values.get(key)
        if cached is None:
            cached = self._row_column_values[key] = [
                (value,)
                if (tables is None or table in tables) and (value := row.get(name)) is not None
                else ()
                for table, row in self.rows
            ]
        return cached

    def _entity_values_of_rows(self, entity: str) -> list[tuple[Any, ...]]:
        """Per row (by index), the values it holds in its columns of ``entity``, in column
        order, None left out (remembered)."""
        cached = self._row_entity_values.get(entity)
        if cached is None:
            columns = self._columns_of(entity)
            cached = self._row_entity_values[entity] = [
                tuple(v for c in cols if (v := row.get(c)) is not None)
                if (cols := columns.get(table)) is not None
                else ()
                for table, row in self.rows
            ]
        return cached

    def _columns_of(self, entity: str) -> dict[str, list[str]]:
        """Per table that has any, its columns that hold ``entity``, in column order
        (remembered)."""
        cached = self._entity_table_columns.get(entity)
        if cached is None:
            cached = self._entity_table_columns[entity] = {
                table: found
                for table, cols in self.table_columns.items()
                if (found := [c for c, e in cols.items() if e == entity])
            }
        return cached

    def fitting_values(
        self, level: list[int], param: ParamInfo, tables: set[str] | None, schema: dict[str, Any]
    ) -> list[Any]:
        """``column_values`` of one level of ``related`` that fit ``schema``, remembered."""
        known = self.fitting_levels(param, tables, schema)
        cached = known.get(id(level))
        if cached is None:
            cached = known[id(level)] = [
                v for v in self.column_values(level, param, tables) if self.fits(schema, v)
            ]
        return cached

    def fitting_levels(
        self, param: ParamInfo, tables: set[str] | None, schema: dict[str, Any]
    ) -> dict[int, list[Any]]:
        """What ``fitting_values`` remembers for this parameter, tables and schema: the id
        of a level of ``related`` (those lists live as long as this) -> its values."""
        key = (
            param.entity,
            "" if param.entity else param.name,
            None if param.entity or tables is None else frozenset(tables),
            id(schema),
        )
        known = self._values_cache.get(key)
        if known is None:
            known = self._values_cache[key] = {}
        return known

    def plan(self, params: list[ParamInfo]) -> _Plan:
        """What ``valid_arguments`` reads of ``params`` once, remembered per list (by
        identity, while it holds the same parameters: the parameters are read as they are
        when first drawn for)."""
        known = self._plans.get(id(params))
        if (
            known is not None
            and len(known.params) == len(params)
            and all(map(operator.is_, known.params, params))
        ):
            return known
        if len(self._plans) >= 1024:
            self._plans.clear()
        plan = self._plans[id(params)] = _Plan(params, self)
        return plan

    def fits(self, schema: dict[str, Any], value: Any) -> bool:
        """``_fits``, remembered: the same few schemas meet the same values many times."""
        key = (id(schema), type(value), value)
        known = self._fits_cache.get(key)
        if known is None:
            known = self._fits_cache[key] = fits_schema(schema, value)
        return known


def tool_params(tool: dict[str, Any]) -> list[ParamInfo]:
    """Parameters in the order calls are built: entities the user knows (an order number)
    anchor a call, then the other entities, then the rest, each in declaration order
    (``required`` keeps it; ``properties`` may have been sorted)."""
    schema = tool["input_schema"]
    props = schema.get("properties", {})
    required = [n for n in schema.get("required", []) if n in props]
    declared = tool.get("params", {})
    names = required + [n for n in props if n not in required]

    def rank(name: str) -> int:
        info = declared.get(name) or {}
        return 0 if info.get("entity") and info.get("user_provided") else 1 if info.get("entity") else 2

    ordered = sorted(names, key=lambda n: (rank(n), names.index(n)))
    return [ParamInfo(n, props[n], n in required, (declared.get(n) or {}).get("entity")) for n in ordered]


# ---------------------------------------------------------------- valid values


def valid_arguments(
    params: list[ParamInfo], data: SeedData, rng: random.Random, anchor: int | None = None
) -> dict[str, Any]:
    """Arguments drawn from rows near ``anchor`` (default: a random row that can fill the
    first data-backed parameter). Not checked against the schema: callers validate.

    What depends on the parameters alone (each one's schema reading, its remembered level
    values, the home tables, the anchor rows) is read once per parameter list
    (``SeedData.plan``); the draws are those of ``related_value`` per parameter."""
    plan = data.plan(params)
    if anchor is None:
        anchor = plan.anchor(rng, data)
    levels = data.related(anchor) if anchor is not None else []
    args: dict[str, Any] = {}
    used: set[Any] = set()
    first_of_entity: dict[str, Any] = {}
    # Array parameters of one call often run in parallel (item_ids[i] -> new_item_ids[i]),
    # so every array in a call gets the same length.
    length = 1 if rng.random() < 0.7 else 2
    home = plan.home
    record = data.record_near(anchor, levels, home, rng) if plan.recorded else None
    record_values = data.rows[record][1] if record is not None else None
    for step in plan.steps:
        if not step.required and rng.random() < 0.5:
            continue
        name, entity = step.name, step.entity
        if record_values is not None and not entity and name in record_values:
            # Plain values that belong together (street, city, state, zip) come from one row.
            value = record_values[name]
            if data.fits(step.schema, value):
                args[name] = value
                continue
        near = levels
        if entity in first_of_entity:
            # A second parameter of the same entity (new_item_ids after item_ids) usually
            # means a sibling of the first value: look around that value's own row.
            sibling = data.owner_row(entity, first_of_entity[entity])
            if sibling is not None:
                near = data.related(sibling, depth=2)[1:]
        value = step.draw(near, data, rng, used, length)
        if value is _NONE:
            value = value_from_schema(step.schema, rng)
        args[name] = value
        if entity and entity not in first_of_entity and value not in (None, []):
            first_of_entity[entity] = value[0] if isinstance(value, list) else value
        if isinstance(value, list):
            for v in value:
                if isinstance(v, str | int):
                    used.add(v)
        elif isinstance(value, str | int):
            used.add(value)
    for name, boolean, array in plan.conversions:
        # SQLite keeps booleans as 0 / 1 and lists as JSON text: give them as such
        value = args.get(name)
        if boolean and value in (0, 1) and not isinstance(value, bool):
            args[name] = bool(value)
        elif array and isinstance(value, str) and value.startswith("["):
            try:
                args[name] = json.loads(value)
            except ValueError:
                pass
    return args


class _Step:
    """One parameter of a ``_Plan``: ``related_value``'s reading of it, made once."""

    __slots__ = ("count", "entity", "is_array", "item_schema", "known", "name", "param", "required",
                 "rows", "schema", "skip", "tables")  # fmt: skip

    def __init__(self, param: ParamInfo, data: SeedData, home: set[str] | None) -> None:
        schema = param.schema
        self.param, self.name, self.entity, self.required, self.schema = (
            param,
            param.name,
            param.entity,
            param.required,
            schema,
        )
        self.is_array = schema.get("type") == "array"
        self.item_schema: dict[str, Any] = schema.get("items", _ANY) if self.is_array else schema
        self.skip = "enum" in self.item_schema or "const" in self.item_schema
        self.tables = home
        self.count: tuple[int, int] | None = (
            (int(schema.get("minItems", 1)), int(schema["maxItems"])) if "maxItems" in schema else None
        )
        # the remembered values of each level (``fitting_values``) and each row's values
        self.known = data.fitting_levels(param, home, self.item_schema)
        self.rows = (
            data._entity_values_of_rows(param.entity)
            if param.entity
            else data._column_values_of_rows(param.name, home)
        )

    def values(self, level: list[int], data: SeedData, used: set[Any]) -> list[Any]:
        """``fitting_values`` of ``level`` without ``used`` (shared when nothing is left out)."""
        values = self.known.get(id(level))
        if values is None:
            values = data.fitting_values(level, self.param, self.tables, self.item_schema)
        if used and not used.isdisjoint(values):
            values = [v for v in values if v not in used]
        return values

    def any_value(self, level: list[int], data: SeedData, used: set[Any]) -> bool:
        """Whether ``values(level)`` is not empty, reading only as many rows as it takes
        when the level's values are not known yet."""
        values = self.known.get(id(level))
        if values is None:
            rows, schema, fits = self.rows, self.item_schema, data.fits
            for i in level:
                for v in rows[i]:
                    if v not in used and fits(schema, v):
                        return True
            return bool(self.values(level, data, used))  # none: the level's values, remembered
        if not used:
            return bool(values)
        return any(v not in used for v in values)

    def anywhere(self, data: SeedData, used: set[Any]) -> list[Any]:
        """The entity's values anywhere in the data without ``used``: the last resort."""
        anywhere = data.fitting_entity_values(self.entity, self.item_schema)  # type: ignore[arg-type]
        if used and not used.isdisjoint(anywhere):
            anywhere = [v for v in anywhere if v not in used]
        return anywhere

    def draw(
        self, levels: list[list[int]], data: SeedData, rng: random.Random, used: set[Any], length: int
    ) -> Any:
        """``related_value(self.param, levels, data, rng, used, length, home)``: the same
        value and the same draws from ``rng``. The candidate pools are the column's values
        (drawn for a plain parameter half the time), each level's (nearest first), then,
        for an entity, the whole data's; a pool after the first is made only when it is
        drawn from or added to (whether it is empty is read from as few rows as it
        takes), where ``related_value`` made it to know that it is there."""
        if self.skip:
            return _NONE
        pool: list[Any] | None = None
        if not self.entity and rng.random() < 0.5:
            # a value of the same column from any row: a real but different value
            column = data.fitting_column_values(self.name, self.tables, self.item_schema)
            if column:
                pool = column
        position, end = 0, len(levels)
        while pool is None and position < end:
            values = self.values(levels[position], data, used)
            position += 1
            if values:
                pool = values
        last = self.entity is not None  # the whole data's values still to come
        if pool is None:
            if not last:
                return _NONE
            last = False
            pool = self.anywhere(data, used)
            if not pool:
                return _NONE
        # Nearest rows first: the first pool almost always, a farther one now and then.
        if self.is_array:
            count = min(max(length, self.count[0]), self.count[1]) if self.count else length
        else:
            count = 1
        while position < end or last:
            if position < end:
                level: list[int] | None = levels[position]
                position += 1
            else:
                level, last = None, False
            if len(pool) >= count:
                if level is None:
                    candidate = self.anywhere(data, used)
                    if not candidate:
                        continue
                elif not self.any_value(level, data, used):
                    continue  # an empty pool is passed over
                else:
                    candidate = None
                if rng.random() >= 0.1:
                    break
                pool = candidate if candidate is not None else self.values(level, data, used)  # type: ignore[arg-type]
            else:
                candidate = self.anywhere(data, used) if level is None else self.values(level, data, used)
                if candidate:
                    pool = pool + [v for v in candidate if v not in pool]
        if len(pool) < count:
            return _NONE
        return rng.sample(pool, count) if self.is_array else rng.choice(pool)


class _Plan:
    """What ``valid_arguments`` reads of a parameter list once (``SeedData.plan``)."""

    __slots__ = ("anchor_param", "conversions", "home", "pairs", "params", "recorded", "rows", "steps",
                 "strata")  # fmt: skip

    def __init__(self, params: list[ParamInfo], data: SeedData) -> None:
        self.params = tuple(params)
        self.home, self.recorded = data.home_of(params)
        self.steps = [_Step(p, data, self.home) for p in params]
        conversions = []
        for param in params:
            kinds = param.schema.get("type")
            kinds = kinds if isinstance(kinds, list) else [kinds]
            if "boolean" in kinds or "array" in kinds:
                conversions.append((param.name, "boolean" in kinds, "array" in kinds))
        self.conversions = conversions
        # ``anchor_row``: the first parameter with rows to anchor on, its strata
        self.anchor_param: ParamInfo | None = None
        self.rows: list[int] = []
        self.pairs: list[tuple[str, Any]] = []
        self.strata: list[list[int]] | None = None
        for param in params:
            rows, pairs = data.anchor_choices(param)
            if rows:
                self.anchor_param, self.rows, self.pairs = param, rows, pairs
                break

    def anchor(self, rng: random.Random, data: SeedData) -> int | None:
        """``anchor_row(self.params, data, rng)``: its strata read once."""
        if self.anchor_param is None:
            return None
        if self.pairs:
            if self.strata is None:
                self.strata = [data.stratum(self.anchor_param, pair) for pair in self.pairs]
            return rng.choice(rng.choice(self.strata))
        return rng.choice(self.rows)


class _Missing:
    pass


_NONE: Any = _Missing()


def anchor_row(params: list[ParamInfo], data: SeedData, rng: random.Random) -> int | None:
    """A random row of a table that can fill the first data-backed parameter."""
    for param in params:
        rows, pairs = data.anchor_choices(param)
        if not rows:
            continue
        # Stratify by one categorical value (status = delivered, items_modified = 0, ...)
        # so a rule that needs a rare value still gets its share of anchors.
        if pairs:
            rows = data.stratum(param, rng.choice(pairs))
        return rng.choice(rows)
    return None


def record_row(
    params: list[ParamInfo],
    levels: list[list[int]],
    data: SeedData,
    home: set[str] | None,
    rng: random.Random,
) -> int | None:
    """One row of a home table to fill every plain parameter from, when two or more of them
    are its columns: a nearby row, or now and then any row (a real but different record)."""
    if home is None:
        return None
    names = {p.name for p in params if not p.entity}
    if not any(len(names & data.table_columns[t].keys()) >= 2 for t in home):
        return None
    near = [i for level in levels for i in level if data.rows[i][0] in home]
    anywhere = [i for t in sorted(home) for i in data.by_table.get(t, [])]
    # Mostly another record: the nearest one is often the very row a call would change
    # (an order's own address), which makes a write that changes nothing.
    pool = near if near and rng.random() >= 0.8 else anywhere
    return rng.choice(pool) if pool else None


def home_tables(params: list[ParamInfo], data: SeedData) -> set[str] | None:
    """Tables whose columns best match the tool's plain (non-entity) parameters: the values
    of 'city', 'state' and 'zip' come from an address table, not from some other table that
    happens to have a column called 'state'."""
    names = {p.name for p in params if not p.entity}
    if not names:
        return None
    scores = {t: len(names & cols.keys()) for t, cols in data.table_columns.items()}
    best = max(scores.values(), default=0)
    return {t for t, score in scores.items() if score == best} if best else None


def related_value(
    param: ParamInfo,
    levels: list[list[int]],
    data: SeedData,
    rng: random.Random,
    used: set[Any],
    length: int,
    home: set[str] | None = None,
) -> Any:
    schema = param.schema
    is_array = schema.get("type") == "array"
    item_schema = schema.get("items", _ANY) if is_array else schema
    if "enum" in item_schema or "const" in item_schema:
        return _NONE

    def nearest_first() -> Iterator[list[Any]]:
        """The non-empty pools, nearest rows first; each built only when it is reached (the
        first is almost always enough, and the whole data's values are many)."""
        known = data.fitting_levels(param, home, item_schema)  # ``fitting_values``, its key made once
        for level in levels:
            values = known.get(id(level))
            if values is None:
                values = data.fitting_values(level, param, home, item_schema)
            if used and not used.isdisjoint(values):
                values = [v for v in values if v not in used]
            if values:
                yield values  # shared when nothing was left out: only read below
        if param.entity:  # anywhere in the data, as the last resort
            anywhere = data.fitting_entity_values(param.entity, item_schema)
            if used and not used.isdisjoint(anywhere):
                anywhere = [v for v in anywhere if v not in used]
            if anywhere:
                yield anywhere

    pools = nearest_first()
    if not param.entity and rng.random() < 0.5:
        # a value of the same column from any row: a real but different value
        column = data.fitting_column_values(param.name, home, item_schema)
        if column:
            pools = itertools.chain([column], pools)
    pool = next(pools, None)
    if pool is None:
        return _NONE
    # Nearest rows first: the first pool almost always, a farther one now and then.
    count = (
        min(max(length, int(schema.get("minItems", 1))), int(schema.get("maxItems", length)))
        if is_array
        else 1
    )
    for candidate in pools:
        if len(pool) >= count and rng.random() >= 0.1:
            break
        pool = pool + [v for v in candidate if v not in pool] if len(pool) < count else candidate
    if len(pool) < count:
        return _NONE
    return rng.sample(pool, count) if is_array else rng.choice(pool)


_ANY: dict[str, Any] = {}  # the schema of an array without ``items``: one object, so caches keyed by id hold


def fits_schema(schema: dict[str, Any], value: Any) -> bool:
    if value is None:
        return False
    kind = schema.get("type")
    if kind == "string" and not isinstance(value, str):
        return False
    if kind == "integer" and (not isinstance(value, int) or isinstance(value, bool)):
        return False
    if kind == "number" and not isinstance(value, int | float):
        return False
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", len(value)):
            return False
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return False
    return True


def value_from_schema(schema: dict[str, Any], rng: random.Random) -> Any:
    """A value for a schema with no data behind it: enum, examples, then the type's range."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if schema.get("examples"):
        return rng.choice(schema["examples"])
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "integer":
        low, high = int(schema.get("minimum", 0)), int(schema.get("maximum", 100))
        return rng.randint(low, max(low, high))
    if kind == "number":
        lowest, highest = float(schema.get("minimum", 0)), float(schema.get("maximum", 100))
        return round(rng.uniform(lowest, max(lowest, highest)), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        count = max(1, int(schema.get("minItems", 1)))
        return [value_from_schema(schema.get("items", {}), rng) for _ in range(count)]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: value_from_schema(props[k], rng) for k in schema.get("required", []) if k in props}
    if kind == "null":
        return None
    fmt = schema.get("format")
    if fmt in _FORMATS:
        return _FORMATS[fmt]
    low = int(schema.get("minLength", 1))
    high = int(schema.get("maxLength", max(low, 12)))
    word = rng.choice(["probe", "sample", "value", "test"])
    return (word * (low // len(word) + 1))[: max(low, min(len(word), high))]


_FORMATS = {
    "email": "probe@example.com",
    "date": "2026-01-15",
    "date-time": "2026-01-15T10:00:00Z",
    "time": "10:00:00",
    "uri": "https://example.com/probe",
    "uuid": "00000000-0000-4000-8000-000000000000",
}
