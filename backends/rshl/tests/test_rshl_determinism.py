"""Bit-identical across processes, whatever PYTHONHASHSEED is.

For every encoder, three processes with different string-hash seeds run the smoke scenario's whole
script (sleep included) through the backend and print every score and strength
as a float's hex, plus a hash of the saved lattice: the outputs must be equal.
Before iteration orders were fixed, scores and strengths differed by ~1e-9.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
import hashlib, sys, tempfile
from pathlib import Path
from memory_bench import BackendContext
from memory_bench.harness.pair import generate_script
from memory_bench.plugins import load_plugins
from memory_bench.scenarios.script import Consolidate, Probe, ReadStrength, Write
from memory_bench.scenarios.spec import load_scenario

plugins = load_plugins(autoload=True)
scenario = load_scenario("smoke", {"consolidate": "true"}, registry=plugins.scenarios)
script = generate_script(plugins, scenario.ref(), 0).bind("bench-det-s0-")
info = plugins.registry.get("rshl")
options = {o.name: o.default for o in info.options}
options["encoder"] = sys.argv[1]
work = Path(tempfile.mkdtemp())
backend = info.factory(options, BackendContext(work, 0, "det"))
out = []
for step in script.steps:
    if isinstance(step, Write):
        out += [f"{r.id} {r.accepted} {r.reason} {r.merged_into}"
                for r in backend.write(list(step.items))]
    elif isinstance(step, Probe):
        out += [f"{h.id} {float(h.score).hex()} {float(h.strength).hex()}"
                for h in backend.query(step.question, script.k)]
    elif isinstance(step, ReadStrength):
        out += [float(v).hex() for v in backend.strength(list(step.ids))]
    elif isinstance(step, Consolidate):
        out.append(repr(sorted(backend.consolidate().items())))
backend.close()
store = work / "lattice"
for p in sorted(store.iterdir()):
    out.append(p.name + " " + hashlib.sha256(p.read_bytes()).hexdigest())
sys.stdout.write("\n".join(out))
"""


def _run(hashseed: str, cwd: Path, encoder: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hashseed, "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0"}
    env.pop("MEMORY_BENCH_PLUGINS", None)
    out = subprocess.run([sys.executable, "-c", SCRIPT, encoder], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("encoder", [
    "lexical",
    pytest.param("dense", marks=pytest.mark.slow),  # loads the embedding model
    pytest.param("hybrid", marks=pytest.mark.slow),
])
def test_scores_strengths_and_saved_bytes_do_not_depend_on_the_hash_seed(
        tmp_path: Path, encoder: str) -> None:
    first = _run("1", tmp_path, encoder)
    assert len(first.splitlines()) > 200 and "meta.json" in first
    assert ("vec.npy" in first) == (encoder != "lexical")
    assert _run("2", tmp_path, encoder) == first
    assert _run("31337", tmp_path, encoder) == first
