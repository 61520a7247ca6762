"""Growing a continual script's store to a given size with noise, hard distractors a fixed share.

The base script's interference phase (its longest run of ``interfere`` writes, the
bulk the re-probes are measured against) is replaced by enough noise items that
the store holds ``size`` items after it, in this order of making and this mix:

- ``hard_share`` of them (exactly ``round(hard_share * noise)``, spread evenly
  through the phase) are **near misses** of the facts (``rename.py``): a fact's
  text with one word of its subject renamed, the facts taken in turn;
- the others are the base's own noise items, spread evenly, and **renamed
  copies** of them (every name token fresh), the base items taken in turn.

Every noise item gets an opaque id (the script's prefix and a seeded random
token, as the base generators make them) and a source drawn from the sources the
base script's items use, so neither id nor source tells a near miss from other
noise, or noise from a fact. Timestamps run one minute apart from the last item
before the phase, and every later item keeps its distance from the phase's end,
so the logical clock still only moves forward. Nothing else in the script
changes: the same facts, questions, updates, gate and reinforcement.
"""

from __future__ import annotations

import gc
import hashlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from memory_bench.contract.items import Item
from memory_bench.scenarios.generators.common import opaque_id
from memory_bench.scenarios.scale.rename import CAPITALISED, NameSpace, RenameError
from memory_bench.scenarios.script import Probe, Script, ScriptError, Step, Write

__all__ = ["GrowStats", "grow"]

_MINUTE = timedelta(minutes=1)


@dataclass
class GrowStats:
    """What was made, and how fast (``seconds`` is wall time, not part of the data)."""

    noise: int
    base_noise: int
    renamed: int
    hard: int
    facts_with_near_misses: int
    seconds: float
    kept_noise: int = 0  # the base's noise outside the grown run (among facts and updates)

    def to_dict(self) -> dict[str, Any]:
        return {"noise": self.noise, "base_noise": self.base_noise, "renamed": self.renamed,
                "hard": self.hard, "facts_with_near_misses": self.facts_with_near_misses,
                "kept_noise": self.kept_noise}


def _spread(n: int, k: int) -> list[bool]:
    """n flags, exactly k of them True, evenly spread (Bresenham)."""
    return [(i + 1) * k // n > i * k // n for i in range(n)] if n else []


def _phase(steps: Sequence[Step], tag: str) -> tuple[int, int]:
    """[start, end) of the longest contiguous run of ``tag`` writes: the interference the
    re-probes are measured against (the continual stream writes a share of its noise
    among the facts and another among the updates, and the bulk in one run between)."""
    runs: list[tuple[int, int]] = []
    for i, s in enumerate(steps):
        if isinstance(s, Write) and s.tag == tag:
            if runs and runs[-1][1] == i:
                runs[-1] = (runs[-1][0], i + 1)
            else:
                runs.append((i, i + 1))
    if not runs:
        raise ScriptError(f"the base script has no {tag!r} writes to grow")
    return max(runs, key=lambda r: (sum(len(s.items) for s in steps[r[0]:r[1]]), -r[0]))


def grow(script: Script, *, size: int, hard_share: float, seed: int, write_batch: int,
         interfere: str = "interfere", facts_tag: str = "seed", probe_tag: str = "probe"
         ) -> tuple[Script, GrowStats]:
    """``script`` with its store grown to ``size`` items after interference.

    The cyclic garbage collector is paused meanwhile: a million new items would
    otherwise set off full collections over every one of them, again and again
    (measured: half the time at 10⁶), and none of them is garbage.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _grow(script, size=size, hard_share=hard_share, seed=seed,
                     write_batch=write_batch, interfere=interfere, facts_tag=facts_tag,
                     probe_tag=probe_tag)
    finally:
        if enabled:
            gc.enable()


def _grow(script: Script, *, size: int, hard_share: float, seed: int, write_batch: int,
          interfere: str, facts_tag: str, probe_tag: str) -> tuple[Script, GrowStats]:
    t_start = time.perf_counter()
    steps = script.steps
    start, end = _phase(steps, interfere)
    base_noise = [i for s in steps[start:end] for i in s.items]  # type: ignore[union-attr]
    facts = [i for s in steps[:start] if isinstance(s, Write) and s.tag == facts_tag
             for i in s.items]
    # The noise written among the facts and among the updates stays, and counts.
    others = [i for n, s in enumerate(steps) if isinstance(s, Write) and s.tag == interfere
              and not start <= n < end for i in s.items]
    noise_n = size - len(facts) - len(others)
    hard_n = round(hard_share * noise_n)
    if noise_n - hard_n < len(base_noise):
        raise ScriptError(f"size {size} leaves room for {noise_n - hard_n} noise items besides "
                          f"{hard_n} near misses, fewer than the base's {len(base_noise)}")
    rng = random.Random(f"memory-bench/scale/{seed}")
    texts = [i.text for i in script.items()]
    space = NameSpace(texts, rng)
    taken = set(texts)

    by_id = {f.id: f for f in facts}
    questions: dict[str, str] = {}
    for s in steps:
        if isinstance(s, Probe) and s.tag == probe_tag and s.expected and s.expected[0] in by_id:
            questions.setdefault(s.expected[0], s.question)
    near = []  # (template, subject tokens): facts whose question names a token of the fact
    for fid, question in questions.items():
        t = space.template(by_id[fid].text, by_id[fid].tags)
        subject = set(CAPITALISED.findall(question)) & set(t.tokens)
        if subject:
            near.append((t, subject))
    if hard_n and not near:
        raise ScriptError("hard_share > 0, but no fact's question names a name token of its "
                          "fact: there is nothing to make near misses of")
    templates = [space.template(i.text, i.tags) for i in base_noise]

    first = base_noise[0]
    ids = {i.id for i in script.items()}
    sources = list(dict.fromkeys(i.source for i in script.items()))
    id_rng = random.Random(f"memory-bench/scale/ids/{seed}")

    def new_id() -> str:
        return opaque_id(id_rng, ids, script.prefix)
    before = [i for s in steps[:start] if isinstance(s, Write) for i in s.items]
    t0 = max(i.timestamp for i in before) if before else first.timestamp - _MINUTE
    made: list[Item] = []
    digest = hashlib.sha256(script.data_hash.encode())
    hard_flags = _spread(noise_n, hard_n)
    keep_flags = iter(_spread(noise_n - hard_n, len(base_noise)))
    next_base = next_near = next_template = 0
    hard_made, covered = 0, set[int]()
    for j, hard in enumerate(hard_flags):
        if hard:
            got = None
            for _ in range(len(near)):  # a fact whose near misses ran out is skipped
                which = next_near % len(near)
                next_near += 1
                got = space.near_miss(*near[which], taken)
                if got is not None:
                    covered.add(which)
                    break
            if got is None:
                raise RenameError("could not make another distinct near miss of any fact")
            text, tags = got
            hard_made += 1
        elif next(keep_flags):
            item = base_noise[next_base]
            next_base += 1
            text, tags = item.text, item.tags
        else:
            text, tags = space.renamed(templates[next_template % len(templates)], taken)
            next_template += 1
        taken.add(text)
        it = Item(id=new_id(), text=text, source=id_rng.choice(sources),
                  timestamp=t0 + (j + 1) * _MINUTE, region=first.region, tags=tags)
        made.append(it)
        digest.update("\x1f".join((it.id, text, *tags, "\x1e")).encode())

    shift = (made[-1].timestamp - max(i.timestamp for i in base_noise)) if made else timedelta()
    grown: list[Step] = list(steps[:start])
    grown += [Write(tuple(made[i : i + write_batch]), interfere)
              for i in range(0, len(made), write_batch)]
    for s in steps[end:]:
        if isinstance(s, Write) and shift:
            s = replace(s, items=tuple(replace(i, timestamp=i.timestamp + shift)
                                       for i in s.items))
        grown.append(s)
    digest.update(f"size={size};hard_share={hard_share!r};batch={write_batch}".encode())
    stats = GrowStats(noise=len(made), base_noise=len(base_noise),
                      renamed=len(made) - len(base_noise) - hard_made, hard=hard_made,
                      facts_with_near_misses=len(covered),
                      seconds=time.perf_counter() - t_start, kept_noise=len(others))
    out = Script(tuple(grown), k=script.k, seed=script.seed,
                 data_hash="sha256:" + digest.hexdigest(),
                 stats={**script.stats, "scale": stats.to_dict()}, prefix=script.prefix)
    return out, stats
