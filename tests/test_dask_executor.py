"""The dask executor on a real LocalCluster (127.0.0.1 only): the same numbers as the
process executor, failures recorded pair by pair, a killed worker costing only its
pair, Ctrl-C leaving a resumable run, and ``--resume`` across executors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from conftest import TESTS

from memory_bench.harness.executors.dask_executor import DaskExecutor, _host
from memory_bench.harness.runner import RunConfig
from memory_bench.metrics.latency import TIMINGS as TIMING
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.results.io import load_result
from memory_bench.scenarios.spec import load_scenario
from memory_bench.session.pipeline import execute

PLUGINS = "fake_backends,memory_bench_test_hanging.plugin"


@pytest.fixture
def worker_env(plugin_site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake and misbehaving test backends, in this process and in every worker a
    cluster started from it spawns (workers inherit the environment and sys.path)."""
    from memory_bench.contract import forksafety

    monkeypatch.setattr(forksafety, "_GUARDS", [])  # these backends never run torch
    for path in (TESTS, plugin_site):
        monkeypatch.syspath_prepend(str(path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), str(plugin_site)]))
    monkeypatch.setenv("MEMORY_BENCH_PLUGINS", PLUGINS)
    monkeypatch.setenv("MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD", "1")


def _config(tmp_path: Path, specs: list[str], seeds=(0,), **kw) -> RunConfig:
    loaded = load_plugins()
    return RunConfig(plugins=loaded, selections=select_backends(loaded.registry, specs),
                     scenario=load_scenario("smoke", registry=loaded.scenarios), seeds=list(seeds),
                     out=tmp_path / "r.json", **kw)


def _runs(result) -> dict:
    return {b.label: b.runs for b in result.backends}


def _quality(result) -> dict:
    return {(b.label, r.seed): {k: v for k, v in r.metrics.items() if k not in TIMING}
            for b in result.backends for r in b.runs}


def test_host_of_a_worker_address() -> None:
    assert _host("tcp://127.0.0.1:40123") == "127.0.0.1"
    assert _host("tls://[::1]:8786") == "::1"
    assert _host(None) is None and _host("nonsense") is None


def test_dask_is_imported_only_when_chosen() -> None:
    code = ("import sys, memory_bench.cli, memory_bench.harness.runner; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_same_numbers_as_the_process_executor(cli) -> None:
    """The issue's check: rshl and bm25 on smoke, 2 seeds, dask with 2 workers against
    the process executor. Every quality metric and every probe's returned ids agree."""
    common = ("run", "--backend", "rshl", "--backend", "bm25", "--scenario", "smoke",
              "--seeds", "2", "--quiet")
    d = cli(*common, "--executor", "dask", "--workers", "2", "--out", "d.json",
            fakes_only=False)
    assert d.returncode == 0, d.stderr
    p = cli(*common, "--executor", "process", "--out", "p.json", fakes_only=False)
    assert p.returncode == 0, p.stderr
    a, b = load_result(cli.cwd / "d.json"), load_result(cli.cwd / "p.json")
    assert a.execution["executor"] == "dask" and a.execution["workers"] == 2
    qa, qb = _quality(a), _quality(b)
    assert qa.keys() == qb.keys() and len(qa) == 4
    for key in qa:
        assert qa[key].keys() == qb[key].keys()
        for name, value in qa[key].items():
            if value is None or qb[key][name] is None:
                assert value is qb[key][name], (key, name)
                continue
            # rshl's strengthDelta differs in its ninth digit between two runs of the
            # *same* executor (float32 sums); every other metric is exactly equal.
            assert value == pytest.approx(qb[key][name], rel=1e-6, abs=1e-9), (key, name)
            if name != "strengthDelta":
                assert value == qb[key][name], (key, name)
    for ea, eb in zip(a.backends, b.backends, strict=True):
        for ra, rb in zip(ea.runs, eb.runs, strict=True):
            assert [[i.replace(a.run_id, "") for i in p.returned] for p in ra.records.probes
                    ] == [[i.replace(b.run_id, "") for i in p.returned] for p in rb.records.probes]
    pids = {r.worker["pid"] for e in a.backends for r in e.runs}
    assert os.getpid() not in pids and len(pids) <= 2


def test_raise_hang_and_die_are_recorded_and_others_complete(tmp_path: Path,
                                                            worker_env) -> None:
    t0 = time.monotonic()
    result = execute(_config(
        tmp_path, ["hang-query", "die-query", "fake-broken-query",
                   "json-store:misbehave=exit", "fake-perfect"],
        # (8 s, not less: every pair gets the same limit, and on a loaded two-core machine
        # the good pair, started on a worker that was just restarted, once took over 3 s)
        executor="dask", workers=2, timeout=8))
    assert time.monotonic() - t0 < 240
    runs = _runs(result)
    hang = runs["hang-query"][0]
    assert hang.status == "timeout"
    assert hang.error == "timeout: no result after 8 s; worker restarted"
    broken = runs["fake-broken-query"][0]
    assert (broken.status, broken.error) == ("failed", "RuntimeError: index corrupted")
    # A pair that kills its worker runs once more (recorded), then is failed.
    for label in ("die-query", "json-store:misbehave=exit"):
        run = runs[label][0]
        assert run.status == "failed", (label, run)
        assert run.error.startswith("the worker running the pair died (tcp://127.0.0.1:")
        assert run.worker["attempts"] == 2
        assert any(w.startswith("attempt 1: the worker running the pair died")
                   for w in run.warnings), run.warnings
        assert run.metrics == {} and run.records is None
        assert run.cleanup is not None and run.cleanup.ok, run.cleanup
    assert runs["json-store:misbehave=exit"][0].cleanup.by == "harness, store reopened"
    ok = runs["fake-perfect"][0]
    assert ok.status == "ok" and ok.metrics["recall1_before"] == 1.0 and not ok.warnings
    saved = load_result(tmp_path / "r.json")
    assert saved.status == "complete"
    assert saved.execution["executor"] == "dask" and saved.execution["timeout_s"] == 8


def test_a_worker_killed_mid_pair_costs_only_that_pair(tmp_path: Path, worker_env) -> None:
    """SIGKILL the worker while it runs a pair of a persistent store: that pair is run
    again (and says so), its store ends empty, and every other pair is untouched."""
    store = tmp_path / "store"
    cfg = _config(tmp_path, [f"json-store:path={store},slow_ms=40", "fake-perfect"],
                  seeds=(0, 1), executor="dask", workers=2, timeout=300)
    ex = DaskExecutor(cfg.plugins, None, timeout=cfg.timeout, workers=2)
    ex.preload(cfg.selections, None)  # starts the cluster (the runner's call repeats it)
    worker_pids = set(ex.client.run(os.getpid).values())
    killed: list[int] = []

    def kill_first_worker_that_opens_the_store() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            for f in (store / "pids").glob("*") if (store / "pids").is_dir() else ():
                if int(f.name) in worker_pids:
                    time.sleep(0.3)  # mid-pair: it has written and is answering queries
                    os.kill(int(f.name), signal.SIGKILL)
                    killed.append(int(f.name))
                    return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_first_worker_that_opens_the_store, daemon=True)
    killer.start()
    result = execute(cfg, executor=ex)
    killer.join(5)
    assert killed, "no worker opened the store"
    runs = _runs(result)
    store_runs = runs[f"json-store:path={store},slow_ms=40"]
    assert [r.status for r in store_runs] == ["ok", "ok"]
    retried = [r for r in store_runs if r.worker.get("attempts") == 2]
    assert len(retried) == 1, [r.worker for r in store_runs]
    assert any("died" in w and "ran again" in w for w in retried[0].warnings)
    assert retried[0].worker["pid"] != killed[0]
    assert all(r.cleanup.ok and r.cleanup.left == 0 for r in store_runs), [
        r.cleanup for r in store_runs]
    assert json.loads((store / "items.json").read_text()) == []
    others = runs["fake-perfect"]
    assert [r.status for r in others] == ["ok", "ok"]
    assert all(not r.warnings and "attempts" not in r.worker for r in others), [
        (r.warnings, r.worker) for r in others]
    assert result.status == "complete"


def _wait_for_pair_file(pairs: Path, proc: subprocess.Popen, limit: float = 180) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if pairs.is_dir() and any(pairs.glob("*.json")):
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError("no pair finished in time")


def _group_gone(pgid: int, limit: float = 30) -> bool:
    """No live process is left in the group (an exited child may stay a zombie until
    the init process reaps it; that is not a live process)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        alive = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[2]) == pgid and stat[0] != "Z":
                alive.append(pid)
        if not alive:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.parametrize(("first", "then"), [("dask", "process"), ("process", "dask")])
def test_ctrl_c_leaves_a_resumable_run_and_resume_works_across_executors(
        cli, plugin_site: Path, first: str, then: str) -> None:
    store = cli.cwd / "store"
    env = {"PYTHONPATH": os.pathsep.join([str(TESTS), str(plugin_site)]),
           "MEMORY_BENCH_PLUGINS": PLUGINS, "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1"}
    executor = {"dask": ["--executor", "dask", "--workers", "2"],
                "process": ["--executor", "process"]}
    args = ["run", "--backend", f"json-store:path={store},slow_ms=25", "--backend",
            "fake-perfect", "--scenario", "smoke", "--seeds", "4", "--quiet"]
    exe = Path(sys.executable).parent / "memory-bench"
    proc = subprocess.Popen([str(exe), *args, *executor[first], "--out", "r.json"],
                            cwd=cli.cwd, env={**os.environ, **env}, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_pair_file(cli.cwd / "r.pairs", proc)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends: the whole group
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 130, err
    interrupted = load_result(cli.cwd / "r.json")
    assert interrupted.status == "interrupted"
    finished = sum(r.ok for b in interrupted.backends for r in b.runs)
    assert 0 < finished < 8
    assert json.loads((store / "items.json").read_text()) == []  # nothing left behind
    assert _group_gone(proc.pid), "a worker outlived the run"
    out = cli("run", "--resume", "r.json", *executor[then], "--quiet", env_extra=env,
              fakes_only=False)
    assert out.returncode == 0, out.stderr
    done = load_result(cli.cwd / "r.json")
    assert done.status == "complete"
    assert all(len(b.runs) == 4 and all(r.ok for r in b.runs) for b in done.backends)
    assert done.resumes[-1]["executor"] == then
    assert json.loads((store / "items.json").read_text()) == []


def test_an_existing_scheduler(cli, plugin_site: Path) -> None:
    """``--scheduler ADDRESS``: a cluster this process did not start (here a LocalCluster
    on 127.0.0.1 standing in for Slurm or Kubernetes)."""
    from distributed import LocalCluster

    env = {"PYTHONPATH": os.pathsep.join([str(TESTS), str(plugin_site)]),
           "MEMORY_BENCH_PLUGINS": PLUGINS, "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the cluster's workers need the test plugins too
    try:
        with LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1",
                          dashboard_address=None,
                          scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}) as cluster:
            out = cli("run", "--executor", "dask", "--scheduler", cluster.scheduler_address,
                      "--backend", "fake-perfect", "--scenario", "smoke", "--seeds", "2",
                      "--out", "r.json", "--quiet", env_extra=env, fakes_only=False)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert out.returncode == 0, out.stderr
    result = load_result(cli.cwd / "r.json")
    assert result.execution["cluster"] == "scheduler" and result.execution["workers"] == 1
    assert [r.status for r in result.backends[0].runs] == ["ok", "ok"]


@pytest.mark.parametrize(("args", "message"), [
    (["--executor", "local", "--workers", "2"], "--workers needs --executor process or dask"),
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler needs --executor dask"),
    (["--executor", "local", "--scheduler", "tcp://127.0.0.1:1"],
     "--scheduler needs --executor dask"),
    (["--executor", "dask", "--workers", "0"], "--workers: must be between 1 and 1024"),
    (["--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"],
     "cannot reach the dask scheduler tcp://127.0.0.1:9"),
])
def test_bad_executor_options_exit_2_and_write_nothing(cli, args: list[str],
                                                       message: str) -> None:
    out = cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
              "--out", "r.json", *args)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], out.stderr
    assert not (cli.cwd / "r.json").exists() and not (cli.cwd / "r.pairs").exists()


@pytest.mark.parametrize("unsafe", [False, True])
def test_workers_fork_from_a_preloaded_parent_or_spawn(tmp_path: Path, worker_env,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       unsafe: bool) -> None:
    """Workers are forked from this process after it preloaded (one model load for all
    of them); where a library says forking is unsafe they are spawned and preload for
    themselves. Either way the nannies' changes to os.environ are undone."""
    from memory_bench.contract import forksafety

    if unsafe:
        monkeypatch.setattr(forksafety, "_GUARDS", [lambda: "a model ran in this process"])
    before = dict(os.environ)
    result = execute(_config(tmp_path, ["fake-perfect"], seeds=(0, 1), executor="dask",
                                   workers=2))
    assert result.execution["start_method"] == ("spawn" if unsafe else "fork")
    assert [r.status for r in result.backends[0].runs] == ["ok", "ok"]
    assert os.getpid() not in {r.worker["pid"] for r in result.backends[0].runs}
    assert dict(os.environ) == before
