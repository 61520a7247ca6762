"""Process isolation: a backend that raises, hangs or kills its process is recorded with
a status and its error, every other pair still runs, and nothing is left behind."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import fake_backends
import pytest
from memory_bench_embed import EmbeddingCache

from memory_bench import Capability, hookimpl
from memory_bench.harness.isolation import describe_exit, run_forked
from memory_bench.harness.runner import RunConfig
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.results.io import load_result
from memory_bench.scenarios.spec import load_scenario
from memory_bench.session.pipeline import execute


@pytest.fixture(autouse=True)
def forkable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Earlier tests in this pytest process may have run the embedding model, which makes
    the runner refuse to fork (and a hanging backend would then hang the test). These
    tests' backends never use torch, so forking is safe here: clear the marker."""
    from memory_bench.contract import forksafety

    monkeypatch.setattr(forksafety, "_GUARDS", [])


@pytest.fixture
def hanging(plugin_site: Path, monkeypatch: pytest.MonkeyPatch):
    """The hanging-backend test package, imported from the plugin site."""
    monkeypatch.syspath_prepend(str(plugin_site))
    importlib.invalidate_caches()
    return importlib.import_module("memory_bench_test_hanging.plugin")


def _run(tmp_path: Path, plugins, specs, seeds=(0,), **cfg):
    loaded = load_plugins(plugins, autoload=False)
    config = RunConfig(
        plugins=loaded,
        selections=select_backends(loaded.registry, specs),
        scenario=load_scenario("smoke"),
        seeds=list(seeds),
        out=tmp_path / "r.json",
        **cfg,
    )
    return execute(config), config


def _runs(result):
    return {b.label: b.runs for b in result.backends}


# -- run_forked ---------------------------------------------------------------------


def _value(send):
    send("hello")
    return {"pid": os.getpid()}


def test_forked_value_and_messages() -> None:
    messages = []
    out = run_forked(_value, timeout=30, on_message=messages.append)
    assert out.status == "ok" and out.exitcode == 0
    assert out.value["pid"] != os.getpid()
    assert messages == ["hello"]


def _raise(send):
    raise SystemExit(4)


def _sleep(send):
    time.sleep(600)


def _sigkill(send):
    os.kill(os.getpid(), signal.SIGKILL)


def _exit3(send):
    os._exit(3)


@pytest.mark.parametrize(
    ("fn", "status", "error"),
    [
        (_raise, "error", "SystemExit: 4"),
        (_sleep, "timeout", "timeout: no result after 0.5 s; process killed"),
        (_sigkill, "died", "process died: signal 9 (SIGKILL)"),
        (_exit3, "died", "process exited with status 3 before reporting a result"),
    ],
)
def test_forked_failures_are_told_apart(fn, status: str, error: str) -> None:
    t0 = time.monotonic()
    out = run_forked(fn, timeout=0.5)
    assert (out.status, out.error) == (status, error)
    assert time.monotonic() - t0 < 15


def test_describe_exit() -> None:
    assert describe_exit(-15) == "process died: signal 15 (SIGTERM)"
    assert describe_exit(0).startswith("process exited with status 0")


def _report_pid_then_sleep(send):
    send(os.getpid())
    time.sleep(600)


def test_interrupt_in_parent_kills_the_child() -> None:
    pids: list[int] = []

    def on_message(pid: int) -> None:
        pids.append(pid)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_forked(_report_pid_then_sleep, timeout=60, on_message=on_message)
    with pytest.raises(ProcessLookupError):
        os.kill(pids[0], 0)


_SIGTERM_DURING_FORK = """
import os, signal, sys, time
from memory_bench.harness.isolation import run_forked

class Terminated(KeyboardInterrupt):
    pass

def on_sigterm(signum, frame):
    raise Terminated

signal.signal(signal.SIGTERM, on_sigterm)
# SIGTERM lands while the fork's at-fork callbacks run (as logging's _releaseLock does)
os.register_at_fork(after_in_parent=lambda: os.kill(os.getpid(), signal.SIGTERM))
try:
    run_forked(lambda send: time.sleep(30), timeout=60)
except Terminated:
    sys.exit(130)
sys.exit(0)
"""


def test_sigterm_during_the_fork_is_not_swallowed() -> None:
    """CI saw a SIGTERM raised inside an at-fork callback printed as "Exception
    ignored" and dropped: the run went on and exited 0. Held across the fork, it is
    raised after it, and the child is killed."""
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-c", _SIGTERM_DURING_FORK], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 130, out.stderr
    assert "Exception ignored" not in out.stderr
    assert time.monotonic() - t0 < 20  # the 30 s child was killed, not waited for


def test_embedding_cache_survives_fork(tmp_path: Path) -> None:
    """A connection opened before the fork is never used in the child (SQLite forbids it)."""
    import numpy as np

    cache = EmbeddingCache(tmp_path / "c.sqlite3")
    k1, k2 = EmbeddingCache.key("m", "a"), EmbeddingCache.key("m", "b")
    cache.put_many([(k1, np.ones(4, dtype=np.float32))])
    parent_conn = cache._conn

    def child(send):
        got = cache.get_many([k1], 4)
        cache.put_many([(k2, np.full(4, 2.0, dtype=np.float32))])
        return {"found": len(got), "own_connection": cache._conn is not parent_conn}

    out = run_forked(child, timeout=60)
    assert out.status == "ok", out.error
    assert out.value == {"found": 1, "own_connection": True}
    both = cache.get_many([k1, k2], 4)
    assert set(both) == {k1, k2} and both[k2][0] == 2.0
    cache.close()


# -- the runner -----------------------------------------------------------------------


def test_hang_die_and_raise_are_recorded_and_others_run(tmp_path: Path, hanging) -> None:
    t0 = time.monotonic()
    result, cfg = _run(
        tmp_path,
        [("fakes", fake_backends), ("hanging", hanging)],
        ["hang-query", "die-query", "fake-broken-query", "json-store:misbehave=exit",
         "fake-perfect"],
        timeout=3,
    )
    assert time.monotonic() - t0 < 60
    runs = _runs(result)
    assert runs["hang-query"][0].status == "timeout"
    assert runs["hang-query"][0].error == "timeout: no result after 3 s; process killed"
    assert runs["die-query"][0].status == "failed"
    assert runs["die-query"][0].error == "process died: signal 9 (SIGKILL) during step probe"
    assert runs["fake-broken-query"][0].status == "failed"
    assert runs["fake-broken-query"][0].error == "RuntimeError: index corrupted"
    assert runs["json-store:misbehave=exit"][0].error == (
        "process exited with status 3 before reporting a result during step probe")
    assert runs["fake-perfect"][0].status == "ok"
    assert runs["fake-perfect"][0].metrics["recall1_before"] == 1.0
    for label in ("hang-query", "die-query", "json-store:misbehave=exit"):
        assert runs[label][0].metrics == {} and runs[label][0].records is None
        assert runs[label][0].cleanup.ok is True, runs[label][0].cleanup
    # The persistent store was reopened by the harness; the others died with their process.
    assert runs["json-store:misbehave=exit"][0].cleanup.by == "harness, store reopened"
    assert "workdir deleted" in runs["die-query"][0].cleanup.by
    saved = load_result(cfg.out)
    assert saved.status == "complete"
    assert saved.execution == {"executor": "process", "isolation": "process", "timeout_s": 3,
                               "clean_stale": False, "cache": "off", "encode": "once"}
    assert saved.backends[0].summary["recall1_before"].n == 0  # no number for a failure


@pytest.mark.parametrize("misbehave", ["raise", "die", "hang"])
def test_persistent_store_is_emptied_after_any_failure(tmp_path: Path, hanging,
                                                       misbehave: str) -> None:
    store = tmp_path / "store"
    result, _ = _run(
        tmp_path, [("hanging", hanging)],
        [f"json-store:path={store},misbehave={misbehave},after=3"], seeds=(0, 1), timeout=3,
    )
    runs = result.backends[0].runs
    assert [r.status for r in runs] == ["timeout" if misbehave == "hang" else "failed"] * 2
    assert all(r.cleanup.ok and r.cleanup.left == 0 for r in runs)
    assert json.loads((store / "items.json").read_text()) == []
    (store_check,) = result.live_stores.values()
    after = store_check["after"]
    assert after["status"] == "ok" and after["value"]["left"] == 0


def test_in_process_and_isolated_runs_measure_the_same(tmp_path: Path) -> None:
    specs = ["fake-perfect", "fake-forgetful:capacity=30", "fake-noprov"]
    run = "20260101T000000-same"
    a, _ = _run(tmp_path / "a", [("fakes", fake_backends)], specs, isolation="process", run_id=run)
    b, _ = _run(tmp_path / "b", [("fakes", fake_backends)], specs, isolation="none", run_id=run)
    from memory_bench.metrics.latency import TIMINGS as skip
    for label in _runs(a):
        ma, mb = _runs(a)[label][0].metrics, _runs(b)[label][0].metrics
        assert {k: v for k, v in ma.items() if k not in skip} == {
            k: v for k, v in mb.items() if k not in skip}
        ids = [p.returned for p in _runs(a)[label][0].records.probes]
        assert ids == [p.returned for p in _runs(b)[label][0].records.probes]
    assert b.execution["isolation"] == "none" and b.execution["timeout_s"] is None


def _preload_plugin():
    """A backend whose preload must run once, in the parent, before any pair."""
    import types

    state: dict[str, int] = {"calls": 0}
    mod = types.ModuleType("preload_plugin")

    def preload(options, cache_dir) -> None:
        state["calls"] += 1
        state["pid"] = os.getpid()

    def factory(options, ctx):
        if state.get("pid") != os.getppid():
            raise RuntimeError(f"preload did not run in the parent: {state}")
        return fake_backends.SubjectMemory(gate=True)

    @hookimpl
    def memory_bench_register_backends(registry) -> None:
        registry.add("preloaded", factory=factory, description="test", version="1",
                     capabilities=[Capability.GATE], preload=preload)

    mod.memory_bench_register_backends = memory_bench_register_backends
    return mod, state


def test_preload_runs_once_in_the_parent(tmp_path: Path) -> None:
    mod, state = _preload_plugin()
    result, _ = _run(tmp_path, [("preload", mod)], ["preloaded"], seeds=(0, 1, 2))
    assert [r.status for r in _runs(result)["preloaded"]] == ["ok"] * 3
    assert state["calls"] == 1 and state["pid"] == os.getpid()


def test_cli_exit_status_and_table_show_the_failure(site_cli) -> None:
    out = site_cli("run", "--backend", "die-query", "--backend", "fake-perfect", "--scenario",
                   "smoke", "--seed", "0", "--out", "r.json", "--quiet")
    assert out.returncode == 1, out.stderr
    assert "die-query seed 0: failed: process died: signal 9 (SIGKILL)" in out.stdout
    row = next(line for line in out.stdout.splitlines() if line.startswith("die-query"))
    assert " 0/1 " in row and "1.000" not in row  # no number for the failed backend


def test_cli_timeout_option(site_cli) -> None:
    out = site_cli("run", "--backend", "hang-query", "--scenario", "smoke", "--seed", "0",
                   "--out", "r.json", "--timeout", "1.5", "--quiet")
    assert out.returncode == 1
    assert "hang-query seed 0: timeout: timeout: no result after 1.5 s" in out.stdout
    assert "hang-query" in (site_cli.cwd / "r.json").read_text()


def test_test_plugins_are_not_installed_in_the_venv() -> None:
    """Users never see the misbehaving test backends."""
    import subprocess

    exe = Path(sys.executable).parent / "memory-bench"
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "MEMORY_BENCH_PLUGINS",
                        "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD")}
    out = subprocess.run([str(exe), "backends", "--json"], capture_output=True, text=True,
                         env=env, timeout=120, cwd="/")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    names = {b["name"] for b in doc["backends"]}
    assert not names & {"json-store", "hang-query", "die-query"}
    assert not [b for b in doc["broken"] if "test" in b["entry_point"]]


def test_test_plugins_install_with_pip(tmp_path: Path) -> None:
    """They are real distributions: pip can build and install them."""
    import subprocess

    pytest.importorskip("setuptools")
    plugins = Path(__file__).resolve().parent / "plugins"
    out = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(tmp_path / "t"),
         str(plugins / "hanging-backend"), str(plugins / "broken-plugin")],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    code = ("import json; from memory_bench.plugins import load_plugins; l = load_plugins(); "
            "print(json.dumps(l.registry.names())); print([b.entry_point for b in l.broken])")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "t")}
    env.pop("MEMORY_BENCH_PLUGINS", None)
    env.pop("MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD", None)
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    names, broken = got.stdout.strip().splitlines()
    assert {"die-query", "hang-query", "json-store"} <= set(json.loads(names))
    assert "test-broken = memory_bench_test_broken.plugin" in broken


def test_falls_back_to_in_process_when_fork_is_unsafe(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A library that says this process must not be forked (the embedder, once it ran
    torch in it) is believed: pairs run in-process and the result says why."""
    from memory_bench import register_fork_guard

    register_fork_guard(lambda: "this process ran a model whose thread pools do not fork")
    with pytest.warns(RuntimeWarning, match="do not fork"):
        result, _ = _run(tmp_path, [("fakes", fake_backends)], ["fake-perfect"])
    assert result.execution["isolation"] == "none"
    assert result.execution["isolation_requested"] == "process"
    assert "thread pools do not fork" in result.execution["isolation_note"]
    assert _runs(result)["fake-perfect"][0].status == "ok"


# -- pairs at once (--workers with the process executor) -----------------------------

PAUSE = 0.6  # seconds a timed-store pair holds its store open: long enough to overlap


class _TimedStore(fake_backends.SubjectMemory):
    """Writes when its pair opened and closed it (wall clock) to ``log/<seed>.json``."""

    def __init__(self, log: Path, seed: int) -> None:
        super().__init__()
        self.log, self.seed, self.opened = log, seed, time.time()
        time.sleep(PAUSE)

    def close(self) -> None:
        super().close()
        if self.seed >= 0:  # not the harness's live-store checks
            (self.log / f"{self.seed}.json").write_text(json.dumps([self.opened, time.time()]))


class _TimedPlugin:
    """``timed-store``: persistent; each pair its own store unless ``shared``."""

    @hookimpl
    def memory_bench_register_backends(self, registry) -> None:
        from memory_bench import Option

        registry.add(
            "timed-store", description="test: a persistent store that logs its open interval",
            version="0.0.1", reads=["tags"], capabilities=[Capability.PERSISTENT],
            factory=lambda o, ctx: _TimedStore(Path(o["log"]), ctx.seed),
            own_store=lambda o: not o["shared"],
            options=[Option("log", str, "", "directory of the interval files"),
                     Option("shared", bool, False, "the pairs share one store")])


@pytest.mark.parametrize(("shared", "overlap"), [(False, True), (True, False)])
def test_persistent_pairs_with_their_own_stores_run_at_once(tmp_path: Path, shared: bool,
                                                            overlap: bool) -> None:
    """Two workers: two pairs of a persistent backend whose pairs each have their own
    store are in flight together; pairs that share one store still run one at a time."""
    log = tmp_path / "log"
    log.mkdir()
    result, _ = _run(tmp_path, [("timed", _TimedPlugin())],
                     [f"timed-store:log={log},shared={str(shared).lower()}"], seeds=(0, 1),
                     workers=2, timeout=60)
    assert [r.status for r in result.backends[0].runs] == ["ok", "ok"]
    assert result.execution["workers"] == 2 and result.execution["pair_threads"] >= 1
    assert (_overlap(log) > PAUSE / 2) if overlap else (_overlap(log) <= 0)


def test_one_worker_runs_pairs_one_at_a_time(tmp_path: Path) -> None:
    log = tmp_path / "log"
    log.mkdir()
    result, _ = _run(tmp_path, [("timed", _TimedPlugin())], [f"timed-store:log={log}"],
                     seeds=(0, 1), timeout=60)
    assert "workers" not in result.execution
    assert _overlap(log) <= 0


def _overlap(log: Path) -> float:
    """Seconds the two pairs' stores were open at the same time (<= 0: never)."""
    (a0, a1), (b0, b1) = (json.loads((log / f"{s}.json").read_text()) for s in (0, 1))
    return min(a1, b1) - max(a0, b0)
