"""The readout codebook: decoding, prefixes, re-written ids."""

from __future__ import annotations

import numpy as np
from memory_bench_neural_memory.codebook import Codebook


def test_decode_remove_count_by_prefix() -> None:
    book = Codebook(3)
    book.add(["bench-a-e1-0", "bench-a-e1-1", "bench-a-n-0"], np.eye(3))
    assert book.decode(np.array([0.1, 0.9, 0.0]), 2)[0][0] == "bench-a-e1-1"
    assert book.count("bench-a-e1") == 2
    assert book.count("bench-a") == 3
    assert book.remove("bench-a-e1") == 2
    assert book.count("bench-a") == 1
    assert [i for i, _ in book.decode(np.array([1.0, 1.0, 1.0]), 5)] == ["bench-a-n-0"]
    assert book.remove("bench-b") == 0


def test_rewritten_id_moves_to_the_end_with_its_new_value() -> None:
    book = Codebook(2)
    book.add(["x", "y"], np.eye(2))
    book.add(["x"], np.array([[0.0, 2.0]]))
    assert book.ids == ["y", "x"]
    assert len(book) == 2
    # y and x now hold the same direction; the tie keeps write order.
    assert [i for i, _ in book.decode(np.array([0.0, 1.0]), 2)] == ["y", "x"]


def test_nothing_recalled_decodes_to_nothing() -> None:
    book = Codebook(2)
    assert book.decode(np.ones(2), 3) == []
    book.add(["x"], np.eye(2)[:1])
    assert book.decode(np.zeros(2), 3) == []
    assert book.decode(np.ones(2), 0) == []
