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
        Capability.CONSOLIDATE, Capability.PERSISTENT, Capability.FORGET,
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
    assert _python(code).strip() == "[]"


def _python(code: str) -> str:
    """stdout of ``code`` in a fresh interpreter, which must exit 0."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


# What encoder=lexical must never load: a model, its runtimes, a vector library.
HEAVY = ("torch", "sentence_transformers", "transformers", "onnxruntime", "onnx", "tokenizers",
         "faiss", "scipy")


def test_the_lexical_encoder_runs_on_numpy_alone() -> None:
    """The library with the default encoder imports neither memory-bench nor a model; the
    backend with encoder=lexical runs a write, a query and a sleep without any model."""
    code = (
        "import sys, tempfile\n"
        "from datetime import UTC, datetime\n"
        "from pathlib import Path\n"
        "from memory_bench_rshl import Lattice, Record\n"
        "lat = Lattice()\n"
        "t = datetime(2026, 1, 1, tzinfo=UTC)\n"
        "lat.write([Record('f-1', 'Mara Olsen works for Acme Foods.', 'notes', t)])\n"
        "assert lat.query('Who does Mara Olsen work for?', 1)[0].id == 'f-1'\n"
        "lat.consolidate(); lat.save(Path(tempfile.mkdtemp()) / 'lat')\n"
        "library = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('memory_bench', 'memory_bench_embed', *HEAVY))\n"
        "from memory_bench import BackendContext, Item\n"
        "from memory_bench.contract.options import resolve_options\n"
        "from memory_bench.plugins import load_plugins\n"
        "info = load_plugins(autoload=True).registry.get('rshl')\n"
        "opts = resolve_options('rshl', info.options, {'encoder': 'lexical'})\n"
        "be = info.factory(opts, BackendContext(Path(tempfile.mkdtemp()), 0, 'r'))\n"
        "be.write([Item('bench-r-1', 'Mara Olsen works for Acme Foods.', 's', t)])\n"
        "assert be.query('Who does Mara Olsen work for?', 1)[0].id == 'bench-r-1'\n"
        "be.consolidate(); be.close()\n"
        "backend = sorted(m for m in sys.modules if m.split('.')[0] in HEAVY)\n"
        "print(library, backend)\n"
    )
    assert _python(f"HEAVY = {HEAVY!r}\n" + code).strip() == "[] []"


def test_without_the_embedder_rshl_is_lexical_only() -> None:
    """memory-bench-embed is optional: without it rshl registers, runs lexical, and refuses
    encoder=dense before any pair runs, saying what to install."""
    code = (
        "import sys\n"
        "from importlib.abc import MetaPathFinder\n"
        "class Block(MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'memory_bench_embed':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from memory_bench.contract.options import OptionError, resolve_options\n"
        "from memory_bench.plugins import load_plugins\n"
        "info = load_plugins(autoload=True).registry.get('rshl')\n"
        "names = {o.name for o in info.options}\n"
        "assert 'encoder' in names and 'model' not in names, names\n"
        "assert resolve_options('rshl', info.options, {})['encoder'] == 'lexical'\n"
        "try:\n"
        "    resolve_options('rshl', info.options, {'encoder': 'dense'})\n"
        "except OptionError as exc:\n"
        "    print(exc)\n"
    )
    assert "memory-bench-rshl[semantic]" in _python(code)


def test_thresholds_follow_the_encoder_unless_given() -> None:
    from memory_bench_rshl.backend import config_from_options
    from memory_bench_rshl.config import CALIBRATED

    info = _info()
    for kind in ("lexical", "dense", "hybrid"):
        config = config_from_options(resolve_options("rshl", info.options, {"encoder": kind}))
        assert config.encoder == kind
        assert config.merge_cosine == CALIBRATED[kind]["merge_cosine"]
        assert config.supersede_text_cosine == CALIBRATED[kind]["supersede_text_cosine"]
    given = resolve_options("rshl", info.options, {"encoder": "dense", "merge_cosine": "0.5",
                                                   "supersede_cosine": "0.4"})
    config = config_from_options(given)
    assert (config.merge_cosine, config.supersede_text_cosine) == (0.5, 0.4)
    # the result's manifest records the thresholds that ran, given or calibrated
    ran = info.manifest(given)
    assert ran["similarity"] == {"encoder": "dense", "merge_cosine": 0.5,
                                 "supersede_cosine": 0.4}
    assert ran["embedding_model"]["name"] == "all-MiniLM-L6-v2"
    hybrid = info.manifest(resolve_options("rshl", info.options, {"encoder": "hybrid"}))
    assert hybrid["similarity"] == {"encoder": "hybrid", "dense_weight": 0.65,
                                    **{"merge_cosine": CALIBRATED["hybrid"]["merge_cosine"],
                                       "supersede_cosine":
                                       CALIBRATED["hybrid"]["supersede_text_cosine"]}}
    assert "embedding_model" not in info.manifest(resolve_options("rshl", info.options, {}))
    # the embedding options are the shared embedder's, as faiss-rag declares them
    from memory_bench_embed import embedding_options

    assert {o.name for o in embedding_options()} <= {o.name for o in info.options}


@pytest.mark.slow
def test_a_live_store_opens_only_with_its_encoder(tmp_path: Path) -> None:
    store = tmp_path / "live"
    be = _backend(tmp_path / "w1", path=str(store), dim="1024", encoder="dense")
    be.write(_items(2, "keep"))
    assert be.query("Where is Mara Olsen's home?", 1)[0].id == "keep-0000"
    be.close()
    with pytest.raises(ValueError, match="saved with encoder='dense'; the options ask for "
                                         "'lexical'"):
        _backend(tmp_path / "w2", path=str(store), dim="1024")
    with pytest.raises(ValueError, match="'hybrid'"):
        _backend(tmp_path / "w3", path=str(store), dim="1024", encoder="hybrid")
    again = _backend(tmp_path / "w4", path=str(store), dim="1024", encoder="dense")
    assert again.count("keep") == 2
    again.close()


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
