"""The REST API template's server, as the text of the file it writes (`server.py`): `http.server` and JSON, in
memory, bound to 127.0.0.1 unless HOST says otherwise, bodies capped at 64 KB, a fixed list of static files.
Placeholders: __NAME__ (text), __NAME_LITERAL__ (a Python string literal), __RESOURCE__ ([a-z]{2,20}).
"""

SERVER = '''"""__NAME__: a small JSON REST API on the Python standard library (nothing to install).

Run it with `python server.py` and open http://127.0.0.1:8000/ (HOST and PORT change where it listens).
The data lives in memory and is gone when the server stops. See README.md for the endpoints.
"""

from __future__ import annotations

import json
import os
import re
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

API_NAME = __NAME_LITERAL__
RESOURCE = "__RESOURCE__"
HOST = os.environ.get("HOST", "127.0.0.1")
PORT = int(os.environ.get("PORT", "8000"))
MAX_BODY = 64 * 1024
MAX_NAME = 200
MAX_DESCRIPTION = 2000
HERE = Path(__file__).resolve().parent
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
}
ITEM_PATH = re.compile(r"^/api/" + RESOURCE + r"/(\\d{1,9})$")


class Store:
    """The items, by id, safe to use from several request threads."""

    def __init__(self) -> None:
        self._items: dict[int, dict] = {}
        self._next_id = 1
        self._lock = threading.Lock()

    def all(self) -> list[dict]:
        with self._lock:
            return [dict(item) for _, item in sorted(self._items.items())]

    def get(self, item_id: int) -> dict | None:
        with self._lock:
            item = self._items.get(item_id)
            return dict(item) if item else None

    def create(self, fields: dict) -> dict:
        with self._lock:
            item = {"id": self._next_id, **fields}
            self._items[self._next_id] = item
            self._next_id += 1
            return dict(item)

    def replace(self, item_id: int, fields: dict) -> dict | None:
        with self._lock:
            if item_id not in self._items:
                return None
            self._items[item_id] = {"id": item_id, **fields}
            return dict(self._items[item_id])

    def delete(self, item_id: int) -> bool:
        with self._lock:
            return self._items.pop(item_id, None) is not None


STORE = Store()


def validate(payload: object) -> tuple[dict | None, str]:
    """The fields to store, or None and what is wrong."""
    if not isinstance(payload, dict):
        return None, "The body must be a JSON object."
    name = payload.get("name")
    if not isinstance(name, str) or not name.strip():
        return None, "name is required (a non-empty string)."
    if len(name) > MAX_NAME:
        return None, f"name is longer than {MAX_NAME} characters."
    description = payload.get("description", "")
    if not isinstance(description, str) or len(description) > MAX_DESCRIPTION:
        return None, f"description must be a string of at most {MAX_DESCRIPTION} characters."
    return {"name": name.strip(), "description": description.strip()}, ""


class Handler(BaseHTTPRequestHandler):
    server_version = "StdlibAPI/1.0"

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Security-Policy", "default-src 'self'")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: HTTPStatus, data: object) -> None:
        self._send(status, json.dumps(data).encode("utf-8"), "application/json")

    def _error(self, status: HTTPStatus, message: str) -> None:
        self._json(status, {"error": message})

    def _body(self) -> tuple[object, str]:
        try:
            length = int(self.headers.get("Content-Length") or "0")
        except ValueError:
            return None, "Bad Content-Length."
        if length <= 0:
            return None, "Send a JSON body."
        if length > MAX_BODY:
            return None, f"The body is larger than {MAX_BODY} bytes."
        try:
            return json.loads(self.rfile.read(length)), ""
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None, "The body is not valid JSON."

    def _path(self) -> str:
        return self.path.split("?", 1)[0].split("#", 1)[0]

    def _item_id(self) -> int | None:
        match = ITEM_PATH.match(self._path())
        return int(match.group(1)) if match else None

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        path = self._path()
        if path in STATIC:
            filename, content_type = STATIC[path]
            self._send(HTTPStatus.OK, (HERE / filename).read_bytes(), content_type)
        elif path == "/api/health":
            self._json(HTTPStatus.OK, {"status": "ok", "name": API_NAME})
        elif path == "/api/" + RESOURCE:
            self._json(HTTPStatus.OK, STORE.all())
        elif (item_id := self._item_id()) is not None:
            item = STORE.get(item_id)
            if item:
                self._json(HTTPStatus.OK, item)
            else:
                self._error(HTTPStatus.NOT_FOUND, "No such item.")
        else:
            self._error(HTTPStatus.NOT_FOUND, "Not found.")

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET()

    def do_POST(self) -> None:  # noqa: N802
        if self._path() != "/api/" + RESOURCE:
            self._error(HTTPStatus.NOT_FOUND, "Not found.")
            return
        payload, problem = self._body()
        fields, problem = (None, problem) if problem else validate(payload)
        if fields is None:
            self._error(HTTPStatus.BAD_REQUEST, problem)
            return
        self._json(HTTPStatus.CREATED, STORE.create(fields))

    def do_PUT(self) -> None:  # noqa: N802
        item_id = self._item_id()
        if item_id is None:
            self._error(HTTPStatus.NOT_FOUND, "Not found.")
            return
        payload, problem = self._body()
        fields, problem = (None, problem) if problem else validate(payload)
        if fields is None:
            self._error(HTTPStatus.BAD_REQUEST, problem)
            return
        item = STORE.replace(item_id, fields)
        if item:
            self._json(HTTPStatus.OK, item)
        else:
            self._error(HTTPStatus.NOT_FOUND, "No such item.")

    def do_DELETE(self) -> None:  # noqa: N802
        item_id = self._item_id()
        if item_id is not None and STORE.delete(item_id):
            self._send(HTTPStatus.NO_CONTENT, b"", "application/json")
        else:
            self._error(HTTPStatus.NOT_FOUND, "No such item.")


def main() -> None:
    server = ThreadingHTTPServer((HOST, PORT), Handler)
    print(f"{API_NAME} on http://{HOST}:{PORT}/ (Ctrl+C stops it)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
'''
