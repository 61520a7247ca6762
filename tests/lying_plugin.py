"""Test plugin whose backends break the contract in ways a run must survive: a query that
raises a bare ``BaseException`` (``raises-base-exception``: not an Exception, not
SystemExit), one that raises ``KeyboardInterrupt`` with no Ctrl-C pressed
(``raises-keyboard-interrupt``), and a ``count`` that answers text
(``count-returns-text``). Loaded with ``MEMORY_BENCH_PLUGINS=fake_backends,lying_plugin``."""

from __future__ import annotations

from fake_backends import SubjectMemory

from memory_bench import hookimpl


class RaisesBase(SubjectMemory):
    def query(self, text: str, k: int):
        raise BaseException("a plugin's own BaseException")


class RaisesInterrupt(SubjectMemory):
    def query(self, text: str, k: int):
        raise KeyboardInterrupt("a plugin's own KeyboardInterrupt")


class CountsText(SubjectMemory):
    def count(self, prefix: str):
        return "x"


@hookimpl
def memory_bench_register_backends(registry) -> None:
    for name, cls in (("raises-base-exception", RaisesBase), ("count-returns-text", CountsText),
                      ("raises-keyboard-interrupt", RaisesInterrupt)):
        registry.add(name, factory=lambda options, ctx, cls=cls: cls(), version="0.0.1",
                     description=f"test: {name}", reads=["tags"])
