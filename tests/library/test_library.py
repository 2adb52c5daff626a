"""The library of composed services: every one is a valid, distinct environment whose rules
are enforced by its tools and declared for the task generator, and one is used end to end."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import anyio
import pytest

from envfactory_mcp.blueprints import blueprint_names, handcrafted_names, load_blueprint
from envfactory_mcp.build import build_all
from envfactory_mcp.env import Environment, build_env
from envfactory_mcp.library import load_service, service_names
from envfactory_mcp.library.distinct import THRESHOLD, shapes, similarity, too_similar
from envfactory_mcp.runtime import state_hash
from envfactory_mcp.settings import Settings
from envfactory_mcp.spec import parse_spec


@pytest.fixture(scope="module")
def grooming() -> Environment:
    return build_env(load_blueprint("pet_grooming"))


def call(env: Environment, tool: str, **arguments: object) -> tuple[bool, object, str, str]:
    """(ok, output or error, state hash before, state hash after) of one call on a fresh session."""
    session = env.new_session()
    try:
        before = state_hash(session.db)
        outcome = env.toolbox().call(session.db, tool, dict(arguments))
        assert not outcome.internal, outcome.error
        return outcome.ok, outcome.output if outcome.ok else outcome.error, before, state_hash(session.db)
    finally:
        session.close()


def test_library_services_are_shipped_environments_beside_the_handcrafted_ones():
    names = service_names()
    assert {"pet_grooming", "gym_membership"} <= set(names)
    assert set(names) <= set(blueprint_names())
    assert not set(names) & set(handcrafted_names())
    for name in names:
        spec = load_blueprint(name).build_spec(load_service(name).seed)
        assert spec.seed.generator == f"library:{name}"
        rules = spec.policy_rules
        assert rules.authentication is not None and rules.authentication.tools, name
        assert rules.transfer is not None and len(rules.transfer.out_of_scope) >= 6, name
        writes = {t.name for t in spec.tools if t.effect == "write"}
        assert set(rules.confirm) == writes, name
        for rule in rules.refusals:  # every guard is declared, shown by a read, and written in the policy
            shown_by = spec.tool(rule.shown_by)
            assert shown_by is not None and shown_by.effect == "read"
            assert f"`{rule.tool}`" in spec.policy and rule.reason in spec.policy
        assert len(spec.tools) >= 10, name


def test_no_two_shipped_environments_are_the_same_service():
    specs = {n: load_blueprint(n).build_spec(load_blueprint(n).default_seed) for n in blueprint_names()}
    assert too_similar(specs) == []


def test_a_renamed_copy_is_caught():
    spec = load_blueprint("gym_membership").build_spec(1)
    text = spec.model_dump_json()
    for old, new in (("member", "client"), ("gym", "studio"), ("class", "session"), ("membership", "plan_x")):
        text = text.replace(old, new)
    copy = parse_spec(json.loads(text))
    assert {t.name for t in copy.tools}.isdisjoint(
        {t.name for t in spec.tools} - {"transfer_to_human_agents"}
    )
    assert similarity(shapes(spec), shapes(copy)) == 1.0 > THRESHOLD
    assert too_similar({"gym_membership": spec, "renamed": copy}) == [(1.0, "gym_membership", "renamed")]


def test_a_guard_refuses_with_its_reason_and_changes_nothing(grooming: Environment):
    state = grooming.seed_state
    done = next(a for a in state["appointments"] if a["status"] == "completed")
    ok, error, before, after = call(
        grooming, "cancel_appointment", appointment_id=done["appointment_id"], cancel_reason="x"
    )
    assert not ok and before == after
    assert f"Appointment {done['appointment_id']} is completed" in str(error)
    assert "cannot be cancelled" in str(error)
    waiting = next(a for a in state["appointments"] if a["status"] == "requested")
    ok, row, before, after = call(
        grooming,
        "cancel_appointment",
        appointment_id=waiting["appointment_id"],
        cancel_reason="pet is unwell",
    )
    assert ok and before != after
    assert row["status"] == "cancelled" and row["cancel_reason"] == "pet is unwell"  # type: ignore[index]


def test_find_tools_authenticate_by_what_a_person_knows(grooming: Environment):
    owner = grooming.seed_state["owners"][3]
    ok, found, _, _ = call(grooming, "find_owner_id_by_email", email=owner["email"])
    assert ok and found == {"owner_id": owner["owner_id"]}
    ok, found, _, _ = call(
        grooming,
        "find_owner_id_by_first_name_and_last_name_and_phone",
        first_name=owner["first_name"],
        last_name=owner["last_name"],
        phone=owner["phone"],
    )
    assert ok and found == {"owner_id": owner["owner_id"]}
    ok, error, _, _ = call(grooming, "find_owner_id_by_email", email="nobody@example.com")
    assert not ok and error == "No owner with that email."


def test_seed_rows_tell_one_story(grooming: Environment):
    """An appointment for a pet names the pet's owner; an invoice names its appointment's
    owner; a cancellation reason only on cancelled appointments."""
    state = grooming.seed_state
    pets = {p["pet_id"]: p for p in state["pets"]}
    appointments = {a["appointment_id"]: a for a in state["appointments"]}
    assert all(a["owner_id"] == pets[a["pet_id"]]["owner_id"] for a in state["appointments"])
    assert all(i["owner_id"] == appointments[i["appointment_id"]]["owner_id"] for i in state["invoices"])
    assert all(a["cancel_reason"] is None for a in state["appointments"] if a["status"] != "cancelled")
    assert Counter(a["status"] for a in state["appointments"]).keys() >= {
        "requested",
        "confirmed",
        "completed",
    }
    again = build_env(load_blueprint("pet_grooming"))
    assert again.seed_sql == grooming.seed_sql


@pytest.mark.slow
def test_a_library_service_is_usable_end_to_end(tmp_path: Path):
    """Built and verified by build_all, tasks generated from the package, the oracle scores
    1.0 and the no-op agent 0 over real MCP (stdio)."""
    from envfactory_mcp.catalog import load_package_env
    from envfactory_mcp.host.rollout import RolloutConfig, rollout
    from envfactory_mcp.tasks.generate import generate_tasks
    from envfactory_mcp.tasks.model import write_tasks

    servers = tmp_path / "servers"
    [outcome] = build_all(Settings(servers_dir=servers), ["gym_membership"], jobs=1)
    assert outcome.ok and outcome.tools >= 20
    env = load_package_env(servers / "gym_membership")
    tasks, _ = generate_tasks(env, 20, seed=1)
    assert len(tasks) == 20
    path = tmp_path / "tasks.jsonl"
    write_tasks(tasks, path)
    rewards = {}
    for agent in ("oracle", "noop"):
        config = RolloutConfig(
            envs=["gym_membership"],
            tasks_path=str(path),
            agent=agent,
            user="scripted",
            servers_dir=str(servers),
        )
        summary = anyio.run(rollout, config, tmp_path / agent, None)
        rewards[agent] = summary["mean_reward"]
        assert summary["harness_failures"]["total"] == 0
    assert rewards == {"oracle": 1.0, "noop": 0.0}


@pytest.mark.slow
def test_build_all_gives_the_same_packages_whatever_the_concurrency(tmp_path: Path):
    names = ["pet_grooming", "gym_membership"]
    one = build_all(Settings(servers_dir=tmp_path / "one"), names, jobs=1)
    two = build_all(Settings(servers_dir=tmp_path / "two"), names, jobs=2)
    assert [o.name for o in one] == [o.name for o in two] == names and all(o.ok for o in one + two)

    def files(root: Path) -> dict[str, bytes]:
        return {
            str(p.relative_to(root)): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "verification.json" and "__pycache__" not in p.parts
        }

    assert files(tmp_path / "one") == files(tmp_path / "two")  # seed.sql included


def test_linked_services_share_their_customers_and_point_at_each_others_rows():
    books, payments = (build_env(load_blueprint(n)) for n in ("page_turner_books", "page_turner_payments"))
    assert books.spec.shared_entities == payments.spec.shared_entities == ["customer", "order"]
    shop, pay = books.seed_state, payments.seed_state
    assert shop["customers"] == pay["customers"]  # the very same people, ids and emails
    orders = {o["order_id"]: o for o in shop["orders"]}
    cards = {c["saved_card_id"]: c for c in pay["saved_cards"]}
    assert pay["payments"] and pay["refund_requests"]
    for payment in pay["payments"]:  # a payment of an order: the order's customer, with one of their cards
        assert orders[payment["order_id"]]["customer_id"] == payment["customer_id"]
        assert cards[payment["saved_card_id"]]["customer_id"] == payment["customer_id"]
    for request in pay["refund_requests"]:
        assert orders[request["order_id"]]["customer_id"] == request["customer_id"]
    order_param = payments.spec.tool("request_refund").params["order_id"]  # type: ignore[union-attr]
    assert order_param.entity == "order" and not order_param.user_provided


def test_cross_server_tasks_carry_keys_from_one_linked_service_to_the_other():
    from envfactory_mcp.eval.compose import LinkedComposer
    from envfactory_mcp.eval.main import declared_shared

    envs = [build_env(load_blueprint(n)) for n in ("page_turner_books", "page_turner_payments")]
    assert declared_shared(envs) == ["customer", "order"]
    tasks = LinkedComposer(envs, seed=3, shared_entities=declared_shared(envs)).compose(30)
    crossing = 0
    for task in tasks:
        actions = task.task.gold.actions
        assert {a.server for a in actions} == {"page_turner_books", "page_turner_payments"}
        for i, action in enumerate(actions):
            earlier = {
                json.dumps(v) for a in actions[:i] if a.server != action.server for v in _leaves(a.output)
            }
            if any(json.dumps(v) in earlier for k, v in action.arguments.items() if k.endswith("_id")):
                crossing += 1
                break
    assert len(tasks) == 30 and crossing >= 20  # most tasks carry an id found on one server to the other


def _leaves(value: object) -> list[object]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in _leaves(v)]
    return [value]


def test_a_shared_entity_must_be_one_of_the_spec():
    from envfactory_mcp.errors import SpecError
    from envfactory_mcp.spec import validate_spec

    spec = (
        load_blueprint("page_turner_books").build_spec(1).model_copy(update={"shared_entities": ["invoice"]})
    )
    with pytest.raises(SpecError, match="shared_entities"):
        validate_spec(spec)


@pytest.mark.slow
def test_build_all_on_ray_gives_the_same_packages_as_local(tmp_path: Path):
    """``build --all --backend ray`` on a private local Ray cluster (started and stopped by
    the driver, in a subprocess so this process keeps no Ray state)."""
    pytest.importorskip("ray", reason="the ray extra is not installed: pip install -e '.[test,ray]'")
    import subprocess
    import sys

    names = ["pet_grooming", "page_turner_books"]
    script = (
        "import sys; from pathlib import Path; from envfactory_mcp.build import build_all; "
        "from envfactory_mcp.settings import Settings; "
        f"out = build_all(Settings(servers_dir=Path(sys.argv[1])), {names!r}, backend='ray'); "
        "print([o.ok for o in out])"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "ray")], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[True, True]"
    build_all(Settings(servers_dir=tmp_path / "local"), names, jobs=1)

    def files(root: Path) -> dict[str, bytes]:
        return {
            str(p.relative_to(root)): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "verification.json" and "__pycache__" not in p.parts
        }

    assert files(tmp_path / "ray") == files(tmp_path / "local")


def test_what_users_call_operations_and_when_rows_were_made():
    from envfactory_mcp.library.kit import spoken

    assert spoken("cancel_appointment", "appointment") == "cancel an appointment"
    assert spoken("update_pet_care_notes", "pet") == "update a pet's care notes"
    assert spoken("book_escape_room", "room_booking") == "book an escape room"
    assert spoken("add_credits", "wallet") == "add some credits"
    for name in service_names():
        service = load_service(name)
        rows = service.build()[2]
        for op in service.operations:  # an intent is never the tool's name word for word
            assert op.intent is None or op.intent != op.name.replace("_", " "), (name, op.name)
        for resource in service.resources:  # nothing was made after the service's "now"
            for f in resource.fields:
                if f.auto == "now":
                    assert all(
                        r[f.name] is None or r[f.name] <= service.clock for r in rows[resource.name]
                    ), name
