"""The Shares demo site's outage follows its schedule, or the setting that pins it (tests, demos)."""

from __future__ import annotations

from secdash.demo_sites.routes import shares_failing

FIRST_MINUTE, THIRD_MINUTE = 300 * 1000 + 10, 300 * 1000 + 130


def test_the_schedule_fails_the_first_minute_of_every_five(settings, monkeypatch):
    monkeypatch.setattr(settings, "DEMO_SHARES_OUTAGE", "schedule")
    assert shares_failing(FIRST_MINUTE) and not shares_failing(THIRD_MINUTE)


def test_the_setting_pins_the_outage_whatever_the_clock(settings, monkeypatch):
    for outage, expected in (("down", True), ("up", False)):
        monkeypatch.setattr(settings, "DEMO_SHARES_OUTAGE", outage)
        assert [shares_failing(FIRST_MINUTE), shares_failing(THIRD_MINUTE)] == [expected, expected]
