"""chroma through the Backend protocol with real chromadb and the real model."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory_bench import BackendContext, Item, NotSupportedError
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends

T0 = datetime(2026, 1, 1, tzinfo=UTC)
FACTS = [
    "Mara Olsen works for Fathom Foods.",
    "Ivo Brandt was born in Kellsport.",
    "The phone extension of Lena Park is 4471.",
    "Tobias Wren's dog is called Biscuit.",
    "Greta Lund lives in Harrowgate.",
]


def _items(prefix: str, texts: list[str], start_min: int = 0) -> list[Item]:
    return [
        Item(f"{prefix}-{i:04d}", t, source=prefix, timestamp=T0 + timedelta(minutes=start_min + i))
        for i, t in enumerate(texts)
    ]


def _make(tmp_path: Path, spec: str = "chroma"):
    sel = select_backends(load_plugins().registry, [spec])[0]
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    ctx = BackendContext(workdir=work, seed=0, run_id="t", cache_dir=tmp_path / "cache")
    return sel.info.factory(dict(sel.options), ctx)


def test_listing_plugins_imports_neither_chromadb_nor_torch() -> None:
    code = textwrap.dedent(
        """
        import json, sys
        from memory_bench.plugins import load_plugins
        info = load_plugins().registry.get("chroma")
        heavy = [m for m in ("chromadb", "torch", "sentence_transformers", "onnxruntime")
                 if m in sys.modules]
        print(json.dumps({"caps": sorted(c.value for c in info.capabilities), "heavy": heavy}))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    assert got == {"caps": ["forget", "provenance"], "heavy": []}


@pytest.mark.slow
# Reading .configuration of a collection without an embedding function warns; harmless.
@pytest.mark.filterwarnings("ignore:legacy embedding function config:DeprecationWarning")
def test_query_remove_count_and_provenance(tmp_path: Path) -> None:
    b = _make(tmp_path)
    try:
        assert b.collection._embedding_function is None  # chroma's default never runs
        assert b.collection.configuration["hnsw"]["space"] == "cosine"
        items = _items("bench-a-e1", FACTS)
        assert all(r.accepted for r in b.write(items))
        b.write(_items("other-b", FACTS[:2], 50))
        hits = b.query("Who does Mara Olsen work for?", 3)
        assert hits[0].id == "bench-a-e1-0000"
        assert hits[0].source == "bench-a-e1" and hits[0].timestamp == items[0].timestamp
        assert 0.5 < hits[0].score <= 1.0 + 1e-6
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert b.count("bench-") == 5 and b.count("") == 7
        assert b.remove("bench-a-") == 5 and b.count("bench-") == 0 and b.count("") == 2
        assert {h.id for h in b.query("Who does Mara Olsen work for?", 5)} == {
            "other-b-0000", "other-b-0001"}
        with pytest.raises(NotSupportedError):
            b.strength(["other-b-0000"])
    finally:
        b.close()


@pytest.mark.slow
def test_writing_an_id_again_replaces_it(tmp_path: Path) -> None:
    b = _make(tmp_path)
    try:
        b.write(_items("bench-x-e1", FACTS))
        b.write([Item("bench-x-e1-0000", "Mara Olsen works for Copperline Freight.",
                      "bench-x-e2", T0 + timedelta(hours=5))])
        assert b.count("bench-x-e1-0000") == 1
        hit = b.query("Who does Mara Olsen work for?", 1)[0]
        assert hit.id == "bench-x-e1-0000" and hit.source == "bench-x-e2"
    finally:
        b.close()


@pytest.mark.slow
def test_the_embedded_store_outlives_the_backend(tmp_path: Path) -> None:
    store = tmp_path / "store"
    b = _make(tmp_path, f"chroma:mode=persistent,path={store}")
    try:
        b.write(_items("bench-p-e1", FACTS))
    finally:
        b.close()
    again = _make(tmp_path, f"chroma:mode=persistent,path={store}")
    try:
        assert again.count("bench-p-") == 5
        assert again.query("Where was Ivo Brandt born?", 1)[0].id == "bench-p-e1-0001"
        assert again.remove("bench-p-") == 5 and again.count("") == 0
    finally:
        again.close()


# Records and refuses every non-Unix socket connection and DNS lookup in the child.
_GUARDED_RUN = textwrap.dedent(
    """
    import json, socket, sys, tempfile
    from datetime import UTC, datetime
    from pathlib import Path
    attempts = []
    _connect = socket.socket.connect
    def guarded(self, address):
        if self.family != socket.AF_UNIX:
            attempts.append(repr(address))
            raise OSError(101, "network unreachable (test guard)")
        return _connect(self, address)
    def no_dns(*args, **kwargs):
        attempts.append("getaddrinfo " + repr(args))
        raise socket.gaierror(-3, "no DNS (test guard)")
    socket.socket.connect = guarded
    socket.getaddrinfo = no_dns
    from memory_bench import BackendContext, Item
    from memory_bench.plugins import load_plugins
    from memory_bench.plugins.selection import select_backends
    sel = select_backends(load_plugins().registry, ["chroma"])[0]
    work = Path(tempfile.mkdtemp())
    b = sel.info.factory(dict(sel.options), BackendContext(work, 0, "t", None))
    t = datetime(2026, 1, 1, tzinfo=UTC)
    b.write([Item("bench-n-e1-0000", "Mara Olsen works for Fathom Foods.", "bench-n-e1", t)])
    top = b.query("Who does Mara Olsen work for?", 1)[0].id
    b.remove("bench-")
    b.close()
    print(json.dumps({"attempts": attempts, "top": top}))
    """
)


@pytest.mark.slow
def test_embedded_chroma_never_touches_the_network(tmp_path: Path) -> None:
    script = tmp_path / "guarded_chroma.py"
    script.write_text(_GUARDED_RUN)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"attempts": [], "top": "bench-n-e1-0000"}


@pytest.mark.slow
def test_the_store_check_before_a_run_never_writes_a_users_store(tmp_path: Path) -> None:
    """Chroma writes its files on open and close: the harness's read-only check (which
    refuses a run for stale items) counts on a copy, so no byte, inode or mtime of the
    user's directory changes, and nothing is left beside it."""
    import hashlib

    from memory_bench.harness.livestore import _inspect

    home = tmp_path / "home"
    store = home / "store"
    b = _make(tmp_path, f"chroma:mode=persistent,path={store}")
    try:
        b.write(_items("bench-earlier-s0-e1", FACTS[:3]))
    finally:
        b.close()

    def snapshot() -> dict[str, tuple[int, int, str]]:
        return {str(p.relative_to(home)): (p.stat().st_ino, p.stat().st_mtime_ns,
                                           hashlib.sha256(p.read_bytes()).hexdigest()
                                           if p.is_file() else "dir")
                for p in sorted(home.rglob("*"))}

    before = snapshot()
    (sel,) = select_backends(load_plugins().registry, [f"chroma:mode=persistent,path={store}"])
    info = _inspect(sel, "now", tmp_path / "cache", clean_stale=False, root=tmp_path)
    assert info == {"found": 3, "own": 0, "stale": 3, "left": 3}
    assert snapshot() == before


@pytest.mark.parametrize(("files", "message"), [
    ({"notes.txt": b"mine"}, "holds files but no Chroma store"),
    ({"chroma.sqlite3": b"not a database"}, "is not a SQLite database"),
])
def test_a_directory_that_is_not_a_chroma_store_is_refused_before_the_run(
        tmp_path: Path, files: dict[str, bytes], message: str) -> None:
    """Checked when the option is read (exit 2, nothing written), touching nothing: a run
    used to put chroma's database among the user's files, or fail every pair after
    writing its result."""
    from memory_bench.contract.options import OptionError

    theirs = tmp_path / "theirs"
    theirs.mkdir()
    for name, data in files.items():
        (theirs / name).write_bytes(data)
    with pytest.raises(OptionError, match=message):
        select_backends(load_plugins().registry, [f"chroma:mode=persistent,path={theirs}"])
    assert sorted(p.name for p in theirs.iterdir()) == sorted(files)
