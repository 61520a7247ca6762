"""The backend through the Backend protocol, with the real MiniLM model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from memory_bench_neural_memory.backend import NeuralMemoryBackend
from memory_bench_neural_memory.plugin import OPTIONS

from memory_bench import Backend, BackendContext, Item, NotSupportedError
from memory_bench.contract.options import resolve_options

pytestmark = pytest.mark.slow
T0 = datetime(2026, 1, 1, tzinfo=UTC)
FACTS = [
    "Mara Olsen works for Acme Robotics.",
    "Jonas Berg lives in Bergen.",
    "Lena Park plays the cello.",
    "Omar Haddad owns a grey parrot.",
    "Priya Iyer was born in Lima.",
]
QUESTIONS = [
    "Who does Mara Olsen work for?",
    "Where does Jonas Berg live?",
    "What instrument does Lena Park play?",
    "What pet does Omar Haddad have?",
    "Where was Priya Iyer born?",
]


def make(tmp_path: Path, **raw: str) -> NeuralMemoryBackend:
    opts = resolve_options("neural-memory", OPTIONS, raw)
    return NeuralMemoryBackend(opts, BackendContext(tmp_path, seed=0, run_id="t", cache_dir=None))


def items(texts: list[str], tag: str, start: int = 0) -> list[Item]:
    return [
        Item(f"bench-t-{tag}-{i:04d}", t, f"bench-t-{tag}", T0 + timedelta(minutes=start + i))
        for i, t in enumerate(texts)
    ]


@pytest.mark.parametrize("memory", ["linear", "mlp"])
def test_facts_are_recalled_without_provenance(tmp_path: Path, memory: str) -> None:
    b = make(tmp_path, memory=memory)
    assert isinstance(b, Backend)
    written = b.write(items(FACTS, "e1"))
    assert all(w.accepted for w in written)
    for i, q in enumerate(QUESTIONS):
        hits = b.query(q, 3)
        assert hits[0].id == f"bench-t-e1-{i:04d}"
        assert hits[0].source is None and hits[0].timestamp is None and hits[0].strength is None
    with pytest.raises(NotSupportedError):
        b.strength(["bench-t-e1-0000"])
    b.close()


def test_an_update_outranks_the_old_value(tmp_path: Path) -> None:
    b = make(tmp_path)
    b.write(items(FACTS, "e1"))
    b.write(items(["Mara Olsen works for Globex Shipping."], "e2", start=100))
    ranked = [h.id for h in b.query(QUESTIONS[0], 5)]
    assert ranked.index("bench-t-e2-0000") < ranked.index("bench-t-e1-0000")


def test_random_values_still_name_items_through_m_alone(tmp_path: Path) -> None:
    b = make(tmp_path, values="random")
    b.write(items(FACTS, "e1"))
    top = [b.query(q, 1)[0].id for q in QUESTIONS]
    assert top == [f"bench-t-e1-{i:04d}" for i in range(5)]


def test_remove_and_count_by_prefix(tmp_path: Path) -> None:
    b = make(tmp_path)
    b.write(items(FACTS, "e1") + items(["", "   ", "ok"], "g"))  # no gate: all accepted
    assert b.count("bench-t-") == 8
    assert b.count("bench-t-g") == 3
    assert b.remove("bench-t-e1") == 5
    assert b.count("bench-t-") == 3
    assert all(h.id.startswith("bench-t-g") for h in b.query(QUESTIONS[0], 5))
    assert b.remove("bench-t-") == 3
    assert b.query(QUESTIONS[0], 5) == []
