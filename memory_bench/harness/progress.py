"""What a run is doing, on stderr: a refreshed line per pair on a terminal, and a line
for each step that can take a while (preload, analysis, plots), so no wait is silent.

The pair line reads ``[label] seed i/n · phase · 12.3s · pairs 3/20 · ETA 1m40s``;
the ETA is the wall time per finished pair since the first started (so pairs that
run side by side count as they should) times the pairs left. When stderr is not a
terminal (a pipe, a CI log, ``nohup``), a refreshed line would be one ever-growing
line of carriage returns: each finished pair gets a plain line of its own instead,
``memory-bench: pair 3/20 ok: [label] seed 2/10 in 4.1s · ETA 1m40s``.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


def _clock(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    """``enabled``: the refreshed pair line (default: when stderr is a terminal);
    ``plain``: a line per finished pair (default: when ``enabled`` is None and stderr
    is not a terminal); ``notes``: one line per slow step (default: either of them).
    ``Progress(enabled=False)`` (``--quiet``) says nothing."""

    def __init__(self, enabled: bool | None = None, stream: TextIO | None = None, *,
                 notes: bool | None = None, plain: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        tty = self.stream.isatty()
        self.enabled = tty if enabled is None else enabled
        self.plain = (enabled is None and not tty) if plain is None else plain
        self.notes = (self.enabled or self.plain) if notes is None else notes
        self._t0 = time.monotonic()
        self._width = 0
        self.where = ""
        self.total = 0
        self.finished = 0
        self._first_start: float | None = None
        self._cost_total = 0.0
        self._cost_done = 0.0

    def plan(self, total: int, cost: float = 0.0) -> None:
        """``total`` pairs will run; ``cost``: their expected seconds together (then
        the ETA weighs each finished pair by its own expected cost: a run that starts
        its longest rows first would otherwise promise far too long a rest)."""
        self.total, self.finished = total, 0
        self._cost_total, self._cost_done = max(0.0, cost), 0.0

    def pair(self, label: str, seed_index: int, seeds: int) -> None:
        if self._first_start is None:
            self._first_start = time.monotonic()
        self.where = f"[{label}] seed {seed_index + 1}/{seeds}"
        self._show("start")

    def pair_done(self, where: str = "", status: str = "", seconds: float | None = None,
                  cost: float = 0.0) -> None:
        """A pair ended: ``where`` (``[label] seed 2/10``), its status and time for the
        plain line; ``cost``: its expected seconds (see ``plan``)."""
        self.finished += 1
        self._cost_done += max(0.0, cost)
        if not self.plain:
            return
        took = f" in {seconds:.1f}s" if seconds is not None else ""
        eta = self.eta().partition(" · ")[2]
        line = f"memory-bench: pair {self.finished}/{self.total or '?'} {status or 'done'}"
        line += f": {where or self.where}{took}" + (f" · {eta}" if eta else "")
        self.stream.write(line + "\n")
        self.stream.flush()

    def phase(self, name: str) -> None:
        self._show(name)

    def note(self, message: str) -> None:
        """A line of its own for a step that may take a while."""
        if not self.notes:
            return
        self._clear()
        self.stream.write(f"memory-bench: {message}\n")
        self.stream.flush()

    def eta(self) -> str:
        if not self.total:
            return ""
        text = f"pairs {self.finished}/{self.total}"
        if self.finished and self._first_start is not None and self.finished < self.total:
            spent = time.monotonic() - self._first_start
            if self._cost_total > 0 and self._cost_done > 0:
                left = spent * (self._cost_total - self._cost_done) / self._cost_done
            else:
                left = spent / self.finished * (self.total - self.finished)
            text += f" · ETA {_clock(max(0.0, left))}"
        return text

    def _show(self, what: str) -> None:
        if not self.enabled:
            return
        eta = self.eta()
        line = f"{self.where} · {what} · {time.monotonic() - self._t0:6.1f}s"
        if eta:
            line += f" · {eta}"
        pad = max(0, self._width - len(line))
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()
        self._width = len(line)

    def _clear(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    def done(self) -> None:
        self._clear()
