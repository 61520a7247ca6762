"""Check that a new run reproduces a published one exactly: same data, same quality.

    python scripts/check_reproduction.py PUBLISHED.json.gz NEW.json

For every backend label and seed present in both: the data hashes must be equal,
every quality metric (all but latencies and ingest rates, which are timings)
must be equal to the last bit, and so must the ids each probe returned (with
each run's id prefix removed). Prints one line per backend and exits 1 on the
first difference it reports.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from memory_bench.results.io import load_result

TIMINGS = ("latency_p50_ms", "latency_p95_ms", "ingest_items_per_s")


def _strip(ids: list[str]) -> list[str]:
    return [re.sub(r"^bench-[^-]+-[^-]+-s\d+-", "", i) for i in ids]


def main(published: str, new: str) -> int:
    old, cur = load_result(Path(published)), load_result(Path(new))
    bad = 0
    for b in cur.backends:
        ob = old.backend(b.label)
        if ob is None:
            print(f"{b.label}: not in the published run")
            continue
        seeds = metrics = probes = 0
        for run in b.ok_runs():
            orun = ob.run_for(run.seed)
            if orun is None or not orun.ok:
                continue
            seeds += 1
            if orun.data_hash != run.data_hash:
                print(f"{b.label} seed {run.seed}: data hash {run.data_hash} != {orun.data_hash}")
                bad += 1
            for name, value in orun.metrics.items():
                if name in TIMINGS:
                    continue
                metrics += 1
                if run.metrics.get(name) != value:
                    print(f"{b.label} seed {run.seed}: {name} {run.metrics.get(name)!r} != "
                          f"published {value!r}")
                    bad += 1
            assert run.records is not None and orun.records is not None
            for p, q in zip(run.records.probes, orun.records.probes, strict=True):
                probes += 1
                if _strip(p.returned) != _strip(q.returned) or p.tag != q.tag:
                    print(f"{b.label} seed {run.seed}: probe {p.question!r} returned "
                          f"{_strip(p.returned)} != published {_strip(q.returned)}")
                    bad += 1
                    break
        print(f"{b.label}: {seeds} seed(s), {metrics} quality values and {probes} probes "
              "compared" + ("" if not bad else f"; {bad} difference(s) so far"))
    print("identical" if not bad else f"{bad} difference(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
