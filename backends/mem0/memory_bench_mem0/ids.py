"""Item id -> mem0 memory id, in a SQLite file beside the store.

mem0 names every memory by a UUID of its own; the harness removes and counts
by item-id prefix. This table is the one place that maps the two, kept in the
store's directory so a reopened store (``persistent``) still knows its items.
It keeps each item's source too, for forgetting by source (a table written before
it had the column gains it; its older rows have no source to forget by).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

__all__ = ["IdMap"]


class IdMap:
    """``item_id -> memory_id``; prefix lookups compare the id's leading characters."""

    def __init__(self, path: Path | str) -> None:
        """``path``: the table's file, or ``":memory:"`` (a store that does not reopen)."""
        self._db = sqlite3.connect(str(path))
        # This table is the adapter's bookkeeping, not mem0's work: WAL with NORMAL sync
        # keeps its commits from adding an fsync to every timed write.
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS ids "
                         "(item_id TEXT PRIMARY KEY, memory_id TEXT NOT NULL, source TEXT)")
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(ids)")}
        if "source" not in columns:
            self._db.execute("ALTER TABLE ids ADD COLUMN source TEXT")
        self._db.commit()

    def get(self, item_id: str) -> str | None:
        row = self._db.execute("SELECT memory_id FROM ids WHERE item_id = ?",
                               (item_id,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, rows: Sequence[tuple[str, str, str | None]]) -> None:
        """(item id, memory id, source) rows; an item id already mapped is replaced."""
        self._db.executemany("INSERT OR REPLACE INTO ids (item_id, memory_id, source) "
                             "VALUES (?, ?, ?)", rows)
        self._db.commit()

    def of(self, item_ids: Sequence[str] = (), source: str | None = None,
           prefix: str = "") -> list[tuple[str, str]]:
        """(item id, memory id) of these item ids and of the items of ``source`` whose
        id starts with ``prefix``."""
        found = dict(self._db.execute(
            f"SELECT item_id, memory_id FROM ids WHERE item_id IN "
            f"({', '.join('?' * len(item_ids))})", list(item_ids)).fetchall()) \
            if item_ids else {}
        if source is not None:
            found.update(self._db.execute(
                "SELECT item_id, memory_id FROM ids WHERE source = ? "
                "AND substr(item_id, 1, ?) = ?", (source, len(prefix), prefix)).fetchall())
        return sorted((str(a), str(b)) for a, b in found.items())

    def under(self, prefix: str) -> list[tuple[str, str]]:
        """(item id, memory id) of every item id that starts with ``prefix``."""
        rows = self._db.execute(
            "SELECT item_id, memory_id FROM ids WHERE substr(item_id, 1, ?) = ? "
            "ORDER BY item_id", (len(prefix), prefix))
        return [(str(a), str(b)) for a, b in rows]

    def count(self, prefix: str) -> int:
        (n,) = self._db.execute("SELECT COUNT(*) FROM ids WHERE substr(item_id, 1, ?) = ?",
                                (len(prefix), prefix)).fetchone()
        return int(n)

    def drop(self, item_ids: Sequence[str]) -> None:
        self._db.executemany("DELETE FROM ids WHERE item_id = ?", [(i,) for i in item_ids])
        self._db.commit()

    def close(self) -> None:
        self._db.close()
