"""The blind stream: the continual protocol with no role readable from the schedule.

The phased stream (``phased.py``) kept the protocol's phases as stretches, and a reader
of the call order alone could tell the roles apart: the interference asked nothing, the
first burst asked each fact once, an updated person was asked a third time, follow-ups
repeated their probe, and a write call never mixed kinds. Patching one signal at a time
left others, so here every role is drawn from one distribution:

- **One sequence of writes.** Facts, noise, updates, distractors' new values, history
  items, restatements and gate items are placed by seeded random keys, under the order
  the answer key needs (a fact before its new value, a new value before its history
  item, an original before its copy), facts and renewed noise in the first
  ``FACT_SPAN`` of the stream so that their later values have room; a later value comes
  a drawn gap after its old one (``_later``, ``_then``), not anywhere after it, so that
  questions do not pile up at the stream's end. Write calls are cut at sizes drawn
  independently of what they hold, so one call mixes kinds.
- **Questions about everything, at the same times.** Every fact, and as many items
  outside the facts (asides: noise, distractors' new values), is asked once or twice
  soon after its write and two or three times after its turn (its new value, its
  restatement, or for an unchanged fact a moment drawn as a new value's place is), each
  ask in a wording not used before for that item. An updated fact's later asks are its
  update questions (now, and about the past), an unchanged fact's its re-probes: the
  same number at the same times, so neither the count nor the timing of a fact's or a
  person's questions says whether it changed.
- **Questions at their own times.** An ask's time is its answer's write plus a drawn
  gap; it is asked after the first write call that reaches it, in a burst with whatever
  else is due, in a drawn order, so questions fall wherever writes fall. Asks past the
  last write are asked after it, in the order of their times.
- **Forgetting asks nothing of its own.** A forget call (a fact by id, a source, an
  updated fact with all its values, an aside) comes after its items' writes, before its
  facts' next ask, at a drawn point; the asks after it are the follow-ups, and as many
  facts and asides not forgotten have their asks after a drawn earlier call marked
  ``kept``. A call sits nearer its items' writes than its next ask; as many calls again,
  of noise nothing asks about, are placed as real ones are among the writes, and past the
  last write such calls come as often a question as before it. A follow-up never comes
  right after its own call, but right after another as any question may (barred after
  every call, the first question after one was never a follow-up).
- **Reinforcement among the writes.** Each cell, after its own asks, is asked P more
  times and then checked (``reinforced``), each matched control checked as long after its
  own last ask (``control``): what ``reinforcementDelta`` compares. (After the last write,
  a run of reinforcement questions had no follow-up in it.) A cell cannot be forgotten,
  so its P asks are ``kept`` follow-ups after a drawn earlier call as often as a key has
  follow-ups: otherwise the questions about the person asked most were never follow-ups.
  The sleep is placed at a drawn point.

``leakscan.py`` trains a classifier on what a backend observes to check that none of
this is readable; ``leaks.py`` keeps the simple counts.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import Aside, ScenarioData
from memory_bench.scenarios.continual.forgetting import plan_forgetting
from memory_bench.scenarios.continual.params import ContinualParams
from memory_bench.scenarios.continual.stream import MIN_GAP, WRITE_TAG
from memory_bench.scenarios.generators.common import EPOCH
from memory_bench.scenarios.script import (
    Consolidate,
    Forget,
    Probe,
    ReadStrength,
    Script,
    Step,
    Write,
)

__all__ = ["FACT_SPAN", "REPROBE_GAP", "blind_script"]

FACT_SPAN = 0.75  # facts (and noise that is given a new value) fall in this first share
LATER_MIN = 0.2  # a new value comes at least this share of the stream after its old one
LATER_MEAN = 0.15  # and a drawn share more, of this mean
THEN_MEAN = 0.08  # a history item's mean distance after its new value
REPROBE_GAP = 150  # writes between a fact's last early ask and its later asks, where room
SOON = 30.0  # mean writes, beyond MIN_GAP, from a write to its early asks
TAIL = 150.0  # a cell's reinforcement asks' span after its own last ask, in the same units
NEAR = 3.0  # a forget call's place between its items' writes and its next ask: U**NEAR
DECOYS = 1.0  # forget calls of never-asked noise among the writes, a real call
_FOLLOW_UPS = ("forgotten", "kept")
_REINFORCEMENT = ("reinforce", "reinforced", "control")  # asked in their own order


@dataclass
class _Ask:
    """A step waiting for its time: asked after the write call that reaches ``target``
    writes, before the item at write ``deadline`` (or the event ``before``)."""

    step: Step
    target: float
    deadline: float = math.inf
    before: int | None = None  # index of an event that must come after it
    after: int | None = None  # index of an event that must come before it
    tie: float = 0.0
    hold: int = 0  # not asked right after the write call that holds this write
    wait: list[_Ask] = field(default_factory=list)  # asks that must come first


@dataclass
class _Event:
    """A forget call or the sleep, at ``pos`` writes."""

    step: Step
    pos: float
    done: bool = False


@dataclass
class _Wordings:
    """Each key's wordings, handed out so that no key is asked one string twice, in a
    seeded order of their own: a generator lists its plainest wordings first, and the
    fifth ask of a fact must not be harder than the first for that reason alone (the
    reinforced facts' checks, asked after five asks, against controls asked after two)."""

    seed: int
    used: dict[str, set[str]] = field(default_factory=dict)
    repeated: int = 0

    def _order(self, key: str, pool: Sequence[str]) -> list[str]:
        rank = {t: random.Random(f"memory-bench/blind/wording/{self.seed}/{key}/{t}").random()
                for t in pool}
        return sorted(pool, key=rank.__getitem__)

    def take(self, key: str, pool: Sequence[str], *more: Sequence[str]) -> str:
        used = self.used.setdefault(key, set())
        for text in (*self._order(key, pool), *(t for m in more for t in self._order(key, m))):
            if text not in used:
                used.add(text)
                return text
        self.repeated += 1  # the generator gave too few: counted, and leaks.py reports it
        return pool[len(used) % len(pool)]


def _later(rng: random.Random, old: float) -> float:
    """Where a new value of an item at ``old`` comes (shares of the stream): at least
    ``LATER_MIN`` after it, then a drawn gap of mean ``LATER_MEAN``. Not uniform over the
    rest of the stream: that would pile the later questions up at its end, and how many
    questions come between two writes would tell a late item (a new value) from an old."""
    lo = min(old + LATER_MIN, 0.999)
    v = lo + rng.expovariate(1.0 / LATER_MEAN)
    return v if v < 1.0 else lo + rng.random() * (1.0 - lo)


def _then(rng: random.Random, at: float) -> float:
    """Where an item that follows one at ``at`` comes (a history item after its new
    value): a drawn gap of mean ``THEN_MEAN``, inside the stream."""
    v = at + rng.expovariate(1.0 / THEN_MEAN)
    return v if v < 1.0 else at + rng.random() * (1.0 - at)


def _keys(rng: random.Random, data: ScenarioData) -> dict[str, float]:
    """A random place in [0, 1) for every item, under the answer key's order."""
    key: dict[str, float] = {}
    st = data.stated
    noise_at = {(st[i.id].subject, st[i.id].relation): i.id for i in data.noise if i.id in st}
    renews = {}  # a distractor's new value -> the noise item it renews
    for i in data.update_noise:
        if i.id in st and (old := noise_at.get((st[i.id].subject, st[i.id].relation))):
            renews[i.id] = old
    renewed = set(renews.values())
    for f in data.facts:
        key[f.item.id] = rng.random() * FACT_SPAN
    for i in data.noise:
        key[i.id] = rng.random() * (FACT_SPAN if i.id in renewed else 1.0)

    for u in data.updates:
        key[u.item.id] = _later(rng, key[data.facts[u.fact].item.id])
        if u.history is not None:
            key[u.history.id] = _then(rng, key[u.item.id])
    for i in data.update_noise:
        key[i.id] = _later(rng, key[renews[i.id]]) if i.id in renews else rng.random()
    for c in data.corroborations:
        key[c.item.id] = _later(rng, key[data.facts[c.fact].item.id])
    for g in data.gate:
        lo = key.get(g.copy_of, 0.0) if g.copy_of else 0.0
        key[g.item.id] = lo + rng.random() * (1.0 - lo)
    return key


def _units(data: ScenarioData) -> list[tuple[Item, str, str]]:
    """(item, role, gate kind or "") for every item the stream writes."""
    out = [(f.item, "seed", "") for f in data.facts]
    out += [(i, "interfere", "") for i in data.noise]
    out += [(i, "update", "") for i in data.update_phase_items() + data.history_items()]
    out += [(c.item, "corroborate", "") for c in data.corroborations]
    out += [(g.item, "gate", g.kind) for g in data.gate]
    return out


def _cuts(rng: random.Random, n: int, batch: int) -> list[int]:
    """Write-call sizes for ``n`` items, drawn with no regard to what the calls hold."""
    sizes = []
    while n > 0:
        sizes.append(min(n, rng.randint(1, batch)))
        n -= sizes[-1]
    return sizes


class _Plan:
    """The asks and events of one seed, timed in writes."""

    def __init__(self, rng: random.Random, pos: dict[str, int], total: int) -> None:
        self.rng, self.pos, self.total = rng, pos, total
        self.asks: list[_Ask] = []
        self.events: list[_Event] = []
        self.squeezed = 0
        self.spans: list[float] = []  # each real forget call's room, its writes to its ask

    def soon(self, after: float) -> float:
        return after + MIN_GAP + self.rng.expovariate(1.0 / SOON)

    def just_before(self, turn: float, floor: float) -> float:
        """A moment shortly before ``turn`` (as far before it as an update question
        comes after its new value), and after ``floor``."""
        return max(floor + 1.0, turn - MIN_GAP - self.rng.expovariate(1.0 / SOON))

    def ask(self, step: Step, target: float, deadline: float = math.inf,
            floor: float = 0.0, hard: bool = True) -> _Ask:
        """``step`` at ``target`` writes; one that would fall at or past ``deadline`` is
        squeezed into the room left after ``floor`` (less interference: counted). A
        ``hard`` deadline is a write the ask must precede; a soft one, a drawn moment."""
        if target >= deadline - 1:
            target = floor + 0.5 + self.rng.random() * max(0.0, deadline - 1.5 - floor)
            self.squeezed += 1
        a = _Ask(step, target, deadline if hard else math.inf, tie=self.rng.random())
        self.asks.append(a)
        return a


def _early_later(rng: random.Random) -> tuple[int, int]:
    """How often an item is asked soon after its write, and how often later: one
    distribution for every fact and aside, changed or not."""
    return (2 if rng.random() < 0.2 else 1), rng.choice((2, 3))


def blind_script(p: ContinualParams, data: ScenarioData) -> Script:
    """The continual protocol over ``data`` as a blind stream (see the module)."""
    def rng_for(part: str) -> random.Random:
        # one stream of randomness per part: switching forgetting off (or the sleep on)
        # leaves every other part of the seed as drawn
        return random.Random(f"memory-bench/blind/{part}/{data.seed}")

    rng = rng_for("asks")
    facts = data.facts
    units = _units(data)
    key = _keys(rng_for("keys"), data)
    units.sort(key=lambda u: key[u[0].id])
    pos = {u[0].id: n + 1 for n, u in enumerate(units)}
    total = len(units)
    plan = _Plan(rng, pos, total)
    words = _Wordings(data.seed)

    def fkey(i: int) -> str:
        return f"fact-{i:04d}"

    updated = {u.fact: u for u in data.updates}
    restated = {c.fact: c for c in data.corroborations}
    reinforced = set(data.reinforce)
    last_ask: dict[str, list[_Ask]] = {}  # fact key -> its asks before any forget

    # Facts: early asks, then later ones (an updated fact: one re-probe, then the update's).
    with_history = (sum(u.history is not None for u in data.updates) / len(data.updates)
                    if data.updates else 0.0)
    turn_rng = rng_for("turns")
    keys_sorted = sorted(key.values())

    def at_key(k: float) -> float:
        return bisect.bisect_left(keys_sorted, k) + 0.5

    def turn(item_id: str) -> tuple[float, float]:
        """A moment drawn as a new value's is (and, as often as an update has a history
        item, a second one after it, as its history item's): an unchanged fact's later
        asks come after it, so that they come when an updated fact's update questions do."""
        v = _later(turn_rng, key[item_id])
        after = _then(turn_rng, v) if turn_rng.random() < with_history else v
        # as writes, counted as a new value's place is: items are not spread evenly
        return at_key(v), at_key(after)

    # Facts: early asks, then the later ones, all after the fact's turn (its new value,
    # its restatement, or a moment drawn alike): an updated fact's later asks are its
    # update questions, an unchanged fact's its re-probes, at the same times and in the
    # same number, so that neither when nor how often a fact is asked says which it is.
    for i, f in enumerate(facts):
        k = fkey(i)
        pool = f.all_wordings
        early, later = _early_later(rng)
        at = pos[f.item.id]
        u = updated.get(i)
        c = restated.get(i)
        v, v_after = turn(f.item.id)
        if u is not None:
            v, v_after = pos[u.item.id], max([pos[u.item.id], *(pos[h] for h in u.history_ids)])
        elif c is not None:
            v = v_after = pos[c.item.id]
        # before a new value or a restatement is written, in a small scenario too
        stop = v if (u is not None or c is not None) else math.inf
        mine = [plan.ask(Probe(words.take(k, pool), (f.item.id,), "probe", key=k),
                         plan.soon(at), deadline=stop, floor=at) for _ in range(early)]
        start = max(a.target for a in mine)

        def then() -> float:
            return max(plan.soon(v_after), start + REPROBE_GAP)  # noqa: B023

        if u is not None:
            olds = (f.item.id, *u.history_ids)
            past = bool(u.past_wordings) and later == 3
            for _ in range(later - past):
                mine.append(plan.ask(Probe(words.take(k, u.all_wordings, pool), (u.item.id,),
                                           "update", outrank=olds, key=k), then()))
            if past:
                mine.append(plan.ask(Probe(words.take(k, u.past_wordings), olds, "past",
                                           outrank=(u.item.id,), key=k), then()))
        elif c is not None:
            for _ in range(later):
                mine.append(plan.ask(Probe(words.take(k, (c.question,), pool),
                                           (f.item.id, c.item.id), "corroborate", key=k),
                                     then()))
        else:
            for _ in range(later):
                mine.append(plan.ask(Probe(words.take(k, pool), (f.item.id,), "reprobe",
                                           key=k), then()))
        for a in mine[early:]:
            # an update question waits out the call that writes its answer; every later
            # ask waits out the call its turn falls in, so that waiting says nothing
            a.hold = math.ceil(v_after)
        last_ask[k] = mine

    # Asides: half as many items outside the facts, asked on the same schedule (an
    # item given a new value later: its turn is that value's write).
    asides = list(data.asides)
    rng.shuffle(asides)
    aside_of: dict[str, Aside] = {}
    for n, a in enumerate(sorted(asides[:len(facts) // 2], key=lambda a: a.item.id)):
        k = f"aside-{n:04d}"
        aside_of[k] = a
        early, later = _early_later(rng)
        at = pos[a.item.id]
        firsts = [plan.soon(at) for _ in range(early)]
        start = max(firsts)
        if a.until in pos:
            v = v_after = float(pos[a.until])
        else:
            v, v_after = turn(a.item.id) if a.item.id in key else (start, start)

        def aside(t: float, deadline: float = math.inf, a=a, k=k, start=start) -> None:
            if a.until and t >= deadline - 1:
                return  # no room before the item's new value: not asked
            last_ask.setdefault(k, []).append(plan.ask(
                Probe(words.take(k, a.wordings), (a.item.id,), "aside", outrank=a.outrank,
                      key=k), t, deadline=deadline, floor=start, hard=bool(a.until)))

        for t in firsts:
            aside(t, deadline=v)
        if a.until:  # a renewed item's question has another answer after its turn
            aside(plan.just_before(v, start), deadline=v)
        else:
            for _ in range(later):
                aside(max(plan.soon(v_after), start + REPROBE_GAP))

    # The reinforcement's controls, drawn first: forgetting must leave them alone
    # (at most a quarter of the free facts: a small scenario keeps facts to forget).
    busy = set(updated) | set(restated) | reinforced
    copied = {g.copy_of for g in data.gate if g.copy_of is not None}
    free = [i for i, f in enumerate(facts) if i not in busy and f.item.id not in copied]
    controls = sorted(rng_for("controls").sample(free, min(len(free) // 4, len(reinforced))))

    # Forget calls: each after its items' writes, before its facts' next ask.
    # No question is added for forgetting: a forgotten fact's asks that fall after the
    # call are its follow-ups (``forgotten``), and so are the asks after a drawn forget
    # call of as many facts not forgotten (``kept``), so that a follow-up is asked when,
    # as often and in the wording any ask of a fact is.
    plan.rng = rng = rng_for("forget")
    written = [u[0] for u in units]
    forgetting = plan_forgetting(p, replace(data, reinforce=(*data.reinforce, *controls)),
                                 written)
    by_fact = {facts[i].item.id: fkey(i) for i in range(len(facts))}
    for u in data.updates:
        by_fact[u.item.id] = fkey(u.fact)
        for h in u.history_ids:
            by_fact[h] = fkey(u.fact)
    template = {q.key: q for q in forgetting.questions if isinstance(q, Probe)}

    def relabel(k: str, idx: int) -> None:
        """``k``'s asks after event ``idx`` become its follow-ups; those before, its
        last questions before it."""
        at = plan.events[idx].pos
        for a in last_ask.get(k, []):
            if a.target > at:
                a.step = replace(template[k], question=a.step.question)
                a.after = idx
            else:
                a.before = idx

    calls: list[Forget] = []
    for step in forgetting.forgets:
        assert isinstance(step, Forget)
        if step.source is not None:
            calls.append(step)
            continue
        # facts forgotten by id: a call a fact, each at its own time
        per: dict[str, list[str]] = {}
        for i in step.ids:
            per.setdefault(by_fact.get(i, i), []).append(i)
        calls += [Forget(ids=tuple(ids), forgotten=tuple(ids)) for ids in per.values()]

    def forget(step: Forget, keys: Sequence[str]) -> None:
        """``step`` after its items' writes and before the first of its facts' asks
        after them, at a drawn point: the asks from there on are the follow-ups. (Drawn
        anywhere among the asks, a call would leave the early asks alone and make its
        follow-ups the late ones, which come after more questions about the person.)"""
        lo = max(pos[i] for i in step.forgotten) + MIN_GAP
        hi = min([a.target for k in keys for a in last_ask.get(k, []) if a.target > lo],
                 default=lo)
        idx = len(plan.events)
        plan.spans.append(hi - lo)
        # nearer the writes than the next ask (a cube of a uniform share): drawn
        # uniformly, the call sat just before its first follow-up, nearer than
        # the last forget call is to most questions
        plan.events.append(_Event(step, lo + rng.random() ** NEAR * (hi - lo)))
        for k in keys:
            relabel(k, idx)

    for step in calls:
        # (sorted: a set's order is the process's string hashing)
        forget(step, sorted({by_fact[i] for i in step.forgotten if i in by_fact}))
    # Asides are forgotten and kept too, as many as their share of the asked keys, so
    # that a follow-up is not a question about a fact more often than any question is.
    gone_facts = {by_fact[i] for step in calls for i in step.forgotten if i in by_fact}
    read = {i for a in plan.asks for i in (*a.step.expected, *a.step.outrank)
            if isinstance(a.step, Probe) and not (a.step.key or "").startswith("aside-")}
    free_asides = [k for k, a in aside_of.items()  # (not a renewed item, nor a new value)
                   if a.until is None and not a.outrank and a.item.id not in read
                   and last_ask.get(k)]
    want = round(len(gone_facts) * len(aside_of) / max(1, len(facts)))
    chosen = rng.sample(free_asides, min(len(free_asides), 2 * want))
    for k in chosen[:want]:
        item = aside_of[k].item.id
        template[k] = Probe("", (), "forgotten", key=k, forgotten=(item,),
                            needs=Capability.FORGET)
        forget(Forget(ids=(item,), forgotten=(item,)), [k])
    kept = [q.key for q in forgetting.questions
            if isinstance(q, Probe) and q.tag == "kept" and q.key is not None]
    for k in chosen[want:]:
        a = aside_of[k]
        template[k] = Probe("", (a.item.id,), "kept", key=k, needs=Capability.FORGET)
        kept.append(k)
    forgets = list(range(len(plan.events)))
    for k in kept:
        call = _earlier_call(rng, plan, forgets, last_ask[k])
        if call is not None:
            relabel(k, call)
    # (keys with follow-ups, kept or forgotten: a cell cannot be forgotten, so it is kept
    # as often as any key has follow-ups)
    followed = len(set(kept) | gone_facts) + want
    stats_forgotten = {**forgetting.stats, "asides": want, "asides_kept": len(chosen) - want}

    if p.consolidate:
        sleep = rng_for("sleep")
        plan.events.append(_Event(Consolidate(), total * (0.5 + 0.2 * sleep.random())))

    # Reinforcement: each cell, after its own asks, asked P more times at drawn moments,
    # then checked in fresh words; each control checked as long after its own last ask
    # as a cell is (reinforcementDelta compares their gains). Each at its own time,
    # among the writes: after the last write, a run of questions that is all
    # reinforcement would be a run with no follow-up in it.
    plan.rng = rng = rng_for("reinforce")
    gaps: list[float] = []

    def chain(k: str, tag: str, fact: int, times: Sequence[float], check: float) -> None:
        """A strength reading, the asks at ``times``, a reading and the check, in order."""
        f = facts[fact]
        own = list(last_ask[k])
        start = max(a.target for a in own) + 0.5
        before = plan.ask(ReadStrength((f.item.id,), tag, "before"), start)
        before.wait = own
        prev = [before]
        for t in times:
            a = plan.ask(Probe(words.take(k, f.all_wordings), (f.item.id,), "reinforce",
                               key=k), start + t)
            a.wait = prev[:1]
            prev.append(a)
        after = plan.ask(ReadStrength((f.item.id,), tag, "after"), start + check - 0.25)
        after.wait = prev
        done = plan.ask(Probe(words.take(k, f.all_wordings), (f.item.id,),
                              "reinforced" if tag == "reinforce" else "control", key=k),
                        start + check)
        done.wait = [after]

    for i in sorted(reinforced):
        times = sorted(0.5 + rng.random() * TAIL for _ in range(p.reinforce_queries))
        check = max(times, default=0.5) + 0.5 + rng.random() * TAIL / 2
        gaps.append(check)
        chain(fkey(i), "reinforce", i, times, check)
    for n, i in enumerate(controls):
        chain(fkey(i), "control", i, (), gaps[n % len(gaps)] if gaps else TAIL)
    if forgetting.stats:
        stats_forgotten["cells_kept"] = _kept_cells(rng_for("kept-cells"), plan, forgets,
                                                    sorted(fkey(i) for i in reinforced),
                                                    followed / max(1, len(last_ask)))

    if forgetting.stats:
        stats_forgotten["decoys"] = _decoys(rng_for("decoys"), plan, data, aside_of)
    steps = _emit(rng_for("calls"), p.write_batch, units, plan)
    stats = {**data.stats, "stream": {"layout": "blind", "writes": total,
                                      "questions": sum(isinstance(s, Probe) for s in steps),
                                      "repeated_wordings": words.repeated,
                                      "squeezed_asks": plan.squeezed}}
    if forgetting.stats:
        stats["forgotten"] = stats_forgotten
    return Script(tuple(steps), k=p.k, seed=data.seed, stats=stats)


def _earlier_call(rng: random.Random, plan: _Plan, forgets: Sequence[int],
                  asks: Sequence[_Ask]) -> int | None:
    """A drawn forget call (index into ``plan.events``) before the first of ``asks``, or
    failing that before the last; None when every call comes after them."""
    first = min(a.target for a in asks)
    last = max(a.target for a in asks)
    room = ([e for e in forgets if plan.events[e].pos < first]
            or [e for e in forgets if plan.events[e].pos < last])
    return rng.choice(room) if room else None


def _kept_cells(rng: random.Random, plan: _Plan, forgets: Sequence[int],
                cells: Sequence[str], rate: float) -> int:
    """The reinforcement asks of a cell drawn as a key with follow-ups is (at ``rate``), after
    a drawn earlier forget call, become ``kept`` follow-ups: what a reinforcement ask
    measures is only that it was asked, and otherwise a cell's P asks, about a person
    asked about more often than anyone, were never follow-ups. They carry no capability:
    a backend that cannot forget is asked them as ever (and forgetKept is not its metric).
    Returns how many cells."""
    n = 0
    for k in cells:
        asks = [a for a in plan.asks if isinstance(a.step, Probe) and a.step.key == k
                and a.step.tag == "reinforce"]
        if not asks or rng.random() >= rate:
            continue
        idx = _earlier_call(rng, plan, forgets, asks)
        if idx is None:
            continue
        for a in asks:
            if a.target > plan.events[idx].pos:
                a.step = replace(a.step, tag="kept")
                a.after = idx
        n += 1
    return n


def _decoys(rng: random.Random, plan: _Plan, data: ScenarioData,
            aside_of: dict[str, Aside]) -> int:
    """Forget calls of noise that nothing asks about, among the questions asked after the
    last write (asks whose time is past the stream's end), as many a question as the
    stream has before it: the real calls come before their facts' next ask, and without
    these, the run of questions after the last write would have no forget call before it
    and so no follow-up in it. Each goes just before a question that is not a follow-up
    (one right after a forget call would mark it). Returns how many."""
    total = plan.total
    real = sum(isinstance(e.step, Forget) for e in plan.events)
    probes = [a for a in plan.asks if isinstance(a.step, Probe)]
    late = [a for a in probes if a.target > total]
    anchors = sorted(a.target for a in late if a.step.tag not in _FOLLOW_UPS)
    read = {i for a in probes for i in (*a.step.expected, *a.step.outrank)}
    read |= {i for a in plan.asks if isinstance(a.step, ReadStrength) for i in a.step.ids}
    read |= {i for e in plan.events if isinstance(e.step, Forget) for i in e.step.forgotten}
    read |= {a.item.id for a in aside_of.values()}
    read |= {g.copy_of for g in data.gate if g.copy_of is not None}
    free = sorted(i.id for i in data.noise if i.id not in read and i.id in plan.pos)
    rng.shuffle(free)
    # Among the writes, as many again as real calls, each placed as a real call is
    # between its item's write and a drawn real call's room later: a question soon after
    # a forget call is then a follow-up no more often than any question.
    placed: set[str] = set()
    for item in free[:round(DECOYS * real) if plan.spans else 0]:
        lo = plan.pos[item] + MIN_GAP
        hi = lo + rng.choice(plan.spans)
        at = lo + rng.random() ** NEAR * (hi - lo)
        if at < total:
            plan.events.append(_Event(Forget(ids=(item,), forgotten=(item,)), at))
            placed.add(item)
    free = [i for i in free if i not in placed]
    want = min(len(free), round((real + len(placed)) * len(late)
                                / max(1, len(probes) - len(late))))
    if not anchors or want <= 0:
        return len(placed)
    for item in free[:want]:
        at = rng.choice(anchors)
        plan.events.append(_Event(Forget(ids=(item,), forgotten=(item,)), at - 1e-6))
    return len(placed) + want


def _emit(rng: random.Random, batch: int, units: list[tuple[Item, str, str]],
          plan: _Plan) -> list[Step]:
    """The steps: write calls of drawn sizes, each followed by what is due after it."""
    steps: list[Step] = []
    pending = sorted(plan.asks, key=lambda a: (a.target, a.tie))
    events = sorted(plan.events, key=lambda e: e.pos)
    written: set[str] = set()
    last_call: set[str] = set()
    asked: set[int] = set()  # id() of the asks asked so far
    count = 0

    def ids_of(step: Step) -> Iterable[str]:
        if isinstance(step, Probe):
            return (*step.expected, *step.outrank)
        return step.ids if isinstance(step, ReadStrength) else ()

    def ready(a: _Ask) -> bool:
        if a.after is not None and not plan.events[a.after].done:
            return False
        if any(id(w) not in asked for w in a.wait):
            return False
        return all(i in written for i in ids_of(a.step))

    def ask(asks: list[_Ask]) -> None:
        for a in sorted(asks, key=lambda a: (a.target, a.tie)):
            pending.remove(a)
            asked.add(id(a))
            steps.append(a.step)

    def fire(upto: float) -> None:
        """After the last write: each event due by ``upto``, after its last questions."""
        for ev in events:
            if not ev.done and ev.pos <= upto:
                ask([a for a in pending if a.before == plan.events.index(ev)])
                ev.done = True
                steps.append(ev.step)

    shuffle = random.Random(rng.random())

    def burst(count: int, size: int) -> None:
        """What is due after the write call that ends at ``count``: the questions in a
        drawn order, and the forget calls due at drawn places among them (after their
        own last questions), so that neither a call's place in a burst nor a question's
        distance from a forget call says anything."""
        fired: set[int] = set()  # events of this burst: their follow-ups wait a call
        evs = []
        for ev in events:
            idx = plan.events.index(ev)
            if not ev.done and ev.pos <= count:
                first = [a for a in pending if a.before == idx]
                if any(set(ids_of(a.step)) & last_call for a in first):
                    continue  # its last questions wait a call, and so does the event
                evs.append((ev, first))
                fired.add(idx)
        due = [a for a in pending if a.target <= count and ready(a) and a.after not in fired
               and not set(ids_of(a.step)) & last_call and not count - size < a.hold <= count]
        group = sorted({id(a): a for a in due + [a for _, f in evs for a in f]}.values(),
                       key=lambda a: a.tie)
        seq: list[_Ask | _Event] = list(group)
        for ev, first in evs:
            lo = max((seq.index(a) for a in first), default=-1) + 1
            # anywhere after them: its own follow-ups wait a call, and another call's
            # follow-up may come right after it as any question may
            seq.insert(lo + shuffle.randrange(len(seq) - lo + 1), ev)
            ev.done = True
        for x in seq:
            if isinstance(x, _Ask):
                pending.remove(x)
                asked.add(id(x))
            steps.append(x.step)

    pos = plan.pos
    sizes = _cuts(rng, len(units), batch)
    start = 0
    while sizes:
        size = sizes.pop(0)
        # A call never holds both an ask's answer and the write that ends its time (in
        # a small scenario a new value can follow its fact closely): it is cut before.
        cut = min((int(a.deadline) - count - 1 for a in pending
                   if count < a.deadline <= count + size
                   and any(count < pos.get(i, 0) < a.deadline for i in ids_of(a.step))),
                  default=size)
        if 0 < cut < size:
            sizes.insert(0, size - cut)
            size = cut
        call = units[start:start + size]
        start += size
        ask([a for a in pending if a.deadline <= count + size and ready(a)])
        items = []
        for item, _, _ in call:
            count += 1
            items.append(replace(item, timestamp=EPOCH + timedelta(minutes=count)))
        cats = tuple(c for _, _, c in call)
        steps.append(Write(tuple(items), WRITE_TAG, cats if any(cats) else (),
                           tags=tuple(t for _, t, _ in call)))
        last_call = {i.id for i in items}
        written |= last_call
        burst(count, size)
    # After the last write: the asks and events left, in the order of their times; a
    # follow-up never comes right after its forget call while another ask can go first.
    for ev in events:
        if not ev.done:
            ask([a for a in pending if a.target < ev.pos])
            fire(ev.pos)
            idx = plan.events.index(ev)
            rest = sorted(pending, key=lambda a: (a.target, a.tie))
            if rest and rest[0].after == idx:
                other = next((a for a in rest if isinstance(a.step, Probe)
                              and a.step.tag not in (*_FOLLOW_UPS, *_REINFORCEMENT)
                              and (a.after is None or (plan.events[a.after].done
                                                       and a.after != idx))), None)
                if other is not None:
                    ask([other])
    ask(list(pending))
    own = {id(a.step): id(plan.events[a.after].step) for a in plan.asks if a.after is not None}
    return _apart(steps, own)


def _apart(steps: list[Step], own: dict[int, int]) -> list[Step]:
    """``steps`` with no follow-up question right after its own forget call (``own``: a
    follow-up's id to its call's): where one is, the first other question of the same
    run of questions goes before it. (Right after another call, it is where any question
    may be: barred there too, a follow-up was never the first question after a call.)"""
    last_write: set[str] = set()
    for n, step in enumerate(steps):
        if isinstance(step, Write):
            last_write = {i.id for i in step.items}
        if not isinstance(step, Forget) or n + 1 >= len(steps):
            continue
        nxt = steps[n + 1]
        if own.get(id(nxt)) != id(step):
            continue
        moved = False
        for m in range(n + 2, len(steps)):
            cand = steps[m]
            if not isinstance(cand, Probe):
                break
            if own.get(id(cand)) != id(step) and not set(cand.expected) & last_write:
                steps.insert(n + 1, steps.pop(m))
                moved = True
                break
        if moved:
            continue
        # none after it: the call goes back before the nearest earlier question, or the
        # write call before it, over questions that are not about what it forgets (after
        # the last write every question left can be one)
        gone = set(step.forgotten)
        for m in range(n - 1, 0, -1):
            cand = steps[m]
            if isinstance(cand, Write):
                if not {i.id for i in cand.items} & gone:
                    steps.insert(m, steps.pop(n))
                break
            if not isinstance(cand, Probe) or {*cand.expected, *cand.outrank} & gone:
                break
            steps.insert(m, steps.pop(n))  # (none of its own follow-ups is before it)
            break
    return steps
