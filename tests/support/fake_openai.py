"""A local OpenAI-compatible server for tests and benchmarks; the model name picks its behaviour.

echo: replies "You said: <last message>" (streamed word by word when asked); slow: 50 pieces, 0.1 s
apart; unauthorized: 401; ratelimited: 429; broken: 500; badjson / fencedjson / wrongjson / prosejson:
malformed, fenced, schema-violating or prose-only JSON content; threat-critical: JSON
{"threatLevel": "critical"} for json_object and json_schema requests;
nojsonschema: refuses json_schema requests (HTTP 400) and answers plain requests with fenced JSON;
nostreamusage: refuses stream_options (HTTP 400); a Battle Station defense plan (json_schema "DefensePlan") gets
a narrow plan for the attack type its prompt names ("defense-invalid": a pattern the server refuses).
Token usage (words) is reported on every answer,
on streams when stream_options.include_usage asks for it.
Markers in the last message do the same for a fixed model (browser tests): "[fail]" answers 500,
"[slow]" streams slowly; a threat question judges "high" when the message mentions an attack.
The HTML Artifacts creator (its system prompt says so) gets a page: see `artifact_reply` for the models
artifact, artifact-fenced, artifact-raw, artifact-none, artifact-cut, artifact-bad, artifact-eval, artifact-slow.
"""

from __future__ import annotations

import http.server
import json
import threading
import time

# Battle Station: the defense a "model" writes per attack type (narrow, as a careful agent would), read from the
# task's system prompt ("... attack (<type>)"); the model "defense-invalid" answers a pattern the server refuses.
DEFENSE_PLANS = {
    "sql_injection": {
        "patterns": [
            {
                "name": "model-sqli",
                "pattern": r"'\s*(or|and|union|;|--)|\bunion\s+select\b|--\s*$",
                "targets": ["query"],
                "endpoints": ["search"],
            }
        ]
    },
    "xss": {
        "patterns": [
            {
                "name": "model-xss",
                "pattern": r"<\s*(script|svg|iframe|img)\b|\bon[a-z]+\s*=|javascript\s*:",
                "targets": ["query", "body"],
                "endpoints": ["comment"],
            }
        ]
    },
    "brute_force": {"rate_limits": [{"name": "model-login", "requests": 5, "window_seconds": 60, "endpoints": ["login"]}]},
    "ddos": {"rate_limits": [{"name": "model-pages", "requests": 10, "window_seconds": 60, "endpoints": ["pages"]}]},
    "malware": {
        "uploads": {
            "signatures": [{"name": "eicar", "text": "EICAR-STANDARD-ANTIVIRUS-TEST-FILE"}],
            "blocked_extensions": [".exe", ".com", ".bat", ".scr"],
        }
    },
    "phishing": {"urls": {"block_punycode": True, "block_lookalikes": True}},
}


def defense_plan(messages: list[dict], model: str) -> dict:
    system = str(messages[0].get("content", "")) if messages else ""
    attack = next((name for name in DEFENSE_PLANS if f"attack ({name})" in system), "xss")
    if model == "defense-invalid":
        return {"strategy": "match everything", "config": {"patterns": [{"name": "slow", "pattern": "(a+)+$"}]}}
    return {"strategy": f"Model plan: narrow {attack} rules on the attacked endpoint only", "config": DEFENSE_PLANS[attack]}


# Fix Mode: a "model" fixes code the way the offline recipes do (a real diff of the file in its prompt), and sets the
# headers a site finding names; the model "fix-broken" answers a diff whose context is not in the file.
SITE_FIX_HEADERS = {
    "content-security-policy": {"Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; object-src 'none'"},
    "x-frame-options": {"X-Frame-Options": "DENY"},
    "x-content-type-options": {"X-Content-Type-Options": "nosniff"},
    "referrer-policy": {"Referrer-Policy": "strict-origin-when-cross-origin"},
    "strict-transport-security": {"Strict-Transport-Security": "max-age=63072000; includeSubDomains"},
}


def _between(text: str, start: str, end: str) -> str | None:
    head = text.find(start)
    tail = text.find(end, head + len(start)) if head >= 0 else -1
    return text[head + len(start) : tail] if tail >= 0 else None


def fix_proposal(messages: list[dict], model: str) -> dict:
    from secdash.services.code_scan import Finding
    from secdash.services.fix.recipes import propose

    system = str(messages[0].get("content", "")) if messages else ""
    finding = json.loads(_between(system, "--- FINDING ---\n", "\n--- END FINDING ---") or "{}")
    if "rule" not in finding:  # a site finding
        text = str(finding.get("finding", "")).lower()
        headers = next((value for key, value in SITE_FIX_HEADERS.items() if key in text), {"X-Frame-Options": "DENY"})
        return {
            "headers": headers,
            "explanation": f"Model fix: sets {', '.join(headers)}",
            "risk": "Model risk: a strict policy can block inline scripts.",
        }
    path = finding["file"]
    file_text = _between(system, f"--- FILE {path} ---\n", f"\n--- END FILE {path} ---") or ""
    if model == "fix-broken":
        diff = f"--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,1 @@\n-this line is not in the file\n+nor is this one\n"
    else:
        known = {key: finding[key] for key in ("file", "line", "rule", "severity", "message", "tool", "code") if key in finding}
        diff = propose(file_text, Finding(**known)) or ""
    return {
        "diff": diff or "no diff",
        "explanation": f"Model fix for {finding['rule']} in {path}",
        "risk": "Model risk: review the changed line.",
    }


BUILD_INDEX = (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Model Page</title>\n'
    '<link rel="stylesheet" href="style.css">\n</head>\n<body>\n<h1 id="title">Model Page</h1>\n'
    '<button id="go" type="button">Go</button>\n<script src="app.js"></script>\n</body>\n</html>\n'
)
BUILD_CSS = "body { font-family: sans-serif; color: #222; }\nh1 { color: teal; }\n"
BUILD_JS = (
    "document.getElementById('go').addEventListener('click', () => {\n"
    "  document.getElementById('title').textContent = 'Clicked';\n});\n"
)
BUILD_PLAN = {
    "name": "Model Page",
    "description": "A page the test model wrote",
    "files": [
        {"path": "index.html", "language": "html", "description": "The page"},
        {"path": "style.css", "language": "css", "description": "Its style"},
        {"path": "app.js", "language": "javascript", "description": "Its behaviour"},
    ],
}


# What a hostile model writes to run a command on the computer of whoever downloads the project: git runs
# core.fsmonitor on `git status` (in the folder, or in `site/` where HEAD + config make a bare repository), VS Code
# runs a folder-open task, direnv loads .envrc, npm reads .npmrc, pre-commit and devcontainers run their hooks.
TOOL_FILES = {
    ".git/config": '[core]\n\tfsmonitor = "touch /tmp/secdash-pwned; false"\n',
    ".git/hooks/post-checkout": "#!/bin/sh\ntouch /tmp/secdash-pwned\n",
    ".gitattributes": "*.html filter=pwn\n",
    ".gitmodules": '[submodule "x"]\n\tpath = x\n\turl = ext::sh -c touch% /tmp/secdash-pwned\n',
    ".vscode/tasks.json": '{"version": "2.0.0", "tasks": [{"label": "x", "type": "shell", "command": "touch '
    '/tmp/secdash-pwned", "runOptions": {"runOn": "folderOpen"}}]}\n',
    ".envrc": "touch /tmp/secdash-pwned\n",
    ".npmrc": "script-shell=/tmp/secdash-pwned\n",
    ".pre-commit-config.yaml": "repos: []\n",
    ".devcontainer/devcontainer.json": '{"postCreateCommand": "touch /tmp/secdash-pwned"}\n',
    ".idea/workspace.xml": "<project/>\n",
    ".hg/hgrc": "[hooks]\nupdate = touch /tmp/secdash-pwned\n",
    ".svn/entries": "12\n",
    "site/HEAD": "ref: refs/heads/main\n",
    "site/config": '[core]\n\tfsmonitor = "touch /tmp/secdash-pwned; false"\n',
    "site/objects/keep.txt": "x\n",
    "site/refs/keep.txt": "x\n",
}


def project_reply(messages: list[dict], model: str) -> str:
    """A Live Code Builder answer, by model: builder (the file protocol), builder-fenced (fenced blocks with file
    names), builder-eval (app.js calls eval on stored data),
    builder-nofiles (prose only), builder-cut (the answer stops inside a file), builder-bad (a JavaScript
    syntax error and a planted AWS key), builder-toolfiles (the page plus files that tools run by themselves:
    `.git/config` with core.fsmonitor, `.vscode/tasks.json`, a bare repository's `HEAD` ...: TOOL_FILES); a
    continue (the current files are in the prompt) changes style.css only."""

    def block(path: str, text: str) -> str:
        return f"=== FILE: {path} ===\n{text}=== END FILE ===\n"

    if "--- CURRENT PROJECT ---" in str(messages[0].get("content", "")):
        return "Making the heading purple.\n" + block("style.css", BUILD_CSS.replace("teal", "purple"))
    if model == "builder-nofiles":
        return "I would write an HTML page with a heading and a button, styled simply."
    if model == "builder-fenced":
        return (
            "Here is the project.\n\n**index.html**\n```html\n"
            + BUILD_INDEX
            + "```\n\n```css style.css\n"
            + BUILD_CSS
            + "```\n\napp.js:\n```javascript\n"
            + BUILD_JS
            + "```\n"
        )
    if model == "builder-cut":
        cut = "document.getElementById('go').addEventListener('click', () => {\n  document."
        return block("index.html", BUILD_INDEX) + "=== FILE: app.js ===\n" + cut
    if model == "builder-eval":
        risky = "const saved = localStorage.getItem('settings') || '{}';\nconst settings = eval(saved);\n"
        return block("index.html", BUILD_INDEX) + block("style.css", BUILD_CSS) + block("app.js", risky + BUILD_JS)
    if model == "builder-toolfiles":
        return (
            block("index.html", BUILD_INDEX)
            + "".join(block(path, text) for path, text in TOOL_FILES.items())
            + block("style.css", BUILD_CSS)
            + block("app.js", BUILD_JS)
        )
    if model == "builder-bad":
        bad_js = BUILD_JS + "function broken( {\n"
        secret = "const awsKey = 'AKIAIOSFODNN7EXAMPLE';\n"
        return block("index.html", BUILD_INDEX) + block("style.css", BUILD_CSS) + block("app.js", secret + bad_js)
    return block("index.html", BUILD_INDEX) + block("style.css", BUILD_CSS) + block("app.js", BUILD_JS)


# HTML artifacts: one self-contained page; an update (the current page is in the system prompt) changes what the
# request asks for in a way a browser test can see: the heading's colour when it names one, and a line of text.
ARTIFACT_TITLE = "Model Artifact"
ARTIFACT_PAGE = (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    f"<title>{ARTIFACT_TITLE}</title>\n<style>\nbody {{ font-family: sans-serif; color: #222; }}\n"
    "h1 { color: teal; }\n</style>\n</head>\n<body>\n"
    f'<h1 id="title">{ARTIFACT_TITLE}</h1>\n<p id="intro">Written by the test model.</p>\n'
    '<button id="go" type="button">Go</button>\n<script>\n'
    "document.getElementById('go').addEventListener('click', () => {\n"
    "  document.getElementById('title').textContent = 'Clicked';\n});\n</script>\n</body>\n</html>\n"
)
ARTIFACT_NOTE = "A model page with a heading and a button"
ARTIFACT_EVAL_SCRIPT = (
    "const awsKey = 'AKIAIOSFODNN7EXAMPLE';\n"
    "const saved = localStorage.getItem('settings') || '{}';\nconst settings = eval(saved);\n"
)
ARTIFACT_COLOURS = ("purple", "red", "green", "blue", "orange", "crimson", "navy", "gold", "pink", "black")
ARTIFACT_MODELS = (
    "artifact",
    "artifact-fenced",
    "artifact-raw",
    "artifact-none",
    "artifact-cut",
    "artifact-bad",
    "artifact-eval",
    "artifact-slow",
)


def artifact_update(current: str, request: str) -> tuple[str, str]:
    """(note, page): `current` with the heading in the colour the request names, and the request as a line of text
    (class "model-update") at the end of the body."""
    import html as html_lib
    import re

    page, notes = current, []
    colour = next((name for name in ARTIFACT_COLOURS if re.search(rf"\b{name}\b", request, re.I)), None)
    if colour:
        styled = re.sub(r"h1\s*\{\s*color:\s*[^;}]+;", f"h1 {{ color: {colour};", page, count=1)
        if styled == page:  # a page without that rule gets one
            styled = re.sub(r"(?i)</head>", f"<style>\nh1 {{ color: {colour}; }}\n</style>\n</head>", page, count=1)
        page = styled
        notes.append(f"heading now {colour}")
    line = f'<p class="model-update">Update: {html_lib.escape(request.strip()[:200])}</p>\n'
    at = page.lower().rfind("</body>")
    page = page[:at] + line + page[at:] if at >= 0 else page + line
    notes.append("added a line with the request")
    return "; ".join(notes).capitalize(), page


def artifact_reply(messages: list[dict], model: str) -> str:
    """An HTML Artifacts answer, by model:
    artifact (and artifact-slow, and "slow"): a `Changes:` line, then the page in the file protocol;
    artifact-fenced: prose and one ```html block naming no file, no Changes line;
    artifact-raw: a bare <!doctype html>...</html> with prose around it;
    artifact-none: prose only, no HTML;
    artifact-cut: the answer stops inside the page;
    artifact-eval: the page with an inline fake AWS key and eval() (the review finds both);
    (artifact-bad answers HTTP 500, before this.)
    For an update ("--- CURRENT PAGE ---" in the system prompt) the page is the current one changed as the
    request says (artifact_update)."""
    system = str(messages[0].get("content", "")) if messages else ""
    request = str(messages[-1].get("content", ""))
    request = request.split("\n\nYour previous answer was refused", 1)[0]
    for prefix in ("Change the page: ", "Create this page: "):
        request = request.removeprefix(prefix)
    current = _between(system, "--- CURRENT PAGE ---\n", "\n--- END CURRENT PAGE ---")
    if current is not None:
        note, page = artifact_update(current, request)
    else:
        note, page = ARTIFACT_NOTE, ARTIFACT_PAGE
    if model == "artifact-eval":
        page = page.replace("<script>\n", "<script>\n" + ARTIFACT_EVAL_SCRIPT, 1)
        note = "A page that keeps its settings with eval"
    if model == "artifact-none":
        return "I would write a page with a heading and a button, styled simply, but here is only the idea."
    if model == "artifact-fenced":
        return "Here is the page:\n\n```html\n" + page + "```\n\nOpen it in a browser.\n"
    if model == "artifact-raw":
        return "Sure, here it is:\n\n" + page + "\nHope this helps.\n"
    if model == "artifact-cut":
        return f"Changes: {note}\n=== FILE: index.html ===\n" + page[: len(page) // 2]
    return f"Changes: {note}\n=== FILE: index.html ===\n{page}=== END FILE ===\n"


class FakeOpenAI:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.cancelled = 0
        self.pieces_sent = 0
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _json(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                server.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                model = body.get("model", "echo")
                last = body["messages"][-1]["content"]
                if "[fail]" in last:
                    model = "broken"
                elif "[slow]" in last:
                    model = "slow"
                errors = {
                    "unauthorized": (401, "invalid_api_key"),
                    "ratelimited": (429, "rate_limit_exceeded"),
                    "broken": (500, "server_error"),
                }
                kind = body.get("response_format", {}).get("type")
                if (model == "nojsonschema" and kind == "json_schema") or (model == "nostreamusage" and "stream_options" in body):
                    errors[model] = (400, "invalid_request_error")
                if model == "artifact-bad":
                    errors[model] = (500, "server_error")
                if model in errors:
                    status, code = errors[model]
                    return self._json(status, {"error": {"message": code, "type": code, "code": code}})
                prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body["messages"])

                def usage(text: str) -> dict:
                    return {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": len(text.split()),
                        "total_tokens": prompt_tokens + len(text.split()),
                    }

                if model == "nojsonschema" and not body.get("stream"):
                    content = 'Sure:\n```json\n{"threatLevel": "medium", "reason": "plain generation"}\n```'
                    return self._json(
                        200,
                        {
                            "id": "c1",
                            "object": "chat.completion",
                            "created": 0,
                            "model": model,
                            "usage": usage(content),
                            "choices": [
                                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
                            ],
                        },
                    )
                schema_name = body.get("response_format", {}).get("json_schema", {}).get("name")
                if schema_name == "DefensePlan" or "DefensePlan" in str(body["messages"][0].get("content", ""))[:200]:
                    content = json.dumps(defense_plan(body["messages"], model))
                    return self._json(
                        200,
                        {
                            "id": "c1",
                            "object": "chat.completion",
                            "created": 0,
                            "model": model,
                            "usage": usage(content),
                            "choices": [
                                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
                            ],
                        },
                    )
                if schema_name in ("CodeFixProposal", "SiteFixProposal") or (
                    "FixProposal" in str(body["messages"][0].get("content", ""))
                ):
                    content = json.dumps(fix_proposal(body["messages"], model))
                    return self._json(
                        200,
                        {
                            "id": "c1",
                            "object": "chat.completion",
                            "created": 0,
                            "model": model,
                            "usage": usage(content),
                            "choices": [
                                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
                            ],
                        },
                    )
                if schema_name == "ProjectPlan" or "ProjectPlan" in str(body["messages"][0].get("content", "")):
                    content = json.dumps(BUILD_PLAN)
                    return self._json(
                        200,
                        {
                            "id": "c1",
                            "object": "chat.completion",
                            "created": 0,
                            "model": model,
                            "usage": usage(content),
                            "choices": [
                                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
                            ],
                        },
                    )
                if kind in ("json_object", "json_schema"):
                    content = {
                        "badjson": "Sure! {threatLevel: high",
                        "fencedjson": 'Here you go:\n```json\n{"threatLevel": "high", "reason": "attack"}\n```',
                        "threat-critical": '{"threatLevel": "critical", "reason": "breach"}',
                        "wrongjson": '{"threatLevel": "severe", "reason": "not a level"}',
                        "prosejson": "I think this is fine, nothing to worry about.",
                    }.get(
                        model,
                        '{"threatLevel": "high", "reason": "attack"}'
                        if "attack" in last.lower()
                        else '{"threatLevel": "low", "reason": "routine"}',
                    )
                    return self._json(
                        200,
                        {
                            "id": "c1",
                            "object": "chat.completion",
                            "created": 0,
                            "model": model,
                            "usage": usage(content),
                            "choices": [
                                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
                            ],
                        },
                    )
                reply = f"You said: {last}" if model != "slow" else " ".join(f"w{i}" for i in range(50))
                if "Live Code Builder" in str(body["messages"][0].get("content", ""))[:300]:
                    reply = project_reply(body["messages"], model)
                if "HTML Artifacts creator" in str(body["messages"][0].get("content", ""))[:300]:
                    reply = artifact_reply(body["messages"], model)
                if not body.get("stream"):
                    return self._json(
                        200,
                        {
                            "id": "c1",
                            "object": "chat.completion",
                            "created": 0,
                            "model": model,
                            "usage": usage(reply),
                            "choices": [
                                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}
                            ],
                        },
                    )
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                words = reply.split(" ")
                try:
                    for i, word in enumerate(words):
                        chunk = {
                            "id": "c1",
                            "object": "chat.completion.chunk",
                            "created": 0,
                            "model": model,
                            "choices": [
                                {
                                    "index": 0,
                                    "delta": {"content": word + (" " if i < len(words) - 1 else "")},
                                    "finish_reason": None,
                                }
                            ],
                        }
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        server.pieces_sent += 1
                        if model in ("slow", "artifact-slow"):
                            time.sleep(0.1)
                    if body.get("stream_options", {}).get("include_usage"):
                        chunk = {
                            "id": "c1",
                            "object": "chat.completion.chunk",
                            "created": 0,
                            "model": model,
                            "choices": [],
                            "usage": usage(reply),
                        }
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    server.cancelled += 1

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
