"""A save is crash-safe at every step: fault injection at each write, fsync, rename and
delete. A child process saves and dies (``os._exit``, no cleanup runs) at step k; the
store then opens with every one of the user's cells, as the old or the new copy,
and the next save leaves nothing beside it."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from memory_bench_rshl import Lattice, LatticeConfig, Record, persist

from memory_bench import BackendContext
from memory_bench.plugins import load_plugins

T0 = datetime(2025, 6, 1, tzinfo=UTC)
CRASH = 17


def _store(path: Path) -> None:
    lat = Lattice(LatticeConfig(dim=1024))
    lat.write([Record(f"user-{i}", f"Person {name} keeps a diary about {thing}.", "notes",
                      T0 + timedelta(hours=i))
               for i, (name, thing) in enumerate([("Mara Olsen", "birds"),
                                                  ("Ivo Petrov", "trains"),
                                                  ("Lena Berg", "rivers")])])
    lat.save(path)


class _Faults:
    """Counts the save's steps; at step ``crash_at`` does half of it, then dies."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, crash_at: int | None) -> None:
        self.n, self.crash_at, self.steps = 0, crash_at, []
        write, replace, rmtree, fsync_dir = (persist._write, persist.os.replace,
                                             persist.shutil.rmtree, persist._fsync_dir)

        def step(name: str, half, whole) -> None:
            self.n += 1
            self.steps.append(name)
            if self.n == self.crash_at:
                half()
                os._exit(CRASH)
            whole()

        def fake_write(path: Path, fill) -> None:
            def half() -> None:
                import io

                buf = io.BytesIO()
                fill(buf)
                path.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
            step(f"write {path.name}", half, lambda: write(path, fill))

        def fake_replace(a, b) -> None:
            step(f"rename {Path(a).name} -> {Path(b).name}", lambda: None,
                 lambda: replace(a, b))

        def fake_rmtree(path, ignore_errors=False) -> None:
            def half() -> None:  # a delete cut short: one file gone
                files = sorted(Path(path).glob("*")) if Path(path).is_dir() else []
                if files:
                    files[0].unlink()
            step(f"delete {Path(path).name}", half,
                 lambda: rmtree(path, ignore_errors=ignore_errors))

        def fake_fsync_dir(directory: Path) -> None:
            step(f"fsync {directory.name}", lambda: None, lambda: fsync_dir(directory))

        monkeypatch.setattr(persist, "_write", fake_write)
        monkeypatch.setattr(persist.os, "replace", fake_replace)
        monkeypatch.setattr(persist.shutil, "rmtree", fake_rmtree)
        monkeypatch.setattr(persist, "_fsync_dir", fake_fsync_dir)


def _update_and_save(path: Path) -> None:
    """What a benchmark's close does: load, add cells, save."""
    lat = Lattice.load(path)
    lat.write([Record("bench-x-0", "Oskar Lind teaches piano in Bergen.", "b", T0 + timedelta(1))])
    lat.save(path)


def _steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    dry = tmp_path / "dry" / "store"
    _store(dry)
    with monkeypatch.context() as m:
        faults = _Faults(m, None)
        _update_and_save(dry)
    return faults.steps


def test_every_step_of_a_save_is_counted(tmp_path: Path, monkeypatch) -> None:
    steps = [re.sub(r"\.store\.new-[0-9a-f]+", ".store.new", s)
             for s in _steps(tmp_path, monkeypatch)]
    assert steps == [
        *(f"write {n}.npy" for n in ("codes", "acc", "scale", "norm", "dead", "region")),
        "write meta.json", "fsync .store.new",
        "delete .store.old", "rename store -> .store.old", "fsync dry",
        "rename .store.new -> store", "fsync dry", "delete .store.old",
    ]


def test_a_crash_at_any_step_of_a_save_loses_nothing(tmp_path: Path, monkeypatch) -> None:
    steps = _steps(tmp_path, monkeypatch)
    info = load_plugins(autoload=True).registry.get("rshl")
    assert info is not None
    outcomes = []
    for k in range(1, len(steps) + 1):
        store = tmp_path / f"crash-{k}" / "store"
        _store(store)
        pid = os.fork()
        if pid == 0:  # the child: save and die at step k
            try:
                with monkeypatch.context() as m:
                    _Faults(m, k)
                    _update_and_save(store)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == CRASH, (k, steps[k - 1])
        # What the next run does: open the store through the backend.
        options = {o.name: o.default for o in info.options}
        options.update(path=str(store), dim=1024)
        backend = info.factory(options, BackendContext(tmp_path, 0, "r"))
        try:
            assert backend.count("user-") == 3, (k, steps[k - 1])  # the user's cells
            outcomes.append(backend.count("bench-x-"))  # 0: the old copy, 1: the new one
        finally:
            backend.close()  # recovered on open; nothing changed, so not saved again
        siblings = sorted(p.name for p in store.parent.iterdir())
        assert siblings == ["store"], (k, steps[k - 1], siblings)  # no lock file left
    # Before the first rename the old copy is what survives; after the second, the new.
    first = next(i for i, s in enumerate(steps) if s.startswith("rename"))
    second = next(i for i, s in enumerate(steps) if s.startswith("rename") and i > first)
    assert outcomes[: second + 1] == [0] * (second + 1)
    assert outcomes[second + 1 :] == [1] * (len(steps) - second - 1)


def test_load_restores_the_old_copy_left_between_the_renames(tmp_path: Path) -> None:
    """The failure the hostile pass found: DIR gone, .DIR.old left; the next open
    used to start an empty store and delete .DIR.old."""
    store = tmp_path / "store"
    _store(store)
    os.replace(store, tmp_path / ".store.old")
    assert Lattice.load(store).count("user-") == 3
    assert not (tmp_path / ".store.old").exists()
    os.replace(store, tmp_path / ".store.old")
    store.mkdir()  # an empty DIR in the way (someone ran mkdir) is not a reason to lose it
    assert Lattice.load(store).count("user-") == 3
    os.replace(store, tmp_path / ".store.old")
    store.mkdir()
    (store / "notes.txt").write_text("mine")
    with pytest.raises(persist.StoreError, match="move one of them away"):
        Lattice.load(store)
    assert (tmp_path / ".store.old" / "meta.json").is_file()  # nothing was deleted


def test_a_save_never_replaces_a_directory_that_is_not_a_lattice(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "thesis.tex").write_text("my work")
    with pytest.raises(persist.StoreError, match="holding other files"):
        Lattice(LatticeConfig(dim=1024)).save(docs)
    assert (docs / "thesis.tex").read_text() == "my work"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]


def test_a_save_keeps_the_directory_s_permissions(tmp_path: Path) -> None:
    store = tmp_path / "store"
    _store(store)
    store.chmod(0o750)
    lat = Lattice.load(store)
    lat.save(store)
    assert store.stat().st_mode & 0o777 == 0o750
