"""The ``memory-bench`` command: parses arguments, runs the command, maps problems to exit
statuses. The commands themselves are in ``commands.py``; nothing here imports numpy.

Exit status: 0 success; 1 a run finished but some pairs failed (or left items
behind in a store, or a run of every backend lacked a plugin that failed to
load), or ``check`` found a broken promise, or it failed outside a pair, or an
unexpected error (one line; ``MEMORY_BENCH_DEBUG=1`` shows the traceback), or a
plugin's native crash (one line naming it, the signal and the phase); 2 bad
input (one line on stderr, nothing written), argparse's errors included; 130
interrupted (the message says whether the result file holds finished pairs to
``--resume``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from memory_bench import interrupts
from memory_bench.arguments import build_parser
from memory_bench.errors import BadInput, Interrupted, MemoryBenchError, printable

__all__ = ["main"]

def main(argv: Sequence[str] | None = None, *, guard: bool | None = None) -> int:
    """The command. ``guard`` (default: when ``argv`` is None, i.e. this process's own
    command line) runs it in a watched child, so that a plugin's native crash is
    named in one line instead of killing the command silently (``crashguard``)."""
    if guard if guard is not None else argv is None:
        from memory_bench.crashguard import guarded

        return guarded(lambda: _command(argv))
    return _command(argv)


def _command(argv: Sequence[str] | None) -> int:
    undo = interrupts.install()  # from the first instruction: Ctrl-C, SIGTERM -> 130
    try:
        return _main(argv)
    finally:
        undo()
        interrupts.finished()


def _main(argv: Sequence[str] | None) -> int:
    try:
        from memory_bench.commands import COMMANDS

        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except BadInput as exc:
        print(f"memory-bench: error: {printable(exc)}", file=sys.stderr)
        return 2
    except Interrupted as exc:
        print(f"memory-bench: {printable(exc)}", file=sys.stderr)
        return exc.exit_status
    except MemoryBenchError as exc:  # the result file says "failed", with this error
        print(f"memory-bench: error: {printable(exc)}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("memory-bench: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `memory-bench ... | head`: the reader left; end quietly
        from memory_bench.commands import stdout_to_devnull

        stdout_to_devnull()
        return 0
    except Exception as exc:  # a bug or the machine (disk full, out of memory): one line
        if os.environ.get("MEMORY_BENCH_DEBUG"):
            raise
        print(f"memory-bench: error: {type(exc).__name__}: {printable(exc)} "
              "(MEMORY_BENCH_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
