"""A Makefile's ``BENCH_BACKENDS``, for the scripts that time ``make bench``'s matrix."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["bench_backends"]


def bench_backends(tree: Path) -> list[str]:
    """The specs of ``tree``'s ``BENCH_BACKENDS`` (``:=`` or ``=``, continued lines too)."""
    text = (tree / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    m = re.search(r"^BENCH_BACKENDS\s*:?=\s*(.+)$", text, re.MULTILINE)
    if m is None:
        raise SystemExit(f"no BENCH_BACKENDS line in {tree / 'Makefile'}")
    return m.group(1).split()
