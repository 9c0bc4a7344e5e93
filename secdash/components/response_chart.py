"""A site's response times as a small line chart, drawn with a few lines of SVG instead of recharts.

recharts was the largest part of the Dashboard's JavaScript (about 90 KB of gzip, for four 90-pixel
sparklines). This draws the same thing: the line (gaps where a check had no response), a 0 / middle /
top scale on the left and, under the pointer, the check's time and response time (the total: every redirect
and the body) with its note (time to first byte, redirects).
"""

from __future__ import annotations

import reflex as rx

_CHART = """
function secdashNiceMax(value) {
  if (!(value > 0)) return 1;
  const step = Math.pow(10, Math.floor(Math.log10(value)));
  for (const f of [1, 2, 2.5, 5, 10]) if (f * step >= value) return f * step;
  return 10 * step;
}
function SecdashResponseChart({ data, height, ...props }) {
  const [hover, setHover] = useState(null);
  const points = Array.isArray(data) ? data : [];
  const values = points.map((p) => (typeof p?.ms === "number" ? p.ms : null));
  const top = secdashNiceMax(Math.max(0, ...values.filter((v) => v !== null)));
  const n = points.length;
  const x = (i) => (n <= 1 ? 50 : (i / (n - 1)) * 100);
  const y = (v) => 100 - (v / top) * 100;
  const segments = [];
  let current = [];
  values.forEach((v, i) => {
    if (v === null) { if (current.length) segments.push(current); current = []; }
    else current.push(`${x(i).toFixed(2)},${y(v).toFixed(2)}`);
  });
  if (current.length) segments.push(current);
  const label = (v) => createElement("span", null, v >= 10 || Number.isInteger(v) ? `${Math.round(v)}` : v.toFixed(1));
  if (!values.some((v) => v !== null)) {  // nothing answered yet: say so rather than draw an empty scale
    return createElement("div", { ...props, style: { display: "flex", alignItems: "center", justifyContent: "center",
      height: `${height}px`, fontSize: "12px", color: "#94a3b8", ...(props.style || {}) } },
      n ? "No response yet" : "No checks yet");
  }
  const onMove = (event) => {
    if (!n) return;
    const box = event.currentTarget.getBoundingClientRect();
    const i = Math.round(((event.clientX - box.left) / Math.max(1, box.width)) * (n - 1));
    setHover(Math.min(n - 1, Math.max(0, i)));
  };
  const shown = hover !== null && points[hover] ? points[hover] : null;
  const line = { fill: "none", stroke: "#22d3ee", strokeWidth: 2, vectorEffect: "non-scaling-stroke" };
  return createElement("div", { ...props, style: { display: "flex", height: `${height}px`, ...(props.style || {}) } },
    createElement("div", { style: { width: "40px", display: "flex", flexDirection: "column",
      justifyContent: "space-between", alignItems: "flex-end", paddingRight: "4px", fontSize: "10px",
      color: "#94a3b8", lineHeight: 1 } }, label(top), label(top / 2), label(0)),
    createElement("div", { style: { position: "relative", flex: 1, minWidth: 0 }, onMouseMove: onMove,
      onMouseLeave: () => setHover(null) },
      createElement("svg", { viewBox: "0 0 100 100", preserveAspectRatio: "none", width: "100%", height: "100%",
        style: { display: "block", overflow: "visible" } },
        ...segments.map((s, i) => s.length === 1
          ? createElement("circle", { key: i, cx: s[0].split(",")[0], cy: s[0].split(",")[1], r: 1, fill: "#22d3ee" })
          : createElement("polyline", { key: i, points: s.join(" "), ...line })),
        shown ? createElement("line", { x1: x(hover), x2: x(hover), y1: 0, y2: 100, stroke: "#475569",
          strokeWidth: 1, vectorEffect: "non-scaling-stroke" }) : null),
      shown ? createElement("div", { role: "tooltip", style: { position: "absolute", top: 0,
        left: `${x(hover)}%`, transform: `translateX(${x(hover) >= 50 ? "-105%" : "5%"})`,
        background: "#0f172a", border: "1px solid #334155", borderRadius: "4px", padding: "2px 6px",
        fontSize: "11px", color: "#e2e8f0", whiteSpace: "nowrap", pointerEvents: "none" } },
        createElement("div", null,
          `${shown.time ?? ""}: ${typeof shown.ms === "number" ? `${shown.ms} ms` : "no response"}`),
        shown.note ? createElement("div", { style: { color: "#94a3b8" } }, `(${shown.note})`) : null) : null));
}
"""


class ResponseChart(rx.Component):
    """<SecdashResponseChart data=[{time, ms, note}] height=90> (ms: total time; note: first byte, redirects)."""

    tag = "SecdashResponseChart"

    data: rx.Var[list]
    height: rx.Var[int]

    def add_imports(self) -> dict:
        return {"react": ["useState", "createElement"]}

    def add_custom_code(self) -> list[str]:
        return [_CHART]


def response_chart(data, height: int = 90, **props) -> rx.Component:
    return ResponseChart.create(data=data, height=height, **props)
