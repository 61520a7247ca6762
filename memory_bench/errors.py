"""The run problems every command reports, under one base class.

Each layer defines its own error next to the code that raises it, as a subclass
of one of these, so the CLI maps every problem to its exit status by catching
three classes, without importing (or knowing) the modules that raise them.
"""

from __future__ import annotations

__all__ = ["BIDI", "BadInput", "Interrupted", "MemoryBenchError", "RunFailed", "printable"]

MAX_SHOWN = 600  # characters of a message shown on stderr; the rest is cut


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


# Unicode's bidirectional formatting characters: a path holding U+202E (right-to-left
# override) shows its end first, so an echoed `x.json` can read as another name.
BIDI = frozenset((0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)))


def printable(text: object, limit: int = MAX_SHOWN) -> str:
    """``text`` safe for one line of a terminal: control characters (newlines, escape
    sequences, a raw U+2028 or U+0085) and bidi overrides and isolates shown as
    escapes, never sent; cut to ``limit`` characters with "…", so a 10 MB line of a
    user's file is not echoed whole. The one escaping of every echoed path and value."""
    out = []
    for ch in str(text):
        code = ord(ch)
        if code < 0x20 or 0x7F <= code < 0xA0 or code in (0x2028, 0x2029) or code in BIDI:
            out.append(ch.encode("unicode_escape").decode("ascii"))
        elif 0xD800 <= code <= 0xDFFF:  # a lone surrogate cannot be written as UTF-8
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
        if len(out) > limit:
            return "".join(out[:limit]) + "…"
    return "".join(out)
