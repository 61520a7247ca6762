"""neural-memory end to end: the real CLI runs the smoke scenario, linear and MLP."""

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
    cmd = [str(exe), "run", "--scenario", "smoke", "--seed", "0", "--out", str(out), "--quiet"]
    cmd += ["--backend", "neural-memory", "--backend", "neural-memory:memory=mlp"]
    cmd += ["--cache-dir", str(tmp_path / "cache")]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    backends = json.loads(out.read_text())["backends"]
    assert [b["options"]["memory"] for b in backends] == ["linear", "mlp"]
    for backend in backends:
        assert backend["capabilities"] == []
        (run,) = backend["runs"]
        assert run["status"] == "ok", run.get("error")
        assert run["cleanup"]["ok"] and run["cleanup"]["left"] == 0
        m = run["metrics"]
        assert m["recall1_before"] >= 0.5
        assert m["provenanceAccuracy"] == 0.0  # by construction: no source, no timestamp
        assert m["gateRecall"] is None and m["strengthDelta"] is None
