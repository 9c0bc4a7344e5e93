"""The form template: the fields the prompt lists ("with name, email and phone"), validated in the browser with
clear messages next to each field, and a summary of the answers on success (nothing is sent anywhere)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from secdash.ai.plans import PlannedFile, ProjectPlan
from secdash.ai.project_templates.brief import read_brief, words
from secdash.ai.project_templates.theme import esc, page, stylesheet, theme_for

KEYWORDS = ("form", "signup", "sign up", "registration", "survey", "questionnaire", "rsvp")
HINTS = (
    "contact",
    "register",
    "validation",
    "validate",
    "subscribe",
    "newsletter",
    "booking",
    "book",
    "reservation",
    "application",
    "apply",
    "feedback",
    "enquiry",
    "inquiry",
    "login",
    "input",
    "field",
    "checkout",
    "order",
)
DEFAULT_FIELDS = ("Name", "Email", "Message")
MAX_FIELDS = 8


@dataclass(frozen=True)
class Field:
    label: str
    kind: str  # an <input> type, or "textarea"
    autocomplete: str = ""


# (words in the field's label, input type, autocomplete), first match wins
KINDS = (
    (("email", "e-mail", "mail"), "email", "email"),
    (("phone", "telephone", "mobile", "tel", "cell"), "tel", "tel"),
    (("password", "passphrase"), "password", "new-password"),
    (
        (
            "message",
            "comment",
            "comments",
            "feedback",
            "question",
            "questions",
            "notes",
            "note",
            "description",
            "details",
            "bio",
            "about",
            "enquiry",
            "inquiry",
            "reason",
        ),
        "textarea",
        "",
    ),
    (("age", "guests", "number", "quantity", "people", "amount", "count", "tickets", "seats"), "number", ""),
    (("date", "birthday", "day", "arrival", "departure", "birth"), "date", ""),
    (("website", "url", "homepage", "link", "portfolio"), "url", "url"),
    (("name", "fullname", "username"), "text", "name"),
)


def field_for(label: str) -> Field:
    tokens = set(words(label))
    for names, kind, autocomplete in KINDS:
        if tokens & set(names):
            return Field(label, kind, autocomplete)
    return Field(label, "text")


def _purpose(prompt: str) -> tuple[str, str]:
    """The submit button's text and the name of a form the prompt does not name."""
    found = set(words(prompt))
    if found & {"signup", "sign", "register", "registration", "subscribe", "newsletter", "join"}:
        return "Sign up", "Sign-up Form"
    if found & {"booking", "book", "reservation", "reserve", "rsvp"}:
        return "Book now", "Booking Form"
    return "Send", "Contact Form"


def _field_html(field: Field, ident: str) -> str:
    auto = f' autocomplete="{field.autocomplete}"' if field.autocomplete else ""
    described = f'aria-describedby="{ident}-error"'
    if field.kind == "textarea":
        control = f'<textarea id="{ident}" name="{ident}" rows="4" required {described}></textarea>'
    else:
        extra = ' min="1" max="120"' if field.kind == "number" else ""
        control = f'<input id="{ident}" name="{ident}" type="{field.kind}"{auto}{extra} required {described}>'
    return f"""        <div class="field">
          <label for="{ident}">{esc(field.label)}</label>
          {control}
          <p class="error" id="{ident}-error" aria-live="polite"></p>
        </div>"""


CSS = """
.form-card { max-width: 36rem; margin-inline: auto; }
.form { display: grid; gap: 0.25rem; margin-top: 1.5rem; }
.field { display: grid; gap: 0.35rem; }
.field label { font-weight: 600; }
.field input, .field textarea {
  font: inherit;
  width: 100%;
  padding: 0.6rem 0.75rem;
  border: 1px solid var(--border);
  border-radius: 0.5rem;
  background: var(--bg);
  color: var(--text);
}
.field [aria-invalid="true"] { border-color: #dc2626; }
.error { min-height: 1.4em; margin: 0; color: #dc2626; font-size: 0.9rem; }
.result { margin-top: 1.5rem; }
.result ul { padding-left: 1.2rem; }
.result li { overflow-wrap: anywhere; }
"""

JS = """"use strict";

// Checks every field when the form is sent; shows a message next to each field that is wrong.
// Nothing leaves the page: on success the answers are shown below the form.
(function () {
  const form = document.getElementById("project-form");
  const result = document.getElementById("form-result");
  const resultText = document.getElementById("result-text");
  const resultList = document.getElementById("result-list");
  const again = document.getElementById("form-again");
  const EMAIL = /^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/;
  const PHONE = /^[+]?[0-9()\\s.-]{6,20}$/;

  function labelOf(control) {
    const label = form.querySelector('label[for="' + control.id + '"]');
    return label ? label.textContent.trim() : control.name;
  }

  function problem(control) {
    const value = control.value.trim();
    const label = labelOf(control);
    if (value === "") {
      return label + " is required.";
    }
    if (control.type === "email" && !EMAIL.test(value)) {
      return "Enter an email address like name@example.com.";
    }
    if (control.type === "tel" && !PHONE.test(value)) {
      return "Enter a phone number: digits, spaces and + ( ) - only.";
    }
    if (control.type === "password" && (value.length < 8 || !/[0-9]/.test(value) || !/[A-Za-z]/.test(value))) {
      return "Use at least 8 characters with letters and numbers.";
    }
    if (control.type === "number") {
      const number = Number(value);
      const min = Number(control.min || "0");
      const max = Number(control.max || "1000000");
      if (!Number.isFinite(number) || number < min || number > max) {
        return label + " must be a number from " + min + " to " + max + ".";
      }
    }
    if (control.type === "url") {
      try {
        const url = new URL(value);
        if (url.protocol !== "http:" && url.protocol !== "https:") {
          return "Enter a web address starting with https://";
        }
      } catch (error) {
        return "Enter a web address starting with https://";
      }
    }
    if (control.type === "date" && Number.isNaN(Date.parse(value))) {
      return "Enter a date.";
    }
    if (control.tagName === "TEXTAREA" && value.length < 10) {
      return label + " needs at least 10 characters.";
    }
    if (control.type === "text" && value.length < 2) {
      return label + " needs at least 2 characters.";
    }
    return "";
  }

  function check(control) {
    const message = problem(control);
    const error = document.getElementById(control.id + "-error");
    if (error) {
      error.textContent = message;
    }
    control.setAttribute("aria-invalid", message ? "true" : "false");
    return message === "";
  }

  function controls() {
    return Array.prototype.slice.call(form.querySelectorAll("input, textarea"));
  }

  controls().forEach(function (control) {
    control.addEventListener("blur", function () {
      if (control.value.trim() !== "") {
        check(control);
      }
    });
    control.addEventListener("input", function () {
      if (control.getAttribute("aria-invalid") === "true") {
        check(control);
      }
    });
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    const wrong = controls().filter(function (control) {
      return !check(control);
    });
    if (wrong.length > 0) {
      wrong[0].focus();
      return;
    }
    resultList.replaceChildren();
    controls().forEach(function (control) {
      const item = document.createElement("li");
      const shown = control.type === "password" ? "(hidden)" : control.value.trim();
      item.textContent = labelOf(control) + ": " + shown;
      resultList.appendChild(item);
    });
    resultText.textContent = "Your answers are below. This demo keeps them in the page: nothing was sent.";
    form.hidden = true;
    result.hidden = false;
    result.focus();
  });

  again.addEventListener("click", function () {
    form.reset();
    controls().forEach(function (control) {
      control.removeAttribute("aria-invalid");
      const error = document.getElementById(control.id + "-error");
      if (error) {
        error.textContent = "";
      }
    });
    result.hidden = true;
    form.hidden = false;
    controls()[0].focus();
  });
})();
"""


def build(prompt: str) -> tuple[ProjectPlan, dict[str, str]]:
    submit, default_name = _purpose(prompt)
    brief = read_brief(prompt, default_name, frozenset(KEYWORDS) | {"contact"}, max_parts=MAX_FIELDS)
    name, subject = brief.name, brief.subject
    labels = brief.parts or DEFAULT_FIELDS
    fields, used = [], set()
    for label in labels:
        ident = "f-" + (re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") or "field")
        while ident in used:
            ident += "-2"
        used.add(ident)
        fields.append(_field_html(field_for(label), ident))
    intro = (
        f"Fill in the form for {subject}. Every field is required."
        if brief.topic
        else "Fill in the form below. Every field is required."
    )
    main = f"""    <section class="card form-card">
      <h1>{esc(name)}</h1>
      <p class="muted">{esc(intro)}</p>
      <form id="project-form" class="form" novalidate>
{chr(10).join(fields)}
        <div>
          <button type="submit">{submit}</button>
        </div>
      </form>
      <div id="form-result" class="result" tabindex="-1" hidden>
        <h2>Thank you!</h2>
        <p id="result-text"></p>
        <ul id="result-list"></ul>
        <button type="button" class="secondary" id="form-again">Fill in again</button>
      </div>
    </section>"""
    files = {
        "index.html": page(title=name, brand=name, main=main, footer=f"© {name}. Your answers stay in this page."),
        "style.css": stylesheet(theme_for(brief.rest), CSS),
        "app.js": JS,
    }
    listed = ", ".join(label.lower() for label in labels)
    plan = ProjectPlan(
        name=name,
        description=f"A form for {subject} ({listed}) validated in the browser, with a clear message next to each field.",
        files=[
            PlannedFile(path="index.html", language="html", description="The form and its success message"),
            PlannedFile(path="style.css", language="css", description="Theme colours, form layout, error states"),
            PlannedFile(path="app.js", language="javascript", description="Validation on submit and as you type"),
        ],
    )
    return plan, files
