"""Check that a continual scenario is fair on a range of seeds: every question has exactly
one correct stored item when it is asked, and distinct people never share a name; and that
its stream cannot be read from order or form (``leaks.py``: answers in the write before
their question, re-probes asked word for word, final marks by kind, tense words).

    python scripts/check_fairness.py [SCENARIO] [FIRST_SEED] [LAST_SEED]

Defaults: the hard scenario, seeds 0-99 (the tests check the published seeds 0-9).
Prints one line per seed with a violation, the leak measures of the first seed, and a
summary; exits 1 on any violation or leak beyond its bound.
"""

from __future__ import annotations

import importlib
import sys

from memory_bench.plugins import load_plugins
from memory_bench.scenarios.builtin import continual_data, continual_script_of
from memory_bench.scenarios.continual.fairness import fairness_violations
from memory_bench.scenarios.continual.leaks import leak_violations, stream_leaks
from memory_bench.scenarios.spec import load_scenario

RENDERINGS = {"hard": "memory_bench.scenarios.generators.hard",
              "templated": "memory_bench.scenarios.generators.templated"}


def main(name: str = "hard", first: str = "0", last: str = "99") -> int:
    spec = load_scenario(name, registry=load_plugins(autoload=False).scenarios)
    renders = (importlib.import_module(RENDERINGS[spec.generator]).renderings
               if spec.generator in RENDERINGS else None)
    bad = 0
    seeds = range(int(first), int(last) + 1)
    for seed in seeds:
        data = continual_data(spec, seed)
        script = continual_script_of(spec, data)
        leaks = stream_leaks(script, data)
        found = leak_violations(leaks)
        if renders is not None:  # the answer key is kept by these generators
            found = fairness_violations(data, renders, script) + found
        for line in found[:5]:
            print(f"seed {seed}: {line}" if not line.startswith("seed") else line)
        if seed == seeds[0]:
            print(f"seed {seed} leaks: " + ", ".join(
                f"{k} {v:.3f}" for k, v in leaks.items() if isinstance(v, float)))
        bad += bool(found)
    what = "fairness and leaks" if renders is not None else "leaks only (no answer key)"
    print(f"{spec.name}: {len(seeds)} seed(s) checked ({what}), {bad} with a violation")
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
