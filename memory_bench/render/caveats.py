"""'What this does not show', written from the run itself (METHOD.md §4).

Every line is derived from the result file: the scenario's own caveats (its
generator wrote them from the data), the seed count, the metrics each backend
could not report and why (from the metric declarations), failures, the
metrics' own caveats, the machine. Text is plain with `code` spans; each
renderer escapes it for its own format.
"""

from __future__ import annotations

from memory_bench.render.leakscan import leak_scan_caveat
from memory_bench.results.manifest import dirty_line
from memory_bench.results.model import BackendEntry, Result
from memory_bench.results.suspect import suspect_lines

__all__ = ["backend_notes", "caveats", "missing_metrics"]


def _unmeasured(result: Result) -> list[str]:
    """Headline metrics no backend has a value for: the scenario does not measure them."""
    return [m.name for m in result.section("results")
            if not any(r.metrics.get(m.name) is not None for b in result.backends
                       for r in b.ok_runs())]


def missing_metrics(result: Result, backend: BackendEntry) -> dict[str, str]:
    """Headline metrics a backend has no value for, each with the reason (metrics no
    backend has are left to one line of their own)."""
    ok = backend.ok_runs()
    out = {}
    skip = set(_unmeasured(result)) if any(b.ok_runs() for b in result.backends) else set()
    for m in result.section("results"):
        if m.name in skip:
            continue
        if any(r.metrics.get(m.name) is not None for r in ok):
            continue
        if not ok:
            out[m.name] = "no successful run"
        elif m.needs and not backend.has(m.needs):
            out[m.name] = f"no `{m.needs}` capability"
        else:
            out[m.name] = m.undefined
    return out


def _seeds(result: Result) -> str:
    n = len(result.seeds)
    if n <= 1:
        return ("One seed: no variance over seeds, and the summary intervals are empty. "
                "Paired verdicts still compare question by question, but say nothing about "
                "other draws of the data.")
    return (f"{n} seeds. Each summary interval is a 95% Student-t interval over {n} per-seed "
            "values: wide, and itself uncertain with so few seeds. Verdicts do not rest on "
            "it: they pair backends question by question (see the method), since a test over "
            f"{n} per-seed values cannot go below p = 2/2^{n} = {2 / 2**n:.3g}.")


def _exposure(result: Result) -> str | None:
    e = result.scenario.exposure
    if not e:
        return None
    if not e.get("structure"):
        return (f"Backends saw each item's {', '.join(e.get('fields', []))} only: no tags, "
                "opaque ids, sources drawn alike for every phase. The answer key (which "
                "item is a fact, an update, noise or junk) stayed in the harness.")
    readers = [b.label for b in result.backends if b.structure_used(result.scenario)]
    return ("Items carried tags (a structured scenario): "
            + (f"{', '.join(readers)} read them, so those rows (marked [structured]) used "
               "structure the text-only rows did not have." if readers
               else "no backend here declares that it reads them."))


def _verdicts(result: Result) -> str | None:
    tested = [c for c in result.comparisons or [] if c.p_holm is not None]
    if not tested:
        return None
    per_seed = sum(c.test == "seed-sign-flip" for c in tested)
    text = (f"Verdicts are corrected for multiplicity: Holm's correction over all "
            f"{len(tested)} comparisons in this file keeps the chance of any false "
            "ahead/behind at 5% or less. A per-question p-value is conditional on the "
            "questions asked (are the two backends interchangeable on them); the effect's "
            "cluster-bootstrap interval is what speaks to other seeds. A tie is not a proof "
            "of equality.")
    if per_seed:
        text += (f" {per_seed} comparison(s) had no per-question outcomes and were tested "
                 "over per-seed values only, which with few seeds almost never passes.")
    return text


def _missing(result: Result) -> list[str]:
    lines = []
    provenance = any(m.name == "provenanceAccuracy" for m in result.metrics)
    for b in result.backends:
        missing = missing_metrics(result, b)
        if not b.ok_runs():
            lines.append(f"`{b.label}` has no successful run: every cell of its row is —.")
        elif missing:
            by_reason: dict[str, list[str]] = {}
            for name, why in missing.items():
                by_reason.setdefault(why, []).append(result.metric(name).label)
            parts = [f"{', '.join(names)} ({why})" for why, names in by_reason.items()]
            lines.append(f"`{b.label}` reports no {', '.join(parts)}: shown as —, "
                         "never as 0, and left out of its paired verdicts.")
        if provenance and not b.has("provenance"):
            lines.append(f"`{b.label}` keeps no provenance, so it scores 0 on provenance "
                         "by construction (METHOD.md), not because it tried and failed.")
    return lines


def _failures(result: Result) -> list[str]:
    lines = []
    for b in result.backends:
        bad = [r for r in b.runs if not r.ok]
        if bad:
            first = bad[0]
            lines.append(f"`{b.label}` failed on {len(bad)} of {len(b.runs)} seeds (seed "
                         f"{first.seed}: {first.error}); its numbers cover the other seeds "
                         "only.")
        dirty = [r for r in b.runs if r.cleanup is not None and not r.cleanup.ok]
        if dirty:
            lines.append(f"`{b.label}`: the harness could not confirm that its items were "
                         f"removed after {len(dirty)} run(s).")
    return lines


def _machine(result: Result) -> str:
    m = result.manifest
    where = (f"{m.get('platform', 'an unrecorded platform')}, {m.get('cpu_count', '?')} CPUs, "
             f"Python {m.get('python', '?')}")
    return (f"One machine: {where}. Latency and ingest rates are this machine's, under whatever "
            "else it was running, and do not transfer to other hardware.")


def _encoders(result: Result) -> str | None:
    """What encode once made of latency and ingest, with the encoders' own figures."""
    encoders = result.execution.get("encoders") or {}
    if result.execution.get("encode") != "once" or not encoders:
        return None
    parts = []
    for label, e in encoders.items():
        rate = e.get("item_texts_per_s")
        parts.append(f"`{label}` (read by {', '.join(e.get('read_by') or [])}): "
                     f"{e.get('query_encode_p50_ms')} ms per question at p50, "
                     f"{e.get('query_encode_p95_ms')} ms at p95, one at a time; "
                     + (f"{rate:,.0f} stored texts/s in batches" if rate else "no stored text"))
    return ("Encoded once: each seed's distinct texts were encoded once per embedder "
            "identity before the pairs, into a table its backends read. For those backends "
            "store p50/p95 ms is the store's own query time given the question's vector "
            "and store ingest/s the store's rate; e2e p50/p95 ms adds the encoder's time "
            "for each question (the figure to compare with backends that encode nothing or "
            "their own, and the one the tables and plot lead with). The encoders, measured "
            "once: " + "; ".join(parts) + ".")


def _latency(result: Result) -> str:
    once = _encoders(result)
    if once is not None:
        return once
    text = ("Latency is timed around each backend's query call, so it includes encoding the "
            "question for embedding backends. The embedding cache is shared across runs and "
            "content-addressed: texts encoded by an earlier run are not encoded again, so "
            "ingest rates and latencies depend on the cache's state")
    cache = result.execution.get("cache")
    if cache is None:
        return text + ", which this file does not record."
    return text + f" (this run: cache {cache})."


def _in_sample(result: Result) -> list[str]:
    """Rows scored on the seeds their backend was tuned on (declared by the plugin)."""
    out = []
    for b in result.backends:
        seeds = b.in_sample(result.scenario, result.seeds)
        if seeds:
            out.append(f"`{b.label}` is in-sample (marked [in-sample]): its settings were "
                       f"tuned on seed(s) {', '.join(map(str, seeds))} of this scenario, "
                       "which this run scores it on, so its row is its own tuning data, not "
                       "a held-out score.")
    return out


def caveats(result: Result) -> list[str]:
    """The caveat list of this run, most important first."""
    scenario = list(result.scenario.caveats)
    out = [*filter(None, [dirty_line(result.manifest)]), *_in_sample(result),
           *suspect_lines(result),
           *scenario[:2], _seeds(result),
           *filter(None, [_exposure(result)]),
           *_missing(result), *_failures(result),
           *(m.caveat for m in result.metrics if m.caveat)]
    unmeasured = _unmeasured(result) if any(b.ok_runs() for b in result.backends) else []
    if unmeasured:
        out.append("Not measured by this scenario (no column): " + "; ".join(
            f"{result.metric(n).label} ({result.metric(n).undefined})" for n in unmeasured)
            + ".")
    verdicts = _verdicts(result)
    if verdicts:
        out.append(verdicts)
    elif any(c.ci_low is not None for c in result.comparisons or []):
        out.append("No correction for multiple comparisons (an analysis from before "
                   "per-question tests): each paired comparison is at 95% on its own, so "
                   "about 1 in 20 true ties can show as ahead or behind by chance.")
    out.append("Retrieval only: no language model answers the questions. A probe counts when "
               "the right item's id is among the backend's first hits; what an LLM would do "
               "with the hits is not measured.")
    out += scenario[2:]
    scan = leak_scan_caveat(result.scenario.leak_scan, result.scenario.name)
    if scan:
        out.append(scan)
    out += [_machine(result), _latency(result)]
    broken = result.manifest.get("broken_plugins") or []
    for b in broken:
        if isinstance(b, dict):
            out.append(f"A plugin failed to load and is not in this comparison: "
                       f"{b.get('entry_point')} ({b.get('distribution')}): {b.get('error')}.")
    if result.status != "complete":
        out.append(f"This run is {result.status}: not every pair finished.")
    return out


def backend_notes(result: Result) -> list[tuple[str, str]]:
    """(labels, note) for every caveat a backend's author registered, in order; a note
    several backends share is listed once, with their labels joined."""
    labels: dict[str, list[str]] = {}
    for b in result.backends:
        for note in b.notes:
            labels.setdefault(note, []).append(b.label)
    return [(", ".join(who), note) for note, who in labels.items()]
