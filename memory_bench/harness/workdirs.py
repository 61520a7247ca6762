"""A run's temporary directories: one root per run, gone when the run ends, and the
roots of runs killed with ``kill -9`` removed by the next run.

Every pair's workdir and every live-store check's scratch directory is made
inside ``$TMPDIR/memory-bench-run-*/``. The root holds ``.lock``, locked
(``flock``) for the run's life; the kernel drops the lock when the run dies
however it dies, so a root whose lock can be taken belongs to no live run and
is deleted by :func:`sweep`, which every run calls when it starts.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import time
from pathlib import Path

__all__ = ["KEPT_PREFIX", "ROOT_PREFIX", "WorkRoot", "sweep"]

ROOT_PREFIX = "memory-bench-run-"
KEPT_PREFIX = "memory-bench-kept-"
_LOCK = ".lock"
_GRACE_S = 60.0  # a root without its lock file yet may be a run starting right now


def sweep(tmp: Path | None = None) -> int:
    """Delete the roots no live run holds; returns how many."""
    base = Path(tmp or tempfile.gettempdir())
    removed = 0
    for root in base.glob(ROOT_PREFIX + "*"):
        try:
            fd = os.open(root / _LOCK, os.O_RDWR)
        except FileNotFoundError:
            with contextlib.suppress(OSError):
                if time.time() - root.stat().st_mtime > _GRACE_S:
                    shutil.rmtree(root, ignore_errors=True)
                    removed += 1
            continue
        except OSError:  # another user's, or not ours to judge
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a live run holds it
        finally:
            os.close(fd)
        shutil.rmtree(root, ignore_errors=True)
        removed += 1
    return removed


class WorkRoot:
    """``with WorkRoot() as root``: ``root.mkdtemp(prefix)`` directories, all removed at
    the end. ``keep`` (``--keep-work``): a ``memory-bench-kept-*`` root instead, never
    locked, swept or removed."""

    def __init__(self, *, keep: bool = False) -> None:
        self.keep = keep
        self.path = Path(tempfile.mkdtemp(prefix=KEPT_PREFIX if keep else ROOT_PREFIX))
        self._fd: int | None = os.open(self.path / _LOCK, os.O_RDWR | os.O_CREAT, 0o600)
        if not keep:
            fcntl.flock(self._fd, fcntl.LOCK_EX)

    def mkdtemp(self, prefix: str) -> Path:
        return Path(tempfile.mkdtemp(prefix=prefix, dir=self.path))

    def close(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        if not self.keep:
            shutil.rmtree(self.path, ignore_errors=True)
        os.close(fd)

    def __enter__(self) -> WorkRoot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
