"""Run one piece of work in a forked child, with a timeout, and learn how it ended.

Why fork and not a fresh interpreter: loading the embedding model costs seconds
per process, and a run has tens of (backend, seed) pairs. The parent loads what
backends ask for once (``preload``) and forks a child per pair, which starts
with the model already in memory (copy-on-write). This is safe for torch only
while the parent has never run inference (OpenMP pools do not survive a fork),
so the parent must only *load*.

The child runs in a process group of its own, ignores Ctrl-C (the parent
decides what an interrupt means), and is killed by the kernel if the parent
dies. It reports back over a pipe: progress messages, then its value. The
parent tells apart a value, a child that raised, one that overran its timeout
(killed, with its process group) and one that died (a signal or an exit status).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

__all__ = [
    "DEFAULT_TIMEOUT",
    "ISOLATION_MODES",
    "Outcome",
    "describe_exit",
    "fork_available",
    "run_forked",
]

ISOLATION_MODES = ("process", "none")
DEFAULT_TIMEOUT = 1800.0  # seconds per pair: generous; a default-scenario pair takes seconds
_PR_SET_PDEATHSIG = 1
_REAP_SECONDS = 10.0  # how long a child that sent its value may take to exit

Send = Callable[[Any], None]


@dataclass
class Outcome:
    """How a child ended. ``status``: ok, error (it raised), timeout, died."""

    status: str
    value: Any = None
    error: str | None = None
    traceback: str | None = None
    seconds: float = 0.0
    exitcode: int | None = None


def fork_available() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def describe_exit(exitcode: int | None) -> str:
    """``process died: signal 9 (SIGKILL)`` or ``process exited with status 3``."""
    if exitcode is None:
        return "process did not exit"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = "unknown signal"
        return f"process died: signal {-exitcode} ({name})"
    return f"process exited with status {exitcode} before reporting a result"


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (best effort)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _child_main(fn: Callable[[Send], Any], conn: Connection, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    try:
        value = fn(lambda message: conn.send(("msg", message)))
        conn.send(("ok", value))
    except BaseException as exc:
        conn.send(("error", f"{type(exc).__name__}: {exc}", traceback.format_exc(limit=20)))
    finally:
        conn.close()
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0)  # skip atexit handlers inherited from the parent


def _kill(proc: multiprocessing.process.BaseProcess) -> None:
    """SIGKILL the child's process group (its own children too), then reap it."""
    pid = proc.pid
    if pid is not None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    proc.join(_REAP_SECONDS)


def run_forked(
    fn: Callable[[Send], Any],
    *,
    timeout: float | None,
    on_message: Callable[[Any], None] | None = None,
) -> Outcome:
    """Run ``fn(send)`` in a forked child; its return value must pickle.

    ``send(message)`` delivers a progress message to ``on_message`` in the
    parent. A KeyboardInterrupt in the parent kills the child and propagates.
    """
    ctx = multiprocessing.get_context("fork")
    reader, writer = ctx.Pipe(duplex=False)
    sys.stdout.flush()
    sys.stderr.flush()
    proc = ctx.Process(target=_child_main, args=(fn, writer, os.getpid()), daemon=False)
    t0 = time.perf_counter()
    proc.start()
    writer.close()  # so that the reader sees EOF when the child is gone
    with contextlib.suppress(OSError):
        os.setpgid(proc.pid, proc.pid)  # both sides set it: no race with the child
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = wait([reader, proc.sentinel], timeout=left)
            if not ready:
                _kill(proc)
                return Outcome("timeout", error=f"timeout: no result after {timeout:g} s; "
                               "process killed", seconds=time.perf_counter() - t0,
                               exitcode=proc.exitcode)
            if reader in ready or reader.poll(0):
                try:
                    kind, *payload = reader.recv()
                except (EOFError, OSError):
                    proc.join(_REAP_SECONDS)
                    break
                if kind == "msg":
                    if on_message is not None:
                        on_message(payload[0])
                    continue
                proc.join(_REAP_SECONDS)
                if proc.exitcode is None:
                    _kill(proc)
                seconds = time.perf_counter() - t0
                if kind == "ok":
                    return Outcome("ok", value=payload[0], seconds=seconds,
                                   exitcode=proc.exitcode)
                return Outcome("error", error=payload[0], traceback=payload[1],
                               seconds=seconds, exitcode=proc.exitcode)
            # The process ended and nothing is left to read.
            proc.join(_REAP_SECONDS)
            break
    except BaseException:
        _kill(proc)
        raise
    finally:
        reader.close()
    return Outcome("died", error=describe_exit(proc.exitcode), seconds=time.perf_counter() - t0,
                   exitcode=proc.exitcode)
