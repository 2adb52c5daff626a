"""The retail environment's spec: tables, tools and the policy text next to this file."""

from __future__ import annotations

from pathlib import Path

from envfactory_mcp.spec import EnvSpec, SeedSpec

from .spec_tables import build_tables
from .spec_tools import build_tools

POLICY_PATH = Path(__file__).with_name("policy.md")


def load_policy() -> str:
    return POLICY_PATH.read_text(encoding="utf-8")


def build_spec(seed: int) -> EnvSpec:
    return EnvSpec(
        name="retail",
        title="Retail customer service",
        domain="retail",
        description=(
            "Customer service for an online store. The agent authenticates a user, then looks up their "
            "account, orders and the product catalog, and can change a user's default address, change the "
            "address, payment method or items of a pending order, cancel a pending order, and request returns "
            "or exchanges of delivered items, keeping payments, refunds and gift card balances consistent."
        ),
        tables=build_tables(),
        tools=build_tools(),
        policy=load_policy(),
        seed=SeedSpec(generator="blueprint:retail", seed=seed),
    )
