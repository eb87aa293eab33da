# Every target sets up .venv by itself: on a fresh machine `make demo` and `make test` need only python3.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
WORKERS ?= 2
STAMP := $(VENV)/.installed

.PHONY: install demo test test-unit lint docs eval review bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/filon demo

# every tier, two workers (pytest-xdist); `make test PYTEST_ARGS=-n0` runs them one after another
test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(WORKERS) $(PYTEST_ARGS)

# the tests that need no server, model, database server, terminal or browser: a minute or two
test-unit: $(STAMP)
	$(BIN)/python -m pytest -q -n $(WORKERS) -m "not postgres and not model and not server and not tmux and not browser" $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	# the benchmarks too: nothing else runs them, and a renamed field had broken three unseen
	MYPYPATH=bench $(BIN)/mypy --explicit-package-bases bench/*.py
	$(BIN)/lint-imports

# The documentation site (docs/ into var/site), strict: a broken link fails the build
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# The gate on the real model: needs GEMINI_API_KEY / GOOGLE_API_KEY (or Vertex AI settings); exit 3 without.
eval: $(STAMP)
	$(BIN)/filon eval $(if $(EVAL_SEUIL),--seuil $(EVAL_SEUIL),)

review: $(STAMP)
	$(BIN)/filon review

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
