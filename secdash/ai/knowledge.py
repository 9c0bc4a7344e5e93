"""The offline engine's knowledge base: attacks and their mitigations, the OWASP Top 10 (2021),
security headers, incident response and the sites' own status. Every answer of the offline engine
is built from here and from the live facts of `secdash/ai/situation.py`.

The words users say instead of an entry's keywords are secdash/ai/knowledge_aliases.py;
`CONTAINMENT` the first move when the attack is going on now; `HEADER_FIXES` and `FINDING_FIXES`
what to do about each header finding of the monitor and each rule of the code scanner."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    keywords: tuple[str, ...]
    summary: str
    mitigations: tuple[str, ...]


ENTRIES: tuple[Entry, ...] = (
    Entry(
        "ddos",
        "Distributed denial of service (DDoS)",
        ("ddos", "denial of service", "flood", "traffic spike", "syn flood", "botnet", "volumetric", "rate limit"),
        "A DDoS attack exhausts bandwidth, connections or application workers with traffic from many sources.",
        (
            "Put the sites behind a CDN or scrubbing service with anycast capacity",
            "Rate-limit per client IP and per route at the edge and in the application",
            "Enable SYN cookies and connection limits on the load balancer",
            "Cache static and anonymous pages so floods do not reach the application",
            "Keep an upstream provider runbook to null-route or divert attack traffic",
        ),
    ),
    Entry(
        "sql_injection",
        "SQL injection (OWASP A03 Injection)",
        ("sql injection", "sqli", "injection", "union select", "' or 1=1", "database query", "sql"),
        "SQL injection happens when user input is concatenated into a query and changes its meaning.",
        (
            "Use parameterized queries or an ORM everywhere; never build SQL by string concatenation",
            "Validate input against allow-lists (types, lengths, formats)",
            "Run the application with a least-privilege database account",
            "Add a WAF rule set for injection patterns as a second layer",
            "Scan the code for concatenated SQL (the Security Scan flags it)",
        ),
    ),
    Entry(
        "xss",
        "Cross-site scripting (XSS)",
        ("xss", "cross-site scripting", "script injection", "innerhtml", "document.write", "javascript injection"),
        "XSS runs attacker-controlled script in a visitor's browser, stealing sessions or acting as the user.",
        (
            "Encode output by context; render text with textContent, not innerHTML",
            "Set a strict Content-Security-Policy without 'unsafe-inline'",
            "Mark session cookies HttpOnly and SameSite",
            "Sanitize any HTML you must accept with a maintained sanitizer",
            "Remove inline event handlers so a strict CSP can be enforced",
        ),
    ),
    Entry(
        "malware",
        "Malware and web shells",
        ("malware", "virus", "trojan", "web shell", "webshell", "ransomware", "backdoor", "rootkit", "infected"),
        "Malware on a server or in an upload path gives attackers persistence and control.",
        (
            "Isolate the affected host from the network and preserve evidence",
            "Scan uploads and block executable content types",
            "Keep servers patched and run file-integrity monitoring",
            "Restore from known-good backups and rotate every credential the host held",
            "Use application allow-listing on servers",
        ),
    ),
    Entry(
        "brute_force",
        "Brute force and credential stuffing",
        (
            "brute force",
            "brute-force",
            "credential stuffing",
            "password guessing",
            "login attempts",
            "lockout",
            "password spraying",
        ),
        "Attackers try many passwords, or passwords leaked elsewhere, against login forms and APIs.",
        (
            "Lock out or slow down after repeated failures per account and per IP (SecDash does 5 per e-mail in 5 "
            "minutes, 20 per IP per minute)",
            "Require multi-factor authentication for administrators",
            "Check new passwords against breached-password lists",
            "Alert on bursts of failed logins in the audit trail",
            "Give one generic error message for every login failure",
        ),
    ),
    Entry(
        "phishing",
        "Phishing and social engineering",
        ("phishing", "spear phishing", "social engineering", "fake login", "spoofed email", "dmarc", "spf", "dkim"),
        "Phishing tricks users into giving credentials or running malware through convincing messages.",
        (
            "Publish SPF, DKIM and a DMARC policy of quarantine or reject for every sending domain",
            "Use phishing-resistant MFA (security keys or passkeys) for staff",
            "Train users to report suspicious messages and make reporting one click",
            "Block newly registered look-alike domains at the mail gateway",
            "Revoke sessions and reset credentials of anyone who entered a password",
        ),
    ),
    Entry(
        "broken_access_control",
        "Broken access control (OWASP A01)",
        ("access control", "authorization", "privilege escalation", "idor", "insecure direct object", "permissions", "role"),
        "Users act outside their permissions: reading other users' data, calling admin functions, changing IDs.",
        (
            "Deny by default and check authorization on the server for every request",
            "Check object ownership, not just authentication, on every record access",
            "Keep role checks in one service layer rather than in the UI",
            "Log access-control failures and alert on repeats",
        ),
    ),
    Entry(
        "cryptographic_failures",
        "Cryptographic failures (OWASP A02)",
        ("encryption", "tls", "certificate", "ssl", "hash", "weak cipher", "plaintext", "cryptographic"),
        "Sensitive data is exposed through missing or weak encryption, or weak password hashing.",
        (
            "Serve everything over TLS 1.2+ with HSTS; renew certificates before 14 days remain",
            "Hash passwords with argon2id or bcrypt, never a fast hash",
            "Encrypt sensitive data at rest and keep keys in a secrets manager",
            "Disable legacy protocols and weak cipher suites",
        ),
    ),
    Entry(
        "insecure_design",
        "Insecure design (OWASP A04)",
        ("insecure design", "threat model", "design flaw", "business logic"),
        "Flaws in the design itself, such as missing limits on sensitive flows, that no patch can fix.",
        (
            "Threat-model new features before building them",
            "Put rate limits on business flows",
            "Write abuse cases next to use cases and test them",
        ),
    ),
    Entry(
        "security_misconfiguration",
        "Security misconfiguration (OWASP A05)",
        ("misconfiguration", "default password", "debug mode", "directory listing", "open bucket", "verbose errors"),
        "Default settings, debug modes, open storage or verbose errors give attackers an easy start.",
        (
            "Harden and automate configuration; no default credentials",
            "Turn off debug and stack traces in production",
            "Review cloud storage permissions",
            "Send the recommended security headers",
        ),
    ),
    Entry(
        "vulnerable_components",
        "Vulnerable and outdated components (OWASP A06)",
        ("outdated", "dependency", "library", "cve", "patch", "supply chain", "component", "npm", "pypi"),
        "Known-vulnerable libraries and frameworks are a common entry point.",
        (
            "Keep an inventory of dependencies with versions (SBOM)",
            "Subscribe to advisories and patch on a schedule",
            "Pin and verify dependencies; remove unused ones",
            "Scan builds for known CVEs",
        ),
    ),
    Entry(
        "auth_failures",
        "Identification and authentication failures (OWASP A07)",
        ("session", "authentication", "mfa", "2fa", "token", "jwt", "session fixation"),
        "Weak session handling or authentication lets attackers take over accounts.",
        (
            "Use server-side sessions that can be revoked; expire tokens",
            "Pin the JWT algorithm and require exp",
            "Offer and enforce MFA for privileged users",
            "Rotate session identifiers at login",
        ),
    ),
    Entry(
        "integrity_failures",
        "Software and data integrity failures (OWASP A08)",
        ("integrity", "deserialization", "pickle", "ci/cd", "unsigned update", "subresource integrity"),
        "Code or data is trusted without verifying its integrity: unsafe deserialization, unsigned updates.",
        (
            "Never unpickle or deserialize untrusted data",
            "Sign releases and verify signatures",
            "Use Subresource Integrity for third-party scripts",
            "Protect the CI/CD pipeline like production",
        ),
    ),
    Entry(
        "logging_failures",
        "Security logging and monitoring failures (OWASP A09)",
        ("logging", "monitoring", "audit", "alerting", "detection", "siem"),
        "Without logs and alerts, breaches go unnoticed for months.",
        (
            "Audit logins, failures, permission changes and admin actions",
            "Alert on anomalies in near real time",
            "Keep logs tamper-evident and retained long enough for investigations",
            "Never log secrets or full request bodies",
        ),
    ),
    Entry(
        "ssrf",
        "Server-side request forgery (OWASP A10)",
        ("ssrf", "server-side request forgery", "metadata endpoint", "169.254.169.254", "internal network"),
        "The server is made to fetch attacker-chosen URLs, reaching internal services or cloud metadata.",
        (
            "Allow only http and https and resolve the host before fetching",
            "Refuse private and link-local addresses",
            "Re-check every redirect hop",
            "Use network egress rules as a second layer",
        ),
    ),
    Entry(
        "secrets_exposure",
        "Secrets committed to code",
        ("secret", "api key", "aws key", "credential", "password in code", "token leak", "hardcoded"),
        "Keys and passwords in source code leak through repositories, builds and logs.",
        (
            "Revoke and rotate the exposed key immediately; assume it was copied",
            "Move secrets to environment variables or a secrets manager",
            "Scan every commit for secrets (the Security Scan runs detect-secrets)",
            "Purge the secret from history only after it is rotated",
        ),
    ),
    Entry(
        "api_abuse",
        "API abuse and scraping",
        ("api", "scraping", "bot", "abuse", "rate limiting", "enumeration"),
        "Automated clients scrape data or abuse API endpoints beyond intended use.",
        (
            "Authenticate API clients and rate-limit per key",
            "Detect enumeration patterns and block them",
            "Return only the fields a client needs",
            "Monitor unusual volumes per client",
        ),
    ),
    Entry(
        "security_headers",
        "Security headers",
        (
            "header",
            "headers",
            "csp",
            "content-security-policy",
            "hsts",
            "strict-transport-security",
            "x-frame-options",
            "clickjacking",
            "nosniff",
            "referrer-policy",
            "grade",
        ),
        "Response headers tell browsers to block whole classes of attacks; the monitor grades them.",
        (
            "Content-Security-Policy: default-src 'self'; frame-ancestors 'none'; object-src 'none'",
            "Strict-Transport-Security: max-age=63072000; includeSubDomains (https only)",
            "X-Frame-Options: DENY (or CSP frame-ancestors)",
            "X-Content-Type-Options: nosniff",
            "Referrer-Policy: strict-origin-when-cross-origin",
            "Cookies: Secure; HttpOnly; SameSite=Lax",
        ),
    ),
    Entry(
        "incident_response",
        "Incident response",
        (
            "incident",
            "response",
            "breach",
            "compromised",
            "what should i do",
            "under attack",
            "containment",
            "recovery",
            "forensics",
        ),
        "Work the NIST cycle: prepare, detect and analyse, contain, eradicate, recover, learn.",
        (
            "Contain first: isolate affected hosts, block attacker IPs, revoke exposed sessions and keys",
            "Preserve evidence: snapshots, logs and the audit trail before changing systems",
            "Eradicate the cause: patch, remove persistence, rotate credentials",
            "Recover from known-good backups and watch closely for recurrence",
            "Write the lessons learned and update runbooks",
        ),
    ),
    Entry(
        "site_status",
        "Site status",
        ("site status", "is it safe", "safe", "status", "health", "healthy", "down", "online", "uptime"),
        "What SecDash's monitor and scanner see on the site right now.",
        (
            "Fix what the monitor flags first: an ALERT site, then missing security headers",
            "Fix the open code findings of the Security Scan, most severe first",
            "Resolve events once the cause is gone, so open alerts mean open problems",
        ),
    ),
)
BY_ID = {entry.id: entry for entry in ENTRIES}
SITE_TOKEN = "sitename"  # noqa: S105  (a retrieval word standing for a monitored site named in a question)

# The first move when the attack is going on now (an active incident).
CONTAINMENT: dict[str, str] = {
    "ddos": "Turn on the CDN's or provider's DDoS protection (under-attack mode) now, rate-limit the hot routes "
    "and block the top source networks at the edge",
    "sql_injection": "Block the attacking addresses and the injected pattern at the WAF now, and take the affected "
    "query offline until it is parameterized",
    "xss": "Remove or disable the injected content now and ship a strict Content-Security-Policy; revoke sessions "
    "that may have been stolen",
    "malware": "Isolate the infected host from the network now (keep it running for forensics) and block its "
    "outbound connections",
    "brute_force": "Block or rate-limit the source addresses (the whole range) at the firewall or WAF now, and "
    "force a password reset plus MFA on the targeted accounts",
    "phishing": "Pull the message from every mailbox, block the sender and the link's domain now, and reset the "
    "credentials of anyone who clicked",
    "api_abuse": "Throttle or block the abusing API keys and addresses now",
    "secrets_exposure": "Revoke the exposed key now; assume it was copied the moment it was pushed",
    "incident_response": "Contain first: isolate affected hosts and block the attacker's access now",
}

# What to add or change for each finding of the monitor's header grader (matched by its beginning).
HEADER_FIXES: tuple[tuple[str, str], ...] = (
    (
        "Content-Security-Policy allows unsafe",
        "move inline scripts into files and drop 'unsafe-inline' and 'unsafe-eval' from script-src",
    ),
    (
        "Content-Security-Policy",
        "add `Content-Security-Policy: default-src 'self'; frame-ancestors 'none'; "
        "object-src 'none'` (try it as Content-Security-Policy-Report-Only first to see what it would block)",
    ),
    (
        "Strict-Transport-Security max-age",
        "raise max-age to at least 15552000 (180 days): `Strict-Transport-Security: max-age=63072000; includeSubDomains`",
    ),
    ("Strict-Transport-Security", "add `Strict-Transport-Security: max-age=63072000; includeSubDomains` (served over https)"),
    ("X-Frame-Options", "add `X-Frame-Options: DENY` (or CSP `frame-ancestors 'none'`) against clickjacking"),
    ("X-Content-Type-Options", "add `X-Content-Type-Options: nosniff`"),
    ("Referrer-Policy", "add `Referrer-Policy: strict-origin-when-cross-origin`"),
    ("Cookie without the Secure", "set `Secure` on every cookie (https only)"),
    ("Cookie without the HttpOnly", "set `HttpOnly` on session cookies so scripts cannot read them"),
    ("Cookie without a SameSite", "set `SameSite=Lax` (or Strict) on every cookie"),
)

# What to do about each code-scanner rule (matched by its beginning); others go through retrieval.
FINDING_FIXES: tuple[tuple[str, str, str], ...] = (
    ("js:eval", "xss", "replace eval() with JSON.parse or explicit code; never run strings as code"),
    ("js:new-function", "xss", "replace new Function() with explicit code; never run strings as code"),
    ("js:sql-concatenation", "sql_injection", "use a parameterized query instead of string concatenation"),
    ("js:innerHTML", "xss", "render text with textContent, not innerHTML (or sanitize the HTML first)"),
    ("js:document.write", "xss", "build the DOM with createElement/textContent instead of document.write()"),
    (
        "html:inline-event-handler",
        "security_headers",
        "move inline on...= handlers into a script file (addEventListener) so a strict CSP can be enforced",
    ),
    (
        "secret:",
        "secrets_exposure",
        "revoke and rotate the key now, then move it to an environment variable or a secrets manager",
    ),
    ("bandit:B105", "secrets_exposure", "move the password out of the code into configuration or a secrets manager"),
    ("bandit:B106", "secrets_exposure", "move the password out of the code into configuration or a secrets manager"),
    ("bandit:B301", "integrity_failures", "never unpickle untrusted data; use JSON"),
    ("bandit:B608", "sql_injection", "use a parameterized query instead of building SQL from strings"),
    ("bandit:B602", "sql_injection", "call the program with an argument list and shell=False"),
)
