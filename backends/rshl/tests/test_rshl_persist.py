"""Persistence: a directory of .npy arrays and JSON; a reload answers bit-identically."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from memory_bench_rshl import Lattice


def _answers(lat: Lattice, facts) -> list[list[tuple[str, float, float]]]:
    return [
        [(h.id, h.score, h.strength) for h in lat.query(q, 5, reinforce=False)] for _, q in facts
    ]


def test_round_trip_gives_identical_query_results(lattice: Lattice, facts, rec,
                                                  tmp_path: Path) -> None:
    lattice.write([
        rec("t-e2-0000", "Mara Olsen now works for Globex Shipping.", 30),  # text supersession
        rec("t-x-0000", "Ivo Petrov lives in the town of Lisbon!", 31, source="diary"),
    ])
    lattice.remove("t-e1-0003")  # a dead row must survive the round trip too
    for _, q in facts[:3]:
        lattice.query(q, 2)  # some strength and retrieval history
    lattice.save(tmp_path / "lat")
    loaded = Lattice.load(tmp_path / "lat")
    assert _answers(loaded, facts) == _answers(lattice, facts)
    assert loaded.lineage("t-e2-0000") == ["t-e1-0000", "t-e2-0000"]
    assert loaded.get("t-e1-0001").sources() == ("t-e1", "diary")
    assert loaded.count("t-") == lattice.count("t-")
    assert loaded.strength(["t-e1-0000", "t-e1-0003"]) == lattice.strength(
        ["t-e1-0000", "t-e1-0003"])
    # Both keep learning the same way after the reload.
    out_a = lattice.write([rec("t-e1-0099", "Nadia Berg owns a red bicycle.", 40)])
    out_b = loaded.write([rec("t-e1-0099", "Nadia Berg owns a red bicycle.", 40)])
    assert out_a == out_b
    assert _answers(loaded, facts) == _answers(lattice, facts)


def test_directory_holds_arrays_and_json_only(lattice: Lattice, tmp_path: Path) -> None:
    lattice.save(tmp_path / "lat")
    names = sorted(p.name for p in (tmp_path / "lat").iterdir())
    assert names == ["acc.npy", "codes.npy", "dead.npy", "meta.json", "norm.npy",
                     "region.npy", "scale.npy"]
    for p in (tmp_path / "lat").glob("*.npy"):
        np.load(p, allow_pickle=False)  # never pickled
    meta = json.loads((tmp_path / "lat" / "meta.json").read_text())
    assert meta["kind"] == "rshl-lattice" and len(meta["cells"]) == lattice.index.n


def test_save_replaces_an_existing_directory(lattice: Lattice, rec, tmp_path: Path) -> None:
    lattice.save(tmp_path / "lat")
    lattice.write([rec("t-e1-0100", "Nadia Berg owns a red bicycle.", 50)])
    lattice.save(tmp_path / "lat")
    assert Lattice.load(tmp_path / "lat").count("t-e1-0100") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lat"]


def test_load_refuses_a_foreign_directory(tmp_path: Path) -> None:
    (tmp_path / "meta.json").write_text('{"kind": "other"}')
    with pytest.raises(ValueError):
        Lattice.load(tmp_path)


def test_remove_and_count_by_prefix(lattice: Lattice) -> None:
    assert lattice.count("t-e1-") == 8 and lattice.count("t-e1-000") == 8
    assert lattice.count("zzz") == 0
    assert lattice.remove("t-e1-000") == 8
    assert lattice.count("t-") == 0 and lattice.live_count() == 0
    assert lattice.query("Who does Mara Olsen work for?", 5) == []
    assert lattice.remove("t-") == 0
