"""Reusable metric computations over a :class:`RecordView`.

A metric is declared by its per-question outcomes and an aggregate
(``metrics/spec.py``); these build the outcomes, so a declaration reads as what
it measures: ``probe_outcomes(hit_at(1), "probe")`` aggregated by ``mean`` is
the share of ``probe`` questions whose first hit answers them. Rows are keyed
by ``tag/key`` for probes (the key names the question within its seed), by
item id for items, by cell for strengths and by call for writes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from memory_bench.metrics.spec import Outcomes, RecordView
from memory_bench.records.records import ProbeRecord

__all__ = [
    "LATENCY_PARTS",
    "all_at",
    "any_at",
    "flag_rows",
    "forget_latency_outcomes",
    "found",
    "ingest_outcomes",
    "latency_outcomes",
    "ndcg",
    "paired_recall_outcomes",
    "probe_outcomes",
    "reciprocal",
    "refused_outcomes",
    "reinforcement_outcomes",
    "retention_outcomes",
    "scored_outcomes",
    "strength_outcomes",
]

Flag = Callable[[ProbeRecord], bool]


def _key(p: ProbeRecord, i: int) -> str:
    return f"{p.tag}/{p.key}" if p.key is not None else f"{p.tag}/#{i}"


def _rows(pairs: Iterable[tuple[str, tuple[float, ...]]]) -> Outcomes:
    """Rows by key, every one kept: a key met again (one question asked twice, an id
    written twice) gets ``#2``, ``#3``..., so the metric counts each as its own row."""
    out: Outcomes = {}
    for key, row in pairs:
        name, n = key, 1
        while name in out:
            n += 1
            name = f"{key}#{n}"
        out[name] = row
    return out


def flag_rows(flag: Flag, probes: Iterable[ProbeRecord]) -> Outcomes:
    """1.0 / 0.0 per probe of ``probes`` as ``flag`` holds, keyed by tag and question,
    every one kept (a question asked three times is three rows)."""
    return _rows((_key(p, i), (float(flag(p)),)) for i, p in enumerate(probes))


def probe_outcomes(flag: Flag, *tags: str) -> Callable[[RecordView], Outcomes]:
    """1.0 / 0.0 per probe of ``tags`` as ``flag`` holds: the rows of a share."""
    def f(v: RecordView) -> Outcomes:
        return flag_rows(flag, v.probes(*tags))
    return f


def hit_at(k: int) -> Flag:
    """An expected id is within the first ``k`` hits."""
    return lambda p: (p.best_rank(p.expected) or k + 1) <= k


def wins(p: ProbeRecord) -> bool:
    """An expected id outranks every ``outrank`` id (old absent, new present wins)."""
    new, old = p.best_rank(p.expected), p.best_rank(p.outrank)
    return new is not None and (old is None or new < old)


def stale(p: ProbeRecord) -> bool:
    """An ``outrank`` id is still in the top-k."""
    return p.best_rank(p.outrank) is not None


def returns_forgotten(p: ProbeRecord) -> bool:
    """An id forgotten before the question is in its top-k: it came back."""
    return bool(set(p.forgotten) & set(p.returned))


def names_its_own(p: ProbeRecord) -> bool:
    """The top hit reports the source and timestamp written for the item it names."""
    return (bool(p.returned) and p.top_source is not None and p.top_timestamp is not None
            and p.top_source == p.written_source and p.top_timestamp == p.written_timestamp)


def reports_the_answer(p: ProbeRecord) -> bool:
    """The top hit reports the source and timestamp written for an expected item: the
    newest value's, on an update probe. A stale hit (the old value's provenance), a
    wrong one or none loses."""
    if not p.returned or p.top_source is None or p.top_timestamp is None:
        return False
    return any(p.top_source == s and p.top_timestamp == t
               for s, t in zip(p.expected_sources, p.expected_timestamps, strict=False)
               if s is not None)


def reports_every_source(p: ProbeRecord) -> bool:
    """Every expected item's written source is among the sources reported by the first
    ``len(expected)`` hits: a merged cell listing them all, or each item in its place.
    Partial provenance (one source of two) loses."""
    want = {s for s in p.expected_sources if s is not None}
    got = {s for hit in p.hit_sources[:len(p.expected)] for s in hit}
    return bool(want) and want <= got


def forget_latency_outcomes(*tags: str) -> Callable[[RecordView], Outcomes]:
    """Each forget call's latency in milliseconds, keyed by its tag and call number."""
    def f(v: RecordView) -> Outcomes:
        return {f"{r.tag}/#{i}": (r.latency_ms,) for i, r in enumerate(v.forgets(*tags))}
    return f


def found(p: ProbeRecord) -> bool:
    """An expected id is anywhere in the top k the backend returned (the query asks for
    k hits; the harness refuses more)."""
    return p.best_rank(p.expected) is not None


def _asks_by_key(probes: Iterable[ProbeRecord]) -> dict[str, list[ProbeRecord]]:
    """Each question key's asks, in stream order (a key asked again, in new words, is
    the same fact asked again)."""
    out: dict[str, list[ProbeRecord]] = {}
    for p in probes:
        if p.key is not None:
            out.setdefault(p.key, []).append(p)
    return out


def retention_outcomes(before: str, after: str) -> Callable[[RecordView], Outcomes]:
    """Per fact asked under both tags: (first before, first before x share of its
    ``after`` asks that rank it first); the ``sum_ratio`` of these rows is retention.

    A share of the facts that were ranked first, not a ratio of two recalls: the ratio
    rose by answering worse before (swapping the top two hits of every first question
    raised it by 0.514, issue 34); here a swap only changes which facts are counted, and
    the ones it counts (those a store ranked second) are the ones it keeps worse. Not
    the top k either: in the top 5 every row of hard kept 0.96 to 1.00, no headroom.
    First before is read at the fact's *first* ``before`` ask, the one no later question
    can have helped; a fact asked several times after weighs as one, by the share of
    those asks that rank it first. A fact not first before is a row of zeros: it counts
    for neither side, and keeps the same keys on both sides of a paired comparison."""
    def first_hit(p: ProbeRecord) -> bool:
        return p.best_rank(p.expected) == 1

    def f(v: RecordView) -> Outcomes:
        first = {key: asks[0] for key, asks in _asks_by_key(v.probes(before)).items()}
        out: Outcomes = {}
        for key, asks in _asks_by_key(v.probes(after)).items():
            if key in first:
                was = float(first_hit(first[key]))
                out[key] = (was, was * sum(map(first_hit, asks)) / len(asks))
        return out
    return f


def reinforcement_outcomes(reinforced: str, control: str, baseline: tuple[str, ...]
                           ) -> Callable[[RecordView], Outcomes]:
    """Per fact checked under ``reinforced`` or ``control``: its gain in reciprocal rank
    (RR, 0 when not in the top k), the mean RR of its check asks minus the RR of its
    most recent ``baseline`` ask before the first check. A reinforced fact's row is
    (1, gain, 0, 0), a control's (0, 0, 1, gain): the ``contrast`` of the rows is the
    reinforced facts' mean gain minus the controls', in [-2, 2]. Only what the backend
    returns enters it: no strength it reports can move it. A fact with no earlier
    baseline ask has no gain to measure and no row."""
    def f(v: RecordView) -> Outcomes:
        last: dict[str, ProbeRecord] = {}  # the latest baseline ask per key, so far
        start: dict[str, tuple[str, ProbeRecord | None]] = {}  # group, baseline at 1st check
        checks: dict[str, list[ProbeRecord]] = {}
        for p in v.probes(*baseline, reinforced, control):
            if p.key is None:
                continue
            if p.tag in baseline:
                last[p.key] = p
                continue
            start.setdefault(p.key, (p.tag, last.get(p.key)))
            checks.setdefault(p.key, []).append(p)
        out: Outcomes = {}
        for key, (group, base) in start.items():
            if base is None:
                continue
            asks = checks[key]
            gain = sum(map(reciprocal, asks)) / len(asks) - reciprocal(base)
            out[key] = (1.0, gain, 0.0, 0.0) if group == reinforced else (0.0, 0.0, 1.0, gain)
        return out
    return f


def refused_outcomes(tag: str, *, accept: tuple[str, ...], among_accept: bool
                     ) -> Callable[[RecordView], Outcomes]:
    """1.0 per refused item, 0.0 per accepted one, keyed by item id (see refused)."""
    def f(v: RecordView) -> Outcomes:
        return _rows((i.id, (float(not i.accepted),)) for i in v.items(tag)
                     if (i.category in accept) == among_accept)
    return f


def strength_outcomes(tag: str, before: str = "before", after: str = "after"
                      ) -> Callable[[RecordView], Outcomes]:
    """after - before per reinforced cell (the n-th reading of an id is its n-th cell)."""
    def f(v: RecordView) -> Outcomes:
        readings = v.strengths(tag)
        late = {s.id: s.value for s in readings if s.label == after}
        return {s.id: (late[s.id] - s.value,) for s in readings
                if s.label == before and s.value is not None and late.get(s.id) is not None}
    return f


# What a latency is of: the query call (with encode once, the store's own time given the
# question's vector), the encoder's time for the question at batch 1 (measured once per
# embedder identity; None when the backend encoded inside the call), or both: end to end.
LATENCY_PARTS = ("call", "encode", "e2e")


def _ms(p: ProbeRecord, part: str) -> float | None:
    if part == "encode":
        return p.encode_ms
    if part == "e2e":
        return p.latency_ms + (p.encode_ms or 0.0)
    return p.latency_ms


def latency_outcomes(*tags: str, part: str = "call") -> Callable[[RecordView], Outcomes]:
    """Each query's latency (of ``part``) in milliseconds, keyed by phase and question."""
    def f(v: RecordView) -> Outcomes:
        rows = ((_key(p, i), _ms(p, part)) for i, p in enumerate(v.probes(*tags)))
        return _rows((k, (ms,)) for k, ms in rows if ms is not None)
    return f


def ingest_outcomes(*tags: str) -> Callable[[RecordView], Outcomes]:
    """(items, seconds) per write call, keyed by phase and call number."""
    def f(v: RecordView) -> Outcomes:
        counts: dict[str, int] = {}
        out: Outcomes = {}
        for w in v.writes(*tags):
            n = counts[w.tag] = counts.get(w.tag, 0) + 1
            out[f"{w.tag}/{n}"] = (float(w.items), w.seconds)
        return out
    return f


# -- ranked retrieval (datasets): over the probes that name at least one expected id ------


def _scored(v: RecordView, tags: tuple[str, ...]) -> list[ProbeRecord]:
    """A probe with no expected id (nothing in the store answers it) has no rank to score."""
    return [p for p in v.probes(*tags) if p.expected]


def any_at(k: int) -> Callable[[ProbeRecord], float]:
    """1.0 when any expected id is in the first ``k`` hits (:func:`hit_at` as a score)."""
    hit = hit_at(k)
    return lambda p: float(hit(p))


def all_at(k: int) -> Callable[[ProbeRecord], float]:
    """1.0 when every expected id is in the first ``k`` hits."""
    return lambda p: float(set(p.expected) <= set(p.returned[:k]))


def ndcg(k: int) -> Callable[[ProbeRecord], float]:
    """NDCG@k with binary relevance: DCG = sum over the first ``k`` hits of
    rel_i / log2(i + 1) (an expected id counts at its first occurrence only), over
    the DCG of a ranking with every expected id first."""
    def one(p: ProbeRecord) -> float:
        want, seen, dcg = set(p.expected), set(), 0.0
        for i, hit in enumerate(p.returned[:k], start=1):
            if hit in want and hit not in seen:
                seen.add(hit)
                dcg += 1.0 / math.log2(i + 1)
        ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(k, len(want)) + 1))
        return dcg / ideal
    return one


def reciprocal(p: ProbeRecord) -> float:
    """1 / the rank of the first expected hit (0 when none is returned)."""
    r = p.best_rank(p.expected)
    return 1.0 / r if r else 0.0


def scored_outcomes(score: Callable[[ProbeRecord], float], *tags: str
                    ) -> Callable[[RecordView], Outcomes]:
    """``score`` per probe that names an expected id, keyed as :func:`probe_outcomes`
    keys them (phase and question); their mean is the metric."""
    def f(v: RecordView) -> Outcomes:
        return _rows((_key(p, i), (score(p),)) for i, p in enumerate(_scored(v, tags)))
    return f


def _early_late(v: RecordView, early: str, late: str
                ) -> tuple[dict[str, ProbeRecord], dict[str, ProbeRecord]]:
    """Each question's first ``early`` ask and its last ``late`` ask, for the questions
    (probe keys) asked under both tags."""
    first: dict[str, ProbeRecord] = {}
    for p in _scored(v, (early,)):
        if p.key is not None:
            first.setdefault(p.key, p)
    last = {p.key: p for p in _scored(v, (late,)) if p.key in first}
    return first, last


def paired_recall_outcomes(k: int, early: str, late: str) -> Callable[[RecordView], Outcomes]:
    """(hit@k early, hit@k late) per question asked under both tags: the ``ratio``
    ``sum_ratio`` of these rows is the share still found later, on the same questions."""
    hit = any_at(k)

    def f(v: RecordView) -> Outcomes:
        first, last = _early_late(v, early, late)
        return {str(key): (hit(first[key]), hit(p)) for key, p in last.items()}
    return f


