"""Per-pair files, and the result reduced from them.

Each finished pair is written, atomically, as ``<index>-<label>-s<seed>.json``
in the run's pair directory (``<result stem>.pairs/`` beside the result file).
The result file is the reduction of those files: a resume, or a reader of an
unfinished run, merges whatever pairs finished.
"""

from __future__ import annotations

from pathlib import Path

from memory_bench.results.io import dumps, load_pair_file, write_bytes_atomic
from memory_bench.results.model import BackendEntry, PairRun, Result
from memory_bench.results.paths import slug

__all__ = ["merge_pair_files", "pair_file_name", "pairs_dir_for", "store_pair",
           "write_pair_file"]

PAIR_SCHEMA = "memory-bench-pair/2.0"


def pairs_dir_for(result_path: Path) -> Path:
    """``runs/X.json`` -> ``runs/X.pairs``; ``reports/X.json.gz`` -> ``reports/X.pairs``."""
    stem = result_path.name.removesuffix(".gz").removesuffix(".json")
    return result_path.with_name(stem + ".pairs")


def pair_file_name(index: int, label: str, seed: int) -> str:
    return f"{index:03d}-{slug(label, 'backend')}-s{seed}.json"


def write_pair_file(directory: Path, index: int, label: str, run: PairRun) -> Path:
    path = directory / pair_file_name(index, label, run.seed)
    doc = {"schema": PAIR_SCHEMA, "label": label, "run": run.to_dict()}
    write_bytes_atomic(path, dumps(doc))
    return path


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
