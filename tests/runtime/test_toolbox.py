"""A tool call is validated, atomic, confined to its declared tables and checked on output."""

from __future__ import annotations

import pytest

from envfactory_mcp.env import Environment
from envfactory_mcp.runtime import dump_state, state_hash

TRANSFER = {"from_account": "acc_001", "to_account": "acc_002", "amount_cents": 100}


@pytest.fixture()
def session(mini_env: Environment):
    return mini_env.toolbox(), mini_env.new_session().db


def test_write_commits_and_returns_structured_output(session):
    toolbox, db = session
    out = toolbox.call(db, "transfer", TRANSFER)
    assert out.ok and out.output == {"transfer_id": "tr_0001"}
    balances = {r["account_id"]: r["balance_cents"] for r in dump_state(db)["accounts"]}
    assert balances["acc_001"] == 50_000 - 100
    assert toolbox.call(db, "transfer", TRANSFER).output == {"transfer_id": "tr_0002"}


def test_business_rule_failure_undoes_the_writes_made_before_it(session):
    toolbox, db = session
    before = state_hash(db)
    out = toolbox.call(db, "transfer", {**TRANSFER, "amount_cents": 10**9})
    assert not out.ok and not out.internal
    assert out.error == "Insufficient funds in acc_001."
    assert state_hash(db) == before  # the credit to acc_002 was rolled back


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({"account_id": 5}, "at 'account_id': 5 is not of type \"string\""),
        ({}, '"account_id" is a required property'),
        ({"account_id": "acc_001", "extra": 1}, "Additional properties are not allowed"),
        ({"account_id": "'; DROP TABLE accounts; --"}, "does not match"),
        ({"account_id": "x" * 100_000}, "does not match"),
    ],
)
def test_invalid_arguments_are_rejected_before_the_tool_runs(session, arguments, fragment):
    toolbox, db = session
    before = state_hash(db)
    out = toolbox.call(db, "get_account", arguments)
    assert not out.ok and not out.internal
    assert out.error.startswith("Invalid arguments for get_account")
    assert fragment in out.error
    assert len(out.error) <= 500
    assert state_hash(db) == before


def test_unknown_tool_lists_the_available_ones(session):
    toolbox, db = session
    out = toolbox.call(db, "drop_everything", {})
    assert not out.ok and "Unknown tool 'drop_everything'" in out.error and "get_account" in out.error


@pytest.mark.parametrize(
    ("tool", "args", "reason"),
    [
        (
            "sneaky_read",
            {"account_id": "acc_001"},
            "tried to update table 'accounts', which it does not declare writing",
        ),
        (
            "undeclared_write",
            TRANSFER,
            "tried to insert into table 'transfers', which it does not declare writing",
        ),
        (
            "bad_output",
            {"account_id": "acc_001"},
            'output does not match its output schema: "owner" is a required',
        ),
        ("crash", {"account_id": "acc_001"}, "ZeroDivisionError: division by zero"),
    ],
)
def test_defective_tools_become_internal_errors_and_change_nothing(session, tool, args, reason):
    toolbox, db = session
    before = state_hash(db)
    out = toolbox.call(db, tool, args)
    assert not out.ok and out.internal
    assert out.error.startswith(f"Internal error in tool {tool}: ")
    assert reason in out.error
    assert state_hash(db) == before


def test_tool_code_cannot_commit_halfway_or_change_the_schema(mini_env: Environment):
    import types

    from envfactory_mcp.runtime import Toolbox

    module = types.ModuleType("evil")
    exec(  # noqa: S102 - the tool code under test, written here
        "def get_account(ctx, account_id):\n"
        "    ctx.db.execute('COMMIT')\n"
        "    return {}\n"
        "def noop(ctx):\n"
        "    ctx.db.execute('DROP TABLE transfers')\n"
        "    return {}\n",
        module.__dict__,
    )
    spec = mini_env.bundle().spec
    spec = {**spec, "tools": [t for t in spec["tools"] if t["name"] in ("get_account", "noop")]}
    toolbox = Toolbox(spec, module)
    db = mini_env.new_session().db
    cases: tuple[tuple[str, dict[str, str], str], ...] = (
        (
            "get_account",
            {"account_id": "acc_001"},
            "forbidden SQL operation (authorizer action 22, 'COMMIT')",
        ),
        ("noop", {}, "tried to delete from table 'sqlite_master'"),
    )
    for name, args, reason in cases:
        out = toolbox.call(db, name, args)
        assert out.internal and reason in (out.error or "")
    assert {"accounts", "transfers"} <= set(dump_state(db))


def test_missing_tool_function_is_reported_at_bind_time(mini_env: Environment):
    import types

    from envfactory_mcp.runtime import Toolbox

    with pytest.raises(
        ValueError, match="'get_account' is declared in the spec but empty has no such function"
    ):
        Toolbox(mini_env.bundle().spec, types.ModuleType("empty"))


def test_non_json_output_is_an_internal_error(mini_env: Environment):
    import types

    from envfactory_mcp.runtime import Toolbox

    module = types.ModuleType("nan")
    exec("def noop(ctx):\n    return {'x': float('inf')}\n", module.__dict__)  # noqa: S102
    spec = mini_env.bundle().spec
    toolbox = Toolbox({**spec, "tools": [t for t in spec["tools"] if t["name"] == "noop"]}, module)
    out = toolbox.call(mini_env.new_session().db, "noop", {})
    assert out.internal and "output is not JSON: Out of range float values" in (out.error or "")


def test_foreign_key_checks_of_a_declared_write_are_not_undeclared_reads():
    """Inserting a parent row makes SQLite's foreign-key check read the child's key column
    (the session's change-log triggers make every insert a multi-write); that read is the
    constraint's. A tool reading any other column of the child is still refused."""
    import types

    from envfactory_mcp.env.environment import assemble_env
    from envfactory_mcp.runtime import Toolbox
    from envfactory_mcp.synth.sqlddl import import_sql

    imported = import_sql(
        "CREATE TABLE actor (actor_id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n"
        "CREATE TABLE film_actor (actor_id INTEGER NOT NULL REFERENCES actor (actor_id), "
        "role TEXT, PRIMARY KEY (actor_id, role));\n"
        "INSERT INTO actor VALUES (1, 'Penelope');\n",
        "cast_list",
    )
    env = assemble_env(imported.spec, imported.tools_source, imported.rows)
    spec = env.bundle().spec
    module = types.ModuleType("cast_tools")
    exec(  # noqa: S102 - the tool code under test, written here
        "def add_actor(ctx, name):\n"
        "    ctx.db.execute('INSERT INTO actor (actor_id, name) VALUES (7, ?)', (name,))\n"
        "    return {}\n"
        "def copy_roles(ctx, name):\n"
        "    ctx.db.execute('INSERT INTO actor (actor_id, name) SELECT 8, role FROM film_actor')\n"
        "    return {}\n",
        module.__dict__,
    )
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    decl = {
        "effect": "write",
        "reads": [],
        "writes": ["actor"],
        "description": "x",
        "input_schema": schema,
        "output_schema": {"type": "object"},
    }
    toolbox = Toolbox(
        {**spec, "tools": [{**decl, "name": "add_actor"}, {**decl, "name": "copy_roles"}]}, module
    )
    db = env.new_session().db
    assert toolbox.call(db, "add_actor", {"name": "Nick"}).ok
    refused = toolbox.call(db, "copy_roles", {"name": "x"})
    assert refused.internal and "read table 'film_actor', which it does not declare" in (refused.error or "")
