"""The plugin: found through its entry point, light to list, and a working Backend."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory_bench import Backend, BackendContext, Capability, Item
from memory_bench.contract.options import OptionError, resolve_options
from memory_bench.plugins import load_plugins


def _info():
    loaded = load_plugins(autoload=True)
    info = loaded.registry.get("rshl")
    assert info is not None, [b.describe() for b in loaded.broken]
    return info


def test_found_through_the_entry_point() -> None:
    info = _info()
    assert info.plugin.startswith("rshl = memory_bench_rshl.plugin")
    assert "memory-bench-rshl" in info.plugin
    assert info.capabilities == {
        Capability.PROVENANCE, Capability.STRENGTH, Capability.GATE,
        Capability.CONSOLIDATE, Capability.PERSISTENT,
    }
    assert any("tags" in n for n in info.notes)


def test_listing_plugins_imports_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "from memory_bench.plugins import load_plugins\n"
        "assert load_plugins(autoload=True).registry.get('rshl') is not None\n"
        "heavy = {'memory_bench_rshl.lattice', 'memory_bench_rshl.backend', 'faiss', 'torch',"
        " 'sentence_transformers'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def _items(n: int, prefix: str = "bench-r1-e1") -> list[Item]:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    people = ["Mara Olsen", "Ivo Petrov", "Lena Berg", "Tomas Haddad"]
    towns = ["Lisbon", "Krakow", "Lyon", "Porto"]
    return [
        Item(f"{prefix}-{i:04d}", f"{people[i]} lives in the town of {towns[i]}.", prefix,
             t0 + timedelta(minutes=i), tags=(f"subject:{people[i]}", "relation:lives_in"))
        for i in range(n)
    ]


def _backend(tmp_path: Path, **raw: str) -> Backend:
    info = _info()
    options = resolve_options("rshl", info.options, raw)
    return info.factory(options, BackendContext(workdir=tmp_path, seed=0, run_id="r1"))


def test_backend_protocol_round_trip(tmp_path: Path) -> None:
    be = _backend(tmp_path, dim="1024")
    assert isinstance(be, Backend)
    items = _items(4)
    results = be.write(items)
    assert [r.id for r in results] == [i.id for i in items] and all(r.accepted for r in results)
    hit = be.query("Where does Ivo Petrov live?", 3)[0]
    assert hit.id == items[1].id and hit.source == items[1].source
    assert hit.timestamp == items[1].timestamp and hit.strength is not None
    assert be.strength([items[1].id, "unknown"])[1] is None
    assert be.write([Item("bench-r1-g-0000", "  ", "g", items[0].timestamp)])[0].reason == "empty"
    assert isinstance(be.consolidate(), dict)
    assert be.count("bench-r1-") == 4 and be.remove("bench-r1-") == 4
    assert be.count("bench-r1-") == 0
    be.close()


def test_path_option_makes_a_live_store(tmp_path: Path) -> None:
    store = tmp_path / "live"
    be = _backend(tmp_path / "w1", path=str(store), dim="1024")
    be.write(_items(2, "keep"))
    be.close()
    again = _backend(tmp_path / "w2", path=str(store), dim="1024")
    assert again.count("keep") == 2
    assert again.query("Where does Mara Olsen live?", 1)[0].id == "keep-0000"
    again.close()
    with pytest.raises(ValueError, match="dim"):
        _backend(tmp_path / "w3", path=str(store), dim="2048")


def test_options_are_validated() -> None:
    info = _info()
    with pytest.raises(OptionError):
        resolve_options("rshl", info.options, {"supersede": "maybe"})
    with pytest.raises(OptionError):
        resolve_options("rshl", info.options, {"nope": "1"})
    assert resolve_options("rshl", info.options, {})["dim"] == 4096
