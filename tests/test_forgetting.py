"""Forgetting (issue 24, item 2): the Forget step, its records and metrics, the forget steps
of the continual scenarios, and real backends forgetting in a run."""

from __future__ import annotations

import fake_backends
import pytest
from scenario_helpers import generate, load_scenario, script

from memory_bench.harness.pair import PairSpec, run_pair
from memory_bench.metrics.aggregate import aggregate
from memory_bench.metrics.continual import CONTINUAL_METRICS
from memory_bench.metrics.spec import compute_metrics
from memory_bench.plugins import load_plugins
from memory_bench.records.records import ProbeRecord, Records
from memory_bench.scenarios.script import Forget, Probe, Script, ScriptError, Write

FAKES = load_plugins([("fake_backends", fake_backends)], autoload=False)
SMALL = {"facts": 30, "noise": 60, "updates": 8, "gate_empty": 2, "gate_short": 2,
         "gate_duplicate": 2, "gate_clean": 2, "reinforce_cells": 3, "reinforce_queries": 1,
         "forget_ids": 4, "forget_sources": 2, "forget_updated": 2}


def _pair(scenario: dict, backend: str, plugins=FAKES):
    spec = PairSpec(run_id="t", index=0, label=backend, backend=backend, scenario=scenario,
                    seed=0)
    run = run_pair(spec, plugins=plugins)
    assert run.ok, run.error
    return run


def _ref(name: str, **params) -> dict:
    return load_scenario(name, {**SMALL, **params}).ref()


def test_a_forget_step_names_only_written_ids_and_binds_them() -> None:
    s = script(load_scenario("default", SMALL), 0)
    forgets = [st for st in s.steps if isinstance(st, Forget)]
    bound = s.bind("bench-x-s0-")
    bound.check()
    for f in (st for st in bound.steps if isinstance(st, Forget)):
        assert all(i.startswith("bench-x-s0-") for i in (*f.ids, *f.forgotten))
    bad = Script((*s.steps[:1], Forget(ids=("bench-RUN-nope",), forgotten=("bench-RUN-nope",))),
                 k=5, seed=0)
    with pytest.raises(ScriptError, match="referenced before it is written"):
        bad.check()
    assert forgets and all(f.forgotten for f in forgets)


@pytest.mark.parametrize("name", ["default", "hard", "natural"])
def test_the_continual_scenarios_forget_by_id_by_source_and_after_an_update(name: str) -> None:
    spec = load_scenario(name, SMALL)
    data, s = generate(spec, 0), script(spec, 0)
    steps = list(s.steps)
    written = [i for st in steps if isinstance(st, Write) for i in st.items]
    facts = {f.item.id: n for n, f in enumerate(data.facts)}
    stats = s.stats["forgotten"]
    assert stats["by_id"] == 4 and stats["updated"] == 2 and stats["sources"] >= 1
    by_source = [st for st in steps if isinstance(st, Forget) and st.source is not None]
    for f in by_source:
        # the source holds those facts and nothing else
        assert {i.id for i in written if i.source == f.source} == set(f.forgotten)
        assert set(f.forgotten) <= set(facts) and not f.ids
    updated = {(data.facts[u.fact].item.id, u.item.id,
                *([u.history.id] if u.history else [])) for u in data.updates}
    both = [st for st in steps if isinstance(st, Forget) and st.ids and
            tuple(st.ids) in updated]
    assert len(both) == 2  # old and new value (and the old one's history), together
    busy = set(data.reinforce) | {c.fact for c in data.corroborations}
    gone = {i for st in steps if isinstance(st, Forget) for i in st.forgotten}
    assert not {facts[i] for i in gone if i in facts} & busy
    asks = [(n, st) for n, st in enumerate(steps)
            if isinstance(st, Probe) and st.tag == "forgotten"]
    # no question is added for forgetting: a forgotten fact's (or aside's) asks after
    # the call are its follow-ups, each fact forgotten by id or after an update has one
    gone_facts = {facts[i] for i in gone if i in facts}
    asked_after = {int(st.key.split("-")[1]) for _, st in asks if st.key.startswith("fact-")}
    assert asked_after <= gone_facts
    by_id = {facts[i] for st in steps if isinstance(st, Forget) and st.ids
             and tuple(st.ids) not in updated for i in st.ids if i in facts}
    assert len(by_id) == stats["by_id"] and by_id <= asked_after
    assert {facts[b.ids[0]] for b in both} <= asked_after
    assert stats["asides"] >= 1 and any(st.key.startswith("aside-") for _, st in asks)
    for n, st in asks:
        # after the call that forgets it, never right after it (the blind stream places
        # forget calls among the writes and asks their follow-ups at drawn gaps); right
        # after another call it may be, as any question may
        forgot = {i for f in steps[:n] if isinstance(f, Forget) for i in f.forgotten}
        assert not st.expected and set(st.forgotten) <= forgot
        prev = steps[n - 1]
        assert not (isinstance(prev, Forget) and set(prev.forgotten) & set(st.forgotten))
        # no question answered by a forgotten item after its forget call
    for n, st in enumerate(steps):
        if isinstance(st, Probe) and st.tag not in ("forgotten",):
            forgot = {i for f in steps[:n] if isinstance(f, Forget) for i in f.forgotten}
            assert not set(st.expected) & forgot
    kept = [st for st in steps if isinstance(st, Probe) and st.tag == "kept"]
    kept_keys = {st.key for st in kept}
    # as many facts and asides kept as forgotten (where a forget call comes before them),
    # and reinforced cells as often as a key has follow-ups
    assert 1 <= len(kept_keys) <= stats["kept"] + stats["asides_kept"] + stats["cells_kept"]
    assert all(st.expected[0] not in gone for st in kept)
    first_forget = min(n for n, st in enumerate(steps) if isinstance(st, Forget))
    assert all(n > first_forget for n, st in enumerate(steps)
               if isinstance(st, Probe) and st.tag == "kept")
    for b in both:
        # an updated and forgotten fact: its later question checks none comes back
        assert any(set(b.ids) == set(st.forgotten) for _, st in asks)


def _probe(returned: list[str], forgotten: list[str]) -> ProbeRecord:
    return ProbeRecord("forgotten", "q", [], returned, [1.0] * len(returned), 1.0,
                       forgotten=forgotten, key=str(len(returned)))


def test_forgotten_returned_counts_a_forgotten_id_anywhere_in_the_top_k() -> None:
    recs = Records(probes=[_probe(["a", "x"], ["x"]), _probe(["a"], ["x", "y"]),
                           _probe([], ["x"]), _probe(["b", "c", "y"], ["y"])])
    m = compute_metrics(CONTINUAL_METRICS, recs, {"forget"})
    assert m["forgottenReturned"] == 0.5
    assert compute_metrics(CONTINUAL_METRICS, recs, set())["forgottenReturned"] is None


class _Blank(fake_backends.SubjectMemory):
    """Forgets nothing, answers nothing after a forget call: reads the protocol."""

    def forget(self, ids=(), source=None, prefix=""):
        self.silent = True
        return 0

    def query(self, text, k):
        return [] if getattr(self, "silent", False) else super().query(text, k)


def test_answering_nothing_after_a_forget_call_loses_the_kept_facts() -> None:
    from memory_bench import Capability, hookimpl

    class Plugin:
        @hookimpl
        def memory_bench_register_backends(self, registry) -> None:
            registry.add("blank-after-forget", factory=lambda o, c: _Blank(gate=True),
                         description="test", version="0", reads=["tags"],
                         capabilities=[Capability.FORGET])

    plugins = load_plugins([("blank", Plugin())], autoload=False)
    run = _pair(_ref("smoke"), "blank-after-forget", plugins=plugins)
    assert run.metrics["forgottenReturned"] == 0.0  # looks perfect on its own...
    assert run.metrics["forgetKept"] == 0.0  # ...and is not


def test_a_perfect_forgetter_scores_0_and_the_outcomes_reproduce_the_metrics() -> None:
    run = _pair(_ref("smoke"), "fake-perfect")
    assert run.metrics["forgottenReturned"] == 0.0 and run.metrics["forgetKept"] == 1.0
    assert run.metrics["forget_p50_ms"] is not None and run.metrics["forget_p50_ms"] >= 0
    forgets = run.records.forgets
    # a call a fact forgotten by id, a source or an updated fact, or an aside
    calls = [x for x in script(load_scenario("smoke", SMALL), 0).steps
             if isinstance(x, Forget)]
    assert len(forgets) == len(calls) >= 1 + 2 + 2
    assert all(f.removed == len(f.forgotten) for f in forgets)
    for name in ("forgottenReturned", "forgetKept", "forget_p50_ms"):
        spec = next(m.spec for m in CONTINUAL_METRICS if m.name == name)
        assert aggregate(spec.aggregate, list(run.rows(name).values())) == pytest.approx(
            run.metrics[name])
    # a backend without the capability is not asked to forget, and the metrics read null
    plain = _pair(_ref("smoke"), "fake-noprov")
    assert plain.metrics["forgottenReturned"] is None and plain.metrics["forget_p50_ms"] is None
    assert not plain.records.forgets
    assert not [p for p in plain.records.probes if p.tag == "forgotten"]


def test_forgetting_adds_no_question_and_changes_only_the_follow_ups() -> None:
    """Forgetting asks nothing of its own: with it on, the stream writes the same items
    and asks the same questions, in the same words; only the asks of forgotten and kept
    facts after their forget call are follow-ups instead of what they were."""
    on = script(load_scenario("smoke", SMALL), 0).steps
    off = script(load_scenario("smoke", {**SMALL, "forget_ids": 0, "forget_sources": 0,
                                         "forget_updated": 0}), 0).steps
    assert [x for x in on if isinstance(x, Write)] == [x for x in off if isinstance(x, Write)]
    q_on = {x.question: x for x in on if isinstance(x, Probe)}
    q_off = {x.question: x for x in off if isinstance(x, Probe)}
    assert q_on.keys() == q_off.keys()
    changed = {q for q in q_on if q_on[q] != q_off[q]}
    assert changed and all(q_on[q].tag in ("forgotten", "kept") for q in changed)
    assert all(q_on[q].key == q_off[q].key for q in changed)
    assert not any(isinstance(x, Forget) for x in off)
    off_run = _pair(_ref("smoke", forget_ids=0, forget_sources=0, forget_updated=0),
                    "fake-perfect").metrics
    assert off_run["forgottenReturned"] is None  # nothing forgotten: undefined, not 0


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["bm25", "rshl", "neural-memory"])
def test_real_backends_forget_in_a_run(backend: str) -> None:
    from memory_bench.plugins.manager import default_plugins

    run = _pair(_ref("default", facts=24, noise=40, updates=6, forget_ids=3), backend,
                plugins=default_plugins())
    if backend == "neural-memory":  # distributed weights: it does not declare forget
        assert run.metrics["forgottenReturned"] is None and not run.records.forgets
        return
    assert run.metrics["forgottenReturned"] == 0.0
    assert all(f.removed == len(f.forgotten) for f in run.records.forgets)
    kept = [p for p in run.records.probes if p.tag == "kept"]
    assert kept and run.metrics["forgetKept"] is not None


def test_a_grown_store_adds_nothing_to_a_source_that_is_forgotten_whole() -> None:
    s = script(load_scenario("scale", {"size": 1500}), 0)
    by_source = [(n, st) for n, st in enumerate(s.steps)
                 if isinstance(st, Forget) and st.source is not None]
    assert by_source
    for n, f in by_source:
        held = {i.id for st in s.steps[:n] if isinstance(st, Write) for i in st.items
                if i.source == f.source}
        assert held == set(f.forgotten)
