"""One run per result file: exclusive creation and a lock held for the run's life.

A run claims its result by creating the pair directory (``<result>.pairs/``)
with ``mkdir``, which exactly one process can do, and then locks
``<result>.pairs/.lock`` (``flock``) until it ends; a resume locks the existing
directory the same way. A second run or resume on the same file is refused
with one line naming the holder (pid, host, start time, command). The kernel
releases the lock when its holder dies, so ``kill -9`` never leaves a result
locked; the file stays and only says who held it last. A claim a dead run left
(its pair directory holding nothing but the lock file, no result beside it, the
lock free or its holder's pid gone) is taken back by the next run (``take_back``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Any

from memory_bench import crashguard
from memory_bench.results.io import now_iso
from memory_bench.results.pairs import pairs_dir_for
from memory_bench.results.paths import OutputError

__all__ = ["LOCK_NAME", "ResultLock", "RunLockError", "held_by", "take_back"]

LOCK_NAME = ".lock"


class RunLockError(OutputError):
    """The result file is another run's: bad input, exit status 2."""


def _holder(fd: int) -> str:
    try:
        raw = os.pread(fd, 4096, 0)
        who: dict[str, Any] = json.loads(raw.decode("utf-8"))
        return (f"pid {who.get('pid')} on {who.get('host')} since {who.get('since')} "
                f"({' '.join(map(str, who.get('command') or [])) or 'memory-bench'})")
    except (OSError, ValueError, AttributeError):
        return "another process"


def held_by(result: Path) -> str | None:
    """Who is writing ``result`` now (pid, host, since, command), or None. Takes nothing."""
    if not result.name or result.is_dir():
        return None  # not a result file at all: check_writable says why
    try:
        fd = os.open(pairs_dir_for(result) / LOCK_NAME, os.O_RDWR)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return _holder(fd)
    finally:
        os.close(fd)  # closing drops the lock if it was taken here
    return None


def _dead(fd: int) -> bool:
    """The recorded holder is a process of this host that no longer exists (a forked
    child of a run killed with ``kill -9`` can keep its lock held)."""
    try:
        who = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        pid = who["pid"]
        if who.get("host") != platform.node() or type(pid) is not int or pid <= 0:
            return False
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return False


def take_back(result: Path) -> None:
    """Remove the claim a dead run left on ``result``: its pair directory when it
    holds only the lock file, no result file is beside it, and the lock is free or
    its holder is gone. Anything else is left for the caller's checks to refuse."""
    pairs = pairs_dir_for(result)
    if result.exists() or result.is_symlink() or pairs.is_symlink() or not pairs.is_dir():
        return
    try:
        if [p.name for p in pairs.iterdir()] != [LOCK_NAME]:
            return
        fd = os.open(pairs / LOCK_NAME, os.O_RDWR | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            if not _dead(fd):
                return  # a live run's
        with contextlib.suppress(OSError):
            (pairs / LOCK_NAME).unlink()
            pairs.rmdir()
    finally:
        os.close(fd)


class ResultLock:
    """``with ResultLock(out, fresh=...)``: the result and its pair directory are this
    run's until the block ends. ``fresh`` (a new run): the pair directory must not
    exist, and is removed again if the run ends before writing the result file."""

    def __init__(self, result: Path, *, fresh: bool) -> None:
        self.result = result
        self.pairs = pairs_dir_for(result)
        self.fresh = fresh
        self._fd: int | None = None
        self._created = False

    def acquire(self) -> ResultLock:
        what = f"--out {self.result}" if self.fresh else f"{self.result}"
        if self.fresh:
            self.pairs.parent.mkdir(parents=True, exist_ok=True)
            try:
                self.pairs.mkdir()
            except FileExistsError:
                raise RunLockError(self._taken(what)) from None
            self._created = True
        else:
            self.pairs.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.pairs / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _holder(fd)
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise RunLockError(f"{what}: another run is writing this result: {holder}"
                                   ) from None
            raise
        # the pid the user started (a guarded command's watching parent): the one to signal
        who = {"pid": crashguard.command_pid(), "host": platform.node(), "since": now_iso(),
               "command": ["memory-bench", *sys.argv[1:]]}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(who).encode(), 0)
        self._fd = fd
        if self._created:  # a native crash from here on: the guard removes it (crashguard)
            crashguard.claimed(self.pairs, self.result, self.pairs / LOCK_NAME)
        if self.fresh and self.result.exists():  # made by hand since the plan was checked
            self.release()
            raise RunLockError(f"{what} exists; a run never overwrites an earlier result")
        return self

    def _taken(self, what: str) -> str:
        holder = held_by(self.result)
        if holder:
            return f"{what}: another run is writing this result: {holder}"
        return f"{what}: {self.pairs} exists; a run never overwrites an earlier result"

    def release(self) -> None:
        """Unlock; a fresh run that never wrote its result leaves nothing behind."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        if self._created and not self.result.exists():
            shutil.rmtree(self.pairs, ignore_errors=True)
        crashguard.released()
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    def __enter__(self) -> ResultLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
