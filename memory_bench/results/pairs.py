"""Per-pair files, and the result reduced from them.

Each finished pair is written, atomically, as ``<index>-<label>-s<seed>.json``
in the run's pair directory (``<result stem>.pairs/`` beside the result file).
The result file is the reduction of those files: a resume, or a reader of an
unfinished run, merges whatever pairs finished. Reading them back (``store_pair``,
``merge_pair_files``) lives in ``io`` beside ``load_result``, which merges them, and is
re-exported here: this module imports ``io``, never the other way round.
"""

from __future__ import annotations

from pathlib import Path

from memory_bench.results.io import dumps, merge_pair_files, store_pair, write_bytes_atomic
from memory_bench.results.model import PairRun
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
