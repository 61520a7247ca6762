"""A Makefile's ``BENCH_BACKENDS``, for the scripts that time ``make bench``'s matrix."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["bench_backends"]


def _variable(text: str, name: str, tree: Path) -> list[str]:
    m = re.search(rf"^{name}\s*:?=\s*(.+)$", text, re.MULTILINE)
    if m is None:
        raise SystemExit(f"no {name} line in {tree / 'Makefile'}")
    out: list[str] = []
    for word in m.group(1).split():  # $(OTHER) expanded, as make would
        ref = re.fullmatch(r"\$\((\w+)\)", word)
        out += _variable(text, ref.group(1), tree) if ref else [word]
    return out


def bench_backends(tree: Path) -> list[str]:
    """The specs of ``tree``'s ``BENCH_BACKENDS`` (``:=`` or ``=``, continued lines and
    ``$(VARIABLE)`` references too)."""
    text = (tree / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    return _variable(text, "BENCH_BACKENDS", tree)
