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

.PHONY: venv test bench lint clean-venv

venv: $(STAMP)

$(STAMP): pyproject.toml $(BACKEND_PROJECTS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -e '.[dev,dask]' $(foreach d,$(BACKEND_DIRS),-e ./$(d))
	touch $(STAMP)

test: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/python -m pytest

# Every first-party backend, plus faiss-rag reading the same subject/relation tags
# that rshl uses to supersede, so the update comparison is not a tags-vs-no-tags one.
BENCH_BACKENDS := rshl faiss-rag faiss-rag-recency faiss-rag:supersede=tags chroma bm25 neural-memory

# Where the pairs run: the process executor unless benchmarks/dask_speed.py measures
# the dask executor at <= 0.65x its wall time on this matrix (README, "Speed").
BENCH_EXECUTOR ?= --executor process

bench: venv
	$(VENV)/bin/memory-bench run --scenario default --seeds 5 --save $(BENCH_EXECUTOR) \
	  $(foreach b,$(BENCH_BACKENDS),--backend $(b))

lint: venv
	$(VENV)/bin/ruff check .

clean-venv:
	rm -rf $(VENV)
