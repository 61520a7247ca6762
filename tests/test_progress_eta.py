"""The plain progress line's ETA weighs finished pairs by their expected cost: a run
that starts its longest rows first must not promise the rest will take as long."""

from __future__ import annotations

import io
import re

from memory_bench.harness import progress as progress_module
from memory_bench.harness.progress import Progress


def _eta_seconds(line: str) -> float:
    m = re.search(r"ETA (?:(\d+)m)?(\d+)s", line)
    assert m, line
    return 60.0 * int(m.group(1) or 0) + int(m.group(2))


def test_the_eta_follows_the_expected_cost_not_the_pair_count(monkeypatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: now[0])
    out = io.StringIO()
    p = Progress(enabled=False, plain=True, stream=out)
    # one long pair (100 s expected) and nine short ones (1 s each)
    p.plan(10, cost=109.0)
    p.pair("rerank", 0, 1)
    now[0] += 100.0
    p.pair_done("[rerank] seed 1/1", "ok", 100.0, cost=100.0)
    eta = _eta_seconds(out.getvalue().splitlines()[-1])
    assert 8.0 <= eta <= 10.0, out.getvalue()  # by count it would say 900 s
    # without costs, the count decides (the old behaviour)
    q = Progress(enabled=False, plain=True, stream=io.StringIO())
    q.plan(10)
    q.pair("x", 0, 1)
    now[0] += 100.0
    q.pair_done("[x] seed 1/1", "ok", 100.0)
    assert _eta_seconds(q.eta()) == 900.0
