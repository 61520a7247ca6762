"""Check that a continual scenario is fair on a range of seeds: every question has exactly
one correct stored item when it is asked, and distinct people never share a name.

    python scripts/check_fairness.py [SCENARIO] [FIRST_SEED] [LAST_SEED]

Defaults: the hard scenario, seeds 0-99 (the tests check the published seeds 0-9).
Prints one line per seed with a violation and a summary; exits 1 on any violation.
"""

from __future__ import annotations

import importlib
import sys

from memory_bench.plugins import load_plugins
from memory_bench.scenarios.builtin import continual_data
from memory_bench.scenarios.continual.fairness import fairness_violations
from memory_bench.scenarios.spec import load_scenario

RENDERINGS = {"hard": "memory_bench.scenarios.generators.hard",
              "templated": "memory_bench.scenarios.generators.templated"}


def main(name: str = "hard", first: str = "0", last: str = "99") -> int:
    spec = load_scenario(name, registry=load_plugins(autoload=False).scenarios)
    if spec.generator not in RENDERINGS:
        print(f"no fairness check for the {spec.generator} generator "
              f"(checked: {', '.join(RENDERINGS)})", file=sys.stderr)
        return 2
    renders = importlib.import_module(RENDERINGS[spec.generator]).renderings
    bad = 0
    seeds = range(int(first), int(last) + 1)
    for seed in seeds:
        found = fairness_violations(continual_data(spec, seed), renders)
        for line in found[:5]:
            print(line)
        bad += bool(found)
    print(f"{spec.name}: {len(seeds)} seed(s) checked, {bad} with a violation")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
