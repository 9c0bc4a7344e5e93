"""Agent replies as Markdown, light enough to load only when a reply is shown.

`rx.markdown` brings remark-math, rehype-katex (with KaTeX and its fonts) and a syntax highlighter into
the bundle of every page that has a chat, about a third of the Dashboard's JavaScript. Replies need
none of them. This component renders with react-markdown and remark-gfm only (tables, lists, code,
links), and loads them on first use (`React.lazy`): until then, and on a page without a reply, they
cost nothing; while they load, the reply shows as plain text.

Safety is react-markdown's own, as with `rx.markdown(use_raw=False)`: no rehype-raw, so raw HTML in a
reply (`<script>`, `<img onerror>`, `<iframe srcdoc>`) becomes text, and its default URL transform
empties `javascript:`/`data:` links.
"""

from __future__ import annotations

import reflex as rx

REACT_MARKDOWN = "react-markdown@10.1.0"
REMARK_GFM = "remark-gfm@4.0.1"

_LAZY_RENDERER = """
const SecdashMarkdownRenderer = lazy(() => Promise.all([import("react-markdown"), import("remark-gfm")]).then(
  ([markdown, gfm]) => ({
    default: function SecdashMarkdownRenderer({ text }) {
      return createElement(markdown.default, { remarkPlugins: [gfm.default] }, text);
    },
  }),
));
function SecdashMarkdown({ text, className, ...props }) {
  const source = typeof text === "string" ? text : String(text ?? "");
  const plain = createElement("p", { style: { whiteSpace: "pre-wrap" } }, source);
  return createElement("div", { className, ...props },
    createElement(Suspense, { fallback: plain }, createElement(SecdashMarkdownRenderer, { text: source })));
}
"""


class SafeMarkdown(rx.Component):
    """<SecdashMarkdown text=...>: defined in the page's module by `add_custom_code`."""

    tag = "SecdashMarkdown"
    lib_dependencies: list[str] = [REACT_MARKDOWN, REMARK_GFM]  # noqa: RUF012  (Reflex's class field)

    text: rx.Var[str]

    def add_imports(self) -> dict:
        return {"react": ["lazy", "Suspense", "createElement"]}

    def add_custom_code(self) -> list[str]:
        return [_LAZY_RENDERER]
