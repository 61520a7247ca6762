"""A backend that keeps its items in a JSON file and can misbehave on a chosen query.

Retrieval is exact, by the ``subject:`` tag named in the question (newest
first), so a well-behaved run scores like a perfect memory and any failure
the tests see is the misbehaviour they asked for. The store directory
outlives the process, so items a killed run leaves behind are still there
for the next run to find. Every process that opens the store leaves its pid
in ``<store>/pids/`` so a test can check that no child outlived its run.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path

from memory_bench import Hit, Item, WriteResult

__all__ = ["MISBEHAVIOURS", "JsonStore"]

MISBEHAVIOURS = ("none", "raise", "hang", "die", "exit")


class JsonStore:
    """Items in ``<directory>/items.json``, rewritten atomically on every change."""

    def __init__(
        self, directory: Path, *, misbehave: str = "none", after: int = 0, slow_ms: float = 0.0,
        hold: str | None = None,
    ) -> None:
        if misbehave not in MISBEHAVIOURS:
            raise ValueError(f"misbehave must be one of {MISBEHAVIOURS}")
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "pids").mkdir(exist_ok=True)
        (directory / "pids" / str(os.getpid())).touch()
        self.file = directory / "items.json"
        self.misbehave = misbehave
        self.after = after
        self.slow_s = slow_ms / 1000.0
        self.hold = Path(hold) if hold else None
        self.queries = 0
        self.items = self._load()

    def _load(self) -> list[Item]:
        if not self.file.exists():
            return []
        return [Item.from_dict(d) for d in json.loads(self.file.read_text(encoding="utf-8"))]

    def _save(self) -> None:
        tmp = self.file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps([i.to_dict() for i in self.items]), encoding="utf-8")
        os.replace(tmp, self.file)

    def _misbehave(self) -> None:
        if self.misbehave == "raise":
            raise RuntimeError("misbehaving on purpose: raise in query")
        if self.misbehave == "hang":
            while True:
                time.sleep(3600)
        if self.misbehave == "die":
            os.kill(os.getpid(), signal.SIGKILL)
        if self.misbehave == "exit":
            os._exit(3)

    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        self.items.extend(items)
        self._save()
        return [WriteResult(i.id, True) for i in items]

    def query(self, text: str, k: int) -> list[Hit]:
        self.queries += 1
        if self.slow_s:
            time.sleep(self.slow_s)
        while self.hold is not None and self.hold.exists():  # until the test lets it go
            time.sleep(0.02)
        if self.queries > self.after:
            self._misbehave()
        subjects = {s for i in self.items if (s := i.tag("subject")) and s in text}
        if not subjects:
            return []
        subject = max(subjects, key=len)
        found = [i for i in self.items if i.tag("subject") == subject][::-1][:k]
        return [
            Hit(id=i.id, score=1.0 / (n + 1), source=i.source, timestamp=i.timestamp)
            for n, i in enumerate(found)
        ]

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotImplementedError

    def consolidate(self) -> dict:
        raise NotImplementedError

    def remove(self, prefix: str) -> int:
        before = len(self.items)
        self.items = [i for i in self.items if not i.id.startswith(prefix)]
        self._save()
        return before - len(self.items)

    def count(self, prefix: str) -> int:
        return sum(i.id.startswith(prefix) for i in self.items)

    def close(self) -> None:
        self.items = []
