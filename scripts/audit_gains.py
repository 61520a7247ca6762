"""Print what reading the protocol buys: each audit row's gain over its honest base.

    python scripts/audit_gains.py RESULT.json

One line per audit row in the result: its target metric, its base, the paired gain
and its 95% interval (memory_bench.analysis), and LEAK where the gain is beyond the
interval, or trade where the rule pays for it on a metric it gives up by its nature
(memory_bench.results.audit). Exits 1 when any row leaks, 2 on a file it cannot read.
"""

from __future__ import annotations

import sys
from pathlib import Path

from memory_bench_audit.gains import audit_gains, format_gains

from memory_bench.analysis.compare import ensure_analysis
from memory_bench.results.io import load_result


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/audit_gains.py RESULT.json", file=sys.stderr)
        return 2
    try:
        result = ensure_analysis(load_result(Path(argv[0])))
    except (OSError, ValueError) as exc:
        print(f"audit_gains: {exc}", file=sys.stderr)
        return 2
    gains = audit_gains(result)
    if not gains:
        print("audit_gains: no audit row with its base in this result", file=sys.stderr)
        return 2
    print("\n".join(format_gains(gains)))
    return 1 if any(g.leak for g in gains) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
