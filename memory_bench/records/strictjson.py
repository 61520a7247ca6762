"""JSON from a user's file, read strictly: bounded nesting, real UTF-8 text only.

``json.loads`` recurses once per nesting level (a deeply nested line raises
RecursionError) and accepts ``"\\ud800"`` escapes, which make lone surrogates
that no UTF-8 file can hold (the error surfaces later, far from the line). Both
are refused here with a message that names what is wrong; the caller adds where.
JSON Lines are split on ``\\n`` only (a raw U+2028 or U+0085 inside a string is
valid JSON and must not end a line), ``\\r\\n`` accepted.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_DEPTH", "StrictJSONError", "json_lines", "loads"]

MAX_DEPTH = 64  # objects and arrays inside each other; results and datasets need < 12


class StrictJSONError(ValueError):
    """Not JSON we read: the message says why (no location; the caller has it)."""


def _depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside strings."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _surrogate(value: Any) -> str | None:
    """The first string holding a lone surrogate, if any."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return v
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


def loads(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` with the nesting bounded and lone surrogates refused; raises
    ``json.JSONDecodeError`` for bad JSON as json does, StrictJSONError otherwise."""
    if _depth(text) > max_depth:
        raise StrictJSONError(f"nested more than {max_depth} levels deep")
    try:
        value = json.loads(text)
    except RecursionError:
        raise StrictJSONError(f"nested more than {max_depth} levels deep") from None
    bad = _surrogate(value)
    if bad is not None:
        raise StrictJSONError("a string holds a lone surrogate (an escape such as \\ud800 "
                              "that no UTF-8 text can hold)")
    return value


def json_lines(text: str) -> list[str]:
    """The lines of a JSON Lines text: split on ``\\n`` (``\\r\\n`` too), nothing else."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]
