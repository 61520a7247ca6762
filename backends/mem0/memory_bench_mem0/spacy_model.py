"""mem0's spaCy pipelines from the checked ``en_core_web_sm`` 3.8.0, or none.

mem0 loads ``spacy.load("en_core_web_sm")`` and, when that package is missing,
downloads it from a hub (``mem0/utils/spacy_models.py``). Explosion does not
publish the model on PyPI; ``memory_bench_spacy_en`` provides its PyPI
re-upload, checked file by file. :func:`use_spacy` hands mem0 the two
pipelines it would build itself (all components for entities; ``ner`` and
``parser`` disabled for lemmas) from that directory; :func:`no_spacy` makes mem0
behave as when spaCy is not installed (the ``scoring=store`` row). Both set
mem0's module state, which is per process.
"""

from __future__ import annotations

from typing import Any

__all__ = ["no_spacy", "use_spacy"]


def _mem0_state() -> Any:
    from mem0.utils import spacy_models

    return spacy_models


def use_spacy() -> None:
    """Give mem0 the pipelines it builds in ``get_nlp_full`` / ``get_nlp_lemma``."""
    from memory_bench_spacy_en import load

    state = _mem0_state()
    with state._lock:
        state._nlp_full = load()
        state._nlp_lemma = load(disable=("ner", "parser"))
        state._load_failed_full = state._load_failed_lemma = False


def no_spacy() -> None:
    """mem0 as when spaCy is not installed: no lemmas, no entities, no download attempt."""
    state = _mem0_state()
    with state._lock:
        state._nlp_full = state._nlp_lemma = None
        state._load_failed_full = state._load_failed_lemma = True
