"""The dense and hybrid encoders over the real MiniLM model: exact scores, SimHash codes,
the lattice's mechanisms unchanged, and a saved lattice that knows its encoder."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from memory_bench_embed import embedder_from_options, embedding_options
from memory_bench_rshl import Lattice, LatticeConfig
from memory_bench_rshl.backend import embedding_identity
from memory_bench_rshl.dense import projection
from memory_bench_rshl.encoder import pack_signs
from memory_bench_rshl.encoders import make_encoder
from memory_bench_rshl.persist import StoreError

from memory_bench import BackendContext
from memory_bench.contract.options import resolve_options

pytestmark = pytest.mark.slow  # loads the embedding model


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory):
    options = resolve_options("rshl", embedding_options(), {})
    ctx = BackendContext(tmp_path_factory.mktemp("embed"), 0, "t", cache_dir=None)
    emb = embedder_from_options(options, ctx)
    yield emb
    emb.close()


def _lattice(embedder, kind: str, **settings) -> Lattice:
    config = LatticeConfig.calibrated(kind, dim=1024, seed=7, **settings)
    return Lattice(config, make_encoder(config, embedder, embedding_identity(embedder)))


def _filled(embedder, kind: str, facts, rec, **settings) -> Lattice:
    lat = _lattice(embedder, kind, **settings)
    lat.write([rec(f"t-e1-{i:04d}", text, minutes=i) for i, (text, _) in enumerate(facts)])
    return lat


def test_projection_is_seeded_and_its_signs_are_simhash() -> None:
    p = projection(3, 4096, 384)
    assert p.shape == (4096, 384) and p.dtype == np.float32 and not p.flags.writeable
    assert np.array_equal(p, projection.__wrapped__(3, 4096, 384))  # recomputed: the same
    assert not np.array_equal(p, projection(4, 4096, 384))
    assert abs(float(p.mean())) < 0.01 and abs(float(p.std()) - 1.0) < 0.01
    rng = np.random.default_rng(0)
    for angle in (0.3, 1.0, 2.0):  # Hamming / D estimates angle / pi
        a = rng.standard_normal(384)
        a /= np.linalg.norm(a)
        o = rng.standard_normal(384)
        o -= (o @ a) * a
        o /= np.linalg.norm(o)
        b = np.cos(angle) * a + np.sin(angle) * o
        ca, cb = pack_signs(p @ a.astype(np.float32)), pack_signs(p @ b.astype(np.float32))
        share = int(np.bitwise_count(ca ^ cb).sum()) / 4096
        assert abs(share - angle / np.pi) < 0.03


def test_dense_scores_are_the_embeddings_exact_cosine(embedder, facts, rec) -> None:
    lat = _filled(embedder, "dense", facts, rec, reinforce=False)
    stored = embedder.encode([t for t, _ in facts])
    for i, (_, question) in enumerate(facts):
        q = embedder.encode_query(question)
        hits = lat.query(question, 8)
        exact = {f"t-e1-{j:04d}": float(stored[j] @ q) for j in range(len(facts))}
        assert hits[0].id == f"t-e1-{i:04d}" == max(exact, key=exact.get)
        for h in hits:  # what faiss IndexFlatIP would score, to float32 rounding
            assert abs(h.similarity - exact[h.id]) < 1e-5


def test_hybrid_similarity_is_the_stated_weighted_sum(embedder, facts, rec) -> None:
    w = 0.3
    hybrid = _filled(embedder, "hybrid", facts, rec, dense_weight=w, reinforce=False)
    lexical = Lattice(replace(hybrid.config, encoder="lexical"))
    lexical.write([rec(f"t-e1-{i:04d}", text, minutes=i) for i, (text, _) in enumerate(facts)])
    dense = _filled(embedder, "dense", facts, rec, reinforce=False)
    for _, question in facts:
        got = {h.id: h.similarity for h in hybrid.query(question, 8)}
        lex = {h.id: h.similarity for h in lexical.query(question, 8)}
        den = {h.id: h.similarity for h in dense.query(question, 8)}
        for i, s in got.items():
            assert abs(s - ((1 - w) * lex.get(i, 0.0) + w * den[i])) < 1e-5


def test_the_lattice_mechanisms_run_unchanged_on_dense_vectors(embedder, facts, rec) -> None:
    lat = _filled(embedder, "dense", facts, rec, supersede="text")
    # gate: the same refusals, before any vector is made
    out = lat.write([rec("t-g-0000", "  ", 20), rec("t-g-0001", "too short", 21),
                     rec("t-g-0002", facts[0][0], 22)])
    assert [o.reason for o in out] == ["empty", "too_short", "duplicate"]
    # text-only supersession with the dense similarity and its calibrated thresholds:
    # another fact about the same person is not an update; the new employer is
    assert (lat.config.supersede_text_cosine, lat.config.supersede_relation) == (0.54, 0.25)
    other = lat.write([rec("t-e3-0000", "Mara Olsen collects antique maps of the Baltic.", 29)])
    assert other[0].accepted and other[0].supersedes is None
    new = lat.write([rec("t-e2-0000", "Mara Olsen now works for Initech.", 30)])[0]
    assert new.supersedes == "t-e1-0000"
    top = lat.query("Who does Mara Olsen work for?", 3)
    assert [h.id for h in top[:2]] == ["t-e2-0000", "t-e1-0000"]
    # strength: retrieval reinforces
    before = lat.strength(["t-e1-0003"])[0]
    for _ in range(3):
        lat.query(facts[3][1], 1)
    assert lat.strength(["t-e1-0003"])[0] > before
    # sleep: nothing to re-encode (no IDF), every cell kept, answers unchanged
    ids = [[h.id for h in lat.query(q, 3, reinforce=False)] for _, q in facts]
    report = lat.consolidate()
    assert report["reencoded"] == 0 and report["cells_after"] == report["cells_before"]
    assert [[h.id for h in lat.query(q, 3, reinforce=False)] for _, q in facts] == ids


def test_a_saved_lattice_opens_only_with_the_encoder_that_made_it(embedder, facts, rec,
                                                                tmp_path: Path) -> None:
    for kind in ("dense", "hybrid"):
        lat = _filled(embedder, kind, facts, rec)
        path = tmp_path / kind
        lat.save(path)
        assert (path / "vec.npy").is_file()
        saved = json.loads((path / "meta.json").read_text())["encoder"]
        assert saved["kind"] == kind and saved["model"] == embedder.name
        assert saved["weights_sha256"] == embedder.weights_sha256 and saved["embedding_dim"] == 384
        again = Lattice.load(path, make_encoder(lat.config, embedder,
                                                embedding_identity(embedder)))
        for _, q in facts:
            assert ([(h.id, h.score) for h in again.query(q, 5, reinforce=False)]
                    == [(h.id, h.score) for h in lat.query(q, 5, reinforce=False)])
        with pytest.raises(StoreError, match=r"holds .* vectors made with all-MiniLM-L6-v2"):
            Lattice.load(path)  # the lexical encoder by default
        other = {**embedding_identity(embedder), "weights_sha256": "0" * 64}
        with pytest.raises(StoreError, match="weights_sha256"):
            Lattice.load(path, make_encoder(lat.config, embedder, other))
    lexical = Lattice(LatticeConfig(dim=1024, seed=7))
    lexical.save(tmp_path / "lexical")
    config = LatticeConfig.calibrated("dense", dim=1024, seed=7)
    with pytest.raises(StoreError, match="kind='dense'"):
        Lattice.load(tmp_path / "lexical", make_encoder(config, embedder,
                                                        embedding_identity(embedder)))
