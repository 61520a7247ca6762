"""The BEAM generator on a fixture in BEAM's format (two tiny chats, quirks included),
and its update, conflict, answer and abstention metrics through the real bm25."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dataset_fakes
import pytest

from memory_bench.harness.pair import PairSpec, run_pair
from memory_bench.plugins import load_plugins
from memory_bench.scenarios.datasets import beam
from memory_bench.scenarios.script import Probe, Reset

FIXTURE = Path(__file__).parent / "fixtures" / "datasets" / "beam_mini"


def params(path: Path = FIXTURE, **kw) -> dict:
    return {"path": str(path), "tier": "100K", "folds": 0, "write_batch": 32,
            "keep_questions": False, **kw}


def test_references_resolve_by_id_or_text_and_the_rest_is_counted() -> None:
    data = beam.load(params())
    assert data.quirks["counts"] == {
        "index_markers_removed": 10, "questions_unresolved": 1, "reference_ids_unknown": 2,
        "references_by_id": 15, "references_by_text": 2,
        "updates_naming_the_same_turn_both_sides": 1,
    }
    assert data.quirks["examples"]["reference_ids_unknown"] == ["chat 2: 99", "chat 2: 404"]
    by = {(c.name, q.type, q.index): q for c in data.chats for q in c.questions}
    update = by[("1", "knowledge_update", 0)]
    assert (update.expected, update.outrank, update.answers) == ((8,), (4,), ("250ms",))
    same = by[("1", "knowledge_update", 1)]  # the same turn on both sides: recall only
    assert (same.expected, same.outrank) == ((10,), ())
    by_text = by[("2", "knowledge_update", 0)]  # no source ids: its references' text
    assert (by_text.expected, by_text.outrank) == ((4,), (0,))
    assert by_text.answers == ("200MB", "15,000 keys")
    assert by[("1", "contradiction_resolution", 0)].expected == (2, 6)
    assert by[("2", "information_extraction", 0)].expected == (6,)  # id 99 dropped
    assert ("2", "information_extraction", 1) not in by  # id 404 only: not asked
    assert by[("1", "event_ordering", 0)].answers == ()  # no factual answer: cost only
    assert by[("1", "abstention", 0)].expected == ()


def test_messages_are_items_a_real_memory_would_see() -> None:
    script = beam.generate(params(), 0)
    items = script.items()
    assert len(items) == 12 and items[0].text.startswith("user: I'm starting a budget")
    assert items[1].text.startswith("assistant: Great")
    assert not any("->->" in i.text for i in items)  # the generator's index marker
    stamps = [i.timestamp for i in items]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    assert stamps[0].isoformat() == "2024-03-15T00:00:00+00:00"
    assert stamps[6].isoformat() == "2024-04-05T00:00:00+00:00"  # the second time anchor
    assert {i.source for i in items} == {"beam-100K/1/batch-1", "beam-100K/1/batch-2"}
    probes = [s for s in script.steps if isinstance(s, Probe)]
    abstain = [p for p in probes if p.tag == "abstain"]
    assert len(abstain) == 1 and abstain[0].needs is not None  # calibrated backends only
    assert all(p.question for p in probes) and script.redact_questions


def test_each_chat_is_a_fold_with_its_own_store() -> None:
    assert beam.seed_count(params()) == 2
    assert [beam.generate(params(), f).stats["chats"] for f in range(2)] == [["1"], ["2"]]
    both = beam.generate(params(folds=1), 0)
    assert sum(isinstance(s, Reset) for s in both.steps) == 1
    assert both.stats["file_totals"]["questions"]["updates scored"] == 2
    assert "folds 3 is more than the 2 chats" in beam.check(params(folds=3))


def test_bad_checkouts_are_one_line(tmp_path: Path) -> None:
    assert "give --set path=DIR" in beam.check({"path": None, "tier": "100K", "folds": 0})
    assert "is not a directory" in beam.check(params(tmp_path / "nope"))
    assert "holds no BEAM tier 500K" in beam.check(params(tier="500K"))
    broken = tmp_path / "chats" / "100K" / "1"
    shutil.copytree(FIXTURE / "chats" / "100K" / "1", broken)
    (broken / "chat.json").write_text("{not json")
    problem = beam.check(params(tmp_path))
    assert problem is not None and "not JSON" in problem and "\n" not in problem


def _run(loaded, backend: str, p: dict, seed: int):
    spec = PairSpec(run_id="r1", index=0, label=backend, backend=backend,
                    scenario={"name": "beam", "generator": "beam", "params": p}, seed=seed)
    run = run_pair(spec, plugins=loaded)
    assert run.status == "ok", run.error
    return run


@pytest.mark.slow
def test_bm25_scores_updates_conflicts_and_answers_from_its_records() -> None:
    loaded = load_plugins()
    run = _run(loaded, "bm25", params(), 0)
    probes = {p.category: p for p in run.records.probes if p.tag == "ask"}
    assert not any(p.tag == "abstain" for p in run.records.probes)  # not calibrated
    assert run.metrics["abstainRate"] is None
    update = next(p for p in run.records.probes if p.outrank)
    new, old = update.best_rank(update.expected), update.best_rank(update.outrank)
    assert run.metrics["updateWinRate"] == float(new is not None and (old is None or new < old))
    assert run.metrics["staleRate"] == float(old is not None)
    conflict = probes["contradiction_resolution"]
    assert run.metrics["conflict@5"] == float(set(conflict.expected) <= set(conflict.returned[:5]))
    # the answer proxies: "March 29" is in the first message, which bm25 finds
    extraction = probes["information_extraction"]
    assert extraction.answer_phrases == 1 and extraction.answer_ranks[0] >= 1
    assert run.metrics["answer@5/information_extraction"] == 1.0
    asked = [p for p in run.records.probes if p.tag == "ask"]
    by_hand = sum(sum(p.hit_tokens[:5]) for p in asked) / len(asked)
    assert run.metrics["context_tokens@5"] == pytest.approx(by_hand) and by_hand > 0
    assert run.metrics["context_tokens@10"] >= run.metrics["context_tokens@5"]
    ordering = probes["event_ordering"]
    assert ordering.hit_tokens and ordering.answer_ranks == []  # cost, no answer
    # the records read back with the answer fields, and without them where there are none
    dumped = run.records.to_dict()["probes"]
    assert any("answer_ranks" in p for p in dumped)
    assert json.loads(json.dumps(dumped)) == dumped


def test_abstention_is_asked_of_a_calibrated_backend_only() -> None:
    loaded = load_plugins([("dataset_fakes", dataset_fakes)], autoload=False)
    calibrated = _run(loaded, "fake-calibrated", params(), 0)
    assert [p.tag for p in calibrated.records.probes].count("abstain") == 1
    assert calibrated.metrics["abstainRate"] == 1.0  # every hit scores 0.2 < 0.5
    plain = _run(loaded, "fake-recency", params(), 0)
    assert "abstain" not in {p.tag for p in plain.records.probes}
    assert plain.metrics["abstainRate"] is None


def test_caveats_state_the_data_and_the_skipped_abstention() -> None:
    stats = {str(f): beam.generate(params(), f).stats for f in range(2)}
    text = " ".join(beam.caveats(params(), stats))
    for fragment in ("BEAM tier 100K", "2 chats", "20 messages", "2 of them knowledge "
                     "updates", "Abstention (1 questions) is scored only", "1 updates naming "
                     "the same turn both sides", "Word overlap",
                     "across four reasonable BM25 tokenizations", "runs from 10/37 to 16/37"):
        assert fragment in text, (fragment, text)
    assert "{" not in text
