"""Deterministic answer proxies: is the gold answer in the texts a memory returns, and how
many tokens do those texts cost a reader.

Public LoCoMo and LongMemEval leaderboards score answers with a language-model judge,
which cannot run here. Two proxies can, from the returned texts alone:

- **containment**: a gold phrase is *contained* in a text when its normalised words occur
  there contiguously (normalisation as SQuAD's answer F1: lower case, punctuation and the
  articles a/an/the dropped, whitespace collapsed); its *key tokens* are its normalised
  words minus the function words of ``generators/overlap.py``, each contained when it
  is a word of the text;
- **cost**: a text's tokens under :data:`TOKENIZER`, ``str.split()`` (whitespace tokens: a
  word-piece tokenizer counts about 1.3 of them per word of English prose, more on code).

A probe that carries answers is scored by the harness at query time (the written texts
never reach the result file): for each unit, phrases first and then key tokens, the
first rank whose text contains it (0: none of the returned texts).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Sequence

from memory_bench.metrics.answers import TOKENIZER
from memory_bench.scenarios.generators.overlap import STOP_WORDS

__all__ = ["TOKENIZER", "answer_ranks", "count_tokens", "key_tokens",
           "normalise"]

_PUNCT = re.compile(f"[{re.escape(string.punctuation)}‘’“”–—…]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")



def normalise(text: str) -> str:
    """Lower case, NFKC, punctuation and articles removed, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = _PUNCT.sub(" ", text)
    return " ".join(_ARTICLES.sub(" ", text).split())


def key_tokens(phrases: Sequence[str]) -> tuple[str, ...]:
    """The content words of ``phrases``, normalised, each once, in order."""
    seen: dict[str, None] = {}
    for p in phrases:
        for word in normalise(p).split():
            if word not in STOP_WORDS:
                seen.setdefault(word, None)
    return tuple(seen)


def count_tokens(text: str) -> int:
    """Tokens of ``text`` under :data:`TOKENIZER`."""
    return len(text.split())


def answer_ranks(phrases: Sequence[str], texts: Sequence[str]) -> tuple[list[int], int]:
    """For each unit (the normalised ``phrases``, then their key tokens), the first
    1-based rank of ``texts`` containing it, 0 for none; and how many units are phrases."""
    units = [p for p in (normalise(x) for x in phrases) if p]
    tokens = key_tokens(phrases)
    ranks = [0] * (len(units) + len(tokens))
    for rank, text in enumerate(texts, start=1):
        norm = normalise(text)
        padded, words = f" {norm} ", set(norm.split())
        for i, unit in enumerate(units):
            if not ranks[i] and f" {unit} " in padded:
                ranks[i] = rank
        for j, token in enumerate(tokens, start=len(units)):
            if not ranks[j] and token in words:
                ranks[j] = rank
    return ranks, len(units)
