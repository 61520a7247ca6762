"""Listing backends must not import bm25s; the registration is honest."""

from __future__ import annotations

import subprocess
import sys

from memory_bench_bm25 import plugin

from memory_bench.contract.capabilities import Capability
from memory_bench.plugins import load_plugins


def test_loading_plugins_does_not_import_bm25s() -> None:
    code = (
        "import sys\n"
        "from memory_bench.plugins import load_plugins\n"
        "loaded = load_plugins()\n"
        "assert 'bm25' in loaded.registry.names(), loaded.registry.names()\n"
        "heavy = {'bm25s', 'Stemmer', 'scipy', 'torch', 'sentence_transformers'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_registration() -> None:
    info = load_plugins([("bm25-test", plugin)], autoload=False).registry.get("bm25")
    assert info is not None
    assert [c for c in Capability if info.has(c)] == [Capability.PROVENANCE, Capability.FORGET]
    assert {o.name for o in info.options} == {"k1", "b", "method", "stopwords", "stemmer"}
