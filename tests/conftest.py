"""Shared fixtures: the fake plugins, loaded the way the CLI loads plugins."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
# Every run of a continual scenario fits a small leak scan at its start (seconds of CPU);
# the suite's hundreds of tiny runs skip it, and test_leak_scan.py turns it on where it
# is the subject (subprocesses inherit the setting).
os.environ.setdefault("MEMORY_BENCH_LEAK_SCAN", "off")


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


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test plugin packages (tests/plugins/), found through their entry points
    when this directory is on sys.path / PYTHONPATH. See plugin_site.py."""
    from plugin_site import build_site

    return build_site(tmp_path_factory.mktemp("plugin-site"))


@pytest.fixture
def site_cli(cli, plugin_site: Path):
    """``cli`` with the test plugins found through entry points, plus the fake backends."""

    def _run(*args: str, env_extra: dict[str, str] | None = None, **kw):
        env = {
            "PYTHONPATH": os.pathsep.join([str(plugin_site), str(TESTS)]),
            "MEMORY_BENCH_PLUGINS": "fake_backends",
            "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0",
            **(env_extra or {}),
        }
        return cli(*args, env_extra=env, fakes_only=False, **kw)

    _run.cwd = cli.cwd
    return _run
