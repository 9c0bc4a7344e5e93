"""The landing-page template: a hero with the project's name, a card per part the prompt asks for, an about
and a contact section. The fallback when a prompt names no other kind of project."""

from __future__ import annotations

from secdash.ai.plans import PlannedFile, ProjectPlan
from secdash.ai.project_templates.brief import read_brief
from secdash.ai.project_templates.theme import esc, page, stylesheet, theme_for

KEYWORDS = ("landing", "homepage", "website", "portfolio")
HINTS = (
    "site",
    "page",
    "home",
    "shop",
    "store",
    "cafe",
    "coffee",
    "restaurant",
    "bakery",
    "business",
    "company",
    "startup",
    "agency",
    "studio",
    "product",
    "brand",
    "band",
    "club",
    "salon",
    "hotel",
    "event",
    "wedding",
    "personal",
    "resume",
    "cv",
    "launch",
    "service",
    "services",
    "marketing",
)
DEFAULT_PARTS = ("What We Do", "Why People Choose Us", "How It Works")
COPY = (
    "{part} at {name}: the essentials, short and clear, so you know what to expect.",
    "{part} is where {name} shines. Friendly, simple and made with care.",
    "Curious about {part_lower}? Here is what {name} has for you, with no small print.",
    "{part} made easy: one place, one clear answer, every time.",
)

CSS = """
.hero { padding-block: 2rem 1rem; }
.hero .actions { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; margin-top: 1.5rem; }
.note { margin: 0; color: var(--muted); }
.contact { text-align: center; }
.contact .lead { margin-inline: auto; }
"""

JS = """"use strict";

// The call-to-action button takes the visitor to the contact section.
(function () {
  const button = document.getElementById("cta");
  const contact = document.getElementById("contact");
  const note = document.getElementById("cta-note");
  if (!button || !contact) {
    return;
  }
  button.addEventListener("click", function () {
    contact.scrollIntoView({ behavior: "smooth", block: "start" });
    if (note) {
      note.textContent = "Great! Here is how to reach us.";
    }
  });
})();
"""


def build(prompt: str) -> tuple[ProjectPlan, dict[str, str]]:
    brief = read_brief(prompt, "My Site", frozenset(KEYWORDS))
    name, subject = brief.name, brief.subject
    parts = brief.parts or DEFAULT_PARTS
    cards = []
    for index, part in enumerate(parts):
        text = COPY[index % len(COPY)].format(part=part, part_lower=part.lower(), name=name)
        cards.append(f"""        <article class="card">
          <h3>{esc(part)}</h3>
          <p>{esc(text)}</p>
        </article>""")
    about = (
        f"{name} is all about {subject}: simple to find, friendly to use and made with care."
        if brief.topic
        else f"{name} is made with care: simple to find, friendly to use and always up to date."
    )
    tagline = f"Your {brief.topic}, made simple." if brief.topic else "Everything you need, in one place."
    main = f"""    <section class="hero" id="top">
      <h1>{esc(name)}</h1>
      <p class="lead">{esc(tagline)}</p>
      <div class="actions">
        <button type="button" id="cta">Get in touch</button>
        <p class="note" id="cta-note" aria-live="polite"></p>
      </div>
    </section>
    <section class="section" id="highlights">
      <h2>What {esc(name)} offers</h2>
      <div class="grid">
{chr(10).join(cards)}
      </div>
    </section>
    <section class="section" id="about">
      <h2>About {esc(name)}</h2>
      <p>{esc(about)}</p>
    </section>
    <section class="section card contact" id="contact">
      <h2>Get in touch</h2>
      <p class="lead">Questions, ideas or bookings? We would love to hear from you. Drop by or write to us.</p>
    </section>"""
    nav = (("#highlights", "Highlights"), ("#about", "About"), ("#contact", "Contact"))
    files = {
        "index.html": page(title=name, brand=name, main=main, nav=nav, footer=f"© {name}. All rights reserved."),
        "style.css": stylesheet(theme_for(brief.rest), CSS),
        "app.js": JS,
    }
    plan = ProjectPlan(
        name=name,
        description=f"A responsive landing page for {subject}: hero, highlights, about and contact sections.",
        files=[
            PlannedFile(path="index.html", language="html", description="The page: hero, highlights, about, contact"),
            PlannedFile(path="style.css", language="css", description="Theme colours and a responsive layout"),
            PlannedFile(path="app.js", language="javascript", description="The call-to-action button scrolls to contact"),
        ],
    )
    return plan, files
