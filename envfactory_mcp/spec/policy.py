"""The enforceable part of an environment's policy, as declared data.

The policy text (``EnvSpec.policy``) is what the agent reads. ``PolicyRules`` is the part
of it a program can act on, read alike by task synthesis (every task must be solvable by
an agent that follows the policy, so the user knows whatever the policy makes the agent
ask for), the demonstrator, the simulated user, the scorer's policy check and the spec
validator:

* ``authentication``: which tools identify the user (each returns the user entity) and
  which tools may be used before that (catalog questions, arithmetic, a transfer);
* ``confirm``: the writes that need the user's explicit "yes" after the agent has
  stated the exact action;
* ``refusals``: writes the policy allows only while an object is in certain states
  ("only pending orders can be cancelled"), with the read tool and output path that show
  the state, so a task can ask for a refused action and expect the state as the answer;
* ``rules``: business rules beyond status, each a model below (``BusinessRule``),
  enforced by the runtime before the tool runs: an amount at most N, a quota per owner
  (and period, or among rows in some states), a time window around a row's moment,
  eligibility on another entity, mutually exclusive states; each with a reason in prose
  the agent says when a call breaks it (issue 31);
* ``transfer``: the hand-off tool and requests no tool can serve (out of scope);
* ``utilities``: helper tools that are never a user's goal on their own (a calculator).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Authentication(_Model):
    """Who the user is must be established before any tool outside ``exempt`` is used."""

    tools: list[str] = Field(
        min_length=1, description="Tools that identify the user; each returns the user entity's id."
    )
    entity: str = Field(description="The entity a user is, e.g. 'user'.")
    exempt: list[str] = Field(
        default_factory=list,
        description="Tools allowed before authentication (catalog, calculator, transfer).",
    )


class RefusalRule(_Model):
    """``tool`` is allowed only while the ``entity`` object's ``column`` is in ``allowed``."""

    tool: str = Field(description="The write the rule restricts, e.g. 'cancel_pending_order'.")
    entity: str = Field(description="Entity of the object the rule is about, e.g. 'order'.")
    column: str = Field(description="Column of that entity's table holding the state, e.g. 'status'.")
    allowed: list[str | int] = Field(min_length=1, description="States in which the action is allowed.")
    shown_by: str = Field(description="Read tool whose output shows the state, e.g. 'get_order_details'.")
    path: str = Field(description="Output path of ``shown_by`` holding the state, e.g. 'status'.")
    reason: str = Field(min_length=1, description="Why it is refused, for the agent to say.")


class _Rule(_Model):
    tool: str = Field(description="The tool the rule restricts.")
    reason: str = Field(min_length=1, description="Why a call that breaks it is refused, in prose.")


class AmountRule(_Rule):
    """The call's ``argument`` is at most ``at_most`` (a refund up to $200)."""

    kind: Literal["amount"] = "amount"
    argument: str
    at_most: float


class QuotaRule(_Rule):
    """At most ``at_most`` rows of ``table`` whose ``owner`` column is the call's argument of
    that name; with ``period_days``, only rows whose ``since`` moment is that recent; with
    ``states``, only rows whose ``column`` is one of them (two open bookings at a time)."""

    kind: Literal["quota"] = "quota"
    table: str
    owner: str
    at_most: int = Field(ge=0)
    period_days: int | None = Field(default=None, ge=0)
    since: str | None = None
    column: str | None = None
    states: list[str | int] | None = None
    also: list[str] = Field(default_factory=list)


class WindowRule(_Rule):
    """The row of ``table`` keyed ``key`` (the call's argument of that name): its ``column``
    moment at most ``hours`` ago (``after``: a return within 30 days of delivery), or at
    least ``hours`` ahead (``before``: cancel at least 24 hours before the start)."""

    kind: Literal["window"] = "window"
    table: str
    key: str
    column: str
    side: Literal["before", "after"] = "after"
    hours: float = Field(ge=0)


class EligibilityRule(_Rule):
    """The row of ``other`` keyed ``via`` (the call's argument of that name) has ``column``
    in ``allowed`` (the customer's tier is gold)."""

    kind: Literal["eligibility"] = "eligibility"
    other: str
    via: str
    column: str
    allowed: list[str | int] = Field(min_length=1)


class ExclusiveRule(_Rule):
    """No row of ``table`` whose ``owner`` column (and each ``also`` column) is the call's
    argument of that name has ``column`` in ``states`` (one active subscription at a time;
    one waiting hold per patron and title)."""

    kind: Literal["exclusive"] = "exclusive"
    table: str
    owner: str
    also: list[str] = Field(default_factory=list)
    column: str
    states: list[str | int] = Field(min_length=1)


BusinessRule = Annotated[
    AmountRule | QuotaRule | WindowRule | EligibilityRule | ExclusiveRule, Field(discriminator="kind")
]


class Transfer(_Model):
    tool: str = Field(description="The tool that hands the user over to a human.")
    out_of_scope: list[str] = Field(
        default_factory=list,
        description="Requests nothing in the toolset can serve, as noun phrases a user would say "
        "after 'I'd like' or 'could I get' ('a price match on my order').",
    )


class PolicyRules(_Model):
    """The enforceable declarations of a policy; every part is optional."""

    authentication: Authentication | None = None
    confirm: list[str] = Field(
        default_factory=list, description="Writes that need the user's explicit yes first."
    )
    refusals: list[RefusalRule] = Field(default_factory=list)
    rules: list[BusinessRule] = Field(
        default_factory=list, description="Business rules beyond status, enforced before the tool runs."
    )
    transfer: Transfer | None = None
    utilities: list[str] = Field(
        default_factory=list, description="Tools that are never a user's goal on their own."
    )
    calculator: str | None = Field(
        default=None,
        description="Tool (taking one 'expression' string) the agent must use for arithmetic on amounts.",
    )

    def needs_authentication(self, tool: str) -> bool:
        auth = self.authentication
        return auth is not None and tool not in auth.exempt and tool not in auth.tools

    def rules_for(self, tool: str) -> list[RefusalRule]:
        return [r for r in self.refusals if r.tool == tool]

    def business_rules_for(
        self, tool: str
    ) -> list[AmountRule | QuotaRule | WindowRule | EligibilityRule | ExclusiveRule]:
        return [r for r in self.rules if r.tool == tool]
