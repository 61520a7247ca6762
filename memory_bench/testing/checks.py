"""The promises a backend makes, one check each (PROTOCOL.md, the Backend protocol).

A check opens the backend on fresh stores through a :class:`Subject`, calls it
as a run would and records each broken promise as one line; a check whose
capability the backend does not declare does not apply. The answers of
``write`` and ``query`` are judged by the same functions the runner uses
(``memory_bench.contract.answers``), so what passes here passes in a run.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from numbers import Real
from typing import Any

from memory_bench.contract.answers import hit_problems, write_problems
from memory_bench.contract.backend import Backend
from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Item
from memory_bench.contract.options import OptionError, resolve_options
from memory_bench.testing.subject import CLEAN, FACTS, Blocked, Subject

__all__ = ["CHECKS", "Check"]

UNKNOWN_OPTION = "memory_bench_kit_no_such_option"
QUESTIONS = ("Who repairs clocks under the viaduct?", "Where was Ivo Brandt born?",
             "completely unrelated words about volcanic basalt")


@dataclass(frozen=True)
class Check:
    """One promise: its name, what it promises, and when it applies."""

    name: str
    promise: str
    run: Callable[[Subject], None]
    needs: Capability | None = None
    # Why the check does not apply to this subject, or None when it does.
    skip: Callable[[Subject], str | None] | None = None

    def not_applicable(self, s: Subject) -> str | None:
        if self.needs is not None and not s.has(self.needs):
            return f"`{self.needs.value}` not declared"
        return self.skip(s) if self.skip is not None else None


CHECKS: list[Check] = []


def check(name: str, promise: str, *, needs: Capability | None = None,
          skip: Callable[[Subject], str | None] | None = None
          ) -> Callable[[Callable[[Subject], None]], Callable[[Subject], None]]:
    def add(fn: Callable[[Subject], None]) -> Callable[[Subject], None]:
        CHECKS.append(Check(name, promise, fn, needs, skip))
        return fn
    return add


# -- helpers ---------------------------------------------------------------------------

def _write(s: Subject, b: Backend, items: list[Item]) -> list[Any]:
    results = b.write(items)
    for line in write_problems(items, results):
        s.expect(False, line)
    return results if isinstance(results, list) else []


def _stocked(s: Subject, store: str = "store") -> tuple[Backend, dict[str, Item]]:
    """A backend holding the 12 facts: 8 in one write (episode e1), then 1 and 3 (e2).

    A write that breaks its promise blocks the check: the ``write`` check says why."""
    b = s.open(store)
    s.note_foreign(b)
    e1 = s.items("e1", FACTS[:8])
    e2 = s.items("e2", FACTS[8:], minute=100)
    for batch in (e1, e2[:1], e2[1:]):
        if write_problems(batch, b.write(batch)):
            raise Blocked("write")
    return b, {it.id: it for it in (*e1, *e2)}


def _ids(hits: Any) -> list[str]:
    return [getattr(h, "id", None) for h in hits] if isinstance(hits, list) else []


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- the checks ------------------------------------------------------------------------

@check("options", "every declared option's default is a value it accepts; an unknown option "
       "is refused")
def _options(s: Subject) -> None:
    info = s.selection.info
    for opt in info.options:
        if opt.default is None:
            continue
        try:
            opt.parse(opt.default)
        except OptionError as exc:
            s.expect(False, f"option {opt.name}: its default {opt.default!r} is refused by its "
                     f"own declaration ({exc})")
    try:
        resolve_options(info.name, info.options, {UNKNOWN_OPTION: "1"})
        s.expect(False, f"an unknown option ({UNKNOWN_OPTION}) was accepted")
    except OptionError:
        pass


@check("write", "write returns one WriteResult per item, in order, with its id; without "
       "`gate` every item is accepted")
def _write_check(s: Subject) -> None:
    b = s.open()
    e1 = s.items("e1", FACTS[:8])
    e2 = s.items("e2", FACTS[8:], minute=100)
    for batch in (e1, e2[:1], e2[1:]):
        results = _write(s, b, batch)
        if s.problems:
            return  # one line for a broken write, not one per batch
        refused = [r.id for r in results if getattr(r, "accepted", True) is False]
        if Capability.GATE in s.caps:
            s.expect(not refused, f"its gate refused the clean fact {refused[:1]}")
        else:
            s.expect(not refused, f"write refused {refused[:1]} without declaring `gate`")


@check("query", "query returns at most k Hits, of ids it was given, each once, with finite "
       "scores that never increase (best first)")
def _query(s: Subject) -> None:
    b, written = _stocked(s)
    seen: set[str] = set()
    for text in (FACTS[0], FACTS[9], *QUESTIONS):
        for k in (1, 3, len(FACTS) + 5):
            for promise, line in hit_problems(b.query(text, k), k, s.given(written)).items():
                if promise not in seen:
                    seen.add(promise)
                    s.expect(False, line)


@check("finds", "querying a stored item's own text ranks that item in the top 3")
def _finds(s: Subject) -> None:
    b, written = _stocked(s)
    items = list(written.values())
    missed = []
    for item in (items[1], items[6], items[10]):
        ids = _ids(b.query(item.text, 3))
        if item.id not in ids:
            missed.append(f"{item.id} -> {ids}")
    s.expect(not missed, f"querying an item's own text missed it in {len(missed)} of 3 "
             f"queries (first: {missed[:1]}): hits are not best first, or ids are mislabelled")


def _same_rank(small: list[Any], big: list[Any], *, drift: float = 0.0) -> str | None:
    """Is ``small`` (a query at a smaller k) the head of ``big`` (the same query at a
    larger k)? Hits tied on score may trade places, and so may hits within ``drift``
    of each other (a store whose scores change with use); any other difference is a
    ranking that depends on k or on the call, not on the store. None when it is."""
    if len(small) > len(big):
        return None  # the length is the caller's to judge
    for n, hit in enumerate(small):
        want = big[n]
        if hit.id == want.id:
            continue
        slack = max(drift, 1e-6 * max(1.0, abs(float(want.score))))
        tied = {h.id for h in big if abs(float(h.score) - float(want.score)) <= slack}
        if hit.id not in tied:
            return (f"hit {n} is {hit.id!r} for k={len(small)} but {want.id!r} for "
                    f"k={len(big)}")
    return None


@check("whole-list", "the whole answer keeps its promises: k honoured (as many hits as a "
       "larger k gives, up to k), and a smaller k gives the head of a larger k's ranking "
       "(each id with its own score, not ids shuffled under descending scores)")
def _whole_list(s: Subject) -> None:
    b, written = _stocked(s)
    n = len(written)
    every = " ".join(FACTS)  # shares words with every stored item: all of them match
    for k in (5, n):
        got = b.query(every, k)
        # none at all is a relevance threshold's right (a keyword store's, say): the
        # question is long; some but fewer than k is an adapter cutting the list short
        if isinstance(got, list) and 0 < len(got) < k:
            s.expect(False, f"query returned {len(got)} hit(s) for k={k} from a store of {n} "
                     "items to a question that shares words with every one: k is not "
                     "honoured")
            return
    for text in (FACTS[0], FACTS[9], QUESTIONS[0], QUESTIONS[1]):
        big = b.query(text, n)
        if hit_problems(big, n, s.given(written)):
            return  # the query check says why
        # With `strength`, retrieval changes scores by declaration: hits within a tenth
        # of the top score may trade places between two calls; a clear lead may not.
        top = max((abs(float(h.score)) for h in big), default=0.0)
        drift = 0.1 * top if s.has(Capability.STRENGTH) else 0.0
        for k in (1, 3, 5):
            small = b.query(text, k)
            if hit_problems(small, k, s.given(written)):
                return
            want = min(k, len(big))
            if len(small) != want:
                s.expect(False, f"query returned {len(small)} hit(s) for k={k} where k={n} "
                         f"returned {len(big)}: k is not honoured (expected {want})")
                return
            moved = _same_rank(small, big, drift=drift)
            if moved is not None:
                s.expect(False, f"{moved} for the same query {text[:40]!r}: the ranking "
                         "depends on k or on the call (ids shuffled under their scores?)")
                return


@check("rewrite", "writing an id again replaces its text: the new text finds it (no stale "
       "vector), the count does not grow, the id is returned once")
def _rewrite(s: Subject) -> None:
    b, written = _stocked(s)
    target = list(written.values())[4]
    again = [Item(id=target.id, text=CLEAN, source=target.source,
                  timestamp=target.timestamp + timedelta(minutes=600))]
    results = _write(s, b, again)
    if s.problems or not results or results[0].accepted is False:
        return  # a gate may refuse a re-write; then the old text stays
    n = b.count(s.prefix)
    s.expect(n == len(written), f"after writing {target.id} again, count({s.prefix!r}) is "
             f"{n!r}, not {len(written)}: the re-write was added beside the old item")
    hits = b.query(CLEAN, 3)
    ids = _ids(hits)
    s.expect(target.id in ids, f"after writing {target.id} again with new text, querying "
             f"the new text returned {ids}: the old text (a stale vector) still ranks it")
    twice = ids.count(target.id)
    s.expect(twice <= 1, f"after writing {target.id} again, a query returned it {twice} times")


def _nonsense(n: int = 8) -> str:
    """Random letters in word shapes: no word of any fact, no meaning."""
    rng = random.Random(20261204)
    return " ".join("".join(rng.choice("bcdfghjklmnpqrstvwxz") + rng.choice("aeiouy")
                            for _ in range(3)) for _ in range(n))


@check("query-blind", "the answer depends on the query: a query of random words does not get "
       "the same top k with the same scores as a real question, nor do different questions "
       "all get one answer")
def _query_blind(s: Subject) -> None:
    b, _ = _stocked(s)

    def answer(text: str) -> list[tuple[Any, Any]]:
        hits = b.query(text, 5)
        return [(getattr(h, "id", None), getattr(h, "score", None))
                for h in (hits if isinstance(hits, list) else [])]

    real = [answer(t) for t in (FACTS[0], FACTS[5], FACTS[9], QUESTIONS[1])]
    noise = answer(_nonsense())
    same = [r for r in real if r and r == noise]
    s.expect(not same, f"a query of random words got the same top {len(noise)} with the same "
             f"scores as {len(same)} of {len(real)} real questions: the query is not read")
    if not same and real[0] and all(r == real[0] for r in real):
        s.expect(False, f"{len(real)} different questions all got the same top "
                 f"{len(real[0])} with the same scores: the query is not read")


@check("remove-count", "remove and count by id prefix: every id under the prefix, no other, "
       "and removed items are never returned")
def _remove_count(s: Subject) -> None:
    b, written = _stocked(s)
    e1, e2, p = f"{s.prefix}e1-", f"{s.prefix}e2-", s.prefix
    first = next(iter(written))
    for prefix, want in ((p, 12), (e1, 8), (e2, 4), (f"{e1}000", 8), (first, 1),
                         (f"{p}none-", 0)):
        got = b.count(prefix)
        s.expect(_int(got) and got == want, f"count({prefix!r}) returned {got!r}, not {want}")
    removed = b.remove(e1)
    s.expect(_int(removed) and removed == 8, f"remove({e1!r}) returned {removed!r}, not 8")
    left = b.count(e1), b.count(e2)
    s.expect(left == (0, 4), f"after remove({e1!r}) count gives {left[0]!r} under it and "
             f"{left[1]!r} under {e2!r}, not 0 and 4")
    stale = [i for t in FACTS[:8] for i in _ids(b.query(t, 5)) if i.startswith(e1)]
    s.expect(not stale, f"query returned {stale[:1]} after it was removed")
    again = b.remove(e1)
    s.expect(again == 0, f"removing {e1!r} a second time returned {again!r}, not 0")


@check("prefix-literal", "an id prefix is matched literally: `_`, `%`, `*`, `?` and `[` in it are "
       "characters, not SQL LIKE or glob wildcards")
def _prefix_literal(s: Subject) -> None:
    b = s.open()
    s.note_foreign(b)
    stems = ("k_", "ka", "k%", "kzz", "k*", "k?", "k[a]")
    for n, stem in enumerate(stems):
        batch = s.items(stem, [FACTS[n]], minute=10 * n)
        if write_problems(batch, b.write(batch)):
            raise Blocked("a write broke its promise (see the `write` check)")
    for stem in ("k_", "k%", "k*", "k?", "k["):
        got = b.count(f"{s.prefix}{stem}")
        s.expect(got == 1, f"count({s.prefix + stem!r}) returned {got!r}, not 1: the prefix "
                 "is read as a pattern")
    removed = b.remove(f"{s.prefix}k_")
    s.expect(removed == 1, f"remove({s.prefix + 'k_'!r}) returned {removed!r}, not 1")
    left = b.count(f"{s.prefix}ka")
    s.expect(left == 1, f"remove({s.prefix + 'k_'!r}) also removed {s.prefix + 'ka'!r}")


@check("fresh-store", "a backend opened on a new workdir starts empty (no state shared "
       "between pairs)",
       skip=lambda s: ("a `persistent` store may be shared on purpose"
                       if Capability.PERSISTENT in s.caps else None))
def _fresh(s: Subject) -> None:
    _stocked(s)
    other = s.open("other")
    n = other.count(s.prefix)
    s.expect(n == 0, f"a backend on a new workdir already counts {n!r} item(s) of another "
             "backend")
    ids = _ids(other.query(FACTS[0], 5))
    s.expect(not ids, f"a backend on a new workdir returned {ids[:1]} before any write")


@check("close", "close() returns None and releases the store: a backend reopened on the same "
       "workdir works")
def _close(s: Subject) -> None:
    b, _ = _stocked(s)
    got = s.close(b)
    s.expect(got is None, f"close() returned {got!r}, not None")
    again = s.open("store")
    item = s.items("after", [CLEAN], minute=500)
    _write(s, again, item)
    ids = _ids(again.query(CLEAN, 3))
    s.expect(item[0].id in ids, f"after reopening the workdir, the item just written was not "
             f"found (got {ids})")


@check("provenance", "every hit reports the source and timestamp written for the id it names",
       needs=Capability.PROVENANCE)
def _provenance(s: Subject) -> None:
    b, written = _stocked(s)
    for text in (FACTS[2], FACTS[8], QUESTIONS[0]):
        for hit in b.query(text, 5):
            item = written.get(getattr(hit, "id", None))
            if item is None:
                continue  # the query check reports strangers
            if hit.source != item.source or hit.timestamp != item.timestamp:
                stamp = hit.timestamp.isoformat() if hit.timestamp else None
                s.expect(False, f"{hit.id} reported source {hit.source!r} and timestamp "
                         f"{stamp}; written: {item.source!r}, {item.timestamp.isoformat()}")
                return


def _finite(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


@check("strength", "strength gives one value per id (None for an id never written), and "
       "retrieving an item changes its strength", needs=Capability.STRENGTH)
def _strength(s: Subject) -> None:
    b, written = _stocked(s)
    target = list(written.values())[3]
    before = b.strength([target.id, f"{s.prefix}never-0000"])
    if not (isinstance(before, list) and len(before) == 2):
        s.expect(False, f"strength of 2 ids returned {before!r}")
        return
    s.expect(_finite(before[0]), f"strength of {target.id} is {before[0]!r}, not a number")
    s.expect(before[1] is None, f"strength of an id never written is {before[1]!r}, not None")
    for _ in range(5):
        b.query(target.text, 3)
    (after,) = b.strength([target.id]) or [None]
    s.expect(_finite(after) and after != before[0],
             f"strength of {target.id} is {after!r} after 5 retrievals, as before: `strength` "
             "is declared but does not change with use")


@check("gate", "a declared gate refuses plain junk (an empty and a blank text) with a reason, "
       "and accepts a clean fact", needs=Capability.GATE)
def _gate(s: Subject) -> None:
    b, _ = _stocked(s)
    junk = s.items("junk", ["", "   \n\t "], minute=300)
    clean = s.items("clean", [CLEAN], minute=400)
    results = _write(s, b, [*junk, *clean])
    if len(results) != 3:
        return
    for item, res in zip(junk, results, strict=False):
        s.expect(res.accepted is False, f"its gate accepted {item.text!r} ({item.id})")
        s.expect(res.accepted or (isinstance(res.reason, str) and res.reason.strip() != ""),
                 f"{item.id} was refused without a reason")
    s.expect(results[2].accepted is True, f"its gate refused the clean fact {CLEAN!r}")
    n = b.count(f"{s.prefix}junk-")
    s.expect(n == 0, f"count finds {n!r} refused item(s)")


@check("consolidate", "consolidate() returns a JSON-able report and the store still answers "
       "with the ids it was given", needs=Capability.CONSOLIDATE)
def _consolidate(s: Subject) -> None:
    b, written = _stocked(s)
    report = b.consolidate()
    s.expect(isinstance(report, Mapping), f"consolidate() returned {type(report).__name__}, "
             "not a mapping")
    try:
        json.dumps(dict(report) if isinstance(report, Mapping) else report)
    except (TypeError, ValueError) as exc:
        s.expect(False, f"consolidate()'s report is not JSON-able ({exc})")
    for line in hit_problems(b.query(FACTS[4], 5), 5, s.given(written)).values():
        s.expect(False, f"after consolidate: {line}")


@check("forget", "forget by ids and by source: the items are gone from query and count, "
       "nothing else is, the count returned is right, an unknown id is a no-op",
       needs=Capability.FORGET)
def _forget(s: Subject) -> None:
    b, written = _stocked(s)
    if not callable(getattr(b, "forget", None)):
        s.expect(False, "`forget` is declared but the backend has no forget() method")
        return
    items = list(written.values())
    e1, e2 = items[:8], items[8:]
    gone = [e1[2], e2[0]]
    n = b.forget([i.id for i in gone])
    s.expect(n == 2, f"forget of 2 ids returned {n!r}, not 2")
    _forgotten(s, b, gone, left=10)
    n = b.forget([f"{s.prefix}never-0000", gone[0].id])
    s.expect(n == 0, f"forget of an unknown and an already forgotten id returned {n!r}, not 0")
    _forgotten(s, b, gone, left=10)
    n = b.forget(source=e2[1].source, prefix=s.prefix)
    s.expect(n == 3, f"forget(source={e2[1].source!r}) returned {n!r}, not its 3 items left")
    _forgotten(s, b, [*gone, *e2], left=7)
    kept = e1[5]
    ids = _ids(b.query(kept.text, 3))
    s.expect(kept.id in ids, f"after forgetting others, querying the text of {kept.id} "
             f"returned {ids}: forget took more than it was asked")


def _forgotten(s: Subject, b: Backend, gone: list[Item], *, left: int) -> None:
    """None of ``gone`` is counted or returned; ``left`` items of the kit's are counted."""
    n = b.count(s.prefix)
    s.expect(n == left, f"after forget, count({s.prefix!r}) is {n!r}, not {left}")
    for item in gone:
        c = b.count(item.id)
        s.expect(c == 0, f"count({item.id!r}) is {c!r} after it was forgotten")
        back = [i for i in _ids(b.query(item.text, 5)) if i in {g.id for g in gone}]
        s.expect(not back, f"query of a forgotten item's own text returned {back[:1]}")


@check("persistent", "a `persistent` store reopens with its items", needs=Capability.PERSISTENT)
def _persistent(s: Subject) -> None:
    b, written = _stocked(s)
    s.close(b)
    again = s.open("store")
    n = again.count(s.prefix)
    s.expect(n == len(written), f"reopened, the store counts {n!r} of the {len(written)} items "
             "written before close")
    target = list(written.values())[5]
    ids = _ids(again.query(target.text, 3))
    s.expect(target.id in ids, f"reopened, querying the text of {target.id} returned {ids}")
