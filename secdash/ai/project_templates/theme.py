"""Colours and the shared page shell of the templates.

Every template's stylesheet starts with the same `:root` variables (`--bg`, `--surface`, `--text`, `--muted`,
`--border`, `--accent`, `--accent-text`), so a theme is a handful of values: a mode (light or dark) and an accent
colour. A prompt chooses them with its words ("a dark page in green"); a continue edit changes the same
variables in the project's CSS (secdash/ai/project_templates/edits.py).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

MODES = {
    "light": {"bg": "#f8fafc", "surface": "#ffffff", "text": "#0f172a", "muted": "#475569", "border": "#e2e8f0"},
    "dark": {"bg": "#0f172a", "surface": "#1e293b", "text": "#e2e8f0", "muted": "#94a3b8", "border": "#334155"},
}
ACCENTS = {
    "blue": "#2563eb",
    "green": "#15803d",
    "purple": "#7c3aed",
    "violet": "#7c3aed",
    "red": "#dc2626",
    "orange": "#ea580c",
    "teal": "#0d9488",
    "pink": "#db2777",
    "yellow": "#ca8a04",
    "indigo": "#4f46e5",
    "cyan": "#0891b2",
    "brown": "#92400e",
    "gray": "#4b5563",
    "grey": "#4b5563",
    "black": "#111827",
    "gold": "#b45309",
    "crimson": "#be123c",
    "navy": "#1e3a8a",
    "lime": "#4d7c0f",
    "magenta": "#c026d3",
    "turquoise": "#0f766e",
    "coral": "#e2553f",
    "mint": "#059669",
    "olive": "#4d7c0f",
    "maroon": "#9f1239",
}
_MODE_WORDS = re.compile(
    r"\b(?P<dark>dark(?:er)?|night|black background)\b|\b(?P<light>light(?:er)?|bright(?:er)?)\b"
    r"(?!\s+(?:" + "|".join(ACCENTS) + r")\b)",
    re.I,
)
_ACCENT_WORDS = re.compile(r"\b(?P<colour>" + "|".join(sorted(ACCENTS, key=len, reverse=True)) + r")\b", re.I)


@dataclass(frozen=True)
class Theme:
    mode: str = "light"  # a key of MODES
    accent: str = "blue"  # a key of ACCENTS

    def variables(self) -> dict[str, str]:
        """The CSS custom properties, without their leading '--'."""
        return {**MODES[self.mode], "accent": ACCENTS[self.accent], "accent-text": "#ffffff"}


def theme_words(text: str) -> tuple[str | None, str | None]:
    """The mode and accent colour a text asks for, each None when it names none (the last mention wins)."""
    modes = [("dark" if m.group("dark") else "light") for m in _MODE_WORDS.finditer(text or "")]
    colours = [m.group("colour").lower() for m in _ACCENT_WORDS.finditer(text or "")]
    return (modes[-1] if modes else None), (colours[-1] if colours else None)


def theme_for(prompt: str, default: Theme = Theme()) -> Theme:
    """The template's default theme with what the prompt asks for applied."""
    mode, accent = theme_words(prompt)
    return Theme(mode=mode or default.mode, accent=accent or default.accent)


def root_css(theme: Theme) -> str:
    lines = [f"  --{name}: {value};" for name, value in theme.variables().items()]
    return ":root {\n" + "\n".join(lines) + f"\n  color-scheme: {theme.mode};\n}}\n"


BASE_CSS = """
*, *::before, *::after { box-sizing: border-box; }

html { -webkit-text-size-adjust: 100%; }

body {
  margin: 0;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
  line-height: 1.6;
  background: var(--bg);
  color: var(--text);
}

a { color: var(--accent); }
img, canvas { max-width: 100%; }

.container { width: min(100% - 2rem, 1080px); margin-inline: auto; }

.site-header { border-bottom: 1px solid var(--border); background: var(--surface); }
.site-header .container {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  justify-content: space-between;
  gap: 0.5rem 1rem;
  padding-block: 0.9rem;
}
.brand { font-weight: 700; font-size: 1.15rem; color: var(--text); text-decoration: none; }
.nav { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
.nav a { color: var(--muted); text-decoration: none; }
.nav a:hover { color: var(--accent); }

main { padding-block: 2rem; }
h1 { font-size: clamp(1.8rem, 6vw, 3rem); line-height: 1.15; margin: 0 0 0.75rem; }
h2 { font-size: clamp(1.3rem, 4vw, 1.8rem); line-height: 1.25; margin: 0 0 0.75rem; }
h3 { margin: 0 0 0.5rem; }
.lead { font-size: 1.15rem; color: var(--muted); max-width: 40rem; }
.muted { color: var(--muted); }

button, .button {
  font: inherit;
  cursor: pointer;
  border: 1px solid var(--accent);
  background: var(--accent);
  color: var(--accent-text);
  padding: 0.6rem 1.2rem;
  border-radius: 0.5rem;
  text-decoration: none;
  display: inline-block;
}
button.secondary { background: transparent; color: var(--accent); }
button:disabled { opacity: 0.6; cursor: not-allowed; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible {
  outline: 3px solid var(--accent);
  outline-offset: 2px;
}

.card { background: var(--surface); border: 1px solid var(--border); border-radius: 0.75rem; padding: 1.25rem; }
.grid { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 220px), 1fr)); }
.section { margin-block: 2.5rem; }

.site-footer { border-top: 1px solid var(--border); color: var(--muted); font-size: 0.9rem; }
.site-footer .container { padding-block: 1.5rem; }
.site-footer p { margin: 0; }
"""


def stylesheet(theme: Theme, extra: str = "") -> str:
    """The shared stylesheet (theme variables, base rules) followed by a template's own rules."""
    return root_css(theme) + BASE_CSS + (("\n" + extra.strip("\n") + "\n") if extra else "")


def esc(text: str) -> str:
    """Text for HTML content (quotes escaped too)."""
    return html.escape(text, quote=True)


def page(
    *,
    title: str,
    brand: str,
    main: str,
    footer: str,
    nav: tuple[tuple[str, str], ...] = (),
    scripts: tuple[str, ...] = ("app.js",),
    stylesheet_path: str = "style.css",
) -> str:
    """A whole HTML document; `main` is markup already indented by four spaces, texts are escaped here."""
    links = "".join(f'\n        <a href="{href}">{esc(label)}</a>' for href, label in nav)
    nav_html = f'\n      <nav class="nav" aria-label="Main">{links}\n      </nav>' if nav else ""
    script_tags = "".join(f'\n  <script src="{src}" defer></script>' for src in scripts)
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{esc(title)}</title>
  <link rel="stylesheet" href="{stylesheet_path}">
</head>
<body>
  <header class="site-header">
    <div class="container">
      <a class="brand" href="index.html">{esc(brand)}</a>{nav_html}
    </div>
  </header>
  <main id="main" class="container">
{main.rstrip()}
  </main>
  <footer class="site-footer">
    <div class="container">
      <p>{esc(footer)}</p>
    </div>
  </footer>{script_tags}
</body>
</html>
"""
