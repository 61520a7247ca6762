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

.PHONY: venv test bench bench-persistent bench-natural bench-encoder bench-locomo sweep lint docs site chromium \
  clean-venv

venv: $(STAMP)

$(STAMP): pyproject.toml $(BACKEND_PROJECTS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet $(TORCH)
	$(PY) -m pip install --quiet -e '.[dev,dask]' $(foreach d,$(BACKEND_DIRS),-e ./$(d))
	touch $(STAMP)

test: venv chromium
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/python -m pytest

# The leaderboard site's test renders it in Debian's headless Chromium; installed when
# missing and this is root on a Debian machine (elsewhere the test skips, saying why).
chromium:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
	  && { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium \
	  >/dev/null; } || echo "chromium not installed: the site's browser test will skip"; }

# The docs site from docs/ into site/docs (--strict: a broken link or anchor fails).
docs: venv
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# The leaderboard: every published run under reports/, into site/leaderboard.
site: venv
	$(VENV)/bin/python -m memory_bench.site reports site/leaderboard

# Every first-party backend, with qdrant, mem0 and graphiti (the real systems beside our own
# wrappers; mem0 with its hybrid scoring and, as mem0:scoring=store, with the cosine alone),
# plus faiss-rag with the trivial rule gate (empty, under three words, exact duplicate) as the
# gate's reference row. The published scenarios are text-only, so no row reads tags
# (faiss-rag:supersede=tags would be faiss-rag here). hybrid fuses the bm25 and faiss-rag
# retrievers; rerank puts a cross-encoder over faiss-rag's (or hybrid's) top 20 (its
# default depth since issue 38: the same first hits as a top 50 on hard; docs/performance.md).
# The library stores (chroma, qdrant, mem0) run in their in-memory mode (mode=memory, the
# default: no write synced to disk, so their rows time the system, not this machine's
# disk); make bench-persistent runs them on disk beside it.
# --no-cache: no embedding cache from earlier runs, so the encoder's time and rate are cold.
# The run encodes each seed's distinct texts once per embedder identity (--encode once, the
# default) into a table every embedding backend of it reads: ingest and query latency are
# the stores' own, the encoder's rate and per-question time are reported beside them.
BENCH_BACKENDS := rshl faiss-rag faiss-rag-recency faiss-rag:gate=rules chroma qdrant mem0 \
  mem0:scoring=store graphiti bm25 neural-memory hybrid rerank $(AUDIT_BACKENDS)
# rerank:first=hybrid is left out: on hard and natural it ranks exactly as rerank does (the
# cross-encoder decides the order; faiss-rag's top 50 already holds what the fusion adds),
# and at ~0.4 s a question it is the matrix's most expensive row.
# The exploit audit (backends/audit): faiss-rag, faiss-rag-recency or the rule gate plus one
# rule that reads only the protocol (call order, position, names, form). Each row's gain over
# its base on the metric it targets is "what reading the protocol buys":
# python scripts/audit_gains.py RESULT.json
AUDIT_BACKENDS := audit-query-cache audit-similar-query-cache audit-oldest-first \
  audit-newest-since-question audit-same-name-newest audit-form-gate
BENCH_SEEDS := 10

# Where the pairs run: the process executor unless benchmarks/dask_speed.py measures
# the dask executor at <= 0.65x its wall time on this matrix (README, "Speed").
BENCH_EXECUTOR ?= --executor process
# As many pairs at once as this process has cores (pairs share no state: each its own
# store, the stores in memory), the longest rows first; the analysis likewise. Latency
# is then timed under the other pairs' load, as on any shared machine; WORKERS=1 times
# each pair alone (docs/performance.md).
WORKERS ?= auto
BENCH_RUN = $(VENV)/bin/memory-bench run --seeds $(BENCH_SEEDS) --no-cache --save $(BENCH_EXECUTOR) \
  --workers $(WORKERS)
# Two runs, two result files of a readable size: the honest rows, and the audit rows beside
# their bases (the bases run again: the same rows on the same data, so the same numbers).
AUDIT_BASES := faiss-rag faiss-rag-recency faiss-rag:gate=rules
HONEST_ARGS = $(foreach b,$(filter-out $(AUDIT_BACKENDS),$(BENCH_BACKENDS)),--backend $(b))
AUDIT_ARGS = $(foreach b,$(AUDIT_BASES) $(AUDIT_BACKENDS),--backend $(b))

bench: venv
	$(BENCH_RUN) $(HONEST_ARGS) --scenario hard
	$(BENCH_RUN) $(AUDIT_ARGS) --scenario hard

# What a persistent write costs: each library store in memory (as make bench runs it) and
# on disk (mode=persistent: the library's own store in the pair's workdir, every write as
# the library syncs it), in one run, so on the same data under the same load. Quality is
# identical (tests/test_store_modes.py); docs/performance.md quotes the costs.
STORE_BACKENDS := chroma qdrant mem0 mem0:scoring=store
PERSISTENT_BACKENDS := chroma:mode=persistent qdrant:mode=persistent mem0:mode=persistent \
  mem0:scoring=store,mode=persistent

bench-persistent: venv
	$(BENCH_RUN) $(foreach b,$(STORE_BACKENDS) $(PERSISTENT_BACKENDS),--backend $(b)) \
	  --scenario hard

# The same-encoder control: the lattice over the shared embedder (same model, runtime and
# cache as faiss-rag). bench-natural carries the two rows; bench-encoder pairs them on hard
# with lexical rshl and faiss-rag (make bench's hard table has neither).
ENCODER_BACKENDS := rshl:encoder=hybrid rshl:encoder=dense

bench-natural: venv
	$(BENCH_RUN) $(HONEST_ARGS) $(foreach b,$(ENCODER_BACKENDS),--backend $(b)) --scenario natural
	$(BENCH_RUN) $(AUDIT_ARGS) --scenario natural

bench-encoder: venv
	$(VENV)/bin/memory-bench run --seeds $(BENCH_SEEDS) --no-cache --save $(BENCH_EXECUTOR) \
	  $(foreach b,$(ENCODER_BACKENDS) rshl faiss-rag,--backend $(b)) --scenario hard

# LoCoMo is not shipped (CC BY-NC 4.0): get data/locomo10.json from
# github.com/snap-research/LoCoMo and give its path, relative so that the result holds no
# absolute path: make bench-locomo LOCOMO=../data/locomo10.json
# The rule-gate row is left out: the protocol writes no gate set here (there is nothing to
# refuse), so it would be faiss-rag again.
# rerank runs here over a top 20 (its row is rerank:depth=20, since issue 38 the default
# depth): LoCoMo asks 3,526 questions
# over ~590 turns a conversation; at depth 20 the row took 28 of the run's 57 minutes (load
# 4-8 on 2 shared cores), so a top 50 would take ~70 minutes alone (and one conversation
# overran the 30-minute pair timeout under load ~14). Batching the passes is no cure:
# benchmarks/rerank_speed.py measures a padded batch slower and a length-bucketed one
# changing every top-10 (the int8 model quantises a batch as one tensor).
LOCOMO_BACKENDS := rshl $(ENCODER_BACKENDS) faiss-rag faiss-rag-recency chroma qdrant mem0 \
  mem0:scoring=store graphiti bm25 neural-memory hybrid rerank:depth=20

bench-locomo: venv
	@test -n "$(LOCOMO)" || { echo "make bench-locomo: give LOCOMO=path/to/locomo10.json" >&2; exit 2; }
	$(VENV)/bin/memory-bench run --scenario locomo --set path=$(LOCOMO) --save \
	  $(foreach b,$(LOCOMO_BACKENDS),--backend $(b))

# The scale sweep (reports/): every backend from 10^3 to 10^5 items, and 10^6 for those that
# hold it here: bm25, rshl (lexical: 28 min and 8.3 GB at 10^6, measured 2026-12-02), and faiss-rag
# with int8 encoding (its own row at every size).
# No embedding cache: ingest is measured with a cold encoder. Several hours on 2 cores.
SWEEP_SIZES := 1000,10000,100000,1000000
SWEEP_BACKENDS := rshl bm25 faiss-rag faiss-rag-recency chroma neural-memory faiss-rag:runtime=onnx-int8
SWEEP_LIMITS := faiss-rag=100000 faiss-rag-recency=100000 chroma=100000 neural-memory=100000
SWEEP_SEEDS := --seeds 3 --seeds-at 100000=2 --seeds-at 1000000=1

sweep: venv
	$(VENV)/bin/memory-bench sweep --scenario scale --sizes $(SWEEP_SIZES) --save --timeout 43200 \
	  $(foreach b,$(SWEEP_BACKENDS),--backend $(b)) $(foreach l,$(SWEEP_LIMITS),--limit $(l)) \
	  $(SWEEP_SEEDS)

lint: venv
	$(VENV)/bin/ruff check .

clean-venv:
	rm -rf $(VENV)
