"""``memory-bench`` with every backend call timed: what ``bench_speed.py`` runs.

    BENCH_TIMINGS=calls.jsonl python benchmarks/timed_cli.py run ...

Before the plugins load, ``BackendRegistry.add`` is wrapped so that each
backend's factory and preload are timed and each backend it makes is a proxy
timing every protocol call (write, query, strength, consolidate, remove, count,
close). When a backend is closed, the process appends one JSON line with its
seconds to ``$BENCH_TIMINGS`` (forked children included). The harness knows
nothing of this: it only ever sees a backend. Works on any checkout whose
registry takes ``factory=`` and ``preload=`` keywords, so today's code and the
new code are timed the same way.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

CALLS = ("write", "query", "strength", "consolidate", "remove", "count", "close")


def _emit(record: dict[str, Any]) -> None:
    path = os.environ.get("BENCH_TIMINGS")
    if not path:
        return
    line = (json.dumps(record) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)  # one write with O_APPEND: lines of processes never interleave
    finally:
        os.close(fd)


class TimedBackend:
    """Delegates every call to ``inner`` and adds its wall time to ``seconds``."""

    def __init__(self, name: str, inner: Any, opened_s: float) -> None:
        self._name, self._inner = name, inner
        self.seconds = {"factory": opened_s}

    def _timed(self, call: str, *args: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return getattr(self._inner, call)(*args)
        finally:
            self.seconds[call] = self.seconds.get(call, 0.0) + time.perf_counter() - t0

    def write(self, items: Any) -> Any:
        return self._timed("write", items)

    def query(self, text: str, k: int) -> Any:
        return self._timed("query", text, k)

    def strength(self, ids: Any) -> Any:
        return self._timed("strength", ids)

    def consolidate(self) -> Any:
        return self._timed("consolidate")

    def remove(self, prefix: str) -> Any:
        return self._timed("remove", prefix)

    def count(self, prefix: str) -> Any:
        return self._timed("count", prefix)

    def close(self) -> Any:
        try:
            return self._timed("close")
        finally:
            _emit({"kind": "backend", "backend": self._name, "pid": os.getpid(),
                   "end": time.time(), "seconds": self.seconds})

    def __getattr__(self, attr: str) -> Any:  # stats() and the like
        return getattr(self._inner, attr)


def _timed_factory(name: str, factory: Callable[..., Any]) -> Callable[..., Any]:
    def make(options: Any, ctx: Any) -> Any:
        t0 = time.perf_counter()
        inner = factory(options, ctx)
        return TimedBackend(name, inner, time.perf_counter() - t0)
    return make


def _timed_preload(name: str, preload: Callable[..., Any]) -> Callable[..., Any]:
    def run(options: Any, cache_dir: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return preload(options, cache_dir)
        finally:
            _emit({"kind": "preload", "backend": name, "pid": os.getpid(), "end": time.time(),
                   "seconds": {"preload": time.perf_counter() - t0}})
    return run


def install() -> None:
    from memory_bench.plugins import backends

    add = backends.BackendRegistry.add

    def timed_add(self: Any, name: str, **kw: Any) -> Any:
        kw["factory"] = _timed_factory(name, kw["factory"])
        if kw.get("preload") is not None:
            kw["preload"] = _timed_preload(name, kw["preload"])
        return add(self, name, **kw)

    backends.BackendRegistry.add = timed_add  # type: ignore[method-assign]


if __name__ == "__main__":
    _emit({"kind": "start", "pid": os.getpid(), "end": time.time()})
    install()
    from memory_bench.cli import main

    code = main(sys.argv[1:])
    _emit({"kind": "exit", "pid": os.getpid(), "end": time.time()})
    sys.exit(code)
