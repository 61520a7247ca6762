"""The conformance kit: checks a backend plugin against the contract before a run.

Every promise of the Backend protocol is one check (``checks.py``): write
answers one WriteResult per item, in order; query answers at most k Hits, of
ids it was given, best first; remove and count by prefix; close releases the
store; declared capabilities are honest (provenance as written, strength that
changes with use, a gate that refuses junk, a persistent store that reopens);
unknown options are refused. The same checks run three ways:

- ``memory-bench check [SPEC ...]``: one line per broken promise, exit 1 if any;
- in pytest, ``test_x = conformance_tests("my-memory")`` (the plugin is
  registered through the ``pytest11`` entry point; see ``pytest_plugin.py``);
- in Python, :func:`check_selection` returns a :class:`Report`.
"""

from __future__ import annotations

from typing import Any

from memory_bench.testing.checks import CHECKS, Check
from memory_bench.testing.kit import Outcome, Report, check_selection, run_check

__all__ = ["CHECKS", "Check", "Outcome", "Report", "check_selection", "conformance_tests",
           "run_check"]


def conformance_tests(*specs: str) -> Any:
    """See :func:`memory_bench.testing.pytest_plugin.conformance_tests` (imports pytest)."""
    from memory_bench.testing.pytest_plugin import conformance_tests as make

    return make(*specs)
