"""/api/openapi.json describes every answer: each 2xx response of each operation has a JSON schema
(a 204 has no body; a redirect names where it goes), with the spec's camelCase names and the enums'
values, so a client generated from the document reads every body."""

from __future__ import annotations

import re
from typing import Any

from fastapi.routing import APIRoute, iter_route_contexts

from secdash.api.main import create_api

NO_BODY = {"204"}


def _document() -> dict[str, Any]:
    return create_api().openapi()


def _operations(document: dict[str, Any]):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield method.upper(), path, operation


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_every_2xx_answer_has_a_json_schema():
    document = _document()
    missing = []
    for method, path, operation in _operations(document):
        successes = {code: r for code, r in operation["responses"].items() if code.startswith("2")}
        assert successes or any(code.startswith("3") for code in operation["responses"]), (method, path)
        for code, response in successes.items():
            if code in NO_BODY:
                assert not response.get("content"), (method, path, code)
                continue
            content = response.get("content", {})
            # JSON, or a download (a fix's patch, a project's zip, an artifact's page) documented as the string it is
            schema = next(
                (
                    content[kind]
                    for kind in ("application/json", "text/x-diff", "application/zip", "text/html")
                    if kind in content
                ),
                {},
            ).get("schema")
            if not schema or schema == {}:
                missing.append(f"{method} {path} {code}")
    assert missing == []


def api_routes(api) -> list[tuple[str, APIRoute]]:
    """Every path operation with its full path (included routers are nested since FastAPI 0.137)."""
    contexts = iter_route_contexts(api.routes)
    return [(c.path, c.original_route) for c in contexts if isinstance(c.original_route, APIRoute)]


def test_every_documented_route_declares_its_response_model():
    """Not only what FastAPI infers: each route of the API names its shape (or none: 204, redirects)."""
    routes = api_routes(create_api())
    assert len(routes) > 20
    undeclared = [
        f"{sorted(route.methods)} {path}"
        for path, route in routes
        if route.include_in_schema and route.response_model is None and route.status_code not in (204, 303)
    ]
    assert undeclared == []


def test_health_is_documented():
    document = _document()
    schema = document["paths"]["/api/health"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert _resolve(document, schema)["properties"]["status"]["const"] == "ok"


def test_response_shapes_use_the_spec_names_and_the_enums():
    document = _document()
    schemas = document["components"]["schemas"]
    snake = [
        f"{name}.{prop}"
        for name, schema in schemas.items()
        for prop in schema.get("properties", {})
        if re.search(r"_[a-z]", prop) and name.endswith("Public")
    ]
    assert snake == []
    site = schemas["SitePublic"]["properties"]
    assert set(site) >= {"id", "domain", "name", "securityStatus", "responseTime"}
    assert _resolve(document, site["securityStatus"])["enum"] == ["secure", "warning", "critical"]
    event = schemas["EventPublic"]["properties"]
    assert _resolve(document, event["eventType"])["enum"][:3] == ["threat_blocked", "attack_detected", "vulnerability_fixed"]
    assert _resolve(document, event["severity"])["enum"] == ["high", "medium", "low"]
    assert event["createdAt"]["format"] == "date-time"
    log = schemas["HistoryLogPublic"]["properties"]
    assert _resolve(document, log["category"])["enum"] == ["security", "ai", "battle", "user", "system"]
    assert _resolve(document, log["severity"])["enum"] == ["info", "warning", "error", "critical"]
    assert _resolve(document, schemas["UserPublic"]["properties"]["role"])["enum"] == ["admin", "limited"]
    assert _resolve(document, schemas["AiAgentPublic"]["properties"]["status"])["enum"] == [
        "monitoring",
        "fighting",
        "analyzing",
        "secured",
    ]
    reply = schemas["DefenseReplyPublic"]["properties"]
    assert _resolve(document, reply["threatLevel"])["enum"] == ["low", "medium", "high", "critical"]


def test_error_answers_are_the_message_body():
    document = _document()
    for method, path, operation in _operations(document):
        for code, response in operation["responses"].items():
            if code.startswith(("4", "5")):
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, code)
    assert document["components"]["schemas"]["ErrorBody"]["required"] == ["message"]
