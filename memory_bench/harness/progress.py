"""A one-line progress display per backend, seed and phase; silent off a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """Writes ``[label] seed i/n · phase`` on one refreshed line of stderr."""

    def __init__(self, enabled: bool | None = None, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self._t0 = time.monotonic()
        self._width = 0
        self.where = ""

    def pair(self, label: str, seed_index: int, seeds: int) -> None:
        self.where = f"[{label}] seed {seed_index + 1}/{seeds}"
        self._show("start")

    def phase(self, name: str) -> None:
        self._show(name)

    def _show(self, what: str) -> None:
        if not self.enabled:
            return
        line = f"{self.where} · {what} · {time.monotonic() - self._t0:6.1f}s"
        pad = max(0, self._width - len(line))
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()
        self._width = len(line)

    def done(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
