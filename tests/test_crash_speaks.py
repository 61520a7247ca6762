"""A backend's native crash (a signal, not an exception) is named in one line: the
plugin or backend, the signal and the phase, exit 1; what a crashed run claimed does
not block the same command (memory_bench.crashguard, tests/segv_plugin.py)."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest

SEGV = {"MEMORY_BENCH_PLUGINS": "fake_backends,segv_plugin"}
RUN = ("--scenario", "smoke", "--seed", "0", "--quiet")


def _one_line(out: subprocess.CompletedProcess[str]) -> str:
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    return lines[0]


@pytest.mark.parametrize("command", [("check",), ("run", "--backend", "fake-perfect", *RUN),
                                     ("backends",)])
def test_segfault_on_import_is_named(cli, command: tuple[str, ...]) -> None:
    out = cli(*command, env_extra={**SEGV, "SEGV_ON": "import"})
    assert out.returncode == 1, (out.returncode, out.stderr)
    line = _one_line(out)
    assert line.startswith("memory-bench: error: plugin segv_plugin ")
    assert "signal 11 (SIGSEGV) during its import" in line


def test_segfault_in_registration_hook_is_named(cli) -> None:
    out = cli("check", env_extra={**SEGV, "SEGV_ON": "hook"})
    assert out.returncode == 1
    assert "plugin segv_plugin died by signal 11 (SIGSEGV) during its registration hook" \
        in _one_line(out)


def test_segfault_in_preload_frees_the_out_for_the_next_run(cli) -> None:
    out = cli("run", "--backend", "segv-preload", *RUN, "--out", "r.json", env_extra=SEGV)
    assert out.returncode == 1
    line = _one_line(out)
    assert "backend segv-preload (plugin segv_plugin" in line
    assert "signal 11 (SIGSEGV) during its preload" in line and "r.pairs removed" in line
    assert not (cli.cwd / "r.pairs").exists() and not (cli.cwd / "r.json").exists()
    again = cli("run", "--backend", "fake-perfect", *RUN, "--out", "r.json", env_extra=SEGV)
    assert again.returncode == 0, again.stderr
    assert json.loads((cli.cwd / "r.json").read_text())["status"] == "complete"


@pytest.mark.parametrize(("spec", "check"), [("segv-query", "query"),
                                             ("segv-factory", "write")])
def test_segfault_in_a_check_names_backend_and_check(cli, spec: str, check: str) -> None:
    out = cli("check", spec, env_extra=SEGV)
    assert out.returncode == 1
    line = _one_line(out)
    assert f"backend {spec} (plugin segv_plugin" in line
    assert f"signal 11 (SIGSEGV) during the conformance check `{check}`" in line


def test_segfault_in_a_forked_pair_names_the_step(cli) -> None:
    out = cli("run", "--backend", "segv-query", "--backend", "fake-perfect", *RUN,
              "--out", "r.json", env_extra=SEGV)
    assert out.returncode == 1
    assert "segv-query seed 0: failed: process died: signal 11 (SIGSEGV) during step" \
        in out.stdout
    doc = json.loads((cli.cwd / "r.json").read_text())
    assert [r["status"] for b in doc["backends"] for r in b["runs"]] == ["failed", "ok"]


def test_segfault_in_a_local_pair_says_how_to_resume(cli) -> None:
    out = cli("run", "--backend", "segv-query", *RUN, "--out", "r.json", "--executor", "local",
              env_extra=SEGV)
    assert out.returncode == 1
    line = _one_line(out)
    assert "backend segv-query died by signal 11 (SIGSEGV) during its pair with seed 0" in line
    assert "memory-bench run --resume r.json" in line and (cli.cwd / "r.json").exists()


def test_sigterm_to_the_command_reaches_the_run(cli) -> None:
    """The guard's parent passes a signal sent to its pid on to the command: exit 130."""
    import os
    import sys
    from pathlib import Path

    from conftest import TESTS

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get(
        "PYTHONPATH", "")]), "MEMORY_BENCH_PLUGINS": "fake_backends",
        "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1"}
    exe = Path(sys.executable).parent / "memory-bench"
    proc = subprocess.Popen([str(exe), "run", "--backend", "fake-perfect", "--scenario", "smoke",
                             "--seeds", "200", "--out", "r.json", "--quiet"], cwd=cli.cwd,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 120  # once the run has claimed its result: past start-up
    while not (cli.cwd / "r.pairs").exists() and proc.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip() and len(err.strip().splitlines()) == 1


def test_in_process_main_is_not_forked() -> None:
    """``main([...])`` from Python (tests, a notebook) runs here: no watching parent."""
    from memory_bench.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
