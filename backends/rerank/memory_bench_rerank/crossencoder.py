"""Scoring (question, passage) pairs with the shipped cross-encoder on onnxruntime.

Tokenised with the model's own ``tokenizer.json`` (the Rust ``tokenizers``
library): ``[CLS] question [SEP] passage [SEP]``, segment ids 0 then 1,
truncated to 512 tokens longest-first, never padded (the file asks for padding
to 512, which only costs time). The score is the model's logit: higher is more
relevant (the sigmoid a library may apply does not change an order).

Each pair is run alone. The shipped model quantises its activations per
tensor at run time (int8 dynamic quantisation), so in a batch a pair's score
moves with its batch-mates: alone, a pair's score is a function of the pair,
and a run does not depend on which other candidates came up with it.

The session is made by the backend's factory, in the process that uses it
(thread pools do not survive a fork), so no query pays for loading it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CrossEncoder"]

MAX_LENGTH = 512


class CrossEncoder:
    """The int8 ms-marco MiniLM cross-encoder: ``score(question, passages)``."""

    def __init__(self, directory: Path, threads: int | None = 1) -> None:
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import onnxruntime as ort
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(directory / "tokenizer.json"))
        tok.no_padding()
        tok.enable_truncation(max_length=MAX_LENGTH, strategy="longest_first")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or 0
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # No busy-waiting threads on a machine shared with other work.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        self._session = ort.InferenceSession(str(directory / "model.onnx"), opts,
                                             providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tok = tok
        self.stats: dict[str, float] = {"pairs": 0, "score_s": 0.0}

    def score(self, question: str, passages: Sequence[str]) -> np.ndarray:
        """One logit per passage, in the order given."""
        from memory_bench_embed.model import mark_inference  # the fork guard knows

        mark_inference("onnxruntime")
        start = time.perf_counter()
        out = np.empty(len(passages), dtype=np.float32)
        for j, enc in enumerate(self._tok.encode_batch([(question, p) for p in passages])):
            out[j] = self._run(enc)
        self.stats["pairs"] += len(passages)
        self.stats["score_s"] += time.perf_counter() - start
        return out

    def _run(self, enc: Any) -> float:
        feed = {"input_ids": np.array([enc.ids], dtype=np.int64),
                "attention_mask": np.array([enc.attention_mask], dtype=np.int64)}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.array([enc.type_ids], dtype=np.int64)
        (logits,) = self._session.run(None, feed)[:1]
        return float(np.asarray(logits).reshape(-1)[0])
