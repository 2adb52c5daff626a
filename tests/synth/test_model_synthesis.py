"""Model-driven synthesis end to end: litellm over real HTTP to a scripted OpenAI server.

Every reply the server sends is scripted in this module (``SCRIPTED_*``), built from a
small but real environment: a lending library with members, books and loans, three read
tools and two write tools with business rules (a book on loan cannot be lent, a member
has a loan limit, a loan is returned once). Variants of its spec and code are the
mistakes a model makes; the tests check that each one is caught, fed back and repaired,
or reported when it never is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_server import openai_server

from envfactory_mcp.llm import LiteLLMClient
from envfactory_mcp.synth.model import (
    FailedSynthesis,
    SynthesisResult,
    synthesize_from_description,
    synthesize_many,
)
from envfactory_mcp.synth.prompts import compact_spec_schema, read_proposal, retail_example
from envfactory_mcp.verify.provenance import read_report
from envfactory_mcp.verify.static_gate import check_tool_code
from envfactory_mcp.verify.verifier import VerifyOptions

pytestmark = pytest.mark.slow  # litellm's import and the sandboxed verifier take seconds

MODEL = "openai/scripted-synth"
DESCRIPTION = "A lending library desk: members borrow and return books, with a per-member loan limit."
USAGE = {"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500}
# A verification that fails never reaches the stdio stage, so skipping it saves nothing
# there; a passing one needs it (a report with a stage "not run" does not pass).
NO_STDIO = VerifyOptions(stdio=False)


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(props) if required is None else required,
        "additionalProperties": False,
    }


MEMBER_ID = {"type": "string", "pattern": "^mem_[0-9]{3}$"}
BOOK_ID = {"type": "string", "pattern": "^bk_[0-9]{3}$"}
LOAN_ID = {"type": "string", "pattern": "^loan_[0-9]{4}$"}
BOOK_OUT = _obj(
    {
        "book_id": {"type": "string"},
        "title": {"type": "string"},
        "author": {"type": "string"},
        "status": {"type": "string", "enum": ["available", "on_loan"]},
    }
)
LOAN_OUT = _obj({"loan_id": {"type": "string"}, "book_id": {"type": "string"}, "due_at": {"type": "string"}})


def library_spec() -> dict[str, Any]:
    return {
        "name": "library",
        "title": "Library desk",
        "domain": "library",
        "description": "A lending library: members borrow and return books.",
        "tables": [
            {
                "name": "members",
                "entity": "member",
                "primary_key": ["member_id"],
                "columns": [
                    {"name": "member_id", "type": "TEXT", "entity": "member"},
                    {"name": "name", "type": "TEXT"},
                    {"name": "email", "type": "TEXT", "unique": True},
                    {"name": "max_loans", "type": "INTEGER", "check": "max_loans > 0"},
                ],
            },
            {
                "name": "books",
                "entity": "book",
                "primary_key": ["book_id"],
                "columns": [
                    {"name": "book_id", "type": "TEXT", "entity": "book"},
                    {"name": "title", "type": "TEXT"},
                    {"name": "author", "type": "TEXT"},
                    {"name": "status", "type": "TEXT", "enum": ["available", "on_loan"]},
                ],
            },
            {
                "name": "loans",
                "entity": "loan",
                "primary_key": ["loan_id"],
                "columns": [
                    {"name": "loan_id", "type": "TEXT", "entity": "loan"},
                    {"name": "book_id", "type": "TEXT", "references": "books.book_id", "entity": "book"},
                    {
                        "name": "member_id",
                        "type": "TEXT",
                        "references": "members.member_id",
                        "entity": "member",
                    },
                    {"name": "due_at", "type": "TEXT"},
                    {"name": "returned", "type": "INTEGER", "enum": [0, 1]},
                ],
            },
        ],
        "tools": [
            {
                "name": "find_member_by_email",
                "description": "Find a member's id from their email.",
                "intent": "look up my library card",
                "effect": "read",
                "reads": ["members"],
                "input_schema": _obj({"email": {"type": "string", "minLength": 3}}),
                "output_schema": _obj({"member_id": {"type": "string"}}),
                "params": {"email": {"user_provided": True}},
                "outputs": {"member_id": "member"},
            },
            {
                "name": "get_book",
                "description": "Details and status of a book.",
                "intent": "check a book",
                "effect": "read",
                "reads": ["books"],
                "input_schema": _obj({"book_id": BOOK_ID}),
                "output_schema": BOOK_OUT,
                "params": {"book_id": {"entity": "book", "user_provided": True}},
                "claims": ["status"],
            },
            {
                "name": "list_member_loans",
                "description": "Open loans of a member.",
                "intent": "see my loans",
                "effect": "read",
                "reads": ["members", "loans"],
                "input_schema": _obj({"member_id": MEMBER_ID}),
                "output_schema": _obj({"loans": {"type": "array", "items": LOAN_OUT}}),
                "params": {"member_id": {"entity": "member", "user_provided": False}},
                "outputs": {"loans[].loan_id": "loan", "loans[].book_id": "book"},
            },
            {
                "name": "borrow_book",
                "description": "Lend an available book to a member, due in 14 days. "
                "Fails if the book is on loan or the member has reached their loan limit.",
                "intent": "borrow a book",
                "effect": "write",
                "reads": ["members", "books", "loans"],
                "writes": ["books", "loans"],
                "input_schema": _obj({"member_id": MEMBER_ID, "book_id": BOOK_ID}),
                "output_schema": LOAN_OUT,
                "params": {
                    "member_id": {"entity": "member", "user_provided": False},
                    "book_id": {"entity": "book", "user_provided": True},
                },
                "outputs": {"loan_id": "loan"},
                "claims": ["due_at"],
            },
            {
                "name": "return_book",
                "description": "Return a borrowed book.",
                "intent": "return a book",
                "effect": "write",
                "reads": ["loans"],
                "writes": ["books", "loans"],
                "input_schema": _obj({"loan_id": LOAN_ID}),
                "output_schema": LOAN_OUT,
                "params": {"loan_id": {"entity": "loan", "user_provided": False}},
            },
        ],
        "policy": "Find the member by email before lending. Members may not exceed their loan limit.",
    }


def library_rows() -> dict[str, list[dict[str, Any]]]:
    return {
        "members": [
            {"member_id": "mem_001", "name": "Ada", "email": "ada@example.org", "max_loans": 2},
            {"member_id": "mem_002", "name": "Bo", "email": "bo@example.org", "max_loans": 1},
            {"member_id": "mem_003", "name": "Cy", "email": "cy@example.org", "max_loans": 3},
        ],
        "books": [
            {"book_id": "bk_001", "title": "Dune", "author": "Herbert", "status": "on_loan"},
            {"book_id": "bk_002", "title": "Emma", "author": "Austen", "status": "available"},
            {"book_id": "bk_003", "title": "Ulysses", "author": "Joyce", "status": "available"},
            {"book_id": "bk_004", "title": "Beloved", "author": "Morrison", "status": "on_loan"},
            {"book_id": "bk_005", "title": "Kindred", "author": "Butler", "status": "available"},
        ],
        "loans": [
            {
                "loan_id": "loan_0001",
                "book_id": "bk_001",
                "member_id": "mem_001",
                "due_at": "2026-06-10",
                "returned": 0,
            },
            {
                "loan_id": "loan_0002",
                "book_id": "bk_004",
                "member_id": "mem_002",
                "due_at": "2026-06-05",
                "returned": 0,
            },
            {
                "loan_id": "loan_0003",
                "book_id": "bk_002",
                "member_id": "mem_003",
                "due_at": "2026-05-01",
                "returned": 1,
            },
        ],
    }


LIBRARY_TOOLS = '''"""Library desk tools."""

import datetime

LOAN_DAYS = 14


def _loan(row):
    return {"loan_id": row["loan_id"], "book_id": row["book_id"], "due_at": row["due_at"]}


def find_member_by_email(ctx, *, email):
    row = ctx.one("SELECT member_id FROM members WHERE email = ?", (email.strip().lower(),))
    if row is None:
        ctx.fail("No member has that email.")
    return {"member_id": row["member_id"]}


def get_book(ctx, *, book_id):
    row = ctx.one("SELECT book_id, title, author, status FROM books WHERE book_id = ?", (book_id,))
    if row is None:
        ctx.fail(f"Book {book_id} not found.")
    return row


def list_member_loans(ctx, *, member_id):
    if ctx.one("SELECT member_id FROM members WHERE member_id = ?", (member_id,)) is None:
        ctx.fail(f"Member {member_id} not found.")
    rows = ctx.all(
        "SELECT loan_id, book_id, due_at FROM loans WHERE member_id = ? AND returned = 0 ORDER BY loan_id",
        (member_id,),
    )
    return {"loans": [_loan(r) for r in rows]}


def borrow_book(ctx, *, member_id, book_id):
    member = ctx.one("SELECT max_loans FROM members WHERE member_id = ?", (member_id,))
    if member is None:
        ctx.fail(f"Member {member_id} not found.")
    book = ctx.one("SELECT status FROM books WHERE book_id = ?", (book_id,))
    if book is None:
        ctx.fail(f"Book {book_id} not found.")
    if book["status"] != "available":
        ctx.fail(f"Book {book_id} is on loan.")
    open_loans = ctx.scalar("SELECT COUNT(*) FROM loans WHERE member_id = ? AND returned = 0", (member_id,))
    if open_loans >= member["max_loans"]:
        ctx.fail(f"Member {member_id} already has {open_loans} books, the limit.")
    now = datetime.datetime.fromisoformat(ctx.now.replace("Z", "+00:00"))
    due_at = (now + datetime.timedelta(days=LOAN_DAYS)).date().isoformat()
    loan_id = ctx.next_id("loans", "loan_id", "loan_", 4)
    ctx.execute("INSERT INTO loans VALUES (?, ?, ?, ?, 0)", (loan_id, book_id, member_id, due_at))
    ctx.execute("UPDATE books SET status = 'on_loan' WHERE book_id = ?", (book_id,))
    return {"loan_id": loan_id, "book_id": book_id, "due_at": due_at}


def return_book(ctx, *, loan_id):
    row = ctx.one("SELECT loan_id, book_id, due_at, returned FROM loans WHERE loan_id = ?", (loan_id,))
    if row is None:
        ctx.fail(f"Loan {loan_id} not found.")
    if row["returned"]:
        ctx.fail(f"Loan {loan_id} was already returned.")
    ctx.execute("UPDATE loans SET returned = 1 WHERE loan_id = ?", (loan_id,))
    ctx.execute("UPDATE books SET status = 'available' WHERE book_id = ?", (row["book_id"],))
    return _loan(row)
'''


# ------------------------------------------------------------------ scripted replies


def scripted(content: str) -> dict[str, Any]:
    """One scripted chat-completion reply carrying ``content`` and fixed token counts."""
    return {"content": content, "usage": USAGE}


def proposal(spec: dict[str, Any]) -> dict[str, Any]:
    return scripted(json.dumps({"spec": spec, "seed_rows": library_rows()}))


def code(source: str) -> dict[str, Any]:
    return scripted(f"```python\n{source}```")  # models like fences; the reader strips them


def _unknown_table_spec() -> dict[str, Any]:
    spec = library_spec()
    borrow = next(t for t in spec["tools"] if t["name"] == "borrow_book")
    borrow["writes"] = ["books", "loans", "fines"]
    return spec


GET_BOOK_ROW = (
    '    row = ctx.one("SELECT book_id, title, author, status FROM books WHERE book_id = ?", (book_id,))\n'
)
SCRIPTED_PROPOSAL = proposal(library_spec())
SCRIPTED_BAD_PROPOSAL = proposal(_unknown_table_spec())  # borrow_book writes a table that does not exist
SCRIPTED_CODE = code(LIBRARY_TOOLS)
# A read tool that writes: the authorizer refuses, the verifier names get_book's read_only check.
SCRIPTED_WRITING_READ = code(
    LIBRARY_TOOLS.replace(
        GET_BOOK_ROW,
        '    ctx.execute("UPDATE books SET title = title WHERE book_id = ?", (book_id,))\n' + GET_BOOK_ROW,
    )
)
# An uncaught exception on every valid id.
SCRIPTED_CRASHING = code(LIBRARY_TOOLS.replace("    return row\n", '    return {"pages": 1 // 0}\n', 1))
# A forbidden import on line 3 (after the docstring and a blank line).
SCRIPTED_IMPORT_OS = code(
    LIBRARY_TOOLS.replace('"""Library desk tools."""\n\n', '"""Library desk tools."""\n\nimport os\n', 1)
)


def client(server: Any) -> LiteLLMClient:
    return LiteLLMClient(MODEL, api_base=server.base_url, max_retries=0)


def log_lines(result: SynthesisResult) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.log_path.read_text(encoding="utf-8").splitlines()]


def last_user_message(request: dict[str, Any]) -> str:
    return str(next(m["content"] for m in reversed(request["messages"]) if m["role"] == "user"))


# ------------------------------------------------------------------------- the tests


def test_the_scripted_environment_is_valid_and_the_prompt_example_too() -> None:
    assert check_tool_code(LIBRARY_TOOLS) == []
    proposal_ = read_proposal(SCRIPTED_PROPOSAL["content"], name=None, seed=5)
    assert proposal_.spec.name == "library" and proposal_.spec.seed.generator == "model"
    example_spec, example_rows, example_code = retail_example()
    example = read_proposal(json.dumps({"spec": example_spec, "seed_rows": example_rows}), name=None, seed=0)
    assert example.spec.name == "retail_slice" and len(example.rows["users"]) == 2
    assert check_tool_code(example_code) == []
    schema = compact_spec_schema()
    assert "title" in schema["properties"]  # the spec's own field survives, pydantic's titles do not
    assert "title" not in schema["properties"]["name"]


async def test_invalid_proposal_is_fixed_from_feedback_then_emitted_with_stdio(tmp_path: Path) -> None:
    replies = [SCRIPTED_BAD_PROPOSAL, SCRIPTED_PROPOSAL, SCRIPTED_CODE]
    with openai_server(replies) as server:
        result = await synthesize_from_description(client(server), DESCRIPTION, tmp_path)
    assert len(server.requests) == 3
    error = "tools[borrow_book].writes[2]: unknown table 'fines'"
    assert error not in json.dumps(server.requests[0]["messages"])
    assert error in last_user_message(server.requests[1])
    assert result.status == "emitted" and result.name == "library" and result.rounds == 0
    assert result.package_dir == tmp_path / "library"
    report = read_report(tmp_path / "library")
    assert report is not None and report.passed
    assert {c.check: c.status for c in report.environment}["stdio"] == "passed"
    assert not (tmp_path / "library.failed.json").exists()
    # The log started under a provisional name and moved to the spec's name.
    assert sorted(p.name for p in tmp_path.glob("*.build.jsonl")) == ["library.build.jsonl"]
    lines = log_lines(result)
    calls = [(e["stage"], e["step"]) for e in lines if e["event"] == "call"]
    assert calls == [("propose", 1), ("propose", 2), ("implement", 0)]
    for entry in (e for e in lines if e["event"] == "call"):
        assert (entry["prompt_tokens"], entry["completion_tokens"]) == (1200, 300)
        assert entry["messages"] and entry["response"] and entry["cost_usd"] is None
    spec_checks = [e for e in lines if e["event"] == "check" and e["check"] == "spec"]
    assert [c["passed"] for c in spec_checks] == [False, True] and error in spec_checks[0]["problems"][0]
    assert result.tokens == 3 * 1500 and result.cost_usd is None
    assert lines[-1]["event"] == "result" and lines[-1]["result"]["status"] == "emitted"


async def test_proposals_that_never_validate_stop_after_the_attempts(tmp_path: Path) -> None:
    not_json = scripted("Sure! Here is the environment you asked for.")
    with openai_server([not_json, SCRIPTED_BAD_PROPOSAL, SCRIPTED_BAD_PROPOSAL, SCRIPTED_PROPOSAL]) as server:
        result = await synthesize_from_description(client(server), DESCRIPTION, tmp_path, name="library")
    assert len(server.requests) == 3 and server.remaining == 1
    assert "reply: not JSON" in last_user_message(server.requests[1])
    assert result.status == "failed" and result.rounds == 0 and result.report is None
    assert result.failures == ["tools[borrow_book].writes[2]: unknown table 'fines'"]
    record = FailedSynthesis.model_validate_json((tmp_path / "library.failed.json").read_text())
    assert [(r.stage, r.step) for r in record.history] == [("propose", 1), ("propose", 2), ("propose", 3)]


async def test_code_failing_verification_is_repaired(tmp_path: Path) -> None:
    replies = [SCRIPTED_PROPOSAL, SCRIPTED_WRITING_READ, SCRIPTED_CODE]
    with openai_server(replies) as server:
        result = await synthesize_from_description(client(server), DESCRIPTION, tmp_path, name="library")
    assert len(server.requests) == 3
    feedback = last_user_message(server.requests[2])
    assert "Verification in the sandbox failed" in feedback
    assert "- get_book: read_only: Internal error in tool get_book: tried to update table 'books'" in feedback
    assert result.status == "emitted" and result.rounds == 1 and result.failures == []
    assert result.report is not None and result.report.passed
    stages = [e["stage"] for e in log_lines(result) if e["event"] == "call"]
    assert stages == ["propose", "implement", "repair"]


async def test_code_that_never_verifies_stops_after_three_repair_rounds(tmp_path: Path) -> None:
    replies = [SCRIPTED_PROPOSAL, *[SCRIPTED_CRASHING] * 4, SCRIPTED_CODE]  # the last one is never asked for
    with openai_server(replies) as server:
        result = await synthesize_from_description(
            client(server), DESCRIPTION, tmp_path, name="library", verify_options=NO_STDIO
        )
    assert len(server.requests) == 1 + 1 + 3 and server.remaining == 1
    assert result.status == "failed" and result.rounds == 3 and result.package_dir is None
    assert any(
        f.startswith("get_book: no_internal_error: ") and "ZeroDivisionError" in f for f in result.failures
    )
    assert not (tmp_path / "library").exists()
    record = FailedSynthesis.model_validate_json((tmp_path / "library.failed.json").read_text())
    assert [(r.stage, r.step, r.check) for r in record.history] == [
        ("implement", 0, "verify"),
        ("repair", 1, "verify"),
        ("repair", 2, "verify"),
        ("repair", 3, "verify"),
    ]
    assert record.result.failures == result.failures and record.description == DESCRIPTION
    # The failure is a checkpoint: a second run asks the model nothing.
    with openai_server([]) as server:
        (again,) = await synthesize_many(client(server), [("library", DESCRIPTION)], tmp_path)
    assert server.requests == []
    assert again.resumed and again.status == "failed" and again.failures == result.failures


async def test_forbidden_import_is_rejected_by_the_static_gate_then_fixed(tmp_path: Path) -> None:
    replies = [SCRIPTED_PROPOSAL, SCRIPTED_IMPORT_OS, SCRIPTED_CODE]
    with openai_server(replies) as server:
        result = await synthesize_from_description(client(server), DESCRIPTION, tmp_path, name="library")
    feedback = last_user_message(server.requests[2])
    assert "The static gate rejected tools.py:" in feedback
    assert "- tools.py:3:1: import os is not allowed" in feedback
    assert result.status == "emitted" and result.rounds == 1
    gate = [e for e in log_lines(result) if e["event"] == "check" and e["check"] == "static_gate"]
    assert [bool(e["problems"]) for e in gate] == [True, False]
    verified = [e for e in log_lines(result) if e["event"] == "check" and e["check"] == "verify"]
    assert len(verified) == 1  # the rejected code never ran


async def test_many_descriptions_run_concurrently_and_resume_without_the_model(tmp_path: Path) -> None:
    # Both proposals are answered late, so both conversations have asked before either goes on.
    slow_proposal = {**SCRIPTED_PROPOSAL, "delay": 0.3}
    replies = [slow_proposal, slow_proposal, SCRIPTED_CODE, SCRIPTED_CODE]
    descriptions = [("library", DESCRIPTION), ("library_annex", "The annex of the same library.")]
    with openai_server(replies) as server:
        first = await synthesize_many(client(server), descriptions, tmp_path, concurrency=2)
    assert [r.name for r in first] == ["library", "library_annex"]
    assert [r.status for r in first] == ["emitted", "emitted"] and not any(r.resumed for r in first)
    opening = [str(r["messages"][0]["content"]) for r in server.requests[:2]]
    assert all(text.startswith("You design") for text in opening)  # both proposals were in flight together
    with openai_server([]) as server:
        second = await synthesize_many(client(server), descriptions, tmp_path, concurrency=2)
    assert server.requests == []
    assert [r.resumed for r in second] == [True, True]
    assert [(r.name, r.status, r.package_dir, r.tokens) for r in second] == [
        (r.name, r.status, r.package_dir, r.tokens) for r in first
    ]


async def test_an_imported_spec_is_enriched_not_replaced(tmp_path: Path) -> None:
    imported = read_proposal(SCRIPTED_PROPOSAL["content"], name="library", seed=0).spec
    with openai_server([SCRIPTED_PROPOSAL, SCRIPTED_CODE]) as server:
        result = await synthesize_from_description(
            client(server), DESCRIPTION, tmp_path, name="library", base_spec=imported
        )
    task = last_user_message(server.requests[0])
    assert task.startswith("Enrich this imported spec") and '"name": "borrow_book"' in task
    assert result.status == "emitted"


async def test_a_failing_endpoint_is_an_error_not_a_failure(tmp_path: Path) -> None:
    with openai_server([{"status": 400}]) as server:
        result = await synthesize_from_description(client(server), DESCRIPTION, tmp_path, name="library")
    assert result.status == "error" and "bad_request" in result.failures[0]
    assert not (tmp_path / "library.failed.json").exists()  # the next run tries again
    assert [e["event"] for e in log_lines(result)] == ["start", "error", "result"]
