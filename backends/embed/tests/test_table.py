"""Encode once: the run's vector table, built batched, read by every embedder of its
identity, with misses counted and the encoder's per-question time measured."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from memory_bench_embed import VectorTable, embedder_from_options, shared_vectors

from memory_bench.contract.backend import BackendContext

ITEMS = ["Mara Olsen works for Fathom Foods.", "Ivo Brandt was born in Kellsport.",
         "The phone extension of Lena Park is 4471.", "Hi",
         "Tobias Wren's dog is called Biscuit, and he walks it every morning."]
QUESTIONS = ["Where does Mara Olsen work?", "What is Lena Park's extension?"]


def _ctx(tmp_path: Path, vectors: dict[str, str] | None = None) -> BackendContext:
    return BackendContext(workdir=tmp_path, seed=0, run_id="t", cache_dir=None,
                          vectors=vectors or {})


def test_a_table_reads_back_what_was_written_and_counts_misses(tmp_path: Path) -> None:
    vecs = np.arange(12, dtype=np.float32).reshape(3, 4)
    VectorTable.write(tmp_path / "t", ["a", "b", "c"], vecs, {"identity": "x"})
    table = VectorTable.open(tmp_path / "t")
    got, found = table.lookup(["c", "zz", "a"])
    assert found.tolist() == [True, False, True]
    assert np.array_equal(got[0], vecs[2]) and np.array_equal(got[2], vecs[0])
    assert not got[1].any()
    assert table.stats() == {"identity": "x", "rows": 3, "hits": 2, "misses": 1}
    with pytest.raises(FileExistsError):  # written once, never changed
        VectorTable.write(tmp_path / "t", ["a"], vecs[:1], {"identity": "x"})
    with pytest.raises(ValueError, match="distinct"):
        VectorTable.write(tmp_path / "u", ["a", "a"], vecs[:2], {"identity": "x"})


@pytest.mark.slow
def test_table_vectors_equal_what_each_backend_would_encode(tmp_path: Path) -> None:
    """Stored texts batched, questions one at a time: the same vectors an embedder makes
    on its own, to float32 noise at most (bucketed by token length, no padding), and an
    embedder over the table runs the model only for a miss."""
    options = {"model": "all-MiniLM-L6-v2", "runtime": "onnx", "threads": 1, "cache": False}
    source = shared_vectors(options)
    meta = source.build(ITEMS, QUESTIONS, tmp_path / "table")
    assert meta["items"] == len(ITEMS) and len(meta["query_encode_ms"]) == len(QUESTIONS)
    assert all(ms > 0 for ms in meta["query_encode_ms"])

    alone = embedder_from_options(options, _ctx(tmp_path))
    reader = embedder_from_options(options, _ctx(tmp_path,
                                                 {source.identity: str(tmp_path / "table")}))
    try:
        own_items, own_query = alone.encode(ITEMS), alone.encode_query(QUESTIONS[1])
        read_items, read_query = reader.encode(ITEMS), reader.encode_query(QUESTIONS[1])
        assert np.allclose(own_items, read_items, atol=1e-6)
        assert np.array_equal(own_query, read_query)  # batch 1 both ways: the same bits
        assert reader.stats["encoded"] == 0 and reader.stats["table_hits"] == len(ITEMS) + 1
        reader.encode(["a text nobody wrote"])
        assert reader.stats["table_misses"] == 1 and reader.stats["encoded"] == 1
    finally:
        alone.close()
        reader.close()


@pytest.mark.slow
def test_an_embedder_of_another_identity_reads_no_table(tmp_path: Path) -> None:
    """onnx-int8 vectors are not onnx's: a table of the other identity is never read,
    every text is then a miss, and the pair's report says so."""
    fp32 = {"model": "all-MiniLM-L6-v2", "runtime": "onnx", "threads": 1, "cache": False}
    source = shared_vectors(fp32)
    source.build(ITEMS[:2], [], tmp_path / "table")
    ctx = _ctx(tmp_path, {source.identity: str(tmp_path / "table")})
    emb = embedder_from_options({**fp32, "runtime": "onnx-int8"}, ctx)
    try:
        assert emb.identity != source.identity and emb.table is None
        emb.encode(ITEMS[:2])
        assert emb.stats["table_misses"] == 2 and emb.stats["encoded"] == 2
        assert ctx.report["embedders"][0]["table_misses"] == 2
    finally:
        emb.close()
