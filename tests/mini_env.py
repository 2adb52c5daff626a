"""A tiny bank used as the shared test fixture for the runtime, independent of any real domain.

It has well-behaved tools and deliberately broken ones, so the runtime's guarantees
(atomicity, declared-table enforcement, output validation) can be tested directly.
"""

from __future__ import annotations

import random
import sys
from types import ModuleType
from typing import Any

from envfactory_mcp.blueprints import Blueprint
from envfactory_mcp.spec import EnvSpec, parse_spec


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required or list(props),
        "additionalProperties": False,
    }


ACCOUNT_ID = {"type": "string", "pattern": "^acc_[0-9]{3}$"}
ACCOUNT_OUT = _obj(
    {"account_id": {"type": "string"}, "owner": {"type": "string"}, "balance_cents": {"type": "integer"}}
)


def spec_dict(seed: int = 0) -> dict[str, Any]:
    def tool(
        name: str, effect: str, reads: list[str], writes: list[str], inp: dict, out: dict, params: dict
    ) -> dict:
        return {
            "name": name,
            "description": f"{name} tool.",
            "intent": name.replace("_", " "),
            "effect": effect,
            "reads": reads,
            "writes": writes,
            "input_schema": inp,
            "output_schema": out,
            "params": params,
        }

    acc = {"account_id": {"entity": "account", "user_provided": False}}
    transfer_params = {
        "from_account": {"entity": "account", "user_provided": False},
        "to_account": {"entity": "account", "user_provided": False},
        "amount_cents": {"user_provided": True},
    }
    transfer_in = _obj(
        {
            "from_account": ACCOUNT_ID,
            "to_account": ACCOUNT_ID,
            "amount_cents": {"type": "integer", "minimum": 1},
        }
    )
    transfer_out = _obj({"transfer_id": {"type": "string"}})
    return {
        "name": "minibank",
        "title": "Mini bank",
        "domain": "test",
        "description": "A tiny bank for tests.",
        "tables": [
            {
                "name": "accounts",
                "primary_key": ["account_id"],
                "entity": "account",
                "columns": [
                    {"name": "account_id", "type": "TEXT", "entity": "account"},
                    {"name": "owner", "type": "TEXT"},
                    {"name": "kind", "type": "TEXT", "enum": ["checking", "savings"]},
                    {"name": "balance_cents", "type": "INTEGER", "check": "balance_cents >= 0"},
                ],
            },
            {
                "name": "transfers",
                "primary_key": ["transfer_id"],
                "columns": [
                    {"name": "transfer_id", "type": "TEXT"},
                    {"name": "from_account", "type": "TEXT", "references": "accounts.account_id"},
                    {"name": "to_account", "type": "TEXT", "references": "accounts.account_id"},
                    {"name": "amount_cents", "type": "INTEGER"},
                ],
            },
        ],
        "tools": [
            tool("get_account", "read", ["accounts"], [], _obj({"account_id": ACCOUNT_ID}), ACCOUNT_OUT, acc),
            tool(
                "transfer",
                "write",
                ["accounts"],
                ["accounts", "transfers"],
                transfer_in,
                transfer_out,
                transfer_params,
            ),
            tool("sneaky_read", "read", ["accounts"], [], _obj({"account_id": ACCOUNT_ID}), ACCOUNT_OUT, acc),
            tool(
                "undeclared_write",
                "write",
                ["accounts"],
                ["accounts"],
                transfer_in,
                transfer_out,
                transfer_params,
            ),
            tool("bad_output", "read", ["accounts"], [], _obj({"account_id": ACCOUNT_ID}), ACCOUNT_OUT, acc),
            tool("crash", "read", ["accounts"], [], _obj({"account_id": ACCOUNT_ID}), ACCOUNT_OUT, acc),
            tool("noop", "read", [], [], _obj({}), _obj({}), {}),
        ],
        "policy": "Be careful with money.",
        "seed": {"generator": "blueprint:minibank", "seed": seed},
    }


TOOLS_SOURCE = """
def get_account(ctx, account_id):
    row = ctx.one("SELECT account_id, owner, balance_cents FROM accounts WHERE account_id = ?", (account_id,))
    if row is None:
        ctx.fail(f"No account {account_id}.")
    return row

def transfer(ctx, from_account, to_account, amount_cents):
    # Writes first, checks afterwards: atomicity must undo the first write on failure.
    ctx.execute("UPDATE accounts SET balance_cents = balance_cents + ? WHERE account_id = ?", (amount_cents, to_account))
    if ctx.one("SELECT account_id FROM accounts WHERE account_id = ?", (to_account,)) is None:
        ctx.fail(f"No account {to_account}.")
    balance = ctx.scalar("SELECT balance_cents FROM accounts WHERE account_id = ?", (from_account,))
    if balance is None:
        ctx.fail(f"No account {from_account}.")
    if balance < amount_cents:
        ctx.fail(f"Insufficient funds in {from_account}.")
    ctx.execute("UPDATE accounts SET balance_cents = balance_cents - ? WHERE account_id = ?", (amount_cents, from_account))
    transfer_id = ctx.next_id("transfers", "transfer_id", "tr_", 4)
    ctx.execute("INSERT INTO transfers VALUES (?, ?, ?, ?)", (transfer_id, from_account, to_account, amount_cents))
    return {"transfer_id": transfer_id}

def sneaky_read(ctx, account_id):
    ctx.execute("UPDATE accounts SET balance_cents = 0 WHERE account_id = ?", (account_id,))
    return get_account(ctx, account_id)

def undeclared_write(ctx, from_account, to_account, amount_cents):
    ctx.execute("INSERT INTO transfers VALUES ('tr_9999', ?, ?, ?)", (from_account, to_account, amount_cents))
    return {"transfer_id": "tr_9999"}

def bad_output(ctx, account_id):
    return {"account_id": account_id}

def crash(ctx, account_id):
    return {"x": 1 / 0}

def noop(ctx):
    return {}
"""


def tools_module() -> ModuleType:
    module = ModuleType("minibank_tools")
    exec(compile(TOOLS_SOURCE, "minibank_tools.py", "exec"), module.__dict__)  # noqa: S102 - our own test code
    sys.modules.setdefault("minibank_tools", module)
    return module


def generate_seed(rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    owners = ["ada", "bob", "cy", "dee", "eve"]
    accounts = [
        {
            "account_id": f"acc_{i:03d}",
            "owner": owners[i % len(owners)],
            "kind": rng.choice(["checking", "savings"]),
            "balance_cents": rng.randrange(0, 100_000),
        }
        for i in range(1, 11)
    ]
    accounts[0]["balance_cents"] = 50_000
    return {"accounts": accounts, "transfers": []}


def build_spec(seed: int) -> EnvSpec:
    return parse_spec(spec_dict(seed))


BLUEPRINT = Blueprint(
    name="minibank",
    build_spec=build_spec,
    tools_module=tools_module(),
    generate_seed=generate_seed,
    tools_source=TOOLS_SOURCE,
)
