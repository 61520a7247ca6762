"""'What this does not show', written from the run itself (METHOD.md §4).

Every line is derived from the result file: the generator, the seed count, the
metrics each backend could not report and why, failures, the machine. Text is
plain with `code` spans; each renderer escapes it for its own format.
"""

from __future__ import annotations

from typing import Any

from memory_bench.metrics import BY_NAME
from memory_bench.render.format import REPORT_METRICS

__all__ = ["backend_notes", "caveats", "missing_metrics"]


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def missing_metrics(backend: dict[str, Any]) -> dict[str, str]:
    """Report metrics a backend has no value for, each with the reason."""
    caps = set(backend.get("capabilities", []))
    ok = [r for r in backend.get("runs", []) if r.get("status") == "ok"]
    out = {}
    for name in REPORT_METRICS:
        if any((r.get("metrics") or {}).get(name) is not None for r in ok):
            continue
        if not ok:
            out[name] = "no successful run"
        elif (needs := BY_NAME[name].needs) and needs.value not in caps:
            out[name] = f"no `{needs.value}` capability"
        elif name == "retention":
            out[name] = "recall@1 before interference was 0 on every seed"
        else:
            out[name] = "no value on any seed"
    return out


def _data(result: dict[str, Any]) -> str:
    scen = result["scenario"]
    gen = scen.get("generator", "?")
    if gen == "templated":
        return (f"Synthetic facts. The `{scen.get('name')}` scenario uses the `templated` "
                "generator: templated sentences about generated names, not natural language "
                "from a real corpus. Retrieval on templates is easier than retrieval on prose.")
    return (f"Facts from the `{gen}` generator (scenario `{scen.get('name')}`: "
            f"{scen.get('description', 'no description')}). Scores on one corpus slice "
            "need not carry over to another.")


def _overlap(result: dict[str, Any]) -> str | None:
    """Word overlap of questions with their facts, where the generator recorded it."""
    per_seed = (result["scenario"].get("data_stats") or {}).values()
    probes = [((s or {}).get("question_overlap") or {}).get("probe") or {} for s in per_seed]
    probes = [p for p in probes if p.get("n") and "share" in p]
    if not probes:
        return None
    share = sum(p["share"]["mean"] for p in probes) / len(probes)
    zero = sum(p.get("zero_overlap_share", 0.0) for p in probes) / len(probes)
    return (f"Word overlap: a phase-2 question shares on average {share:.0%} of its content "
            f"words with its fact, and {zero:.0%} of questions share none (mean over "
            f"{len(probes)} seed(s)). Word matchers gain where the overlap is high and can "
            "only guess where it is zero; compare them with that in mind.")


def _seeds(result: dict[str, Any]) -> str:
    n = len(result.get("seeds", []))
    if n <= 1:
        return ("One seed: no variance, no intervals and no verdicts. A single number from a "
                "single run is an anecdote with decimals.")
    return (f"{n} seeds. Each interval is a 95% Student-t interval over {n} per-seed values: "
            f"wide, and itself uncertain with so few seeds. The exact sign-flip test reported "
            f"beside each paired verdict cannot go below p = 2/2^{n} = {2 / 2**n:.4g}.")


def _missing(result: dict[str, Any]) -> list[str]:
    lines = []
    for b in result["backends"]:
        missing = missing_metrics(b)
        if not any(r.get("status") == "ok" for r in b.get("runs", [])):
            lines.append(f"`{b['label']}` has no successful run: every cell of its row is —.")
        elif missing:
            by_reason: dict[str, list[str]] = {}
            for m, why in missing.items():
                by_reason.setdefault(why, []).append(BY_NAME[m].label)
            parts = [f"{', '.join(names)} ({why})" for why, names in by_reason.items()]
            lines.append(f"`{b['label']}` reports no {', '.join(parts)}: shown as —, "
                         "never as 0, and left out of its paired verdicts.")
        if "provenance" not in b.get("capabilities", []):
            lines.append(f"`{b['label']}` keeps no provenance, so it scores 0 on provenance "
                         "by construction (METHOD.md), not because it tried and failed.")
    return lines


def _failures(result: dict[str, Any]) -> list[str]:
    lines = []
    for b in result["backends"]:
        runs = b.get("runs", [])
        bad = [r for r in runs if r.get("status") != "ok"]
        if bad:
            first = bad[0]
            lines.append(f"`{b['label']}` failed on {len(bad)} of {len(runs)} seeds (seed "
                         f"{first.get('seed')}: {first.get('error')}); its numbers cover the "
                         "other seeds only.")
        dirty = [r for r in runs if r.get("cleanup") and not r["cleanup"].get("ok")]
        if dirty:
            lines.append(f"`{b['label']}`: the harness could not confirm that its items were "
                         f"removed after {len(dirty)} run(s).")
    return lines


def _updates(result: dict[str, Any]) -> str:
    per = []
    for b in result["backends"]:
        s = b.get("summary", {})
        win = (s.get("updateWinRate") or {}).get("mean")
        stale = (s.get("staleRate") or {}).get("mean")
        if win is not None:
            per.append(f"`{b['label']}` {_fmt(win)} / {_fmt(stale)}")
    text = ("`updateWinRate` is ranking, not erasure: it asks whether the new value outranks "
            "the old, not whether the old one is gone. `staleRate` (the old value still in the "
            "top-k) measures erasure")
    return text + (f"; updateWinRate / staleRate: {'; '.join(per)}." if per else ".")


def _machine(result: dict[str, Any]) -> str:
    m = result.get("manifest") or {}
    where = (f"{m.get('platform', 'an unrecorded platform')}, {m.get('cpu_count', '?')} CPUs, "
             f"Python {m.get('python', '?')}")
    return (f"One machine: {where}. Latency and ingest rates are this machine's, under whatever "
            "else it was running, and do not transfer to other hardware.")


def _latency(result: dict[str, Any]) -> str:
    text = ("Latency is timed around each backend's query call, so it includes encoding the "
            "question for embedding backends. The embedding cache is shared across runs and "
            "content-addressed: texts encoded by an earlier run are not encoded again, so "
            "ingest rates and latencies depend on the cache's state")
    cache = result.get("cache_dir", result.get("manifest", {}).get("cache_dir", ...))
    if cache is ...:
        return text + ", which this file does not record."
    return text + (f" (this run: cache {'off' if cache is None else 'on'}).")


def caveats(result: dict[str, Any]) -> list[str]:
    """The caveat list of this run, most important first."""
    scen = result["scenario"]
    overlap = _overlap(result)
    out = [_data(result), *([overlap] if overlap else []), _seeds(result), *_missing(result),
           *_failures(result), _updates(result)]
    n_cmp = sum(1 for c in result.get("comparisons", [])
                if c.get("metric") in REPORT_METRICS and c.get("ci_low") is not None)
    if n_cmp:
        out.append(f"No correction for multiple comparisons: each of the {n_cmp} paired "
                   "comparisons in the verdict table is at 95% on its own, so about 1 in 20 "
                   "true ties can show as ahead or behind by chance.")
    out.append("Retrieval only: no language model answers the questions. A probe counts when "
               "the right item's id is the backend's first hit; what an LLM would do with the "
               "hits is not measured.")
    if not scen.get("consolidate"):
        out.append("Consolidation was off in this scenario: backends that can consolidate "
                   "were not asked to.")
    out += [_machine(result), _latency(result)]
    if result.get("status") not in (None, "complete"):
        out.append(f"This run is {result.get('status')}: not every pair finished.")
    return out


def backend_notes(result: dict[str, Any]) -> list[tuple[str, str]]:
    """(labels, note) for every caveat a backend's author registered, in order; a note
    several backends share is listed once, with their labels joined."""
    labels: dict[str, list[str]] = {}
    for b in result["backends"]:
        for note in b.get("notes", []):
            labels.setdefault(note, []).append(b["label"])
    return [(", ".join(who), note) for note, who in labels.items()]
