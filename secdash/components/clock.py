"""A live UTC clock (HH:mm:ss) drawn by the browser, without moment/moment-timezone.

`rx.moment(interval=1000, tz="UTC")` brought moment-timezone with its whole time-zone database (about
60 KB of gzip JavaScript) to the Dashboard for one UTC clock. A server-formatted time would need one
event per second per open tab; the browser's own `Date` has UTC built in.
"""

from __future__ import annotations

import reflex as rx

_CLOCK = """
function secdashUtcNow() {
  return new Date().toISOString().slice(11, 19);
}
function SecdashUtcClock(props) {
  // Empty on the prerendered page (no build-time time to mismatch), then every second.
  const [now, setNow] = useState("");
  useEffect(() => {
    setNow(secdashUtcNow());
    const timer = setInterval(() => setNow(secdashUtcNow()), 1000);
    return () => clearInterval(timer);
  }, []);
  return createElement("time", props, now);
}
"""


class UtcClock(rx.Component):
    """<time>HH:mm:ss</time> in UTC, ticking every second."""

    tag = "SecdashUtcClock"

    def add_imports(self) -> dict:
        return {"react": ["useState", "useEffect", "createElement"]}

    def add_custom_code(self) -> list[str]:
        return [_CLOCK]


def utc_clock(**props) -> rx.Component:
    return UtcClock.create(**props)
