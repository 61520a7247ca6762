"""The audit rules: what a cheater would add to faiss-rag, reading only the protocol.

Each rule sees what every backend sees (text, source, timestamp) and the order of
calls, never the answer key, and changes one thing on top of an honest store (its
*base*): with the rule doing nothing, the row is its base, number for number.
A rule that gains on the metric it targets shows a leak in the protocol: a
memory scored there is partly scored for reading the stream, not for
remembering. ``AUDIT_ROWS`` (plugin.py) names each rule's target and base.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from memory_bench import Hit, Item, WriteResult

__all__ = ["POOL", "AuditRow", "FormGate", "NewestSinceQuestion", "OldestFirst", "QueryCache",
           "Rule", "SameNameNewest", "SimilarQueryCache", "best_first", "subject_words"]

POOL = 20  # candidates a reranking rule takes from its base before it reorders them
# Words of a question that name nothing: a cheater reads the question frames off the stream.
_FRAME = frozenset({
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "from", "with", "and", "or",
    "is", "are", "was", "were", "be", "been", "does", "do", "did", "what", "which", "who",
    "whom", "whose", "where", "when", "why", "how", "would", "you", "can", "could", "explain",
    "mean", "meant", "meaning", "term", "refer", "define", "definition", "it", "its", "his",
    "her", "their", "this", "that", "these", "those", "there", "has", "have", "had", "into",
    "world", "come", "town", "originally", "place", "origin", "hail", "based", "days",
    "address", "known", "called", "go", "goes",
})
_WORD = re.compile(r"[A-Za-z][\w'-]*")


def subject_words(question: str) -> list[str]:
    """The words a question names its subject by: its capitalised words after the first,
    or else the words that are no question frame's ("What does grip mean?" -> grip)."""
    words = _WORD.findall(question)
    names = [w.casefold() for w in words[1:] if w[:1].isupper()]
    if names:
        return [n.removesuffix("'s") for n in names]
    return [w.casefold() for w in words if w.casefold() not in _FRAME]


class Rule:
    """Does nothing: the row is its base."""

    def write(self, store: Any, items: Sequence[Item]) -> list[WriteResult]:
        return store.write(items)

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        return store.query(text, k)


class QueryCache(Rule):
    """A question asked before gets the answer it got then (re-probes word for word)."""

    def __init__(self) -> None:
        self.cache: dict[str, list[Hit]] = {}

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        if text not in self.cache:
            self.cache[text] = store.query(text, k)
        return self.cache[text][:k]


class SimilarQueryCache(Rule):
    """A question close to an earlier one (cosine of the question vectors at least
    ``threshold``) gets that question's answer: a cache that survives rewording."""

    def __init__(self, threshold: float = 0.9) -> None:
        self.threshold = threshold
        self.vectors: list[np.ndarray] = []
        self.answers: list[list[Hit]] = []

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        qvec = np.asarray(store.embedder.encode_query(text), dtype=np.float32).reshape(-1)
        if self.vectors:
            sims = np.stack(self.vectors) @ qvec
            best = int(np.argmax(sims))
            if sims[best] >= self.threshold:
                return self.answers[best][:k]
        hits = store.query(text, k)
        self.vectors.append(qvec)
        self.answers.append(hits)
        return hits


class NewestSinceQuestion(Rule):
    """Items of the last run of writes (written since the question before it) go first,
    for every question of the burst that follows: an update block read from order."""

    def __init__(self) -> None:
        self.since: set[str] = set()
        self.asked = False

    def write(self, store: Any, items: Sequence[Item]) -> list[WriteResult]:
        if self.asked:  # a new run of writes begins
            self.since, self.asked = set(), False
        self.since |= {i.id for i in items}
        return store.write(items)

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        self.asked = True
        hits = store.query(text, max(k, POOL))
        fresh = [h for h in hits if h.id in self.since]
        return (fresh + [h for h in hits if h.id not in self.since])[:k]


class SameNameNewest(Rule):
    """Among the candidates, those that name the question's subject go first, newest
    first: "the latest thing said about X" read from names and timestamps."""

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        words = subject_words(text)
        if not words:
            return hits[:k]
        texts = {h.id: store.docs.get(store.docs.label_of(h.id)).item.text.casefold()
                 for h in hits}
        about = [h for h in hits if all(re.search(rf"\b{re.escape(w)}\b", texts[h.id])
                                        for w in words)]
        about.sort(key=lambda h: h.timestamp, reverse=True)
        return (about + [h for h in hits if h not in about])[:k]


class OldestFirst(Rule):
    """A bonus for being written early (``weight`` for the first item, 0 for the newest):
    when the facts come before their interference, position tells them apart."""

    def __init__(self, weight: float = 0.1) -> None:
        self.weight = weight
        self.order: dict[str, int] = {}

    def write(self, store: Any, items: Sequence[Item]) -> list[WriteResult]:
        for i in items:
            self.order.setdefault(i.id, len(self.order))
        return store.write(items)

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        n = max(1, len(self.order) - 1)
        bonus = {h.id: self.weight * (1 - self.order.get(h.id, n) / n) for h in hits}
        return sorted(hits, key=lambda h: -(h.score + bonus[h.id]))[:k]


class FormGate(Rule):
    """The rule gate, and: refuse a text without a final period, and a text that rewords
    an item stored from the same source (cosine at least ``threshold``)."""

    def __init__(self, threshold: float = 0.9) -> None:
        self.threshold = threshold
        self.by_source: dict[str, list[np.ndarray]] = {}

    def write(self, store: Any, items: Sequence[Item]) -> list[WriteResult]:
        if not items:
            return []
        vectors = store.embedder.encode([i.text for i in items])
        out = []
        for item, vec in zip(items, vectors, strict=True):  # one by one: a batch rewords too
            text = item.text.strip()
            same = self.by_source.get(item.source, [])
            if text and not text.endswith("."):
                out.append(WriteResult(item.id, False, "no_final_period"))
            elif text and same and float(np.max(np.stack(same) @ vec)) >= self.threshold:
                out.append(WriteResult(item.id, False, "rewords_own_source"))
            else:
                (r,) = store.write([item])
                if r.accepted:
                    self.by_source.setdefault(item.source, []).append(vec)
                out.append(r)
        return out


def best_first(hits: list[Hit]) -> list[Hit]:
    """A reordered list with scores that never increase (the contract's order): a hit
    the rule moved up keeps the score of the one it overtook."""
    out: list[Hit] = []
    for h in hits:
        if out and h.score > out[-1].score:
            h = replace(h, score=out[-1].score)
        out.append(h)
    return out


class AuditRow:
    """An honest store and one rule; what the rule does not touch is the store's."""

    def __init__(self, store: Any, rule: Rule) -> None:
        self.store, self.rule = store, rule

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        return self.rule.write(self.store, items)

    def query(self, text: str, k: int) -> list[Hit]:
        return best_first(self.rule.query(self.store, text, k))

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        return self.store.strength(ids)

    def consolidate(self) -> dict[str, Any]:
        return self.store.consolidate()

    def remove(self, prefix: str) -> int:
        return self.store.remove(prefix)

    def count(self, prefix: str) -> int:
        return self.store.count(prefix)

    def stats(self) -> dict[str, Any]:
        return {**self.store.stats(), "audit_rule": type(self.rule).__name__}

    def close(self) -> None:
        self.store.close()
