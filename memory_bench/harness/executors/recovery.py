"""The one cleanup path after a lost pair (its process died, timed out or was stopped).

Every executor ends a lost pair the same way: a store that died with its
process needs nothing but its workdir deleted; a persistent one is reopened
with the pair's options on the pair's workdir(s) and the pair's items removed.
Whatever goes wrong is a failed :class:`Cleanup` naming why, never an
exception, so the run still records the pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memory_bench.contract.backend import BackendContext
from memory_bench.contract.capabilities import Capability
from memory_bench.harness.execute import cleanup
from memory_bench.harness.pair import PairSpec
from memory_bench.plugins.selection import BackendSelection
from memory_bench.results.model import Cleanup

__all__ = ["REOPENED", "lost_cleanup", "recover_store", "reopen_and_clean"]

REOPENED = "harness, store reopened"


def lost_cleanup(spec: PairSpec, error: str) -> Cleanup:
    """The record of a cleanup that could not be done."""
    return Cleanup(ok=False, prefix=spec.prefix, by=REOPENED, error=error)


def reopen_and_clean(sel: BackendSelection, workdir: Path, spec: PairSpec) -> Cleanup:
    """Open the pair's store again (same options, same workdir) and remove its items."""
    ctx = BackendContext(workdir=workdir, seed=spec.seed, run_id=spec.run_id,
                         cache_dir=Path(spec.cache_dir) if spec.cache_dir else None)
    backend = sel.info.create(sel.options, ctx)
    try:
        done = cleanup(backend, spec.prefix)
        done.by = REOPENED
        return done
    finally:
        backend.close()


def recover_store(sel: BackendSelection, spec: PairSpec, workdirs: Sequence[Path], *,
                  died_with: str = "process") -> Cleanup:
    """Clean up after a lost pair whose workdirs are ``workdirs`` (on this host)."""
    if Capability.PERSISTENT not in sel.capabilities:  # mode=persistent may grant it
        return Cleanup(ok=True, prefix=spec.prefix,
                       by=f"harness: the store died with its {died_with}; workdir deleted")
    try:
        done = Cleanup(ok=True, prefix=spec.prefix, removed=0, left=0)
        for where in workdirs:
            got = reopen_and_clean(sel, where, spec)
            done = Cleanup(ok=done.ok and got.ok, prefix=spec.prefix,
                           removed=(done.removed or 0) + (got.removed or 0),
                           left=got.left, error=got.error or done.error, by=got.by)
        return done
    except Exception as exc:
        return lost_cleanup(spec, f"{type(exc).__name__}: {exc}")
