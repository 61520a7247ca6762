"""A metric as declared data: what it reads, how it is computed, how it is shown.

Statistics, formatting, caveats, tables, CSV and plots read these declarations
(their JSON form, :class:`MetricSpec`, travels in the result file), never a
list of metric names. Adding a metric is one :class:`Metric` in a scenario's
metric tuple.

A metric reads the records of the steps with the tags it names. One declared
``per_category`` is also computed on each category of those records (question
categories of a dataset, the kinds of the gate's items), under the key
``name/category``; a category on which the metric is undefined (gate recall on
the clean items) gets no key.

A metric that declares ``outcomes`` also gives, per pair, one row of numbers
per question (keyed by the question, so that two backends' rows pair up) and
names the ``aggregate`` that makes the metric from them (``metrics/aggregate.py``):
recall@1 is the mean of hit/miss, retention the ratio of after to before. The
rows are kept in the result (``PairRun.outcomes``), and the paired tests of the
analysis are run on them; a metric without outcomes is compared seed by seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_bench.contract.capabilities import Capability
from memory_bench.records.reader import Reader
from memory_bench.records.records import (
    ForgetRecord,
    ItemRecord,
    ProbeRecord,
    Records,
    StrengthRecord,
    WriteRecord,
)

__all__ = [
    "SECTIONS",
    "Metric",
    "MetricSpec",
    "Outcomes",
    "RecordView",
    "Value",
    "category_key",
    "compute_metrics",
    "compute_outcomes",
    "declare",
    "split_key",
]

Value = float | None
# Per-question outcomes: question key -> one row of numbers.
Outcomes = dict[str, tuple[float, ...]]
# results: the report's headline table (and plots); other: the secondary table.
SECTIONS = ("results", "other")
_SEP = "/"


def category_key(name: str, category: str) -> str:
    return f"{name}{_SEP}{category}"


def split_key(key: str) -> tuple[str, str | None]:
    """``recall1_before`` -> (name, None); ``gateRecall/short`` -> (name, "short")."""
    name, sep, category = key.partition(_SEP)
    return name, (category if sep else None)


class RecordView:
    """The records of one pair, optionally restricted to one category."""

    def __init__(self, records: Records, category: str | None = None) -> None:
        self.records = records
        self.category = category

    def probes(self, *tags: str) -> list[ProbeRecord]:
        return [p for p in self.records.probes if p.tag in tags
                and (self.category is None or p.category == self.category)]

    def items(self, *tags: str) -> list[ItemRecord]:
        return [i for i in self.records.items if i.tag in tags
                and (self.category is None or i.category == self.category)]

    def strengths(self, *tags: str) -> list[StrengthRecord]:
        return [s for s in self.records.strengths if s.tag in tags]

    def writes(self, *tags: str) -> list[WriteRecord]:
        return [w for w in self.records.writes if w.tag in tags]

    def forgets(self, *tags: str) -> list[ForgetRecord]:
        return [f for f in self.records.forgets if f.tag in tags]

    def categories(self, tags: Sequence[str]) -> list[str]:
        """Categories present in the probes and items of ``tags``, in first-seen order."""
        seen: dict[str, None] = {}
        for p in self.records.probes:
            if p.tag in tags and p.category is not None:
                seen.setdefault(p.category, None)
        for i in self.records.items:
            if i.tag in tags:
                seen.setdefault(i.category, None)
        return list(seen)


@dataclass(frozen=True)
class MetricSpec:
    """Everything about a metric but its computation: what a renderer needs."""

    name: str
    label: str
    reads: tuple[str, ...]
    higher_is_better: bool = True
    bounds: tuple[float, float] | None = (0.0, 1.0)  # interval clipping; None: unbounded
    decimals: int = 3
    small_digits: int | None = None  # below 1: this many significant digits (latency)
    thousands: bool = False  # 12,345
    needs: str | None = None  # a capability's name
    section: str = "results"
    terminal: bool = True  # a column of the table printed at the end of a run
    per_category: bool = False
    axis: str | None = None  # quality | latency: the quality-against-latency plot
    description: str = ""
    undefined: str = "no value on any seed"  # why a supported metric may have no value
    caveat: str | None = None  # a sentence the report's caveats repeat
    aggregate: str | None = None  # how per-question outcomes make it; None: no outcomes

    @property
    def share(self) -> bool:
        return self.bounds == (0.0, 1.0)

    @property
    def definition(self) -> tuple[Any, ...]:
        """What the metric's value depends on: the tags it reads, how its rows make it,
        what it needs and what it says it measures (a redefinition says so in its
        description). Two files whose declarations differ here hold different metrics
        under one name: issue 34's retention, for one."""
        return self.reads, self.aggregate, self.needs, self.description

    def places(self, value: float) -> int:
        if self.small_digits is not None and value != 0 and abs(value) < 1:
            return min(4, max(self.decimals,
                              self.small_digits - 1 - math.floor(math.log10(abs(value)))))
        return self.decimals

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "label": self.label, "reads": list(self.reads),
            "higher_is_better": self.higher_is_better,
            "bounds": None if self.bounds is None else [_json_bound(b) for b in self.bounds],
            "decimals": self.decimals, "small_digits": self.small_digits,
            "thousands": self.thousands, "needs": self.needs, "section": self.section,
            "terminal": self.terminal, "per_category": self.per_category, "axis": self.axis,
            "description": self.description, "undefined": self.undefined,
            "caveat": self.caveat, "aggregate": self.aggregate,
        }

    @classmethod
    def read(cls, r: Reader) -> MetricSpec:
        bounds = r.at("bounds", None)
        pair = None
        if bounds.value is not None:
            vals = bounds.items()
            if len(vals) != 2:
                raise bounds.fail("expected [low, high]")
            pair = (_read_bound(vals[0]), _read_bound(vals[1]))
        section = r.str("section", "results")
        axis = r.opt_str("axis")
        if axis not in (None, "quality", "latency"):
            raise r.at("axis").fail(f"expected quality, latency or null, got {axis!r}")
        return cls(
            name=r.str("name"), label=r.str("label"), reads=tuple(r.str_list("reads", [])),
            higher_is_better=r.bool("higher_is_better", True), bounds=pair,
            decimals=r.int("decimals", 3), small_digits=r.opt_int("small_digits"),
            thousands=r.bool("thousands", False), needs=r.opt_str("needs"), section=section,
            terminal=r.bool("terminal", True), per_category=r.bool("per_category", False),
            axis=axis, description=r.str("description", ""),
            undefined=r.str("undefined", "no value on any seed"), caveat=r.opt_str("caveat"),
            aggregate=_read_aggregate(r),
        )


def _read_aggregate(r: Reader) -> str | None:
    """The aggregate's name; one this reader does not know (a later 2.y file's) reads
    as none: the metric's stored values stand, and the analysis compares it seed by
    seed, rather than the whole file being refused."""
    from memory_bench.metrics.aggregate import AGGREGATES

    name = r.opt_str("aggregate")
    return name if name in AGGREGATES else None


def _json_bound(b: float) -> float | str:
    return b if math.isfinite(b) else ("inf" if b > 0 else "-inf")


def _read_bound(r: Reader) -> float:
    if r.value in ("inf", "-inf"):
        return math.inf if r.value == "inf" else -math.inf
    v = r.number_or_null()
    if v is None:
        raise r.fail("expected a number, \"inf\" or \"-inf\"")
    return v


@dataclass(frozen=True)
class Metric:
    """A declared metric: its spec and the function computing it from a view."""

    spec: MetricSpec
    compute: Callable[[RecordView], Value] = field(repr=False, compare=False)
    outcomes: Callable[[RecordView], Outcomes] | None = field(default=None, repr=False,
                                                               compare=False)

    @property
    def name(self) -> str:
        return self.spec.name


def declare(name: str, label: str, compute: Callable[[RecordView], Value] | None = None, *,
            reads: Sequence[str], needs: Capability | None = None,
            outcomes: Callable[[RecordView], Outcomes] | None = None, **spec: Any) -> Metric:
    """A :class:`Metric` from keyword arguments (``needs`` as a Capability).

    Declared once: give ``outcomes`` (the per-question rows the paired tests use) with
    ``aggregate=`` (a name in ``metrics/aggregate.py``), and the metric's value is the
    aggregate of its rows, so the number a table shows and the rows a verdict tests
    cannot disagree. ``compute`` is for a metric with no per-question rows (a cost read
    once per pair, such as resident memory); it cannot be given with ``outcomes``.
    """
    from memory_bench.metrics.aggregate import AGGREGATES, value_of

    agg = spec.get("aggregate")
    if (outcomes is None) != (agg is None):
        raise ValueError(f"metric {name}: outcomes and aggregate go together")
    if agg is not None and agg not in AGGREGATES:
        raise ValueError(f"metric {name}: unknown aggregate {agg!r} "
                         f"(known: {', '.join(AGGREGATES)})")
    if (compute is None) == (outcomes is None):
        raise ValueError(f"metric {name}: give outcomes with an aggregate, or compute, "
                         "not both")
    if compute is None:
        assert outcomes is not None and agg is not None
        rows_of, how = outcomes, agg

        def compute(view: RecordView) -> Value:
            return value_of(how, list(rows_of(view).values()))

    return Metric(MetricSpec(name=name, label=label, reads=tuple(reads),
                             needs=None if needs is None else needs.value, **spec), compute,
                  outcomes)


def compute_metrics(metrics: Sequence[Metric], records: Records,
                    capabilities: Collection[str]) -> dict[str, Value]:
    """Every metric for one pair (and every category of the per-category ones);
    None where the backend lacks the capability a metric needs."""
    out: dict[str, Value] = {}
    view = RecordView(records)
    for m in metrics:
        supported = m.spec.needs is None or m.spec.needs in capabilities
        out[m.name] = m.compute(view) if supported else None
        if m.spec.per_category:
            for cat in view.categories(m.spec.reads):
                # Computed even when unsupported, to know whether the category applies.
                value = m.compute(RecordView(records, cat))
                if value is not None:
                    out[category_key(m.name, cat)] = value if supported else None
    return out


def compute_outcomes(metrics: Sequence[Metric], records: Records,
                     capabilities: Collection[str]) -> dict[str, dict[str, list]]:
    """Per-question rows of every supported metric that declares them:
    ``{name: {"keys": [...], "values": [[...], ...]}}`` (nothing for a metric
    without rows on this pair)."""
    out: dict[str, dict[str, list]] = {}
    view = RecordView(records)
    for m in metrics:
        if m.outcomes is None or not (m.spec.needs is None or m.spec.needs in capabilities):
            continue
        rows = m.outcomes(view)
        if rows:
            out[m.name] = {"keys": list(rows), "values": [list(v) for v in rows.values()]}
    return out
