"""What the API documents beyond the public shapes (secdash/models/public.py): the error body and
statuses, path ids, the request bodies' base and their text fields.

Every route declares its `response_model` (a public shape, MessageBody, or none for a 204 or a
redirect): tests/api/test_openapi_document.py fails on a 2xx answer the document does not describe.

The document states the limits the services check (lengths, blank texts, ranges, the values a choice
takes), so that a request it allows is one the server accepts (schemathesis, tests/security/
test_openapi_fuzz.py). Where the service parses a value itself (a number sent as text, a required
field it names in its own words), the limit is documented here and left to the service, whose message
the UI shows too.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Annotated, Any

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, model_validator

from secdash.services.ids import MAX_DIGITS, MAX_ID

# Integer ids in paths: SQL integers (and SQLite's) overflow long before Python's do.
PathId = Annotated[int, Path(ge=1, le=MAX_ID, description="A positive id")]

MAX_FILTER_LENGTH = 200  # query-string filters and searches
MAX_CURSOR = 10**MAX_DIGITS - 1  # a log cursor ("after"): any number of MAX_DIGITS digits
# An id in a request body, which the service parses (a number, or its digits as text): documented as a positive integer.
BodyId = Annotated[int | str, WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_ID})]


def _not_blank_pattern() -> str:
    """A character class of every character str.strip() keeps: a text matching it is not blank to the services.
    (Not \\S: JSON Schema's white space and Python's differ, e.g. Python strips \\x1c-\\x1f and \\x85.)"""
    spaces = [code for code in range(sys.maxunicode + 1) if chr(code).isspace()]
    ranges: list[list[int]] = []
    for code in spaces:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    parts = (f"\\u{low:04x}" + (f"-\\u{high:04x}" if high > low else "") for low, high in ranges)
    return "[^" + "".join(parts) + "]"


NOT_BLANK = _not_blank_pattern()
REQUIRED = "x-secdash-required"  # a text() marker, never left in the document: the field is listed as required


def document_required(schema: dict[str, Any], model: type | None = None) -> None:
    """A field the service requires, and refuses in its own words when missing, is `required` in the document
    (without the default pydantic holds for it so that the service's message is the one sent)."""
    for name, field in schema.get("properties", {}).items():
        if isinstance(field, dict) and field.pop(REQUIRED, False):
            field.pop("default", None)
            if name not in schema.setdefault("required", []):
                schema["required"].append(name)


def _integral(value: Any) -> Any:
    """JSON numbers with no fraction (5.0) as the integers they are, at any depth (JSON Schema's "integer" allows
    them, a strict pydantic int does not)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


class RequestBody(BaseModel):
    """A JSON request body: types as documented, no coercion ("yes" or 1 is not a boolean, 5 is not text; 5.0 is
    the integer 5, as in JSON Schema)."""

    model_config = ConfigDict(strict=True, json_schema_extra=document_required)

    @model_validator(mode="before")
    @classmethod
    def _whole_numbers(cls, data: Any) -> Any:
        return _integral(data)


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
    415: "The body's Content-Encoding is not one this route reads",
    429: "Too many requests; try again after Retry-After seconds",
    502: "The model server failed",
    503: "Not available now (the model server, or the workers that compare or check files, are busy); try again later",
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


def text(
    max_length: int,
    description: str = "",
    default: str = "",
    *,
    required: bool = False,
    not_blank: bool = False,
    min_length: int = 0,
) -> Any:
    """A text field of a request body whose length the service checks: one rule and one message for
    the API and the UI (which calls the same service). The limits are documented here (maxLength; a
    required field, a text that may not be blank or empty), not enforced by pydantic, whose message would
    differ; the body cap (413) bounds what arrives."""
    extra: dict[str, Any] = {"maxLength": max_length}
    if not_blank:
        extra.update(minLength=1, pattern=NOT_BLANK)
    elif min_length:
        extra["minLength"] = min_length
    if required:
        extra[REQUIRED] = True
    return Field(default, description=description or None, json_schema_extra=extra)


def integer_text(minimum: int, maximum: int) -> WithJsonSchema:
    """How a query parameter the service reads from text (in its own words) is documented: an integer from
    `minimum` to `maximum`, or empty for the default as when left out (the service may accept more: leading
    zeros, spaces)."""
    return WithJsonSchema(
        {"anyOf": [{"type": "integer", "minimum": minimum, "maximum": maximum}, {"type": "string", "enum": [""]}]}
    )


def choice_text(values: Iterable[str | None]) -> WithJsonSchema:
    """How a text the service checks against a list is documented: one of `values` ("" or None where the
    service reads them as the default)."""
    choices = list(values)
    kinds = ["string", "null"] if None in choices else "string"
    return WithJsonSchema({"type": kinds, "enum": choices})
