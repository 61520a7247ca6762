"""Fixtures for the RSHL lattice tests: records on a logical clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from memory_bench_rshl import Lattice, LatticeConfig, Record

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def rec() -> Callable[..., Record]:
    """rec(id, text, minutes=..., source=..., subject=..., relation=...) -> Record."""

    def make(
        id_: str,
        text: str,
        minutes: float = 0,
        source: str | None = None,
        subject: str | None = None,
        relation: str | None = None,
    ) -> Record:
        tags: tuple[str, ...] = ()
        if subject and relation:
            tags = (f"subject:{subject}", f"relation:{relation}")
        return Record(
            id=id_,
            text=text,
            source=source or id_.rsplit("-", 1)[0],
            timestamp=T0 + timedelta(minutes=minutes),
            region="test",
            tags=tags,
        )

    return make


FACTS = [
    ("Mara Olsen works for Acme Foods.", "Who does Mara Olsen work for?"),
    ("Ivo Petrov lives in the town of Lisbon.", "Where does Ivo Petrov live?"),
    ("The dog of Lena Berg is called Biscuit.", "What is Lena Berg's dog called?"),
    ("Tomas Haddad was born in Krakow.", "Where was Tomas Haddad born?"),
    ("Brightline Optics makes the Ion 366 camera.", "What does Brightline Optics make?"),
    ("The capital of Freedonia is Marlow.", "What is Freedonia's capital?"),
    ("Sofia Duarte plays the cello in an orchestra.", "What instrument does Sofia Duarte play?"),
    ("Kasper Novak supports the Falcons football club.", "Which team does Kasper Novak support?"),
]


@pytest.fixture
def facts() -> list[tuple[str, str]]:
    return list(FACTS)


@pytest.fixture
def lattice(rec) -> Lattice:
    """A lattice holding FACTS as items t-e1-0000.. (one minute apart)."""
    lat = Lattice(LatticeConfig(dim=1024, seed=7))
    lat.write([rec(f"t-e1-{i:04d}", text, minutes=i) for i, (text, _) in enumerate(FACTS)])
    return lat
