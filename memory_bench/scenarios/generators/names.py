"""Pools of invented names, drawn without replacement so nothing collides."""

from __future__ import annotations

import random

from memory_bench.scenarios.generators import vocab

__all__ = ["POOL_SIZES", "NamePools", "PoolExhausted"]


class PoolExhausted(RuntimeError):
    """A scenario asked for more distinct names of one kind than exist."""


def _person(rng: random.Random) -> str:
    return f"{rng.choice(vocab.FIRST_NAMES)} {rng.choice(vocab.SURNAMES)}"


def _company(rng: random.Random) -> str:
    return f"{rng.choice(vocab.COMPANY_STEMS)} {rng.choice(vocab.COMPANY_KINDS)}"


def _city(rng: random.Random) -> str:
    head, tail = rng.choice(vocab.PLACE_HEADS), rng.choice(vocab.PLACE_TAILS)
    return rng.choice(vocab.PLACE_PREFIXES) + head + tail


def _river(rng: random.Random) -> str:
    return rng.choice(vocab.PLACE_HEADS) + rng.choice(vocab.RIVER_TAILS)


def _book(rng: random.Random) -> str:
    return f"The {rng.choice(vocab.ADJECTIVES)} {rng.choice(vocab.NOUNS)}"


def _pet(rng: random.Random) -> str:
    return rng.choice(vocab.PET_HEADS) + rng.choice(vocab.PET_TAILS)


def _product(rng: random.Random) -> str:
    return f"{rng.choice(vocab.PRODUCT_STEMS)} {rng.randint(100, 999)}"


def _extension(rng: random.Random) -> str:
    return str(rng.randint(1000, 9999))


_DRAW = {
    "person": _person,
    "company": _company,
    "city": _city,
    "river": _river,
    "book": _book,
    "pet": _pet,
    "product": _product,
    "extension": _extension,
}

POOL_SIZES = {
    "person": len(vocab.FIRST_NAMES) * len(vocab.SURNAMES),
    "company": len(vocab.COMPANY_STEMS) * len(vocab.COMPANY_KINDS),
    "city": len(vocab.PLACE_PREFIXES) * len(vocab.PLACE_HEADS) * len(vocab.PLACE_TAILS),
    "river": len(vocab.PLACE_HEADS) * len(vocab.RIVER_TAILS),
    "book": len(vocab.ADJECTIVES) * len(vocab.NOUNS),
    "pet": len(vocab.PET_HEADS) * len(vocab.PET_TAILS),
    "product": len(vocab.PRODUCT_STEMS) * 900,
    "extension": 9000,
}


class NamePools:
    """Draws distinct names of each kind; a name is never used twice in one seed."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._used: set[str] = set()
        self._counts: dict[str, int] = dict.fromkeys(_DRAW, 0)

    def claim(self, kind: str, name: str) -> bool:
        """Take ``name`` (made by the caller) as a ``kind`` name; False if it is taken."""
        if name in self._used or self._counts[kind] >= POOL_SIZES[kind] // 2:
            return False
        self._used.add(name)
        self._counts[kind] += 1
        return True

    def draw(self, kind: str) -> str:
        # Rejection sampling stays cheap while a pool is at most half used.
        if self._counts[kind] >= POOL_SIZES[kind] // 2:
            raise PoolExhausted(
                f"more than {POOL_SIZES[kind] // 2} distinct {kind} names requested"
            )
        while True:
            name = _DRAW[kind](self._rng)
            if name not in self._used:
                self._used.add(name)
                self._counts[kind] += 1
                return name
