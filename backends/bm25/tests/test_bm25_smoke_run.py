"""bm25 end to end: the real CLI runs the smoke scenario and writes a result file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def test_smoke_scenario_through_the_cli(tmp_path: Path) -> None:
    out = tmp_path / "smoke.json"
    exe = Path(sys.executable).parent / "memory-bench"
    cmd = [str(exe), "run", "--backend", "bm25", "--scenario", "smoke", "--seed", "0"]
    cmd += ["--out", str(out), "--quiet", "--no-cache"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (backend,) = json.loads(out.read_text())["backends"]
    (run,) = backend["runs"]
    assert run["status"] == "ok", run.get("error")
    assert run["cleanup"]["ok"] and run["cleanup"]["left"] == 0
    m = run["metrics"]
    assert m["recall1_before"] >= 0.9  # templated facts share their subject's name
    assert m["provenanceAccuracy"] == m["recall1_before"]  # every hit names its source
    assert m["gateRecall"] is None and m["strengthDelta"] is None
    assert m["staleRate"] == 1.0  # a frozen lexical store never erases
