"""The Snake template: drawn on a <canvas>, steered with the keyboard, on-screen buttons or a swipe; the best
score stays in the browser's localStorage."""

from __future__ import annotations

from secdash.ai.plans import ProjectPlan
from secdash.ai.project_templates.brief import read_brief
from secdash.ai.project_templates.game_common import GAME_CSS, game_plan
from secdash.ai.project_templates.theme import Theme, esc, page, stylesheet, theme_for

KEYWORDS = ("snake", "game", "arcade")
HINTS = ("play", "score", "retro", "worm", "level", "levels")

SNAKE_CSS = (
    GAME_CSS
    + """
.board {
  display: block;
  width: 100%;
  max-width: 420px;
  aspect-ratio: 1 / 1;
  margin-inline: auto;
  border: 1px solid var(--border);
  border-radius: 0.5rem;
  background: var(--surface);
  touch-action: none;
}
.pad { display: grid; grid-template-columns: repeat(3, 3.25rem); gap: 0.4rem; justify-content: center; margin-top: 1rem; }
.pad button { padding: 0.6rem 0; }
.pad .up { grid-column: 2; }
.pad .left { grid-column: 1; grid-row: 2; }
.pad .down { grid-column: 2; grid-row: 2; }
.pad .right { grid-column: 3; grid-row: 2; }
"""
)

SNAKE_JS = """"use strict";

// Snake: eat the food, grow, do not hit the walls or yourself. Arrow keys or WASD, the on-screen pad, or a swipe.
(function () {
  const SIZE = 20;
  const canvas = document.getElementById("board");
  const context = canvas.getContext("2d");
  const scoreText = document.getElementById("score");
  const bestText = document.getElementById("best");
  const status = document.getElementById("status");
  const startButton = document.getElementById("start");
  const DIRECTIONS = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };
  const KEYS = {
    ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right",
    w: "up", s: "down", a: "left", d: "right", W: "up", S: "down", A: "left", D: "right"
  };
  let snake = [];
  let direction = "right";
  let queued = [];
  let food = null;
  let score = 0;
  let timer = null;
  let running = false;

  function readBest() {
    try {
      return Number(window.localStorage.getItem("snake-best")) || 0;
    } catch (error) {
      return 0;
    }
  }

  function saveBest(value) {
    try {
      window.localStorage.setItem("snake-best", String(value));
    } catch (error) {
      // storage can be blocked (private mode, sandbox): the best score then lasts for this visit only
    }
  }

  let best = readBest();

  function color(name, fallback) {
    const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    return value || fallback;
  }

  function placeFood() {
    const free = [];
    for (let x = 0; x < SIZE; x += 1) {
      for (let y = 0; y < SIZE; y += 1) {
        if (!snake.some(function (part) { return part.x === x && part.y === y; })) {
          free.push({ x: x, y: y });
        }
      }
    }
    food = free.length ? free[Math.floor(Math.random() * free.length)] : null;
  }

  function draw() {
    const ratio = window.devicePixelRatio || 1;
    const side = canvas.clientWidth;
    canvas.width = Math.round(side * ratio);
    canvas.height = Math.round(side * ratio);
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    const cell = side / SIZE;
    context.fillStyle = color("--surface", "#ffffff");
    context.fillRect(0, 0, side, side);
    if (food) {
      context.fillStyle = "#dc2626";
      context.beginPath();
      context.arc((food.x + 0.5) * cell, (food.y + 0.5) * cell, cell * 0.4, 0, Math.PI * 2);
      context.fill();
    }
    context.fillStyle = color("--accent", "#2563eb");
    snake.forEach(function (part, index) {
      context.globalAlpha = index === 0 ? 1 : 0.8;
      context.fillRect(part.x * cell + 1, part.y * cell + 1, cell - 2, cell - 2);
    });
    context.globalAlpha = 1;
  }

  function showScore() {
    scoreText.textContent = String(score);
    bestText.textContent = String(best);
  }

  function reset() {
    snake = [{ x: 8, y: 10 }, { x: 7, y: 10 }, { x: 6, y: 10 }];
    direction = "right";
    queued = [];
    score = 0;
    placeFood();
    showScore();
    draw();
  }

  function speed() {
    return Math.max(60, 140 - score * 3);
  }

  function turn(name) {
    const last = queued.length ? queued[queued.length - 1] : direction;
    const next = DIRECTIONS[name];
    const now = DIRECTIONS[last];
    if (next && !(next[0] === -now[0] && next[1] === -now[1]) && queued.length < 3) {
      queued.push(name);
    }
  }

  function gameOver() {
    running = false;
    window.clearTimeout(timer);
    if (score > best) {
      best = score;
      saveBest(best);
    }
    showScore();
    status.textContent = "Game over: " + score + " points. Press Start to play again.";
    startButton.textContent = "Start";
  }

  function step() {
    if (queued.length) {
      direction = queued.shift();
    }
    const move = DIRECTIONS[direction];
    const head = { x: snake[0].x + move[0], y: snake[0].y + move[1] };
    const hitWall = head.x < 0 || head.y < 0 || head.x >= SIZE || head.y >= SIZE;
    const eats = food && head.x === food.x && head.y === food.y;
    const body = eats ? snake : snake.slice(0, -1);
    if (hitWall || body.some(function (part) { return part.x === head.x && part.y === head.y; })) {
      gameOver();
      return;
    }
    snake = [head].concat(body);
    if (eats) {
      score += 1;
      showScore();
      placeFood();
    }
    draw();
    timer = window.setTimeout(step, speed());
  }

  function start() {
    if (running) {
      running = false;
      window.clearTimeout(timer);
      status.textContent = "Paused.";
      startButton.textContent = "Resume";
      return;
    }
    if (status.textContent.indexOf("Game over") === 0 || snake.length === 0) {
      reset();
    }
    running = true;
    status.textContent = "";
    startButton.textContent = "Pause";
    timer = window.setTimeout(step, speed());
  }

  startButton.addEventListener("click", start);
  document.addEventListener("keydown", function (event) {
    if (KEYS[event.key]) {
      event.preventDefault();
      turn(KEYS[event.key]);
    } else if (event.key === " " && event.target === document.body) {
      event.preventDefault();
      start();
    }
  });
  Array.prototype.slice.call(document.querySelectorAll("[data-turn]")).forEach(function (button) {
    button.addEventListener("click", function () {
      turn(button.getAttribute("data-turn"));
    });
  });

  let swipe = null;
  canvas.addEventListener("pointerdown", function (event) {
    swipe = { x: event.clientX, y: event.clientY };
  });
  canvas.addEventListener("pointerup", function (event) {
    if (!swipe) {
      return;
    }
    const dx = event.clientX - swipe.x;
    const dy = event.clientY - swipe.y;
    swipe = null;
    if (Math.max(Math.abs(dx), Math.abs(dy)) < 20) {
      return;
    }
    if (Math.abs(dx) > Math.abs(dy)) {
      turn(dx > 0 ? "right" : "left");
    } else {
      turn(dy > 0 ? "down" : "up");
    }
  });
  window.addEventListener("resize", draw);

  reset();
})();
"""


def build(prompt: str) -> tuple[ProjectPlan, dict[str, str]]:
    brief = read_brief(prompt, "Snake", frozenset(KEYWORDS))
    name = brief.name
    main = f"""    <section class="game">
      <h1>{esc(name)}</h1>
      <p class="muted">Eat the food and grow. Arrow keys or WASD to steer, or the buttons, or swipe on the board.</p>
      <div class="stats">
        <p>Score: <strong id="score">0</strong></p>
        <p>Best: <strong id="best">0</strong></p>
      </div>
      <canvas id="board" class="board" width="400" height="400" role="img" aria-label="Snake board"></canvas>
      <p class="status" id="status" aria-live="polite"></p>
      <div class="controls">
        <button type="button" id="start">Start</button>
      </div>
      <div class="pad" aria-label="Steer">
        <button type="button" class="up" data-turn="up" aria-label="Up">▲</button>
        <button type="button" class="left" data-turn="left" aria-label="Left">◀</button>
        <button type="button" class="down" data-turn="down" aria-label="Down">▼</button>
        <button type="button" class="right" data-turn="right" aria-label="Right">▶</button>
      </div>
    </section>"""
    files = {
        "index.html": page(title=name, brand=name, main=main, footer=f"© {name}. Your best score stays in this browser."),
        "style.css": stylesheet(theme_for(brief.rest, Theme(mode="dark", accent="green")), SNAKE_CSS),
        "app.js": SNAKE_JS,
    }
    return game_plan(
        name, "A Snake game on a canvas: keyboard, on-screen buttons and swipes, score and best score.", "Snake"
    ), files
