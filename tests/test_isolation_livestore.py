"""Live stores (METHOD.md §4): a run killed midway leaves items in a persistent store;
the next run finds them and refuses, or removes them with --clean-stale; resuming the
killed run removes its own leftovers; every run leaves the store empty."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memory_bench.results.io import load_result
from memory_bench.results.pairs import pairs_dir_for

TESTS = Path(__file__).resolve().parent


def _items(store: Path) -> list[dict]:
    f = store / "items.json"
    return json.loads(f.read_text()) if f.exists() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but still listed: look at its state.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if "store" not in p.parts}


def _kill_midway(site_cli, plugin_site: Path, store: Path, out: str) -> dict:
    """Start a 3-seed run on a live store; SIGKILL it once a pair finished and the
    next one has written items. Returns the result file it left."""
    exe = Path(sys.executable).parent / "memory-bench"
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(plugin_site), str(TESTS)]),
           "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0"}
    env.pop("MEMORY_BENCH_PLUGINS", None)
    proc = subprocess.Popen(
        [str(exe), "run", "--backend", f"json-store:path={store},slow_ms=25", "--scenario",
         "smoke", "--seeds", "3", "--out", out, "--quiet"],
        cwd=site_cli.cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    result = site_cli.cwd / out
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            time.sleep(0.05)
            assert proc.poll() is None, proc.stderr.read().decode()
            if not result.exists():
                continue
            try:
                json.loads(result.read_text())
            except json.JSONDecodeError:  # never: the file is replaced atomically
                pytest.fail("result file was read half-written")
            finished = len(list(pairs_dir_for(result).glob("*.json")))
            if finished >= 1 and _items(store):
                break
        else:
            pytest.fail("the run did not get midway in time")
        proc.send_signal(signal.SIGKILL)  # no handler, no cleanup: as a crash or OOM kill
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    return load_result(result)  # the header, with the pairs that finished merged in


def test_killed_run_leaves_valid_file_and_stale_items_refused_then_resumed(
    site_cli, plugin_site: Path
) -> None:
    store = site_cli.cwd / "store"
    killed = _kill_midway(site_cli, plugin_site, store, "killed.json")
    run_id = killed.run_id
    # A valid file, and a pair file for every finished pair; the run is visibly unfinished.
    assert killed.status == "running"
    finished = killed.backends[0].runs
    assert 1 <= len(finished) < 3 and all(r.ok for r in finished)
    # The live store holds the killed pair's items, every one tagged with the run.
    left = _items(store)
    assert left and all(i["id"].startswith(f"bench-{run_id}-s") for i in left)
    # Sources look like provenance, not like the run or the phase (ids alone carry the run).
    assert not [i for i in left if "bench-" in i["source"] or run_id in i["source"]]
    # The pair's child died with its parent: no process outlived the run.
    time.sleep(0.5)
    pids = [int(p.name) for p in (store / "pids").iterdir()]
    assert pids and not [p for p in pids if _alive(p)]

    # A new run on that store is refused: one line, exit 2, nothing written.
    before = _files(site_cli.cwd)
    refused = site_cli("run", "--backend", f"json-store:path={store}", "--scenario", "smoke",
                       "--seed", "0", "--out", "new.json")
    assert refused.returncode == 2
    # one line for the refusal (the preload's progress line before it is not an error)
    lines = [x for x in refused.stderr.strip().splitlines() if "preloading" not in x]
    assert len(lines) == 1, refused.stderr
    assert f"backend json-store:path={store}: its store holds {len(left)} bench- item(s) of " \
        "another run" in lines[0]
    assert "--clean-stale" in lines[0]
    assert _files(site_cli.cwd) == before
    assert len(_items(store)) == len(left)

    # Resuming the killed run: its own leftovers are removed, finished pairs kept.
    resumed = site_cli("run", "--resume", "killed.json", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    doc = load_result(site_cli.cwd / "killed.json")
    assert doc.status == "complete" and doc.run_id == run_id
    runs = doc.backends[0].runs
    assert [r.seed for r in runs] == [0, 1, 2] and all(r.ok for r in runs)
    def kept(run) -> dict:  # the analysis derives the e2e ingest rate for every run
        d = run.to_dict()
        d["metrics"] = {k: v for k, v in d["metrics"].items() if k != "e2e_ingest_items_per_s"}
        return d

    for old in finished:  # not run again: the same record, to the last field
        assert kept(next(r for r in runs if r.seed == old.seed)) == kept(old)
    (store_check,) = doc.live_stores.values()
    check = store_check["before"]["value"]
    assert check["own"] == len(left) and check["removed_own"] == len(left)
    assert check["stale"] == 0 and check["left"] == 0
    assert store_check["after"]["value"]["ok"] is True
    assert doc.resumes[0]["isolation"] == "process"
    assert _items(store) == []


def test_clean_stale_removes_another_runs_items(site_cli, plugin_site: Path) -> None:
    store = site_cli.cwd / "store"
    _kill_midway(site_cli, plugin_site, store, "killed.json")
    stale = len(_items(store))
    assert stale
    out = site_cli("run", "--backend", f"json-store:path={store}", "--scenario", "smoke",
                   "--seed", "0", "--out", "new.json", "--clean-stale", "--quiet")
    assert out.returncode == 0, out.stderr
    doc = json.loads((site_cli.cwd / "new.json").read_text())
    (store_check,) = doc["live_stores"].values()
    check = store_check["before"]["value"]
    assert check == {"found": stale, "own": 0, "stale": stale, "removed_stale": stale,
                     "left": 0}
    assert doc["execution"]["clean_stale"] is True
    assert doc["backends"][0]["runs"][0]["metrics"]["recall1_before"] == 1.0
    assert _items(store) == []


def test_sigterm_cleans_up_and_keeps_finished_pairs(site_cli, plugin_site: Path) -> None:
    """SIGTERM (or Ctrl-C) mid-pair: the child is killed, its items removed from the live
    store, the file written with every finished pair, exit status 130."""
    exe = Path(sys.executable).parent / "memory-bench"
    store = site_cli.cwd / "store"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin_site), str(TESTS)]),
           "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0"}
    env.pop("MEMORY_BENCH_PLUGINS", None)
    proc = subprocess.Popen(
        [str(exe), "run", "--backend", f"json-store:path={store},slow_ms=25", "--scenario",
         "smoke", "--seeds", "3", "--out", "r.json", "--quiet"],
        cwd=site_cli.cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    result = site_cli.cwd / "r.json"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.05)
        if list(pairs_dir_for(result).glob("*.json")) and _items(store):
            break
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    doc = load_result(result)
    assert doc.status == "interrupted" and doc.backends[0].runs
    assert _items(store) == []


def test_rshl_lattice_directory_as_a_live_store(cli, tmp_path: Path) -> None:
    """The real persistent backend: another run's cells in the lattice are found and refused,
    removed with --clean-stale, and a run leaves the lattice empty of bench- cells."""
    pytest.importorskip("memory_bench_rshl")
    from datetime import UTC, datetime

    from memory_bench import BackendContext, Item
    from memory_bench.plugins import load_plugins
    from memory_bench.plugins.selection import select_backends

    lattice = tmp_path / "lattice"
    (sel,) = select_backends(load_plugins().registry, [f"rshl:path={lattice}"])

    def open_lattice():
        return sel.info.factory(dict(sel.options), BackendContext(tmp_path, 0, "x"))

    b = open_lattice()
    stale = [Item(f"bench-earlier-s0-e1-{n:04d}", f"Mara Olsen{n} works for Fathom Foods {n}.",
                  "bench-earlier-s0-e1", datetime(2026, 1, 1, tzinfo=UTC)) for n in range(3)]
    assert all(r.accepted for r in b.write(stale))
    b.close()

    env = {"MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0", "MEMORY_BENCH_PLUGINS": ""}
    args = ("run", "--backend", f"rshl:path={lattice}", "--scenario", "smoke", "--seed", "0",
            "--quiet")
    refused = cli(*args, "--out", "a.json", env_extra=env)
    assert refused.returncode == 2 and "holds 3 bench- item(s) of another run" in refused.stderr
    ok = cli(*args, "--out", "b.json", "--clean-stale", env_extra=env)
    assert ok.returncode == 0, ok.stderr
    (check,) = json.loads((cli.cwd / "b.json").read_text())["live_stores"].values()
    assert check["before"]["value"]["removed_stale"] == 3
    assert check["after"]["value"] == {"prefix": check["after"]["value"]["prefix"], "left": 0,
                                       "ok": True}
    b = open_lattice()
    try:
        assert b.count("bench-") == 0
    finally:
        b.close()
    again = cli(*args, "--out", "c.json", env_extra=env)  # nothing stale: runs
    assert again.returncode == 0, again.stderr
