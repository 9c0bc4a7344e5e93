"""The multi-file format: a streaming parser turns it into file events, whatever the chunking."""

from __future__ import annotations

import pytest

from secdash.ai.base import FileContent, FileEnd, FileStart, TextDelta
from secdash.ai.files import FileStreamParser, file_block, normalise_path, safe_path

TEXT = (
    "Here you go.\n"
    + file_block("index.html", "<h1>Hi</h1>\n<p>=== not a marker ===</p>")
    + file_block("js/app.js", "let a = 1;")
    + "That is all."
)


def _parse(chunks: list[str]) -> list:
    parser = FileStreamParser()
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    return events + parser.close()


def _summary(events: list) -> tuple[list, dict, str]:
    markers = [(type(e).__name__, e.path) for e in events if isinstance(e, FileStart | FileEnd)]
    files: dict[str, str] = {}
    text = ""
    for event in events:
        if isinstance(event, FileContent):
            files[event.path] = files.get(event.path, "") + event.text
        elif isinstance(event, TextDelta):
            text += event.text
    return markers, files, text


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16, 1000])
def test_the_same_files_come_out_however_the_text_is_cut(size):
    markers, files, text = _summary(_parse([TEXT[i : i + size] for i in range(0, len(TEXT), size)]))
    assert markers == [
        ("FileStart", "index.html"),
        ("FileEnd", "index.html"),
        ("FileStart", "js/app.js"),
        ("FileEnd", "js/app.js"),
    ]
    assert files == {"index.html": "<h1>Hi</h1>\n<p>=== not a marker ===</p>\n", "js/app.js": "let a = 1;\n"}
    assert text == "Here you go.\nThat is all."


def test_a_marker_inside_a_line_is_text():
    markers, files, text = _summary(_parse(["see === FILE: a.txt === here\n"]))
    assert markers == [] and files == {} and text == "see === FILE: a.txt === here\n"


@pytest.mark.parametrize("path", ["../etc/passwd", "/etc/passwd", "a/../../b", "a\\b.txt", "//etc/passwd", "x" * 201, " "])
def test_an_unsafe_path_is_never_followed(path):
    assert safe_path(path) is None
    markers, files, text = _summary(_parse([f"=== FILE: {path} ===\nroot::0:0\n=== END FILE ===\n"]))
    assert markers == [] and files == {} and "root::0:0" in text


def test_a_file_cut_short_ends_incomplete():
    events = _parse(["=== FILE: a.txt ===\nhalf a li", "ne"])
    assert events[-1] == FileEnd("a.txt", complete=False)
    assert _summary(events)[1] == {"a.txt": "half a line"}


# --- the tolerant fallback: fenced code blocks that name their file -------------------------------


def _outcome(text: str) -> tuple[list, dict, str]:
    """Markers (with `complete`), files and text; the same whether the text comes whole or one character at a time."""

    def summary(events: list) -> tuple[list, dict, str]:
        markers = [
            (e.path, e.complete) if isinstance(e, FileEnd) else e.path for e in events if isinstance(e, FileStart | FileEnd)
        ]
        return markers, *_summary(events)[1:]

    whole = summary(_parse([text]))
    assert summary(_parse(list(text))) == whole
    return whole


PAGE = "<h1>Hi</h1>\n  <p>two</p>\n"


@pytest.mark.parametrize(
    "fence",
    [
        "```html index.html",
        '```html title="index.html"',
        "```index.html",
        "```html:index.html",
        "```html filename=index.html",
        "```html file='./index.html'",
        "~~~html index.html",
        "````html index.html",
    ],
)
def test_a_fence_that_names_its_file_in_the_info_string_is_a_file(fence):
    closing = fence[0] * (len(fence) - len(fence.lstrip(fence[0])))
    markers, files, text = _outcome(f"Here is the page:\n{fence}\n{PAGE}{closing}\nOpen it in a browser.\n")
    assert markers == ["index.html", ("index.html", True)]
    assert files == {"index.html": PAGE}  # neither fence line nor the language word is content
    assert text == "Here is the page:\nOpen it in a browser.\n"


def test_a_path_in_the_info_string_keeps_its_folders():
    assert _outcome("```python filename=app/main.py\nprint(1)\n```\n")[1] == {"app/main.py": "print(1)\n"}


@pytest.mark.parametrize(
    "label",
    [
        "index.html",
        "**index.html**",
        "### index.html",
        "File: index.html",
        "Filename: index.html",
        "`index.html`",
        "1. index.html:",
        "// index.html",
        "<!-- index.html -->",
        "# index.html",
        "**File:** `./index.html`",
        "- `index.html`",
    ],
)
@pytest.mark.parametrize("gap", ["", "\n"])
def test_a_fence_below_a_line_holding_just_a_file_name_is_that_file(label, gap):
    markers, files, text = _outcome(f"Two files.\n\n{label}\n{gap}```html\n{PAGE}```\n\nstyle.css\n```css\nh1 {{}}\n```\n")
    assert markers == ["index.html", ("index.html", True), "style.css", ("style.css", True)]
    assert files == {"index.html": PAGE, "style.css": "h1 {}\n"}
    assert text == f"Two files.\n\n{label}\n{gap}\nstyle.css\n"  # the name line stays in the text


@pytest.mark.parametrize(
    "before",
    [
        "Here is the code:",
        "Save this as index.html:",
        "### Node.js",
        "index.html\n\n",
        "index.html\nIt shows a greeting:",
        "File: see below",
    ],
)
def test_a_fence_that_names_no_file_stays_text_with_all_it_holds(before):
    answer = f"{before}\n```html\n<h1>Hi</h1>\n```\nDone.\n"
    assert _outcome(answer) == ([], {}, answer)


def test_a_file_name_inside_a_plain_block_does_not_name_the_next_block():
    answer = "```\nindex.html\n```\n```html\n<h1>Hi</h1>\n```\n"
    assert _outcome(answer) == ([], {}, answer)


def test_only_a_bare_fence_as_long_as_the_opening_one_closes_a_file():
    body = "# Title\n```bash\nnpm i\n```\n~~~\n``` not closing\n"
    markers, files, text = _outcome(f"````md README.md\n{body}````\nafter\n")
    assert files == {"README.md": body} and text == "after\n"


def test_a_fence_indented_in_a_list_item_gives_its_content_without_that_indentation():
    markers, files, text = _outcome("1. **index.html**\n   ```html\n   <h1>Hi</h1>\n     <p>two</p>\n   ```\n2. Done\n")
    assert files == {"index.html": PAGE} and text == "1. **index.html**\n2. Done\n"


@pytest.mark.parametrize(
    "path",
    [
        "../x.txt",
        "/etc/passwd",
        "/etc/passwd.txt",
        "C:\\x.txt",
        "C:/x.txt",
        "a/../../b.txt",
        "~/.ssh/id_rsa",
        "~/.bashrc.sh",
        "a" * 300 + ".txt",
        "a\x01b.txt",
        "a\x7fb.txt",
        "",
    ],
)
@pytest.mark.parametrize("form", ['```sh title="{}"\n', "```sh {}\n", "{}\n```sh\n", "=== FILE: {} ===\n"])
def test_a_hostile_path_never_becomes_a_file_in_any_form(path, form):
    closing = "=== END FILE ===\n" if form.startswith("===") else "```\n"
    markers, files, text = _outcome(form.format(path) + "root::0:0\n" + closing)
    assert markers == [] and files == {} and "root::0:0" in text


@pytest.mark.parametrize(
    ("raw", "path"),
    [
        ('"./css//site.css":', "css/site.css"),
        ("**`app.js`**", "app.js"),
        ("././a/b.txt", "a/b.txt"),
        ("'index.html'", "index.html"),
        ("//etc/passwd", None),
        ("./../x", None),
        ("", None),
        ("C:\\x", None),
    ],
)
def test_a_path_is_tidied_before_it_is_judged(raw, path):
    assert normalise_path(raw) == path


def test_markers_name_their_files_the_same_tidy_way():
    assert _outcome("=== FILE: ./css//site.css ===\nh1 {}\n=== END FILE ===\n")[1] == {"css/site.css": "h1 {}\n"}
    assert safe_path("a//b") is None  # the strict check itself is unchanged


@pytest.mark.parametrize(
    ("answer", "content"),
    [
        ("```html index.html\n<h1>Hi", "<h1>Hi"),
        ("index.html\n```html\n<h1>Hi</h1>\n", "<h1>Hi</h1>\n"),
        ("```html index.html\n", None),
    ],
)
def test_a_reply_cut_inside_a_fenced_file_ends_it_incomplete(answer, content):
    markers, files, text = _outcome(answer)
    assert markers == ["index.html", ("index.html", False)]
    assert files.get("index.html") == content


def test_a_closing_fence_cut_from_its_newline_still_completes_the_file():
    assert _outcome("```js app.js\nlet a;\n```")[:2] == (["app.js", ("app.js", True)], {"app.js": "let a;\n"})


MIXED = (
    "Here is the project.\n"
    + file_block("README.md", "# Demo\n```bash\nnpm start\n```\n")
    + '\n**index.html**\n```html\n<h1>Hi</h1>\n```\n\nAnd the script:\n```js title="js/app.js"\nlet a = 1;\n```\n'
    + "Run:\n```\nnpm start\n```\n"
    + file_block("css/site.css", "h1 { color: teal; }")
    + "Enjoy."
)


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 8, 13, 1000])
def test_marker_files_and_fenced_files_mix_however_the_text_is_cut(size):
    markers, files, text = _summary(_parse([MIXED[i : i + size] for i in range(0, len(MIXED), size)]))
    assert files == {
        "README.md": "# Demo\n```bash\nnpm start\n```\n",
        "index.html": "<h1>Hi</h1>\n",
        "js/app.js": "let a = 1;\n",
        "css/site.css": "h1 { color: teal; }\n",
    }
    assert text == "Here is the project.\n\n**index.html**\n\nAnd the script:\nRun:\n```\nnpm start\n```\nEnjoy."
    assert [m for m in markers if m[0] == "FileStart"] == [("FileStart", p) for p in files]
    assert _outcome(MIXED)[1:] == (files, text)


def test_markers_inside_a_fence_wrapping_the_whole_answer_are_still_files():
    answer = "```\n" + file_block("index.html", "<h1>Hi</h1>") + file_block("app.js", "let a;") + "```\n"
    markers, files, text = _outcome(answer)
    assert files == {"index.html": "<h1>Hi</h1>\n", "app.js": "let a;\n"} and text == "```\n```\n"


# --- a default file: the HTML artifact's one page ---------------------------------------------------------------


def _outcome_with_default(text: str, default_path: str | None = "index.html") -> tuple[list, dict, str]:
    """Like `_outcome`, with `FileStreamParser(default_path=...)`; whole and one character at a time agree."""

    def run(chunks: list[str]) -> tuple[list, dict, str]:
        parser = FileStreamParser(default_path=default_path)
        events = [event for chunk in chunks for event in parser.feed(chunk)] + parser.close()
        markers = [
            (e.path, e.complete) if isinstance(e, FileEnd) else e.path for e in events if isinstance(e, FileStart | FileEnd)
        ]
        return markers, *_summary(events)[1:]

    whole = run([text])
    assert run(list(text)) == whole
    return whole


@pytest.mark.parametrize("info", ["html", "HTML", "htm", "html5", "xhtml", "html  "])
def test_a_fence_of_html_that_names_no_file_is_the_default_file(info):
    markers, files, text = _outcome_with_default(f"Changes: a greeting\n```{info}\n{PAGE}```\nEnjoy.\n")
    assert markers == ["index.html", ("index.html", True)]
    assert files == {"index.html": PAGE} and text == "Changes: a greeting\nEnjoy.\n"


@pytest.mark.parametrize("info", ["js", "css", "", "python", "text"])
def test_a_fence_of_another_language_that_names_no_file_stays_text(info):
    answer = f"Here:\n```{info}\nlet a = 1;\n```\nDone.\n"
    assert _outcome_with_default(answer) == ([], {}, answer)


def test_without_a_default_file_a_fence_of_html_stays_text():
    answer = f"Here:\n```html\n{PAGE}```\nDone.\n"
    assert _outcome_with_default(answer, default_path=None) == ([], {}, answer)
    assert _outcome(answer) == ([], {}, answer)


def test_a_fence_that_names_its_file_wins_over_the_default():
    markers, files, _ = _outcome_with_default(f"```html page.html\n{PAGE}```\nabout.html\n```html\n<p>x</p>\n```\n")
    assert files == {"page.html": PAGE, "about.html": "<p>x</p>\n"}


def test_the_default_file_cut_short_ends_incomplete():
    markers, files, _ = _outcome_with_default("```html\n<!doctype html>\n<h1>Hi")
    assert markers == ["index.html", ("index.html", False)] and files == {"index.html": "<!doctype html>\n<h1>Hi"}


def test_the_file_protocol_still_works_with_a_default_file():
    markers, files, text = _outcome_with_default("Changes: first\n" + file_block("index.html", PAGE))
    assert markers == ["index.html", ("index.html", True)] and files == {"index.html": PAGE}
    assert text == "Changes: first\n"
