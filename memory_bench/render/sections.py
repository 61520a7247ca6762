"""The report's content as plain rows and sentences, shared by Markdown and HTML.

Nothing here is escaped: each renderer escapes every string for its format.
"""

from __future__ import annotations

from typing import Any

from memory_bench.capabilities import Capability
from memory_bench.metrics import BY_NAME, Metric
from memory_bench.render.caveats import backend_notes, caveats
from memory_bench.render.format import (
    NOT_SUPPORTED,
    REPORT_METRICS,
    cell,
    num,
    run_counts,
    verdict_cell,
)

__all__ = [
    "CAPS_NOTE",
    "DIFF_NOTE",
    "MISSES_NOTE",
    "OTHER_METRICS",
    "RESULTS_NOTE",
    "VERDICT_NOTE",
    "capability_table",
    "caveat_lines",
    "difference_table",
    "failures",
    "method",
    "misses",
    "notes",
    "other_table",
    "results_table",
    "run_line",
    "verdict_table",
]

OTHER_METRICS = ("recall5_before", "recall1_after", "ingest_items_per_s")

RESULTS_NOTE = (
    "Mean over seeds ± half-width of the 95% Student-t interval ([low, high] where the "
    "interval is clipped to the metric's range, e.g. [0, 1] for a share). — means the "
    "backend cannot report the metric (a missing capability), never 0. Latency in "
    "milliseconds per query."
)
CAPS_NOTE = "What each backend declares it keeps or does; — = not supported."
VERDICT_NOTE = (
    "Each row reads from the first backend's side, on per-seed differences over the same "
    "seeds and items. ahead/behind: the 95% interval of the mean difference excludes 0 "
    "(the number is the mean difference); tie: it does not. No winner is declared inside "
    "the noise."
)
DIFF_NOTE = (
    "Every paired comparison behind the verdicts: mean difference (first − second), its 95% "
    "t-interval, the seeded BCa bootstrap interval and the exact sign-flip p-value."
)
MISSES_NOTE = "Up to three phase-2 probes per backend whose expected item was not the first hit."


def run_line(result: dict[str, Any]) -> str:
    seeds = result.get("seeds", [])
    return (f"Run {result['run_id']}, started {result.get('started_at')}, finished "
            f"{result.get('finished_at')} ({result.get('status')}). "
            f"{len(seeds)} seed(s): {', '.join(str(s) for s in seeds)}.")


def _metric_table(result: dict[str, Any], names: tuple[str, ...]) -> tuple[list[str], list]:
    head = ["backend", "runs ok"] + [BY_NAME[m].label for m in names]
    rows = []
    for b in result["backends"]:
        ok = sum(r.get("status") == "ok" for r in b.get("runs", []))
        rows.append([b["label"], run_counts(b)] + [
            cell(b.get("summary", {}).get(m), BY_NAME[m], runs_ok=ok) for m in names
        ])
    return head, rows


def results_table(result: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    return _metric_table(result, REPORT_METRICS)


def other_table(result: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    return _metric_table(result, OTHER_METRICS)


def capability_table(result: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    caps = [c.value for c in Capability]
    rows = [
        [b["label"], *("yes" if c in set(b.get("capabilities", [])) else NOT_SUPPORTED
                       for c in caps)]
        for b in result["backends"]
    ]
    return ["backend", *caps], rows


def _comparisons(result: dict[str, Any]) -> dict[tuple[str, str], dict[str, dict]]:
    pairs: dict[tuple[str, str], dict[str, dict]] = {}
    for c in result.get("comparisons", []):
        pairs.setdefault((c["a"], c["b"]), {})[c["metric"]] = c
    return pairs


def verdict_table(result: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    head = ["first", "second"] + [BY_NAME[m].label for m in REPORT_METRICS]
    rows = [
        [a, b] + [verdict_cell(by_metric.get(m), BY_NAME[m]) for m in REPORT_METRICS]
        for (a, b), by_metric in _comparisons(result).items()
    ]
    return head, rows


def _maybe(x: float | None, metric: Metric) -> str:
    return NOT_SUPPORTED if x is None else num(x, metric)


def _interval(low: float | None, high: float | None, metric: Metric) -> str:
    if low is None or high is None:
        return NOT_SUPPORTED
    return f"[{num(low, metric)}, {num(high, metric)}]"


def difference_table(result: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    head = ["first", "second", "metric", "n", "mean diff", "95% t-interval",
            "BCa bootstrap", "sign-flip p", "verdict"]
    rows = []
    for (a, b), by_metric in _comparisons(result).items():
        for m in REPORT_METRICS:
            c = by_metric.get(m)
            if not c or c["verdict"] == "not supported":
                continue
            metric = BY_NAME[m]
            rows.append([
                a, b, metric.label, str(c["n"]), _maybe(c["mean_diff"], metric),
                _interval(c["ci_low"], c["ci_high"], metric),
                _interval(c["boot_low"], c["boot_high"], metric),
                NOT_SUPPORTED if c["p_sign_flip"] is None else f"{c['p_sign_flip']:.3g}",
                c["verdict"],
            ])
    return head, rows


def caveat_lines(result: dict[str, Any]) -> list[str]:
    return caveats(result)


def notes(result: dict[str, Any]) -> list[tuple[str, str]]:
    return backend_notes(result)


def failures(result: dict[str, Any]) -> list[tuple[str, Any, str]]:
    return [
        (b["label"], r.get("seed"), f"{r.get('status')}: {r.get('error')}")
        for b in result["backends"] for r in b.get("runs", []) if r.get("status") != "ok"
    ]


def method(result: dict[str, Any]) -> list[tuple[str, str]]:
    analysis = result.get("analysis") or {}
    return [(k, str(v)) for k, v in analysis.items() if k != "version"]


def misses(result: dict[str, Any], per_backend: int = 3) -> tuple[list[str], list] | None:
    rows = []
    for b in result["backends"]:
        run = next((r for r in b.get("runs", []) if r.get("status") == "ok"
                    and r.get("records")), None)
        if run is None:
            continue
        probes = [p for p in run["records"].get("probes", []) if p.get("phase") == "probe"
                  and (p.get("returned") or [None])[0] != p.get("expected")]
        for p in probes[:per_backend]:
            top = (p.get("returned") or [NOT_SUPPORTED])[0]
            rows.append([b["label"], str(run.get("seed")), p.get("question", ""),
                         p.get("expected", ""), top])
    if not rows:
        return None
    return ["backend", "seed", "question", "expected id", "first hit"], rows
