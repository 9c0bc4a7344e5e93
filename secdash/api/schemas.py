"""What the API documents beyond the public shapes (secdash/models/public.py): the error body and
statuses, path ids, the request bodies' base and their text fields.

Every route declares its `response_model` (a public shape, MessageBody, or none for a 204 or a
redirect): tests/api/test_openapi_document.py fails on a 2xx answer the document does not describe.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field

from secdash.services.ids import MAX_ID

# Integer ids in paths: SQL integers (and SQLite's) overflow long before Python's do.
PathId = Annotated[int, Path(ge=1, le=MAX_ID, description="A positive id")]

MAX_FILTER_LENGTH = 200  # query-string filters and searches


class RequestBody(BaseModel):
    """A JSON request body: types as documented, no coercion ("yes" or 1 is not a boolean, 5 is not text)."""

    model_config = ConfigDict(strict=True)


class ErrorBody(BaseModel):
    """Every error the API returns: a status code and this body."""

    message: str


class MessageBody(BaseModel):
    message: str


ERROR_DESCRIPTIONS = {
    400: "Bad input: a field, query parameter or path id, malformed JSON, or text that is not valid Unicode",
    401: "Not signed in, or the token is invalid, expired or revoked",
    403: "The signed-in user's role may not do this",
    404: "No such item",
    409: "Conflicts with what exists",
    413: "Request body too large",
    429: "Too many requests; try again after Retry-After seconds",
    502: "The model server failed",
    503: "The model server is rate-limiting or unavailable; try again later",
    504: "The model server timed out",
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for these error statuses, each with the {"message": ...} body."""
    return {code: {"model": ErrorBody, "description": ERROR_DESCRIPTIONS[code]} for code in codes}


def json_errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """errors(...) for a route whose answer is not JSON (a file): its errors still are ({"message": ...}), which
    errors() would document in the route's own media type."""
    body = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    return {code: {"description": ERROR_DESCRIPTIONS[code], "content": body} for code in codes}


# Every route: bad query/path/body (400) and the body cap (413). Signed-in routes add 401.
COMMON_ERRORS = errors(400, 413)
SIGNED_IN_ERRORS = errors(400, 401, 413)
MODEL_ERRORS = errors(429, 502, 503, 504)


def text(max_length: int, description: str = "", default: str = "") -> Any:
    """A text field of a request body whose length the service checks: one rule and one message for
    the API and the UI (which calls the same service). The limit is documented here (maxLength), not
    enforced by pydantic, whose message would differ; the body cap (413) bounds what arrives."""
    return Field(default, description=description or None, json_schema_extra={"maxLength": max_length})

