"""Property tests (hypothesis): metric bounds and invariances, and the write gate.

- Every share lies in [0, 1]; a latency percentile is ordered; a null means a
  missing capability, never a silent 0.
- Relabelling ids (and sources) consistently, or reordering the records,
  changes no metric; binding the same data to another run changes none either.
- A backend whose top hit is always the fact scores 1 on recall, on records
  and through the real protocol.
- A gate (RSHL's, and any backend declaring ``gate``) never accepts an empty
  text and never refuses a clean, distinct fact.
"""

from __future__ import annotations

import hashlib
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fake_backends
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenario_helpers import load_scenario, script

from memory_bench import BackendContext, Capability, Item
from memory_bench.harness.execute import Execution
from memory_bench.metrics.continual import CONTINUAL_METRICS
from memory_bench.metrics.spec import compute_metrics as _compute
from memory_bench.plugins import load_plugins
from memory_bench.records.records import (
    ItemRecord,
    ProbeRecord,
    Records,
    StrengthRecord,
    WriteRecord,
)

ALL = frozenset(Capability)
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

METRICS = [m.spec for m in CONTINUAL_METRICS]
SeedRecords = Records


def compute_metrics(records: Records, caps) -> dict:
    return _compute(CONTINUAL_METRICS, records, {Capability(c).value for c in caps})


ids = st.sampled_from([f"id{i}" for i in range(12)])
sources = st.sampled_from(["src-a", "src-b", "src-c"]) | st.none()
stamps = st.sampled_from(["2026-01-01T00:01:00+00:00", "2026-01-01T00:02:00+00:00"]) | st.none()


@st.composite
def probes(draw, phase=None, perfect=False):
    ph = phase or draw(st.sampled_from(["probe", "reprobe", "update", "reinforce"]))
    expected = draw(ids)
    returned = draw(st.lists(ids, unique=True, max_size=7))
    if perfect:
        returned = [expected] + [i for i in returned if i != expected]
    return ProbeRecord(
        tag=ph,
        question="q?",
        expected=[expected],
        returned=returned,
        scores=[1.0] * len(returned),
        latency_ms=draw(st.floats(0, 1e4, allow_nan=False)),
        outrank=[draw(ids)] if ph == "update" else [],
        top_source=draw(sources),
        top_timestamp=draw(stamps),
        written_source=draw(sources),
        written_timestamp=draw(stamps),
        key=expected,  # as the protocol keys a question: by the fact it asks for
    )


@st.composite
def gate_records(draw):
    kind = draw(st.sampled_from(["empty", "short", "duplicate", "clean"]))
    return ItemRecord(draw(ids), "gate", kind, draw(st.booleans()))


strengths = st.floats(0, 1, allow_nan=False) | st.none()


@st.composite
def readings(draw):
    item, before, after = draw(ids), draw(strengths), draw(strengths)
    return [StrengthRecord(item, "reinforce", "before", before),
            StrengthRecord(item, "reinforce", "after", after)]


@st.composite
def records(draw, perfect=False):
    pairs = draw(st.lists(readings(), max_size=6, unique_by=lambda r: r[0].id))
    drawn = draw(st.lists(probes(perfect=perfect), max_size=40))
    seen: dict[tuple[str, str], int] = {}
    for p in drawn:  # the n-th ask of a fact in a phase pairs with its n-th re-ask
        n = seen[(p.tag, p.expected[0])] = seen.get((p.tag, p.expected[0]), 0) + 1
        p.key = f"{p.expected[0]}/{n}"
    return SeedRecords(
        probes=drawn,
        writes=draw(st.lists(st.builds(
            WriteRecord, st.sampled_from(["seed", "interfere", "update", "gate"]),
            st.integers(1, 64), st.integers(0, 64), st.floats(0, 5, allow_nan=False)),
            max_size=6)),
        items=draw(st.lists(gate_records(), max_size=20)),
        strengths=[x for pair in pairs for x in pair],
    )


def _same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert (a[k] is None) == (b[k] is None), k
        if a[k] is not None:
            assert a[k] == pytest.approx(b[k], rel=1e-9, abs=1e-12), k


@SETTINGS
@given(records(), st.sets(st.sampled_from(list(Capability))))
def test_metric_bounds(r: SeedRecords, caps: set[Capability]) -> None:
    m = compute_metrics(r, frozenset(caps))
    for metric in METRICS:
        v = m[metric.name]
        if v is not None and metric.share:
            assert 0.0 <= v <= 1.0, metric.name
    if m["retention"] is not None:
        assert 0.0 <= m["retention"] <= 1.0
    if m["latency_p50_ms"] is not None:
        assert 0.0 <= m["latency_p50_ms"] <= m["latency_p95_ms"]
    if m["reinforcementDelta"] is not None:
        assert -2.0 <= m["reinforcementDelta"] <= 2.0
    if m["strengthDelta"] is not None:
        assert -1.0 <= m["strengthDelta"] <= 1.0
    if Capability.GATE not in caps:
        assert m["gateRecall"] is None and m["falseRefusals"] is None
    if Capability.STRENGTH not in caps:
        assert m["strengthDelta"] is None
    assert m["recall1_before"] is None or m["recall1_before"] <= m["recall5_before"]


def _relabel(r: SeedRecords, f, g) -> SeedRecords:
    """Apply the injective id map ``f`` and source map ``g`` everywhere."""
    def src(s):
        return None if s is None else g(s)

    return SeedRecords(
        probes=[
            ProbeRecord(p.tag, p.question, [f(i) for i in p.expected],
                        [f(i) for i in p.returned], p.scores, p.latency_ms,
                        outrank=[f(i) for i in p.outrank], top_source=src(p.top_source),
                        key=None if p.key is None else f(p.key),
                        top_timestamp=p.top_timestamp, written_source=src(p.written_source),
                        written_timestamp=p.written_timestamp)
            for p in r.probes
        ],
        writes=r.writes,
        items=[ItemRecord(f(g_.id), g_.tag, g_.category, g_.accepted, g_.reason)
               for g_ in r.items],
        strengths=[StrengthRecord(f(x.id), x.tag, x.label, x.value) for x in r.strengths],
    )


@SETTINGS
@given(records(), st.text(min_size=1, max_size=8), st.randoms(use_true_random=False))
def test_relabelling_and_reordering_change_nothing(r: SeedRecords, salt: str, rnd) -> None:
    def f(i: str) -> str:
        return "x-" + hashlib.sha256((salt + i).encode()).hexdigest()[:16]

    def g(s: str) -> str:
        return s[::-1] + salt

    base = compute_metrics(r, ALL)
    _same(base, compute_metrics(_relabel(r, f, g), ALL))
    pairs = [r.strengths[i:i + 2] for i in range(0, len(r.strengths), 2)]
    shuffled = SeedRecords(probes=rnd.sample(r.probes, len(r.probes)), writes=r.writes,
                           items=rnd.sample(r.items, len(r.items)),
                           strengths=[x for p in rnd.sample(pairs, len(pairs)) for x in p])
    _same(base, compute_metrics(shuffled, ALL))


@SETTINGS
@given(records(perfect=True))
def test_perfect_top_hit_scores_one_on_recall(r: SeedRecords) -> None:
    m = compute_metrics(r, ALL)
    phases = {p.tag for p in r.probes}
    if "probe" in phases:
        assert m["recall1_before"] == 1.0 and m["recall5_before"] == 1.0
    if "reprobe" in phases:
        assert m["recall1_after"] == 1.0
    both = ({p.key for p in r.probes if p.tag == "probe"}
            & {p.key for p in r.probes if p.tag == "reprobe"})
    # retention pairs a question with its re-ask: none asked twice, no retention
    assert m["retention"] == (1.0 if both else None)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    facts=st.integers(8, 40),
    noise=st.integers(1, 60),
    run=st.from_regex(r"[a-z0-9]{1,12}", fullmatch=True),
)
def test_perfect_backend_through_the_protocol(seed: int, facts: int, noise: int,
                                              run: str) -> None:
    """The real generator and phases: recall 1, and the run tag (every id) changes nothing."""
    scenario = load_scenario("smoke", {"facts": facts, "noise": noise})
    raw = script(scenario, seed)
    caps = frozenset({Capability.PROVENANCE, Capability.STRENGTH, Capability.GATE})

    def run_on(prefix: str) -> dict:
        ex = Execution(raw.bind(prefix), lambda _: fake_backends.SubjectMemory(gate=True),
                       {c.value for c in caps})
        try:
            return compute_metrics(ex.run(), caps)
        finally:
            ex.close()

    a = run_on(f"bench-{run}-s{seed}-")
    b = run_on(f"bench-other-{run}-")
    assert a["recall1_before"] == a["recall5_before"] == a["recall1_after"] == 1.0
    assert a["retention"] == 1.0 and a["provenanceAccuracy"] == 1.0
    assert a["gateRecall"] == 1.0 and a["falseRefusals"] == 0.0
    from memory_bench.metrics.latency import TIMINGS as skip
    assert {k: v for k, v in a.items() if k not in skip} == {
        k: v for k, v in b.items() if k not in skip}


# -- the gate -------------------------------------------------------------------------

WHITESPACE = st.text(alphabet=" \t\n\r\x0b\x0c\u00a0\u2003", max_size=12)
WORD = st.from_regex(r"[A-Z][a-z]{3,9}", fullmatch=True)


@st.composite
def distinct_facts(draw, max_facts: int = 6) -> list[str]:
    """Clean facts sharing no name: 'Mirel Vortan works for Quell Abrisk.'"""
    n = draw(st.integers(1, max_facts))
    words = draw(st.lists(WORD, min_size=4 * n, max_size=4 * n, unique_by=str.lower))
    verbs = draw(st.lists(st.sampled_from(["works for", "lives near", "was born in",
                                           "studied at", "sold a boat to"]),
                          min_size=n, max_size=n))
    return [f"{words[4 * i]} {words[4 * i + 1]} {verbs[i]} {words[4 * i + 2]} "
            f"{words[4 * i + 3]}." for i in range(n)]


def _gated_backends() -> list:
    """Every installed backend declaring ``gate`` (RSHL when installed), and a fake one."""
    loaded = load_plugins([("fake_backends", fake_backends)])
    return [pytest.param(b, id=b.name) for b in loaded.registry.all() if b.has(Capability.GATE)]


_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def _items(texts: list[str], tag: str) -> list[Item]:
    return [Item(f"bench-prop-{tag}-{n:04d}", t, f"bench-prop-{tag}",
                 _EPOCH + timedelta(minutes=n)) for n, t in enumerate(texts)]


@pytest.mark.parametrize("info", _gated_backends())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(empties=st.lists(WHITESPACE, min_size=1, max_size=4), facts=distinct_facts())
def test_gate_refuses_empty_and_accepts_clean_distinct_facts(info, empties, facts) -> None:
    from memory_bench.contract.options import resolve_options

    options = resolve_options(info.name, info.options, {})
    with tempfile.TemporaryDirectory() as work:
        ctx = BackendContext(workdir=Path(work), seed=0, run_id="prop", cache_dir=None)
        backend = info.factory(options, ctx)
        try:
            clean = backend.write(_items(facts, "c"))
            refused = backend.write(_items(empties, "e"))
        finally:
            backend.close()
    assert all(r.accepted for r in clean), [(r.id, r.reason) for r in clean]
    assert not any(r.accepted for r in refused)
    assert all(r.reason for r in refused)


def test_rshl_gate_function() -> None:
    """RSHL's own gate, called directly (its API: refusal(text, min_words, known))."""
    gate = pytest.importorskip("memory_bench_rshl.gate")

    @settings(max_examples=300, deadline=None)
    @given(empty=WHITESPACE, facts=distinct_facts(max_facts=8), min_words=st.integers(1, 3))
    def check(empty: str, facts: list[str], min_words: int) -> None:
        known = {gate.normalise(t) for t in facts[1:]}
        assert gate.refusal(empty, min_words, known) == gate.EMPTY
        assert gate.refusal(facts[0], min_words, known) is None

    check()
