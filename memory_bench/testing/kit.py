"""Running the checks on a backend selection, and what came of them.

Used by ``memory-bench check`` and by the pytest plugin alike: each check gets
a :class:`~memory_bench.testing.subject.Subject` of its own (fresh stores,
closed once at the end); an exception a backend raises is a broken promise
named by the method that raised it (``Raised``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_bench import crashguard
from memory_bench.plugins.selection import BackendSelection
from memory_bench.testing.checks import CHECKS, Check
from memory_bench.testing.subject import Blocked, Broken, Raised, Subject

__all__ = ["Outcome", "Report", "check_selection", "run_check"]

@dataclass
class Outcome:
    """One check on one backend: ``ok``, ``broken`` (with one line per broken
    promise), ``not applicable`` (with why) or ``blocked`` (another check it
    needs is broken)."""

    check: str
    promise: str
    status: str
    problems: list[str] = field(default_factory=list)
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "promise": self.promise, "status": self.status,
                "problems": list(self.problems), "reason": self.reason}


@dataclass
class Report:
    """Every check on one backend selection."""

    label: str
    outcomes: list[Outcome]

    @property
    def broken(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "broken"]

    def lines(self) -> list[str]:
        """One line per broken promise, then a summary line."""
        out = [f"BROKEN {self.label} {o.check}: {p}" for o in self.broken for p in o.problems]
        ok = sum(o.status == "ok" for o in self.outcomes)
        na = [o.check for o in self.outcomes if o.status == "not applicable"]
        blocked = [o.check for o in self.outcomes if o.status == "blocked"]
        tail = f", not applicable: {', '.join(na)}" if na else ""
        tail += f", not run (blocked by a broken check): {', '.join(blocked)}" if blocked else ""
        if self.broken:
            out.append(f"{self.label}: {len(out)} broken promise(s) in "
                       f"{len(self.broken)} of {len(self.outcomes)} checks{tail}")
        else:
            out.append(f"{self.label}: ok, {ok} checks kept{tail}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "ok": not self.broken,
                "checks": [o.to_dict() for o in self.outcomes]}


def run_check(selection: BackendSelection, check: Check, *, base: Path | None = None,
              cache_dir: Path | None = None) -> Outcome:
    """Run one check on fresh stores under ``base`` (a temporary directory if None)."""
    subject = Subject(selection, cache_dir=cache_dir, base=base)
    reason = check.not_applicable(subject)
    if reason is not None:
        subject.release()
        return Outcome(check.name, check.promise, "not applicable", reason=reason)
    problems: list[str] = []
    blocked: str | None = None
    try:
        check.run(subject)
    except Blocked as exc:
        blocked = f"not run: the `{exc.by}` check is broken"
    except Raised as exc:
        problems.append(exc.line())
    except Broken as exc:
        problems.append(str(exc))
    except Exception as exc:  # the check itself tripped on a malformed answer
        problems.append(f"answered in a way the check could not read ({type(exc).__name__}: "
                        f"{exc})")
    finally:
        problems = [*subject.problems, *problems, *subject.release()]
    if blocked is not None and not problems:
        return Outcome(check.name, check.promise, "blocked", reason=blocked)
    status = "broken" if problems else "ok"
    return Outcome(check.name, check.promise, status, problems)


def check_selection(selection: BackendSelection, *, checks: Iterable[Check] = CHECKS,
                    cache_dir: Path | None = None) -> Report:
    """Every check on one backend, each on fresh stores in a temporary directory;
    with no ``cache_dir``, a fresh embedding cache that is deleted afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix="memory-bench-check-"))
    try:
        cache = cache_dir or tmp / "cache"
        outcomes = []
        for c in checks:
            with crashguard.doing(f"backend {selection.label} (plugin {selection.info.plugin})",
                                  f"the conformance check `{c.name}`"):
                outcomes.append(run_check(selection, c, base=tmp / c.name, cache_dir=cache))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return Report(selection.label, outcomes)
