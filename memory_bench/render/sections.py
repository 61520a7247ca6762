"""The report's content as plain rows and sentences, shared by Markdown and HTML.

Which metric goes in which table comes from the result's metric declarations
(``section``), never from a list of names. Nothing here is escaped: each
renderer escapes every string for its format.
"""

from __future__ import annotations

from typing import Any

from memory_bench.contract.capabilities import Capability
from memory_bench.metrics.latency import is_timing
from memory_bench.metrics.spec import MetricSpec, split_key
from memory_bench.render.caveats import backend_notes, caveats
from memory_bench.render.format import (
    NOT_SUPPORTED,
    STRUCTURED,
    cell,
    column,
    num,
    p_value,
    row_label,
    run_counts,
    verdict_cell,
)
from memory_bench.results.audit import audit_gains
from memory_bench.results.borderline import borderline
from memory_bench.results.model import BackendEntry, Comparison, MetricSummary, Result

__all__ = [
    "AUDIT_NOTE",
    "CAPS_NOTE",
    "CATEGORY_NOTE",
    "CURVE_NOTE",
    "DIFF_NOTE",
    "MISSES_NOTE",
    "RESULTS_NOTE",
    "VERDICT_NOTE",
    "audit_table",
    "capability_table",
    "category_tables",
    "caveat_lines",
    "curve_table",
    "difference_table",
    "exposure_note",
    "failures",
    "ingest_note",
    "measured",
    "method",
    "misses",
    "notes",
    "other_table",
    "results_table",
    "run_line",
    "scenario_params",
    "verdict_table",
]

RESULTS_NOTE = (
    "Mean over seeds ± half-width of the 95% Student-t interval ([low, high] where the "
    "interval is clipped to the metric's range, e.g. [0, 1] for a share). — means the "
    "backend cannot report the metric (a missing capability), never 0. Latency in "
    "milliseconds per query: e2e is end to end (the encoder's part for the question plus "
    "the store's), store the store's part alone. \"= X\": every quality value of every "
    "seed equals X's (the same ranking on this data), shown once; the row's costs are its "
    "own."
)
AUDIT_NOTE = (
    "The exploit audit: each audit row is an honest row (its base) plus one rule that reads "
    "only the protocol (the order of calls, the form of items, names and timestamps), never "
    "the answer key. Its gain is row − base on the metric it targets, question by question, "
    "with the 95% cluster-bootstrap interval. LEAK: the interval lies above 0 and the rule "
    "pays nothing for it, so that column partly scores reading the stream; trade: the rule "
    "pays beyond its interval on what it gives up by its nature (refusing by form refuses "
    "clean items; keeping old facts by ignoring what is new loses the updates); no gain: "
    "the interval reaches 0 or lies below it."
)
CAPS_NOTE = "What each backend declares it keeps or does; — = not supported."
VERDICT_NOTE = (
    "Each row reads from the first backend's side, question by question over the same seeds "
    "and items. ahead/behind: the paired test's p-value, after Holm's correction over every "
    "comparison of this report, is at most 0.05 (the number is the effect: the difference "
    "in the metric, first − second); tie: it is not. No winner is declared inside the noise. "
    "(borderline): the Holm p is within 1.96 Monte Carlo standard errors of 0.05, so "
    "another random stream could give the other verdict."
)
DIFF_NOTE = (
    "Every paired comparison behind the verdicts: the effect (first − second, in the "
    "metric's units, from the questions both answered) with its 95% cluster-bootstrap "
    "interval (seeds, then questions within seeds), the paired test and its p-value before "
    "and after Holm's correction, the seeds and questions paired, and the per-seed "
    "t-interval of the mean difference (the summaries' method) for comparison. Tests: "
    "mcnemar = exact paired randomization on 0/1 outcomes; randomization = paired "
    "randomization, Monte Carlo; sign = exact sign test on per-question differences "
    "(latency); quantile-bootstrap = a quantile's difference over its bootstrap SE (Monte "
    "Carlo draws); seed-sign-flip = over per-seed values (no per-question outcomes): exact "
    "up to 16 seeds, Monte Carlo above, p = (1 + hits) / (1 + draws)."
)
MISSES_NOTE = "Up to three probes per backend whose expected item was not the first hit."
CATEGORY_NOTE = ("The same metric on each category of the records it reads (question "
                 "categories, kinds of gate items); mean ± half-width of the 95% t-interval.")


def run_line(result: Result) -> str:
    seeds = result.seeds
    return (f"Run {result.run_id}, started {result.started_at}, finished "
            f"{result.finished_at} ({result.status}). "
            f"{_seeds_said(seeds)}.")


def _seeds_said(seeds: list[int]) -> str:
    """``10 seeds (0-9)``, ``1 seed (0)``, ``3 seeds (0, 4, 7)``: said once, one way."""
    n = len(seeds)
    if n > 2 and seeds == list(range(seeds[0], seeds[0] + n)):
        which = f"{seeds[0]}–{seeds[-1]}"
    else:
        which = ", ".join(map(str, seeds))
    return f"{n} seed{'s' if n != 1 else ''} ({which})"


def _leader(result: Result, metric: MetricSpec) -> tuple[str, list[str]] | None:
    """("leads", [label]) when the best mean's backend is ahead of every other backend
    in its paired verdicts on ``metric``; ("tie", labels) when the top is a tie; None
    when there is no verdict to say it with."""
    by_pair = {(c.a, c.b): c for c in result.comparisons or [] if c.metric == metric.name}
    means = {b.label: s.mean for b in result.backends
             if (s := b.summary.get(metric.name)) is not None and s.mean is not None}
    if len(means) < 2:
        return None
    sign = 1 if metric.higher_is_better else -1
    best = max(means, key=lambda lbl: sign * means[lbl])

    def verdict(a: str, b: str) -> str | None:
        if (a, b) in by_pair:
            return by_pair[(a, b)].verdict
        if (b, a) in by_pair:
            return {"ahead": "behind", "behind": "ahead"}.get(by_pair[(b, a)].verdict,
                                                                by_pair[(b, a)].verdict)
        return None

    said = {other: verdict(best, other) for other in means if other != best}
    if any(v in (None, "pending", "insufficient data", "not supported") for v in said.values()):
        return None
    if all(v == "ahead" for v in said.values()):
        return "leads", [best]
    if all(v in ("ahead", "tie") for v in said.values()):
        return "tie", [best, *sorted(o for o, v in said.items() if v == "tie")]
    return None


def lead_sentence(result: Result) -> str | None:
    """One sentence on who leads what, from the paired verdicts (Holm-corrected): the
    backend ahead of every other on a quality metric, or the backends tied at its top."""
    labels = _labels(result)
    leads: dict[str, list[str]] = {}
    ties: list[str] = []
    for m in measured(result, result.section("results")):
        if is_cost(m):
            continue
        got = _leader(result, m)
        if got is None:
            continue
        kind, who = got
        if kind == "leads":
            leads.setdefault(labels.get(who[0], who[0]), []).append(m.label)
        elif len(who) <= 3:
            ties.append(f"{m.label} ({' = '.join(labels.get(w, w) for w in who)})")
    if not leads and not ties:
        return None
    parts = [f"{who} leads {', '.join(ms)}" for who, ms in leads.items()]
    if ties:
        parts.append("tied at the top: " + "; ".join(ties))
    return ("Who leads, by the paired verdicts over the same questions (Holm-corrected; "
            f"{_seeds_said(result.seeds)}): " + "; ".join(parts) + ".")


def scenario_params(result: Result) -> dict[str, Any]:
    """The scenario block as shown: everything but the per-seed data it derived. Its
    ``seeds`` is the scenario's default count; the seeds this run used are said once,
    as the run line says them, so that the two never read as a contradiction."""
    d = result.scenario.to_dict()
    for key in ("data_hashes", "data_stats", "caveats"):
        d.pop(key, None)
    if "seeds" in d:
        d["seeds_by_default"] = d.pop("seeds")
        d["seeds_this_run"] = list(result.seeds)
    return d


def measured(result: Result, metrics: list[MetricSpec]) -> list[MetricSpec]:
    """The metrics some backend has a value for: a metric the scenario never measures
    (no fact written twice, say) gets no column; the caveats say why."""
    return [m for m in metrics
            if any((b.summary.get(m.name) or _EMPTY).mean is not None for b in result.backends)]


def is_cost(m: MetricSpec) -> bool:
    """A cost (a timing, an ingest rate, memory), not a quality: kept on every row."""
    return m.axis == "latency" or m.thousands or is_timing(m.name)


def _quality_values(result: Result, b: BackendEntry) -> tuple | None:
    """Every quality value of every seed (None when a run failed): what two rows must
    share, exactly, to be the same retriever on this data."""
    if not b.runs or any(not r.ok for r in b.runs):
        return None
    names = [m.name for m in result.metrics if not is_cost(m)]
    return tuple((r.seed, r.data_hash, tuple(r.metrics.get(n) for n in names))
                 for r in sorted(b.runs, key=lambda r: r.seed))


def same_as(result: Result) -> dict[str, str]:
    """label -> the first earlier row whose quality values are all identical (seed by
    seed), so a table shows each retriever's quality once ("= faiss-rag")."""
    first: dict[tuple, str] = {}
    out: dict[str, str] = {}
    for b in result.backends:
        key = _quality_values(result, b)
        if key is None:
            continue
        if key in first:
            out[b.label] = first[key]
        else:
            first[key] = b.label
    return out


def shown_once(cells: list[str], metrics: list[MetricSpec], twin: str | None) -> list[str]:
    """A row's cells, its quality ones replaced by "= twin" when ``twin`` (an earlier
    row with the same quality values, seed by seed) is given; its costs are kept."""
    if twin is None:
        return cells
    quality = [i for i, m in enumerate(metrics) if not is_cost(m)]
    out = list(cells)
    for n, i in enumerate(quality):
        out[i] = f"= {twin}" if n == 0 else "="
    return out


def _metric_table(result: Result, metrics: list[MetricSpec]) -> tuple[list[str], list]:
    metrics = measured(result, metrics)
    head = ["backend", "runs ok"] + [m.label for m in metrics]
    twins = same_as(result)
    oks: list[int | None] = [len(b.ok_runs()) for b in result.backends]
    # column by column: one interval form and fixed decimals per column
    cols = [column([b.summary.get(m.name) for b in result.backends], m, oks) for m in metrics]
    rows = []
    for i, b in enumerate(result.backends):
        cells = [col[i] for col in cols]
        rows.append([row_label(result, b), run_counts(b),
                     *shown_once(cells, metrics, twins.get(b.label))])
    return head, rows


def exposure_note(result: Result) -> str:
    """What the backends were given, from the result's record of the items written."""
    e = result.scenario.exposure
    if not e:
        return ("This file does not record what the items exposed to backends (written "
                "before that was recorded).")
    given = ", ".join(e.get("fields", []))
    marked = [b.label for b in result.backends if b.structure_used(result.scenario)]
    if not e.get("structure"):
        return (f"Backends were given each item's {given}: no tags, ids opaque (the run's "
                "prefix and a random token), sources drawn alike for every phase. No row "
                "read structure.")
    keys = ", ".join(e.get("tag_keys", []))
    if "items" in e:
        text = (f"Structured scenario: {e.get('tagged_items', 0)} of {e['items']} items "
                f"carried tags ({keys}).")
    else:
        text = f"Structured scenario ({e.get('note', f'items carried tags: {keys}')})."
    if marked:
        text += (f" {STRUCTURED} marks the rows that read them ({', '.join(marked)}): a "
                 "structured track, not comparable with text-only rows.")
    return text


def ingest_note(result: Result) -> str | None:
    """Where an ingest figure comes from: the embedding cache's state in this run."""
    ingest = next((m for m in result.metrics if m.name == "ingest_items_per_s"), None)
    if ingest is None:
        return None
    label, cache = ingest.label, result.execution.get("cache")
    if result.execution.get("encode") == "once":
        return (f"{label}: the stores' own rate; each seed's texts were encoded once "
                "before the pairs (the encoders' batched rates are in the caveats)"
                + (", with no embedding cache." if cache == "off" else "."))
    if cache == "off":
        return (f"{label}: measured cold, with no embedding cache: every embedding backend "
                "encoded every text it stored.")
    if cache == "on":
        return (f"{label}: the embedding cache was on, so an embedding backend encodes only "
                "texts no earlier pair encoded: these are cache look-ups, not learning "
                "speed (publish with --no-cache).")
    return f"{label}: this file does not record the embedding cache's state."


def results_table(result: Result) -> tuple[list[str], list[list[str]]]:
    return _metric_table(result, result.section("results"))


def other_table(result: Result) -> tuple[list[str], list[list[str]]]:
    return _metric_table(result, result.section("other"))


def category_tables(result: Result) -> list[tuple[str, list[str], list[list[str]]]]:
    """(metric label, head, rows) per per-category metric: a column per category."""
    out = []
    keys = result.category_keys()
    for m in result.metrics:
        mine = [k for k in keys if split_key(k)[0] == m.name]
        if not mine:
            continue
        head = ["backend", *(split_key(k)[1] or "" for k in mine)]
        rows = [[row_label(result, b), *(cell(b.summary.get(k), m) for k in mine)]
                for b in result.backends]
        out.append((m.label, head, rows))
    return out


CURVE_NOTE = ("recall@1 of each ask step (a run of questions with no other call between "
              "them) over the stream, as big-ann-benchmarks' streaming track reports recall at "
              "every search step: mean over seeds, at most 12 steps evenly spread; the column "
              "says how many items were written before the step. Only questions with a gold "
              "id count.")
_CURVE_COLUMNS = 12


def _spread(steps: list[int], each: list[set[int]]) -> list[int]:
    """At most ``_CURVE_COLUMNS`` steps: those every backend has first, then others evenly
    spread (a backend without strength skips the reinforcement steps)."""
    if len(steps) <= _CURVE_COLUMNS:
        return steps
    common = sorted(set.intersection(*each)) if each else []
    pick = common[:_CURVE_COLUMNS]
    rest = [s for s in steps if s not in pick]
    room = _CURVE_COLUMNS - len(pick)
    if room and rest:
        last = len(rest) - 1
        pick += sorted({rest[round(i * last / max(room - 1, 1))] for i in range(room)})
    return sorted(pick)


def curve_table(result: Result) -> tuple[list[str], list[list[str]]]:
    """(head, rows) of the per-step curve; no rows when no backend has one."""
    steps: dict[int, float] = {}
    for b in result.backends:
        for step, written, *_ in b.curve:
            steps.setdefault(int(step), written)
    if not steps:
        return [], []
    order = _spread(sorted(steps), [{int(p[0]) for p in b.curve} for b in result.backends
                                     if b.curve])
    head = ["backend", *(f"step {s} ({steps[s]:,.0f})" for s in order)]
    rows = []
    for b in result.backends:
        mean = {int(p[0]): p[3] for p in b.curve}
        rows.append([row_label(result, b),
                     *(f"{mean[s]:.3f}" if s in mean else NOT_SUPPORTED for s in order)])
    return head, rows


def audit_table(result: Result) -> tuple[list[str], list[list[str]]]:
    """(head, rows) of what reading the protocol buys; no rows without audit rows."""
    gains = audit_gains(result)
    head = ["audit row", "reads", "targets", "base", "gain", "95% interval", "paid in",
            "status"]
    rows = []
    for g in gains:
        m = result.metric(g.metric)
        paid = []
        for c in g.costs:
            cm = result.metric(c.metric)
            paid.append(f"{cm.label} {_maybe(c.effect, cm)} {_interval(c.low, c.high, cm)}")
        rows.append([g.row, g.reads, m.label, g.base, _maybe(g.effect, m),
                     _interval(g.low, g.high, m), "; ".join(paid) or NOT_SUPPORTED, g.status])
    return head, rows


def capability_table(result: Result) -> tuple[list[str], list[list[str]]]:
    caps = [c.value for c in Capability]
    rows = [[row_label(result, b), *("yes" if b.has(c) else NOT_SUPPORTED for c in caps),
             ", ".join(b.reads) or NOT_SUPPORTED]
            for b in result.backends]
    return ["backend", *caps, "reads"], rows


def _comparisons(result: Result) -> dict[tuple[str, str], dict[str, Comparison]]:
    pairs: dict[tuple[str, str], dict[str, Comparison]] = {}
    for c in result.comparisons or []:
        pairs.setdefault((c.a, c.b), {})[c.metric] = c
    return pairs


def _labels(result: Result) -> dict[str, str]:
    return {b.label: row_label(result, b) for b in result.backends}


def verdict_table(result: Result) -> tuple[list[str], list[list[str]]]:
    metrics = measured(result, result.section("results"))
    head = ["first", "second"] + [m.label for m in metrics]
    shown = _labels(result)
    rows = [
        [shown.get(a, a), shown.get(b, b)] + [
            verdict_cell(c, m, borderline=c is not None and borderline(c, result.analysis))
            for m in metrics for c in [by_metric.get(m.name)]]
        for (a, b), by_metric in _comparisons(result).items()
    ]
    return head, rows


_EMPTY = MetricSummary()


def _maybe(x: float | None, metric: MetricSpec) -> str:
    return NOT_SUPPORTED if x is None else num(x, metric)


def _interval(low: float | None, high: float | None, metric: MetricSpec) -> str:
    if low is None or high is None:
        return NOT_SUPPORTED
    return f"[{num(low, metric)}, {num(high, metric)}]"


def difference_table(result: Result) -> tuple[list[str], list[list[str]]]:
    head = ["first", "second", "metric", "seeds", "questions", "effect", "95% interval",
            "test", "p", "p (Holm)", "verdict", "per-seed t-interval"]
    rows = []
    shown = _labels(result)
    for (a, b), by_metric in _comparisons(result).items():
        for m in measured(result, result.section("results")):
            c = by_metric.get(m.name)
            if c is None or c.verdict == "not supported":
                continue
            effect = c.effect if c.effect is not None else c.mean_diff
            rows.append([
                shown.get(a, a), shown.get(b, b), m.label, str(c.n),
                NOT_SUPPORTED if c.questions is None else str(c.questions),
                _maybe(effect, m), _interval(c.effect_low, c.effect_high, m),
                c.test or NOT_SUPPORTED, p_value(c.p), p_value(c.p_holm),
                c.verdict + (" (borderline)" if borderline(c, result.analysis) else ""),
                _interval(c.ci_low, c.ci_high, m),
            ])
    return head, rows


def caveat_lines(result: Result) -> list[str]:
    return caveats(result)


def notes(result: Result) -> list[tuple[str, str]]:
    return backend_notes(result)


def failures(result: Result) -> list[tuple[str, Any, str]]:
    return [(b.label, r.seed, f"{r.status}: {r.error}")
            for b in result.backends for r in b.runs if not r.ok]


def method(result: Result) -> list[tuple[str, str]]:
    return [(k, str(v)) for k, v in (result.analysis or {}).items() if k != "version"]


def misses(result: Result, per_backend: int = 3) -> tuple[list[str], list] | None:
    """Probes of the first tag the headline metric reads whose answer was not first."""
    first = next((m for m in result.metrics if m.reads), None)
    tag = first.reads[0] if first else "probe"
    rows = []
    for b in result.backends:
        run = next((r for r in b.ok_runs() if r.records is not None), None)
        if run is None or run.records is None:
            continue
        probes = [p for p in run.records.probes if p.tag == tag
                  and (p.returned[:1] or [None])[0] not in p.expected]
        for p in probes[:per_backend]:
            top = (p.returned or [NOT_SUPPORTED])[0]
            rows.append([row_label(result, b), str(run.seed), p.question, ", ".join(p.expected),
                         top])
    if not rows:
        return None
    return ["backend", "seed", "question", "expected id", "first hit"], rows
