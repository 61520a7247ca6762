"""Reliability, second pass (issue 16): concurrent runs on one result, crash paths that
must end in a status and one line, temporary folders after ``kill -9``, and no path of
the machine in any file a run writes."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from memory_bench.errors import Interrupted
from memory_bench.results.io import load_result
from memory_bench.results.pairs import pairs_dir_for

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
HOSTILE = {"MEMORY_BENCH_PLUGINS": "fake_backends,hostile_plugin,scenario_plugin"}


def _popen(site_cli, plugin_site: Path, *args: str, env_extra: dict | None = None
           ) -> subprocess.Popen:
    exe = Path(sys.executable).parent / "memory-bench"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_site), str(TESTS)]),
           "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0", "MEMORY_BENCH_PLUGINS": "fake_backends",
           **(env_extra or {})}
    return subprocess.Popen([str(exe), *args], cwd=site_cli.cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _wait(predicate, what: str, proc: subprocess.Popen | None = None, limit: float = 120):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"process ended before {what}: {proc.stderr.read()}")
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def _holder_pid(result: Path) -> int | None:
    try:
        return json.loads((pairs_dir_for(result) / ".lock").read_text())["pid"]
    except (OSError, ValueError, KeyError):
        return None


def _one_line(out: subprocess.CompletedProcess) -> str:
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    return lines[0]


SLOW = ("--backend", "json-store:slow_ms=100", "--scenario", "smoke", "--quiet")


def _held(site_cli) -> tuple[Path, tuple[str, ...]]:
    """A hold file and the arguments of a run whose queries wait while it exists: the
    run stays open as long as the test needs, and ends as soon as it is removed."""
    hold = site_cli.cwd / "hold"
    hold.touch()
    return hold, ("--backend", f"json-store:hold={hold}", "--scenario", "smoke", "--quiet")


def test_two_runs_on_one_out_exactly_one_runs(site_cli, plugin_site: Path) -> None:
    hold, held = _held(site_cli)
    first = _popen(site_cli, plugin_site, "run", *held, "--seeds", "2", "--out", "r.json")
    result = site_cli.cwd / "r.json"
    _wait(lambda: _holder_pid(result) == first.pid and result.exists(), "the first run", first)
    for out in ("r.json", "r.json.gz", "./r.json"):  # the same result, however it is named
        second = site_cli("run", *held, "--seed", "0", "--out", out)
        assert second.returncode == 2
        line = _one_line(second)
        assert f"another run is writing this result: pid {first.pid}" in line, line
    hold.unlink()
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    doc = load_result(result)
    assert doc.status == "complete" and [r.seed for r in doc.backends[0].runs] == [0, 1]
    assert not (site_cli.cwd / "r.json.gz").exists()
    late = site_cli("run", *held, "--seed", "0", "--out", "r.json")  # after: an old result
    assert late.returncode == 2 and "never overwrites" in _one_line(late)


def test_two_runs_started_together_on_one_out_exactly_one_runs(site_cli,
                                                               plugin_site: Path) -> None:
    """Both pass the plan's "does it exist" check; only one can claim the result (the
    winner is held open until the loser has ended)."""
    hold, held = _held(site_cli)
    runs = [_popen(site_cli, plugin_site, "run", *held, "--seed", "0", "--out", "r.json")
            for _ in range(2)]
    _wait(lambda: any(p.poll() is not None for p in runs), "one of the two runs to end")
    hold.unlink()
    outs = [p.communicate(timeout=300) for p in runs]
    codes = sorted(p.returncode for p in runs)
    assert codes == [0, 2], outs
    loser = next(err for p, (_, err) in zip(runs, outs, strict=True) if p.returncode == 2)
    assert len(loser.strip().splitlines()) == 1 and "r.json" in loser, loser
    winner = next(p for p in runs if p.returncode == 0)
    assert load_result(site_cli.cwd / "r.json").status == "complete"
    assert _holder_pid(site_cli.cwd / "r.json") == winner.pid  # the last holder, on record


def test_two_resumes_at_once_exactly_one_runs(site_cli, plugin_site: Path) -> None:
    result = site_cli.cwd / "r.json"
    run = _popen(site_cli, plugin_site, "run", *SLOW, "--seeds", "3", "--out", "r.json")
    _wait(lambda: len(list(pairs_dir_for(result).glob("*.json"))) >= 1, "a finished pair", run)
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130 and "--resume" in err, err
    assert load_result(result).status == "interrupted"
    first = _popen(site_cli, plugin_site, "run", "--resume", "r.json", "--save", "--quiet")
    _wait(lambda: _holder_pid(result) == first.pid, "the first resume", first)
    second = site_cli("run", "--resume", "r.json", "--save", "--quiet")
    assert second.returncode == 2
    assert f"another run is writing this result: pid {first.pid}" in _one_line(second)
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert load_result(result).status == "complete"
    assert len(list((site_cli.cwd / "reports").glob("*.md"))) == 1  # one report set


@pytest.mark.parametrize("value", ["inf", "1e12", "nan", "-1", "0", "soon"])
def test_a_timeout_that_is_not_a_finite_bound_is_refused(cli, value: str) -> None:
    out = cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
              "--timeout", value, "--out", "r.json")
    assert out.returncode == 2
    line = _one_line(out)
    assert line.startswith("memory-bench: error: argument --timeout:"), line
    assert line.endswith("(see `memory-bench run --help`)"), line
    assert not (cli.cwd / "r.json").exists() and not (cli.cwd / "r.pairs").exists()


@pytest.mark.parametrize("args", [["run", "--bogus"], ["run", "--seeds", "x"],
                                  ["report"], ["nonsense"], ["run", "--seed", "-1"]])
def test_argparse_errors_are_one_line_and_a_pointer_to_help(cli, args: list[str]) -> None:
    out = cli(*args)
    assert out.returncode == 2
    line = _one_line(out)
    assert line.startswith("memory-bench: error: ") and "--help`)" in line, line
    assert "usage:" not in out.stderr


def test_a_failure_outside_any_pair_ends_failed_not_running(cli) -> None:
    """MemoryError while generating seed 1 (after seed 0 was generated and the file
    written): one line, exit 1, the file says failed with the error."""
    (cli.cwd / "scenarios" / "oom.toml").write_text('generator = "oom"\n')
    out = cli("run", "--backend", "fake-perfect", "--scenario", "oom", "--seeds", "2",
              "--out", "r.json", "--quiet", env_extra=HOSTILE)
    assert out.returncode == 1
    assert "MemoryError: gate items for 10^9 cells" in _one_line(out)
    doc = load_result(cli.cwd / "r.json")
    assert doc.status == "failed" and "MemoryError" in (doc.error or "")


def test_ctrl_c_in_the_preload_says_nothing_was_written(cli) -> None:
    exe = Path(sys.executable).parent / "memory-bench"
    env = {**os.environ, "PYTHONPATH": str(TESTS), "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1",
           **HOSTILE}
    proc = subprocess.Popen([str(exe), "run", "--backend", "slow-preload", "--scenario",
                             "smoke", "--seed", "0", "--out", "r.json", "--quiet"],
                            cwd=cli.cwd, env=env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    _wait(lambda: (cli.cwd / "preloading").exists(), "the preload", proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip() == ("memory-bench: interrupted before the run started; nothing was "
                           "written"), err
    assert sorted(p.name for p in cli.cwd.iterdir()) == ["preloading", "scenarios"]


def test_a_second_ctrl_c_cannot_stop_the_write_that_records_the_first(
        fake_env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first Ctrl-C ends the run; a second one arrives while the final state is being
    written: the file still says interrupted (never running), then the interrupt is raised."""
    from memory_bench.harness import runner
    from memory_bench.harness.runner import RunConfig
    from memory_bench.plugins import load_plugins
    from memory_bench.plugins.selection import select_backends
    from memory_bench.scenarios.spec import load_scenario
    from memory_bench.session.pipeline import execute

    plugins = load_plugins()
    sels = select_backends(plugins.registry, ["fake-perfect"])
    real = runner.write_result
    seen = []

    def interrupt_while_writing(path, result, **kw) -> None:
        seen.append(result.status)
        if result.status == "interrupted":
            os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, mid-write
            time.sleep(0.2)
        real(path, result, **kw)

    monkeypatch.setattr(runner, "write_result", interrupt_while_writing)
    monkeypatch.setattr(runner, "_pending", lambda *a, **k: (_ for _ in ()).throw(
        KeyboardInterrupt()))  # the first Ctrl-C, as the pairs start
    out = tmp_path / "r.json"
    cfg = RunConfig(plugins=plugins, selections=sels, scenario=load_scenario(
        "smoke", registry=plugins.scenarios), seeds=[0], out=out, executor="local")
    with pytest.raises(Interrupted):  # the session's name for the KeyboardInterrupt
        execute(cfg)
    assert seen == ["running", "interrupted"]
    assert json.loads(out.read_text())["status"] == "interrupted"


def _memory_bench_dirs(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("memory-bench"))


def test_kill_9_leaves_no_temporary_folders_after_the_next_run(site_cli, plugin_site: Path,
                                                               tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {"TMPDIR": str(tmp)}
    run = _popen(site_cli, plugin_site, "run", *SLOW, "--seeds", "3", "--out", "k.json",
                 env_extra=env)
    _wait(lambda: any(tmp.glob("memory-bench-run-*/memory-bench-json-store-*")),
          "a pair's workdir", run)
    run.send_signal(signal.SIGKILL)
    run.wait(30)
    run.stdout.close()
    run.stderr.close()
    left = _memory_bench_dirs(tmp)
    assert left and all(n.startswith("memory-bench-run-") for n in left), left
    again = site_cli("run", *SLOW, "--seed", "0", "--out", "again.json", env_extra=env)
    assert again.returncode == 0, again.stderr
    assert _memory_bench_dirs(tmp) == []


def _strings(path: Path) -> str:
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    return raw.decode("latin-1")


def test_no_file_a_run_writes_holds_a_path_of_the_machine(site_cli) -> None:
    """A failing pair's traceback, a live store, a saved report set: none of the files
    names the working directory, the home directory, the temporary directory, the
    checkout or the Python installation."""
    out = site_cli("run", "--backend", "fake-perfect", "--backend", "fake-broken-query",
                   "--backend", "json-store:path=store", "--scenario", "smoke", "--seed", "0",
                   "--out", "runs/r.json", "--save", "--quiet")
    assert out.returncode == 1, out.stderr
    doc = load_result(site_cli.cwd / "runs" / "r.json")
    assert "Traceback" in (doc.backends[1].runs[0].traceback or "")
    forbidden = {str(site_cli.cwd), str(Path.home()), tempfile.gettempdir() + "/", str(ROOT),
                 sys.prefix, sys.base_prefix}
    written = [p for p in site_cli.cwd.rglob("*") if p.is_file() and p.parts[-2] != "scenarios"
               and "store" not in p.parts]
    assert {p.suffix for p in written} >= {".json", ".gz", ".md", ".html", ".csv", ".png"}
    for path in written:
        text = _strings(path)
        found = sorted(f for f in forbidden if f in text)
        assert found == [], (path.relative_to(site_cli.cwd), found)


@pytest.mark.parametrize(("spec", "message"), [
    ("rshl:dim=100", "option dim: 100 is not a multiple of 64"),
    ("rshl:eta=nan", "option eta: NaN is not a number it accepts"),
    ("rshl:merge_cosine=nan", "option merge_cosine: NaN is not a number it accepts"),
    ("rshl:path=notes", "is a directory holding other files, not an RSHL lattice"),
    ("faiss-rag:model=/nonexistent", "option model: '/nonexistent' is neither a model "
                                     "directory"),
])
def test_installed_backends_options_are_refused_before_any_pair_runs(cli, spec: str,
                                                                    message: str) -> None:
    pytest.importorskip("memory_bench_rshl")
    pytest.importorskip("memory_bench_faiss_rag")
    (cli.cwd / "notes").mkdir()
    (cli.cwd / "notes" / "todo.txt").write_text("mine")
    out = cli("run", "--backend", spec, "--scenario", "smoke", "--seed", "0", "--out", "r.json",
              env_extra={"MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0", "MEMORY_BENCH_PLUGINS": ""})
    assert out.returncode == 2
    assert message in _one_line(out)
    assert sorted(p.name for p in cli.cwd.iterdir()) == ["notes", "scenarios"]
    assert (cli.cwd / "notes" / "todo.txt").read_text() == "mine"


@pytest.mark.parametrize(("args", "message"), [
    (["--scenario", ""], "--scenario is empty: give a scenario name or a TOML file"),
    (["--scenario", "   "], "--scenario is empty"),
    (["--scenario", "empty.toml"], "is empty: it must name a generator"),
])
def test_an_empty_scenario_is_an_error_not_the_defaults(cli, args: list[str],
                                                        message: str) -> None:
    (cli.cwd / "empty.toml").write_text("# nothing but a comment\n")
    out = cli("run", "--backend", "fake-perfect", *args, "--out", "r.json")
    assert out.returncode == 2 and message in _one_line(out)
    assert not (cli.cwd / "r.json").exists()
