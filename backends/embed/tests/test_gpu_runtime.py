"""runtime=cuda and runtime=auto on a machine without a GPU (issue 38): the selection and
the fallback, with torch's view of the GPU mocked; CI never needs one."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace
from typing import Any

import pytest
from memory_bench_embed import options as embed_options
from memory_bench_embed import runtime


def _gpu(monkeypatch: pytest.MonkeyPatch, present: bool) -> None:
    monkeypatch.setattr(runtime, "cuda_available", lambda: present)


@pytest.mark.parametrize(("present", "expected"), [(True, "cuda"), (False, "onnx")])
def test_auto_picks_cuda_only_where_torch_sees_a_gpu(monkeypatch: pytest.MonkeyPatch,
                                                     present: bool, expected: str) -> None:
    _gpu(monkeypatch, present)
    assert runtime.resolve_runtime("auto") == expected
    assert embed_options._runtime({"runtime": "auto"}) == expected
    for name in ("torch", "onnx", "onnx-int8", "cuda"):  # named runtimes are kept
        assert runtime.resolve_runtime(name) == name


def test_cuda_without_a_gpu_says_so_and_names_the_fallback(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _gpu(monkeypatch, False)
    with pytest.raises(ValueError, match=r"no CUDA device.*runtime=auto"):
        runtime._open("cuda", "all-MiniLM-L6-v2", 1)


def test_cuda_loads_the_model_on_the_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    _gpu(monkeypatch, True)
    devices: list[str] = []

    def load_model(model: str, device: str = "cpu") -> Any:
        devices.append(device)
        return SimpleNamespace(path="p", weights_sha256="w", dim=384, st=None)

    from memory_bench_embed import model

    monkeypatch.setattr(model, "load_model", load_model)
    rt = runtime._open("auto", "all-MiniLM-L6-v2", 1)
    assert devices == ["cuda"] and rt.name == "cuda" and rt.numerics == "fp32"
    assert rt.manifest() == {"runtime": "cuda", "threads": 1}


def test_cuda_is_never_loaded_before_the_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    """preload runs in the parent before pairs fork: for cuda it imports, never loads."""
    _gpu(monkeypatch, True)
    opened: list[str] = []
    monkeypatch.setattr(embed_options, "open_runtime", lambda *a, **k: opened.append(a[0]))
    embed_options.preload({"runtime": "cuda"})
    assert opened == []
    assert embed_options.backend_manifest({"runtime": "auto"})["embedding_runtime"] == {
        "runtime": "cuda", "threads": 1}
    assert opened == []
    _gpu(monkeypatch, False)
    embed_options.preload({"runtime": "auto"})
    assert opened == ["onnx"]


def test_no_torch_means_no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real(name, *a))
    assert runtime.cuda_available() is False
    assert runtime.resolve_runtime("auto") == "onnx"
