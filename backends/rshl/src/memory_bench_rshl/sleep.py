"""Sleep: the offline pass that replays, merges, prunes and rebuilds.

Online writes only compare a new item with its nearest cells, and IDF weights
drift as the lattice grows; sleep is where the whole lattice is revisited:

1. replay: cells whose decayed strength is at least ``replay_threshold`` get a
   small Hebbian step (``replay_eta``), as rehearsal consolidates strong memories;
2. merge: near-duplicate cells (same rule as the write gate) are folded into
   the stronger one, keeping every item's provenance;
3. prune: cells whose decayed strength fell below ``prune_floor`` are removed;
4. rebuild: dead rows are compacted away and every cell is re-encoded with the
   current IDF, so the packed codes and accumulators are rebuilt from scratch
   (an encoder without IDF, ``dense``, has nothing to re-encode: ``reencoded`` 0).

A guest (a benchmark on a user's live store, ``Lattice.as_guest``) sleeps over
its own cells only: the host's are never replayed, merged, pruned or moved, and
the report says how many were left alone (``host_cells_untouched``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from memory_bench_rshl.gate import is_near_duplicate
from memory_bench_rshl.strength import decayed, reinforced

if TYPE_CHECKING:
    from memory_bench_rshl.lattice import Lattice

__all__ = ["sleep"]


def sleep(lat: Lattice) -> dict[str, Any]:
    """Run one sleep over ``lat`` in place; return a JSON-able report."""
    c = lat.config
    now = lat._now()
    guest = lat.guest_rows()
    report: dict[str, Any] = {"cells_before": len(guest)}
    if lat.host_rows:
        report["host_cells_untouched"] = lat.live_count() - len(guest)

    replayed = 0
    for row in guest:
        cell = lat._cell(row)
        s = decayed(cell.strength, cell.t_ref, now, c.half_life_s)
        if s >= c.replay_threshold:
            cell.strength, cell.t_ref = reinforced(s, c.replay_eta), now
            replayed += 1
    report["replayed"] = replayed

    merged: list[list[str]] = []
    for row in guest:
        cell = lat.cells[row]
        if cell is None:
            continue  # absorbed earlier in this pass
        enc = lat.index.encoding(row)
        rows = lat.index.candidates(enc.code, 5, lat.guest_mask())
        cos = lat.similarity(enc, rows)
        for j in np.argsort(-cos, kind="stable"):
            other = int(rows[j])
            peer = lat.cells[other]
            if other == row or peer is None:
                continue
            if not is_near_duplicate(cell.text, peer.text, float(cos[j]), c.merge_cosine,
                                     c.merge_jaccard):
                continue
            keep, gone = _stronger(lat, row, other, now)
            merged.append([lat._cell(keep).id, lat._cell(gone).id])
            _absorb(lat, keep, gone)
            if gone == row:
                break
    report["merged"] = merged

    pruned: list[str] = []
    for row in lat.guest_rows():
        cell = lat._cell(row)
        if decayed(cell.strength, cell.t_ref, now, c.half_life_s) < c.prune_floor:
            pruned.append(cell.id)
            lat.kill(row)
    report["pruned"] = pruned

    report["reencoded"] = lat.rebuild()
    report["cells_after"] = len(lat.guest_rows())
    report["index_rebuilt"] = True
    return report


def _stronger(lat: Lattice, a: int, b: int, now: float) -> tuple[int, int]:
    """(survivor, absorbed): the stronger cell survives; on a tie, the older one."""
    ca, cb = lat._cell(a), lat._cell(b)
    hl = lat.config.half_life_s
    sa, sb = decayed(ca.strength, ca.t_ref, now, hl), decayed(cb.strength, cb.t_ref, now, hl)
    if (sb, -cb.timestamp.timestamp()) > (sa, -ca.timestamp.timestamp()):
        return b, a
    return a, b


def _absorb(lat: Lattice, keep: int, gone: int) -> None:
    """Fold cell ``gone`` into ``keep``: provenance, texts, retrieval history, strength."""
    survivor, absorbed = lat._cell(keep), lat._cell(gone)
    now, hl = lat._now(), lat.config.half_life_s
    s = max(
        decayed(survivor.strength, survivor.t_ref, now, hl),
        decayed(absorbed.strength, absorbed.t_ref, now, hl),
    )
    provenance = list(absorbed.provenance)
    survivor.retrievals += absorbed.retrievals
    survivor.supersedes.extend(i for i in absorbed.supersedes if i not in survivor.supersedes)
    if survivor.superseded_by is None:
        survivor.superseded_by = absorbed.superseded_by
    lat.kill(gone)
    survivor.provenance.extend(provenance)
    survivor.strength, survivor.t_ref = s, now
    for p in provenance:
        lat._row_of[p.id] = keep
        lat._norm_text[p.norm] = keep
