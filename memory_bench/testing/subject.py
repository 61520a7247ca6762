"""A backend under check: opened fresh for each check, in a directory of its own.

The kit writes what a run writes (items with text, a source and a logical
timestamp, ids under a ``bench-`` prefix of its own), so a backend cannot tell a
check from a benchmark. Every backend the subject opened is cleaned up and
closed exactly once when the subject is released, whatever a check did.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memory_bench import interrupts
from memory_bench.contract.backend import Backend, BackendContext, NotSupportedError
from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Item
from memory_bench.plugins.selection import BackendSelection

__all__ = ["FACTS", "Blocked", "Broken", "Raised", "Subject", "Watched"]

# Distinct facts about invented people: any memory that retrieves by content
# finds each by its own text.
FACTS = (
    "Mara Olsen works for Fathom Foods in the harbour district.",
    "Ivo Brandt was born in the mountain town of Kellsport.",
    "The phone extension of Lena Park at the clinic is 4471.",
    "Tobias Wren keeps a grey whippet called Biscuit.",
    "Greta Lund moved to a farmhouse outside Harrowgate.",
    "Osric Vale founded the Tinder Lane bicycle cooperative.",
    "Priya Nandakumar teaches cello at the Alder Street conservatory.",
    "Hugo Salter repairs clocks in a workshop under the viaduct.",
    "The mayor of Quillby is a retired ferry captain named Edda Moss.",
    "Fenna Roy grows saffron on a terrace above Lake Orta.",
    "Caspian Holt translated three sagas from Old Norse.",
    "Ruth Okafor coaches the under-twelve rowing team on Saturdays.",
)
CLEAN = "Anselm Ferreira paints lighthouses along the northern coast."
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Broken(AssertionError):
    """A broken promise, as one line."""


class Blocked(Exception):
    """A check could not get as far as its promise: another check (named) is broken."""

    def __init__(self, by: str) -> None:
        super().__init__(by)
        self.by = by


_METHODS = ("write", "query", "strength", "consolidate", "forget", "remove", "count", "close")
# method -> capability
_OPTIONAL = {"strength": "strength", "consolidate": "consolidate", "forget": "forget"}


class Raised(Exception):
    """A backend method raised: which method, and what."""

    def __init__(self, method: str, exc: BaseException) -> None:
        super().__init__(method)
        self.method, self.exc = method, exc

    def line(self) -> str:
        why = f"{type(self.exc).__name__}: {self.exc}".rstrip(": ")
        if isinstance(self.exc, NotSupportedError):
            if self.method in _OPTIONAL:
                return (f"{self.method}() raised {why}, although `{_OPTIONAL[self.method]}` "
                        "is declared")
            return f"{self.method}() raised {why}: it is not optional"
        return f"{self.method}() raised {why}"


class Watched:
    """The backend, with each contract method's exception tagged by its name."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._backend, name)
        if name not in _METHODS or not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            signals = interrupts.received()
            try:
                return attr(*args, **kwargs)
            except BaseException as exc:  # sys.exit(), a bare BaseException or the backend's
                if interrupts.by_user(exc, signals):  # own KeyboardInterrupt: a broken
                    raise  # promise; the user's Ctrl-C (a signal arrived) ends the check
                raise Raised(name, exc) from exc

        return call


@dataclass
class Opened:
    backend: Any  # a Watched backend
    workdir: Path
    closed: bool = False


class Subject:
    """One backend selection, opened as often as a check needs, on fresh stores."""

    def __init__(self, selection: BackendSelection, *, cache_dir: Path | None = None,
                 base: Path | None = None) -> None:
        self.selection = selection
        self.label = selection.label
        self.caps = selection.capabilities  # those its options grant included
        self.run_id = "check" + secrets.token_hex(3)
        self.prefix = f"bench-{self.run_id}-"
        self._own_base = base is None
        self.base = Path(tempfile.mkdtemp(prefix="memory-bench-kit-")) if base is None else base
        self.cache_dir = cache_dir
        self._opened: list[Opened] = []
        self.problems: list[str] = []
        self.foreign = False  # the store held items before the kit wrote

    def has(self, capability: Capability) -> bool:
        return capability in self.caps

    def note_foreign(self, backend: Any) -> None:
        """Before the kit writes: does the store already hold items (a user's live store,
        named by the options)? Then, as in a run, ids outside the kit's prefix are the
        store's own and not strangers."""
        n = backend.count("")
        self.foreign = self.foreign or (isinstance(n, int) and n > 0)

    def given(self, written: Mapping[str, Item]) -> Callable[[str], bool]:
        """Was an id given to the store by this check (see :meth:`note_foreign`)?"""
        return lambda i: i in written or (self.foreign and not i.startswith(self.prefix))

    # -- data ------------------------------------------------------------------------

    def items(self, episode: str, texts: tuple[str, ...] | list[str], *,
              minute: int = 0) -> list[Item]:
        """Items as the harness writes them: ids ``<prefix><episode>-NNNN``, the source
        ``<prefix><episode>``, timestamps one logical minute apart from ``minute``."""
        return [
            Item(id=f"{self.prefix}{episode}-{i:04d}", text=text,
                 source=f"{self.prefix}{episode}",
                 timestamp=T0 + timedelta(minutes=minute + i))
            for i, text in enumerate(texts)
        ]

    # -- backends --------------------------------------------------------------------

    def open(self, store: str = "store") -> Backend:
        """A backend on the store in ``<base>/<store>`` (a new, empty one the first time)."""
        workdir = self.base / store
        workdir.mkdir(parents=True, exist_ok=True)
        ctx = BackendContext(workdir=workdir, seed=0, run_id=self.run_id,
                             cache_dir=self.cache_dir)
        backend = Watched(self.selection.info.create(self.selection.options, ctx))
        self._opened.append(Opened(backend, workdir))
        return backend  # type: ignore[return-value]

    def close(self, backend: Backend) -> Any:
        """Close ``backend`` now (once); returns what close() returned."""
        entry = next(o for o in self._opened if o.backend is backend)
        entry.closed = True
        return backend.close()

    def expect(self, condition: bool, problem: str) -> None:
        """Record a broken promise and go on checking."""
        if not condition:
            self.problems.append(problem)

    def release(self) -> list[str]:
        """Remove the kit's items from every open backend and close it once; then
        delete the stores. Returns what went wrong (a check's own failures aside)."""
        trouble = []
        for entry in self._opened:
            if entry.closed:
                continue
            entry.closed = True
            for method, args in (("remove", (self.prefix,)), ("close", ())):
                try:
                    getattr(entry.backend, method)(*args)
                except Raised as exc:
                    trouble.append(f"clean-up: {exc.line()}")
        self._opened.clear()
        if self._own_base:
            shutil.rmtree(self.base, ignore_errors=True)
        return trouble
