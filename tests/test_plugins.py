"""Plugin loading: entry points, env modules, objects, broken plugins, duplicates."""

from __future__ import annotations

import sys
import types

import fake_backends
import pytest

from memory_bench import hookimpl
from memory_bench.plugins import load_plugins
from memory_bench.plugins.backends import DuplicateBackendError


def test_objects_register_backends_sorted() -> None:
    loaded = load_plugins([("fakes", fake_backends)], autoload=False)
    assert loaded.registry.names() == sorted(loaded.registry.names())
    assert "fake-perfect" in loaded.registry.names()
    info = loaded.registry.get("fake-forgetful")
    assert info is not None and info.plugin.startswith("fakes")
    assert [o.name for o in info.options] == ["capacity"]


def test_env_plugins_and_broken_plugin_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_BENCH_PLUGINS", "fake_backends,broken_plugin")
    loaded = load_plugins(autoload=False)
    assert "fake-perfect" in loaded.registry.names()  # the others still work
    assert len(loaded.broken) == 1
    broken = loaded.broken[0]
    assert broken.entry_point == "broken_plugin"
    assert "ImportError" in broken.error and "broken on purpose" in broken.error


def test_duplicate_name_names_both_plugins() -> None:
    import dup_plugin

    with pytest.raises(DuplicateBackendError) as err:
        load_plugins([("fakes", fake_backends), ("dup", dup_plugin)], autoload=False)
    assert "fakes" in str(err.value) and "dup" in str(err.value)
    assert "fake-perfect" in str(err.value)


def test_hook_that_raises_is_broken_not_fatal() -> None:
    mod = types.ModuleType("raising_plugin")

    @hookimpl
    def memory_bench_register_backends(registry) -> None:
        raise RuntimeError("boom")

    mod.memory_bench_register_backends = memory_bench_register_backends
    loaded = load_plugins([("fakes", fake_backends), ("raising", mod)], autoload=False)
    assert [b.entry_point for b in loaded.broken] == ["raising"]
    assert "fake-perfect" in loaded.registry.names()


def test_bad_backend_name_rejected() -> None:
    mod = types.ModuleType("bad_name")

    @hookimpl
    def memory_bench_register_backends(registry) -> None:
        registry.add("Bad Name", factory=lambda o, c: None, description="", version="1")

    mod.memory_bench_register_backends = memory_bench_register_backends
    loaded = load_plugins([("bad", mod)], autoload=False)
    assert loaded.broken and "backend name" in loaded.broken[0].error


def test_options_declare_what_they_grant_and_what_they_make_a_backend_read() -> None:
    from memory_bench import Option
    from memory_bench.plugins.backends import BackendRegistry
    from memory_bench.plugins.selection import select_backends

    registry = BackendRegistry()
    registry.add("mem", factory=lambda o, c: None, description="", version="1",
                 capabilities=["provenance"], options=[
                     Option("gate", str, "none", choices=("none", "rules"),
                            grants={"rules": ("gate",)}),
                     Option("key", str, "text", choices=("text", "tags"),
                            reads={"tags": ("tags",)})])
    plain, gated, keyed = select_backends(registry, ["mem", "mem:gate=rules", "mem:key=tags"])
    assert {c.value for c in plain.capabilities} == {"provenance"} and plain.reads == ()
    assert {c.value for c in gated.capabilities} == {"provenance", "gate"}
    assert keyed.reads == ("tags",) and "gate" not in keyed.capabilities
    assert registry.get("mem").to_dict()["options"][0]["grants"] == {"rules": ["gate"]}
    with pytest.raises(ValueError, match="unknown capability"):
        registry.add("bad-grant", factory=lambda o, c: None, description="", version="1",
                     options=[Option("x", str, "a", grants={"a": ("telepathy",)})])
    with pytest.raises(ValueError, match="not item structure"):
        registry.add("bad-read", factory=lambda o, c: None, description="", version="1",
                     reads=["answer_key"])


def test_entry_points_listing_imports_no_heavy_library() -> None:
    """Listing every installed plugin must not import torch, faiss, chromadb or bm25s."""
    import subprocess

    code = (
        "import sys; from memory_bench.plugins import load_plugins; l = load_plugins();"
        "heavy = [m for m in ('torch', 'faiss', 'chromadb', 'sentence_transformers', 'bm25s')"
        " if m in sys.modules]; print(','.join(l.registry.names())); print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={"PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_a_persistent_backend_shares_a_store_unless_it_says_each_pair_has_its_own() -> None:
    """Pairs of a persistent backend run one at a time only when they share a store: a
    directory the user named; in its own workdir each pair's store is its own."""
    from memory_bench.plugins.backends import BackendRegistry

    registry = BackendRegistry()
    common = {"factory": lambda o, c: None, "description": "", "version": "1"}
    registry.add("live", capabilities=["persistent"],
                 own_store=lambda o: not o.get("path"), **common)
    registry.add("unsaid", capabilities=["persistent"], **common)
    registry.add("volatile", **common)
    live = registry.get("live")
    assert not live.shares_store({"path": None}) and live.shares_store({"path": "/x"})
    assert registry.get("unsaid").shares_store({})  # no declaration: the safe side
    assert not registry.get("volatile").shares_store({"path": "/x"})
    with pytest.raises(TypeError, match="own_store is not callable"):
        registry.add("bad", own_store=True, **common)
