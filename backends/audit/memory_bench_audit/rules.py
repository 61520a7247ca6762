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
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from memory_bench import Hit, Item, WriteResult

__all__ = ["PAST", "POOL", "AnswerGap", "AuditRow", "Chain", "DemoteReturned",
           "FirstAnswerGap", "ForgetLate", "FormGate", "JunkFormGate", "KeptCache",
           "LateDemote", "LooseQueryCache", "NewestSinceQuestion", "OldestFirst",
           "PastDemote", "PersonCount", "QueryCache", "QuietRun", "Rule", "SameNameNewest",
           "SimilarQueryCache", "SinceAsked", "StrengthCount", "SwapFirst", "TailBoost",
           "TailSwap", "UpdateGap", "UpdateGapOldest", "UpdateSince", "best_first",
           "subject_words"]

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
# History wording a cheater reads off the stream's old values ("used to", "back then", ...):
# a generic list of tense and time markers, not the generator's templates.
PAST = re.compile(r"\b(at first|back then|used to|before|earlier|former(ly)?|previous(ly)?|"
                  r"once|no longer|originally|until|in the past|had been)\b", re.IGNORECASE)


def _names(question: str) -> list[str]:
    """The capitalised words of a question after its first: the person it names."""
    return [w.casefold().removesuffix("'s") for w in _WORD.findall(question)[1:]
            if w[:1].isupper()]


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

    def strength(self, store: Any, ids: Sequence[str]) -> list[float | None]:
        return store.strength(ids)

    def forget(self, store: Any, ids: Sequence[str], source: str | None, prefix: str) -> int:
        return store.forget(ids, source, prefix)


def _text(store: Any, hit: Hit) -> str:
    """The stored text of a hit (the store's docstore: what the backend wrote)."""
    return store.docs.get(store.docs.label_of(hit.id)).item.text


def _first(hits: list[Hit], front: Callable[[Hit], bool]) -> list[Hit]:
    """``hits`` with those ``front`` picks first, each part in its own order."""
    return [h for h in hits if front(h)] + [h for h in hits if not front(h)]


class _Order(Rule):
    """Counts the writes, so a rule can read each item's position and the current one."""

    def __init__(self) -> None:
        self.order: dict[str, int] = {}

    def write(self, store: Any, items: Sequence[Item]) -> list[WriteResult]:
        for i in items:
            self.order.setdefault(i.id, len(self.order) + 1)
        return store.write(items)


class QueryCache(Rule):
    """A question asked before gets the answer it got then (re-probes word for word)."""

    def __init__(self) -> None:
        self.cache: dict[str, list[Hit]] = {}

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        if text not in self.cache:
            self.cache[text] = store.query(text, k)
        return self.cache[text][:k]


class KeptCache(QueryCache):
    """``QueryCache`` that drops what the store forgot from a cached answer (topped up
    from a fresh query): a question repeated after a forget call gets its earlier answer,
    and pays nothing on forgottenReturned."""

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        if text not in self.cache:
            return super().query(store, text, k)
        kept = [h for h in self.cache[text] if store.docs.label_of(h.id) is not None]
        fresh = [h for h in store.query(text, k) if h.id not in {x.id for x in kept}]
        return (kept + fresh)[:k]


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


class LooseQueryCache(SimilarQueryCache):
    """``SimilarQueryCache`` at cosine 0.8: a re-probe in new words still finds its
    earlier ask."""

    def __init__(self) -> None:
        super().__init__(threshold=0.8)


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


class OldestFirst(_Order):
    """A bonus for being written early (``weight`` for the first item, 0 for the newest):
    when the facts come before their interference, position tells them apart."""

    def __init__(self, weight: float = 0.1) -> None:
        super().__init__()
        self.weight = weight

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        n = max(1, len(self.order) - 1)
        bonus = {h.id: self.weight * (1 - (self.order.get(h.id, n + 1) - 1) / n) for h in hits}
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


class DemoteReturned(Rule):
    """Candidates some earlier question already got first go last: when every question
    has its own answer (a burst that asks each fact once), what was an answer is not."""

    def __init__(self) -> None:
        self.returned: set[str] = set()

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = _first(store.query(text, max(k, POOL)), lambda h: h.id not in self.returned)
        if hits:
            self.returned.add(hits[0].id)
        return hits[:k]


class PersonCount(Rule):
    """From the ``nth`` question naming a person on, the candidates naming that person go
    first, newest first: when only updated people are asked a third time, the count of
    questions names the update."""

    def __init__(self, nth: int = 3) -> None:
        self.nth = nth
        self.asked: Counter[tuple[str, ...]] = Counter()

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        words = tuple(_names(text))
        if not words:
            return hits[:k]
        self.asked[words] += 1
        if self.asked[words] < self.nth:
            return hits[:k]
        about = [h for h in hits if all(re.search(rf"\b{re.escape(w)}\b", _text(store, h),
                                                  re.IGNORECASE) for w in words)]
        about.sort(key=lambda h: h.timestamp, reverse=True)
        return (about + [h for h in hits if h not in about])[:k]


class PastDemote(Rule):
    """Candidates worded in the past ("used to", "back then", "before": ``PAST``) go
    last: when only old values are written so, the form names the stale item."""

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        return _first(hits, lambda h: not PAST.search(_text(store, h)))[:k]


class QuietRun(_Order):
    """Items written in a run of at least ``length`` writes with no question between go
    last: when a stretch of interference asks nothing, its items are not answers."""

    def __init__(self, length: int = 25) -> None:
        super().__init__()
        self.length = length
        self.run_of: dict[str, int] = {}  # item -> its run of writes
        self.runs: list[int] = [0]  # writes per run
        self.asked = False

    def write(self, store: Any, items: Sequence[Item]) -> list[WriteResult]:
        if self.asked:
            self.runs.append(0)
            self.asked = False
        for i in items:
            self.run_of.setdefault(i.id, len(self.runs) - 1)
        self.runs[-1] += len(items)
        return store.write(items)

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        self.asked = True
        hits = store.query(text, max(k, POOL))
        quiet = {r for r, n in enumerate(self.runs) if n >= self.length}
        return _first(hits, lambda h: self.run_of.get(h.id, -1) not in quiet)[:k]


class StrengthCount(Rule):
    """The strength reported is how often an item was returned in the top k: a number
    that grows with asking, whatever the memory keeps (ranking is the base's)."""

    def __init__(self) -> None:
        self.count: Counter[str] = Counter()

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, k)
        self.count.update(h.id for h in hits)
        return hits

    def strength(self, store: Any, ids: Sequence[str]) -> list[float | None]:
        return [float(self.count[i]) for i in ids]


class SwapFirst(Rule):
    """A question whose first hit was never returned before gets its top two swapped:
    recall before drops where the item is new, so a ratio of after to before rises."""

    def __init__(self) -> None:
        self.returned: set[str] = set()

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, 2))
        seen = bool(hits) and hits[0].id in self.returned
        self.returned.update(h.id for h in hits[:k])
        if len(hits) >= 2 and not seen:
            hits = [hits[1], hits[0], *hits[2:]]
        return hits[:k]


class AnswerGap(_Order):
    """A bonus ``weight`` for items written ``low`` to ``high`` writes before the question,
    a malus for fewer than ``low``: when a question comes a drawn gap after its answer
    (at least the stream's MIN_GAP), age says which item is asked about."""

    def __init__(self, low: int = 8, high: int = 130, weight: float = 0.1) -> None:
        super().__init__()
        self.low, self.high, self.weight = low, high, weight

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        now = len(self.order)

        def bonus(h: Hit) -> float:
            age = now - self.order.get(h.id, 0)
            return -self.weight if age < self.low else self.weight if age <= self.high else 0.0
        return sorted(hits, key=lambda h: -(h.score + bonus(h)))[:k]


class FirstAnswerGap(AnswerGap):
    """``AnswerGap`` on a question unlike any asked before (cosine of the question vectors
    below ``threshold``) only: a later ask of the same thing (a re-probe, long after its
    answer) keeps the base's order, so the window costs no retention."""

    def __init__(self, threshold: float = 0.8) -> None:
        super().__init__()
        self.threshold = threshold
        self.vectors: list[np.ndarray] = []

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        qvec = np.asarray(store.embedder.encode_query(text), dtype=np.float32).reshape(-1)
        asked = bool(self.vectors) and float(np.max(np.stack(self.vectors) @ qvec)) \
            >= self.threshold
        self.vectors.append(qvec)
        return store.query(text, max(k, POOL))[:k] if asked else super().query(store, text, k)


class LateDemote(_Order):
    """Items written past ``span`` of the stream's ``writes`` go last: facts (the answers
    of probes and re-probes) all fall in its first FACT_SPAN. The number of writes is
    the published scenario's (hard: 893 on every seed), which any reader of it knows."""

    def __init__(self, writes: int = 893, span: float = 0.75) -> None:
        super().__init__()
        self.limit = span * writes

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        return _first(hits, lambda h: self.order.get(h.id, 0) <= self.limit)[:k]


class ForgetLate(LateDemote):
    """``LateDemote`` once a forget call has come: the facts asked about after one (kept
    or forgotten) all fall in the stream's first FACT_SPAN, and so fewer update
    questions pay for the rule than on every question."""

    def __init__(self, writes: int = 893, span: float = 0.75) -> None:
        super().__init__(writes, span)
        self.forgot = False

    def forget(self, store: Any, ids: Sequence[str], source: str | None, prefix: str) -> int:
        self.forgot = True
        return store.forget(ids, source, prefix)

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        return super().query(store, text, k) if self.forgot else store.query(text, k)


class UpdateGap(_Order):
    """Among candidates naming the question's subject, one written at least ``gap`` of the
    stream after another goes first: a new value always comes that long after its fact
    (the blind stream's LATER_MIN), family distractors at any distance."""

    def __init__(self, writes: int = 893, gap: float = 0.3, oldest: bool = False) -> None:
        super().__init__()
        self.gap = gap * writes
        self.oldest = oldest

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        words = subject_words(text)
        if not words:
            return hits[:k]
        about = [h for h in hits if all(re.search(rf"\b{re.escape(w)}\b", _text(store, h),
                                                  re.IGNORECASE) for w in words)]
        if len(about) < 2:
            return hits[:k]
        pos = {h.id: self.order.get(h.id, 0) for h in about}
        oldest = min(pos.values())
        late = [h for h in about if pos[h.id] - oldest >= self.gap]
        late.sort(key=lambda h: pos[h.id], reverse=not self.oldest)
        return (late + [h for h in hits if h not in late])[:k]


class UpdateGapOldest(UpdateGap):
    """``UpdateGap`` taking the oldest of the late candidates first: an old value's history
    item is written after its new value, so of two late items the earlier is the new one.
    Order only, no wording."""

    def __init__(self) -> None:
        super().__init__(oldest=True)


class SinceAsked(_Order):
    """Candidates naming the question's person and written since the last question that
    named the person go first, newest first: when a person is asked again only after
    something new about them came, what came since is the answer."""

    def __init__(self) -> None:
        super().__init__()
        self.asked_at: dict[tuple[str, ...], int] = {}

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        words = tuple(_names(text))
        if not words:
            return hits[:k]
        last = self.asked_at.get(words)
        self.asked_at[words] = len(self.order)
        if last is None:
            return hits[:k]
        new = [h for h in hits if self.order.get(h.id, 0) > last
               and all(re.search(rf"\b{re.escape(w)}\b", _text(store, h), re.IGNORECASE)
                       for w in words)]
        new.sort(key=lambda h: self.order.get(h.id, 0), reverse=True)
        return (new + [h for h in hits if h not in new])[:k]


class TailSwap(_Order):
    """After the stream's last write (hard: 893 writes), a question whose first hit no
    earlier question since then returned gets its top two swapped: the reinforcement's
    cells are asked several times there, their matched controls once, so answering the
    once-asked worse widens a reinforced-minus-control difference."""

    def __init__(self, writes: int = 893) -> None:
        super().__init__()
        self.writes = writes
        self.returned: set[str] = set()

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        if len(self.order) < self.writes or not hits:
            return hits[:k]
        seen = hits[0].id in self.returned
        self.returned.add(hits[0].id)
        if len(hits) >= 2 and not seen:
            hits = [hits[1], hits[0], *hits[2:]]
        return hits[:k]


class TailBoost(_Order):
    """After the stream's last write, the item that earlier questions since then returned
    first at least twice goes first when it is a candidate: retrieval practice read from
    the call order (only the reinforcement asks one thing several times there)."""

    def __init__(self, writes: int = 893) -> None:
        super().__init__()
        self.writes = writes
        self.firsts: Counter[str] = Counter()

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        if len(self.order) < self.writes or not hits:
            return hits[:k]
        hits = _first(hits, lambda h: self.firsts[h.id] >= 2)
        self.firsts[hits[0].id] += 1
        return hits[:k]


class UpdateSince(_Order):
    """A candidate naming the question's person goes first when it was written since the
    last question naming the person and at least ``gap`` of the stream after another
    candidate naming them: a re-probe comes before its new value, an update question
    after, and a new value comes LATER_MIN after its fact. Order and names only."""

    def __init__(self, writes: int = 893, gap: float = 0.3) -> None:
        super().__init__()
        self.gap = gap * writes
        self.asked_at: dict[tuple[str, ...], int] = {}

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        words = tuple(_names(text))
        if not words:
            return hits[:k]
        last = self.asked_at.get(words)
        self.asked_at[words] = len(self.order)
        if last is None:
            return hits[:k]
        pos = {h.id: self.order.get(h.id, 0) for h in hits
               if all(re.search(rf"\b{re.escape(w)}\b", _text(store, h), re.IGNORECASE)
                      for w in words)}
        if not pos:
            return hits[:k]
        oldest = min(pos.values())
        new = [h for h in hits if h.id in pos and pos[h.id] > last
               and pos[h.id] - oldest >= self.gap]
        new.sort(key=lambda h: pos[h.id], reverse=True)
        return (new + [h for h in hits if h not in new])[:k]


class Chain(Rule):
    """Several rules at once (the cheater's row, tests/cheater_backend.py): writes go
    through every rule that keeps its own record, the query is the last reordering rule's
    over the candidates the others reorder in turn."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = list(rules)

    def write(self, store: Any, items: Sequence[Item]) -> list[WriteResult]:
        out: list[WriteResult] = []
        for n, r in enumerate(self.rules):
            out = r.write(_Recorder(store) if n < len(self.rules) - 1 else store, items)
        return out

    def query(self, store: Any, text: str, k: int) -> list[Hit]:
        hits = store.query(text, max(k, POOL))
        for r in self.rules:
            hits = r.query(_Fixed(store, hits), text, max(k, POOL))
        return hits[:k]

    def forget(self, store: Any, ids: Sequence[str], source: str | None, prefix: str) -> int:
        for r in self.rules[:-1]:
            r.forget(_Recorder(store), ids, source, prefix)
        return self.rules[-1].forget(store, ids, source, prefix) if self.rules else \
            store.forget(ids, source, prefix)

    def strength(self, store: Any, ids: Sequence[str]) -> list[float | None]:
        for r in self.rules:
            if type(r).strength is not Rule.strength:
                return r.strength(store, ids)
        return store.strength(ids)


class _Recorder:
    """A store that records nothing: a chained rule sees the writes, the last one stores."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        return [WriteResult(i.id, True) for i in items]

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        return 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


class _Fixed:
    """A store whose query answers a fixed candidate list: a chained rule reorders what
    the rule before it returned."""

    def __init__(self, store: Any, hits: list[Hit]) -> None:
        self.store, self.hits = store, hits

    def query(self, text: str, k: int) -> list[Hit]:
        return self.hits[:k]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


# Words no statement of a fact ends with: a fragment's last word.
_DANGLING = frozenset({"a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with",
                       "from", "and", "or", "called", "named", "is", "was", "as"})


class JunkFormGate(Rule):
    """The rule gate, and: refuse a text that ends in a word no statement ends with (a
    fragment), or names nothing (no capitalised word after the first, no digit: chit-chat
    and boilerplate). Form only: when junk has a form no accepted item has, it pays."""

    def write(self, store: Any, items: Sequence[Item]) -> list[WriteResult]:
        out: list[WriteResult] = []
        for item in items:
            words = _WORD.findall(item.text)
            if words and words[-1].casefold() in _DANGLING:
                out.append(WriteResult(item.id, False, "dangling_last_word"))
            elif words and not any(w[:1].isupper() for w in words[1:]) \
                    and not any(c.isdigit() for c in item.text):
                out.append(WriteResult(item.id, False, "names_nothing"))
            else:
                out.extend(store.write([item]))
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
        return self.rule.strength(self.store, ids)

    def consolidate(self) -> dict[str, Any]:
        return self.store.consolidate()

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        # Every row declares `forget`, as its base does: the store forgets, and a rule that
        # keeps answers of its own (a cache) keeps what was forgotten and pays for it on
        # forgottenReturned, unless it reads the call too (KeptCache, ForgetLate).
        return self.rule.forget(self.store, ids, source, prefix)

    def remove(self, prefix: str) -> int:
        return self.store.remove(prefix)

    def count(self, prefix: str) -> int:
        return self.store.count(prefix)

    def stats(self) -> dict[str, Any]:
        return {**self.store.stats(), "audit_rule": type(self.rule).__name__}

    def close(self) -> None:
        self.store.close()
