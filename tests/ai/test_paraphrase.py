"""The offline engine's matching survives paraphrase: natural questions reach the right topic.

The table was written as users ask (the issue's own examples first), not from the knowledge base's
keywords. At least 90% must reach their topic; the assertion lists every miss."""

from __future__ import annotations

from secdash.ai.agents import AGENTS
from secdash.ai.retrieval import retrieve

QUESTIONS: tuple[tuple[str, str | tuple[str, ...]], ...] = (
    # brute force
    ("We see 5000 failed logins per minute from one IP range, what do we do?", "brute_force"),
    ("Lots of failed logins on the admin account", "brute_force"),
    ("How do we defend against password spraying?", "brute_force"),
    ("Is credential stuffing a risk for our customer accounts?", "brute_force"),
    ("Someone keeps guessing passwords on the login form", "brute_force"),
    ("An account got locked out after hundreds of wrong passwords", "brute_force"),
    # denial of service
    ("Our site is down and flooded right now", "ddos"),
    ("Traffic spiked to 50x normal and the servers can't keep up", "ddos"),
    ("Is there a DDoS risk?", "ddos"),
    ("Millions of requests per second are hitting the checkout", "ddos"),
    ("How can we keep the site available during a traffic flood?", "ddos"),
    # SQL injection
    ("Someone typed ' OR 1=1 -- into the search box", "sql_injection"),
    ("How do I stop attackers from injecting SQL into our queries?", "sql_injection"),
    ("The database returned every row when a user entered a quote in the form", "sql_injection"),
    # XSS
    ("What is XSS?", "xss"),
    ("A user's comment ran JavaScript in other visitors' browsers", "xss"),
    ("Can an attacker inject scripts into our pages?", "xss"),
    # malware
    ("Our antivirus flagged a file on the web server", "malware"),
    ("Files on the server were encrypted and there's a ransom note", "malware"),
    ("I think the server is infected with a virus", "malware"),
    # phishing
    ("An employee got an email asking to reset their password on a fake site", "phishing"),
    ("How do we protect staff from fraudulent emails?", "phishing"),
    ("Travelers received text messages pretending to be from us", "phishing"),
    # the sites themselves (live data)
    ("Is our Tour site safe?", "site_status"),
    ("How is the Stock site doing?", "site_status"),
    ("Is anything down right now?", "site_status"),
    ("What's wrong with Gem?", "site_status"),
    ("Give me a status report for Shares", "site_status"),
    ("Are our sites healthy?", "site_status"),
    # security headers
    ("Which security headers are we missing?", "security_headers"),
    ("How do I enable HSTS?", "security_headers"),
    ("How do we stop other sites from embedding our pages in an iframe?", "security_headers"),
    # cryptography and TLS
    ("Our TLS certificate expires next week", "cryptographic_failures"),
    ("Should we still store passwords as MD5?", "cryptographic_failures"),
    ("Is our traffic encrypted in transit?", "cryptographic_failures"),
    # SSRF
    ("Could someone make our server fetch the cloud metadata URL?", "ssrf"),
    ("The URL preview feature can reach internal services", "ssrf"),
    # secrets
    ("A developer pushed an AWS key to GitHub", "secrets_exposure"),
    ("We found hardcoded passwords in the repo", "secrets_exposure"),
    # components
    ("Are any of our npm packages outdated?", "vulnerable_components"),
    ("A new CVE was published for a library we use", "vulnerable_components"),
    # access control
    ("A normal user can open another customer's booking by changing the ID in the URL", "broken_access_control"),
    ("Limited users can reach admin pages", "broken_access_control"),
    # authentication and sessions
    ("Should we require two-factor authentication for admins?", "auth_failures"),
    ("Sessions never expire after logout", "auth_failures"),
    # incident response
    ("We've been hacked, what are the first steps?", "incident_response"),
    ("How should we respond to a security incident?", "incident_response"),
    # logging and monitoring
    ("Would we even notice an attacker in our logs?", "logging_failures"),
    ("What should we audit and alert on?", "logging_failures"),
    # API abuse
    ("Bots are scraping all our product prices through the API", "api_abuse"),
    ("Someone is enumerating user IDs via the API", "api_abuse"),
    # misconfiguration
    ("Debug mode is enabled on the production server", "security_misconfiguration"),
    ("Our S3 bucket is publicly readable", "security_misconfiguration"),
    # integrity
    ("Is it safe to unpickle data from users?", "integrity_failures"),
    # design
    ("How do we threat model a new booking feature?", "insecure_design"),
    # Two batches written blind, after the vocabulary above was tuned: 26/30 and then 16/20 reached
    # their topic before the misses were looked at (some are still missed). A tuple lists every topic
    # that answers the question well.
    ("Our checkout page keeps timing out because of a huge wave of traffic from bots", "ddos"),
    ("How do I rate limit login attempts?", "brute_force"),
    ("Someone is trying thousands of passwords against our SSH server", "brute_force"),
    ("We got an email from 'IT support' asking for our credentials", "phishing"),
    ("What's a good Content Security Policy for the Tour site?", "security_headers"),
    ("Is Shares up?", "site_status"),
    ("Why is Gem showing ALERT?", "site_status"),
    ("Can users see other people's orders by guessing the order number?", "broken_access_control"),
    ("Our search endpoint is vulnerable to SQL injection, how do we fix it?", "sql_injection"),
    ("An attacker could steal cookies through a script in the guestbook", "xss"),
    ("There's an unknown process mining cryptocurrency on the server", "malware"),
    ("Our database password is in the JavaScript bundle", "secrets_exposure"),
    ("How long should we keep audit logs?", "logging_failures"),
    ("Which dependencies have known vulnerabilities?", "vulnerable_components"),
    ("Our certificate is about to expire", "cryptographic_failures"),
    ("We should check the webhook URLs users register", "ssrf"),
    ("Is yaml.load safe?", "integrity_failures"),
    ("JWT tokens don't expire", "auth_failures"),
    ("Directory listing is on for the uploads folder", "security_misconfiguration"),
    ("What do we do after a data breach?", "incident_response"),
    ("A competitor is crawling our catalogue every night", "api_abuse"),
    ("The site has been unreachable for ten minutes", ("site_status", "ddos")),
    ("Are we vulnerable to clickjacking?", "security_headers"),
    ("Hackers keep trying to log in as admin", "brute_force"),
    ("The server is getting hammered with SYN packets", "ddos"),
    ("How do I sanitize user comments before displaying them?", "xss"),
    ("Someone uploaded a PHP shell through the image upload", "malware"),
    ("Staff are being targeted with fake invoices", "phishing"),
    ("Any open findings for Stock?", "site_status"),
    ("What grade does Tour get for its headers?", ("site_status", "security_headers")),
    ("Login page is getting a lot of bad password attempts from Russia", "brute_force"),
    ("How do we survive a botnet attack on Black Friday?", "ddos"),
    ("Customers complain the Gem site won't load", ("site_status", "ddos")),
    ("Someone put <script> tags into the booking notes", "xss"),
    ("The admin panel is reachable without logging in", ("broken_access_control", "auth_failures")),
    ("We use an old jQuery version", "vulnerable_components"),
    ("Our ops team got a call from someone claiming to be the bank", "phishing"),
    ("A laptop in accounting is showing ransomware popups", "malware"),
    ("How do I store API tokens safely?", "secrets_exposure"),
    ("Does Stock have any problems?", "site_status"),
    ("Error pages show full stack traces to visitors", "security_misconfiguration"),
    ("What happens if someone changes the price field in the request?", ("broken_access_control", "insecure_design")),
    ("Are passwords hashed properly?", "cryptographic_failures"),
    ("Attackers dumped our users table", ("sql_injection", "incident_response")),
    ("Who should we call first when we're breached?", "incident_response"),
    ("Can the image proxy be abused to scan our internal network?", "ssrf"),
    ("Should we sign our releases?", "integrity_failures"),
    ("How many failed sign-ins is too many before we lock the account?", "brute_force"),
    ("Nobody noticed the intrusion for three months", ("logging_failures", "incident_response")),
    ("Tour's response time went through the roof", ("site_status", "ddos")),
)


def _topic(question: str, agent_id: str = "general") -> str:
    found = retrieve(question, AGENTS[agent_id])
    return found[0].id if found else "(no match)"


def test_the_table_is_large_and_covers_every_topic():
    assert len(QUESTIONS) >= 40
    assert {"brute_force", "ddos", "site_status", "security_headers"} <= {topic for _q, topic in QUESTIONS}
    assert len({question.lower() for question, _topic in QUESTIONS}) == len(QUESTIONS)


def _reaches(question: str, expected: str | tuple[str, ...]) -> bool:
    return _topic(question) in ((expected,) if isinstance(expected, str) else expected)


def test_at_least_90_percent_of_natural_questions_reach_their_topic():
    misses = [(question, expected, _topic(question)) for question, expected in QUESTIONS if not _reaches(question, expected)]
    rate = 1 - len(misses) / len(QUESTIONS)
    listing = "\n".join(f"  {q!r}: wanted {want}, got {got}" for q, want, got in misses)
    assert rate >= 0.9, f"hit rate {rate:.0%} ({len(QUESTIONS) - len(misses)}/{len(QUESTIONS)}); misses:\n{listing}"


def test_the_issues_own_examples_always_reach_their_topic():
    for question in (
        "failed logins",
        "password spraying",
        "credential stuffing",
        "5000 failed logins per minute from one IP range",
    ):
        assert _topic(question) == "brute_force", question
    for agent_id in ("general", "tour"):
        assert _topic("is our Tour site safe?", agent_id) == "site_status"


def test_small_talk_matches_nothing():
    assert retrieve("What should we prioritise?", AGENTS["stock"]) == []
    assert retrieve("hello", AGENTS["general"]) == []


# --- operator questions about this deployment (issue item 10) --------------------------------------
# Written before the engine learned them (not tuned afterwards). `route` answers with the intent
# ("fix_priority", "flapping", "compare_sites", "changes_since"), "site_topic:<topic>" for a site
# named with an attack topic, or else the knowledge-base topic as above.
OPERATOR_QUESTIONS: tuple[tuple[str, str | tuple[str, ...]], ...] = (
    # ranking of this deployment's open problems
    ("What should I fix first?", "fix_priority"),
    ("Which problem should we tackle first?", "fix_priority"),
    ("Where do I start? There are so many alerts", "fix_priority"),
    ("Give me the top 3 things to fix today", "fix_priority"),
    ("What's the most urgent issue right now?", "fix_priority"),
    ("Prioritize our open findings for me", "fix_priority"),
    ("If I only have an hour, what should I work on?", "fix_priority"),
    ("Rank the open problems by risk", "fix_priority"),
    ("What are our biggest security risks right now?", "fix_priority"),
    ("Which vulnerabilities matter most?", "fix_priority"),
    ("What needs attention first across all sites?", "fix_priority"),
    ("Triage the open alerts, please", "fix_priority"),
    ("Which fixes are ready to apply?", "fix_priority"),
    ("What's the highest priority on Gem?", "fix_priority"),
    ("What do I fix first on Tour?", "fix_priority"),
    # a site and an attack topic together
    ("Is there a DDoS risk for our Stock site?", "site_topic:ddos"),
    ("Could Shares survive a traffic flood?", "site_topic:ddos"),
    ("How well is Tour protected against brute force?", "site_topic:brute_force"),
    ("Is Gem vulnerable to SQL injection?", "site_topic:sql_injection"),
    ("Can someone run XSS on the Tour site?", "site_topic:xss"),
    ("What rate limits does Stock have?", ("site_topic:ddos", "site_topic:brute_force")),
    ("How did the last DDoS drill on Shares go?", "site_topic:ddos"),
    ("Would Stock's login hold up against credential stuffing?", "site_topic:brute_force"),
    ("Is Gem protected from malware uploads?", "site_topic:malware"),
    ("Could attackers phish Tour's customers with look-alike links?", "site_topic:phishing"),
    ("How fast does Stock respond under heavy load?", "site_topic:ddos"),
    ("Does Shares block injection attacks?", "site_topic:sql_injection"),
    ("What's Gem's DDoS protection like?", "site_topic:ddos"),
    ("Is Tour ready for a botnet attack?", "site_topic:ddos"),
    # a pattern in a site's checks
    ("Why is Shares flapping?", "flapping"),
    ("Stock keeps going up and down, why?", "flapping"),
    ("Tour goes down every few minutes, what's the pattern?", "flapping"),
    ("Gem is intermittently unreachable", "flapping"),
    ("Why does Shares keep switching between ALERT and SECURE?", "flapping"),
    ("Is the Stock outage intermittent or constant?", "flapping"),
    ("Shares has been unstable all morning", "flapping"),
    ("The Tour site drops out now and then, is there a pattern?", "flapping"),
    ("Why do the checks for Gem fail on and off?", "flapping"),
    ("Stock alternates between up and down", "flapping"),
    ("How often does Shares fail its checks?", "flapping"),
    # two or more sites compared
    ("Compare Stock and Tour", "compare_sites"),
    ("Which is safer, Gem or Shares?", "compare_sites"),
    ("How does Tour stack up against Stock?", "compare_sites"),
    ("Is Shares in better shape than Gem?", "compare_sites"),
    ("Stock vs Tour: which one has more problems?", "compare_sites"),
    ("What's the difference between Gem and Tour security-wise?", "compare_sites"),
    ("Which of our sites is the weakest?", "compare_sites"),
    ("Rank our sites from best to worst", "compare_sites"),
    ("Is Stock faster than Shares?", "compare_sites"),
    ("Gem versus Shares headers grade", "compare_sites"),
    ("Which site got the better drill score, Tour or Gem?", "compare_sites"),
    # what changed lately
    ("What changed since yesterday?", "changes_since"),
    ("Anything new overnight?", "changes_since"),
    ("What happened in the last 24 hours?", "changes_since"),
    ("Give me a summary of today's changes", "changes_since"),
    ("What's different from yesterday on Stock?", "changes_since"),
    ("Did anything get fixed since yesterday?", "changes_since"),
    ("What's new since I last checked?", "changes_since"),
    ("Any new alerts since this morning?", "changes_since"),
    ("Catch me up on the last day", "changes_since"),
    ("What did I miss while I was away?", "changes_since"),
    ("Which problems were opened or closed today?", "changes_since"),
    ("Daily briefing please", "changes_since"),
    # the topics above must not be taken over by the new intents
    ("Is Stock up?", "site_status"),
    ("How do I set up rate limiting on our API?", ("api_abuse", "ddos", "brute_force")),
    ("What is a DDoS attack?", "ddos"),
    ("Status report for Gem please", "site_status"),
    ("How do we stop SQL injection in general?", "sql_injection"),
    # A second batch, written blind after the engine learned the first (67/68 above): 22/30 of these reached
    # their answer before the misses were looked at.
    ("What's the single most important thing to fix?", "fix_priority"),
    ("Which finding should I patch before the others?", "fix_priority"),
    ("Give me a prioritized to-do list", "fix_priority"),
    ("Where should the team spend its time this week?", "fix_priority"),
    ("What is the worst problem we have?", "fix_priority"),
    ("Order the open issues by urgency", "fix_priority"),
    ("Is Tour at risk of a DDoS attack?", "site_topic:ddos"),
    ("Can Stock withstand a flood of requests?", "site_topic:ddos"),
    ("Are Gem's logins safe from password guessing?", "site_topic:brute_force"),
    ("Has Shares been tested against XSS?", "site_topic:xss"),
    ("What happens if someone floods Gem with traffic?", "site_topic:ddos"),
    ("How exposed is Stock to SQL injection?", "site_topic:sql_injection"),
    ("Gem keeps dropping every hour", "flapping"),
    ("Why does Tour go offline periodically?", "flapping"),
    ("Shares checks are flaky, what's going on?", "flapping"),
    ("Stock was up, then down, then up again", "flapping"),
    ("Is there a rhythm to Gem's outages?", "flapping"),
    ("Tour or Shares, which needs more work?", "compare_sites"),
    ("How do Gem and Stock compare?", "compare_sites"),
    ("Which site is in the worst shape?", "compare_sites"),
    ("Is Tour more secure than Gem?", "compare_sites"),
    ("Side by side: Stock and Shares", "compare_sites"),
    ("What's happened since last night?", "changes_since"),
    ("Any changes in the past day?", "changes_since"),
    ("Summarize the last 24h", "changes_since"),
    ("What got resolved today?", "changes_since"),
    ("Were there any new incidents overnight?", "changes_since"),
    ("How do rate limits work?", ("ddos", "api_abuse", "brute_force")),
    ("Is Shares safe?", "site_status"),
    ("Tell me about Stock", "site_status"),
    # A third batch, written blind after the engine learned the second: 16/30 reached their answer before the
    # misses were looked at (the phrase rules did not generalise; cue words and topics named outright were added).
    ("Which open problem is the most dangerous?", "fix_priority"),
    ("What would you fix first if you were me?", "fix_priority"),
    ("Help me decide what to work on", "fix_priority"),
    ("Are there quick wins we can fix right away?", "fix_priority"),
    ("Which issues are critical and which can wait?", "fix_priority"),
    ("Rank what's broken on Shares", "fix_priority"),
    ("Could a DDoS take Gem down?", "site_topic:ddos"),
    ("Is the Stock login protected against brute-force attacks?", "site_topic:brute_force"),
    ("Does Tour have any defense against malware?", "site_topic:malware"),
    ("How would Shares handle a spike of bot traffic?", "site_topic:ddos"),
    ("Is Gem safe from cross-site scripting?", "site_topic:xss"),
    (
        "What did the last drill on Tour show?",
        (
            "site_topic:ddos",
            "site_topic:brute_force",
            "site_topic:sql_injection",
            "site_topic:xss",
            "site_topic:malware",
            "site_topic:phishing",
        ),
    ),
    ("Shares went down three times this morning, why?", "flapping"),
    ("Why is Stock so unreliable?", "flapping"),
    ("Tour keeps timing out every now and again", "flapping"),
    ("Do Gem's failures happen at the same time every day?", "flapping"),
    ("What's causing the on-off outages on Shares?", "flapping"),
    ("Which of the four sites is most secure?", "compare_sites"),
    ("Stock or Gem, which one is slower?", "compare_sites"),
    ("Compare the security of all our sites", "compare_sites"),
    ("Is Shares doing better or worse than Tour?", "compare_sites"),
    ("Gem vs Stock", "compare_sites"),
    ("Anything I should know about from the last day?", "changes_since"),
    ("What alerts came in overnight?", "changes_since"),
    ("Did any drills run yesterday?", "changes_since"),
    ("What's been fixed in the past 24 hours?", "changes_since"),
    ("Since yesterday, what's new on Tour?", "changes_since"),
    ("Is Gem online?", "site_status"),
    ("How do I defend against a botnet?", "ddos"),
    ("What's the difference between XSS and CSRF?", ("xss", "(no match)")),
)


def _routed(question: str, agent_id: str = "general") -> str:
    from secdash.ai.intents import route

    return route(question, AGENTS[agent_id])


def _route_reaches(question: str, expected: str | tuple[str, ...]) -> bool:
    """A site + topic answer also answers the topic itself (for the first table's questions)."""
    got = _routed(question)
    wanted = (expected,) if isinstance(expected, str) else expected
    return got in wanted or (got.startswith("site_topic:") and got.removeprefix("site_topic:") in wanted)


def _rate(table) -> tuple[float, str]:
    misses = [(q, want, _routed(q)) for q, want in table if not _route_reaches(q, want)]
    listing = "\n".join(f"  {q!r}: wanted {want}, got {got}" for q, want, got in misses)
    return 1 - len(misses) / len(table), f"{len(table) - len(misses)}/{len(table)}; misses:\n{listing}"


def test_the_operator_table_is_large_and_new():
    assert len(OPERATOR_QUESTIONS) >= 60
    everything = [q.lower() for q, _t in QUESTIONS + OPERATOR_QUESTIONS]
    assert len(set(everything)) == len(everything)


def test_at_least_90_percent_of_operator_questions_reach_their_answer():
    rate, listing = _rate(OPERATOR_QUESTIONS)
    assert rate >= 0.9, f"hit rate {rate:.0%} ({listing})"


def test_the_whole_table_still_reaches_90_percent_through_the_router():
    rate, listing = _rate(QUESTIONS + OPERATOR_QUESTIONS)
    assert rate >= 0.9, f"hit rate {rate:.0%} ({listing})"


def test_the_issues_three_questions_always_reach_their_answer():
    assert _routed("what should I fix first?") == "fix_priority"
    assert _routed("Is there a DDoS risk for our Stock site?") == "site_topic:ddos"
    assert _routed("why is Shares flapping?") == "flapping"
    assert _routed("why is Shares flapping?", "shares") == "flapping"


def test_without_live_data_an_operator_question_says_so_and_keeps_the_agents_priorities():
    from secdash.ai.offline import compose_answer

    answer = compose_answer("What should I fix first?", AGENTS["stock"])
    assert "No live data was available" in answer
    assert "Meanwhile, Stock priorities:" in answer and "Broken access control" in answer
