"""Battle Station (spec section 7): defense operations, active drills, the defend request, defense resets.

Thin: each route calls secdash/services/battle/ (drills.py starts, operations.py reads, defense.py), which check the role.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from pydantic import Field

from secdash.ai.agents import PLATFORM_AGENT_IDS
from secdash.api.deps import CurrentUser, DbSession
from secdash.api.schemas import SIGNED_IN_ERRORS, PathId, RequestBody, choice_text, errors, integer_text
from secdash.models.battle_public import ActiveBattlePublic, DefendReplyPublic, OperationPublic
from secdash.models.public import PublicModel
from secdash.services.battle import attacks, defense, drills, operations, station

router = APIRouter(prefix="/api", tags=["battle"], responses=SIGNED_IN_ERRORS)
AttackTypeIn = Annotated[str, choice_text(attacks.IDS)]  # checked by the service (drills.parse_attack_type)
SiteSlug = Annotated[str, Path(max_length=16, description="stock, tour, gem or shares"), choice_text(defense.DEMO_SLUGS)]
Limit = Annotated[
    str | None,
    Query(max_length=6, description=f"How many (1 to {operations.MAX_LIST_LIMIT}); default {operations.LIST_LIMIT}"),
    integer_text(1, operations.MAX_LIST_LIMIT),
]
# The site a drill defends, by its agent (empty or null: a random platform agent, drills.defender).
AgentId = Annotated[str | None, choice_text([None, "", *PLATFORM_AGENT_IDS])]


class DefendIn(RequestBody):
    attackType: AttackTypeIn = Field(max_length=16)  # noqa: N815
    attackSource: str | None = Field(
        None,
        max_length=drills.MAX_SOURCE_LENGTH,  # noqa: N815
        description="Where the attack claims to come from (shown, never contacted)",
    )
    aiAgentId: AgentId = Field(None, max_length=16, description="stock, tour, gem or shares: the site it defends")  # noqa: N815


class DefenseStatePublic(PublicModel):
    """A demo site's current defense (data: the rules its defense layer applies)."""

    site: str
    revision: int
    source: str
    config: dict


@router.get("/battle-station", response_model=list[OperationPublic])
async def list_operations(user: CurrentUser, session: DbSession, limit: Limit = None) -> list[OperationPublic]:
    """Defense operations the user may read, newest first, with both runs' counts and the MITRE ATT&CK technique."""
    return await station.operations_for(session=session, viewer=user, limit=operations.parse_limit(limit))


@router.get("/battle-station/active", response_model=list[ActiveBattlePublic])
async def list_active(user: CurrentUser, session: DbSession) -> list[ActiveBattlePublic]:
    """Running drills (attackType, defenseCode, startTime, duration in seconds)."""
    return await operations.active_drills(session=session)


@router.get("/battle-station/operations/{operation_id}", response_model=OperationPublic, responses=errors(404))
async def read_operation(operation_id: PathId, user: CurrentUser, session: DbSession) -> OperationPublic:
    return await operations.get_operation(session=session, operation_id=operation_id)


@router.post("/battle-station/defend", response_model=DefendReplyPublic, responses=errors(403, 409, 503))
async def defend(body: DefendIn, user: CurrentUser, session: DbSession) -> DefendReplyPublic:
    """Run a drill (admins; one per demo site at a time) and answer when its defense is deployed and measured."""
    return await drills.defend(
        session=session, actor=user, attack_type=body.attackType, attack_source=body.attackSource, agent_id=body.aiAgentId
    )


@router.get("/battle-station/defenses/{site}", response_model=DefenseStatePublic, responses=errors(404))
async def read_defense(site: SiteSlug, user: CurrentUser, session: DbSession) -> DefenseStatePublic:
    view = await defense.get_defense(session, site)
    return DefenseStatePublic(
        site=view.slug, revision=view.revision, source=view.source, config=view.config.model_dump(mode="json")
    )


@router.post("/battle-station/defenses/{site}/reset", response_model=DefenseStatePublic, responses=errors(403, 404))
async def reset_defense(site: SiteSlug, user: CurrentUser, session: DbSession) -> DefenseStatePublic:
    """Put the demo site's weak default defense back (admins; audited)."""
    view = await defense.reset_defense(session, site, user)
    return DefenseStatePublic(
        site=view.slug, revision=view.revision, source=view.source, config=view.config.model_dump(mode="json")
    )
