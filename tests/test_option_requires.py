"""An option that needs another's value (``Option.requires``) is refused before a run,
in one line; the library stores' ``mode`` grants ``persistent`` and nothing else does
(issue 38)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.options import Option, OptionError, resolve_options
from memory_bench.plugins.manager import default_plugins
from memory_bench.plugins.selection import select_backends

OPTIONS = [Option("mode", str, "memory", choices=("memory", "persistent")),
           Option("path", str, None, requires={"mode": "persistent"})]


def test_a_required_value_is_checked_only_when_the_option_is_given() -> None:
    assert resolve_options("x", OPTIONS, {}) == {"mode": "memory", "path": None}
    assert resolve_options("x", OPTIONS, {"mode": "persistent", "path": "d"})["path"] == "d"
    with pytest.raises(OptionError, match=r"^backend x: option path needs mode=persistent$"):
        resolve_options("x", OPTIONS, {"path": "d"})


@pytest.mark.parametrize(("spec", "needs"), [("qdrant:path={d}", "path"),
                                             ("qdrant:url=http://127.0.0.1:1", "url"),
                                             ("chroma:host=127.0.0.1", "host"),
                                             ("mem0:path={d}", "path")])
def test_a_store_outside_the_pair_needs_the_persistent_mode(tmp_path: Path, spec: str,
                                                            needs: str) -> None:
    with pytest.raises(OptionError, match=f"option {needs} needs mode=persistent"):
        select_backends(default_plugins().registry, [spec.format(d=tmp_path / "new")])


@pytest.mark.parametrize("name", ["chroma", "qdrant", "mem0"])
def test_only_the_persistent_mode_is_persistent(tmp_path: Path, name: str) -> None:
    registry = default_plugins().registry
    memory, disk, named = select_backends(registry, [
        name, f"{name}:mode=persistent", f"{name}:mode=persistent,collection=other"
        if name != "mem0" else f"{name}:mode=persistent,path={tmp_path / 'new'}"])
    assert memory.options["mode"] == "memory"
    assert Capability.PERSISTENT not in memory.capabilities
    assert Capability.PERSISTENT in disk.capabilities
    # a pair's own store (in memory, or on disk in its workdir) is never shared
    assert not memory.info.shares_store(memory.options)
    assert not disk.info.shares_store(disk.options)
    assert named.info.shares_store(named.options) == (name == "mem0")
