"""Reading and writing result files: JSON (gzip for ``.gz``), written atomically.

``load_result`` refuses a damaged file with one line naming the JSON path of
the first problem (deep nesting included) and returns a typed
:class:`~memory_bench.results.model.Result`; a 1.x file is migrated.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import tempfile
import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory_bench.records import strictjson
from memory_bench.records.reader import Reader, ResultError
from memory_bench.results.model import SCHEMA, BackendEntry, PairRun, Result
from memory_bench.results.paths import FileSet, release_report_paths

__all__ = [
    "SCHEMA",
    "ResultError",
    "dumps",
    "load_json",
    "load_pair_file",
    "load_result",
    "merge_pair_files",
    "new_file_mode",
    "now_iso",
    "store_pair",
    "write_bytes_atomic",
    "write_json_exclusive",
    "write_reserved",
    "write_result",
    "write_set_atomic",
]

def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def dumps(doc: dict[str, Any]) -> bytes:
    # Compact: the C encoder is several times faster than indent=...;
    # `memory-bench report --format json` pretty-prints.
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def write_result(path: Path, result: Result, *, exclusive: bool = False) -> None:
    """Write via a temporary file and rename, so a crash never leaves half a file.

    A name ending in ``.gz`` is gzip-compressed (published copies under reports/).
    ``exclusive``: create it, or raise FileExistsError (a run's first write).
    """
    write_bytes_atomic(path, dumps(result.to_dict()), exclusive=exclusive)


def write_json_exclusive(path: Path, doc: dict[str, Any]) -> None:
    """Create ``path`` holding ``doc``; fail (FileExistsError) if it exists."""
    write_bytes_atomic(path, dumps(doc), exclusive=True)


def _staged(path: Path, data: bytes) -> str:
    """``data`` (gzip-compressed for ``.gz``) in a complete, synced temporary file
    beside ``path``; its name is returned."""
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, new_file_mode())  # as open() would make it, not mkstemp's 0600
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def write_bytes_atomic(path: Path, data: bytes, *, exclusive: bool = False) -> None:
    """``data`` to ``path`` (gzip-compressed when it ends in .gz), atomically.

    ``exclusive``: never replace an existing file (FileExistsError): the complete
    temporary file is hard-linked into place, which fails if the name is taken.
    """
    tmp = _staged(path, data)
    try:
        if exclusive:
            os.link(tmp, path)
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_set_atomic(files: dict[Path, bytes]) -> None:
    """Every file staged complete first, then renamed into place in one short loop:
    a process killed while writing leaves the old files (a reserved set: empty)."""
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in files.items():
            staged.append((_staged(path, data), path))
        for tmp, path in staged:
            os.replace(tmp, path)
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)


def write_reserved(paths: FileSet, render: Callable[[], dict[Path, bytes]]) -> None:
    """Publish a set reserved beforehand (:func:`~memory_bench.results.paths.reserve_set`):
    ``render()`` its files, stage them all, then rename them into place
    (:func:`write_set_atomic`); a file of the set it did not render (a plot not drawn)
    is removed, not left empty. On any failure or interrupt the whole set is removed (the
    names were ours: half a set is no publication). The claim is released either way."""
    try:
        write_set_atomic(render())
        for p in paths.all():
            if p.exists() and p.stat().st_size == 0:
                p.unlink()
    except BaseException:
        for p in paths.all():
            p.unlink(missing_ok=True)
        raise
    finally:
        release_report_paths(paths)


def new_file_mode() -> int:
    """The mode ``open()`` gives a new file (0o666 less the umask): for a file made with
    ``mkstemp`` (0600) that a user will read as their own."""
    return 0o666 & ~_umask()


def _umask() -> int:
    """This process's umask, read without changing it (os.umask would, for every thread)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _cut_short(text: str) -> bool:
    """An object cut off: it opens with ``{`` and, strings aside, leaves a bracket
    or a string unclosed (a file cut anywhere looks like this; garbage does not)."""
    if not text.lstrip().startswith("{"):
        return False
    bare = _STRING.sub("", text)
    if '"' in bare:
        return True  # a string never closed
    depth = 0
    for ch in bare:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return depth > 0


MAX_JSON_BYTES = 2 << 30  # 2 GiB of JSON: 80 x the largest result published (26 MB)


def _gunzip(raw: bytes, path: Path, what: str, limit: int | None = None) -> bytes:
    """Every gzip member of ``raw``, decompressed to at most ``limit`` bytes."""
    limit = MAX_JSON_BYTES if limit is None else limit
    out: list[bytes] = []
    size = 0
    try:
        while raw:
            d = zlib.decompressobj(wbits=31)  # one gzip member
            while True:
                chunk = d.decompress(raw, max(1, limit + 1 - size))
                out.append(chunk)
                size += len(chunk)
                if size > limit:
                    raise ResultError(f"{what} {path} decompresses to more than "
                                      f"{limit:,} bytes: not a result this reader takes")
                if d.eof or not d.unconsumed_tail:
                    break
                raw = d.unconsumed_tail
            if not d.eof:
                raise ResultError(f"{what} {path} is truncated (gzip stream ends early)")
            raw = d.unused_data.lstrip(b"\0")
    except zlib.error as exc:
        raise ResultError(f"{what} {path} is not valid gzip: {exc}") from None
    return b"".join(out)


def load_json(path: Path, what: str = "result file") -> Any:
    """Read ``path`` (gzip for ``.gz``) as JSON; ResultError with one line if it is not.
    Only a regular file is read (a FIFO or a device would block or never end), and a
    ``.gz`` is decompressed to at most ``MAX_JSON_BYTES`` (a gzip bomb is refused)."""
    if path.exists() and not path.is_file():
        raise ResultError(f"{what} {path} is not a file")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ResultError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if path.name.endswith(".gz"):
        raw = _gunzip(raw, path, what)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ResultError(f"{what} {path} is not valid JSON: not UTF-8 text") from None
    try:
        return strictjson.decode(text)
    except json.JSONDecodeError as exc:
        kind = "truncated" if _cut_short(text) else "not valid JSON"
        raise ResultError(f"{what} {path} is {kind}: {exc.msg} at line {exc.lineno}") from None
    except strictjson.StrictJSONError as exc:
        raise ResultError(f"{what} {path}: {exc}") from None
    except RecursionError:  # json's decoder recurses once per nesting level
        raise ResultError(f"{what} {path} is nested too deeply to be a result: damaged") from None


def load_result(path: Path, *, merge_pairs: bool = True) -> Result:
    """Read and validate a result file; any 1.x or 2.x file is accepted.

    An unfinished run (``running``, ``interrupted``) is completed from its
    per-pair files when they are beside it (``merge_pairs``).
    """
    data = load_json(path)
    try:
        result = Result.from_dict(data)
    except ResultError as exc:
        sep = " " if str(exc).startswith("has ") else ": "
        raise ResultError(f"result file {path}{sep}{exc}") from None
    if merge_pairs and result.pairs and result.status != "complete":
        merge_pair_files(result, path.parent / result.pairs)
    return result


def load_pair_file(path: Path) -> tuple[str, PairRun]:
    """(label, run) from one per-pair file."""
    data = load_json(path, "pair file")
    try:
        r = Reader(data)
        return r.str("label"), PairRun.read(r.at("run"))
    except ResultError as exc:
        raise ResultError(f"pair file {path}: {exc}") from None


def store_pair(entry: BackendEntry, run: PairRun, seeds: list[int]) -> None:
    """Put a run in its backend's list, replacing an earlier one of its seed; seed order."""
    runs = [r for r in entry.runs if r.seed != run.seed] + [run]
    order = {s: i for i, s in enumerate(seeds)}
    entry.runs = sorted(runs, key=lambda r: order.get(r.seed, len(order)))


def merge_pair_files(result: Result, directory: Path) -> int:
    """Add every pair file in ``directory`` to ``result`` (an ok run is never replaced by
    a failed one); returns how many were merged."""
    if not directory.is_dir():
        return 0
    by_label = {b.label: b for b in result.backends}
    merged = 0
    for path in sorted(directory.glob("*.json")):
        label, run = load_pair_file(path)
        entry = by_label.get(label)
        if entry is None:
            continue
        have = entry.run_for(run.seed)
        if have is not None and have.ok and not run.ok:
            continue
        store_pair(entry, run, result.seeds)
        merged += 1
    return merged
