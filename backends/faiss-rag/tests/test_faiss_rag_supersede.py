"""supersede=tags: a newer version of a (subject, relation) hides the older one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from memory_bench_faiss_rag.versions import Versions

from memory_bench import BackendContext, Item
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TAGS = ("subject:Mara Olsen", "relation:works_for")


def _item(iid: str, text: str, minutes: int, tags: tuple[str, ...] = TAGS) -> Item:
    return Item(iid, text, source=iid.rsplit("-", 1)[0], timestamp=T0 + timedelta(minutes=minutes),
                tags=tags)


def test_versions_keep_the_newest_current_and_resurrect_on_removal() -> None:
    v = Versions()
    assert v.add(0, _item("a-e1-0", "x", 1)) is None
    assert v.add(1, _item("a-e2-0", "y", 9)) == 0
    assert v.add(2, _item("a-late-0", "z", 5)) is None  # older than current: hidden on arrival
    assert v.hidden == {0, 2} and v.current(("mara olsen", "works_for")) == 1
    v.discard([1])
    assert v.hidden == {0} and v.current(("mara olsen", "works_for")) == 2
    assert v.add(3, _item("a-n-0", "w", 2, tags=())) is None and 3 not in v.hidden


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["faiss-rag:supersede=tags",
                                  "faiss-rag-recency:supersede=tags,index=hnsw"])
def test_the_old_value_is_hidden_but_kept(spec: str, tmp_path: Path) -> None:
    sel = select_backends(load_plugins().registry, [spec])[0]
    ctx = BackendContext(workdir=tmp_path, seed=0, run_id="t", cache_dir=tmp_path / "cache")
    b = sel.info.factory(dict(sel.options), ctx)
    try:
        other = _item("bench-x-e1-0001", "Ivo Brandt was born in Kellsport.", 2,
                      ("subject:Ivo Brandt", "relation:born_in"))
        b.write([_item("bench-x-e1-0000", "Mara Olsen works for Fathom Foods.", 1), other])
        (res,) = b.write([_item("bench-x-e2-0000", "Mara Olsen now works for Copperline.", 60)])
        assert res.supersedes == "bench-x-e1-0000"
        ids = [h.id for h in b.query("Who does Mara Olsen work for?", 5)]
        assert ids == ["bench-x-e2-0000", "bench-x-e1-0001"]
        assert b.count("bench-x-e1-0000") == 1  # kept, with its provenance, for lineage
        assert b.remove("bench-x-e2-") == 1
        assert b.query("Who does Mara Olsen work for?", 1)[0].id == "bench-x-e1-0000"
    finally:
        b.close()
