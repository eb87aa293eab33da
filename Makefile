# Every target sets up .venv by itself: on a fresh machine `make demo` and `make test` need only python3.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test lint docs eval review bench clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/filon demo

test: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
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
