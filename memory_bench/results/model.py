"""The result file as typed objects: result, backend, pair run, summary, comparison.

One ``from_dict`` validates every field and reports the JSON path of the first
problem; every module reads results through these classes. A 1.x file is
migrated on load (``migrate.py``); the schema written is ``memory-bench/2.1``.

A reader of 2.x reads any 2.y: 2.1 added the ``contrast`` aggregate (issue 34's
reinforcementDelta), and from 2.1 on an aggregate this reader does not know reads as
none (``metrics/spec.py``), so a later minor version's metric keeps its stored values
and is compared seed by seed instead of being refused.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import Any

from memory_bench.metrics.latency import qualify_latency
from memory_bench.metrics.spec import MetricSpec, split_key
from memory_bench.records.reader import Reader, ResultError, is_number
from memory_bench.records.records import Records

__all__ = [
    "SCHEMA",
    "STATUSES",
    "BackendEntry",
    "Cleanup",
    "Comparison",
    "MetricSummary",
    "PairRun",
    "Result",
    "ScenarioBlock",
]

SCHEMA = "memory-bench/2.1"  # 2.1: the contrast aggregate
STATUSES = ("ok", "failed", "timeout")
RUN_STATUSES = ("running", "complete", "interrupted", "failed")


@dataclass
class MetricSummary:
    """One metric over seeds: mean, sample std, 95% t-interval, n (and BCa bounds)."""

    mean: float | None = None
    std: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0
    boot_low: float | None = None
    boot_high: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"mean": self.mean, "std": self.std, "ci_low": self.ci_low,
                             "ci_high": self.ci_high, "n": self.n}
        if self.boot_low is not None or self.boot_high is not None:
            d.update(boot_low=self.boot_low, boot_high=self.boot_high)
        return d

    @classmethod
    def read(cls, r: Reader) -> MetricSummary:
        return cls(mean=r.opt_num("mean"), std=r.opt_num("std"), ci_low=r.opt_num("ci_low"),
                   ci_high=r.opt_num("ci_high"), n=r.int("n", 0),
                   boot_low=r.opt_num("boot_low"), boot_high=r.opt_num("boot_high"))


@dataclass
class Cleanup:
    """Whether a pair's items were removed from its store, and who removed them."""

    ok: bool
    prefix: str | None = None
    removed: int | None = None
    left: int | None = None
    error: str | None = None
    by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None or k == "ok"}

    @classmethod
    def read(cls, r: Reader) -> Cleanup:
        return cls(ok=r.bool("ok"), prefix=r.opt_str("prefix"), removed=r.opt_int("removed"),
                   left=r.opt_int("left"), error=r.opt_str("error"), by=r.opt_str("by"))


@dataclass
class PairRun:
    """One (backend, seed) pair: how it ended, its metrics and its records."""

    seed: int
    status: str = "ok"
    error: str | None = None
    traceback: str | None = None
    seconds: float = 0.0
    data_hash: str | None = None
    metrics: dict[str, float | None] = field(default_factory=dict)
    records: Records | None = None
    cleanup: Cleanup | None = None
    warnings: list[str] = field(default_factory=list)
    data_stats: dict[str, Any] | None = None
    worker: dict[str, Any] = field(default_factory=dict)
    # Per-question rows of the metrics that declare them: {name: {"keys", "values"}}.
    outcomes: dict[str, dict[str, list]] = field(default_factory=dict)
    # recall@1 per ask step over the stream (metrics/curve.py's CURVE_FIELDS per point).
    curve: list[list[float]] = field(default_factory=list)
    # How the pair's texts were encoded: the run's mode (once: from the run's vector
    # table) and the table's hits and misses (harness/pair.py); None: no embedder.
    encoding: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def rows(self, metric: str) -> dict[str, list[float]]:
        """A metric's per-question rows on this pair, by question key ({} if none)."""
        o = self.outcomes.get(metric)
        return dict(zip(o["keys"], o["values"], strict=True)) if o else {}

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"seed": self.seed, "status": self.status, "error": self.error,
                             "seconds": self.seconds, "data_hash": self.data_hash,
                             "metrics": dict(self.metrics)}
        if self.traceback is not None:
            d["traceback"] = self.traceback
        if self.records is not None:
            d["records"] = self.records.to_dict()
        if self.cleanup is not None:
            d["cleanup"] = self.cleanup.to_dict()
        if self.warnings:
            d["warnings"] = list(self.warnings)
        if self.data_stats is not None:
            d["data_stats"] = self.data_stats
        if self.worker:
            d["worker"] = dict(self.worker)
        if self.outcomes:
            d["outcomes"] = self.outcomes
        if self.curve:
            d["curve"] = [list(p) for p in self.curve]
        if self.encoding is not None:
            d["encoding"] = dict(self.encoding)
        return d

    @classmethod
    def read(cls, r: Reader) -> PairRun:
        status = r.str("status")
        if status not in STATUSES:
            raise r.at("status").fail(f"expected one of {', '.join(STATUSES)}, got {status!r}")
        records = r.at("records", None)
        cleanup = r.at("cleanup", None)
        return cls(
            seed=r.int("seed"), status=status, error=r.opt_str("error"),
            traceback=r.opt_str("traceback"), seconds=r.num("seconds", 0.0),
            data_hash=r.opt_str("data_hash"),
            metrics=r.mapping("metrics", lambda x: x.number_or_null(), default={}),
            records=None if records.value is None else Records.read(records),
            cleanup=None if cleanup.value is None else Cleanup.read(cleanup),
            warnings=r.str_list("warnings", default=[]), data_stats=r.opt_obj("data_stats"),
            worker=r.obj("worker", {}),
            outcomes=r.mapping("outcomes", _read_outcomes, default={}),
            curve=_read_curve(r, 4),
            encoding=r.opt_obj("encoding"),
        )


def _read_curve(r: Reader, width: int) -> list[list[float]]:
    """A curve: rows of ``width`` numbers (``metrics/curve.py``)."""
    rows = r.list("curve", lambda row: row.num_list_self(), default=[])
    bad = next((i for i, row in enumerate(rows) if len(row) != width), None)
    if bad is not None:
        raise r.at("curve").fail(f"point {bad} has {len(rows[bad])} numbers, not {width}")
    return rows


def _read_outcomes(r: Reader) -> dict[str, list]:
    keys = r.str_list("keys")
    rows = r.at("values").value
    if type(rows) is list and all(type(row) is list and all(map(is_number, row))
                                  for row in rows):  # one pass; the message path below
        values = [[float(x) for x in row] for row in rows]
    else:
        values = r.list("values", lambda row: row.num_list_self())
    if len(keys) != len(values):
        raise r.fail(f"{len(keys)} keys for {len(values)} rows")
    # One question, one row of the same width (the analysis stacks them as an array).
    bad = next((i for i, row in enumerate(values) if not row or len(row) != len(values[0])),
               None)
    if bad is not None:
        raise r.at("values").fail(f"row {bad} is empty" if not values[bad] else
                                  f"row {bad} has {len(values[bad])} numbers, row 0 has "
                                  f"{len(values[0])}")
    return {"keys": keys, "values": values}


@dataclass
class BackendEntry:
    """One row of the comparison: a backend with its options, runs and summary."""

    label: str
    spec: str
    name: str
    version: str
    description: str = ""
    capabilities: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    declared_options: list[dict[str, Any]] = field(default_factory=list)
    plugin: str = "<unknown>"
    notes: list[str] = field(default_factory=list)
    libraries: list[str] = field(default_factory=list)
    runs: list[PairRun] = field(default_factory=list)
    summary: dict[str, MetricSummary] = field(default_factory=dict)
    # Item structure this configuration reads beyond text, source and timestamp.
    reads: list[str] = field(default_factory=list)
    # The runs' per-step curves over seeds (metrics/curve.py's SUMMARY_FIELDS per point).
    curve: list[list[float]] = field(default_factory=list)
    # The seeds its settings were tuned on, by scenario or generator name ("*": any).
    tuned_on: dict[str, list[int]] = field(default_factory=dict)

    def in_sample(self, scenario: ScenarioBlock, seeds: list[int]) -> list[int]:
        """The seeds of this run that the backend was tuned on (its own tuning data)."""
        tuned = {s for key in (scenario.name, scenario.generator, "*")
                 for s in self.tuned_on.get(key, [])}
        return sorted(tuned & set(seeds))

    def has(self, capability: str) -> bool:
        return capability in self.capabilities

    def structure_used(self, exposed: ScenarioBlock) -> list[str]:
        """The structure this backend reads that the scenario gave it (its row is
        marked when this is not empty): ``["tags"]`` for a tag reader on a
        structured scenario, ``[]`` on a text-only one."""
        return [f for f in self.reads if f in exposed.structure()]

    def ok_runs(self) -> list[PairRun]:
        return [r for r in self.runs if r.ok]

    def run_for(self, seed: int) -> PairRun | None:
        return next((r for r in self.runs if r.seed == seed), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label, "spec": self.spec, "name": self.name,
            "description": self.description, "version": self.version,
            "capabilities": list(self.capabilities), "options": dict(self.options),
            "declared_options": list(self.declared_options), "plugin": self.plugin,
            "notes": list(self.notes), "libraries": list(self.libraries),
            "reads": list(self.reads),
            "runs": [r.to_dict() for r in self.runs],
            "summary": {k: v.to_dict() for k, v in self.summary.items()},
            **({"curve": [list(p) for p in self.curve]} if self.curve else {}),
            **({"tuned_on": {k: list(v) for k, v in self.tuned_on.items()}}
               if self.tuned_on else {}),
        }

    @classmethod
    def read(cls, r: Reader) -> BackendEntry:
        return cls(
            label=r.str("label"), spec=r.str("spec"), name=r.str("name"),
            version=r.str("version"), description=r.str("description", ""),
            capabilities=r.str_list("capabilities", default=[]),
            options=r.obj("options", {}),
            declared_options=r.list("declared_options", lambda x: x.obj_value(), default=[]),
            plugin=r.str("plugin", "<unknown>"), notes=r.str_list("notes", default=[]),
            libraries=r.str_list("libraries", default=[]),
            runs=r.list("runs", PairRun.read, default=[]),
            summary=r.mapping("summary", MetricSummary.read, default={}),
            reads=r.str_list("reads", default=[]),
            curve=_read_curve(r, 5),
            tuned_on=r.mapping("tuned_on", lambda x: x.scalars(
                lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
                default={}),
        )


@dataclass
class ScenarioBlock:
    """The scenario as run: generator, every parameter, and what each seed generated."""

    name: str
    generator: str
    params: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    seeds: int = 5
    seed_base: int = 0
    generator_version: str | None = None
    plugin: str | None = None
    data_hashes: dict[str, str] = field(default_factory=dict)
    data_stats: dict[str, Any] = field(default_factory=dict)
    caveats: list[str] = field(default_factory=list)
    # What backends were given, from the items written (Script.exposure), over seeds.
    exposure: dict[str, Any] = field(default_factory=dict)
    # The small learned leak scan a continual run computes when it starts
    # (harness/leakscan.py's quick_scan); {} where none ran.
    leak_scan: dict[str, Any] = field(default_factory=dict)

    def structure(self) -> list[str]:
        """Item structure beyond text, source and timestamp that some item carried
        (``tags`` when the scenario was structured); ``region`` is not counted when
        every item had the same one."""
        return [f for f in self.exposure.get("structure", [])]

    def params_key(self) -> dict[str, Any]:
        """What must match for two runs to be the same experiment."""
        return {"name": self.name, "generator": self.generator, "params": self.params,
                "seed_base": self.seed_base}

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "description": self.description, "generator": self.generator,
            "generator_version": self.generator_version, "plugin": self.plugin,
            "params": dict(self.params), "seeds": self.seeds, "seed_base": self.seed_base,
            "data_hashes": dict(self.data_hashes), "data_stats": dict(self.data_stats),
            "caveats": list(self.caveats), "exposure": dict(self.exposure),
            **({"leak_scan": dict(self.leak_scan)} if self.leak_scan else {}),
        }

    @classmethod
    def read(cls, r: Reader) -> ScenarioBlock:
        return cls(
            name=r.str("name"), generator=r.str("generator"), params=r.obj("params", {}),
            description=r.str("description", ""), seeds=r.int("seeds", 5),
            seed_base=r.int("seed_base", 0), generator_version=r.opt_str("generator_version"),
            plugin=r.opt_str("plugin"),
            data_hashes=r.mapping("data_hashes", lambda x: x._check_self(
                lambda v: isinstance(v, str), "a string"), default={}),
            data_stats=r.obj("data_stats", {}), caveats=r.str_list("caveats", default=[]),
            exposure=r.obj("exposure", {}), leak_scan=r.obj("leak_scan", {}),
        )


@dataclass
class Comparison:
    """Backend ``a`` against ``b`` on one metric (``memory_bench.analysis``).

    ``effect`` [``effect_low``, ``effect_high``]: the difference a - b in the metric's
    units with its 95% cluster-bootstrap interval; ``p``: the paired test's p
    (``test`` says which, over ``questions`` paired questions), ``p_holm`` after
    Holm's correction, ``discordant``: [a higher, b higher] for the exact tests.
    ``mean_diff``, ``ci_low``, ``ci_high``, ``p_sign_flip``: the per-seed
    differences, their t-interval and exact sign-flip p (analysis version 1's
    verdict), kept beside it.
    """

    a: str
    b: str
    metric: str
    n: int
    verdict: str
    seeds: list[int] = field(default_factory=list)
    unpaired_seeds: list[int] = field(default_factory=list)
    mean_diff: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    boot_low: float | None = None
    boot_high: float | None = None
    p_sign_flip: float | None = None
    test: str | None = None
    questions: int | None = None
    effect: float | None = None
    effect_low: float | None = None
    effect_high: float | None = None
    p: float | None = None
    p_holm: float | None = None
    discordant: list[int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def read(cls, r: Reader) -> Comparison:
        return cls(
            a=r.str("a"), b=r.str("b"), metric=r.str("metric"), n=r.int("n"),
            verdict=r.str("verdict"), seeds=r.int_list("seeds", default=[]),
            unpaired_seeds=r.int_list("unpaired_seeds", default=[]),
            mean_diff=r.opt_num("mean_diff"), ci_low=r.opt_num("ci_low"),
            ci_high=r.opt_num("ci_high"), boot_low=r.opt_num("boot_low"),
            boot_high=r.opt_num("boot_high"), p_sign_flip=r.opt_num("p_sign_flip"),
            test=r.opt_str("test"), questions=r.opt_int("questions"),
            effect=r.opt_num("effect"), effect_low=r.opt_num("effect_low"),
            effect_high=r.opt_num("effect_high"), p=r.opt_num("p"), p_holm=r.opt_num("p_holm"),
            discordant=None if r.at("discordant", None).value is None
            else r.int_list("discordant"),
        )


@dataclass
class Result:
    """A whole run: what was run, where, and every pair's outcome."""

    run_id: str
    scenario: ScenarioBlock
    seeds: list[int]
    backends: list[BackendEntry]
    metrics: list[MetricSpec]
    schema: str = SCHEMA
    status: str = "running"
    started_at: str | None = None
    finished_at: str | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    execution: dict[str, Any] = field(default_factory=dict)
    comparisons: list[Comparison] | None = None
    analysis: dict[str, Any] | None = None
    resumes: list[dict[str, Any]] = field(default_factory=list)
    preload_errors: dict[str, str] = field(default_factory=dict)
    live_stores: dict[str, Any] = field(default_factory=dict)
    pairs: str | None = None  # the directory of per-pair files, relative to the result
    error: str | None = None  # what stopped a run outside any pair (status failed)
    migrated_from: str | None = None

    # -- lookups ------------------------------------------------------------------

    def metric(self, key: str) -> MetricSpec:
        """The declaration of a metric key (``name`` or ``name/category``)."""
        name, _ = split_key(key)
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(key)

    def section(self, section: str) -> list[MetricSpec]:
        return [m for m in self.metrics if m.section == section]

    def backend(self, label: str) -> BackendEntry | None:
        return next((b for b in self.backends if b.label == label), None)

    def metric_keys(self) -> list[str]:
        """Every declared metric, then every ``name/category`` key the runs hold."""
        return [m.name for m in self.metrics] + self.category_keys()

    def category_keys(self) -> list[str]:
        """``name/category`` keys present in any run, in declaration then first-seen order."""
        seen: dict[str, None] = {}
        for m in self.metrics:
            if not m.per_category:
                continue
            for b in self.backends:
                for r in b.runs:
                    for k in r.metrics:
                        if split_key(k)[0] == m.name and split_key(k)[1] is not None:
                            seen.setdefault(k, None)
        return list(seen)

    # -- (de)serialisation ----------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "schema": self.schema, "run_id": self.run_id, "status": self.status,
            "started_at": self.started_at, "finished_at": self.finished_at,
            "scenario": self.scenario.to_dict(), "seeds": list(self.seeds),
            "manifest": self.manifest, "execution": self.execution,
            "metrics": [m.to_dict() for m in self.metrics],
            "backends": [b.to_dict() for b in self.backends],
        }
        optional = {
            "comparisons": None if self.comparisons is None
            else [c.to_dict() for c in self.comparisons],
            "analysis": self.analysis, "resumes": self.resumes or None,
            "preload_errors": self.preload_errors or None,
            "live_stores": self.live_stores or None, "pairs": self.pairs,
            "error": self.error, "migrated_from": self.migrated_from,
        }
        d.update({k: v for k, v in optional.items() if v is not None})
        return d

    @classmethod
    def from_dict(cls, data: Any) -> Result:
        """Validate and build; a 1.x document is migrated first. The cyclic garbage
        collector is paused meanwhile: building some 10⁵ records would otherwise run
        it hundreds of times over objects that hold no cycle."""
        from memory_bench.results.migrate import migrate

        paused = gc.isenabled()
        gc.disable()
        try:
            return cls.read(Reader(migrate(data)))
        finally:
            if paused:
                gc.enable()

    @classmethod
    def read(cls, r: Reader) -> Result:
        status = r.str("status", "complete")
        if status not in RUN_STATUSES:
            raise r.at("status").fail(f"expected one of {', '.join(RUN_STATUSES)}, "
                                      f"got {status!r}")
        comparisons = r.at("comparisons", None)
        execution = r.obj("execution", {})
        result = cls(
            schema=r.str("schema"), run_id=r.str("run_id"), status=status,
            started_at=r.opt_str("started_at"), finished_at=r.opt_str("finished_at"),
            scenario=ScenarioBlock.read(r.at("scenario")), seeds=r.int_list("seeds"),
            backends=r.list("backends", BackendEntry.read),
            # every latency labelled e2e or store, whenever the file was written
            metrics=qualify_latency(r.list("metrics", MetricSpec.read), execution.get("encode")),
            manifest=r.obj("manifest", {}), execution=execution,
            comparisons=None if comparisons.value is None
            else r.list("comparisons", Comparison.read),
            analysis=r.opt_obj("analysis"),
            resumes=r.list("resumes", lambda x: x.obj_value(), default=[]),
            preload_errors=r.mapping("preload_errors", lambda x: x._check_self(
                lambda v: isinstance(v, str), "a string"), default={}),
            live_stores=r.obj("live_stores", {}), pairs=r.opt_str("pairs"),
            error=r.opt_str("error"), migrated_from=r.opt_str("migrated_from"),
        )
        if result.pairs is not None and (result.pairs in ("", ".", "..")
                                         or "/" in result.pairs or "\\" in result.pairs):
            raise r.at("pairs").fail(f"expected the name of a directory beside the result, "
                                     f"got {result.pairs!r}")
        labels = [b.label for b in result.backends]
        if len(labels) != len(set(labels)):
            dup = next(x for x in labels if labels.count(x) > 1)
            raise ResultError(f"backends: the label {dup!r} appears twice")
        names = [m.name for m in result.metrics]
        if len(names) != len(set(names)):
            raise ResultError("metrics: a metric is declared twice")
        return result
