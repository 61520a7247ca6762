"""Shared fixtures: the fake plugins, loaded the way the CLI loads plugins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


@pytest.fixture
def fake_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the fake plugins, found through MEMORY_BENCH_PLUGINS (no entry points)."""
    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.setenv("MEMORY_BENCH_PLUGINS", "fake_backends")
    monkeypatch.setenv("MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD", "1")


def run_cli(*args: str, cwd: Path, env_extra: dict[str, str] | None = None,
            fakes_only: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the real ``memory-bench`` entry point in a subprocess."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    if fakes_only:
        env["MEMORY_BENCH_PLUGINS"] = "fake_backends"
        env["MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env.update(env_extra or {})
    exe = Path(sys.executable).parent / "memory-bench"
    return subprocess.run([str(exe), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture
def cli(tmp_path: Path):
    """Run the CLI in a fresh directory holding a copy of scenarios/."""
    import shutil

    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")

    def _run(*args: str, **kw):
        return run_cli(*args, cwd=tmp_path, **kw)

    _run.cwd = tmp_path
    return _run
