"""Alerting over HTTP (issue 14): notification channels (apprise URLs; only their masked form is ever answered),
a channel's test send with its real result, the rules with their settings, and the delivery log. Admins only:
every route calls secdash/services/alerting/, which checks the role first (a limited user gets 403 and learns
nothing of the channels), parses and checks the input and raises the DomainError the API answers as
{"message": ...}."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Response
from pydantic import ConfigDict, Field
from pydantic.json_schema import JsonDict

from secdash.api.deps import CurrentUser, DbSession
from secdash.api.schemas import (
    MAX_ID,
    SIGNED_IN_ERRORS,
    PathId,
    RequestBody,
    document_required,
    errors,
    integer_text,
    text,
)
from secdash.models.alerting import AlertKind
from secdash.models.alerting_public import ChannelPublic, DeliveryPublic, RulesPublic
from secdash.services.alerting import channels, deliveries, rules
from secdash.services.alerting.channels import MAX_NAME_CHARS
from secdash.services.alerting.targets import MAX_URL_CHARS

router = APIRouter(prefix="/api", tags=["alerting"], responses=SIGNED_IN_ERRORS)

NAME = "A short label such as 'Ops webhook'"
URL = (
    "An apprise URL: json://hooks.example.com/alerts, mailtos://user:password@example.com?to=ops@example.com, "
    "slack://T../B../X.., ntfys://ntfy.sh/topic ... (https://github.com/caronc/apprise/wiki)"
)
ALLOW_PRIVATE = "Send to a private or local address (refused by default, as for monitored sites)"
RuleKind = Literal[tuple(kind.value for kind in rules.DEFAULTS)]  # type: ignore[valid-type]
ChannelFilter = Annotated[
    str | None, Query(alias="channelId", max_length=12, description="Only this channel's"), integer_text(1, MAX_ID)
]
Limit = Annotated[
    str | None,
    Query(max_length=6, description=f"How many (1 to {deliveries.MAX_PAGE}); default {deliveries.PAGE}"),
    integer_text(1, deliveries.MAX_PAGE),
]
CLOCK: JsonDict = {"pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$"}


def _whole(low_high: tuple[int, int]) -> dict[str, Any]:
    return {"type": "integer", "minimum": low_high[0], "maximum": low_high[1]}


# The params each kind reads (it ignores other keys; the kinds not named here read none).
PARAMS = {
    AlertKind.tls_expiring: {"days": _whole(rules.TLS_DAYS)},
    AlertKind.finding: {"severity": {"type": "string", "enum": list(rules.SEVERITIES)}},
    AlertKind.attack_detected: {"severity": {"type": "string", "enum": list(rules.SEVERITIES)}},
    AlertKind.drill_weak: {"threshold": _whole(rules.DRILL_THRESHOLD)},
}


def _unchanged_when_left_out(schema: dict[str, Any]) -> None:
    """A partial change documents no defaults: a field left out keeps its stored value."""
    document_required(schema)
    for field in schema.get("properties", {}).values():
        field.pop("default", None)


def _rule_schema(schema: dict[str, Any]) -> None:
    """A rule as the service reads it: its params by its kind."""
    _unchanged_when_left_out(schema)
    without = [kind.value for kind in rules.DEFAULTS if kind not in PARAMS]
    schema["anyOf"] = [
        *(
            {"properties": {"kind": {"const": kind.value}, "params": {"type": "object", "properties": params}}}
            for kind, params in PARAMS.items()
        ),
        {"properties": {"kind": {"enum": without}}},
    ]


class PartialBody(RequestBody):
    model_config = ConfigDict(json_schema_extra=_unchanged_when_left_out)


class ChannelIn(RequestBody):
    name: str = text(MAX_NAME_CHARS, NAME, required=True, not_blank=True)
    url: str = text(MAX_URL_CHARS, URL, required=True, not_blank=True)
    enabled: bool = True
    allowPrivate: bool = Field(False, description=ALLOW_PRIVATE)  # noqa: N815


class ChannelChangeIn(PartialBody):
    """Only the fields sent change; a URL left out (or empty) keeps the stored one."""

    name: str = text(MAX_NAME_CHARS, NAME, not_blank=True)
    url: str = text(MAX_URL_CHARS, URL + "; empty or left out: unchanged")
    enabled: bool = True
    allowPrivate: bool = Field(False, description=ALLOW_PRIVATE)  # noqa: N815


class RuleIn(PartialBody):
    """One rule, by kind; the fields left out stay as they are."""

    model_config = ConfigDict(json_schema_extra=_rule_schema)

    kind: RuleKind  # type: ignore[valid-type]
    enabled: bool = True
    channelIds: list[int] = Field(
        default_factory=list,  # noqa: N815
        description="The channels it notifies (each an existing channel's id); empty: every enabled channel",
        json_schema_extra={"items": {"type": "integer", "minimum": 1, "maximum": MAX_ID}},
    )
    params: dict[str, Any] = Field(
        default_factory=dict,
        description=(
            "tls_expiring {days: 1-365}, finding {severity: low|medium|high}, drill_weak {threshold: 1-100 (%)}, "
            "attack_detected {severity: low|medium|high}; none for the others"
        ),
    )


class SettingsIn(PartialBody):
    """The settings sent change; the rest stay as they are."""

    reminderMinutes: int = Field(
        0,
        description="A reminder while a site stays down, at most once per this many "  # noqa: N815
        "minutes (0: none)",
        json_schema_extra=_whole(rules.REMINDER_MINUTES),
    )
    recoverySeconds: int = Field(
        0,
        description="How long a site must stay up before the recovery is sent (flap "  # noqa: N815
        "damping)",
        json_schema_extra=_whole(rules.RECOVERY_SECONDS),
    )
    quietEnabled: bool = Field(False, description="Hold deliveries during the quiet hours (logged as suppressed)")  # noqa: N815
    quietStart: str = Field("22:00", description="HH:MM, UTC", json_schema_extra=CLOCK)  # noqa: N815
    quietEnd: str = Field(
        "07:00",
        description="HH:MM, UTC; may be before the start (over midnight)",  # noqa: N815
        json_schema_extra=CLOCK,
    )


class RulesIn(RequestBody):
    rules: list[RuleIn] | None = None
    settings: SettingsIn | None = None


def _sent(body: RequestBody) -> dict[str, Any]:
    """The fields the client sent (a partial change), by their JSON names."""
    return body.model_dump(include=body.model_fields_set)


@router.get("/notification-channels", response_model=list[ChannelPublic], responses=errors(403))
async def list_channels(user: CurrentUser, session: DbSession) -> list[ChannelPublic]:
    """Every channel with its masked URL (passwords and tokens cut) and its last test's result."""
    return await channels.list_channels(session=session, viewer=user)


@router.post("/notification-channels", status_code=201, response_model=ChannelPublic, responses=errors(403))
async def create_channel(body: ChannelIn, user: CurrentUser, session: DbSession) -> ChannelPublic:
    """Add a channel: apprise must read the URL, and its host must be public unless allowPrivate. The URL is
    stored encrypted; the answer (and every later one) shows it masked."""
    return await channels.create_channel(
        session=session, actor=user, name=body.name, url=body.url, enabled=body.enabled, allow_private=body.allowPrivate
    )


@router.put("/notification-channels/{channel_id}", response_model=ChannelPublic, responses=errors(403, 404))
async def update_channel(channel_id: PathId, body: ChannelChangeIn, user: CurrentUser, session: DbSession) -> ChannelPublic:
    """Change what is sent (name, url, enabled, allowPrivate); at least one field."""
    return await channels.update_channel(session=session, actor=user, channel_id=channel_id, changes=_sent(body))


@router.delete("/notification-channels/{channel_id}", status_code=204, responses=errors(403, 404))
async def delete_channel(channel_id: PathId, user: CurrentUser, session: DbSession) -> Response:
    await channels.delete_channel(session=session, actor=user, channel_id=channel_id)
    return Response(status_code=204)


@router.post("/notification-channels/{channel_id}/test", response_model=DeliveryPublic, responses=errors(403, 404))
async def send_test(channel_id: PathId, user: CurrentUser, session: DbSession) -> DeliveryPublic:
    """Send a test message (even to a disabled channel) and answer its delivery as it ended: sent, or failed with
    the error (secrets cut). A send still retrying after 30 s is answered as it stands; the log shows its end."""
    return await deliveries.send_test(session=session, actor=user, channel_id=channel_id)


@router.get("/notification-rules", response_model=RulesPublic, responses=errors(403))
async def read_rules(user: CurrentUser, session: DbSession) -> RulesPublic:
    """Every rule (which events notify which channels) and the settings: reminders, recovery period, quiet
    hours."""
    return await rules.read(session=session, viewer=user)


@router.put("/notification-rules", response_model=RulesPublic, responses=errors(403))
async def write_rules(body: RulesIn, user: CurrentUser, session: DbSession) -> RulesPublic:
    """Change the rules sent (by kind) and the settings sent; the others stay as they are. Answers them all."""
    return await rules.write(
        session=session,
        actor=user,
        rules=None if body.rules is None else [_sent(rule) for rule in body.rules],
        settings=None if body.settings is None else _sent(body.settings),
    )


@router.get("/notification-deliveries", response_model=list[DeliveryPublic], responses=errors(403, 404))
async def list_deliveries(
    user: CurrentUser, session: DbSession, limit: Limit = None, channel_id: ChannelFilter = None
) -> list[DeliveryPublic]:
    """The delivery log, newest first (the newest 1000 are kept): channel, event, outcome, attempts, error."""
    return await deliveries.list_deliveries(session=session, viewer=user, limit=limit, channel_id=channel_id)
