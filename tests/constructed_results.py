"""Result dicts built by hand, so statistics, verdicts and renderers are tested on
numbers chosen for the test rather than on whatever a run happens to produce."""

from __future__ import annotations

import copy
from typing import Any

from memory_bench.analysis.compare import summarize_backends
from memory_bench.metrics.continual import CONTINUAL_METRICS as METRICS
from memory_bench.results.model import SCHEMA, Result
from memory_bench.scenarios.continual.caveats import continual_caveats

BASE_METRICS = {m.name: 0.5 for m in METRICS}
BASE_METRICS.update(latency_p50_ms=1.0, latency_p95_ms=2.0, ingest_items_per_s=1000.0,
                    reinforcementDelta=None, strengthDelta=None, gateRecall=None,
                    falseRefusals=None)


def backend(label: str, per_seed: dict[str, list[float | None]], *,
            capabilities: tuple[str, ...] = ("provenance",), notes: tuple[str, ...] = (),
            failed_seeds: tuple[int, ...] = (), n_seeds: int = 5,
            hashes: dict[int, str] | None = None,
            outcomes: dict[str, list[list[float]]] | None = None,
            reads: tuple[str, ...] = ()) -> dict[str, Any]:
    """A backend entry whose run on seed i has metric values ``per_seed[metric][i]``.

    ``outcomes[metric][i]`` are seed i's per-question values (one column, keyed
    ``q0``, ``q1``, ...); the metric's value on that seed is then their mean unless
    ``per_seed`` says otherwise.
    """
    runs = []
    for seed in range(n_seeds):
        run: dict[str, Any] = {"seed": seed, "data_hash": (hashes or {}).get(seed, f"h{seed}")}
        if seed in failed_seeds:
            run.update(status="failed", error="RuntimeError: boom")
        else:
            metrics = dict(BASE_METRICS)
            rows = {k: v[seed] for k, v in (outcomes or {}).items()}
            metrics.update({k: sum(v) / len(v) for k, v in rows.items()})
            metrics.update({k: v[seed] for k, v in per_seed.items()})
            run.update(status="ok", error=None, metrics=metrics, records={"probes": []},
                       outcomes={k: {"keys": [f"q{i}" for i in range(len(v))],
                                     "values": [[x] for x in v]} for k, v in rows.items()})
        runs.append(run)
    return {"label": label, "spec": label, "name": label.split(":")[0], "version": "0.0.1",
            "capabilities": sorted(capabilities), "notes": list(notes), "options": {},
            "runs": runs, "summary": {}, "reads": list(reads)}


def result(*backends: dict[str, Any], n_seeds: int = 5, generator: str = "templated",
           run_id: str = "run-a", exposure: dict[str, Any] | None = None) -> Result:
    """A typed, summarised result holding ``backends`` (dicts from :func:`backend`)."""
    doc = {
        "schema": SCHEMA,
        "run_id": run_id,
        "status": "complete",
        "started_at": "2026-08-17T10:00:00+00:00",
        "finished_at": "2026-08-17T10:01:00+00:00",
        "scenario": {"name": "default", "generator": generator, "description": "test",
                     "params": {"consolidate": False},
                     "caveats": continual_caveats(generator)({"consolidate": False}, {}),
                     "data_hashes": {str(s): f"h{s}" for s in range(n_seeds)},
                     "exposure": exposure or {"fields": ["text", "source", "timestamp",
                                                         "region"], "structure": []}},
        "metrics": [m.spec.to_dict() for m in METRICS],
        "seeds": list(range(n_seeds)),
        "manifest": {"platform": "Linux-test", "machine": "x86_64", "cpu_count": 2,
                     "python": "3.11.7"},
        "backends": [copy.deepcopy(b) for b in backends],
    }
    typed = Result.from_dict(doc)
    summarize_backends(typed)
    return typed
