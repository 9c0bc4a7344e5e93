"""Schemathesis over the whole API (issue 7): every operation of /api/openapi.json but the logouts
(they would revoke the fuzzer's token), signed in as an admin, as a limited user and signed out,
with schema-valid and schema-invalid data. The API must never answer 5xx, and every answer must be
one the schema documents: status, content type and body shape; invalid data must be refused, and
valid data accepted (issue 21: a 400 for a schema-valid request means the schema hides a limit).
As `st run` does, a coverage pass sends each operation's boundary values (signed in as an admin) and
every HTTP method the path does not declare (405 with an Allow header).

In-process: the ASGI app from create_api() behind Starlette's TestClient. Requests and the
database set-up run in the client's event loop, with an engine of their own (the test session's
engine belongs to pytest's loop). Bounded: a fixed number of derandomized examples per operation.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.generation.meta import CoverageScenario
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)
from sqlmodel import SQLModel, select
from starlette.testclient import TestClient

from secdash.api.main import create_api
from secdash.api.schemas import NOT_BLANK
from secdash.core import bounded, db
from secdash.core.config import get_settings
from secdash.demo_sites import routes as demo_site_routes
from secdash.models import User
from secdash.models.artifacts import Artifact, ArtifactVersion
from secdash.services.battle import sender
from secdash.services.diff import compute as diff_compute
from secdash.services.identity import quotas
from secdash.services.scanning import code_roots
from tests.factories import DEFAULT_PASSWORD, make_user

pytestmark = pytest.mark.fuzz
BASE_URL = "http://testserver"
POSITIVE_EXAMPLES = 25
NEGATIVE_EXAMPLES = 12
SIGNED_OUT_EXAMPLES = 5
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
POSITIVE_CHECKS = [*CHECKS, positive_data_acceptance]
NEGATIVE_CHECKS = [*CHECKS, negative_data_rejection]
# A valid defend request runs a whole drill (two runs of a corpus against a demo site): six are enough.
FEWER_EXAMPLES = {("POST", "/api/battle-station/defend"): 6}
FEWER_BOUNDARY_CASES = {("POST", "/api/battle-station/defend"): 1}
SKIPPED = {("GET", "/api/auth/logout"), ("POST", "/api/auth/logout")}  # they revoke the token in use
# What `st run` reads from the project's root too: the refusals of schema-valid data a schema cannot express.
CONFIG = Path(__file__).resolve().parents[2] / "schemathesis.toml"

SCHEMA = schemathesis.openapi.from_dict(create_api().openapi(), config=SchemathesisConfig.from_path(CONFIG))
OPERATIONS = [op for op in (result.ok() for result in SCHEMA.get_all_operations()) if (op.method.upper(), op.path) not in SKIPPED]
USERS = {"admin": "fuzz-admin@example.com", "limited": "fuzz-viewer@example.com"}
TALLY: Counter[str] = Counter()


def _has_input(operation) -> bool:
    return bool(list(operation.iter_parameters())) or bool(operation.body)


async def _prepare_database() -> None:
    engine = db.get_engine()
    async with engine.begin() as conn:
        for table in reversed(SQLModel.metadata.sorted_tables):
            await conn.execute(table.delete())
    async with db.session_scope() as session:
        for role, email in USERS.items():
            await make_user(session, email, role=role)


@pytest.fixture(scope="module")
def fuzz_client(migrated_db, tmp_path_factory):
    """A TestClient on create_api() with its own engine, tokens for both users, generous AI budgets."""
    # Scans and fixes the fuzzer starts read and patch a copy of the demo sources (a workspace of its own).
    sources = tmp_path_factory.mktemp("fuzz") / "sources"
    shutil.copytree(code_roots.DEMO_SOURCES, sources)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(get_settings(), "SCAN_PATHS", str(sources))
        patch.setattr(db, "_engine", None)
        patch.setattr(db, "_sessionmaker", None)
        patch.setattr(quotas, "_limiters", {})  # a limiter made in this loop
        patch.setattr(get_settings(), "AI_CALLS_PER_MINUTE", 10_000)
        patch.setattr(get_settings(), "AI_CALLS_PER_HOUR", 10_000)
        # Drills the fuzzer starts attack the demo sites in-process, from loopback (no server listens here).
        patch.setattr(demo_site_routes, "GEM_DELAY_SECONDS", 0.0)
        patch.setattr(get_settings(), "DEMO_SHARES_OUTAGE", "up")
        demo_app = create_api()
        patch.setattr(
            sender,
            "open_client",
            lambda: httpx.AsyncClient(
                transport=httpx.ASGITransport(app=demo_app, client=("127.0.0.1", 40000)), base_url="http://127.0.0.1"
            ),
        )
        client = TestClient(
            create_api(),
            base_url=BASE_URL,
            raise_server_exceptions=False,
            follow_redirects=False,
            client=("198.51.100.20", 50000),
        )
        with client:
            assert client.portal is not None
            client.portal.call(_prepare_database)
            headers = {"anonymous": {}}
            for role, email in USERS.items():
                login = client.post("/api/auth/login", json={"email": email, "password": DEFAULT_PASSWORD})
                assert login.status_code == 200, login.text
                headers[role] = {"Authorization": f"Bearer {login.json()['token']}"}
            client.cookies.clear()
            try:
                yield client, headers
            finally:
                client.portal.call(db.dispose_engine)
                shutil.rmtree(code_roots.workspace_for(sources), ignore_errors=True)
    print(f"\nschemathesis: {len(OPERATIONS)} operations, {sum(TALLY.values())} cases, statuses {dict(TALLY)}")


def _send(client: TestClient, kwargs: dict[str, Any]):
    body: dict[str, Any] = {}
    if "json" in kwargs:
        body["content"] = json.dumps(kwargs["json"]).encode()  # ASCII escapes, like any JSON client may send
    elif kwargs.get("data") is not None:
        data = kwargs["data"]
        body["content"] = data.encode() if isinstance(data, str) else data
    headers = dict(kwargs.get("headers") or {})
    if kwargs.get("cookies"):
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in kwargs["cookies"].items())
    client.cookies.clear()  # only the case's own: a session cookie set by an earlier answer would sign it in
    return client.request(kwargs["method"], kwargs["url"], params=kwargs.get("params"), headers=headers, **body)


def _run(client: TestClient, operation, auth: dict[str, str], mode: GenerationMode, examples: int) -> None:
    checks = NEGATIVE_CHECKS if mode == GenerationMode.NEGATIVE else POSITIVE_CHECKS

    @settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        print_blob=False,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def fuzz(case):
        kwargs = case.as_transport_kwargs(base_url=BASE_URL, headers=auth)
        response = _send(client, kwargs)
        TALLY[str(response.status_code)] += 1
        case.validate_response(response, checks=checks, transport_kwargs=kwargs)

    fuzz()


@pytest.mark.parametrize("role", ["admin", "limited"])
@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: f"{op.method.upper()} {op.path}")
def test_operation_conforms_signed_in(fuzz_client, operation, role):
    client, headers = fuzz_client
    examples = FEWER_EXAMPLES.get((operation.method.upper(), operation.path), POSITIVE_EXAMPLES)
    _run(client, operation, headers[role], GenerationMode.POSITIVE, examples)
    if _has_input(operation):
        _run(client, operation, headers[role], GenerationMode.NEGATIVE, NEGATIVE_EXAMPLES)


def _coverage_cases(operation) -> tuple[list, list]:
    """The coverage phase's positive boundary cases of the operation, and its undeclared-method probes (each
    path's methods are probed once, with its first operation; they count as negative cases)."""
    config = SCHEMA.config.generation_for(operation=operation, phase="coverage")
    boundary, methods = [], []
    modes = [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]
    for case in SCHEMA.iter_coverage_cases(operation, generation_modes=modes, generation_config=config):
        scenario = case.meta.phase.data.scenario
        if scenario == CoverageScenario.UNSPECIFIED_HTTP_METHOD:
            methods.append(case)
        elif case.meta.generation.mode == GenerationMode.POSITIVE:
            boundary.append(case)
    return boundary, methods


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: f"{op.method.upper()} {op.path}")
def test_boundary_values_and_undeclared_methods(fuzz_client, operation):
    """Schema-valid boundary values (empty and longest texts, lowest and highest numbers, only the required
    fields...) are accepted, and a method the path does not declare is a 405 naming the allowed ones."""
    client, headers = fuzz_client
    boundary, methods = _coverage_cases(operation)
    boundary = boundary[: FEWER_BOUNDARY_CASES.get((operation.method.upper(), operation.path), len(boundary))]
    failures = []
    for cases, checks in ((boundary, POSITIVE_CHECKS), (methods, [not_a_server_error, unsupported_method])):
        for case in cases:
            kwargs = case.as_transport_kwargs(base_url=BASE_URL, headers=headers["admin"])
            response = _send(client, kwargs)
            TALLY[str(response.status_code)] += 1
            try:
                case.validate_response(response, checks=checks, transport_kwargs=kwargs)
            except (AssertionError, BaseExceptionGroup) as exc:  # every failing case, not only the first
                failures.append(
                    f"{kwargs['method']} {kwargs['url']} -> {response.status_code} {response.text[:200]}"
                    f"\n{str(exc).strip()[:600]}"
                )
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: f"{op.method.upper()} {op.path}")
def test_operation_conforms_signed_out(fuzz_client, operation):
    client, headers = fuzz_client
    _run(client, operation, headers["anonymous"], GenerationMode.POSITIVE, SIGNED_OUT_EXAMPLES)


def test_the_schema_documents_errors_and_the_bearer_scheme():
    schema = create_api().openapi()
    assert {"HTTPBearer", "APIKeyCookie"} <= set(schema["components"]["securitySchemes"])
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert "422" not in responses, (method, path)
            assert {"400", "413"} <= set(responses), (method, path)
            for status, response in responses.items():
                if status.startswith(("4", "5")):
                    ref = response["content"]["application/json"]["schema"]["$ref"]
                    assert ref.endswith("/ErrorBody"), (method, path, status)
            protected = path not in ("/api/auth/login", "/api/login", "/api/auth/logout", "/api/health")
            if protected:
                assert operation.get("security"), (method, path)
                # The CrowdSec Local API's bouncer routes refuse a bad key with 403, as the Local API does.
                assert "401" in responses or (path.startswith("/v1/") and "403" in responses), (method, path)


@pytest.fixture(scope="module")
def plain_client():
    """The API with no database behind it: enough for answers given before any route runs."""
    with TestClient(create_api(), base_url=BASE_URL) as client:
        yield client


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", "/api/sites", "GET, POST"),
        ("OPTIONS", "/api/sites/7", "DELETE, PUT"),
        ("PATCH", "/api/health", "GET"),
        ("TRACE", "/api/auth/user", "GET"),
        ("HEAD", "/api/artifacts", "GET"),
        # A fixed path shadows a templated one: "current" is not an artifact id, nor "clear-all" a project's.
        ("DELETE", "/api/artifacts/current", "GET"),
        ("GET", "/api/code-project/clear-all", "DELETE"),
        ("POST", "/api/fixes/problems", "GET"),
    ],
)
def test_a_method_the_path_does_not_answer_is_405_naming_those_it_does(plain_client, method, path, allow):
    response = plain_client.request(method, path)
    assert response.status_code == 405 and response.headers["allow"] == allow, (response.status_code, response.text)
    assert response.headers["x-content-type-options"] == "nosniff"
    if method != "HEAD":  # no body
        assert response.headers["content-type"] == "application/json" and allow in response.json()["message"]


def test_a_text_the_document_calls_not_blank_is_one_the_services_do_not_strip_away():
    """schemas.NOT_BLANK: every character but those str.strip() removes (the services trim, then refuse blank text)."""
    pattern = re.compile(NOT_BLANK)
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        assert bool(pattern.search(char)) == bool(char.strip()), hex(code)


def test_a_diff_while_the_workers_are_busy_is_a_documented_503(fuzz_client, monkeypatch):
    """ST103: every status an operation answers is in its documented responses, the 'busy, try again' one too."""
    client, headers = fuzz_client

    async def artifact_with_two_versions() -> int:
        async with db.session_scope() as session:
            owner = (await session.exec(select(User).where(User.email == USERS["admin"]))).one()
            artifact = Artifact(owner_user_id=owner.id, name="Busy", version=2, html_content="<p>two</p>")
            session.add(artifact)
            await session.flush()
            session.add_all(
                [
                    ArtifactVersion(artifact_id=artifact.id, version=1, html_content="<p>one</p>"),
                    ArtifactVersion(artifact_id=artifact.id, version=2, html_content="<p>two</p>"),
                ]
            )
            await session.commit()
            return artifact.id

    async def busy(*_args, **_kwargs):
        raise bounded.Busy(bounded.CODE)

    artifact_id = client.portal.call(artifact_with_two_versions)
    monkeypatch.setattr(diff_compute.bounded, "run", busy)
    operation = SCHEMA["/api/artifacts/{artifact_id}/diff"]["GET"]
    case = operation.Case(path_parameters={"artifact_id": artifact_id}, query={"from": 1, "to": 2})
    kwargs = case.as_transport_kwargs(base_url=BASE_URL, headers=headers["admin"])
    response = _send(client, kwargs)
    assert response.status_code == 503 and "busy" in response.json()["message"], response.text
    # The 503 is meant (try again later), so not not_a_server_error: the answer as documented.
    checks = [status_code_conformance, content_type_conformance, response_schema_conformance]
    case.validate_response(response, checks=checks, transport_kwargs=kwargs)
