"""What every generator shares: the logical clock, opaque ids and plausible sources.

A backend sees an item's text, a source and a timestamp. Nothing of these may
tell it which phase an item belongs to (fact, noise, update, gate): ids are the
run's prefix and a random token, sources are drawn from one pool of
document-like names for every phase, and tags are written only when the
scenario asks for structure.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta

from memory_bench.contract.items import Item
from memory_bench.scenarios.script import UNBOUND_PREFIX

__all__ = ["EPOCH", "FINAL_MARKS", "SOURCE_FORMS", "WHITESPACE", "ItemStamper", "bare", "opaque_id",
           "other_index", "pick_reinforced", "sentence", "surface"]

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
WHITESPACE = ("", " ", "   ", "\t", "\n", " \t\n", "\n\n", "\t \t", "  \n  ", "\r\n")
# Where a note may come from, and how many numbers each kind of source has.
SOURCE_FORMS = (("doc-{:04d}", 10_000), ("session-{}", 1_000), ("email-{:05d}", 100_000),
                ("meeting-{}", 800), ("note-{:03d}", 1_000), ("chat-{}", 5_000))
_TOKEN_BITS = 48  # 12 hex digits: collisions are checked, never expected
_S_POSSESSIVE = re.compile(r"(?<=s)'s\b")
# One surface distribution for every item a generator writes (facts, noise, updates, clean
# items and junk alike), so that no final mark or initial case tells a kind apart: a final
# mark drawn per item, and a capital first letter for every one (a small one, drawn at
# random, would unname a subject that opens its sentence: "mara Olsen").
FINAL_MARKS = ((".", 0.55), ("", 0.3), ("!", 0.1), ("...", 0.05))
_FINAL = re.compile(r"[\s.!?\u2026]+$")


def pick_reinforced(rng: random.Random, n_facts: int, updated: Collection[int],
                    reinforce: int, restate: int) -> tuple[list[int], list[int]]:
    """Facts to reinforce and facts to state again (corroborations), drawn from the
    facts that are not updated, disjoint, each sorted."""
    free = [i for i in range(n_facts) if i not in updated]
    chosen = rng.sample(free, reinforce + restate)
    return sorted(chosen[:reinforce]), sorted(chosen[reinforce:])


def sentence(text: str) -> str:
    """Capitalise the first letter and write "Fathom Foods'" for "Fathom Foods's"."""
    text = _S_POSSESSIVE.sub("'", text)
    return text[:1].upper() + text[1:]


def other_index(rng: random.Random, n: int, avoid: Collection[int]) -> int:
    """An index below ``n`` not in ``avoid`` (another phrasing than those used), or, when
    every one is used, any other than the first avoided."""
    free = [i for i in range(n) if i not in avoid]
    if not free:
        first = next(iter(avoid), -1)
        free = [i for i in range(n) if i != first] or [0]
    return rng.choice(free)


def bare(text: str) -> str:
    """``text`` without its final marks and with a small first letter: what ``surface``
    leaves of a text's form, so that two surfaces of one text compare equal."""
    text = _FINAL.sub("", text.strip())
    return text[:1].lower() + text[1:]


def surface(rng: random.Random, text: str) -> str:
    """``text`` in a surface form drawn from the one distribution: a final mark, and a
    capital first letter. A text with nothing in it stays as it is (empty junk is empty)."""
    if not text.strip():
        return text
    core = bare(text)
    marks, weights = zip(*FINAL_MARKS, strict=True)
    return core[:1].upper() + core[1:] + rng.choices(marks, weights)[0]


def opaque_id(rng: random.Random, taken: set[str], prefix: str = UNBOUND_PREFIX) -> str:
    """``prefix`` and a seeded random 12-hex token not in ``taken`` (which gains it): an id
    that says nothing of phase or position."""
    while True:
        candidate = f"{prefix}{rng.getrandbits(_TOKEN_BITS):012x}"
        if candidate not in taken:
            taken.add(candidate)
            return candidate


class ItemStamper:
    """Makes items in write order, for one seed of one generator.

    Ids are ``UNBOUND_PREFIX`` and a seeded random token (no phase, no index);
    each item's source is drawn from a pool of ``sources`` names shared by every
    phase, unless the caller gives one (a re-sent duplicate keeps its original's
    source; an update avoids the old fact's); timestamps come from the logical
    clock, one minute per item, never the wall clock; tags are kept only when
    ``structured``; every text is given a surface form (``surface``) unless the
    caller says it is an exact copy. The stamper's randomness is its own, so
    stamping never changes what a generator draws.
    """

    def __init__(self, region: str, key: str, *, structured: bool = False,
                 sources: int = 400) -> None:
        self.region = region
        self.structured = structured
        self._rng = random.Random(f"memory-bench/stamp/{key}")
        self._form = random.Random(f"memory-bench/form/{key}")
        self._t = EPOCH
        self._ids: set[str] = set()
        pool: dict[str, None] = {}
        while len(pool) < sources:
            form, n = self._rng.choice(SOURCE_FORMS)
            pool.setdefault(form.format(self._rng.randrange(n)), None)
        self.sources: Sequence[str] = tuple(pool)

    def source(self, avoid: Collection[str] = ()) -> str:
        """A source from the pool, other than those in ``avoid``."""
        while True:
            s = self._rng.choice(self.sources)
            if s not in avoid:
                return s

    def _id(self) -> str:
        return opaque_id(self._rng, self._ids)

    def __call__(self, text: str, tags: tuple[str, ...] = (), *, source: str | None = None,
                 avoid: Collection[str] = (), form: bool = True) -> Item:
        self._t += timedelta(minutes=1)
        return Item(
            id=self._id(),
            text=surface(self._form, text) if form else text,
            source=source if source is not None else self.source(avoid),
            timestamp=self._t,
            region=self.region,
            tags=tags if self.structured else (),
        )
