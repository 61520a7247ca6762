# The two commands a fresh machine needs: `make bench` and `make test`.
# Both create .venv when it is missing. The CPU-only torch goes in first, so that
# nothing later resolves a plain `torch` requirement to a CUDA build.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.memory-bench-installed
BACKEND_PROJECTS := $(sort $(wildcard backends/*/pyproject.toml))
BACKEND_DIRS := $(patsubst %/pyproject.toml,%,$(BACKEND_PROJECTS))
TORCH := torch==2.13.0

.PHONY: venv test bench bench-natural lint clean-venv

venv: $(STAMP)

$(STAMP): pyproject.toml $(BACKEND_PROJECTS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -e '.[dev]' $(foreach d,$(BACKEND_DIRS),-e ./$(d))
	touch $(STAMP)

test: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/python -m pytest

# Every first-party backend, plus faiss-rag with the trivial rule gate (empty, under three
# words, exact duplicate) as the gate's reference row. The published scenarios are
# text-only, so no row reads tags (faiss-rag:supersede=tags would be faiss-rag here).
# --no-cache: every embedding backend encodes what it stores, so ingest rates are cold.
BENCH_BACKENDS := rshl faiss-rag faiss-rag-recency faiss-rag:gate=rules chroma bm25 neural-memory
BENCH_SEEDS := 10
BENCH_RUN = $(VENV)/bin/memory-bench run --seeds $(BENCH_SEEDS) --no-cache --save \
	  $(foreach b,$(BENCH_BACKENDS),--backend $(b))

bench: venv
	$(BENCH_RUN) --scenario hard

bench-natural: venv
	$(BENCH_RUN) --scenario natural

lint: venv
	$(VENV)/bin/ruff check .

clean-venv:
	rm -rf $(VENV)
