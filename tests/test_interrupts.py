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
