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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from memory_bench import interrupts

__all__ = [
    "DEFAULT_TIMEOUT",
    "ISOLATION_MODES",
    "Forked",
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


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait (blocked, not lost) while a child is forked.

    Why: ``os.fork`` runs Python's at-fork callbacks (logging's ``_releaseLock``),
    and an interrupt raised inside one is printed as "Exception ignored" and
    dropped, so the run carried on and exited 0 after SIGTERM. Once unblocked, the
    pending signal raises here, in ordinary code."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, interrupts.SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _child_main(fn: Callable[[Send], Any], conn: Connection, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, interrupts.SIGNALS)  # held by the parent's fork
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


class Forked:
    """One child running ``fn(send)``, not waited for: a caller with several in flight
    waits on all their :attr:`waitables` at once and calls :meth:`step` on each."""

    def __init__(self, fn: Callable[[Send], Any], *, timeout: float | None,
                 on_message: Callable[[Any], None] | None = None) -> None:
        ctx = multiprocessing.get_context("fork")
        self.reader, writer = ctx.Pipe(duplex=False)
        self.timeout, self.on_message = timeout, on_message
        self.last_message: Any = None  # the step it was in, should it die (a pair's tag)
        sys.stdout.flush()
        sys.stderr.flush()
        self.proc = ctx.Process(target=_child_main, args=(fn, writer, os.getpid()),
                                daemon=False)
        self.t0 = time.perf_counter()
        try:
            with _interrupts_held():
                self.proc.start()
                writer.close()  # so that the reader sees EOF when the child is gone
                with contextlib.suppress(OSError):
                    os.setpgid(self.proc.pid, self.proc.pid)  # both sides set it: no race
        except BaseException:  # the held interrupt: no caller holds this child yet
            self.kill()
            raise
        self.deadline = None if timeout is None else time.monotonic() + timeout

    @property
    def waitables(self) -> list[Any]:
        return [self.reader, self.proc.sentinel]

    def left(self) -> float | None:
        """Seconds to its deadline (None: no timeout)."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def step(self) -> Outcome | None:
        """Handle what the child has sent; its outcome once it has ended, else None."""
        try:
            outcome = self._step()
        except BaseException:
            self.kill()
            raise
        if outcome is not None:
            self.reader.close()
        return outcome

    def _step(self) -> Outcome | None:
        proc = self.proc
        while self.reader.poll(0):
            try:
                kind, *payload = self.reader.recv()
            except (EOFError, OSError):
                proc.join(_REAP_SECONDS)
                return self._died()
            if kind == "msg":
                self.last_message = payload[0]
                if self.on_message is not None:
                    self.on_message(payload[0])
                continue
            proc.join(_REAP_SECONDS)
            if proc.exitcode is None:
                _kill(proc)
            seconds = time.perf_counter() - self.t0
            if kind == "ok":
                return Outcome("ok", value=payload[0], seconds=seconds, exitcode=proc.exitcode)
            return Outcome("error", error=payload[0], traceback=payload[1], seconds=seconds,
                           exitcode=proc.exitcode)
        if wait([proc.sentinel], timeout=0):  # it ended and nothing is left to read
            proc.join(_REAP_SECONDS)
            return self._died()
        if self.deadline is not None and time.monotonic() >= self.deadline:
            _kill(proc)
            return Outcome("timeout", error=f"timeout: no result after {self.timeout:g} s; "
                           "process killed", seconds=time.perf_counter() - self.t0,
                           exitcode=proc.exitcode)
        return None

    def _died(self) -> Outcome:
        error = describe_exit(self.proc.exitcode)
        if isinstance(self.last_message, str) and self.last_message:
            error += f" during step {self.last_message}"
        return Outcome("died", error=error,
                       seconds=time.perf_counter() - self.t0, exitcode=self.proc.exitcode)

    def kill(self) -> None:
        """SIGKILL the child's process group and reap it (Ctrl-C, an abandoned run)."""
        _kill(self.proc)
        self.reader.close()


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
    child = Forked(fn, timeout=timeout, on_message=on_message)
    try:
        while True:
            wait(child.waitables, timeout=child.left())
            outcome = child.step()
            if outcome is not None:
                return outcome
    except BaseException:
        child.kill()
        raise
