"""Phishing: look-alikes of the site's brand domain (punycode (xn--), mixed-script hosts, swapped or missing
letters, the brand inside a longer host) reported as links; honest reports are the real domain and unrelated
sites. Stopped by link checks."""

from __future__ import annotations

from secdash.services.battle import demo_app
from secdash.services.battle.defense import DefenseConfig, UrlRules
from secdash.services.battle.traffic import Attack, DrillRequest, Requests, Technique, attack, benign, visitor

BENIGN_LINKS: tuple[str, ...] = (
    "https://en.wikipedia.org/wiki/Phishing",
    "https://docs.python.org/3/",
    "https://www.mozilla.org/en-US/firefox/",
    "https://github.com/OWASP/CheatSheetSeries",
    "https://owasp.org/www-project-top-ten/",
    "https://www.example.org/news",
    "https://attack.mitre.org/techniques/T1566/002/",
    "https://www.bbc.co.uk/news/technology",
)


def _idna(host: str) -> str:
    """The punycode (xn--) spelling of a Unicode host."""
    return host.encode("idna").decode("ascii")


def phishing_links(slug: str) -> list[tuple[str, str]]:
    """Look-alike links of the site's brand domain (url, label)."""
    brand = demo_app.BRAND_DOMAINS[slug]
    name, tld = brand.split(".", 1)
    cyrillic = name.replace("o", "\u043e").replace("a", "\u0430").replace("e", "\u0435")  # о а е
    if cyrillic == name:
        cyrillic = "\u0455" + name[1:] if name.startswith("s") else name[:-1] + "\u0456"
    cyrillic_i = "\u0456"
    accented = name + "\u00e9"
    leet = name.replace("o", "0").replace("a", "4").replace("e", "3").replace("i", "1")
    return [
        (f"https://{_idna(cyrillic + '.' + tld)}/login", "punycode homograph"),
        (f"https://{cyrillic}.{tld}/verify", "mixed-script host"),
        (f"https://{_idna(name[:-1] + cyrillic_i + '.' + tld)}/account", "punycode, Cyrillic i"),
        (f"https://{leet}.{tld}/login", "digit swap look-alike"),
        (f"http://{name}i.{tld}/", "doubled letter"),
        (f"https://{name[:-1]}.{tld}/reset", "missing letter"),
        (f"https://{name[1]}{name[0]}{name[2:]}.{tld}/signin", "swapped letters"),
        (f"https://{name[:2]}-{name[2:]}.{tld}/pay", "hyphenated look-alike"),
        (f"https://{brand}.account-verify.top/login", "brand as subdomain"),
        (f"https://{name}-support.example/ticket", "brand plus word"),
        (f"https://secure-{name}.example/update", "word plus brand"),
        (f"https://login.{name}.example.com.session.top/", "brand deep in the host"),
        (f"https://{name.replace('m', 'rn')}.{tld}/" if "m" in name else f"https://{name}.{tld}.co/", "rn for m / extra TLD"),
        (f"https://{_idna(accented + '.' + tld)}/offer", "punycode accent"),
    ]


def requests(slug: str) -> Requests:
    links = phishing_links(slug)
    attacks = [
        attack(i % 3, "POST", "/report-link", f"{label}: {url}", form=(("url", url),))
        for rounds in range(4)
        for i, (url, label) in enumerate(links)
    ]
    brand = demo_app.BRAND_DOMAINS[slug]
    real = (f"https://{brand}/help", f"https://www.{brand}/pricing", f"https://{brand}/blog/security-tips")
    links_ok = real + BENIGN_LINKS
    honest = [
        benign(
            visitor(i),
            "POST",
            "/report-link",
            f"link {links_ok[i % len(links_ok)]}",
            form=(("url", links_ok[i % len(links_ok)]),),
        )
        for i in range(44)
    ]
    return attacks, honest


def recipe(slug: str) -> tuple[DefenseConfig, str]:
    brand = demo_app.BRAND_DOMAINS[slug]
    config = DefenseConfig(urls=UrlRules(block_punycode=True, block_lookalikes=True, protected_domains=[brand]))
    return config, (
        f"Refuse reported links whose host is punycode or mixed-script, or imitates {brand} "
        "(same letters after confusable swaps, one edit away, or the brand inside a longer host). The real "
        "domain and unrelated sites are still published."
    )


def damage(_request: DrillRequest, status: int, body: str, _slug: str) -> str | None:
    return "look-alike link published" if status == 200 and "Link published" in body else None


ATTACK = Attack(
    id="phishing",
    label="Phishing",
    icon="fish",
    description="Look-alike links of the site's brand domain (punycode, mixed scripts, typos) reported for publishing",
    technique=Technique("T1566.002", "Phishing: Spearphishing Link", "https://attack.mitre.org/techniques/T1566/002/"),
    specialist="tour",
    endpoint="report",
    defense_part="urls",
    requests=requests,
    recipe=recipe,
    damage=damage,
)
