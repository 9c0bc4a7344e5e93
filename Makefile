# SecDash: `make run` serves the app, `make test` runs every test. Both install what is missing.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 3000
HOST ?= 127.0.0.1
# The venv's bin first: it holds the Node 24 that Reflex needs (the machine's node is older).
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export REFLEX_USE_NPM := 1
export REFLEX_USE_GRANIAN := 1
export REFLEX_TELEMETRY_ENABLED := false
# The site import's upload (rx.upload) makes Reflex create its upload folder; SecDash reads uploads in memory and never
# saves one, so the empty folder goes under .web instead of the project root.
export REFLEX_UPLOADED_FILES_DIR := $(CURDIR)/.web/uploaded_files
# These machines set PYTHONDONTWRITEBYTECODE: every Python process (a test worker, a CLI call, a bounded worker, the
# server) would compile each module it imports again. The bytecode goes under the venv instead (the tree stays clean).
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX := $(CURDIR)/$(VENV)/pycache

.PHONY: install run test test-fast fuzz lint bench browser real-parts clean

# uv installs the pinned requirements in seconds where pip took 26 s (pip installs uv first; pip again if uv fails).
# Nothing is compiled up front: Python compiles what it imports on first use.
UV := $(VENV)/bin/uv pip install -q --python $(PY)
PIP := $(PY) -m pip install -q --no-compile --disable-pip-version-check
$(VENV)/.installed: requirements.txt requirements-dev.txt requirements-engines.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PIP) uv==0.13.9
	$(UV) -r requirements-dev.txt || $(PIP) -r requirements-dev.txt
	$(UV) --no-deps --target $(VENV)/engines -r requirements-engines.txt || \
		$(PIP) --no-deps --upgrade --target $(VENV)/engines -r requirements-engines.txt
	touch $@

install: $(VENV)/.installed

# Debian's Chromium for the browser tests (Playwright's own browser download fails offline).
browser:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

# Debian's nginx, sqlmap and crowdsec-custom-bouncer for the real-parts test (tests/services/traffic/test_real_parts.py),
# each installed only when missing (no Recommends: the bouncer's would pull in the whole CrowdSec engine).
REAL_PARTS := /usr/sbin/nginx:nginx /usr/bin/sqlmap:sqlmap /usr/bin/crowdsec-custom-bouncer:crowdsec-custom-bouncer
real-parts:
	@missing=""; for part in $(REAL_PARTS); do test -x "$${part%%:*}" || missing="$$missing $${part##*:}"; done; \
	test -z "$$missing" || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; }

run: install browser
	$(PY) -m secdash init
	@echo "SecDash: serving on http://$(HOST):$(PORT) (sign in at http://$(HOST):$(PORT)/login)"
	$(VENV)/bin/reflex run --env prod --single-port --backend-port $(PORT) --backend-host $(HOST)

# The chat surfaces, drills, build and artifact generation that also run against a local OpenAI-compatible test
# server (the tests whose path differs with a model; the rest of their files ran against the offline engine).
MODEL_TESTS := tests/e2e/test_chats_model.py tests/security/browser/test_agent_reply_xss.py \
	tests/e2e/test_battle_station.py::test_each_attack_runs_a_measured_drill_from_its_button \
	tests/e2e/test_code_builder.py::test_build_continue_preview_download_and_clear \
	tests/e2e/test_code_artifacts.py::test_create_update_compare_restore_edit_preview_and_download

# Every test, and the lint. The browser tests (first against the offline engine, then against the test model) are
# the longest path: alone they take about 6.5 minutes (5:15 then 1:25) and use under one core, waiting on a live
# server and Chromium.
# The in-process tests run beside them on both cores (pytest-xdist, two workers, work-stealing so no core idles at
# the end) at a lower priority (nice 10), so they use what the browser tests leave instead of slowing them down.
# Their output is printed after the in-process run's; `make lint` runs when the in-process tests end. The
# schemathesis fuzz runs once in CI (make fuzz).
test: install browser real-parts
	@status=0; browser_log=$$(mktemp); \
	( $(PY) -m pytest -m e2e -q; offline=$$?; \
	  SECDASH_E2E_LLM=fake $(PY) -m pytest -q $(MODEL_TESTS); \
	  test $$offline -eq 0 -a $$? -eq 0 ) >$$browser_log 2>&1 & \
	browser=$$!; \
	echo "== in-process tests (2 workers, nice 10); the browser tests run beside them =="; \
	nice -n 10 $(PY) -m pytest -m "not e2e and not fuzz" -n 2 --dist worksteal -q || status=1; \
	echo "== lint =="; \
	$(MAKE) --no-print-directory lint || status=1; \
	wait $$browser || status=1; \
	echo "== the browser tests: offline engine, then the chat surfaces and drills against the test model =="; \
	cat $$browser_log; rm -f $$browser_log; \
	exit $$status

test-fast: install real-parts
	$(PY) -m pytest -m "not e2e and not fuzz" -n 2 --dist worksteal -q

fuzz: install
	$(PY) -m pytest -m fuzz -q

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

bench: install browser
	$(PY) -m bench
	$(PY) -m bench.page_weight

clean:
	rm -rf .web .states
