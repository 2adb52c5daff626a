"""Column types of SQLite, MySQL and Postgres -> the JSON kinds the environment stores.

Every type maps to one of the shared model's kinds (stored as SQLite TEXT, INTEGER or
REAL) with what it says about its values: a length (``maxLength``), bounds (unsigned,
TINYINT, DECIMAL(p, s), YEAR), a format (dates, times, uuids), an enum (ENUM, a Postgres
``CREATE TYPE ... AS ENUM``). Binary values become base64 text. Types with no faithful
JSON value (full-text vectors, geometry) are refused with a reason, and the importer
lists the column in ``ignored``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from envfactory_mcp.crud.model import Kind

T = exp.DataType.Type


@dataclass(frozen=True)
class ColumnType:
    """What a column's type says about its values."""

    kind: Kind
    format: str | None = None
    max_length: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    enum: tuple[str | int, ...] | None = None
    item_kind: Kind = "string"
    binary: bool = False  # values are bytes, stored as base64 text
    note: str = ""  # how the type was read, for ``ignored`` (partly modelled types)
    description: str = ""
    auto: bool = False  # SERIAL: numbered by the database
    unscaled: bool = False  # NUMERIC / Oracle NUMBER with no precision: whole numbers when a key holds them


class Unsupported(Exception):
    """A type whose values the environment cannot hold faithfully; the message says why."""


@dataclass
class Domain:
    """A Postgres ``CREATE DOMAIN``: a base type and the bounds or values its CHECK allows."""

    base: ColumnType
    check_note: str = ""


_INTEGER_RANGES: dict[Any, tuple[int, int]] = {  # DataType.Type -> range
    T.TINYINT: (-128, 127),
    T.UTINYINT: (0, 255),
    T.SMALLINT: (-32768, 32767),
    T.USMALLINT: (0, 65535),
    T.MEDIUMINT: (-8388608, 8388607),
    T.UMEDIUMINT: (0, 16777215),
}
_INTEGERS = {
    T.INT,
    T.BIGINT,
    T.INT128,
    T.INT256,
    T.SERIAL,
    T.BIGSERIAL,
    T.SMALLSERIAL,
    T.UINT,
    T.UBIGINT,
    T.UINT128,
    T.UINT256,
    *_INTEGER_RANGES,
}
_UNSIGNED = {
    T.UINT,
    T.UBIGINT,
    T.UINT128,
    T.UINT256,
    T.UTINYINT,
    T.USMALLINT,
    T.UMEDIUMINT,
    T.UDECIMAL,
    T.UDOUBLE,
}
_NUMBERS = {T.FLOAT, T.DOUBLE, T.UDOUBLE, T.MONEY, T.SMALLMONEY, T.DECFLOAT}
_DECIMALS = {T.DECIMAL, T.UDECIMAL, T.BIGDECIMAL, T.DECIMAL32, T.DECIMAL64, T.DECIMAL128, T.DECIMAL256}
_TEXT_LIMITS: dict[Any, int | None] = {  # DataType.Type -> length
    T.CHAR: None,
    T.NCHAR: None,
    T.BPCHAR: None,
    T.VARCHAR: None,
    T.NVARCHAR: None,
    T.FIXEDSTRING: None,
    T.TEXT: None,
    T.NAME: 63,
    T.TINYTEXT: 255,
    T.MEDIUMTEXT: 16_777_215,
    T.LONGTEXT: None,
    T.XML: None,
}
_BINARY = {T.BLOB, T.TINYBLOB, T.MEDIUMBLOB, T.LONGBLOB, T.BINARY, T.VARBINARY, T.IMAGE, T.ROWVERSION}
_DATE_TIMES = {
    T.DATETIME,
    T.DATETIME2,
    T.DATETIME64,
    T.SMALLDATETIME,
    T.TIMESTAMP,
    T.TIMESTAMPTZ,
    T.TIMESTAMPLTZ,
    T.TIMESTAMPNTZ,
    T.TIMESTAMP_S,
    T.TIMESTAMP_MS,
    T.TIMESTAMP_NS,
}
_SPATIAL = {
    T.GEOMETRY,
    T.GEOGRAPHY,
    T.GEOGRAPHYPOINT,
    T.POINT,
    T.RING,
    T.LINESTRING,
    T.MULTILINESTRING,
    T.POLYGON,
    T.MULTIPOLYGON,
}
# Postgres types sqlglot reads as user-defined names.
_NAMED: dict[str, ColumnType] = {
    "citext": ColumnType("string", note="citext kept as text (SQLite compares it case-sensitively)"),
    "macaddr": ColumnType("string", max_length=17, description="MAC address."),
    "macaddr8": ColumnType("string", max_length=23, description="MAC address (EUI-64)."),
    "cidr": ColumnType("string", max_length=43, description="IP network (CIDR)."),
    "int2": ColumnType("integer", minimum=-32768, maximum=32767),
    "int4": ColumnType("integer"),
    "int8": ColumnType("integer"),
    "float4": ColumnType("number"),
    "float8": ColumnType("number"),
    "bool": ColumnType("boolean"),
    "regclass": ColumnType("string"),
    "oid": ColumnType("integer", minimum=0),
    "ltree": ColumnType("string", description="Label path (ltree)."),
}
_NAMED_UNSUPPORTED = {
    "tsvector": "full-text search vector, derived data the environment does not keep",
    "tsquery": "full-text search query, not a stored value",
    "box": "geometric type, not modelled",
    "circle": "geometric type, not modelled",
    "line": "geometric type, not modelled",
    "lseg": "geometric type, not modelled",
    "path": "geometric type, not modelled",
    "polygon": "geometric type, not modelled",
    "txid_snapshot": "transaction snapshot, not application state",
    "pg_lsn": "log sequence number, not application state",
}


def _params(dtype: exp.DataType) -> list[int]:
    """The numeric parameters of a type: ``VARCHAR(40)`` -> [40], ``DECIMAL(5, 2)`` -> [5, 2]."""
    out = []
    for param in dtype.expressions:
        node = param.this if isinstance(param, exp.DataTypeParam) else param
        if isinstance(node, exp.Literal) and not node.is_string:
            try:
                out.append(int(node.this))
            except ValueError:
                continue
    return out


def type_name(dtype: exp.Expression) -> str:
    """The user-defined name of a type (schema dropped): ``public.mpaa_rating`` -> ``mpaa_rating``."""
    kind = dtype.args.get("kind")
    if isinstance(kind, exp.Dot):
        kind = kind.expression
    if isinstance(kind, exp.Identifier):
        return kind.name.lower()
    if isinstance(kind, str):
        return kind.split(".")[-1].strip('"').lower()
    return dtype.sql().split(".")[-1].strip('"').lower()


def column_type(
    dtype: exp.Expression, dialect: str, enums: dict[str, tuple[str, ...]], domains: dict[str, Domain]
) -> ColumnType:
    """The environment's view of one SQL type; raises ``Unsupported`` for types it cannot hold."""
    if isinstance(dtype, exp.ObjectIdentifier):  # oid, regclass
        return _NAMED.get(dtype.name.lower(), ColumnType("string"))
    if not isinstance(dtype, exp.DataType):
        raise Unsupported(f"type {dtype.sql()} is not a column type")
    t = dtype.this
    params = _params(dtype)
    if t == T.USERDEFINED:
        name = type_name(dtype)
        if name in enums:
            return ColumnType("string", enum=enums[name])
        if name in domains:
            return domains[name].base
        if name in _NAMED:
            return _NAMED[name]
        if name in _NAMED_UNSUPPORTED:
            raise Unsupported(f"{name}: {_NAMED_UNSUPPORTED[name]}")
        return ColumnType("string", note=f"type {name} is not known here: kept as text")
    if t in (T.BOOLEAN,) or (t in (T.TINYINT, T.UTINYINT, T.BIT) and params[:1] == [1]):
        return ColumnType("boolean")
    if t == T.BIT:
        width = params[0] if params else 1
        return ColumnType("integer", minimum=0, maximum=2**width - 1 if width < 63 else None)
    if t in _INTEGERS:
        wide = (
            t in (T.BIGINT, T.UBIGINT, T.BIGSERIAL, T.INT128, T.INT256, T.UINT128, T.UINT256)
            or dialect == "sqlite"
        )
        bits = 64 if wide else 32
        signed = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        low, high = _INTEGER_RANGES.get(t, (0, 2**bits - 1) if t in _UNSIGNED else signed)
        if t == T.SMALLSERIAL:
            low, high = 1, 32767
        elif t in (T.SERIAL, T.BIGSERIAL):
            low = 1
        auto = t in (T.SERIAL, T.BIGSERIAL, T.SMALLSERIAL)
        return ColumnType("integer", minimum=low, maximum=min(high, 2**63 - 1), auto=auto)
    if t in _DECIMALS and params and (len(params) == 1 or params[1] == 0) and params[0] <= 18:
        top = 10 ** params[0] - 1  # NUMERIC(p) / NUMERIC(p, 0): whole numbers
        return ColumnType("integer", minimum=0 if t == T.UDECIMAL else -top, maximum=top)
    if t in _DECIMALS:
        minimum, maximum = None, None
        if params:
            scale = params[1] if len(params) > 1 else 0
            maximum = round(10 ** (params[0] - scale) - 10**-scale, scale)
            minimum = 0 if t == T.UDECIMAL else -maximum
        elif t == T.UDECIMAL:
            minimum = 0
        return ColumnType("number", minimum=minimum, maximum=maximum, unscaled=not params)
    if t in _NUMBERS:
        return ColumnType("number", minimum=0 if t in _UNSIGNED else None)
    if t in _TEXT_LIMITS:
        limit = params[0] if params and t not in (T.TEXT,) else _TEXT_LIMITS[t]
        if t == T.TEXT and dialect == "mysql":
            limit = 65_535
        return ColumnType("string", max_length=limit)
    if t in _BINARY:
        size = params[0] if params and t in (T.BINARY, T.VARBINARY) else None
        return ColumnType(
            "string",
            format="byte",  # base64, as OpenAPI names it
            max_length=4 * math.ceil(size / 3) if size else None,
            binary=True,
            description="Binary data, base64-encoded.",
        )
    if t in (T.DATE, T.DATE32):
        return ColumnType("string", format="date")
    if t in (T.TIME, T.TIMETZ, T.TIME_NS):
        return ColumnType("string", format="time")
    if t in _DATE_TIMES:
        return ColumnType("string", format="date-time")
    if t == T.YEAR:
        return ColumnType("integer", minimum=1901, maximum=2155)
    if t == T.INTERVAL:
        return ColumnType("string", description="A time interval.")
    if t == T.ENUM or t in (T.ENUM8, T.ENUM16):
        return ColumnType("string", enum=_literals(dtype))
    if t == T.SET:
        members = _literals(dtype)
        shown = ", ".join(str(m) for m in members)
        return ColumnType(
            "array",
            item_kind="string",
            description=f"Any of: {shown}.",
            note=f"SET members ({shown}) are listed in the description, not checked",
        )
    if t in (T.JSON, T.JSONB):
        return ColumnType("json", description="A JSON document.")
    if t == T.UUID:
        return ColumnType("string", format="uuid")
    if t in (T.INET, T.IPADDRESS, T.IPV4, T.IPV6, T.IPPREFIX):
        return ColumnType("string", max_length=43, description="IP address.")
    if t == T.ARRAY:
        inner = dtype.expressions[0] if dtype.expressions else None
        if isinstance(inner, exp.DataType) and inner.this != T.ARRAY:
            item = column_type(inner, dialect, enums, domains)
            if item.kind != "array":
                return ColumnType("array", item_kind=item.kind)
        return ColumnType("array", item_kind="string", note="nested array kept as a list of texts")
    if t in (T.HSTORE, T.MAP, T.OBJECT, T.STRUCT, T.VARIANT, T.SUPER):
        return ColumnType("json", description="A structured value.")
    if t in _SPATIAL:
        raise Unsupported(f"{t.name.lower()}: spatial types are not modelled")
    if t in (T.INT4RANGE, T.INT8RANGE, T.NUMRANGE, T.TSRANGE, T.TSTZRANGE, T.DATERANGE):
        return ColumnType("string", description="A range of values, as text.")
    if t == T.VECTOR:
        raise Unsupported("vector: embedding vectors are not modelled")
    return ColumnType("string", note=f"type {dtype.sql()} kept as text")


def _literals(dtype: exp.DataType) -> tuple[str, ...]:
    return tuple(e.this for e in dtype.expressions if isinstance(e, exp.Literal))
