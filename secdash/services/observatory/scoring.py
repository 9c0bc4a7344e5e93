"""The reference's score table, extra-credit rule and letter scale (MDN HTTP Observatory, algorithm version 4).

Source: the published scoring documentation ("Tests & Scoring") and the score table of mdn/mdn-http-observatory
(`src/grader/charts.js`, release 1.4.8). Every result of every test has one modifier; a site starts at 100, loses
every negative modifier, and only when that is still 90 or more (an A) are the positive modifiers added too.
The letter comes from the score rounded down to a multiple of 5 (100 and above: A+; under 25: F).

Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy are the reference repository's two newest tests:
its analyzers report them, but the published release's score table has no entry for them, so every result of
theirs has modifier 0 here (they are shown, they never move the score).
"""

from __future__ import annotations

# Test names in the order the reference reports them (its ALL_TESTS), then the two newest.
TEST_ORDER = (
    "content-security-policy",
    "cookies",
    "cross-origin-resource-sharing",
    "redirection",
    "referrer-policy",
    "strict-transport-security",
    "subresource-integrity",
    "x-content-type-options",
    "x-frame-options",
    "cross-origin-resource-policy",
    "cross-origin-opener-policy",
    "cross-origin-embedder-policy",
)

TEST_TITLES = {
    "content-security-policy": "Content Security Policy (CSP)",
    "cookies": "Cookies",
    "cross-origin-resource-sharing": "Cross Origin Resource Sharing (CORS)",
    "redirection": "Redirection",
    "referrer-policy": "Referrer Policy",
    "strict-transport-security": "Strict Transport Security (HSTS)",
    "subresource-integrity": "Subresource Integrity",
    "x-content-type-options": "X-Content-Type-Options",
    "x-frame-options": "X-Frame-Options",
    "cross-origin-resource-policy": "Cross Origin Resource Policy",
    "cross-origin-opener-policy": "Cross Origin Opener Policy",
    "cross-origin-embedder-policy": "Cross Origin Embedder Policy",
}

# result -> (modifier, what it means)
SCORE_TABLE: dict[str, tuple[int, str]] = {
    # Content Security Policy
    "csp-implemented-with-no-unsafe-default-src-none": (
        10,
        "CSP implemented with default-src 'none', no 'unsafe' and form-action set to 'none' or 'self'",
    ),
    "csp-implemented-with-no-unsafe": (5, "CSP implemented without 'unsafe-inline' or 'unsafe-eval'"),
    "csp-implemented-with-unsafe-inline-in-style-src-only": (
        0,
        "CSP implemented with unsafe sources ('unsafe-inline', data: or overly broad sources) in style-src only",
    ),
    "csp-implemented-with-insecure-scheme-in-passive-content-only": (
        -10,
        "CSP implemented, but a secure site allows images or media to be loaded over HTTP",
    ),
    "csp-implemented-with-unsafe-eval": (-10, "CSP implemented, but allows 'unsafe-eval'"),
    "csp-implemented-with-unsafe-inline": (
        -20,
        "CSP implemented unsafely: 'unsafe-inline' or data: in script-src, overly broad sources in script-src "
        "or object-src, or script-src/object-src not restricted",
    ),
    "csp-implemented-with-insecure-scheme": (-20, "CSP implemented, but a secure site allows resources to be loaded over HTTP"),
    "csp-header-invalid": (-25, "Content-Security-Policy header cannot be parsed successfully"),
    "csp-not-implemented": (-25, "Content-Security-Policy header not implemented"),
    "csp-not-implemented-but-reporting-enabled": (
        -25,
        "Content-Security-Policy only in report-only mode (Content-Security-Policy-Report-Only)",
    ),
    "csp-implemented-but-duplicate-directives": (0, "CSP implemented, but contains duplicate report directives"),
    # Cookies
    "cookies-secure-with-httponly-sessions-and-samesite": (
        5,
        "All cookies use Secure, session cookies use HttpOnly, and SameSite is set",
    ),
    "cookies-secure-with-httponly-sessions": (0, "All cookies use Secure and session cookies use HttpOnly"),
    "cookies-not-found": (0, "No cookies detected"),
    "cookies-without-secure-flag-but-protected-by-hsts": (
        -5,
        "Cookies set without the Secure flag, but transmission over HTTP prevented by HSTS",
    ),
    "cookies-session-without-secure-flag-but-protected-by-hsts": (
        -10,
        "Session cookie set without the Secure flag, but transmission over HTTP prevented by HSTS",
    ),
    "cookies-without-secure-flag": (-20, "Cookies set without the Secure flag or set over HTTP"),
    "cookies-samesite-flag-invalid": (-20, "Cookies use SameSite, but set to something other than Strict, Lax or None"),
    "cookies-anticsrf-without-samesite-flag": (-20, "Anti-CSRF tokens set without the SameSite flag"),
    "cookies-session-without-httponly-flag": (-30, "Session cookie set without the HttpOnly flag"),
    "cookies-session-without-secure-flag": (-40, "Session cookie set without the Secure flag or set over HTTP"),
    # CORS
    "cross-origin-resource-sharing-not-implemented": (0, "Content is not visible via cross-origin resource sharing"),
    "cross-origin-resource-sharing-implemented-with-public-access": (
        0,
        "Public content is visible via Access-Control-Allow-Origin: *",
    ),
    "cross-origin-resource-sharing-implemented-with-restricted-access": (
        0,
        "Content is visible via CORS, restricted to specific origins",
    ),
    "cross-origin-resource-sharing-implemented-with-universal-access": (
        -50,
        "Content is visible via CORS to any origin, with credentials",
    ),
    # Redirection
    "redirection-all-redirects-preloaded": (0, "All hosts redirected to are in the HSTS preload list"),
    "redirection-to-https": (0, "Initial redirection is to HTTPS on the same host, final destination is HTTPS"),
    "redirection-not-needed-no-http": (0, "Not able to connect over HTTP, so no redirection necessary"),
    "redirection-off-host-from-http": (-5, "Initial redirection from HTTP to HTTPS is to a different host"),
    "redirection-not-to-https-on-initial-redirection": (
        -10,
        "Redirects to HTTPS eventually, but the initial redirection is to another HTTP URL",
    ),
    "redirection-not-to-https": (-20, "Redirects, but the final destination is not an HTTPS URL"),
    "redirection-missing": (-20, "Does not redirect to an HTTPS site"),
    "redirection-invalid-cert": (-20, "Invalid certificate chain encountered during redirection"),
    # Referrer-Policy
    "referrer-policy-private": (
        5,
        "Referrer-Policy set to no-referrer, same-origin, strict-origin or strict-origin-when-cross-origin",
    ),
    "referrer-policy-not-implemented": (0, "Referrer-Policy header not implemented"),
    "referrer-policy-unsafe": (
        -5,
        "Referrer-Policy set unsafely to origin, origin-when-cross-origin, unsafe-url or no-referrer-when-downgrade",
    ),
    "referrer-policy-header-invalid": (-5, "Referrer-Policy header cannot be recognized"),
    # Strict-Transport-Security
    "hsts-preloaded": (5, "Preloaded via the HSTS preloading process"),
    "hsts-implemented-max-age-at-least-six-months": (0, "Strict-Transport-Security max-age at least six months"),
    "hsts-implemented-max-age-less-than-six-months": (-10, "Strict-Transport-Security max-age under six months"),
    "hsts-not-implemented": (-20, "Strict-Transport-Security header not implemented"),
    "hsts-header-invalid": (-20, "Strict-Transport-Security header cannot be recognized"),
    "hsts-not-implemented-no-https": (-20, "Strict-Transport-Security cannot be set for a site not available over HTTPS"),
    "hsts-invalid-cert": (-20, "Strict-Transport-Security cannot be set: the site's certificate chain is invalid"),
    # Subresource Integrity
    "sri-implemented-and-all-scripts-loaded-securely": (
        5,
        "Subresource Integrity implemented and all scripts loaded from a similar origin",
    ),
    "sri-implemented-and-external-scripts-loaded-securely": (
        5,
        "Subresource Integrity implemented and all scripts loaded securely",
    ),
    "sri-not-implemented-response-not-html": (0, "Subresource Integrity is only needed for HTML"),
    "sri-not-implemented-but-no-scripts-loaded": (0, "Subresource Integrity not needed: the page has no scripts"),
    "sri-not-implemented-but-all-scripts-loaded-from-secure-origin": (
        0,
        "Subresource Integrity not implemented, but all scripts are loaded from a similar origin",
    ),
    "sri-not-implemented-but-external-scripts-loaded-securely": (
        -5,
        "Subresource Integrity not implemented, but all external scripts are loaded over HTTPS",
    ),
    "sri-implemented-but-external-scripts-not-loaded-securely": (
        -20,
        "Subresource Integrity implemented, but external scripts are loaded over HTTP or protocol-relative URLs",
    ),
    "sri-not-implemented-and-external-scripts-not-loaded-securely": (
        -50,
        "Subresource Integrity not implemented, and external scripts are loaded over HTTP or protocol-relative URLs",
    ),
    # X-Content-Type-Options
    "x-content-type-options-nosniff": (0, "X-Content-Type-Options set to nosniff"),
    "x-content-type-options-not-implemented": (-5, "X-Content-Type-Options header not implemented"),
    "x-content-type-options-header-invalid": (-5, "X-Content-Type-Options header cannot be recognized"),
    # X-Frame-Options
    "x-frame-options-implemented-via-csp": (5, "X-Frame-Options implemented via the CSP frame-ancestors directive"),
    "x-frame-options-sameorigin-or-deny": (0, "X-Frame-Options set to SAMEORIGIN or DENY"),
    "x-frame-options-allow-from-origin": (0, "X-Frame-Options uses the ALLOW-FROM directive"),
    "x-frame-options-not-implemented": (-20, "X-Frame-Options header not implemented"),
    "x-frame-options-header-invalid": (-20, "X-Frame-Options header cannot be recognized"),
    # Cross-Origin-Resource-Policy
    "corp-header-invalid": (-5, "Cross-Origin-Resource-Policy header cannot be recognized"),
    "corp-implemented-with-cross-origin": (0, "Cross-Origin-Resource-Policy allows cross-origin loading"),
    "corp-implemented-with-same-origin": (10, "Cross-Origin-Resource-Policy prevents leaks into cross-origin contexts"),
    "corp-implemented-with-same-site": (10, "Cross-Origin-Resource-Policy prevents leaks into cross-site contexts"),
    "corp-not-implemented": (0, "Cross-Origin-Resource-Policy not implemented (defaults to cross-origin)"),
    # Cross-Origin-Opener-Policy (reported, not scored: see the module docstring)
    "coop-not-implemented": (0, "Cross-Origin-Opener-Policy not implemented"),
    "coop-implemented-with-same-origin": (0, "Cross-Origin-Opener-Policy set to same-origin"),
    "coop-implemented-with-same-origin-allow-popups": (0, "Cross-Origin-Opener-Policy set to same-origin-allow-popups"),
    "coop-implemented-with-noopener-allow-popups": (0, "Cross-Origin-Opener-Policy set to noopener-allow-popups"),
    "coop-implemented-with-unsafe-none": (0, "Cross-Origin-Opener-Policy set to unsafe-none"),
    "coop-header-invalid": (0, "Cross-Origin-Opener-Policy header cannot be recognized"),
    # Cross-Origin-Embedder-Policy (reported, not scored)
    "coep-not-implemented": (0, "Cross-Origin-Embedder-Policy not implemented"),
    "coep-implemented-with-require-corp": (0, "Cross-Origin-Embedder-Policy set to require-corp"),
    "coep-implemented-with-credentialless": (0, "Cross-Origin-Embedder-Policy set to credentialless"),
    "coep-implemented-with-unsafe-none": (0, "Cross-Origin-Embedder-Policy set to unsafe-none"),
    "coep-header-invalid": (0, "Cross-Origin-Embedder-Policy header cannot be recognized"),
    # Generic
    "html-not-parseable": (-20, "Claims to be HTML, but cannot be parsed"),
}

MINIMUM_SCORE_FOR_EXTRA_CREDIT = 90
GRADE_CHART = (
    (100, "A+"),
    (90, "A"),
    (85, "A-"),
    (80, "B+"),
    (70, "B"),
    (65, "B-"),
    (60, "C+"),
    (50, "C"),
    (45, "C-"),
    (40, "D+"),
    (30, "D"),
    (25, "D-"),
)


def modifier(result: str) -> int:
    """The score modifier of one result (KeyError for a result the reference does not have)."""
    return SCORE_TABLE[result][0]


def description(result: str) -> str:
    return SCORE_TABLE[result][1]


def final_score(modifiers: list[int]) -> int:
    """100 plus the penalties; plus the bonuses only when the penalties alone leave an A (90+); never below 0."""
    uncurved = 100 + sum(m for m in modifiers if m < 0)
    score = 100 + sum(modifiers) if uncurved >= MINIMUM_SCORE_FOR_EXTRA_CREDIT else uncurved
    return max(score, 0)


def letter(score: int) -> str:
    """The letter of a score: its multiple of 5 below it on the reference's chart (100 and above: A+)."""
    floor = min(max(score, 0) // 5 * 5, 100)
    return next((grade for threshold, grade in GRADE_CHART if floor >= threshold), "F")
