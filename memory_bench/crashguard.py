"""A native crash that speaks: which backend died, by which signal, doing what.

A plugin's native code (a segfault in an extension's import, its preload, a check
or a pair run with ``--executor local``) kills the process that runs it, and a
process killed by a signal prints nothing: the shell saw exit 139 and no line.
So the ``memory-bench`` command forks once at start-up (:func:`guarded`): the child
does the work and, before entering plugin code, writes what it is about to do
(:func:`doing`) into a page of memory it shares with the parent. The parent only
waits. When the child dies by a signal, the parent reads that page and prints one
line naming the plugin or backend, the signal and the phase, exits 1, and removes
the pair directory a fresh run had claimed and never got to write a result for
(what the run itself does when it ends early), so the same command can run again.

Signals meant for the command reach the child exactly once: the child has a process
group of its own, so the terminal's Ctrl-C, a ``kill`` of the command's pid or of its
group (``timeout``, a CI runner) reach the parent alone, which passes each on. A
child that died by SIGINT, SIGTERM or SIGHUP was interrupted: exit 130, as an
interrupted run's.

Without ``fork`` or ``sigtimedwait`` (not Linux or macOS), or with
``MEMORY_BENCH_NO_CRASH_GUARD=1``, the command runs unguarded as before.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import mmap
import os
import shutil
import signal
import struct
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["claimed", "command_pid", "describe_death", "doing", "guarded", "released"]

ENV_OFF = "MEMORY_BENCH_NO_CRASH_GUARD"
_SIZE = 16_384  # bytes of the shared page: the current phase and the run's claim
_HEADER = struct.Struct("<I")  # the length of the JSON that follows
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_INTERRUPTS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
_LOCK_WAIT = 10.0  # seconds for a dead child's own children to let go of the run's lock

_board: mmap.mmap | None = None  # set in the guarded child only
_state: dict[str, Any] = {}
_command: int | None = None  # in the guarded child: the watching parent's pid


def command_pid() -> int:
    """The pid the user started (and can signal): the watching parent's in a guarded
    command, else this process's. A run's lock names it as the result's holder."""
    return _command if _command is not None else os.getpid()


def _publish() -> None:
    if _board is None:
        return
    raw = json.dumps(_state, ensure_ascii=True).encode()[: _SIZE - _HEADER.size]
    _board[_HEADER.size:_HEADER.size + len(raw)] = raw
    _board[:_HEADER.size] = _HEADER.pack(len(raw))  # the length last: never a torn read


@contextlib.contextmanager
def doing(who: str, what: str) -> Iterator[None]:
    """Plugin code of ``who`` (``backend faiss-rag``, ``plugin x (from dist 1.0)``) runs
    ``what`` (``its import``, ``its preload``) inside this block. Costs a few
    microseconds; does nothing outside the guarded command."""
    if _board is None:
        yield
        return
    before = _state.get("phase")
    _state["phase"] = {"who": who, "what": what}
    _publish()
    try:
        yield
    finally:
        _state["phase"] = before
        _publish()


def claimed(pairs: Path, result: Path, lock: Path) -> None:
    """A fresh run created ``pairs`` for ``result`` (locked through ``lock``)."""
    if _board is not None:
        _state["claim"] = {"pairs": str(pairs), "result": str(result), "lock": str(lock)}
        _publish()


def released() -> None:
    """The run let go of its claim (it wrote its result or removed the directory)."""
    if _board is not None and _state.pop("claim", None) is not None:
        _publish()


def _read(board: mmap.mmap) -> dict[str, Any]:
    (n,) = _HEADER.unpack(board[:_HEADER.size])
    try:
        out = json.loads(board[_HEADER.size:_HEADER.size + n].decode())
    except (ValueError, UnicodeDecodeError):
        return {}
    return out if isinstance(out, dict) else {}


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return "an unknown signal"


def describe_death(signum: int, state: dict[str, Any]) -> str:
    """One line: who died by which signal doing what (from the child's last phase)."""
    phase = state.get("phase") or {}
    sig = f"signal {signum} ({_signal_name(signum)})"
    if phase:
        line = f"{phase.get('who')} died by {sig} during {phase.get('what')}"
    else:
        line = f"memory-bench died by {sig} outside any plugin's code"
    if signum == signal.SIGKILL:
        line += " (killed: out of memory, or by someone)"
    return line


def _drop_claim(claim: dict[str, Any]) -> str:
    """After the child's death: what became of the run's claim, as a clause."""
    pairs, result, lock = (Path(claim[k]) for k in ("pairs", "result", "lock"))
    if result.exists():
        return (f"; the finished pairs are in {result} (finish with "
                f"`memory-bench run --resume {result}`)")
    deadline = time.monotonic() + _LOCK_WAIT
    while True:  # the dead child's own children die with it, and let go of the lock
        try:
            fd = os.open(lock, os.O_RDWR)
        except OSError:
            return ""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            if time.monotonic() > deadline:
                return f"; {pairs} is still locked: remove it (rm -r {pairs}) once its " \
                       "processes are gone"
            time.sleep(0.1)
            continue
        try:
            if not result.exists():
                shutil.rmtree(pairs, ignore_errors=True)
        finally:
            os.close(fd)
        return f"; nothing was written ({pairs} removed)"


def _available() -> bool:
    return (hasattr(os, "fork") and hasattr(signal, "sigtimedwait")
            and os.environ.get(ENV_OFF, "") not in ("1", "true", "yes"))


def guarded(work: Callable[[], int]) -> int:
    """``work()`` in a forked child, watched: its exit status, or one line and 1 when
    it died by a signal (130 for an interrupt). Call it before any thread starts."""
    if not _available():
        return work()
    global _board, _command
    board = mmap.mmap(-1, _SIZE)
    board[:_HEADER.size] = _HEADER.pack(0)
    watched = {*_FORWARDED, signal.SIGCHLD}
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, watched)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: the command itself, in a process group of its own
        _board, _command = board, os.getppid()
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        _die_with(_command)
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        return work()
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # both sides set it: no race with a signal sent at once
    try:
        status = _wait(pid)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    signum = os.WTERMSIG(status)
    state = _read(board)
    claim = state.get("claim")
    if signum in _INTERRUPTS:
        phase = state.get("phase") or {}
        during = f" during {phase.get('what')} of {phase.get('who')}" if phase else ""
        tail = _drop_claim(claim) if claim else ""
        print(f"memory-bench: interrupted by signal {signum} ({_signal_name(signum)})"
              f"{during}{tail}", file=sys.stderr, flush=True)
        return 130
    line = describe_death(signum, state) + (_drop_claim(claim) if claim else "")
    print(f"memory-bench: error: {line}", file=sys.stderr, flush=True)
    return 1


def _die_with(parent: int) -> None:
    """SIGKILL this child when the parent dies (Linux): a ``kill -9`` of the command's
    pid ends the run as it did before the guard, and frees the run's lock."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(137)


def _wait(pid: int) -> int:
    """Wait for the child, passing on the signals sent to this process's pid."""
    watched = {*_FORWARDED, signal.SIGCHLD}
    while True:
        info = signal.sigtimedwait(watched, 1.0)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if info is None or info.si_signo == signal.SIGCHLD:
            continue
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, info.si_signo)
