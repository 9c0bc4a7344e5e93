"""The dashboard template: four key figures, a bar or line chart drawn on a <canvas> with plain JavaScript
(no library), and the data as a table. The sample data is made up, the same for the same name."""

from __future__ import annotations

import hashlib

from secdash.ai.plans import PlannedFile, ProjectPlan
from secdash.ai.project_templates.brief import read_brief, title_case
from secdash.ai.project_templates.theme import esc, page, stylesheet, theme_for

KEYWORDS = ("dashboard", "chart", "graph", "analytics", "kpi")
HINTS = (
    "stats",
    "statistics",
    "metrics",
    "report",
    "reports",
    "sales",
    "revenue",
    "visualization",
    "visualisation",
    "data",
    "plot",
    "monitor",
    "tracker",
    "tracking",
    "overview",
    "insights",
    "traffic",
)


def sample_values(name: str, count: int = 12) -> list[int]:
    """Made-up monthly figures with a gentle upward trend, derived from the name (deterministic)."""
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    base = 120 + digest[0] % 200
    return [base + month * (4 + digest[1] % 12) + (digest[2 + month] % 60) - 30 for month in range(count)]


CSS = """
.intro { margin-bottom: 1.5rem; }
.kpis { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 160px), 1fr)); }
.kpi p { margin: 0; }
.kpi .label { color: var(--muted); font-size: 0.9rem; }
.kpi .value { font-size: 1.6rem; font-weight: 700; }
.panel { margin-top: 1.5rem; }
.toolbar { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin-bottom: 1rem; }
.toolbar button { padding: 0.4rem 0.9rem; }
.toolbar button[aria-pressed="false"] { background: transparent; color: var(--accent); }
.toolbar select { font: inherit; padding: 0.4rem; border-radius: 0.5rem; border: 1px solid var(--border);
  background: var(--bg); color: var(--text); }
.chart-box { position: relative; width: 100%; height: 300px; }
.chart-box canvas { display: block; width: 100%; height: 100%; }
.tip { min-height: 1.5em; margin: 0.5rem 0 0; color: var(--muted); }
.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 0.5rem; border-bottom: 1px solid var(--border); }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
"""

JS_TEMPLATE = """"use strict";

// Sample data: replace VALUES with your own figures (one per month, oldest first).
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const VALUES = [__VALUES__];

(function () {
  const canvas = document.getElementById("chart");
  const context = canvas.getContext("2d");
  const tip = document.getElementById("chart-tip");
  const range = document.getElementById("range");
  const typeButtons = Array.prototype.slice.call(document.querySelectorAll("[data-chart]"));
  const state = { type: "bar", months: 12, points: [], active: -1 };

  function color(name, fallback) {
    const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    return value || fallback;
  }

  function shown() {
    return { labels: MONTHS.slice(-state.months), values: VALUES.slice(-state.months) };
  }

  function niceMax(value) {
    const step = Math.pow(10, Math.floor(Math.log10(Math.max(value, 1))));
    return Math.ceil(value / step) * step;
  }

  function draw() {
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);

    const data = shown();
    const pad = { top: 12, right: 8, bottom: 28, left: 44 };
    const plotWidth = width - pad.left - pad.right;
    const plotHeight = height - pad.top - pad.bottom;
    const max = niceMax(Math.max.apply(null, data.values));
    const slot = plotWidth / data.values.length;
    const accent = color("--accent", "#2563eb");

    context.font = "12px system-ui, sans-serif";
    context.lineWidth = 1;
    context.strokeStyle = color("--border", "#e2e8f0");
    context.fillStyle = color("--muted", "#475569");
    context.textAlign = "right";
    context.textBaseline = "middle";
    for (let line = 0; line <= 4; line += 1) {
      const value = (max / 4) * line;
      const y = pad.top + plotHeight - (value / max) * plotHeight;
      context.beginPath();
      context.moveTo(pad.left, y);
      context.lineTo(width - pad.right, y);
      context.stroke();
      context.fillText(String(Math.round(value)), pad.left - 6, y);
    }

    context.textAlign = "center";
    context.textBaseline = "top";
    state.points = data.values.map(function (value, index) {
      const x = pad.left + slot * index + slot / 2;
      const y = pad.top + plotHeight - (value / max) * plotHeight;
      if (slot >= 28 || index % 2 === 0) {
        context.fillText(data.labels[index], x, pad.top + plotHeight + 8);
      }
      return { x: x, y: y, label: data.labels[index], value: value };
    });

    context.fillStyle = accent;
    context.strokeStyle = accent;
    if (state.type === "bar") {
      state.points.forEach(function (point, index) {
        context.globalAlpha = state.active === -1 || state.active === index ? 1 : 0.55;
        context.fillRect(point.x - slot * 0.3, point.y, slot * 0.6, pad.top + plotHeight - point.y);
      });
      context.globalAlpha = 1;
    } else {
      context.lineWidth = 2;
      context.beginPath();
      state.points.forEach(function (point, index) {
        if (index === 0) {
          context.moveTo(point.x, point.y);
        } else {
          context.lineTo(point.x, point.y);
        }
      });
      context.stroke();
      state.points.forEach(function (point, index) {
        context.beginPath();
        context.arc(point.x, point.y, state.active === index ? 5 : 3, 0, Math.PI * 2);
        context.fill();
      });
    }
  }

  function fillFigures() {
    const data = shown();
    const total = data.values.reduce(function (sum, value) { return sum + value; }, 0);
    let best = 0;
    data.values.forEach(function (value, index) {
      if (value > data.values[best]) {
        best = index;
      }
    });
    const last = data.values[data.values.length - 1];
    const before = data.values[data.values.length - 2];
    const change = before ? ((last - before) / before) * 100 : 0;
    document.getElementById("kpi-total").textContent = total.toLocaleString();
    document.getElementById("kpi-average").textContent = Math.round(total / data.values.length).toLocaleString();
    document.getElementById("kpi-best").textContent = data.labels[best] + " (" + data.values[best] + ")";
    document.getElementById("kpi-change").textContent = (change >= 0 ? "+" : "") + change.toFixed(1) + " %";
  }

  function fillTable() {
    const body = document.getElementById("table-body");
    const data = shown();
    body.replaceChildren();
    data.values.forEach(function (value, index) {
      const row = document.createElement("tr");
      const month = document.createElement("td");
      const amount = document.createElement("td");
      month.textContent = data.labels[index];
      amount.textContent = value.toLocaleString();
      amount.className = "number";
      row.appendChild(month);
      row.appendChild(amount);
      body.appendChild(row);
    });
  }

  function update() {
    state.active = -1;
    tip.textContent = "";
    draw();
    fillFigures();
    fillTable();
  }

  canvas.addEventListener("pointermove", function (event) {
    const box = canvas.getBoundingClientRect();
    const x = event.clientX - box.left;
    let nearest = -1;
    let distance = Infinity;
    state.points.forEach(function (point, index) {
      const gap = Math.abs(point.x - x);
      if (gap < distance) {
        distance = gap;
        nearest = index;
      }
    });
    if (nearest !== state.active && nearest !== -1) {
      state.active = nearest;
      tip.textContent = state.points[nearest].label + ": " + state.points[nearest].value.toLocaleString();
      draw();
    }
  });
  canvas.addEventListener("pointerleave", function () {
    state.active = -1;
    tip.textContent = "";
    draw();
  });

  typeButtons.forEach(function (button) {
    button.addEventListener("click", function () {
      state.type = button.getAttribute("data-chart");
      typeButtons.forEach(function (other) {
        other.setAttribute("aria-pressed", other === button ? "true" : "false");
      });
      draw();
    });
  });
  range.addEventListener("change", function () {
    state.months = Number(range.value);
    update();
  });
  window.addEventListener("resize", draw);

  update();
})();
"""


def build(prompt: str) -> tuple[ProjectPlan, dict[str, str]]:
    brief = read_brief(prompt, "Dashboard", frozenset(KEYWORDS))
    name = brief.name if brief.named or not brief.topic else f"{brief.name[:49]} Dashboard"
    series = title_case(brief.topic) if brief.topic else "Activity"
    heading = series if "month" in series.lower() else f"{series} per month"
    intro = (
        f"An overview of {brief.topic}, month by month. The figures are sample data: replace them in app.js."
        if brief.topic
        else "An overview, month by month. The figures are sample data: replace them in app.js."
    )
    main = f"""    <h1>{esc(name)}</h1>
    <p class="muted intro">{esc(intro)}</p>
    <section class="kpis" aria-label="Key figures">
      <div class="card kpi">
        <p class="label">Total</p>
        <p class="value" id="kpi-total">-</p>
      </div>
      <div class="card kpi">
        <p class="label">Monthly average</p>
        <p class="value" id="kpi-average">-</p>
      </div>
      <div class="card kpi">
        <p class="label">Best month</p>
        <p class="value" id="kpi-best">-</p>
      </div>
      <div class="card kpi">
        <p class="label">Last month</p>
        <p class="value" id="kpi-change">-</p>
      </div>
    </section>
    <section class="card panel">
      <h2>{esc(heading)}</h2>
      <div class="toolbar">
        <button type="button" data-chart="bar" aria-pressed="true">Bars</button>
        <button type="button" data-chart="line" aria-pressed="false">Line</button>
        <label for="range">Show</label>
        <select id="range">
          <option value="6">Last 6 months</option>
          <option value="12" selected>Last 12 months</option>
        </select>
      </div>
      <div class="chart-box">
        <canvas id="chart" role="img" aria-label="Chart of the monthly figures; they are listed in the table below">
        </canvas>
      </div>
      <p class="tip" id="chart-tip" aria-live="polite"></p>
    </section>
    <section class="card panel">
      <h2>Data</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr><th scope="col">Month</th><th scope="col" class="number">{esc(series)}</th></tr>
          </thead>
          <tbody id="table-body"></tbody>
        </table>
      </div>
    </section>"""
    values = ", ".join(str(value) for value in sample_values(name))
    files = {
        "index.html": page(title=name, brand=name, main=main, footer=f"© {name}. Sample data, drawn in your browser."),
        "style.css": stylesheet(theme_for(brief.rest), CSS),
        "app.js": JS_TEMPLATE.replace("__VALUES__", values),
    }
    plan = ProjectPlan(
        name=name,
        description=f"A dashboard of {series.lower()}: key figures, a bar or line chart "
        "drawn on a canvas without a library, and the data as a table.",
        files=[
            PlannedFile(path="index.html", language="html", description="Key figures, chart panel and data table"),
            PlannedFile(path="style.css", language="css", description="Theme colours and a responsive grid"),
            PlannedFile(path="app.js", language="javascript", description="Sample data, canvas chart, figures, table"),
        ],
    )
    return plan, files
