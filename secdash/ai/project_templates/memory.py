"""The memory template: find the pairs among cards that are buttons (emoji chosen by a word of the prompt:
animals, fruit, space, sport, food); the best score stays in the browser's localStorage."""

from __future__ import annotations

from secdash.ai.plans import ProjectPlan
from secdash.ai.project_templates.brief import read_brief, words
from secdash.ai.project_templates.game_common import GAME_CSS, game_plan
from secdash.ai.project_templates.theme import Theme, esc, page, stylesheet, theme_for

KEYWORDS = ("memory", "game", "concentration", "pairs", "matching")
HINTS = ("card", "cards", "match", "flip", "pair", "emoji", "animals", "fruit")

SYMBOL_SETS = {  # chosen by a word of the prompt; emoji are plain text
    "animal": ("🐶", "🐱", "🦊", "🐼", "🐸", "🦁", "🐵", "🐧"),
    "fruit": ("🍎", "🍋", "🍇", "🍒", "🥝", "🍑", "🍍", "🍉"),
    "space": ("🚀", "🌙", "⭐", "🪐", "☄️", "🛰️", "👽", "🌍"),
    "sport": ("⚽", "🏀", "🎾", "🏈", "⚾", "🏐", "🏓", "🎱"),
    "food": ("🍕", "🍔", "🌮", "🍣", "🍩", "🍪", "🥐", "🧁"),
}
SYMBOL_WORDS = {
    "animal": "animal",
    "animals": "animal",
    "pet": "animal",
    "pets": "animal",
    "zoo": "animal",
    "fruit": "fruit",
    "fruits": "fruit",
    "space": "space",
    "planet": "space",
    "planets": "space",
    "sport": "sport",
    "sports": "sport",
    "food": "food",
    "snack": "food",
    "snacks": "food",
}

MEMORY_CSS = (
    GAME_CSS
    + """
.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 0.5rem; }
.memory-card {
  aspect-ratio: 1 / 1;
  padding: 0;
  font-size: clamp(1.5rem, 8vw, 2.4rem);
  border-radius: 0.6rem;
  background: var(--accent);
  color: var(--accent-text);
}
.memory-card.open, .memory-card.found { background: var(--surface); color: var(--text); border-color: var(--border); }
.memory-card.found { opacity: 0.6; cursor: default; }
"""
)

MEMORY_JS = """"use strict";

// Memory: turn two cards; a pair stays open. Find every pair in as few moves as you can.
(function () {
  const SYMBOLS = [__SYMBOLS__];
  const board = document.getElementById("cards");
  const movesText = document.getElementById("moves");
  const pairsText = document.getElementById("pairs");
  const bestText = document.getElementById("best");
  const status = document.getElementById("status");
  const restart = document.getElementById("restart");
  let open = [];
  let moves = 0;
  let found = 0;
  let locked = false;

  function readBest() {
    try {
      return Number(window.localStorage.getItem("memory-best")) || 0;
    } catch (error) {
      return 0;
    }
  }

  function saveBest(value) {
    try {
      window.localStorage.setItem("memory-best", String(value));
    } catch (error) {
      // storage can be blocked (private mode, sandbox): the best score then lasts for this visit only
    }
  }

  let best = readBest();

  function shuffled(list) {
    const copy = list.slice();
    for (let index = copy.length - 1; index > 0; index -= 1) {
      const other = Math.floor(Math.random() * (index + 1));
      const held = copy[index];
      copy[index] = copy[other];
      copy[other] = held;
    }
    return copy;
  }

  function showStats() {
    movesText.textContent = String(moves);
    pairsText.textContent = found + " / " + SYMBOLS.length;
    bestText.textContent = best ? String(best) : "-";
  }

  function hide(card) {
    card.classList.remove("open");
    card.textContent = "";
    card.setAttribute("aria-label", "Hidden card");
  }

  function flip(card) {
    if (locked || card.classList.contains("open") || card.classList.contains("found")) {
      return;
    }
    card.classList.add("open");
    card.textContent = card.dataset.symbol;
    card.setAttribute("aria-label", "Card " + card.dataset.symbol);
    open.push(card);
    if (open.length < 2) {
      return;
    }
    moves += 1;
    const first = open[0];
    const second = open[1];
    open = [];
    if (first.dataset.symbol === second.dataset.symbol) {
      first.classList.add("found");
      second.classList.add("found");
      found += 1;
      if (found === SYMBOLS.length) {
        if (!best || moves < best) {
          best = moves;
          saveBest(best);
        }
        status.textContent = "You found every pair in " + moves + " moves!";
      }
      showStats();
      return;
    }
    showStats();
    locked = true;
    window.setTimeout(function () {
      hide(first);
      hide(second);
      locked = false;
    }, 800);
  }

  function newGame() {
    board.replaceChildren();
    open = [];
    moves = 0;
    found = 0;
    locked = false;
    status.textContent = "";
    shuffled(SYMBOLS.concat(SYMBOLS)).forEach(function (symbol) {
      const card = document.createElement("button");
      card.type = "button";
      card.className = "memory-card";
      card.dataset.symbol = symbol;
      hide(card);
      card.addEventListener("click", function () {
        flip(card);
      });
      board.appendChild(card);
    });
    showStats();
  }

  restart.addEventListener("click", newGame);
  newGame();
})();
"""


def build(prompt: str) -> tuple[ProjectPlan, dict[str, str]]:
    brief = read_brief(prompt, "Memory Match", frozenset(KEYWORDS))
    name = brief.name
    chosen = next((SYMBOL_WORDS[word] for word in words(prompt) if word in SYMBOL_WORDS), "fruit")
    symbols = ", ".join(f'"{symbol}"' for symbol in SYMBOL_SETS[chosen])
    main = f"""    <section class="game">
      <h1>{esc(name)}</h1>
      <p class="muted">Turn over two cards at a time. Find all {len(SYMBOL_SETS[chosen])} pairs in as few moves as you can.</p>
      <div class="stats">
        <p>Moves: <strong id="moves">0</strong></p>
        <p>Pairs: <strong id="pairs">0</strong></p>
        <p>Best: <strong id="best">-</strong></p>
      </div>
      <div class="controls">
        <button type="button" id="restart">New game</button>
      </div>
      <p class="status" id="status" aria-live="polite"></p>
      <div class="cards" id="cards" aria-label="Cards"></div>
    </section>"""
    files = {
        "index.html": page(title=name, brand=name, main=main, footer=f"© {name}. Your best score stays in this browser."),
        "style.css": stylesheet(theme_for(brief.rest, Theme(accent="purple")), MEMORY_CSS),
        "app.js": MEMORY_JS.replace("__SYMBOLS__", symbols),
    }
    return game_plan(
        name, f"A memory game with {chosen} cards: find the pairs, count the moves, keep the best score.", "memory"
    ), files
