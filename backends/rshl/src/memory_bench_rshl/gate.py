"""The write gate: what the lattice refuses, merges or links, and why.

Refusals are cheap, text-only checks made before encoding: an empty text, a
text too short to state a fact, an exact duplicate of a stored text (after
whitespace normalisation). Near-duplicates are not refused but merged, and a
new value for a known (subject, relation) supersedes the old cell; the
decisions that need similarity live here too so that the rules sit in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_bench_rshl.encoder import content_stems, name_spans

__all__ = [
    "DUPLICATE",
    "DUPLICATE_ID",
    "EMPTY",
    "TOO_SHORT",
    "entity_spans",
    "is_near_duplicate",
    "normalise",
    "refusal",
    "text_subject",
]

EMPTY = "empty"
TOO_SHORT = "too_short"
DUPLICATE = "duplicate"
DUPLICATE_ID = "duplicate_id"  # an item id already stored: ids name items, so never reused

_WORD = re.compile(r"\S+")


def normalise(text: str) -> str:
    """Whitespace-normalised text: the key for exact-duplicate detection."""
    return " ".join(text.split())


def refusal(text: str, min_words: int, known: set[str] | dict[str, object]) -> str | None:
    """The reason to refuse ``text``, or None to let it through.

    ``known`` holds the normalised texts already stored (or accepted earlier in
    the same batch).
    """
    norm = normalise(text)
    if not norm:
        return EMPTY
    if len(_WORD.findall(norm)) < min_words:
        return TOO_SHORT
    if norm in known:
        return DUPLICATE
    return None


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def is_near_duplicate(
    text_a: str, text_b: str, cosine: float, min_cosine: float, min_jaccard: float
) -> bool:
    """Near-duplicates restate the same content: similar vectors *and* the same content words.

    The word check keeps "X works for Acme" and "X works for Globex" apart even
    when their vectors are close: a different value is an update, not a copy.
    """
    if cosine < min_cosine:
        return False
    return jaccard(content_stems(text_a), content_stems(text_b)) >= min_jaccard


def entity_spans(text: str) -> list[str]:
    """The proper-name spans of a sentence, in order ("mara olsen", "acme foods").

    A one-word span at the start of the sentence is dropped when another span
    follows: every sentence starts with a capital ("Records show that ...").
    """
    spans = name_spans(text)
    return [
        span
        for span, start in spans
        if not (start == 0 and " " not in span and len(spans) > 1)
    ]


def text_subject(text: str) -> str | None:
    """The first entity span of a sentence ("mara olsen"), or None."""
    spans = entity_spans(text)
    return spans[0] if spans else None
