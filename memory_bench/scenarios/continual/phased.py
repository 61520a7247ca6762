"""The phased stream (the 2026-12-02 layout): kept for the scale sweep, which grows its
one long interference run; the published scenarios use the blind stream (``blind.py``).

The continual protocol (PROTOCOL.md's eight phases) as one interleaved stream of steps.

The phases keep their meaning, which is what the metrics read (step tags are the
phase names: ``seed``, ``probe``, ``interfere``, ``consolidate``, ``reprobe``,
``update``, ``corroborate``, ``gate``, ``reinforce``), but not their blocks: a
stream that runs seed, probe, interfere, re-probe, update in fixed blocks can be
read from its order (a rule that boosts "what was written since the last
question" wins every update). So the stream has three stretches:

1. the facts and a share of the noise, shuffled together (the facts never in
   the last quarter), with the probes;
2. the rest of the interference but a last share: the noise every re-probe
   measures retention against, all of it written after every probe; then the
   sleep, when asked;
3. the last share of the noise, the updates and the same-person decoys written
   among them, the corroborations and the gate items, shuffled together (updates
   and corroborations never in the last quarter), with the re-probes, the update
   probes and the corroboration probes.

Questions come in bursts at seeded random points between runs of writes. A
question is asked only after at least ``MIN_GAP`` writes since its answer's
write and at least one other burst in between, so its answer is never in the
write call just before it, nor written since the last question. A re-probe
comes after stretch 2 and before a new value or a restatement of its fact is
written. Every item is re-stamped on the logical clock in write order (one
minute apart). The reinforcement phase (strength readings) closes the stream.
``leaks.py`` measures what a reader of order and form could still exploit.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import ScenarioData
from memory_bench.scenarios.continual.forgetting import plan_forgetting
from memory_bench.scenarios.continual.params import ContinualParams
from memory_bench.scenarios.continual.stream import MIN_GAP
from memory_bench.scenarios.generators.common import EPOCH
from memory_bench.scenarios.script import Consolidate, Probe, ReadStrength, Script, Step, Write

__all__ = ["EARLY_NOISE", "LATE_NOISE", "phased_script"]

EARLY_NOISE = 0.2  # share of the noise shuffled among the facts (stretch 1)
LATE_NOISE = 0.2  # share written among and after the updates (stretch 3)
_LAST_ANSWER = 0.75  # updates and corroborations fall in the first 3/4 of stretch 3


@dataclass(frozen=True)
class _Unit:
    item: Item
    tag: str
    category: str | None = None


@dataclass
class _Ask:
    """A question waiting for its place: after ``after`` (by the gap and a burst),
    before any id of ``before`` is written."""

    probe: Probe
    after: tuple[str, ...] = ()
    before: frozenset[str] = field(default_factory=frozenset)


class _Stream:
    """Builds the steps: writes in runs, questions in bursts between them."""

    def __init__(self, rng: random.Random, batch: int) -> None:
        self.rng, self.batch = rng, batch
        self.steps: list[Step] = []
        self.written: dict[str, tuple[int, int]] = {}  # id -> (write index, bursts before)
        self.writes = 0
        self.bursts = 0
        self.pending: list[_Ask] = []

    def _ready(self, a: _Ask) -> bool:
        if not all(i in self.written for i in a.after):
            return False
        return all(self.writes - n >= MIN_GAP and self.bursts > b
                   for n, b in (self.written[i] for i in a.after))

    def _burst(self, asks: list[_Ask]) -> None:
        for a in asks:
            self.pending.remove(a)
            self.steps.append(a.probe)
        if asks:
            self.bursts += 1

    def _write_run(self, units: Sequence[_Unit]) -> None:
        run: list[_Unit] = []
        for u in units:
            if run and (u.tag != run[0].tag or len(run) == self.batch):
                self._emit_write(run)
                run = []
            run.append(u)
        if run:
            self._emit_write(run)

    def _emit_write(self, run: list[_Unit]) -> None:
        items = []
        for u in run:
            self.writes += 1
            item = replace(u.item, timestamp=EPOCH + timedelta(minutes=self.writes))
            self.written[item.id] = (self.writes, self.bursts)
            items.append(item)
        cats = tuple(u.category or "" for u in run) if any(u.category for u in run) else ()
        self.steps.append(Write(tuple(items), run[0].tag, cats))

    def stretch(self, units: Sequence[_Unit], asks: Sequence[_Ask]) -> None:
        """Write ``units`` with ``asks`` among them, every one asked by the end."""
        self.pending += asks
        horizon = len(units)
        i = 0
        while i < len(units):
            n = self.rng.randint(1, self.batch)
            run: list[_Unit] = []
            while i < len(units) and len(run) < n:
                nxt = units[i].item.id
                if any(nxt in a.before for a in self.pending):
                    break
                run.append(units[i])
                i += 1
            self._write_run(run)
            forced = [a for a in self.pending
                      if i < len(units) and units[i].item.id in a.before]
            ready = [a for a in self.pending if a not in forced and self._ready(a)]
            runs_left = max(1.0, (horizon - i) / ((1 + self.batch) / 2))
            mean = len(self.pending) / runs_left
            want = min(len(ready), self.rng.randint(0, max(1, math.ceil(2 * mean))))
            self._burst(forced + self.rng.sample(ready, want))
        self._burst([a for a in self.pending if self._ready(a)])
        self._burst(list(self.pending))  # none in a fair stream: leaks.py counts them


def _shuffled(rng: random.Random, early: Sequence[_Unit], anywhere: Sequence[_Unit]
              ) -> list[_Unit]:
    """``early`` units placed in the first _LAST_ANSWER of the stretch, ``anywhere`` units
    anywhere, in a seeded order."""
    keyed = [(rng.random() * _LAST_ANSWER, n, u) for n, u in enumerate(early)]
    keyed += [(rng.random(), len(early) + n, u) for n, u in enumerate(anywhere)]
    return [u for _, _, u in sorted(keyed, key=lambda t: (t[0], t[1]))]


def _after_their_updates(units: list[_Unit], data: ScenarioData) -> list[_Unit]:
    """``units`` with each history item after its update: where the shuffle put it
    before, the two swap places (the places stay as drawn, the order within is fixed)."""
    where = {u.item.id: n for n, u in enumerate(units)}
    out = list(units)
    for up in data.updates:
        if up.history is None:
            continue
        a, b = where[up.item.id], where[up.history.id]
        if b < a:
            out[a], out[b] = out[b], out[a]
            where[up.item.id], where[up.history.id] = b, a
    return out


def _noise_split(data: ScenarioData) -> tuple[list[Item], list[Item], list[Item]]:
    """The noise in three shares (stretches 1, 2, 3). An item that a gate copy restates,
    or that an update decoy gives a new value, stays out of stretch 3: its copy comes
    later than it."""
    copied = {g.copy_of for g in data.gate if g.copy_of}
    st = data.stated
    renewed = {(st[i.id].subject, st[i.id].relation) for i in data.update_noise if i.id in st}
    late_ok = [i for i in data.noise if i.id not in copied
               and (i.id not in st or (st[i.id].subject, st[i.id].relation) not in renewed)]
    rng = random.Random(f"memory-bench/stream-noise/{data.seed}")
    n = len(data.noise)
    late = set(i.id for i in rng.sample(late_ok, min(len(late_ok), round(n * LATE_NOISE))))
    rest = [i for i in data.noise if i.id not in late]
    k = min(len(rest), round(n * EARLY_NOISE))
    return rest[:k], rest[k:], [i for i in data.noise if i.id in late]


def phased_script(p: ContinualParams, data: ScenarioData) -> Script:
    """The eight phases over ``data`` as one interleaved stream (see the module)."""
    rng = random.Random(f"memory-bench/stream/{data.seed}")
    facts = data.facts
    s = _Stream(rng, p.write_batch)
    early, middle, late = _noise_split(data)

    def key(i: int) -> str:
        return f"fact-{i:04d}"

    first = _shuffled(rng, [_Unit(f.item, "seed") for f in facts],
                      [_Unit(i, "interfere") for i in early])
    probes = [_Ask(Probe(f.question, (f.item.id,), "probe", key=key(i)), (f.item.id,))
              for i, f in enumerate(facts)]
    s.stretch(first, probes)
    s.stretch([_Unit(i, "interfere") for i in middle], [])
    if p.consolidate:
        s.steps.append(Consolidate())

    ends = {u.fact: u.item.id for u in data.updates}
    for c in data.corroborations:
        ends[c.fact] = c.item.id
    asks = [_Ask(Probe(f.reprobe_question, (f.item.id,), "reprobe", key=key(i)),
                 before=frozenset([ends[i]] if i in ends else []))
            for i, f in enumerate(facts)]
    asks += [_Ask(Probe(u.question, (u.item.id,), "update",
                        outrank=(facts[u.fact].item.id, *u.history_ids), key=key(u.fact)),
                  (u.item.id, *u.history_ids)) for u in data.updates]
    asks += [_Ask(Probe(c.question, (facts[c.fact].item.id, c.item.id), "corroborate",
                        key=key(c.fact)), (c.item.id,)) for c in data.corroborations]
    answers = ([_Unit(i, "update") for i in data.update_phase_items() + data.history_items()]
               + [_Unit(c.item, "corroborate") for c in data.corroborations])
    anywhere = ([_Unit(i, "interfere") for i in late]
                + [_Unit(g.item, "gate", g.kind) for g in data.gate])
    s.stretch(_after_their_updates(_shuffled(rng, answers, anywhere), data), asks)

    steps = s.steps
    # forgetting.py: once every item is written (a source forgotten whole holds only facts)
    forgetting = plan_forgetting(p, data, [i for st in steps if isinstance(st, Write)
                                           for i in st.items])
    steps += forgetting.forgets
    for fi in data.reinforce:
        fact = facts[fi]
        steps.append(ReadStrength((fact.item.id,), "reinforce", "before"))
        steps += [Probe(fact.question, (fact.item.id,), "reinforce", key=key(fi),
                        needs=Capability.STRENGTH)] * p.reinforce_queries
        steps.append(ReadStrength((fact.item.id,), "reinforce", "after"))
    steps += forgetting.questions  # after the reinforcement, kept facts among them
    stats = {**data.stats, **({"forgotten": forgetting.stats} if forgetting.stats else {})}
    return Script(tuple(steps), k=p.k, seed=data.seed, stats=stats)
