"""The continual protocol (PROTOCOL.md's eight phases) as a script of steps.

1 seed, 2 probe, 3 interfere, 4 consolidate (when asked), 5 re-probe, 6 update
and probe the updated facts, 6b corroborate (when asked: facts stated again by
another source, then probed), 7 gate, 8 reinforce. Every write is cut into
calls of ``write_batch`` items. Step tags are the phase names, which is what
the continual metrics read; a probe's ``key`` names its fact, so one question
pairs across backends and across phases.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import ScenarioData
from memory_bench.scenarios.continual.forgetting import plan_forgetting
from memory_bench.scenarios.continual.params import ContinualParams
from memory_bench.scenarios.script import Consolidate, Probe, ReadStrength, Script, Step, Write

__all__ = ["PHASES", "continual_script"]

PHASES = ("seed", "probe", "interfere", "consolidate", "reprobe", "update", "corroborate", "gate",
          "reinforce")


def _writes(tag: str, items: Sequence[Item], batch: int,
            categories: Sequence[str] = ()) -> list[Step]:
    return [
        Write(tuple(items[i : i + batch]), tag, tuple(categories[i : i + batch]))
        for i in range(0, len(items), batch)
    ]


def continual_script(p: ContinualParams, data: ScenarioData) -> Script:
    """The eight phases over ``data``; the data hash is the continual data's own."""
    facts = data.facts
    steps: list[Step] = _writes("seed", [f.item for f in facts], p.write_batch)

    def ask(tag: str) -> list[Step]:
        return [Probe(f.question, (f.item.id,), tag, key=f"fact-{i:04d}")
                for i, f in enumerate(facts)]

    steps += ask("probe")
    steps += _writes("interfere", data.noise, p.write_batch)
    if p.consolidate:
        steps.append(Consolidate())
    steps += ask("reprobe")
    steps += _writes("update", data.update_phase_items(), p.write_batch)
    steps += [Probe(u.question, (u.item.id,), "update", outrank=(facts[u.fact].item.id,),
                    key=f"fact-{u.fact:04d}") for u in data.updates]
    steps += _writes("corroborate", [c.item for c in data.corroborations], p.write_batch)
    steps += [Probe(c.question, (facts[c.fact].item.id, c.item.id), "corroborate",
                    key=f"fact-{c.fact:04d}") for c in data.corroborations]
    forgetting = plan_forgetting(p, data, [i for s in steps if isinstance(s, Write)
                                           for i in s.items])
    steps += forgetting.forgets
    steps += _writes("gate", [g.item for g in data.gate], p.write_batch,
                     [g.kind for g in data.gate])
    steps += forgetting.questions
    for fi in data.reinforce:
        fact = facts[fi]
        steps.append(ReadStrength((fact.item.id,), "reinforce", "before"))
        steps += [Probe(fact.question, (fact.item.id,), "reinforce", key=f"fact-{fi:04d}",
                        needs=Capability.STRENGTH)] * p.reinforce_queries
        steps.append(ReadStrength((fact.item.id,), "reinforce", "after"))
    return Script(tuple(steps), k=p.k, seed=data.seed, data_hash=data.items_hash(),
                  stats={**data.stats, **({"forgotten": forgetting.stats}
                                          if forgetting.stats else {})})
