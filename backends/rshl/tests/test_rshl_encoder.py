"""The encoder: deterministic on any machine, and similarity ordered the way a reader expects."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from memory_bench_rshl.encoder import Encoder, IdfStats, content_stems, name_spans, pack_signs


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_same_seed_same_vectors_across_instances() -> None:
    a, b = Encoder(4096, seed=3), Encoder(4096, seed=3)
    text = "Mara Olsen works for Acme Foods."
    assert np.array_equal(a.encode(text), b.encode(text))
    assert not np.array_equal(a.encode(text), Encoder(4096, seed=4).encode(text))


def test_random_index_vectors_are_pinned() -> None:
    """SHAKE-256 of seed and feature: a fixed digest, whatever the machine or numpy version."""
    v = Encoder(4096, seed=0).vector("w:olsen")
    assert v.dtype == np.int8 and set(np.unique(v)) == {-1, 1}
    digest = hashlib.sha256(pack_signs(v.astype(np.float32)).tobytes()).hexdigest()
    expected = hashlib.shake_256(b"rshl/0/4096/w:olsen").digest(512)
    assert pack_signs(v.astype(np.float32)).tobytes() == expected
    assert len(digest) == 64


def test_dimension_16384_supported() -> None:
    acc = Encoder(16384).encode("Mara Olsen works for Acme Foods.")
    assert acc.shape == (16384,) and pack_signs(acc).shape == (256,)
    with pytest.raises(ValueError):
        Encoder(1000)


def test_question_words_and_stop_words_carry_no_feature() -> None:
    enc = Encoder(1024)
    assert enc.features("Who is it that does this?") == {}
    assert content_stems("Who does Mara Olsen work for?") == ["mara", "olsen", "work"]
    assert not np.any(enc.encode("What is it, and where was it?"))


def test_unordered_binding_meets_both_phrasings() -> None:
    enc = Encoder(4096)
    a = enc.features("the capital of Freedonia")
    b = enc.features("Freedonia's capital")
    assert "p:capital|freedonia" in a and "p:capital|freedonia" in b
    # The bound pair is quasi-orthogonal to both of its words.
    pair = enc.vector("p:capital|freedonia").astype(np.float32)
    assert abs(_cos(pair, enc.vector("w:capital").astype(np.float32))) < 0.1


def test_name_spans_are_capitalised_runs() -> None:
    assert name_spans("Who does Mara Olsen work for?") == [("mara olsen", 2)]
    assert [s for s, _ in name_spans("Lena Berg's dog lives in Upper Langridge.")] == [
        "lena berg",
        "upper langridge",
    ]


def test_similarity_ordering() -> None:
    enc = Encoder(4096, seed=1)
    stats = IdfStats()
    docs = [
        "Mara Olsen works for Acme Foods.",
        "Mara Olsen is employed by Acme Foods.",
        "Ivo Petrov works for Globex Shipping.",
        "The river Holen runs through East Oakdale.",
    ]
    for d in docs:
        stats.add(enc.features(d))
    v = [enc.encode(d, stats) for d in docs]
    paraphrase, same_template, unrelated = _cos(v[0], v[1]), _cos(v[0], v[2]), _cos(v[0], v[3])
    assert paraphrase > same_template > unrelated
    assert abs(unrelated) < 0.1
    q = enc.encode("Who does Mara Olsen work for?", stats)
    assert _cos(q, v[0]) > _cos(q, v[2]) > _cos(q, v[3])


def test_word_forms_meet_through_stems_and_trigrams() -> None:
    enc = Encoder(4096)
    works, worked, walks = (enc.encode(t) for t in ("she works", "she worked", "she walks"))
    assert _cos(works, worked) > _cos(works, walks)


def test_idf_down_weights_common_words() -> None:
    enc = Encoder(1024)
    stats = IdfStats()
    for i in range(20):
        stats.add(enc.features(f"person{i} works somewhere"))
    assert stats.idf("w:work") < stats.idf("w:person3")
    stats.remove(enc.features("person3 works somewhere"))
    assert stats.df["w:work"] == 19 and "w:person3" not in stats.df
