"""Every relative link in the README and docs/ resolves: the target file exists inside the repository, and a
`file.md#anchor` link names a heading of that file (GitHub's slug rules). Web and mail links and pure `#anchor`
links are not checked. No database, no server."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
# [text](target) or [text](target "title"); images ![alt](src) too. Text may hold one level of brackets.
LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMG_SRC = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
EXTERNAL = re.compile(r"^(https?:|mailto:)", re.IGNORECASE)


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code, where brackets are not links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: inline markup dropped, lowercase, punctuation other than hyphens and
    spaces removed, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    text = _prose(path.read_text(encoding="utf-8"))
    return LINK.findall(text) + IMG_SRC.findall(text)


def broken_links(path: Path) -> list[str]:
    problems = []
    for target in links(path):
        if EXTERNAL.match(target):
            continue
        file_part, _, fragment = target.partition("#")
        if not file_part:
            continue
        resolved = (path.parent / unquote(file_part)).resolve()
        if not resolved.is_relative_to(ROOT):
            problems.append(f"{target}: outside the repository")
            continue
        if not resolved.exists():
            problems.append(f"{target}: no such file")
            continue
        if fragment and resolved.suffix == ".md" and unquote(fragment).lower() not in anchors(resolved):
            problems.append(f"{target}: no heading '#{fragment}' in {resolved.relative_to(ROOT)}")
    return problems


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(path):
    assert broken_links(path) == []


def test_the_docs_have_links_to_check():
    assert len(DOCS) > 3
    assert any(not EXTERNAL.match(target) for target in links(ROOT / "README.md"))


def test_a_broken_link_is_reported(tmp_path, monkeypatch):
    monkeypatch.setitem(globals(), "ROOT", tmp_path.resolve())
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## Its part\n", encoding="utf-8")
    readme = tmp_path.resolve() / "README.md"
    readme.write_text(
        "[ok](docs/a.md) [ok](docs/a.md#its-part) [ok](#top) [ok](https://example.com/x)\n\n# Top\n\n"
        "`[not a link](nowhere.md)` [gone](docs/b.md) [bad anchor](docs/a.md#nothing) [out](../shared/X.md)"
        ' <img src="docs/missing.png">\n',
        encoding="utf-8",
    )
    assert broken_links(readme) == [
        "docs/b.md: no such file",
        "docs/a.md#nothing: no heading '#nothing' in docs/a.md",
        "../shared/X.md: outside the repository",
        "docs/missing.png: no such file",
    ]


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("What `make run` does", "what-make-run-does"),
        ("Outbound probes (SSRF)", "outbound-probes-ssrf"),
        (
            "Code scan against the reference tools (`python -m bench scan_reference PATH...`)",
            "code-scan-against-the-reference-tools-python--m-bench-scan_reference-path",
        ),
    ],
)
def test_slugs_follow_github(heading, anchor):
    assert slug(heading) == anchor
