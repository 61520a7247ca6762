"""Running Python in a child with the network guard installed before anything else.

``run_guarded(code, tmp)`` runs ``code`` in a fresh interpreter whose first import
is ``network_guard`` (every non-loopback connection and DNS lookup recorded and
refused), with ``HOME`` pointed at an empty directory (so a library that writes
to the home directory is caught too) and, where the kernel allows it, inside a
network namespace of its own (``unshare -rn``: no network at all). The code
prints one JSON object as its last line; the answer adds what was attempted.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent

__all__ = ["run_guarded"]


def run_guarded(code: str, tmp: Path, *, timeout: float = 900) -> dict[str, Any]:
    home = tmp / "home"
    home.mkdir(parents=True, exist_ok=True)
    script = tmp / "guarded_child.py"
    script.write_text("import network_guard\n" + textwrap.dedent(code) + textwrap.dedent("""
        import json as _json
        print(_json.dumps({**RESULT, "attempts": network_guard.attempts()}))
        """))
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(HOME=str(home), PYTHONPATH=os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")]))
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "MEM0_TELEMETRY", "MEM0_DIR"):
        env.pop(var, None)  # the backends must set what they need themselves
    # The shared embedder's exported ONNX model: this machine's, not the guarded home's
    # (an export is a build of the installed weights; the home must stay the backends').
    with contextlib.suppress(ImportError):
        from memory_bench_embed import models_dir

        env.setdefault("MEMORY_BENCH_CACHE", str(models_dir().parent))
    cmd = [sys.executable, str(script)]
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        cmd = [unshare, "-rn", *cmd]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=tmp)
    assert out.returncode == 0, out.stderr[-4000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    got["home"] = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    return got
