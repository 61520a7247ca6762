"""Cue association (cues.py): question words learn the words of the cells they retrieve."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory_bench_rshl import Lattice, LatticeConfig, Record
from memory_bench_rshl.cues import CueMemory

T0 = datetime(2026, 1, 1, tzinfo=UTC)
PEOPLE = ("Ann Berg", "Ivo Marsh", "Lena Quist", "Omar Tell", "Rita Vance", "Sven Holt")


def _lattice(cue_weight: float) -> Lattice:
    lat = Lattice(LatticeConfig(dim=1024, cue_weight=cue_weight))
    records = []
    for i, p in enumerate(PEOPLE):
        records.append(Record(f"e-{i}", f"{p} graduated from college.", "s", T0))
        records.append(Record(f"m-{i}", f"{p} plays oboe.", "s", T0 + timedelta(minutes=1)))
    lat.write(records)
    return lat


def _teach(lat: Lattice) -> None:
    # Questions that share a word with the fact: their top hit is the education fact.
    for i, p in enumerate(PEOPLE[1:], start=1):
        assert lat.query(f"Which university has {p} graduated from?", 2)[0].id == f"e-{i}"


def test_a_learned_cue_finds_the_fact_a_question_shares_no_word_with() -> None:
    question = "Which university trained Ann Berg?"  # shares only the name

    def lead(lat: Lattice) -> float:
        hits = {h.id: h.score for h in lat.query(question, 2, reinforce=False)}
        return hits["e-0"] - hits["m-0"]

    plain = _lattice(0.0)
    _teach(plain)
    assert abs(lead(plain)) < 0.02  # a coin toss on the name: inside the strength band
    cued = _lattice(0.6)
    _teach(cued)
    assert cued.cues.n["university"] == len(PEOPLE) - 1
    assert lead(cued) > 0.08


def test_a_question_without_a_name_is_not_expanded() -> None:
    lat = _lattice(0.6)
    _teach(lat)
    q = lat.encoder.query_encoding("which university trained the new teacher", lat.stats)
    assert q is not None
    assert lat._cued("which university trained the new teacher", q) is q


def test_cues_survive_a_save(tmp_path) -> None:
    lat = _lattice(0.6)
    _teach(lat)
    lat.save(tmp_path / "lat")
    again = Lattice.load(tmp_path / "lat")
    assert again.cues.to_dict() == lat.cues.to_dict()
    q = "Which university trained Ann Berg?"
    a, b = lat.query(q, 3, reinforce=False), again.query(q, 3, reinforce=False)
    assert [(h.id, h.score) for h in a] == [(h.id, h.score) for h in b]


def test_expansion_subtracts_the_baseline_and_keeps_the_strongest() -> None:
    cues = CueMemory()
    for _ in range(3):
        cues.learn(["univers"], ["graduat", "common"])
    cues.learn(["univers"], ["oboe", "common"])
    share = {"graduat": 0.1, "common": 0.9, "oboe": 0.1}.__getitem__
    out = cues.expansion(["univers"], share, words=1)
    assert list(out) == ["graduat"]
    assert abs(out["graduat"] - (0.75 - 0.1)) < 1e-12
    assert cues.expansion(["unseen"], share, words=8) == {}
