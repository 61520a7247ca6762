"""The WordNet slice: it loads, it is what its manifest's hash says, and it can be rebuilt."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memory_bench.scenarios.generators.wordnet import CorpusError, load_corpus

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "memory_bench" / "scenarios" / "corpus"


def test_slice_loads_and_matches_its_hash() -> None:
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    raw = gzip.decompress((CORPUS / manifest["slice"]).read_bytes())
    assert hashlib.sha256(raw).hexdigest() == manifest["sha256"]
    c = load_corpus()
    assert len(c.synsets) == manifest["synsets"] > 10_000
    assert c.manifest["source"]["package"] == "wordnet-base"
    car = [c.synsets[i] for i in c.by_word["car"]]
    assert any("motor vehicle" in s.definition and "automobile" in s.words for s in car)
    assert all(s.definition and len(s.words) == len(s.senses) for s in c.synsets)


def test_slice_is_small_and_ships_its_licence() -> None:
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    assert (CORPUS / manifest["slice"]).stat().st_size < 3_000_000
    notice = (CORPUS / manifest["licence"]).read_text()
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in notice
    assert "Permission to use, copy, modify and distribute" in notice


def _copy(tmp_path: Path) -> Path:
    d = tmp_path / "corpus"
    shutil.copytree(CORPUS, d)
    return d


def test_a_changed_slice_is_refused(tmp_path: Path) -> None:
    d = _copy(tmp_path)
    manifest = json.loads((d / "manifest.json").read_text())
    raw = gzip.decompress((d / manifest["slice"]).read_bytes())
    (d / manifest["slice"]).write_bytes(gzip.compress(raw.replace(b"motor vehicle", b"motor boat")))
    with pytest.raises(CorpusError, match="sha256"):
        load_corpus(d)


def test_a_missing_slice_is_refused(tmp_path: Path) -> None:
    d = _copy(tmp_path)
    (d / json.loads((d / "manifest.json").read_text())["slice"]).unlink()
    with pytest.raises(CorpusError, match="cannot be read"):
        load_corpus(d)


@pytest.mark.skipif(
    not Path("/usr/share/wordnet/data.noun").is_file(), reason="wordnet-base is not installed"
)
def test_rebuild_gives_the_same_bytes(tmp_path: Path) -> None:
    out = tmp_path / "rebuilt"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_corpus_slice.py"), "--out", str(out)],
        check=True, capture_output=True,
    )
    for name in ("wordnet-nouns.jsonl.gz", "manifest.json", "WORDNET-LICENSE"):
        assert (out / name).read_bytes() == (CORPUS / name).read_bytes(), name
