"""The RSHL lattice: gated writes, scored recall with reinforcement, lineage, removal.

Usable on its own (no memory-bench import)::

    lat = Lattice(LatticeConfig(dim=4096, seed=0))
    lat.write([Record("f-1", "Mara Olsen works for Acme Corp.", "notes", ts)])
    hits = lat.query("Who does Mara Olsen work for?", k=5)
    lat.consolidate(); lat.save(path); Lattice.load(path)

The encoder is the lattice's ``config.encoder``: ``lexical`` (model-free, the
default) is built from the configuration; ``dense`` and ``hybrid`` are given,
made by :func:`~memory_bench_rshl.encoders.make_encoder` over an embedding.
Every mechanism below reads similarity through the encoder, never a vector
space of its own, so the same lattice runs over any of them.

Rows of :class:`~memory_bench_rshl.index.CodeIndex` and ``cells`` are parallel;
a removed cell leaves a dead row until the next sleep compacts the index.

A lattice opened as a *guest* (:meth:`Lattice.as_guest`: a benchmark on a user's
live store) treats every row present at that moment as the host's: host cells
are found by queries but never reinforced, merged into, superseded, replayed,
pruned, re-encoded or moved; only removal by id prefix touches them. When the
guest's last cell is removed, the rows, the clock, the regions and the IDF
counts are exactly the host's again, so a saved store is byte-identical.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from memory_bench_rshl.cell import Cell, Provenance, to_epoch
from memory_bench_rshl.claims import claim, new_value, relation_overlap
from memory_bench_rshl.config import LatticeConfig
from memory_bench_rshl.cues import CueMemory
from memory_bench_rshl.encoder import IdfStats, content_stems, pack_signs
from memory_bench_rshl.encoders import make_encoder
from memory_bench_rshl.encoding import Encoding, TextEncoder
from memory_bench_rshl.gate import (
    DUPLICATE,
    DUPLICATE_ID,
    NEAR_DUPLICATE,
    is_near_duplicate,
    normalise,
    refusal,
    text_subject,
)
from memory_bench_rshl.index import CodeIndex
from memory_bench_rshl.strength import decayed, new_moment, reinforced

__all__ = ["Lattice", "Recall", "Record", "WriteOutcome"]

_PEERS_PER_NAME = 64  # text supersession reads at most this many newest cells per name
_MERGE_PER_STEM = 1024  # the merge check reads at most this many newest cells per stem


@dataclass(frozen=True)
class Record:
    """An item to write. ``tags`` may carry ``subject:...`` and ``relation:...``."""

    id: str
    text: str
    source: str
    timestamp: datetime
    region: str = "default"
    tags: tuple[str, ...] = ()

    def tag(self, key: str) -> str | None:
        prefix = key + ":"
        return next((t[len(prefix) :] for t in self.tags if t.startswith(prefix)), None)


@dataclass(frozen=True)
class WriteOutcome:
    """Accepted (possibly merged into, or superseding, another cell) or refused with a reason."""

    id: str
    accepted: bool
    reason: str | None = None
    merged_into: str | None = None
    supersedes: str | None = None


@dataclass(frozen=True)
class Recall:
    """One hit: the cell's id and provenance, its similarity, strength and final score."""

    id: str
    score: float
    similarity: float
    source: str
    timestamp: datetime
    strength: float
    sources: tuple[str, ...]
    text: str
    superseded_by: str | None


class Lattice:
    """Cells in regions, a text encoder (lexical, dense or hybrid) and a packed-code index."""

    def __init__(self, config: LatticeConfig | None = None,
                 encoder: TextEncoder | None = None) -> None:
        self.config = config or LatticeConfig()
        c = self.config
        self.encoder: TextEncoder = encoder if encoder is not None else make_encoder(c)
        if self.encoder.kind != c.encoder or self.encoder.dim != c.dim:
            raise ValueError(f"the lattice is configured for encoder={c.encoder}, dim={c.dim}; "
                             f"given {self.encoder.kind}, dim={self.encoder.dim}")
        self.stats = IdfStats()
        self.cues = CueMemory()  # question words -> words of the cells they retrieved
        self.index = CodeIndex(
            c.dim,
            sketch_bits=c.sketch_bits,
            full_scan_below=c.full_scan_below,
            prefilter=c.prefilter,
            accumulators=self.encoder.kind != "dense",
            vector_dim=self.encoder.dense_dim,
        )
        self.cells: list[Cell | None] = []
        self.dead = np.zeros(self.index.codes.shape[0], dtype=bool)
        self.region_of_row = np.zeros(self.index.codes.shape[0], dtype=np.int32)
        self.regions: dict[str, int] = {}
        self.now = -math.inf  # latest logical timestamp written
        self.encoded_at_docs = 0  # stats.n_docs when every cell was last re-encoded
        self._row_of: dict[str, int] = {}  # every stored item id -> row
        self._norm_text: dict[str, int] = {}  # normalised text -> row
        self._by_key: dict[tuple[str, str], int] = {}  # (subject, relation) -> newest row
        # The inverted index: "n:" + name span and "w:" + content stem -> rows, oldest first.
        self._postings: dict[str, list[int]] = {}
        self.host_rows = 0  # rows [0, host_rows) are the host's (``as_guest``)
        self._host: _HostState | None = None

    # ------------------------------------------------------------------ host
    def as_guest(self) -> int:
        """Use this lattice as a guest: every current row becomes the host's.

        Returns how many live host cells there are. See the module docstring.
        """
        self.host_rows = self.index.n
        self._host = _HostState(
            now=self.now,
            encoded_at_docs=self.encoded_at_docs,
            regions=dict(self.regions),
            keys={k: r for k, r in self._by_key.items()},
        )
        return self.live_count()

    def _is_host(self, row: int) -> bool:
        return row < self.host_rows

    def guest_mask(self) -> np.ndarray:
        """Rows a guest write may merge into or supersede: not dead, not the host's."""
        if not self.host_rows:
            return self.dead
        mask = self.dead.copy()
        mask[: self.host_rows] = True
        return mask

    def _restore_host(self) -> None:
        """Once no guest row is alive, drop the guest rows and restore the host's state."""
        h = self._host
        n = self.host_rows
        if h is None or np.any(~self.dead[n : self.index.n]):
            return
        if self.index.n > n:
            self.index.n = n
            del self.cells[n:]
            self.dead[n:] = False
            self.region_of_row[n:] = 0
            self._rebuild_maps()
        self.now, self.encoded_at_docs = h.now, h.encoded_at_docs
        self.regions = dict(h.regions)

    # ------------------------------------------------------------------ write
    def write(self, records: Sequence[Record]) -> list[WriteOutcome]:
        """Gate, then store, merge or supersede each record; one outcome per record, in order."""
        c = self.config
        outcomes: list[WriteOutcome | None] = [None] * len(records)
        batch_texts: dict[str, int] = {}
        batch_ids: set[str] = set()
        pending: list[tuple[int, Record, str, dict[str, float]]] = []
        for i, rec in enumerate(records):
            norm = normalise(rec.text)
            norm = rec.text if norm == rec.text else norm  # one string, not two equal ones
            reason = refusal(rec.text, c.min_words, self._norm_text)
            if reason is None and norm in batch_texts:
                reason = DUPLICATE
            if reason is None and (rec.id in self._row_of or rec.id in batch_ids):
                reason = DUPLICATE_ID
            if reason is not None:
                outcomes[i] = WriteOutcome(rec.id, False, reason)
                continue
            batch_texts[norm] = i
            batch_ids.add(rec.id)
            feats = self.encoder.features(rec.text)
            self.stats.add(feats)  # the whole batch informs the IDF before encoding
            pending.append((i, rec, norm, feats))
        self._maybe_reencode()
        # One embedding call for the batch (cached, batched); the lexical part is encoded
        # record by record, as a merge earlier in the batch changes the IDF counts.
        vectors = self.encoder.embed([rec.text for _, rec, _, _ in pending]) if pending else None
        for j, (i, rec, norm, feats) in enumerate(pending):
            outcomes[i] = self._store(rec, norm, feats, None if vectors is None else vectors[j])
        return [o for o in outcomes if o is not None]

    def _store(self, rec: Record, norm: str, feats: dict[str, float],
               vector: np.ndarray | None) -> WriteOutcome:
        t = to_epoch(rec.timestamp)
        self.now = max(self.now, t)
        enc = self.encoder.encoding(feats, self.stats, vector)
        dup = self._near_duplicate(rec.text, enc)
        if dup is None:
            dup = self._restated_row(rec.text, enc)
        if dup is not None:
            self.stats.remove(feats)  # a merged (or refused) item adds no document
            cell = self._cell(dup)
            if rec.source in cell.sources():  # its own source again: nothing new
                return WriteOutcome(rec.id, False, NEAR_DUPLICATE)
            cell.provenance.append(Provenance(rec.id, rec.source, rec.timestamp, norm))
            self._row_of[rec.id] = dup
            self._norm_text[norm] = dup
            return WriteOutcome(rec.id, True, merged_into=cell.id)
        row = self._append(rec, norm, enc, t)
        old = self._superseded_row(row, rec, enc)
        if old is None:
            return WriteOutcome(rec.id, True)
        return WriteOutcome(rec.id, True, supersedes=self._link(old, row))

    def _append(self, rec: Record, norm: str, enc: Encoding, t: float) -> int:
        subject, relation = rec.tag("subject"), rec.tag("relation")
        cell = Cell(
            text=rec.text,
            region=rec.region,
            provenance=[Provenance(rec.id, rec.source, rec.timestamp, norm)],
            strength=self.config.initial_strength,
            t_ref=t,
            key=(subject.lower(), relation.lower()) if subject and relation else None,
            subject=text_subject(rec.text),
        )
        row = self.index.add(enc)
        self.cells.append(cell)
        if self.dead.shape[0] < self.index.codes.shape[0]:
            self.dead = np.resize(self.dead, self.index.codes.shape[0])
            self.region_of_row = np.resize(self.region_of_row, self.index.codes.shape[0])
        self.dead[row] = False
        self.region_of_row[row] = self.regions.setdefault(rec.region, len(self.regions))
        self._index_cell(row, cell)
        return row

    def _index_cell(self, row: int, cell: Cell) -> None:
        for p in cell.provenance:
            self._row_of[p.id] = row
            self._norm_text[p.norm] = row
        for key in self._keys(cell):
            self._postings.setdefault(key, []).append(row)

    @staticmethod
    def _keys(cell: Cell) -> list[str]:
        """The inverted index's keys of a cell: its claim's names (a dialogue turn's speaker
        is not one) and its content stems."""
        return [*("n:" + n for n in claim(cell.text).names),
                *("w:" + w for w in dict.fromkeys(content_stems(cell.text)))]

    def similarity(self, q: Encoding, rows: np.ndarray) -> np.ndarray:
        """The encoder's similarity of ``q`` to ``rows``: every mechanism reads this one."""
        return self.encoder.similarity(self.index, q, rows)

    def _near_duplicate(self, text: str, enc: Encoding) -> int | None:
        """The cell ``text`` restates (``gate.is_near_duplicate``), or None.

        Candidates come from the inverted index, not a scan: a cell whose content
        stems have Jaccard >= t with the text's n stems holds at least ceil(t n) of
        them, so it holds one of any n - ceil(t n) + 1; the rarest are looked up.
        """
        c = self.config
        rows = self._merge_candidates(text, enc)
        if len(rows) == 0:
            return None
        cos = self.similarity(enc, rows)
        for j in np.argsort(-cos, kind="stable"):
            row = int(rows[j])
            cell = self._cell(row)
            if is_near_duplicate(text, cell.text, float(cos[j]), c.merge_cosine, c.merge_jaccard):
                return row
        return None

    def _merge_candidates(self, text: str, enc: Encoding) -> np.ndarray:
        stems = list(dict.fromkeys(content_stems(text)))
        if not stems or self.config.merge_jaccard <= 0:  # no overlap needed: the code scan
            return self.index.candidates(enc.code, 4, self.guest_mask())
        need = len(stems) - math.ceil(self.config.merge_jaccard * len(stems) - 1e-9) + 1
        lists = sorted((self._postings.get("w:" + w, []) for w in stems), key=len)[:need]
        found = {r for rows in lists for r in rows[-_MERGE_PER_STEM:]}
        mask = self.guest_mask()
        return np.asarray(sorted(r for r in found if not mask[r]), dtype=np.int64)

    def _restated_row(self, text: str, enc: Encoding) -> int | None:
        """The live cell ``text`` restates in other words, or None: the same names and
        numbers (two at least: a subject and a value), no speaker on either, and a
        similarity of at least ``supersede_text_cosine`` ("Acme Foods employs Mara Olsen"
        restates "Mara Olsen works for Acme Foods")."""
        new = claim(text)
        if new.speaker is not None or len(new.names) + len(new.numbers) < 2:
            return None
        names, mask = set(new.names), self.guest_mask()
        seen: set[int] = set()
        for subject in new.names:
            for r in self._postings.get("n:" + subject, [])[-_PEERS_PER_NAME:]:
                if r in seen or mask[r]:
                    continue
                seen.add(r)
                old = claim(self._cell(r).text)
                if (old.speaker is None and set(old.names) == names
                        and old.numbers == new.numbers):
                    sim = float(self.similarity(enc, np.asarray([r]))[0])
                    if sim >= self.config.supersede_text_cosine:
                        return r
        return None

    def _superseded_row(self, row: int, rec: Record, enc: Encoding) -> int | None:
        """The live cell that the new row gives a new value for, if any."""
        c = self.config
        cell = self._cell(row)
        if c.supersede == "off":
            return None
        if cell.key is not None and c.supersede in ("auto", "tags"):
            old = self._by_key.get(cell.key)
            if old is None or self.dead[old] or self._is_host(old):
                self._by_key[cell.key] = row
                return None
            return old
        if c.supersede == "tags":
            return None
        peers = self.text_peers(row)
        if not peers:
            return None
        rows = np.asarray([r for r, _ in peers])
        sim = self.similarity(enc, rows)
        best, best_score = None, -math.inf
        for (r, overlap), s in zip(peers, sim.tolist(), strict=True):
            if overlap < c.supersede_relation or s < c.supersede_text_cosine:
                continue
            score = overlap + s  # the same relation first; the encoder breaks ties
            if score > best_score:
                best, best_score = r, score
        if best is None and len(peers) == 1 and claim(cell.text).change \
                and float(sim[0]) >= c.supersede_text_cosine:
            # "X now works for Y" when the one thing known of X has another value: the
            # change cue says which, though the words differ ("Z employs X").
            return peers[0][0]
        return best

    def text_peers(self, row: int) -> list[tuple[int, float]]:
        """The cells text-only supersession may link ``row`` to, with their relation overlap:
        current, the guest's, sharing a name with it (a subject) and saying something else of
        that name (a new value, ``claims.new_value``).

        Which shared name is the subject cannot be told from text alone ("{v} is the
        birthplace of {s}"), so any qualifies; the relation words outside the names decide
        (``claims.relation_overlap``). A dialogue turn's speaker is never a subject. Only the
        newest ``_PEERS_PER_NAME`` rows of each name are read, so a write costs the same at
        any lattice size.
        """
        new = claim(self._cell(row).text)
        best: dict[int, float] = {}
        for subject in new.names:
            for r in self._postings.get("n:" + subject, [])[-_PEERS_PER_NAME:]:
                if r == row or r in best or self.dead[r] or self._is_host(r):
                    continue
                cell = self._cell(r)
                if cell.superseded_by is not None:
                    continue
                old = claim(cell.text)
                if new_value(new, old, subject):
                    best[r] = relation_overlap(new.relation, old.relation, self._word_idf)
        return sorted(best.items())

    def _word_idf(self, stem: str) -> float:
        return self.stats.idf("w:" + stem)

    def _link(self, old: int, new: int) -> str:
        """Record lineage; the later timestamp wins. Returns the id of the superseded cell."""
        a, b = self._cell(old), self._cell(new)
        if to_epoch(b.timestamp) < to_epoch(a.timestamp):
            a, b, old, new = b, a, new, old
        a.superseded_by = b.id
        b.supersedes.append(a.id)
        if b.key is not None:
            self._by_key[b.key] = new
        return a.id

    def _maybe_reencode(self) -> None:
        """Re-encode every cell once the corpus has doubled since the last time.

        IDF is learned online, so early cells were weighted with early counts;
        doubling keeps the amortised cost per write constant.
        """
        n = self.stats.n_docs
        if n >= 64 and n >= 2 * self.encoded_at_docs:
            self.reencode()

    def reencode(self) -> int:
        """Re-encode every live cell with the current IDF; returns how many.

        A dense part is re-encoded from the stored embedding (no model call); an
        encoder without IDF (``dense``) has nothing to re-encode.
        """
        done = 0
        enc = self.encoder
        if enc.uses_idf:
            for row, cell in enumerate(self.cells):
                if cell is not None and not self._is_host(row):
                    vec = self.index.vec[row] if enc.dense_dim else None
                    self.index.put(row, enc.encoding(enc.features(cell.text), self.stats, vec))
                    done += 1
        self.encoded_at_docs = self.stats.n_docs
        return done

    # ------------------------------------------------------------------ read
    def query(
        self, text: str, k: int = 5, *, region: str | None = None, reinforce: bool | None = None
    ) -> list[Recall]:
        """Top-``k`` cells for ``text``, best first; retrieval reinforces the cells returned,
        each once per logical moment (``strength.new_moment``: a burst of questions with no
        item written between them is one use).

        Score = similarity (x ``superseded_factor`` for a superseded cell)
        + ``strength_weight`` x strength: strength breaks near-ties only.
        """
        c = self.config
        if k <= 0 or self.index.n == int(np.count_nonzero(self.dead[: self.index.n])):
            return []
        q = self.encoder.query_encoding(text, self.stats)
        if q is None:
            return []
        q = self._cued(text, q)
        mask = self.dead[: self.index.n]
        if region is not None:
            rid = self.regions.get(region)
            if rid is None:
                return []
            mask = mask | (self.region_of_row[: self.index.n] != rid)
        rows = self.index.candidates(q.code, max(c.candidates, 4 * k), mask)
        if len(rows) == 0:
            return []
        rows = self._with_successors(rows)
        cos = self.similarity(q, rows)
        cells = [self._cell(int(r)) for r in rows]
        now = self._now()
        s = np.array([decayed(x.strength, x.t_ref, now, c.half_life_s) for x in cells])
        factor = np.array([c.superseded_factor if x.superseded_by else 1.0 for x in cells])
        score = cos * factor + c.strength_weight * s
        score = self._lineage_scores(rows, cells, cos, score)
        order = np.lexsort((rows, -score))
        if not c.show_superseded:
            order = np.array([j for j in order if cells[j].superseded_by is None], dtype=int)
            if len(order) == 0:
                return []
        order = order[:k]
        top_cos = max(float(cos[order[0]]), 1e-9)
        do_reinforce = c.reinforce if reinforce is None else reinforce
        if do_reinforce and self._host is None:  # a guest leaves the host's cues as they are
            self.cues.learn(claim(text).relation, claim(cells[order[0]].text).relation)
        hits = []
        for j in order:
            cell = cells[j]
            strength = float(s[j])
            if do_reinforce and not self._is_host(int(rows[j])):
                eta = c.eta if new_moment(cell.last_retrieval, now) else 0.0
                strength = reinforced(strength, eta, float(cos[j]) / top_cos)
                cell.strength, cell.t_ref = strength, now
                cell.retrievals += 1
                cell.last_retrieval = now
            hits.append(
                Recall(
                    id=cell.id,
                    score=float(score[j]),
                    similarity=float(cos[j]),
                    source=cell.source,
                    timestamp=cell.timestamp,
                    strength=strength,
                    sources=cell.sources(),
                    text=cell.text,
                    superseded_by=cell.superseded_by,
                )
            )
        return hits

    def _cued(self, text: str, q: Encoding) -> Encoding:
        """The question's encoding with its learned cues added (``cues.py``): lexical
        encoder, a question that names a stored subject, cues learned for its words."""
        c = self.config
        if c.cue_weight <= 0 or self.encoder.kind != "lexical" or q.lexical is None:
            return q
        asked = claim(text)
        # Only a question whose name is a stored subject: the name must pick the cells
        # the cue then chooses among (a dialogue's speaker, for one, is no stored name).
        if not len(self.cues) or not any("n:" + n in self._postings for n in asked.names):
            return q
        n = max(1, self.stats.n_docs)
        extra = self.cues.expansion(asked.relation, lambda w: self.stats.df.get("w:" + w, 0) / n,
                                    c.cue_words)
        if not extra:
            return q
        x = self.encoder.encoding({"w:" + w: v for w, v in extra.items()}, self.stats, None)
        assert x.lexical is not None
        xn, qn = float(np.linalg.norm(x.lexical)), float(np.linalg.norm(q.lexical))
        if xn == 0.0 or qn == 0.0:
            return q
        acc = (q.lexical / np.float32(qn) + np.float32(c.cue_weight / xn) * x.lexical)
        acc = acc.astype(np.float32)
        return Encoding(pack_signs(acc), acc, q.dense)

    def _successor_row(self, cell: Cell) -> int | None:
        """Row of the newest live successor of a superseded cell, or None."""
        row, seen = None, set()
        while cell.superseded_by and cell.superseded_by not in seen:
            seen.add(cell.superseded_by)
            nxt = self._row_of.get(cell.superseded_by)
            if nxt is None or self.dead[nxt]:
                break
            row, cell = nxt, self._cell(nxt)
        return row

    def _with_successors(self, rows: np.ndarray) -> np.ndarray:
        """Candidates plus the successors of any superseded candidate (lineage-aware recall)."""
        extra = []
        present = set(rows.tolist())
        for r in rows.tolist():
            nxt = self._successor_row(self._cell(r))
            if nxt is not None and nxt not in present:
                present.add(nxt)
                extra.append(nxt)
        return np.concatenate([rows, np.asarray(extra, dtype=rows.dtype)]) if extra else rows

    def _lineage_scores(
        self, rows: np.ndarray, cells: list[Cell], cos: np.ndarray, score: np.ndarray
    ) -> np.ndarray:
        """A successor scores at least as its superseded predecessor would have, plus a hair.

        A query that matches an old value asks about that subject and relation;
        the current value is the answer, and the old cell stays visible below it.
        """
        pos = {int(r): j for j, r in enumerate(rows)}
        out = score.copy()
        for j, cell in enumerate(cells):
            nxt = self._successor_row(cell) if cell.superseded_by else None
            if nxt is not None and nxt in pos:
                k = pos[nxt]
                out[k] = max(out[k], cos[j] + self.config.strength_weight + 1e-6)
        return out

    def strength(self, ids: Sequence[str]) -> list[float | None]:
        """Current (decayed) strength of the cell holding each item id; None if unknown."""
        now = self._now()
        out: list[float | None] = []
        for i in ids:
            row = self._row_of.get(i)
            if row is None or self.dead[row]:
                out.append(None)
                continue
            cell = self._cell(row)
            out.append(decayed(cell.strength, cell.t_ref, now, self.config.half_life_s))
        return out

    def row_of(self, item_id: str) -> int | None:
        """The live row holding ``item_id`` (merged items share their cell's row)."""
        row = self._row_of.get(item_id)
        return None if row is None or self.dead[row] else row

    def get(self, item_id: str) -> Cell | None:
        row = self._row_of.get(item_id)
        return None if row is None or self.dead[row] else self._cell(row)

    def lineage(self, item_id: str) -> list[str]:
        """Ids from the oldest known predecessor to the newest successor of ``item_id``."""
        cell = self.get(item_id)
        if cell is None:
            return []
        chain = [cell.id]
        back = cell
        while back.supersedes and (prev := self.get(back.supersedes[-1])) is not None:
            chain.insert(0, prev.id)
            back = prev
        fwd = cell
        while fwd.superseded_by and (nxt := self.get(fwd.superseded_by)) is not None:
            chain.append(nxt.id)
            fwd = nxt
        return chain

    def _now(self) -> float:
        return self.now if self.now > -math.inf else 0.0

    def _cell(self, row: int) -> Cell:
        cell = self.cells[row]
        if cell is None:
            raise KeyError(f"row {row} is dead")
        return cell

    def live_rows(self) -> list[int]:
        return [r for r, cell in enumerate(self.cells) if cell is not None]

    def live_count(self) -> int:
        return sum(1 for cell in self.cells if cell is not None)

    # ------------------------------------------------------- removal, count
    def count(self, prefix: str = "") -> int:
        """How many stored items (merged ones included) have an id starting with ``prefix``."""
        return sum(
            1 for cell in self.cells if cell for p in cell.provenance if p.id.startswith(prefix)
        )

    def remove(self, prefix: str) -> int:
        """Remove every stored item whose id starts with ``prefix``; returns how many.

        A cell left with no item dies; a merged cell keeps its other items.
        """
        return self._drop(lambda p: p.id.startswith(prefix))

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        """Forget the items with these ids and those of ``source`` whose id starts with
        ``prefix``, as :meth:`remove` does; a host's cells (a guest lattice) are never
        touched. Returns how many items went."""
        wanted = set(ids)
        return self._drop(lambda p: p.id in wanted or (
            source is not None and p.source == source and p.id.startswith(prefix)),
            spare_host=True)

    def _drop(self, doomed: Callable[[Provenance], bool], *, spare_host: bool = False) -> int:
        removed = 0
        for row, cell in enumerate(self.cells):
            if cell is None or (spare_host and self._is_host(row)):
                continue
            gone = [p for p in cell.provenance if doomed(p)]
            if not gone:
                continue
            removed += len(gone)
            for p in gone:
                self._row_of.pop(p.id, None)
                if self._norm_text.get(p.norm) == row:
                    del self._norm_text[p.norm]
            keep = [p for p in cell.provenance if not doomed(p)]
            if keep:
                cell.provenance = keep
            else:
                self.kill(row)
        self._restore_host()
        return removed

    def kill(self, row: int) -> Cell:
        """Drop a cell from every map; its row stays dead until the index is compacted."""
        cell = self._cell(row)
        self.stats.remove(self.encoder.features(cell.text))
        for p in cell.provenance:
            self._row_of.pop(p.id, None)
            if self._norm_text.get(p.norm) == row:
                del self._norm_text[p.norm]
        if cell.key is not None and self._by_key.get(cell.key) == row:
            prev = next((self._row_of.get(i) for i in reversed(cell.supersedes)), None)
            host = None if self._host is None else self._host.keys.get(cell.key)
            if prev is not None:
                self._by_key[cell.key] = prev
                self._cell(prev).superseded_by = None  # the older value is current again
            elif host is not None and host != row and not self.dead[host]:
                self._by_key[cell.key] = host  # the host's own cell of this key
            else:
                del self._by_key[cell.key]
        for key in self._keys(cell):
            rows = self._postings.get(key, [])
            if row in rows:
                rows.remove(row)
            if not rows:
                self._postings.pop(key, None)
        self.cells[row] = None
        self.dead[row] = True
        return cell

    # ------------------------------------------------------- sleep, storage
    def consolidate(self) -> dict[str, Any]:
        """Sleep: replay, merge near-duplicates, prune weak cells, rebuild the index."""
        from memory_bench_rshl.sleep import sleep

        return sleep(self)

    def rebuild(self) -> int:
        """Compact away dead rows, re-encode every cell and rebuild every map; returns
        how many cells were re-encoded.

        A guest compacts and re-encodes its own rows only: the host's stay put.
        """
        h = self.host_rows
        guest = [r for r in self.live_rows() if r >= h]
        keep = np.array([*range(h), *guest], dtype=np.int64)
        self.index.compact(keep)
        self.cells = [self.cells[int(r)] for r in keep]
        self.region_of_row[: len(keep)] = self.region_of_row[keep]
        self.dead[: len(keep)] = self.dead[keep]
        self.dead[len(keep) :] = False
        self._rebuild_maps()
        return self.reencode()

    def _rebuild_maps(self) -> None:
        """Derive every lookup map from the cells (after compaction or a load)."""
        self._row_of, self._norm_text, self._by_key, self._postings = {}, {}, {}, {}
        for row, cell in enumerate(self.cells):
            if cell is None:
                continue
            self._index_cell(row, cell)
            if cell.key is not None and cell.superseded_by is None:
                self._by_key[cell.key] = row
        for row, cell in enumerate(self.cells):
            if cell is not None and cell.key is not None and cell.key not in self._by_key:
                self._by_key[cell.key] = row

    def guest_rows(self) -> list[int]:
        """Live rows that are not the host's (every live row outside guest mode)."""
        return [r for r in self.live_rows() if r >= self.host_rows]

    def save(self, path: str | Path) -> None:
        from memory_bench_rshl.persist import save

        save(self, Path(path))

    @classmethod
    def load(cls, path: str | Path, encoder: TextEncoder | None = None, *,
             check: Callable[[LatticeConfig], None] | None = None) -> Lattice:
        """Open a saved lattice. A ``dense`` or ``hybrid`` one needs its encoder, which must
        be the one that made its vectors (same model and weights): another is refused.
        ``check(saved_config)`` may refuse it first (see ``persist.load``)."""
        from memory_bench_rshl.persist import load

        return load(Path(path), encoder, into=cls, check=check)


@dataclass(frozen=True)
class _HostState:
    """What a guest must give back unchanged: the host's clock, regions and keys."""

    now: float
    encoded_at_docs: int
    regions: dict[str, int]
    keys: dict[tuple[str, str], int]
