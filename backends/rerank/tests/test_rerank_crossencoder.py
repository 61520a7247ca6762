"""The real shipped cross-encoder on onnxruntime: what it scores, and that a pair's score
does not depend on the other pairs scored with it."""

from __future__ import annotations

import numpy as np
import pytest
from memory_bench_rerank.crossencoder import CrossEncoder
from memory_bench_rerank.model import verified_model_dir

pytestmark = pytest.mark.slow

Q = "What is the name of Tobias Wren's dog?"
PASSAGES = ["Tobias Wren's dog is called Biscuit.", "Tobias Wren's cat is called Pepper.",
            "Tobias Wren likes dogs.", "The weather was mild in March."]


@pytest.fixture(scope="module")
def encoder() -> CrossEncoder:
    return CrossEncoder(verified_model_dir())


def test_the_answer_outscores_near_misses_and_noise(encoder: CrossEncoder) -> None:
    scores = encoder.score(Q, PASSAGES)
    assert scores.shape == (4,) and scores.dtype == np.float32
    assert int(np.argmax(scores)) == 0
    assert scores[3] == scores.min() and scores[3] < 0 < scores[0]
    assert encoder.stats["pairs"] == 4 and encoder.stats["score_s"] > 0


def test_a_pair_scores_the_same_alone_and_among_others(encoder: CrossEncoder) -> None:
    together = encoder.score(Q, PASSAGES)
    alone = np.array([encoder.score(Q, [p])[0] for p in reversed(PASSAGES)])[::-1]
    assert together.tolist() == alone.tolist()  # bit-identical: no batch-mates, no padding
    assert encoder.score(Q, []).shape == (0,)


def test_pairs_are_tokenised_as_the_model_was_trained(encoder: CrossEncoder) -> None:
    enc = encoder._tok.encode(Q, PASSAGES[0])
    assert enc.tokens[0] == "[CLS]" and enc.tokens.count("[SEP]") == 2
    first_sep = enc.tokens.index("[SEP]")
    assert set(enc.type_ids[: first_sep + 1]) == {0} and set(enc.type_ids[first_sep + 1:]) == {1}
    assert "[PAD]" not in enc.tokens  # the file asks for padding to 512; it is switched off
    long = encoder._tok.encode(Q, "word " * 2000)
    assert len(long.ids) == 512
