"""Listing backends imports no heavy library; the registration is honest."""

from __future__ import annotations

import subprocess
import sys

from memory_bench_hybrid import plugin

from memory_bench.contract.capabilities import Capability
from memory_bench.plugins import load_plugins

HEAVY = ("torch", "faiss", "bm25s", "Stemmer", "onnxruntime", "tokenizers",
         "sentence_transformers")


def test_listing_plugins_imports_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "from memory_bench.plugins import load_plugins\n"
        "names = load_plugins().registry.names()\n"
        "assert 'hybrid' in names, names\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_registration() -> None:
    info = load_plugins([("hybrid-test", plugin)], autoload=False).registry.get("hybrid")
    assert info is not None
    assert {c for c in Capability if info.has(c)} == {Capability.PROVENANCE, Capability.FORGET}
    names = {o.name for o in info.options}
    assert {"fusion", "k", "weight", "depth", "recency_weight", "half_life_hours"} <= names
    assert {"k1", "b", "stemmer", "model", "runtime", "cache"} <= names  # both sides' own
    defaults = {o.name: o.default for o in info.options}
    assert (defaults["fusion"], defaults["k"], defaults["depth"]) == ("rrf", 60, 50)
    assert defaults["recency_weight"] == 0.0
