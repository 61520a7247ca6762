"""A broken plugin is hard to miss: `plan` and `run` print it on one line of stderr, a
run of every backend exits 1 without it, the report's caveats name it; and output
piped into a reader that leaves (`| head`) ends quietly, with the run saved."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memory_bench.render.caveats import caveats
from memory_bench.results.io import load_result

TESTS = Path(__file__).resolve().parent
BROKEN = {"MEMORY_BENCH_PLUGINS": "fake_backends,broken_plugin"}
SMOKE = ("--scenario", "smoke", "--seed", "0")
LINE = ("memory-bench: warning: plugin broken_plugin (from $MEMORY_BENCH_PLUGINS) failed to load: "
        "ImportError: this plugin is broken on purpose (missing dependency 'nonexistent'); "
        "its backends are not available")


def test_plan_prints_each_broken_plugin_on_one_stderr_line(cli) -> None:
    out = cli("plan", "--backend", "fake-perfect", *SMOKE, env_extra=BROKEN)
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [LINE]
    assert "fake-perfect" in out.stdout


def test_run_prints_it_and_a_run_of_every_backend_exits_1(cli) -> None:
    named = cli("run", "--backend", "fake-perfect", *SMOKE, "--out", "a.json", "--quiet",
                env_extra=BROKEN)
    assert named.returncode == 0, named.stderr
    assert named.stderr.splitlines() == [LINE]
    every = cli("run", *SMOKE, "--out", "b.json", "--quiet", env_extra=BROKEN)
    assert every.returncode == 1  # "every backend" was asked for and one plugin is missing
    assert every.stderr.splitlines().count(LINE) == 1
    result = load_result(cli.cwd / "b.json")
    assert result.manifest["broken_plugins"][0]["entry_point"] == "broken_plugin"
    (caveat,) = [c for c in caveats(result) if "failed to load" in c]
    assert caveat.startswith("A plugin failed to load and is not in this comparison: "
                             "broken_plugin ($MEMORY_BENCH_PLUGINS): ImportError: ")
    report = cli("report", "b.json")
    assert "A plugin failed to load and is not in this comparison" in report.stdout


def _closed_pipe(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the CLI with stdout a pipe whose reader has already left, as `| head` does
    once it has its lines."""
    env = {**os.environ, "PYTHONPATH": str(TESTS), "MEMORY_BENCH_PLUGINS": "fake_backends",
           "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1"}
    read, write = os.pipe()
    os.close(read)
    try:
        exe = Path(sys.executable).parent / "memory-bench"
        return subprocess.run([str(exe), *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, cwd=cwd, env=env, timeout=600)
    finally:
        os.close(write)


def test_output_into_a_reader_that_left_ends_quietly(cli) -> None:
    listed = _closed_pipe("backends", cwd=cli.cwd)
    assert listed.returncode == 0 and listed.stderr == ""
    run = _closed_pipe("run", "--backend", "fake-perfect", "--backend", "fake-broken-query",
                       *SMOKE, "--out", "r.json", "--save", "--quiet", cwd=cli.cwd)
    assert "Traceback" not in run.stderr and "BrokenPipe" not in run.stderr, run.stderr
    assert run.returncode == 1  # the failing pair still decides the exit status
    assert json.loads((cli.cwd / "r.json").read_text())["status"] == "complete"
    assert len(list((cli.cwd / "reports").glob("*.md"))) == 1  # and --save still saved
