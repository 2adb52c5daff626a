"""Travel: a travel agency's trip desk (hotel bookings, car rentals, trips, payments, refunds, vouchers)."""

from __future__ import annotations

from envfactory_mcp.blueprints import Blueprint

from . import tools
from .demo import demo_calls
from .seed import generate_seed
from .spec import build_spec

BLUEPRINT = Blueprint(
    name="travel",
    build_spec=build_spec,
    tools_module=tools,
    generate_seed=generate_seed,
    default_seed=17,
    demo_calls=demo_calls,
)
