"""Listing backends must not import the model stack; the registration is honest."""

from __future__ import annotations

import subprocess
import sys

from memory_bench_neural_memory import plugin

from memory_bench.contract.capabilities import Capability
from memory_bench.plugins import load_plugins


def test_loading_plugins_imports_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "from memory_bench.plugins import load_plugins\n"
        "loaded = load_plugins()\n"
        "assert 'neural-memory' in loaded.registry.names(), loaded.registry.names()\n"
        "heavy = {'torch', 'sentence_transformers', 'transformers', 'bm25s'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_registration_declares_no_capability_and_its_options() -> None:
    loaded = load_plugins([("neural-memory-test", plugin)], autoload=False)
    info = loaded.registry.get("neural-memory")
    assert info is not None
    assert not any(info.has(c) for c in Capability)
    names = {o.name for o in info.options}
    assert {"model", "cache", "memory", "theta", "eta", "alpha", "hidden", "values"} <= names
    assert any("provenanceAccuracy is 0" in n for n in info.notes)
    assert any("codebook" in n for n in info.notes)
