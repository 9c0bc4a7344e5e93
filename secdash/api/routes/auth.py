"""Sign-in, the current user, sign-out and the provider-login entry point."""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse

from secdash.api.deps import SESSION_COOKIE, AppSettings, CurrentUser, DbSession, client_ip, request_token
from secdash.api.schemas import COMMON_ERRORS, MessageBody, RequestBody, errors, text
from secdash.core.config import Settings
from secdash.models.public import LoginPublic, UserPublic
from secdash.routes import LOGIN_ROUTE
from secdash.services.identity import auth
from secdash.services.identity.verified_sessions import verified_sessions

router = APIRouter(prefix="/api", tags=["auth"], responses=COMMON_ERRORS)


class LoginRequest(RequestBody):
    email: str = text(auth.MAX_EMAIL_LENGTH, "The account's e-mail address", required=True, not_blank=True)
    password: str = text(auth.MAX_PASSWORD_LENGTH, required=True, min_length=1)


def _set_session_cookie(response: Response, token: str, settings: Settings) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.token_ttl_seconds,
        httponly=True,
        samesite="lax",
        secure=settings.COOKIE_SECURE,
        path="/",
    )


def _clear_session_cookie(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")


@router.post("/auth/login", response_model=LoginPublic, responses=errors(401, 429))
async def login(
    body: LoginRequest, request: Request, response: Response, session: DbSession, settings: AppSettings
) -> LoginPublic:
    result = await auth.login(
        session=session,
        settings=settings,
        email=body.email,
        password=body.password,
        ip=client_ip(request),
        user_agent=request.headers.get("user-agent", ""),
    )
    _set_session_cookie(response, result.token, settings)
    return LoginPublic(token=result.token, user=result.user)


@router.post(
    "/auth/session-cookie",
    status_code=204,
    response_model=None,
    responses=errors(401),
    openapi_extra={"security": [{"HTTPBearer": []}]},
)
async def create_session_cookie(request: Request, session: DbSession, settings: AppSettings) -> Response:
    """Turn a valid bearer token (header only, never the cookie) into the HttpOnly session cookie."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip() if scheme.lower() == "bearer" else ""
    await auth.authenticate(session=session, settings=settings, token=token or None)
    response = Response(status_code=204)
    _set_session_cookie(response, token, settings)
    return response


@router.get("/auth/user", response_model=UserPublic, responses=errors(401))
async def read_current_user(user: CurrentUser) -> UserPublic:
    return user


@router.post("/auth/logout", response_model=MessageBody)
async def logout(request: Request, session: DbSession, settings: AppSettings) -> Response:
    token = request_token(request)
    revoked = await auth.logout(session=session, settings=settings, token=token)
    if token:
        verified_sessions.forget(token)  # this process's reads see the logout at once
    response = JSONResponse({"message": "Logged out" if revoked else "No active session"})
    _clear_session_cookie(response)
    return response


def _started_elsewhere(request: Request) -> bool:
    """Whether a navigation came from another origin (another site, or another port of this host).

    Browsers send Sec-Fetch-Site on every navigation; older ones are judged by Origin/Referer.
    """
    fetch_site = request.headers.get("sec-fetch-site")
    if fetch_site is not None:
        return fetch_site not in ("same-origin", "none")
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source:
        return False
    parts = urlsplit(source)
    return (parts.scheme, parts.netloc) != (request.url.scheme, request.headers.get("host", request.url.netloc))


@router.get("/auth/logout", status_code=303, response_class=RedirectResponse, response_model=None)
async def logout_and_leave(request: Request, session: DbSession, settings: AppSettings) -> Response:
    """Full-page logout from the navigation bar: revoke, clear the cookie, back to the landing page.

    A link or form on another origin cannot sign the user out: it only lands on the landing page.
    """
    if _started_elsewhere(request):
        return RedirectResponse("/", status_code=303)
    token = request.cookies.get(SESSION_COOKIE)
    await auth.logout(session=session, settings=settings, token=token)
    if token:
        verified_sessions.forget(token)
    response = RedirectResponse("/", status_code=303)
    _clear_session_cookie(response)
    return response


@router.get("/login", status_code=303, response_class=RedirectResponse, response_model=None)
async def provider_login() -> Response:
    """No external identity provider is configured: send the visitor to the admin login page."""
    return RedirectResponse(LOGIN_ROUTE, status_code=303)
