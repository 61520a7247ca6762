"""JSON from a user's file, read strictly: bounded nesting, real UTF-8 text only.

``json.loads`` recurses once per nesting level (a deeply nested line raises
RecursionError) and accepts ``"\\ud800"`` escapes, which make lone surrogates
that no UTF-8 file can hold (the error surfaces later, far from the line). Both
are refused here with a message that names what is wrong; the caller adds where.
JSON Lines are split on ``\\n`` only (a raw U+2028 or U+0085 inside a string is
valid JSON and must not end a line), ``\\r\\n`` accepted. An integer longer than
``MAX_INT_DIGITS`` (Python will not even print one of 4,300 digits) is refused with the
path of the field that holds it (``decode``, which every reader of a user's JSON uses).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "StrictJSONError", "decode", "json_lines", "loads"]

MAX_DEPTH = 64  # objects and arrays inside each other; results and datasets need < 12
MAX_INT_DIGITS = 64  # 2**128 has 39; a float holds up to ~308, Python prints up to 4,300


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


class _LongInt(str):
    """An integer literal too long to take, kept as text until its field is found."""


def _where_long(value: Any) -> str:
    """The JSON path (``a.b[2]``) of the first too-long integer in ``value``."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, _LongInt):
            return path or "the document"
        if isinstance(v, dict):
            stack.extend((f"{path}.{k}" if path else str(k), x)
                         for k, x in reversed(v.items()))
        elif isinstance(v, list):
            stack.extend((f"{path}[{i}]", x) for i, x in reversed(list(enumerate(v))))
    return "the document"


def decode(text: str) -> Any:
    """``json.loads`` with integers bounded: one longer than ``MAX_INT_DIGITS`` is a
    StrictJSONError naming its field (``json`` itself fails past 4,300 digits with a
    ValueError that names nothing). Costs nothing unless such an integer is there."""
    long: list[str] = []

    def parse_int(literal: str) -> int | str:
        if len(literal) - literal.startswith("-") > MAX_INT_DIGITS:
            long.append(literal)
            return _LongInt(literal)
        return int(literal)

    value = json.loads(text, parse_int=parse_int)
    if long:
        raise StrictJSONError(f"`{_where_long(value)}` is an integer of "
                              f"{len(long[0]) - long[0].startswith('-'):,} digits (at most "
                              f"{MAX_INT_DIGITS})")
    return value


def loads(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` with the nesting bounded, integers bounded and lone surrogates
    refused; raises ``json.JSONDecodeError`` for bad JSON as json does,
    StrictJSONError otherwise."""
    if _depth(text) > max_depth:
        raise StrictJSONError(f"nested more than {max_depth} levels deep")
    try:
        value = decode(text)
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
