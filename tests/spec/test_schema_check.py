"""A tool schema's metaschema check (``spec.validate._schema_error``) gives the ``jsonschema``
package's verdict, message and path, whichever way it reaches it: a schema jsonschema-rs
finds plainly valid never loads ``jsonschema`` (~0.1 s of every command that loads a
spec). Compared here on generated schemas that mix valid and invalid keywords, Python-only
and ECMA-only regular expressions, and the keywords that name other schemas or URIs."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from paths import SERVERS_DIR

from envfactory_mcp.spec.validate import _schema_error


def judged_by_jsonschema(schema: Any) -> tuple[str, str] | None:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return "/".join(str(p) for p in exc.absolute_path), exc.message
    return None


_regexes = st.sampled_from(["^a+$", "(", "\\p{L}", "(?P<x>a)", "a{2,1}", "(?<=a+)b", "[0-9]{3}", "\\d"])
_leaves = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "object", "strin", "null"])}),
    st.fixed_dictionaries({"pattern": _regexes}),
    st.fixed_dictionaries({"minLength": st.sampled_from([0, 1, 1.0, 1.5, -1, "2"])}),
    st.fixed_dictionaries({"enum": st.lists(st.integers(0, 2), max_size=3)}),
    st.fixed_dictionaries({"required": st.lists(st.sampled_from(["a", "b"]), max_size=3)}),
    st.fixed_dictionaries(
        {st.sampled_from(["$id", "$ref", "$anchor", "$schema"]): st.sampled_from(["x", "#/a", "1bad"])}
    ),
    st.fixed_dictionaries({"const": st.fixed_dictionaries({"pattern": _regexes})}),
    st.booleans(),
)


def _nested(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.dictionaries(st.sampled_from(["a", "pattern", "b"]), children, max_size=3),
            }
        ),
        st.fixed_dictionaries({"patternProperties": st.dictionaries(_regexes, children, max_size=2)}),
        st.fixed_dictionaries({"items": children}),
        st.fixed_dictionaries({"anyOf": st.lists(children, max_size=3)}),
        st.fixed_dictionaries({"items": st.lists(children, max_size=2)}),  # invalid in 2020-12
    )


_schemas = st.recursive(_leaves, _nested, max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(_schemas)
def test_the_verdict_message_and_path_are_jsonschemas(schema: Any) -> None:
    assert _schema_error(schema) == judged_by_jsonschema(schema)


def test_loading_a_valid_spec_does_not_import_jsonschema() -> None:
    spec = SERVERS_DIR / "retail" / "retail_mcp" / "data" / "spec.json"
    code = (
        "import sys, json\n"
        "from envfactory_mcp.spec import parse_spec\n"
        f"parse_spec(json.loads(open({str(spec)!r}).read()))\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'jsonschema')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
