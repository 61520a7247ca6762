"""The LongMemEval generator on a fixture in the published format, quirks included."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_bench.scenarios.datasets import longmemeval
from memory_bench.scenarios.script import Probe, Reset, Write

FIXTURE = Path(__file__).parent / "fixtures" / "datasets" / "longmemeval_mini.json"


def params(**kw) -> dict:
    base = {"path": str(FIXTURE), "granularity": "turn", "roles": "all", "limit": 0,
            "subset_seed": 0, "folds": 1, "write_batch": 64, "keep_questions": False}
    return {**base, **kw}


def episodes(script) -> list[list]:
    """The script's steps cut at each Reset: one list per question."""
    out: list[list] = [[]]
    for s in script.steps:
        if isinstance(s, Reset):
            out.append([])
        else:
            out[-1].append(s)
    return out


def test_quirks_are_counted_and_none_is_fatal() -> None:
    data = longmemeval.load(params())
    assert data.quirks["counts"] == {
        "duplicate_question_ids": 1, "empty_turns": 2, "evidence_ids_unknown": 1,
        "sessions_out_of_date_order": 2, "unparseable_dates": 1,
    }
    assert [q.qid for q in data.questions] == [
        "q-user-1", "q-multi-2", "q-update-3", "q-assist-4", "q-user-5_abs", "q-temporal-6"]


def test_one_store_per_question_in_date_order_asked_after_its_haystack() -> None:
    script = longmemeval.generate(params(), 0)
    eps = episodes(script)
    assert len(eps) == 6
    first = eps[0]
    assert isinstance(first[-1], Probe) and all(isinstance(s, Write) for s in first[:-1])
    items = [i for s in first[:-1] for i in s.items]
    # sessions sorted by date: the 21 May one before the 22 May evidence session
    assert [i.text.split(": ", 1)[1][:12] for i in items] == [
        "How do I des", "Fill it half", "Give me thre", "Crumb & Co, ", "I just broug",
        "Congratulati"]
    assert [i.source for i in items] == ["session-1"] * 2 + ["session-2"] * 2 + ["session-3"] * 2
    ask = first[-1]
    assert ask.tag == "ask" and ask.category == "single-session-user"
    assert ask.expected == (items[4].id,)  # the has_answer turn only
    # the session ids of the file ("answer_...") never reach a backend
    assert not any("answer" in i.source or "ultrachat" in i.source
                   for i in script.items())


def test_session_granularity_and_evidence_sessions() -> None:
    script = longmemeval.generate(params(granularity="session"), 0)
    multi = episodes(script)[1]
    items = [i for s in multi[:-1] for i in s.items]
    assert len(items) == 3 and items[0].text.startswith("user: I have played the violin")
    assert "\nassistant: That is a long time!" in items[0].text
    assert multi[-1].expected == (items[0].id, items[2].id)  # answer_b9 is not in the haystack


def test_abstention_is_asked_apart_and_roles_user_drops_assistant_evidence() -> None:
    probes = [s for s in longmemeval.generate(params(), 0).steps if isinstance(s, Probe)]
    assert [p.tag for p in probes if p.key == "q-user-5_abs"] == ["abstain"]
    assert sum(p.tag == "ask" for p in probes) == 5
    user_only = longmemeval.generate(params(roles="user"), 0)
    asked = {s.key for s in user_only.steps if isinstance(s, Probe)}
    assert "q-assist-4" not in asked  # its evidence is the assistant's turn
    assert user_only.stats["fold_quirks"]["counts"] == {"questions_without_evidence": 1}
    assert all(i.text.startswith("user: ") for i in user_only.items())


def test_a_seeded_subset_and_folds_stratified_by_type() -> None:
    a = longmemeval.subset(longmemeval.load(params()), params(limit=3))
    b = longmemeval.subset(longmemeval.load(params()), params(limit=3))
    c = longmemeval.subset(longmemeval.load(params()), params(limit=3, subset_seed=7))
    assert [q.qid for q in a] == [q.qid for q in b] and len(a) == 3
    assert [q.qid for q in a] != [q.qid for q in c]
    folds = [longmemeval.generate(params(folds=2), f).stats for f in range(2)]
    keys = [set(s["question_types"]) for s in folds]
    assert sum(s["questions"] + s["abstain_questions"] for s in folds) == 6
    # single-session-user has two questions: one in each fold
    assert all("single-session-user" in k for k in keys)
    assert "more than the 3 questions" in longmemeval.check(params(limit=3, folds=4))


def test_a_locomo_file_is_refused_with_a_hint(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('[{"sample_id": "c", "conversation": {}, "qa": []}]')
    problem = longmemeval.check(params(path=str(bad)))
    assert problem is not None and "use --scenario locomo" in problem


@pytest.mark.parametrize("granularity", ["turn", "session"])
def test_overlapping_haystacks_repeat_texts_so_the_cache_encodes_them_once(
        granularity: str) -> None:
    items = longmemeval.generate(params(granularity=granularity), 0).items()
    texts = [i.text for i in items]
    assert len(set(texts)) < len(texts)  # the shared filler sessions
