"""Whose interrupt was it: the user's (a signal arrived) or plugin code's?

A backend running in this process (``--isolation none``, ``check``) can raise
``KeyboardInterrupt`` itself; taken for the user's Ctrl-C it ended the whole run
or check, naming nothing. While :func:`watching` (a command installed these
handlers), Ctrl-C and SIGTERM are counted as they arrive, so a caller that
noted :func:`received` before calling plugin code can tell: a
``KeyboardInterrupt`` with no new signal is the plugin's, and fails it by name.
Without the handlers (the library used on its own) every interrupt is the user's.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import Any

__all__ = ["SIGNALS", "Terminated", "by_user", "finished", "install", "pending",
           "received", "start_up", "watching"]

SIGNALS = (signal.SIGINT, signal.SIGTERM)  # the user's interrupts: Ctrl-C and SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C is: children killed, items removed, file written."""


_count = 0
_last = signal.SIGINT
_installed = 0


def _on_signal(signum: int, frame: Any) -> None:
    global _count, _last
    _count += 1
    _last = signum
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def install() -> Callable[[], None]:
    """Count Ctrl-C and SIGTERM and raise them as interrupts; returns the undo.

    Outside the main thread signals are not ours to handle: nothing is installed."""
    global _installed
    try:
        old = {s: signal.signal(s, _on_signal) for s in SIGNALS}
    except ValueError:
        return lambda: None
    _installed += 1

    def undo() -> None:
        global _installed
        for s, handler in old.items():
            signal.signal(s, handler)
        _installed -= 1

    return undo


_EARLY_LINE = b"memory-bench: interrupted while starting; nothing was written\n"
_early = False


def _on_early_signal(signum: int, frame: Any) -> None:
    os.write(2, _EARLY_LINE)
    os._exit(130)


def start_up() -> None:
    """The ``memory-bench`` command's first instruction (``memory_bench/__init__``):
    Ctrl-C or SIGTERM while its modules import, before :func:`install` can raise them
    as interrupts, ends it at once with exit 130 and one line (nothing is written yet);
    the default SIGTERM killed it silently and Ctrl-C printed a traceback."""
    global _early
    try:
        for s in SIGNALS:
            signal.signal(s, _on_early_signal)
    except ValueError:
        return
    _early = True


def finished() -> None:
    """The command has ended (its exit status stands): a signal in the instants left
    before the process exits is ignored, not taken for one during start-up."""
    if _early:
        for s in SIGNALS:
            signal.signal(s, signal.SIG_IGN)


def watching() -> bool:
    return _installed > 0


def received() -> int:
    """Signals counted so far: note it before calling plugin code."""
    return _count


def pending(before: int) -> None:
    """Raise the user's interrupt again when a signal arrived since :func:`received` was
    ``before`` and the run is still going: the handler's exception was lost (raised
    inside a ``__del__``, such as a pipe's closing during garbage collection, Python
    prints "Exception ignored" and carries on; library code may catch it)."""
    if watching() and _count != before:
        raise Terminated if _last == signal.SIGTERM else KeyboardInterrupt


def by_user(exc: BaseException, before: int) -> bool:
    """Is ``exc``, caught around plugin code entered when :func:`received` was
    ``before``, the user's interrupt (so it must propagate)?"""
    if not isinstance(exc, KeyboardInterrupt):
        return False
    return not watching() or received() != before
