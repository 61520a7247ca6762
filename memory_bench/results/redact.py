"""This machine's paths, out of the error text a run writes.

A traceback names every file by where it is installed (the full path of the venv)
and an error message may name a temporary directory: a published result must
not. Error text is rewritten as it enters the result (``redact_run``,
``redact_result``), so the result file, the pair files and every report agree.
Paths a user gave (a ``--backend`` option, a scenario parameter) are recorded
as given: they are what a resume must use again.
"""

from __future__ import annotations

import site
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from memory_bench.results.model import PairRun, Result

__all__ = ["redact", "redact_result", "redact_run"]

_CHECKOUT = Path(__file__).resolve().parents[2]  # memory_bench's parent: the checkout or lib


@lru_cache(maxsize=1)
def _prefixes() -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}

    def add(path: str | Path | None, name: str) -> None:
        if not path:
            return
        for p in {str(path), str(Path(path).resolve())}:
            if p.rstrip("/") and p not in found:  # never "/": it would rewrite every path
                found[p.rstrip("/")] = name

    for p in [*site.getsitepackages(), site.getusersitepackages()]:
        add(p, "<site-packages>")
    for p in (sys.prefix, sys.exec_prefix, sys.base_prefix):
        add(p, "<python>")
    add(_CHECKOUT, "<memory-bench>")
    add(tempfile.gettempdir(), "<tmp>")
    add(Path.home(), "~")
    return tuple(sorted(found.items(), key=lambda kv: -len(kv[0])))  # longest first


def redact(text: str | None) -> str | None:
    """``text`` with this machine's directories named instead (``<site-packages>/x.py``,
    ``<tmp>/memory-bench-run-…``, ``./r.json`` for the working directory)."""
    if not text or "/" not in text:
        return text
    cwd = str(Path.cwd())
    known = [*_prefixes(), *([(cwd, ".")] if cwd != "/" else [])]
    for prefix, name in sorted(known, key=lambda kv: -len(kv[0])):  # longest first
        if prefix in text:
            text = text.replace(prefix + "/", name + "/").replace(prefix, name)
    return text


def redact_run(run: PairRun) -> PairRun:
    run.error, run.traceback = redact(run.error), redact(run.traceback)
    run.warnings = [redact(w) or "" for w in run.warnings]
    if run.cleanup is not None:
        run.cleanup.error = redact(run.cleanup.error)
    return run


def _errors(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {k: redact(v) if k == "error" and isinstance(v, str) else _errors(v)
                for k, v in doc.items()}
    if isinstance(doc, list):
        return [_errors(v) for v in doc]
    return doc


def redact_result(result: Result) -> Result:
    """The run-level error text: the run's error, preload errors, live-store checks."""
    result.error = redact(result.error)
    result.preload_errors = {k: redact(v) or "" for k, v in result.preload_errors.items()}
    result.live_stores = _errors(result.live_stores)
    return result
