"""Per-step records: what the runner saw, kept in the result file.

Every metric is computed from these (``memory_bench.metrics``), so a reader who
does not trust the harness can recompute any number from the result file alone.
Each record carries the tag of the step that made it, and probes and items
their category, which is how a metric says what it reads.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any

from memory_bench.records.reader import Reader
from memory_bench.records.typed import record_reader

__all__ = [
    "ForgetRecord",
    "ItemRecord",
    "ProbeRecord",
    "Records",
    "StrengthRecord",
    "WriteRecord",
]


@dataclass
class ProbeRecord:
    """One query: the question, the ids that answer it, the ids returned in order.

    ``top_*`` is what the backend reported for its top hit; ``written_*`` is what
    the harness wrote for the item that hit names (None when the id is unknown).
    ``outrank``: ids the expected ones should beat (an update's old value).
    ``hit_sources``: every source each returned hit reports (a merged cell may
    report several), aligned with ``returned``; ``expected_sources`` and
    ``expected_timestamps``: what the harness wrote for each expected id, so that
    provenance can be scored against the answer, not only against the top hit.
    ``hit_tokens``: each returned hit's text in tokens (``scenarios/answers.py``);
    ``answer_ranks``: per unit of the gold answer (its ``answer_phrases`` phrases, then
    their key tokens) the first rank whose text contains it, 0 for none. Both are empty
    for a probe that carries no answer key, and then left out of the file.
    """

    tag: str
    question: str
    expected: list[str]
    returned: list[str]
    scores: list[float]
    latency_ms: float
    category: str | None = None
    outrank: list[str] = field(default_factory=list)
    key: str | None = None
    top_source: str | None = None
    top_timestamp: str | None = None
    written_source: str | None = None
    written_timestamp: str | None = None
    hit_sources: list[list[str]] = field(default_factory=list)
    expected_sources: list[str | None] = field(default_factory=list)
    expected_timestamps: list[str | None] = field(default_factory=list)
    # The encoder's time for this question at batch 1, measured once per embedder identity
    # when the run encodes once (the backend then read the question's vector): end-to-end
    # is latency_ms + encode_ms. None when the backend encoded it inside the query call.
    encode_ms: float | None = None
    hit_tokens: list[int] = field(default_factory=list)
    answer_ranks: list[int] = field(default_factory=list)
    answer_phrases: int = 0
    forgotten: list[str] = field(default_factory=list)

    def rank(self, item_id: str | None) -> int | None:
        """1-based rank of ``item_id`` in the returned ids, or None."""
        if item_id is None:
            return None
        try:
            return self.returned.index(item_id) + 1
        except ValueError:
            return None

    def best_rank(self, ids: list[str]) -> int | None:
        """The best rank of any of ``ids``, or None when none was returned."""
        ranks = [r for r in (self.rank(i) for i in ids) if r is not None]
        return min(ranks) if ranks else None


def _block(r: Reader) -> list[int]:
    values = r.num_list_self()
    if len(values) != 3 or any(v != int(v) or v < 0 for v in values):
        raise r.fail("expected [first probe, probes, items written], three counts")
    return [int(v) for v in values]


@dataclass
class WriteRecord:
    """One write call: its tag, item count, accepted count, wall seconds, and the
    pair process's resident memory after it (bytes; None where unreadable)."""

    tag: str
    items: int
    accepted: int
    seconds: float
    rss_bytes: int | None = None


@dataclass
class ForgetRecord:
    """One forget call: what was asked (``ids``, ``source``), the ids it forgets (the
    answer key), what the backend said it removed, and the call's latency."""

    tag: str
    ids: list[str]
    source: str | None
    forgotten: list[str]
    removed: int
    latency_ms: float


@dataclass
class ItemRecord:
    """What the backend did with one item of a write that carries an answer key."""

    id: str
    tag: str
    category: str
    accepted: bool
    reason: str | None = None


@dataclass
class StrengthRecord:
    """One strength reading; ``label`` tells readings of one id apart (before/after)."""

    id: str
    tag: str
    label: str
    value: float | None


@dataclass
class Records:
    """Everything one (backend, seed) pair produced."""

    probes: list[ProbeRecord] = field(default_factory=list)
    writes: list[WriteRecord] = field(default_factory=list)
    items: list[ItemRecord] = field(default_factory=list)
    strengths: list[StrengthRecord] = field(default_factory=list)
    consolidations: list[dict[str, Any]] = field(default_factory=list)
    forgets: list[ForgetRecord] = field(default_factory=list)
    # The ask steps, in order: [first probe's index, probes, items written before it].
    # An ask step is a run of questions with no other call between them; this places
    # every question on the stream (the per-step curve, ``metrics/curve.py``).
    blocks: list[list[int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """As ``dataclasses.asdict`` gives it, about 10x faster: every record's fields
        are scalars or lists of scalars, so a shallow copy of each list is a deep one
        (a run's records are serialised for every pair file and result write)."""
        d = {
            "probes": _without_empty(_without_empty(_plain(self.probes), _ANSWER_FIELDS),
                                     ("forgotten",)),
            "writes": _plain(self.writes),
            "items": _plain(self.items), "strengths": _plain(self.strengths),
            "consolidations": copy.deepcopy(self.consolidations),
        }
        if self.forgets:
            d["forgets"] = _plain(self.forgets)
        if self.blocks:
            d["blocks"] = [list(b) for b in self.blocks]
        return d

    @classmethod
    def read(cls, r: Reader) -> Records:
        return cls(
            probes=r.list("probes", ProbeRecord.read, default=[]),
            writes=r.list("writes", WriteRecord.read, default=[]),
            items=r.list("items", ItemRecord.read, default=[]),
            strengths=r.list("strengths", StrengthRecord.read, default=[]),
            consolidations=r.list("consolidations", lambda x: x.obj_value(), default=[]),
            forgets=r.list("forgets", ForgetRecord.read, default=[]),
            blocks=r.list("blocks", _block, default=[]),
        )

    @classmethod
    def from_dict(cls, d: Any, path: str = "records") -> Records:
        return cls.read(Reader(d, path))


_NAMES: dict[type, tuple[str, ...]] = {}
_ANSWER_FIELDS = ("hit_tokens", "answer_ranks", "answer_phrases")


def _without_empty(rows: list[dict[str, Any]], names: tuple[str, ...]) -> list[dict[str, Any]]:
    """Leave out the answer fields of a probe that has none (most probes, most scenarios)."""
    for row in rows:
        if not any(row.get(n) for n in names):
            for n in names:
                row.pop(n, None)
    return rows


def _plain(records: list[Any]) -> list[dict[str, Any]]:
    if not records:
        return []
    names = _NAMES.get(type(records[0]))
    if names is None:
        names = _NAMES[type(records[0])] = tuple(f.name for f in fields(records[0]))
    return [{n: (list(v) if isinstance(v := getattr(r, n), list) else v) for n in names}
            for r in records]


# Each record is read by its fields' type hints (``typed.py``): declared once, above.
for _cls in (ProbeRecord, WriteRecord, ForgetRecord, ItemRecord, StrengthRecord):
    _cls.read = staticmethod(record_reader(_cls))  # type: ignore[attr-defined]
