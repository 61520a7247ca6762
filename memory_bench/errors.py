"""The run problems every command reports, under one base class.

Each layer defines its own error next to the code that raises it, as a subclass
of one of these, so the CLI maps every problem to its exit status by catching
three classes, without importing (or knowing) the modules that raise them.
"""

from __future__ import annotations

__all__ = ["BadInput", "Interrupted", "MemoryBenchError", "RunFailed"]


class MemoryBenchError(Exception):
    """A problem memory-bench reports on one line of stderr."""

    exit_status = 1


class BadInput(MemoryBenchError, ValueError):
    """Bad input: one line on stderr, exit status 2, nothing written."""

    exit_status = 2


class RunFailed(MemoryBenchError, RuntimeError):
    """A run could not do its work (its result file records why): exit status 1."""

    exit_status = 1


class Interrupted(MemoryBenchError):
    """Ctrl-C or SIGTERM during a run: exit status 130, with what was kept."""

    exit_status = 130
