"""Listing backends imports no heavy library."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

HEAVY = ("torch", "faiss", "chromadb", "sentence_transformers", "transformers", "onnxruntime")


def test_listing_plugins_imports_no_heavy_library() -> None:
    code = textwrap.dedent(
        f"""
        import json, sys
        from memory_bench.plugins import load_plugins
        loaded = load_plugins()
        names = loaded.registry.names()
        info = {{n: sorted(c.value for c in loaded.registry.get(n).capabilities) for n in names}}
        heavy = [m for m in {HEAVY!r} if m in sys.modules]
        print(json.dumps({{"backends": info, "heavy": heavy,
                          "broken": [b.describe() for b in loaded.broken]}}))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["heavy"] == []
    assert got["backends"]["faiss-rag"] == ["forget", "provenance"]
    assert got["backends"]["faiss-rag-recency"] == ["forget", "provenance"]
    assert not [b for b in got["broken"] if "faiss" in b]
