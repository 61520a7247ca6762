"""TOML from a user's file (runbooks, scenario files), with integers bounded as JSON's are.

``tomllib`` turns an integer of more than 4,300 digits into a bare ValueError (no line,
no key) and takes any shorter one, which later overflows a float or a date. Both are
refused here with the key's path or the line, as :mod:`strictjson` does for JSON.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from memory_bench.records.strictjson import MAX_INT_DIGITS

__all__ = ["StrictTOMLError", "loads"]

_LONG = re.compile(r"\d(?:_?\d){" + str(MAX_INT_DIGITS) + ",}")


class StrictTOMLError(ValueError):
    """Valid TOML this reader refuses: the message says where (the caller adds the file)."""


def _where_long(value: Any, path: str = "") -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return path if len(str(abs(value))) > MAX_INT_DIGITS else None
    items: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        items = [(f"{path}.{k}" if path else str(k), v) for k, v in value.items()]
    elif isinstance(value, list):
        items = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
    for p, v in items:
        found = _where_long(v, p)
        if found is not None:
            return found
    return None


def loads(text: str) -> dict[str, Any]:
    """``tomllib.loads``; an integer of more than ``MAX_INT_DIGITS`` digits is a
    StrictTOMLError naming its key (or its line, past Python's own limit). Raises
    ``tomllib.TOMLDecodeError`` for text that is not TOML, as tomllib does."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:  # int() refused the literal: past 4,300 digits
        m = _LONG.search(text)
        line = text.count("\n", 0, m.start()) + 1 if m else 0
        raise StrictTOMLError(f"{'line ' + str(line) + ': ' if line else ''}an integer of "
                              f"more than {MAX_INT_DIGITS} digits") from None
    where = _where_long(doc)
    if where is not None:
        raise StrictTOMLError(f"`{where}` is an integer of more than {MAX_INT_DIGITS} digits")
    return doc
