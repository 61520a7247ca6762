"""The embedder's runtimes: onnx reproduces torch, int8 keeps its own cache rows, exports
are made once and reused, and an onnxruntime process is guarded against forking."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from memory_bench_embed import (
    DEFAULT_MODEL,
    backend_manifest,
    embedder_from_options,
    embedding_options,
    get_embedder,
    resolve_model,
)
from memory_bench_embed.export import EXPORT_RECIPE, file_sha256

from memory_bench.contract.backend import BackendContext
from memory_bench.contract.options import OptionError, resolve_options

pytestmark = pytest.mark.slow


@lru_cache(maxsize=1)
def _corpus() -> tuple[str, ...]:
    """Real texts of both built-in generators (facts, noise, questions, updates), made
    once for the module, sorted by length (ties by text)."""
    from scenario_helpers import generate, load_scenario

    out: list[str] = []
    for name in ("default", "natural"):
        for seed in range(2):
            data = generate(load_scenario(name), seed)
            out += [i.text for i in data.all_items()] + [f.question for f in data.facts]
    return tuple(sorted(dict.fromkeys(t for t in out if t.strip()), key=lambda t: (len(t), t)))


def _texts(n: int) -> list[str]:
    """n texts spread evenly over the corpus's lengths, shortest to longest: every
    length the generators write is in (the runtimes differ by input shape, if at all)."""
    corpus = _corpus()
    assert len(corpus) >= n
    return [corpus[i * (len(corpus) - 1) // (n - 1)] for i in range(n)]


def test_onnx_reproduces_sentence_transformers_on_texts_of_every_length() -> None:
    texts = _texts(400)
    torch_e, onnx_e = get_embedder(runtime="torch"), get_embedder(runtime="onnx")
    try:
        a, b = torch_e.encode(texts), onnx_e.encode(texts)
    finally:
        torch_e.close()
        onnx_e.close()
    cos = (a * b).sum(axis=1)
    assert float(cos.min()) >= 0.99999
    assert np.allclose((b**2).sum(axis=1), 1.0, atol=1e-5)
    # The same nearest other text for every text, as the metrics need.
    sa, sb = a @ a.T, b @ b.T
    np.fill_diagonal(sa, -np.inf)
    np.fill_diagonal(sb, -np.inf)
    assert (np.argmax(sa, axis=1) == np.argmax(sb, axis=1)).all()


def test_int8_is_close_but_not_equal_and_keeps_its_own_cache_rows(tmp_path: Path) -> None:
    texts = _texts(300)
    fp32 = get_embedder(runtime="onnx", cache_dir=tmp_path)
    int8 = get_embedder(runtime="onnx-int8", cache_dir=tmp_path)
    torch_e = get_embedder(runtime="torch", cache_dir=tmp_path)
    try:
        a = fp32.encode(texts)
        assert fp32.stats["encoded"] == len(texts)
        b = int8.encode(texts)  # not served from fp32's rows: its vectors differ
        assert int8.stats["encoded"] == len(texts) and int8.stats["cache_hits"] == 0
        c = torch_e.encode(texts)  # torch shares onnx's rows: equal vectors
        assert torch_e.stats["encoded"] == 0 and torch_e.stats["cache_hits"] == len(texts)
        assert a.tobytes() == c.tobytes()
    finally:
        for e in (fp32, int8, torch_e):
            e.close()
    cos = (a * b).sum(axis=1)
    assert 0.95 < float(cos.mean()) < 0.99999
    assert int8.key != fp32.key and fp32.key == torch_e.key


def test_the_manifest_names_the_runtime_and_the_exported_file() -> None:
    declared = embedding_options()
    for runtime in ("onnx", "onnx-int8"):
        options = resolve_options("x", declared, {"runtime": runtime})
        got = backend_manifest(options)["embedding_runtime"]
        e = embedder_from_options(options, BackendContext(workdir=Path("."), seed=0,
                                                          run_id="t", cache_dir=None))
        try:
            assert got["runtime"] == runtime
            assert got["onnx_sha256"] == file_sha256(e.rt.path)  # the file the pairs load
            assert e.manifest()["onnx_sha256"] == got["onnx_sha256"]
        finally:
            e.close()
        assert not any("/" in str(v) for v in got.values())
    torch_m = backend_manifest(resolve_options("x", declared, {"runtime": "torch"}))
    assert torch_m["embedding_runtime"]["runtime"] == "torch"
    with pytest.raises(OptionError):
        resolve_options("x", declared, {"runtime": "tensorrt"})


_CHILD = textwrap.dedent(
    """
    import json, os, sys, time
    from pathlib import Path
    from memory_bench_embed import exported_model, resolve_model, model_manifest
    from memory_bench_embed.runtime import open_runtime
    t0 = time.perf_counter()
    path = exported_model(Path(resolve_model("all-MiniLM-L6-v2")),
                          model_manifest()["weights_sha256"], sys.argv[1])
    first = time.perf_counter() - t0
    e = open_runtime(sys.argv[1], "all-MiniLM-L6-v2", 1)
    v = e.encode_bucket(["Who does Mara Olsen work for?"], 8)
    print(json.dumps({"path": str(path), "mtime": path.stat().st_mtime_ns,
                      "torch": "torch" in sys.modules, "norm": float((v ** 2).sum())}))
    """
)


def test_export_happens_once_into_the_models_dir_and_onnx_never_imports_torch(
        tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = {**os.environ, "MEMORY_BENCH_CACHE": str(tmp_path / "cache")}

    def run(runtime: str) -> dict:
        out = subprocess.run([sys.executable, str(script), runtime], env=env,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    first = run("onnx-int8")  # exports fp32, then quantises it
    models = tmp_path / "cache" / "models"
    assert sorted(p.name.split("-", 1)[1] for p in models.iterdir()) == [
        f"onnx-int8-{EXPORT_RECIPE}", f"onnx-{EXPORT_RECIPE}"]
    again = run("onnx-int8")
    assert again["path"] == first["path"] and again["mtime"] == first["mtime"]  # reused
    assert again["torch"] is False  # onnx runs with neither torch nor sentence-transformers
    assert abs(again["norm"] - 1.0) < 1e-5
    assert not list(models.glob("*/.export-*"))  # no half-written exports left


_FORK = textwrap.dedent(
    """
    import json, os
    from memory_bench_embed import preload
    from memory_bench.contract.forksafety import fork_unsafe_reason
    from memory_bench.harness.isolation import run_forked
    from memory_bench_embed.runtime import open_runtime
    preload({"runtime": "onnx", "threads": 1})
    before = fork_unsafe_reason()
    threads = len(os.listdir("/proc/self/task"))
    rt = open_runtime("onnx", "all-MiniLM-L6-v2", 1)
    got = run_forked(lambda send: rt.encode_bucket(["Where was Ivo Brandt born?"], 8).tolist(),
                     timeout=120)
    parent = rt.encode_bucket(["Where was Ivo Brandt born?"], 8).tolist()
    print(json.dumps({"before": before, "status": got.status, "equal": got.value == parent,
                      "after": fork_unsafe_reason(), "forkable": rt._forkable,
                      "threads": threads, "threads_now": len(os.listdir("/proc/self/task"))}))
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")
def test_a_preloaded_session_serves_forked_children_and_inference_guards_the_parent(
        tmp_path: Path) -> None:
    script = tmp_path / "fork.py"
    script.write_text(_FORK)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["before"] is None  # preload made the session but never ran it
    assert got["status"] == "ok" and got["equal"]  # the child used it, same vector
    assert "onnxruntime" in got["after"]  # the parent ran it: no more forks of it
    assert got["forkable"]  # made without starting a thread: shared with the child
    assert got["threads_now"] <= got["threads"]  # one intra-op thread: no pool, ever


def test_a_model_onnx_cannot_reproduce_is_refused(tmp_path: Path) -> None:
    src = Path(resolve_model(DEFAULT_MODEL))
    model = tmp_path / "cls-pooled"
    shutil.copytree(src, model, ignore=shutil.ignore_patterns("model.safetensors"))
    (model / "model.safetensors").symlink_to(src / "model.safetensors")
    pooling = model / "1_Pooling" / "config.json"
    cfg = json.loads(pooling.read_text())
    cfg.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    pooling.write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match="mean pooling"):
        get_embedder(str(model), runtime="onnx")
