"""Whether this process may be forked: asked of the libraries that know.

The harness forks a child per pair (``memory_bench.harness.isolation``). Some
libraries make a process unsafe to fork once they have run (torch's thread
pools, for one). The harness knows none of them: a library registers a guard
when it is imported, and the runner asks every guard before it forks. A guard
returns None (safe) or the reason forking would hang or break a child; the
runner then runs pairs in this process and the result says why.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ForkGuard", "fork_unsafe_reason", "register_fork_guard"]

ForkGuard = Callable[[], str | None]
_GUARDS: list[ForkGuard] = []


def register_fork_guard(guard: ForkGuard) -> None:
    """Register ``guard`` (once; registering it again does nothing)."""
    if guard not in _GUARDS:
        _GUARDS.append(guard)


def fork_unsafe_reason() -> str | None:
    """The first registered guard's reason this process must not be forked, or None."""
    for guard in _GUARDS:
        reason = guard()
        if reason:
            return reason
    return None
