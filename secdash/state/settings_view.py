"""Settings' display fields (alerting), made from the service's records by pure functions (no Reflex state): the
channel rows with their last test, the rule rows of the draft, the delivery log's rows, and the typed form values
as the service takes them. The Settings states (state/settings*.py) hold what they make."""

from __future__ import annotations

import dataclasses
from typing import Any

from secdash.models import as_utc
from secdash.models.alerting import AlertKind
from secdash.models.alerting_public import ChannelPublic, DeliveryPublic, RulesPublic

MAX_FIELD_CHARS = 2100  # a little over the service's URL limit: the service says what is too long
PARAMS = {
    AlertKind.tls_expiring.value: "days",
    AlertKind.finding.value: "severity",
    AlertKind.attack_detected.value: "severity",
    AlertKind.drill_weak.value: "threshold",
}
KIND_LABELS = {
    AlertKind.site_down.value: "Site down",
    AlertKind.site_checking.value: "Site degraded",
    AlertKind.site_recovered.value: "Site recovered",
    AlertKind.tls_expiring.value: "TLS expiring",
    AlertKind.finding.value: "Finding",
    AlertKind.drill_weak.value: "Weak drill",
    AlertKind.account_locked.value: "Account locked",
    AlertKind.attack_detected.value: "Attack detected",
    AlertKind.test.value: "Test",
}
ENDED = {"sent", "failed"}


@dataclasses.dataclass
class ChannelRow:
    id: int = 0
    name: str = ""
    service: str = ""
    url: str = ""  # masked
    enabled: bool = True
    allow_private: bool = False
    test_state: str = ""  # "" never tested | sent | failed | pending (sending or retrying)
    test_result: str = ""  # "Sent" | "Failed: <error>" | "Sending..." | "Never tested"
    test_time: str = ""


@dataclasses.dataclass
class RuleRow:
    kind: str = ""
    label: str = ""
    enabled: bool = False
    scope: str = "all"  # all | chosen
    channel_ids: list[int] = dataclasses.field(default_factory=list)
    param: str = ""  # days | severity | threshold | ""
    param_value: str = ""


@dataclasses.dataclass
class DeliveryRow:
    id: int = 0
    time: str = ""
    channel: str = ""
    kind: str = ""
    title: str = ""
    outcome: str = ""
    attempts: int = 0
    error: str = ""


def when(value: Any) -> str:
    return as_utc(value).strftime("%Y-%m-%d %H:%M:%S UTC") if value else ""


def delivery_row(row: DeliveryPublic) -> DeliveryRow:
    return DeliveryRow(
        id=row.id,
        time=when(row.created_at),
        channel=row.channel_name or "(deleted channel)",
        kind=KIND_LABELS.get(row.kind.value, row.kind.value),
        title=row.title,
        outcome=row.outcome.value,
        attempts=row.attempts,
        error=row.error or "",
    )


def channel_row(row: ChannelPublic, log: list[DeliveryPublic]) -> ChannelRow:
    """A channel with its last test: the newest test delivery in the log (its real outcome and error), else what
    the channel row remembers of its last test."""
    view = ChannelRow(
        id=row.id, name=row.name, service=row.service, url=row.url, enabled=row.enabled, allow_private=row.allow_private
    )
    test = next((d for d in log if d.kind == AlertKind.test and d.channel_id == row.id), None)
    if test is not None:
        outcome = test.outcome.value
        if outcome == "sent":
            view.test_state, view.test_result = "sent", "Sent"
        elif outcome in ("failed", "suppressed"):
            view.test_state, view.test_result = "failed", f"Failed: {test.error or outcome}"
        else:
            view.test_state = "pending"
            view.test_result = "Retrying..." if outcome == "retrying" else "Sending..."
        view.test_time = when(test.finished_at or test.created_at)
    elif row.last_test_ok is not None:
        view.test_state = "sent" if row.last_test_ok else "failed"
        view.test_result = "Sent" if row.last_test_ok else "Failed"
        view.test_time = when(row.last_test_at)
    else:
        view.test_result = "Never tested"
    return view


def rule_rows(data: RulesPublic) -> list[RuleRow]:
    out = []
    for rule in data.rules:
        param = PARAMS.get(rule.kind.value, "")
        out.append(
            RuleRow(
                kind=rule.kind.value,
                label=rule.label,
                enabled=rule.enabled,
                scope="chosen" if rule.channel_ids else "all",
                channel_ids=list(rule.channel_ids),
                param=param,
                param_value=str(rule.params.get(param, "")) if param else "",
            )
        )
    return out


def typed_number(text: str) -> int | str:
    """A whole number as typed, or the text itself (the service then says what it wants)."""
    value = text.strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 9 else value


def field_text(value: Any) -> str:
    return str(value if value is not None else "")[:MAX_FIELD_CHARS]


def rules_payload(
    rules: list[RuleRow], known: set[int], settings: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any]] | str:
    """What Save sends for the rules draft and the typed settings (reminderMinutes, recoverySeconds, quietEnabled,
    quietStart, quietEnd), or what to tell the user first (a rule for chosen channels with none of `known` chosen)."""
    out = []
    for rule in rules:
        chosen = [cid for cid in rule.channel_ids if cid in known]
        if rule.scope == "chosen" and not chosen:
            return f"{rule.label}: choose at least one channel, or send to all channels"
        item: dict[str, Any] = {
            "kind": rule.kind,
            "enabled": rule.enabled,
            "channelIds": chosen if rule.scope == "chosen" else [],
        }
        if rule.param:
            value = rule.param_value.strip() if rule.param == "severity" else typed_number(rule.param_value)
            item["params"] = {rule.param: value}
        out.append(item)
    typed = {
        "reminderMinutes": typed_number(settings["reminderMinutes"]),
        "recoverySeconds": typed_number(settings["recoverySeconds"]),
        "quietEnabled": settings["quietEnabled"],
        "quietStart": settings["quietStart"].strip(),
        "quietEnd": settings["quietEnd"].strip(),
    }
    return out, typed
