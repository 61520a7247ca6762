"""A refused run never touches a user's lattice: the store check before a run opens it
read-only, and a store closed with nothing changed is not saved again.

Every file beside and inside the store is compared by inode, mtime and sha256, so a
rewrite with the same bytes (a new inode, a new mtime) is caught too."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from memory_bench_rshl import Lattice, LatticeConfig, Record
from memory_bench_rshl.persist import StoreError

from memory_bench import BackendContext, Item
from memory_bench.contract.options import OptionError, resolve_options
from memory_bench.plugins import load_plugins

T0 = datetime(2025, 6, 1, tzinfo=UTC)


def _store(path: Path, *, bench: int) -> None:
    """A user's lattice with two notes and ``bench`` items another run left."""
    lat = Lattice(LatticeConfig(dim=1024))
    lat.write([Record("user-note-0", "Mara Olsen works for Acme Foods in Lisbon.", "notes", T0),
               Record("user-note-1", "Ivo Petrov lives in the town of Krakow.", "notes", T0)])
    lat.write([Record(f"bench-earlier-s0-e1-{n:04d}", f"Lena Berg{n} owns the cafe {n}.",
                      "bench-earlier-s0-e1", T0) for n in range(bench)])
    lat.save(path)


def _snapshot(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every path under ``root``: (inode, mtime in ns, sha256 of a file's bytes)."""
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.stat()
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        out[str(p.relative_to(root))] = (st.st_ino, st.st_mtime_ns, digest)
    return out


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "memory-bench"
    env = {**os.environ, "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "0", "MEMORY_BENCH_PLUGINS": ""}
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)


def _open(tmp_path: Path, store: Path, **ctx: object):
    info = load_plugins(autoload=True).registry.get("rshl")
    assert info is not None
    options = resolve_options("rshl", info.options, {"path": str(store), "dim": "1024"})
    return info.factory(dict(options), BackendContext(tmp_path, 0, "r", **ctx))


def test_a_run_refused_for_stale_items_changes_nothing_of_the_users_store(
        tmp_path: Path) -> None:
    home = tmp_path / "home"
    store = home / "rshl-store"
    home.mkdir()
    _store(store, bench=2)
    before = _snapshot(home)
    out = _cli(tmp_path, "run", "--backend", f"rshl:path={store},dim=1024", "--scenario",
               "smoke", "--seed", "0", "--out", "r.json", "--quiet", "--no-cache")
    assert out.returncode == 2, out.stderr
    assert "holds 2 bench- item(s) of another run" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    # No byte, inode or mtime of the user's files; no .rshl-store.old/, no lock file.
    assert _snapshot(home) == before
    assert not (tmp_path / "r.json").exists()


def test_closing_an_unchanged_store_does_not_save_it(tmp_path: Path) -> None:
    store = tmp_path / "s"
    _store(store, bench=0)
    before = _snapshot(tmp_path)
    backend = _open(tmp_path / "w", store)
    assert backend.count("user-") == 2 and backend.count("bench-") == 0
    backend.close()
    assert _snapshot(tmp_path) == before


def test_a_store_opened_read_only_is_shared_never_saved_and_refuses_writes(
        tmp_path: Path) -> None:
    store = tmp_path / "s"
    _store(store, bench=1)
    before = _snapshot(tmp_path)
    first = _open(tmp_path / "w", store, read_only=True)
    second = _open(tmp_path / "w", store, read_only=True)  # readers share the store
    try:
        assert first.count("bench-") == second.count("bench-") == 1
        with pytest.raises(StoreError, match="is in use"):  # but no writer meanwhile
            _open(tmp_path / "w", store)
        with pytest.raises(PermissionError, match="opened read-only"):
            first.remove("bench-")
        with pytest.raises(PermissionError, match="opened read-only"):
            first.write([Item("bench-x-s0-e1-0000", "Nadia Berg owns a bicycle.", "x", T0)])
    finally:
        first.close()
        second.close()
    assert _snapshot(tmp_path) == before
    writer = _open(tmp_path / "w", store)  # no reader left holding it
    try:
        assert writer.remove("bench-") == 1
    finally:
        writer.close()
    assert [p.name for p in tmp_path.iterdir()] == ["s"]  # no lock file left


def test_a_refused_close_does_not_save(tmp_path: Path) -> None:
    """A save that is refused (the directory was given other files meanwhile) leaves the
    directory as it is, no half-written copy beside it, and the store unlocked."""
    store = tmp_path / "s"
    _store(store, bench=0)
    backend = _open(tmp_path / "w", store)
    backend.write([Item("bench-x-s0-e1-0000", "Nadia Berg owns a red bicycle.", "x", T0)])
    (store / "meta.json").unlink()
    (store / "notes.txt").write_text("mine")  # now the user's directory, not a lattice
    before = _snapshot(store)
    with pytest.raises(ValueError, match="holding other files"):
        backend.close()
    assert _snapshot(store) == before
    assert [p.name for p in tmp_path.iterdir()] == ["s"]  # no .s.new-*, no lock file


def test_a_read_only_open_reads_a_crashed_save_where_it_stands(tmp_path: Path) -> None:
    """A save cut between its renames leaves only ``.s.old``: a reader counts from it and
    renames nothing (the next writer recovers it)."""
    store = tmp_path / "s"
    _store(store, bench=1)
    store.rename(tmp_path / ".s.old")
    before = _snapshot(tmp_path)
    reader = _open(tmp_path / "w", store, read_only=True)
    try:
        assert reader.count("bench-") == 1 and reader.count("user-") == 2
    finally:
        reader.close()
    assert _snapshot(tmp_path) == before
    writer = _open(tmp_path / "w", store)
    writer.close()
    assert [p.name for p in tmp_path.iterdir()] == ["s"]


def test_a_writer_that_lost_its_lock_refuses_to_save(tmp_path: Path) -> None:
    """The lock file removed while the store is open (by hand, or a cleaner) lets a second
    writer in: the first one's close is refused, saves nothing, and leaves the second's
    lock in place."""
    store = tmp_path / "s"
    _store(store, bench=0)
    first = _open(tmp_path / "w", store)
    first.write([Item("bench-x-s0-e1-0000", "Nadia Berg owns a red bicycle.", "x", T0)])
    (tmp_path / ".s.lock").unlink()
    second = _open(tmp_path / "w", store)
    before = _snapshot(tmp_path)
    with pytest.raises(StoreError, match="was removed while the store was open; not saved"):
        first.close()
    assert _snapshot(tmp_path) == before  # the store, and the second writer's lock file
    second.close()
    assert Lattice.load(store).count("bench-") == 0


@pytest.mark.parametrize("meta", ["{not json", "[" * 100_000 + "]" * 100_000, "[1, 2]",
                                  '{"kind": "other-program", "format": 1}',
                                  '{"format": 99, "kind": "rshl-lattice"}'])
def test_a_directory_whose_meta_json_is_not_a_lattice_is_refused_before_the_run(
        tmp_path: Path, meta: str) -> None:
    """Another program's meta.json (or a damaged one): refused as the option is read, exit 2
    and nothing written (the run used to start, write its result, and fail every pair)."""
    store = tmp_path / "theirs"
    store.mkdir()
    (store / "meta.json").write_text(meta)
    info = load_plugins(autoload=True).registry.get("rshl")
    assert info is not None
    with pytest.raises(OptionError, match=r"meta\.json is not an RSHL lattice's|format 99"):
        resolve_options("rshl", info.options, {"path": str(store)})
    if meta.startswith("{not"):
        out = _cli(tmp_path, "run", "--backend", f"rshl:path={store}", "--scenario", "smoke",
                   "--seed", "0", "--out", "r.json", "--quiet")
        assert out.returncode == 2 and "not a store of ours" in out.stderr, out.stderr
        assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs"]
        assert [p.name for p in store.iterdir()] == ["meta.json"]
