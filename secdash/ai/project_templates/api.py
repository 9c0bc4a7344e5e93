"""The REST API template: a JSON API on the Python standard library (`http.server`), in memory, for one kind
of resource named from the prompt ("an API for books" serves /api/books), with a README and an index.html that
documents the endpoints and tries them when the server itself serves the page."""

from __future__ import annotations

import re

from secdash.ai.plans import PlannedFile, ProjectPlan
from secdash.ai.project_templates.api_server import SERVER
from secdash.ai.project_templates.brief import ARTICLES, FILLER, STOP, TYPE_WORDS, read_brief, words
from secdash.ai.project_templates.theme import esc, page, stylesheet, theme_for

KEYWORDS = ("api", "rest", "endpoint", "backend", "microservice")
HINTS = ("server", "json", "crud", "http", "python", "database", "service", "route", "routes", "webhook")
_CONTAINERS = frozenset(
    "list lists app application service system manager tracker store database db catalog catalogue collection inventory".split()
)


def resource_name(prompt: str, topic: str) -> str:
    """The collection's URL name: 'a REST API for a todo list' -> 'todos', 'books' -> 'books'; else 'items'."""
    candidates = [w for w in words(topic) if w not in STOP | ARTICLES | FILLER | TYPE_WORDS]
    while len(candidates) > 1 and candidates[-1] in _CONTAINERS:
        candidates.pop()
    word = candidates[-1] if candidates else ""
    if not re.fullmatch(r"[a-z]{2,20}", word) or word in _CONTAINERS:
        return "items"
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word if word.endswith("s") else word + ("es" if word.endswith(("ch", "sh", "x", "z")) else "s")


README = """# __NAME__

A small JSON REST API on the Python standard library: nothing to install, one file (`server.py`).

## Run

```sh
python server.py
```

Then open http://127.0.0.1:8000/ for the documentation page, which can also try the API. Set `HOST` and `PORT`
to listen elsewhere (it listens on 127.0.0.1 only by default). The data lives in memory: it is gone when the
server stops.

## Endpoints

| Method | Path | What it does |
| ------ | ---- | ------------ |
| GET | `/api/health` | `{"status": "ok"}` when the server runs |
| GET | `/api/__RESOURCE__` | every item, oldest first |
| POST | `/api/__RESOURCE__` | create an item from `{"name": "...", "description": "..."}`; answers 201 and the item |
| GET | `/api/__RESOURCE__/<id>` | one item, or 404 |
| PUT | `/api/__RESOURCE__/<id>` | replace an item (same body as POST) |
| DELETE | `/api/__RESOURCE__/<id>` | delete an item; answers 204 |

An item is `{"id": 1, "name": "...", "description": "..."}`. `name` is required (at most 200 characters),
`description` optional (at most 2000). Errors answer `{"error": "..."}` with status 400 or 404; a body may be
at most 64 KB.

## Try it

```sh
curl -s -X POST http://127.0.0.1:8000/api/__RESOURCE__ -H 'Content-Type: application/json' -d '{"name": "First"}'
curl -s http://127.0.0.1:8000/api/__RESOURCE__
curl -s -X DELETE http://127.0.0.1:8000/api/__RESOURCE__/1
```
"""

CSS = """
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 0.5rem; border-bottom: 1px solid var(--border); vertical-align: top; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.95em; overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; }
.method { font-weight: 700; }
.try-form { display: flex; flex-wrap: wrap; gap: 0.5rem; margin-top: 1rem; }
.try-form input { font: inherit; flex: 1 1 12rem; padding: 0.55rem 0.75rem; border: 1px solid var(--border);
  border-radius: 0.5rem; background: var(--bg); color: var(--text); }
.items { padding-left: 1.2rem; }
.api-status { min-height: 1.5em; color: var(--muted); }
"""

JS = """"use strict";

// Tries the API when server.py serves this page; in a static preview it says how to start the server.
(function () {
  const RESOURCE = "__RESOURCE__";
  const list = document.getElementById("items");
  const status = document.getElementById("api-status");
  const form = document.getElementById("try-form");
  const nameInput = document.getElementById("item-name");

  function offline() {
    status.textContent = "The API is not running here. Start it with: python server.py, then open http://127.0.0.1:8000/";
  }

  function show(items) {
    list.replaceChildren();
    items.forEach(function (item) {
      const entry = document.createElement("li");
      entry.textContent = "#" + item.id + " " + item.name;
      list.appendChild(entry);
    });
    status.textContent = items.length ? items.length + " item(s)." : "No items yet: add one.";
  }

  function load() {
    fetch("api/" + RESOURCE, { headers: { Accept: "application/json" } })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.json();
      })
      .then(show)
      .catch(offline);
  }

  document.getElementById("load").addEventListener("click", load);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    const name = nameInput.value.trim();
    if (!name) {
      status.textContent = "Enter a name first.";
      nameInput.focus();
      return;
    }
    fetch("api/" + RESOURCE, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: name })
    })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        nameInput.value = "";
        load();
      })
      .catch(offline);
  });
})();
"""

ENDPOINTS = (
    ("GET", "/api/health", 'Health check: {"status": "ok"} when the server runs'),
    ("GET", "/api/{res}", "Every item, oldest first"),
    ("POST", "/api/{res}", 'Create an item from {"name": "...", "description": "..."} (201)'),
    ("GET", "/api/{res}/<id>", "One item, or 404"),
    ("PUT", "/api/{res}/<id>", "Replace an item (same body as POST)"),
    ("DELETE", "/api/{res}/<id>", "Delete an item (204)"),
)


def build(prompt: str) -> tuple[ProjectPlan, dict[str, str]]:
    brief = read_brief(prompt, "Items API", frozenset(KEYWORDS))
    name = brief.name if brief.name.lower().endswith("api") or brief.name == "Items API" else f"{brief.name} API"
    name = name[:60]
    resource = resource_name(prompt, brief.topic)
    rows = "\n".join(
        f"""            <tr>
              <td class="method">{method}</td>
              <td><code>{esc(path.format(res=resource))}</code></td>
              <td>{esc(what)}</td>
            </tr>"""
        for method, path, what in ENDPOINTS
    )
    main = f"""    <h1>{esc(name)}</h1>
    <p class="lead">A JSON REST API for {esc(resource)}, on the Python standard library. Start it with
      <code>python server.py</code> and open this page at <code>http://127.0.0.1:8000/</code>.</p>
    <section class="section card">
      <h2>Endpoints</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">What it does</th></tr>
          </thead>
          <tbody>
{rows}
          </tbody>
        </table>
      </div>
      <p class="muted">An item is <code>{{"id": 1, "name": "...", "description": "..."}}</code>. Errors answer
        <code>{{"error": "..."}}</code> with status 400 or 404. The data lives in memory.</p>
    </section>
    <section class="section card">
      <h2>Try it</h2>
      <button type="button" id="load">Load {esc(resource)}</button>
      <form id="try-form" class="try-form">
        <label class="muted" for="item-name">New item</label>
        <input id="item-name" name="name" type="text" maxlength="200" autocomplete="off">
        <button type="submit" class="secondary">Add</button>
      </form>
      <p class="api-status" id="api-status" aria-live="polite"></p>
      <ul class="items" id="items"></ul>
    </section>"""
    files = {
        "server.py": SERVER.replace("__NAME_LITERAL__", repr(name)).replace("__NAME__", name).replace("__RESOURCE__", resource),
        "README.md": README.replace("__NAME__", name).replace("__RESOURCE__", resource),
        "index.html": page(title=name, brand=name, main=main, footer=f"{name}: run python server.py to serve it."),
        "style.css": stylesheet(theme_for(brief.rest), CSS),
        "app.js": JS.replace("__RESOURCE__", resource),
    }
    plan = ProjectPlan(
        name=name,
        description=f"A JSON REST API for {resource} on the Python standard library "
        "(http.server, in memory), with a README and a page that documents "
        "the endpoints.",
        files=[
            PlannedFile(
                path="server.py",
                language="python",
                description=f"The API: list, create, read, replace, delete {resource}; serves the page",
            ),
            PlannedFile(path="README.md", language="markdown", description="How to run it, the endpoints, curl examples"),
            PlannedFile(path="index.html", language="html", description="The endpoints documented, and a try-it panel"),
            PlannedFile(path="style.css", language="css", description="Theme colours and a readable layout"),
            PlannedFile(path="app.js", language="javascript", description="Try-it: list and add items via the API"),
        ],
    )
    return plan, files
