"""Reading a command line's values without building a pydantic validator for each option.

Typer (0.2x, with its own click) turns each value of the command line, and each default,
into the parameter's type through a pydantic ``TypeAdapter`` it builds for that parameter
when the command line is parsed (``typer._coercion.build_runtime_param``): importing
``typer._adapters`` and the part of pydantic it needs, then a validator per parameter,
~0.1 s of CPU at every start of ``rollout`` (issue 32), though nearly every value is a
default already of its type or a plain word or number.

``QuickCoercion`` stands in for the parameter's adapter: the values whose outcome is
certain (a default already of the type, a word for a ``str``, digits for an ``int`` or a
``float``, a name among an enum's or a literal's choices, a path) are converted here, as
the adapter would convert them, with typer's own functions where typer has them; any
other value, and any value whose conversion fails, goes to the adapter, built then, so
what a command receives and every error message are typer's own.
``tests/cli/test_params.py`` holds the two to the same results.
"""

from __future__ import annotations

import math
import re
from enum import Enum
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

_INT = re.compile(r"0|-?[1-9][0-9]{0,17}")
_FLOAT = re.compile(r"-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?")
_UNSET = object()

Kind = Literal["str", "int", "float", "bool", "choice", "path", "str_list"]


class QuickCoercion:
    """A ``typer._coercion.RuntimeParam`` for one parameter (``coerce``) that builds the
    real one only for a value it cannot convert for certain."""

    def __init__(self, descriptor: Any, kind: Kind | None) -> None:
        self.descriptor = descriptor
        self.kind = kind
        self._real: Any = None

    def real(self) -> Any:
        """Typer's own runtime parameter (its pydantic adapter), built on first need."""
        if self._real is None:
            from typer._coercion import build_runtime_param

            self._real = build_runtime_param(self.descriptor)
        return self._real

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        multiple = param.multiple or param.nargs == -1
        if value is None:  # as ``RuntimeParam.coerce``
            return () if multiple else None
        if self.kind is not None and not (multiple and isinstance(value, str)):
            try:
                result = self._quick(value, param, ctx)
            except Exception:  # noqa: BLE001 - typer's adapter says what is wrong, in its words
                result = _UNSET
            if result is not _UNSET:
                return result
        return self.real().coerce(value, param=param, ctx=ctx)

    def _quick(self, value: Any, param: Any, ctx: Any) -> Any:
        """The value converted as the adapter converts it, or ``_UNSET`` when not certain."""
        info = self.descriptor.parameter_info
        kind = self.kind
        kind_of_value = type(value)
        if kind == "str":
            return value if kind_of_value is str else _UNSET
        if kind == "bool":
            return value if kind_of_value is bool else _UNSET
        if kind == "int":
            if kind_of_value is str and _INT.fullmatch(value):
                number: Any = int(value)
            elif kind_of_value is int:
                number = value
            else:
                return _UNSET
            return number if _within(number, info) else _UNSET
        if kind == "float":
            if kind_of_value is str and _FLOAT.fullmatch(value):
                number = float(value)
            elif kind_of_value is float and math.isfinite(value):
                number = value
            elif kind_of_value is int and abs(value) < 2**53:
                number = float(value)
            else:
                return _UNSET
            return number if _within(number, info) else _UNSET
        if kind == "choice":
            from typer._param_types import choice_coercion_annotation, coerce_cli_choice

            choice = choice_coercion_annotation(self.descriptor.annotation, info)
            if choice is None:
                return _UNSET
            return coerce_cli_choice(value, choices=choice[0], case_sensitive=choice[1], ctx=ctx)
        if kind == "path":
            from typer._param_types import coerce_cli_path

            if kind_of_value is str and value and "\x00" not in value:
                value = Path(value)  # what pydantic's Path makes of it
            elif not isinstance(value, Path):
                return _UNSET
            return coerce_cli_path(value, info, path_type=Path, param=param, ctx=ctx)
        if kind == "str_list":
            if isinstance(value, list | tuple) and all(type(item) is str for item in value):
                return list(value)
            return _UNSET
        return _UNSET


def _within(number: float, info: Any) -> bool:
    """``ge=min, le=max`` as pydantic checks them (clamping is left to the adapter)."""
    if info.min is not None and not number >= info.min:
        return False
    return info.max is None or number <= info.max


def kind_of(descriptor: Any) -> Kind | None:
    """Which values of the parameter ``QuickCoercion`` converts itself (None: none, every
    value goes to typer's adapter): the order of ``typer._adapters.build_leaf_adapter``."""
    info = descriptor.parameter_info
    annotation = descriptor.annotation
    if descriptor.file_annotation is not None or info.parser is not None:
        return None
    if get_origin(annotation) is list:
        return "str_list" if get_args(annotation) == (str,) else None
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "choice"
    if get_origin(annotation) is Literal:
        return "choice"
    if annotation is int or annotation is float:
        return None if info.clamp else ("int" if annotation is int else "float")
    if annotation is bool:
        return "bool"
    if annotation is str:
        return "str"
    if annotation is Path and info.path_type is None:
        return "path"
    return None


def quicken(params: list[Any]) -> None:
    """Give each typer parameter in ``params`` a ``QuickCoercion`` in place of the runtime
    parameter typer would build when the command line is parsed (typer versions without
    one, with click's own types, are left as they are)."""
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is None or getattr(param, "_runtime_param", _UNSET) is not None:
            continue
        if not hasattr(param, "get_runtime_param"):
            continue
        param._runtime_param = QuickCoercion(descriptor, kind_of(descriptor))
