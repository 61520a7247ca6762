"""The runtimes that turn texts into vectors: torch (sentence-transformers) or ONNX.

All three produce what sentence-transformers produces for all-MiniLM-L6-v2: the
encoder's last hidden state, mean-pooled over the attention mask, L2-normalised.

- ``torch``: sentence-transformers itself.
- ``onnx``: the same encoder exported to ONNX (``export.py``), run by
  onnxruntime with the model's own ``tokenizer.json`` (the Rust tokenizers
  library), pooled and normalised here. Its vectors equal torch's to float32
  noise (cosine >= 0.99999, tested on 400 texts of every length the generators
  write), so it shares torch's cache rows. Neither torch nor sentence-transformers
  is imported.
- ``onnx-int8``: the exported encoder with dynamically quantised int8 weights:
  about 2.5x faster per question, vectors close to but not equal to torch's
  (cosine about 0.99), so its cache rows are its own and its rows are labelled.
- ``cuda``: sentence-transformers on torch's first GPU, in float32 (torch does not
  use TF32 for float32 matmuls by default), so its vectors are torch's to float32
  noise; the model loads in the process that encodes, never before a fork (a CUDA
  context does not survive one). ``auto`` is ``cuda`` where torch sees a GPU and
  the CPU default otherwise (:func:`resolve_runtime`).

A runtime encodes one bucket of texts of equal token length at a time (the
embedder makes the buckets), so no padding ever enters a vector.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memory_bench_embed.export import (
    OPSET,
    exported_model,
    file_sha256,
    no_telemetry,
    transformer_dir,
)

__all__ = ["OnnxRuntime", "Runtime", "TorchRuntime", "cuda_available", "open_runtime",
           "resolve_runtime"]

CPU_DEFAULT = "onnx"  # what auto falls back to (embedder.DEFAULT_RUNTIME)


def cuda_available() -> bool:
    """Does torch see a CUDA device? False where torch is not installed (a CPU-only
    machine need not have it). Does not create a CUDA context, so forking stays safe."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def resolve_runtime(name: str) -> str:
    """``auto`` as this machine runs it: ``cuda`` with a GPU, else the CPU default."""
    if name != "auto":
        return name
    return "cuda" if cuda_available() else CPU_DEFAULT


class Runtime(Protocol):
    name: str
    numerics: str  # the cache key's part: runtimes with equal vectors share it
    model_path: str
    weights_sha256: str | None
    dim: int

    def token_lengths(self, texts: Sequence[str]) -> list[int]: ...

    def encode_bucket(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        """(len(texts), dim) float32 unit vectors; the texts have equal token length."""
        ...

    def manifest(self) -> dict[str, Any]: ...


class TorchRuntime:
    """sentence-transformers on torch, ``threads`` intra-op threads while encoding;
    on the GPU (``cuda``) when the model was loaded there."""

    name = "torch"
    numerics = "fp32"

    def __init__(self, loaded: Any, threads: int | None, name: str = "torch") -> None:
        self.name = name
        self._m = loaded
        self.threads = threads
        self.model_path, self.weights_sha256 = loaded.path, loaded.weights_sha256
        self.dim = loaded.dim

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        st = self._m.st
        tok = st.tokenizer(list(texts), truncation=True, max_length=st.max_seq_length)
        return [len(ids) for ids in tok["input_ids"]]

    def encode_bucket(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        from memory_bench_embed.model import _torch_threads, mark_inference

        mark_inference("torch")
        with _torch_threads(self.threads):
            vecs = self._m.st.encode(list(texts), batch_size=batch_size,
                                     normalize_embeddings=True, convert_to_numpy=True,
                                     show_progress_bar=False)
        return np.asarray(vecs, dtype=np.float32).reshape(len(texts), self._m.dim)

    def manifest(self) -> dict[str, Any]:
        return {"runtime": self.name, "threads": self.threads}


def _check_pipeline(model_dir: Path) -> tuple[int, int]:
    """The model's max_seq_length and dimension, after checking its modules are
    Transformer, mean Pooling, Normalize: the pipeline the ONNX runtime reproduces.
    Raises ValueError otherwise."""
    modules = json.loads((model_dir / "modules.json").read_text())
    kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
    if kinds != ["Transformer", "Pooling", "Normalize"]:
        raise ValueError(f"runtime onnx reproduces Transformer, Pooling, Normalize; this "
                         f"model has {kinds} (use runtime=torch)")
    pooling = json.loads((model_dir / modules[1]["path"] / "config.json").read_text())
    modes = [k for k, v in pooling.items() if k.startswith("pooling_mode") and v]
    if modes != ["pooling_mode_mean_tokens"]:
        raise ValueError(f"runtime onnx reproduces mean pooling; this model pools with "
                         f"{modes} (use runtime=torch)")
    config = json.loads((model_dir / "sentence_bert_config.json").read_text())
    return int(config["max_seq_length"]), int(pooling["word_embedding_dimension"])


def _threads_now() -> int | None:
    """This process's OS threads (Linux), or None where that cannot be read."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


class OnnxRuntime:
    """The exported encoder on onnxruntime; tokenised, pooled and normalised here.

    The session is made once per process, on first use or by :meth:`prepare`
    (the harness's preload, before it forks a child per pair). A session is
    used in a forked child only if making it started no thread (one intra-op
    thread: onnxruntime makes no pool, checked by counting the process's
    threads); otherwise each process makes its own, since thread pools do not
    survive a fork. Sharing saves each pair the session's 0.3-0.6 s.
    """

    def __init__(self, name: str, model_dir: Path, weights_sha256: str,
                 threads: int | None) -> None:
        self.name = name
        self.model_dir = model_dir
        self.model_path, self.weights_sha256 = str(model_dir), weights_sha256
        self.threads = threads
        self.max_len, self.dim = _check_pipeline(model_dir)
        self.path = exported_model(model_dir, weights_sha256, name)
        self.sha256 = file_sha256(self.path)
        self.numerics = "fp32" if name == "onnx" else f"int8-{self.sha256[:16]}"
        self._tok: Any = None
        self._session: Any = None
        self._pid = -1
        self._forkable = False  # the session started no thread: a child may use it
        self._inputs: set[str] = set()
        self._lock = threading.Lock()

    def prepare(self) -> None:
        """Make the tokenizer and session now (never running them)."""
        self._ready()

    def _ready(self) -> tuple[Any, Any]:
        with self._lock:
            if self._pid != os.getpid() and not (self._forkable and self._session is not None):
                # Rust tokenizers' thread pool would not survive a fork either.
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                no_telemetry()
                import onnxruntime as ort
                from tokenizers import Tokenizer

                before = _threads_now()  # after the imports: what the session itself starts

                tok = Tokenizer.from_file(str(transformer_dir(self.model_dir) / "tokenizer.json"))
                tok.no_padding()
                tok.enable_truncation(max_length=self.max_len)
                opts = ort.SessionOptions()
                opts.intra_op_num_threads = self.threads or 0
                opts.inter_op_num_threads = 1
                opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
                # No busy-waiting threads on a machine shared with other work.
                opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
                opts.log_severity_level = 3
                self._session = ort.InferenceSession(str(self.path), opts,
                                                     providers=["CPUExecutionProvider"])
                self._tok, self._pid = tok, os.getpid()
                self._inputs = {i.name for i in self._session.get_inputs()}
                self._forkable = before is not None and _threads_now() == before
            return self._tok, self._session

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        tok, _ = self._ready()
        return [len(e.ids) for e in tok.encode_batch(list(texts))]

    def encode_bucket(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        from memory_bench_embed.model import mark_inference

        tok, session = self._ready()
        mark_inference("onnxruntime")
        out = []
        for start in range(0, len(texts), batch_size):
            enc = tok.encode_batch(list(texts[start : start + batch_size]))
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            (hidden,) = session.run(None, feed)
            out.append(_mean_pool_normalise(hidden, mask))
        return np.concatenate(out).astype(np.float32, copy=False)

    def manifest(self) -> dict[str, Any]:
        from importlib import metadata

        return {"runtime": self.name, "onnx_sha256": self.sha256, "opset": OPSET,
                "onnxruntime": metadata.version("onnxruntime"), "threads": self.threads,
                "quantization": "dynamic per-channel QInt8 weights" if self.name != "onnx"
                else None}


def _mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """sentence-transformers' mean pooling (sum over the mask / clamp(count, 1e-9))
    and Normalize (x / max(||x||, 1e-12)), in float32."""
    if mask.all():  # always, in equal-length buckets: no padding to mask out
        pooled = hidden.sum(axis=1) / np.float32(hidden.shape[1])
    else:
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.maximum(norms, 1e-12)


_RUNTIMES: dict[tuple[str, str, int | None], Runtime] = {}
_RUNTIMES_LOCK = threading.Lock()


def open_runtime(name: str, model: str, threads: int | None) -> Runtime:
    """The process's runtime ``name`` over ``model`` (a packaged name or a model
    directory), made once: the torch model loads in about 5 s, an ONNX file is
    exported on first use ever and hashed once per process."""
    key = (name, model, threads)
    with _RUNTIMES_LOCK:
        rt = _RUNTIMES.get(key)
        if rt is None:
            rt = _RUNTIMES[key] = _open(name, model, threads)
        return rt


def _open(name: str, model: str, threads: int | None) -> Runtime:
    from memory_bench_embed.model import _weights_sha256, load_model, resolve_model

    name = resolve_runtime(name)
    if name == "torch":
        return TorchRuntime(load_model(model, "cpu"), threads)
    if name == "cuda":
        if not cuda_available():
            raise ValueError("runtime cuda: torch sees no CUDA device (torch.cuda."
                             "is_available() is false); runtime=auto falls back to the CPU")
        return TorchRuntime(load_model(model, "cuda"), threads, name="cuda")
    if name not in ("onnx", "onnx-int8"):
        raise ValueError(f"unknown runtime {name!r} (known: torch, onnx, onnx-int8, cuda, "
                         "auto)")
    resolved = resolve_model(model)
    if not isinstance(resolved, Path):
        raise ValueError(f"runtime {name} needs a model directory; {model!r} is not one "
                         "(use runtime=torch)")
    sha = _weights_sha256(str(resolved))
    if sha is None:
        raise ValueError(f"runtime {name}: no weights file in {resolved.name}")
    return OnnxRuntime(name, resolved, sha, threads)
