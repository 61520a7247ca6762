"""A user's lattice used as a live store: the benchmark is a guest and leaves no trace.

The user's cells (text, provenance, strength, lineage), the store's clock, its
regions and IDF counts, and every byte of the saved directory are the same
after a benchmark as before; sleep during the benchmark touches only the run's
cells; the store is locked while a process has it open.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from memory_bench_rshl import Lattice, LatticeConfig, Record
from memory_bench_rshl.persist import StoreError

from memory_bench import BackendContext, Item
from memory_bench.contract.options import OptionError, resolve_options
from memory_bench.plugins import load_plugins

USER_T0 = datetime(2025, 6, 1, tzinfo=UTC)
USER_NOTES = [
    "Mara Olsen works for Acme Foods in Lisbon.",
    "Buy oat milk and coffee beans on Friday.",
    "The dentist appointment moved to Tuesday at ten.",
    "Ivo Petrov lives in the town of Krakow.",
]


def _user_store(path: Path, dim: int = 4096) -> Lattice:
    """A store a user made: notes over a day, one retrieved, one superseded by tags,
    one removed (a dead row), the clock at 2025-06-02."""
    lat = Lattice(LatticeConfig(dim=dim))
    lat.write([Record(f"user-note-{i}", text, "my-notes", USER_T0 + timedelta(hours=i), "notes",
                      ("subject:mara olsen", "relation:employer") if i == 0 else ())
               for i, text in enumerate(USER_NOTES)])
    lat.query("Where does Ivo Petrov live?", 2)
    lat.write([Record("user-note-4", "Mara Olsen now works for Globex Shipping.", "my-notes",
                      USER_T0 + timedelta(hours=20), "notes",
                      ("subject:mara olsen", "relation:employer")),
               Record("user-note-5", "Call the plumber about the kitchen sink leak.", "my-notes",
                      USER_T0 + timedelta(days=1), "notes")])
    lat.remove("user-note-1")
    lat.save(path)
    return lat


def _digest(store: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(store.iterdir())}


def _user_view(lat: Lattice) -> dict:
    """Everything the user owns, as data."""
    cells = [c.to_dict() for c in lat.cells if c is not None and c.id.startswith("user-")]
    return {"cells": cells, "now": lat.now, "regions": dict(lat.regions),
            "idf": (lat.stats.n_docs, dict(lat.stats.df)), "rows": lat.index.n,
            "strength": lat.strength([c["provenance"][0]["id"] for c in cells])}


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "memory-bench"
    env = {**os.environ, "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0"}
    env.pop("MEMORY_BENCH_PLUGINS", None)
    return subprocess.run([str(exe), *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600, env=env)


@pytest.mark.slow
@pytest.mark.parametrize("consolidate", ["false", "true"])
def test_a_benchmark_leaves_the_users_store_byte_identical(tmp_path: Path,
                                                           consolidate: str) -> None:
    store = tmp_path / "store"
    before = _user_view(_user_store(store))
    assert before["now"] == (USER_T0 + timedelta(days=1)).timestamp()
    digest = _digest(store)
    out = _cli(tmp_path, "run", "--backend", "rshl:path=store", "--scenario", "smoke",
               "--seed", "0", "--set", f"consolidate={consolidate}", "--out", "r.json",
               "--quiet", "--no-cache")
    assert out.returncode == 0, out.stderr
    assert _digest(store) == digest  # every byte of every file
    after = Lattice.load(store)
    assert _user_view(after) == before  # so cells, strengths, lineage and clock too
    assert after.lineage("user-note-4") == ["user-note-0", "user-note-4"]
    doc = json.loads((tmp_path / "r.json").read_text())
    run = doc["backends"][0]["runs"][0]
    assert run["status"] == "ok" and run["metrics"]["recall1_before"] == 1.0
    if consolidate == "true":
        (report,) = run["records"]["consolidations"]
        assert report["host_cells_untouched"] == 5
        assert not any(i.startswith("user-") for i in report["pruned"])


def _guest(tmp_path: Path) -> tuple[Lattice, dict]:
    lat = _user_store(tmp_path / "store", dim=1024)
    lat = Lattice.load(tmp_path / "store")
    view = _user_view(lat)
    lat.as_guest()
    return lat, view


def _bench(i: int, text: str, days: float, **tags: str) -> Record:
    return Record(f"bench-r-s0-e1-{i:04d}", text, "bench-r-s0-e1",
                  datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=days), "benchmark",
                  tuple(f"{k}:{v}" for k, v in tags.items()))


def test_a_guest_never_forgets_a_host_item(tmp_path: Path) -> None:
    lat, before = _guest(tmp_path)
    lat.write([_bench(0, "Mara Olsen works for Initech Labs.", 0)])
    assert lat.forget(["user-note-0"], source="my-notes") == 0  # by id or source: not the host's
    assert lat.forget(source="bench-r-s0-e1", prefix="bench-r-s0-") == 1
    assert _user_view(lat) == before


def test_a_guest_never_merges_into_supersedes_or_reinforces_a_host_cell(tmp_path: Path) -> None:
    lat, before = _guest(tmp_path)
    out = lat.write([
        _bench(0, "Ivo Petrov lives in the town of Krakow!", 0),  # near-duplicate of a user note
        _bench(1, "Mara Olsen works for Initech Labs.", 1, subject="mara olsen",
               relation="employer"),  # the user's key, a new value
        _bench(2, "Ivo Petrov now lives in Gdansk by the sea.", 2),  # text supersession
    ])
    assert [(o.accepted, o.merged_into) for o in out] == [(True, None)] * 3
    # The guest's own cells still link to each other; a user's cell is never a target.
    assert [o.supersedes for o in out] == [None, None, "bench-r-s0-e1-0000"]
    for _ in range(5):  # the user's cells rank, and are never strengthened
        assert "user-note-3" in [h.id for h in lat.query("Where does Ivo Petrov live?", 5)]
    report = lat.consolidate()
    assert report["host_cells_untouched"] == 5 and report["cells_before"] == 3
    assert lat.remove("bench-") == 3
    assert _user_view(lat) == before


def test_sleep_never_prunes_a_weak_user_cell(tmp_path: Path) -> None:
    lat, before = _guest(tmp_path)
    # A year of logical time: every user cell decays far below the prune floor.
    lat.write([_bench(0, "Nadia Berg owns a red bicycle.", 365)])
    assert min(lat.strength(["user-note-0", "user-note-5"])) < lat.config.prune_floor
    report = lat.consolidate()
    assert report["pruned"] == [] and report["host_cells_untouched"] == 5
    assert lat.get("user-note-5") is not None
    lat.remove("bench-")
    assert _user_view(lat) == before
    assert lat.strength(["user-note-5"]) == [before["strength"][-1]]  # the clock is back


def test_guest_rows_are_given_back_only_when_the_last_one_is_removed(tmp_path: Path) -> None:
    lat, before = _guest(tmp_path)
    lat.write([_bench(0, "Nadia Berg owns a red bicycle.", 0),
               _bench(1, "Oskar Lind teaches piano in Bergen.", 1)])
    assert lat.remove("bench-r-s0-e1-0000") == 1
    assert lat.now > before["now"] and lat.index.n == before["rows"] + 2  # one guest is left
    assert lat.remove("bench-") == 1
    assert _user_view(lat) == before


def test_a_live_store_is_locked_while_open(tmp_path: Path) -> None:
    info = load_plugins(autoload=True).registry.get("rshl")
    assert info is not None
    options = resolve_options("rshl", info.options, {"path": str(tmp_path / "s"), "dim": "1024"})
    ctx = BackendContext(workdir=tmp_path, seed=0, run_id="r")
    first = info.factory(dict(options), ctx)
    try:
        with pytest.raises(StoreError, match=rf"lattice .* is in use by pid {os.getpid()}"):
            info.factory(dict(options), ctx)
    finally:
        first.close()
    again = info.factory(dict(options), ctx)  # released on close
    again.write([Item("k-1", "Mara Olsen works for Acme Foods.", "n", USER_T0)])
    again.close()


def test_options_must_match_the_saved_settings(tmp_path: Path) -> None:
    _user_store(tmp_path / "store", dim=1024)
    info = load_plugins(autoload=True).registry.get("rshl")
    assert info is not None
    ctx = BackendContext(workdir=tmp_path, seed=0, run_id="r")
    for raw, message in (({"dim": "2048"}, "saved with dim=1024; the options ask for 2048"),
                         ({"dim": "1024", "eta": "0.5"},
                          "saved with eta=0.2; the options ask for 0.5")):
        options = resolve_options("rshl", info.options, {"path": str(tmp_path / "store"), **raw})
        with pytest.raises(ValueError, match=message):
            info.factory(options, ctx)
    options = resolve_options("rshl", info.options, {"path": str(tmp_path / "store"),
                                                     "dim": "1024"})
    info.factory(options, ctx).close()  # the lock was released by the refusals


@pytest.mark.parametrize(("raw", "message"), [
    ({"dim": "100"}, "option dim: 100 is not a multiple of 64"),
    ({"sketch_bits": "1000"}, "option sketch_bits: 1000 is not a multiple of 64"),
    ({"merge_cosine": "nan"}, "option merge_cosine: NaN is not a number it accepts"),
    ({"eta": "inf"}, "option eta: inf is not finite"),
    ({"path": "afile"}, "is a file, not a lattice directory"),
    ({"path": "docs"}, "is a directory holding other files, not an RSHL lattice"),
])
def test_options_are_refused_before_any_store_is_opened(tmp_path: Path, monkeypatch,
                                                        raw: dict, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "thesis.tex").write_text("my work")
    info = load_plugins(autoload=True).registry.get("rshl")
    assert info is not None
    with pytest.raises(OptionError, match=message):
        resolve_options("rshl", info.options, raw)
    assert (tmp_path / "docs" / "thesis.tex").read_text() == "my work"
