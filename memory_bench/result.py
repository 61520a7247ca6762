"""The result file: JSON with schema ``memory-bench/1.0``, written atomically."""

from __future__ import annotations

import gzip
import json
import os
import re
import tempfile
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory_bench.metrics import METRICS
from memory_bench.stats import metric_bounds, summarize

__all__ = [
    "SCHEMA",
    "ResultError",
    "load_result",
    "now_iso",
    "scenario_params",
    "summarize_backends",
    "write_bytes_atomic",
    "write_result",
]

SCHEMA = "memory-bench/1.0"
SCHEMA_NAME, _, SCHEMA_VERSION = SCHEMA.partition("/")


class ResultError(ValueError):
    """A result file that cannot be read: not JSON, truncated, or another schema."""


# What the runner adds to the scenario block besides the parameters themselves.
DERIVED_SCENARIO_KEYS = ("data_hashes", "data_stats")


def scenario_params(result: dict[str, Any]) -> dict[str, Any]:
    """The scenario's parameters as written, without the per-seed data it derived."""
    return {k: v for k, v in result["scenario"].items() if k not in DERIVED_SCENARIO_KEYS}


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def summarize_backends(result: dict[str, Any]) -> None:
    """Fill each backend's ``summary`` from the metrics of its successful runs."""
    for b in result["backends"]:
        ok = [r for r in b["runs"] if r.get("status") == "ok"]
        b["summary"] = {
            m.name: summarize([r["metrics"].get(m.name) for r in ok], bounds=metric_bounds(m))
            for m in METRICS
        }


def _dumps(result: dict[str, Any]) -> bytes:
    # Compact: the C encoder is several times faster than indent=..., and the runner
    # rewrites the file after every pair. `memory-bench report --format json` pretty-prints.
    return (json.dumps(result, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def write_result(path: Path, result: dict[str, Any]) -> None:
    """Write via a temporary file and rename, so a crash never leaves half a file.

    A name ending in ``.gz`` is gzip-compressed (published copies under reports/).
    """
    write_bytes_atomic(path, _dumps(result))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """``data`` to ``path`` (gzip-compressed when it ends in .gz), atomically."""
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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


def load_result(path: Path) -> dict[str, Any]:
    """Read and check a result file; any 1.x file is accepted by a 1.y reader."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ResultError(f"cannot read result file {path}: {exc.strerror or exc}") from None
    if path.name.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except EOFError:
            raise ResultError(f"result file {path} is truncated (gzip stream ends early)") from None
        except (OSError, zlib.error) as exc:
            raise ResultError(f"result file {path} is not valid gzip: {exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ResultError(f"result file {path} is not valid JSON: not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        what = "truncated" if _cut_short(text) else "not valid JSON"
        raise ResultError(f"result file {path} is {what}: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, dict) or "schema" not in data:
        raise ResultError(f"result file {path} has no schema field: not a memory-bench result")
    name, _, version = str(data["schema"]).partition("/")
    if name != SCHEMA_NAME or version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise ResultError(
            f"result file {path} has schema {data['schema']!r}; this reader takes {SCHEMA_NAME}/1.x"
        )
    for key in ("run_id", "scenario", "seeds", "backends"):
        if key not in data:
            raise ResultError(f"result file {path} lacks {key!r}")
    return data
