"""How long reading a published result takes: ``json.loads`` against the typed reader.

    .venv/bin/python benchmarks/result_validation.py [RESULT.json.gz ...]

Both sides on the same decompressed bytes, alternated, five times each; prints the
medians, the ratio (typed reader + json.loads) / json.loads, and the load average.
Issue 22's target: at most 2x json.loads on the 26 MB published hard result.
"""

from __future__ import annotations

import gzip
import json
import os
import statistics
import sys
import time
from pathlib import Path

from memory_bench.results.model import Result

DEFAULT = Path("reports/2026-12-04-hard-20261204T232031-0058-stores.json.gz")


def main(paths: list[str]) -> int:
    for path in [Path(p) for p in paths] or [DEFAULT]:
        raw = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
        loads, typed = [], []
        for _ in range(5):
            t0 = time.perf_counter()
            doc = json.loads(raw)
            t1 = time.perf_counter()
            Result.from_dict(doc)
            t2 = time.perf_counter()
            loads.append(t1 - t0)
            typed.append(t2 - t1)
        a, b = statistics.median(loads), statistics.median(typed)
        print(f"{path.name}: {len(raw) / 1e6:.1f} MB; json.loads {a:.2f} s, typed reader "
              f"{b:.2f} s; (loads + typed) / loads = {(a + b) / a:.2f}x; load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
