"""The user's interrupt told from plugin code's own KeyboardInterrupt."""

from __future__ import annotations

import os
import signal

import pytest

from memory_bench import interrupts


def _caught(fn) -> BaseException:
    try:
        fn()
    except BaseException as exc:
        return exc
    raise AssertionError("nothing was raised")


def _raise_interrupt() -> None:
    raise KeyboardInterrupt


def test_a_signal_is_the_users_and_a_raise_is_the_plugins() -> None:
    undo = interrupts.install()
    try:
        assert interrupts.watching()
        before = interrupts.received()
        exc = _caught(_raise_interrupt)
        assert not interrupts.by_user(exc, before)  # no signal arrived
        exc = _caught(lambda: os.kill(os.getpid(), signal.SIGINT))
        assert isinstance(exc, KeyboardInterrupt) and interrupts.by_user(exc, before)
        before = interrupts.received()
        exc = _caught(lambda: os.kill(os.getpid(), signal.SIGTERM))
        assert isinstance(exc, interrupts.Terminated) and interrupts.by_user(exc, before)
        assert not interrupts.by_user(ValueError("x"), before)
    finally:
        undo()
    assert not interrupts.watching()
    assert signal.getsignal(signal.SIGTERM) is not interrupts._on_signal


def test_without_the_handlers_every_interrupt_is_the_users() -> None:
    """The library used on its own (no command installed the handlers)."""
    assert not interrupts.watching()
    assert interrupts.by_user(_caught(_raise_interrupt), interrupts.received())


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_undo_restores_the_previous_handlers(signum: int) -> None:
    before = signal.getsignal(signum)
    interrupts.install()()
    assert signal.getsignal(signum) is before


class _Swallows:
    """An object whose ``__del__`` is running when the signal arrives (as a pipe's
    connection closing during garbage collection): Python prints "Exception ignored"
    and the handler's interrupt is lost."""

    def __init__(self, signum: int) -> None:
        self.signum = signum

    def __del__(self) -> None:
        os.kill(os.getpid(), self.signum)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # on purpose
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_an_interrupt_lost_in_a_del_is_raised_again(signum: int) -> None:
    undo = interrupts.install()
    try:
        before = interrupts.received()
        interrupts.pending(before)  # nothing arrived: nothing raised
        obj = _Swallows(signum)
        del obj  # the signal arrives inside __del__; its exception is ignored
        assert interrupts.received() == before + 1
        exc = _caught(lambda: interrupts.pending(before))
        assert isinstance(exc, KeyboardInterrupt)
        assert isinstance(exc, interrupts.Terminated) == (signum == signal.SIGTERM)
    finally:
        undo()
    interrupts.pending(before)  # no command is watching: the library raises nothing
