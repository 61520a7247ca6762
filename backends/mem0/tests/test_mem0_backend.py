"""mem0 through the Backend protocol: real mem0ai (store-only), the real model, offline."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

import pytest
from backend_support import FACTS, T0, items, open_backend, smoke_run_guarded

from memory_bench import Item, NotSupportedError
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends

# What a run with the shared embedder (ONNX runtime) writes under HOME, whichever backend.
SHARED_EMBEDDER_HOME = (".cache/memory-bench", ".cache/Microsoft")


def _make(tmp_path: Path, spec: str = "mem0"):
    return open_backend(tmp_path, spec)


def test_listing_plugins_imports_neither_mem0_nor_torch() -> None:
    code = textwrap.dedent("""
        import json, sys
        from memory_bench.plugins import load_plugins
        info = load_plugins().registry.get("mem0")
        heavy = [m for m in ("mem0", "torch", "sentence_transformers", "faiss", "qdrant_client")
                 if m in sys.modules]
        print(json.dumps({"caps": sorted(c.value for c in info.capabilities), "heavy": heavy,
                          "libraries": list(info.libraries)}))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["caps"] == ["forget", "provenance"] and got["heavy"] == []
    assert got["libraries"][0] == "mem0ai"


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["mem0", "mem0:store=qdrant,scoring=store"])
def test_query_remove_count_and_provenance(tmp_path: Path, spec: str) -> None:
    b = _make(tmp_path, spec)
    try:
        from mem0.memory import telemetry

        assert telemetry.MEM0_TELEMETRY is False
        written = items("bench-a-e1", FACTS)
        assert all(r.accepted for r in b.write(written))
        b.write(items("other-b", ["Nils Berg repairs violins in Odense."], 50))
        hits = b.query("Who does Mara Olsen work for?", 3)
        assert hits[0].id == "bench-a-e1-0000"
        # Provenance: the source from mem0's metadata, the timestamp from its created_at.
        assert hits[0].source == "bench-a-e1" and hits[0].timestamp == written[0].timestamp
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert b.count("bench-") == 5 and b.count("") == 6 and b.count("bench-a-e1-000") == 5
        assert b.remove("bench-a-") == 5 and b.count("bench-") == 0 and b.count("") == 1
        assert [h.id for h in b.query("Who repairs violins?", 5)] == ["other-b-0000"]
        # Everything in the pair's own store: removed by one mem0 reset.
        assert b.remove("") == 1 and b.count("") == 0
        assert b.query("Who repairs violins?", 5) == []
        with pytest.raises(NotSupportedError):
            b.strength(["other-b-0000"])
    finally:
        b.close()


@pytest.mark.slow
def test_mem0s_score_is_the_cosine_with_its_threshold(tmp_path: Path) -> None:
    """What mem0's search does with scoring=store (see the README): (semantic + BM25 +
    entity boost) / the active weights, and with neither BM25 nor entities that is the
    cosine of the shared embedder's vectors; hits under the threshold (0.1) are dropped,
    so fewer than k may come."""
    from memory_bench_embed import get_embedder

    b = _make(tmp_path, "mem0:scoring=store")
    emb = get_embedder()
    try:
        # Cosine to the question about 0.09 and -0.09: under mem0's threshold.
        texts = [*FACTS, "Boil the pasta for nine minutes.",
                 "Quarterly revenue rose by three percent."]
        b.write(items("bench-c-e1", texts))
        question = "Where does Greta Lund live?"
        hits = b.query(question, 7)
        q = emb.encode_query(question)
        vecs = emb.encode(texts)
        cosine = {f"bench-c-e1-{i:04d}": float(q @ v) for i, v in enumerate(vecs)}
        assert hits[0].id == "bench-c-e1-0004"
        for h in hits:
            assert h.score == pytest.approx(cosine[h.id], abs=1e-4)
        kept = {i for i, c in cosine.items() if c >= 0.1}
        assert {h.id for h in hits} == kept and len(kept) == 5  # the threshold cut two
        # Threshold 0 keeps the pasta (0 < cosine < 0.1), not the negative cosine.
        lax = {h.id for h in _make_threshold(tmp_path, b).query(question, 7)}
        assert lax == {i for i, c in cosine.items() if c >= 0.0} and len(lax) == 6
    finally:
        b.close()
        emb.close()


@pytest.mark.slow
def test_mem0s_hybrid_score_is_cosine_plus_bm25_over_spacy_lemmas(tmp_path: Path) -> None:
    """scoring=hybrid (the default): mem0 lemmatises with the checked spaCy model and its
    FAISS store answers keyword_search, so each hit scores min((cosine + sigmoid(BM25)) /
    2, 1), BM25 over mem0's lemmas with mem0's query-length sigmoid; no entity boost
    (infer=False links no entities). Derived here from mem0's own helpers."""
    import bm25s
    from memory_bench_embed import get_embedder

    b = _make(tmp_path)  # before any mem0 import: it switches mem0's telemetry off
    from mem0.utils.lemmatization import lemmatize_for_bm25
    from mem0.utils.scoring import get_bm25_params, normalize_bm25

    emb = get_embedder()
    try:
        b.write(items("bench-h-e1", FACTS))
        question = "Who does Mara Olsen work for?"
        hits = b.query(question, 5)
        lemmas = [lemmatize_for_bm25(t).split() for t in FACTS]
        assert "work" in lemmas[0] and "works" not in lemmas[0]  # spaCy is on
        qlem = lemmatize_for_bm25(question)
        index = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        index.index(lemmas, show_progress=False)
        raw = index.get_scores([t for t in qlem.split() if t in index.vocab_dict])
        mid, steep = get_bm25_params(question, lemmatized=qlem)
        q = emb.encode_query(question)
        expected = {}
        for i, (v, r) in enumerate(zip(emb.encode(FACTS), raw, strict=True)):
            bm25 = normalize_bm25(float(r), mid, steep) if r > 0 else 0.0
            expected[f"bench-h-e1-{i:04d}"] = min((float(q @ v) + bm25) / 2, 1.0)
        assert hits[0].id == "bench-h-e1-0000"
        for h in hits:
            assert h.score == pytest.approx(expected[h.id], abs=1e-4)
    finally:
        b.close()
        emb.close()


@pytest.mark.slow
def test_mem0_gets_the_shared_embedders_vectors_and_loads_no_model_of_its_own(
        tmp_path: Path) -> None:
    code = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(Path(__file__).parents[3] / "tests")!r})
        from pathlib import Path
        from backend_support import FACTS, items, open_backend
        from memory_bench_embed import get_embedder
        b = open_backend(Path({str(tmp_path)!r}), "mem0:scoring=store")
        b.write(items("bench-v-e1", FACTS))
        stored = b.memory.vector_store.index.reconstruct(0)
        shared = get_embedder().encode([FACTS[0]])[0]
        print(json.dumps({{"st": "sentence_transformers" in sys.modules,
                          "diff": float(abs(stored - shared).max()),
                          "embedder": type(b.memory.embedding_model).__name__}}))
        b.close()
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"st": False, "diff": got["diff"], "embedder": "SharedEmbedding"}
    assert got["diff"] < 1e-6


def _make_threshold(tmp_path: Path, b):
    """The same store searched with threshold 0."""
    from memory_bench_mem0.backend import Mem0Memory

    return Mem0Memory(b.memory, b.ids, user_id=b.user_id, threshold=0.0, threads=1)


@pytest.mark.slow
def test_writing_an_id_again_replaces_it_and_the_store_reopens(tmp_path: Path) -> None:
    store = tmp_path / "store"
    b = _make(tmp_path, f"mem0:mode=persistent,path={store}")
    try:
        b.write(items("bench-x-e1", FACTS))
        b.write([Item("bench-x-e1-0000", "Mara Olsen works for Copperline Freight.",
                      "bench-x-e2", T0 + timedelta(hours=5))])
        assert b.count("bench-x-e1-0000") == 1 and b.count("") == 5
        hit = b.query("Who does Mara Olsen work for?", 1)[0]
        assert hit.id == "bench-x-e1-0000" and hit.source == "bench-x-e2"
    finally:
        b.close()
    again = _make(tmp_path, f"mem0:mode=persistent,path={store}")
    try:
        assert again.count("bench-x-") == 5
        assert again.query("Where was Ivo Brandt born?", 1)[0].id == "bench-x-e1-0001"
        assert again.remove("bench-x-") == 5 and again.count("") == 0
    finally:
        again.close()




@pytest.mark.slow
def test_a_run_tries_no_network_and_writes_nothing_in_home(tmp_path: Path) -> None:
    """The whole smoke scenario through the runner, both of mem0's stores: no connection
    or DNS lookup but loopback is attempted, telemetry is off, and mem0 writes nothing in
    the home directory (MEM0_DIR is the pair's workdir)."""
    got = smoke_run_guarded(["mem0", "mem0:store=qdrant,scoring=store"], tmp_path, extra="""
        import mem0.memory.telemetry
        RESULT["telemetry"] = mem0.memory.telemetry.MEM0_TELEMETRY
        """)
    assert got["attempts"] == []
    assert got["telemetry"] is False
    # Only the shared embedder's files (its ONNX export, onnxruntime's device id): none
    # of this system's own.
    own = [p for p in got["home"] if p != ".cache" and not p.startswith(SHARED_EMBEDDER_HOME)]
    assert own == []
    for label in ("mem0", "mem0:store=qdrant,scoring=store"):
        run = got["runs"][label]
        assert run["status"] == "ok", run["error"]
        assert run["cleanup_ok"]
        m = run["metrics"]
        assert m["recall5_before"] == 1.0 and m["provenanceAccuracy"] == 1.0
        assert m["gateRecall"] is None and m["strengthDelta"] is None


def test_bad_options_are_refused_before_any_pair(tmp_path: Path) -> None:
    """A store directory of the user's other files, a model mem0 cannot load offline."""
    from memory_bench.contract.options import OptionError

    (tmp_path / "history.db").write_text("the user's, not mem0's")
    registry = load_plugins().registry
    with pytest.raises(OptionError, match="holds files but no mem0 store of memory-bench's"):
        select_backends(registry, [f"mem0:mode=persistent,path={tmp_path}"])
    with pytest.raises(OptionError, match="option model: 'nope' is neither a model directory"):
        select_backends(registry, ["mem0:model=nope"])
    # a new directory is fine
    select_backends(registry, [f"mem0:mode=persistent,path={tmp_path / 'new'}"])


def test_the_id_table_keeps_sources_and_an_older_table_gains_the_column(tmp_path) -> None:
    import sqlite3

    from memory_bench_mem0.ids import IdMap

    path = tmp_path / "ids.sqlite"
    old = sqlite3.connect(str(path))  # as the adapter wrote it before forget
    old.execute("CREATE TABLE ids (item_id TEXT PRIMARY KEY, memory_id TEXT NOT NULL)")
    old.execute("INSERT INTO ids VALUES ('bench-r-old', 'm-0')")
    old.commit()
    old.close()
    ids = IdMap(path)
    ids.put([("bench-r-a", "m-1", "doc-1"), ("bench-r-b", "m-2", "doc-1"),
             ("bench-r-c", "m-3", "doc-2"), ("user-d", "m-4", "doc-1")])
    assert ids.of(["bench-r-c", "nope"]) == [("bench-r-c", "m-3")]
    assert ids.of(source="doc-1", prefix="bench-r-") == [("bench-r-a", "m-1"),
                                                         ("bench-r-b", "m-2")]
    assert ids.of(["bench-r-old"], source="doc-2") == [("bench-r-c", "m-3"),
                                                       ("bench-r-old", "m-0")]
    ids.close()
