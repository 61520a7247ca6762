"""Calibrate rshl's cue weight (``cue_weight``, cues.py) on seeds no result is published for.

For each scenario, seed and weight, the scenario's script runs in order on a fresh
lexical lattice in this process (writes, sleeps, questions: what the harness sends,
without the harness), and prints what the weight decides, from the answer key:
recall@1 of the fact probes before and after interference, retention (after /
before over the same facts) and the update ranking (the new value in the top 5 and
above the old one, as updateWinRate counts it). With the weight 0 this reproduces
the CLI's hard figures (seeds 0-1 before cues: 0.417, 0.620, 0.617).

    python benchmarks/rshl_cues.py --scenario hard --scenario default --scenario natural \\
        --seeds 100-109 --weights 0,0.4,0.6,0.8,1.2
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from memory_bench_rshl import Lattice, LatticeConfig, Record

from memory_bench.harness.pair import generate_script
from memory_bench.plugins import load_plugins
from memory_bench.scenarios.script import Consolidate, Probe, Reset, Write
from memory_bench.scenarios.spec import load_scenario


def _won(ids: list[str], p: Probe) -> bool:
    """The new value is in the top k and above every old one there."""
    if not p.expected or p.expected[0] not in ids:
        return False
    old = [ids.index(o) for o in p.outrank if o in ids]
    return not old or ids.index(p.expected[0]) < min(old)


def replay(plugins: Any, scenario: str, seed: int,
           fresh: Callable[[], Lattice]) -> dict[str, list[bool]]:
    """Per question kind, the outcomes of one seed's script on lattices from ``fresh``
    (a new one at every reset)."""
    spec = load_scenario(scenario, {}, registry=plugins.scenarios)
    script = generate_script(plugins, spec.ref(), seed).bind(f"cues-s{seed}-")
    lat = fresh()
    out: dict[str, list[bool]] = {"probe": [], "reprobe": [], "update": []}
    first: dict[str | None, bool] = {}
    pairs: list[tuple[bool, bool]] = []
    for step in script.steps:
        if isinstance(step, Write):
            lat.write([Record(i.id, i.text, i.source, i.timestamp, i.region, tuple(i.tags))
                       for i in step.items])
        elif isinstance(step, Consolidate):
            lat.consolidate()
        elif isinstance(step, Reset):
            lat = fresh()
        elif isinstance(step, Probe) and step.tag in out:
            ids = [h.id for h in lat.query(step.question, script.k)]
            ok = _won(ids, step) if step.tag == "update" else bool(ids) and ids[0] in step.expected
            out[step.tag].append(ok)
            if step.tag == "probe":
                first[step.key] = ok
            elif step.tag == "reprobe" and step.key in first:
                pairs.append((first[step.key], ok))
    out["before"] = [a for a, _ in pairs]
    out["after"] = [b for _, b in pairs]
    return out


def run(plugins: Any, scenario: str, seed: int, weight: float) -> dict[str, list[bool]]:
    """Per question kind, the outcomes of one seed's script at ``weight``."""
    config = LatticeConfig(cue_weight=weight)
    return replay(plugins, scenario, seed, lambda: Lattice(config))


def seed_range(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def rate(xs: Sequence[bool]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenario", action="append", default=None)
    ap.add_argument("--seeds", default="100-109", help="a range, e.g. 100-109 (train seeds)")
    ap.add_argument("--weights", default="0,0.4,0.6,0.8,1.2")
    a = ap.parse_args(argv)
    plugins = load_plugins()
    seeds = seed_range(a.seeds)
    print("scenario  weight  recall@1  recall@1 after  retention  updateWin")
    for scenario in a.scenario or ["hard", "default", "natural"]:
        for w in (float(x) for x in a.weights.split(",")):
            tot: dict[str, list[bool]] = {}
            for seed in seeds:
                for k, v in run(plugins, scenario, seed, w).items():
                    tot.setdefault(k, []).extend(v)
            before, after = sum(tot["before"]), sum(tot["after"])
            retention = after / before if before else float("nan")
            print(f"{scenario:<9} {w:>6.2f}  {rate(tot['probe']):8.3f}  "
                  f"{rate(tot['reprobe']):14.3f}  {retention:9.3f}  {rate(tot['update']):9.3f}",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
