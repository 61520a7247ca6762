"""The LoCoMo generator on a fixture in the published format, quirks included."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import dataset_fakes
import pytest

from memory_bench.harness.pair import PairSpec, run_pair
from memory_bench.plugins import load_plugins
from memory_bench.scenarios.datasets import locomo
from memory_bench.scenarios.script import Probe, Reset, Write

FIXTURE = Path(__file__).parent / "fixtures" / "datasets" / "locomo_mini.json"


def params(path: Path = FIXTURE, **kw) -> dict:
    return {"path": str(path), "folds": 3, "write_batch": 32, "keep_questions": False, **kw}


def test_quirks_are_counted_and_none_is_fatal() -> None:
    data = locomo.load(params())
    assert data.quirks["counts"] == {
        "duplicate_questions": 1, "empty_turns": 2, "evidence_ids_repaired": 1,
        "evidence_ids_unknown": 1, "evidence_strings_holding_several_ids": 1,
        "image_turns": 1, "questions_unknown_category": 1, "questions_without_evidence": 1,
        "sessions_out_of_date_order": 2, "unparseable_dates": 1,
    }
    assert data.quirks["examples"]["evidence_ids_unknown"] == ["mini-1 qa[3]: D9:9"]
    assert (data.turns, data.questions, data.abstain) == (16, 10, 2)


def test_turns_are_items_a_real_memory_would_see() -> None:
    script = locomo.generate(params(), 0)
    items = script.items()
    texts = [i.text for i in items]
    assert texts[0] == "Ada: I adopted a grey cat last week and named her Pebble."
    assert ("Ben: Look at what I bought on Saturday. [shares an image: a photo of a red "
            "bicycle leaning on a wooden fence]") in texts
    assert not any("red road bike" in t for t in texts)  # the image search query: never
    assert len(items) == 9  # 11 turns, 2 empty or whitespace
    # sessions in date order; the undated session 4 after every session numbered before it
    sessions = list(dict.fromkeys(i.source for i in items))
    assert sessions == ["mini-1/session_1", "mini-1/session_3", "mini-1/session_2",
                        "mini-1/session_4"]
    stamps = [i.timestamp for i in items]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    assert stamps[0].isoformat() == "2024-03-02T15:00:00+00:00"
    # nothing a backend sees names a turn of the answer key
    assert not any("D1:" in x or "D2:" in x for i in items for x in (i.id, i.source, i.text))


def _ask_index(steps, question: str, tag: str) -> int:
    return next(n for n, s in enumerate(steps)
                if isinstance(s, Probe) and s.tag == tag and s.question.startswith(question))


def _written_before(steps, n: int) -> set[str]:
    return {i.source for s in steps[:n] if isinstance(s, Write) for i in s.items}


def test_each_question_is_asked_after_its_last_evidence_session_and_at_the_end() -> None:
    steps = locomo.generate(params(), 0).steps
    probes = [s for s in steps if isinstance(s, Probe)]
    # "What instrument...": evidence in sessions 1 and 2; session 2 is written third
    n = _ask_index(steps, "What instrument", "early")
    assert _written_before(steps, n) == {"mini-1/session_1", "mini-1/session_3",
                                         "mini-1/session_2"}
    n = _ask_index(steps, "When is Ada flying", "early")
    assert _written_before(steps, n) == {"mini-1/session_1", "mini-1/session_3"}
    late = [p for p in probes if p.tag == "ask"]
    first_late = steps.index(late[0])
    assert all(not isinstance(s, Write) for s in steps[first_late:])
    early = {p.key: p for p in probes if p.tag == "early"}
    assert {p.key for p in late} == set(early)  # every question asked twice, one key
    assert all(early[p.key].expected == p.expected for p in late)
    # the adversarial question: once, at the end, apart
    adversarial = [p for p in probes if p.category == "adversarial"]
    assert [p.tag for p in adversarial] == ["abstain"]
    # duplicate asked once; no evidence or an unknown category: not asked
    assert sum(p.question == "What is the name of Ada's cat?" for p in late) == 1
    assert not any("breakfast" in p.question or "category known" in p.question for p in probes)
    lisbon = next(p for p in late if p.question.startswith("When is Ada flying"))
    assert len(lisbon.expected) == 1  # D9:9 names no turn and is dropped
    several = next(p for p in late if p.question.startswith("What instrument"))
    assert len(several.expected) == 2  # "D1:2; D2:3" is two turns


def test_folds_partition_the_conversations_one_store_each() -> None:
    assert [locomo.generate(params(), f).stats["conversations"] for f in range(3)] == [
        ["mini-1"], ["mini-2"], ["mini-3"]]
    two = locomo.generate(params(folds=2), 0)
    assert two.stats["conversations"] == ["mini-1", "mini-3"]
    assert sum(isinstance(s, Reset) for s in two.steps) == 1
    assert not isinstance(two.steps[-1], Reset)
    with pytest.raises(ValueError, match="not a fold"):
        locomo.generate(params(), 3)
    assert "folds 4 is more than the 3 conversations" in locomo.check(params(folds=4))


def test_the_data_hash_depends_on_the_file_bytes(tmp_path: Path) -> None:
    a = locomo.generate(params(), 1)
    assert locomo.generate(params(), 1).data_hash == a.data_hash
    doc = json.loads(FIXTURE.read_text())
    doc[1]["qa"][3]["adversarial_answer"] = "a different answer, which no step uses"
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(doc))
    b = locomo.generate(params(changed), 1)
    assert b.steps == a.steps
    assert b.data_hash != a.data_hash
    assert b.stats["file"]["sha256"] != a.stats["file"]["sha256"]
    assert b.stats["file"]["name"] == "changed.json"  # the name, never the path


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "not JSON"),
    ('{"sample_id": "x"}', "expected a non-empty JSON array of conversations, got dict"),
    ("[]", "expected a non-empty JSON array"),
    ('[{"question_id": "q", "haystack_sessions": []}]', "use --scenario longmemeval"),
])
def test_a_file_that_is_not_locomo_is_one_line(tmp_path: Path, content: str,
                                               message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    problem = locomo.check(params(bad))
    assert problem is not None and message in problem and "\n" not in problem


def test_missing_path_says_where_the_file_is_published(tmp_path: Path) -> None:
    assert "github.com/snap-research/LoCoMo" in locomo.check({"path": None, "folds": 1})
    assert "does not exist" in locomo.check(params(tmp_path / "nope.json"))
    assert "not a file" in locomo.check(params(tmp_path))


def test_the_recency_rule_scores_what_the_data_statistics_say(tmp_path: Path) -> None:
    loaded = load_plugins([("dataset_fakes", dataset_fakes)], autoload=False)
    src = tmp_path / "locomo_mini.json"
    shutil.copy(FIXTURE, src)
    for fold in range(3):
        spec = PairSpec(run_id="r1", index=0, label="fake-recency", backend="fake-recency",
                        scenario={"name": "locomo", "generator": "locomo",
                                  "params": params(src)}, seed=fold)
        run = run_pair(spec, plugins=loaded)
        assert run.status == "ok", run.error
        base = run.data_stats["recency_baseline"]
        assert run.metrics["recall_any@5_early"] == pytest.approx(base["early@5"], abs=5e-5)
        assert run.metrics["recall_any@5"] == pytest.approx(base["ask@5"], abs=5e-5)
        assert run.metrics["recall_any@10"] == pytest.approx(base["ask@10"], abs=5e-5)
        assert run.cleanup is not None and run.cleanup.ok
        # LoCoMo's questions are not republished in the records: a digest of each
        asked = {p.question for p in run.records.probes}
        assert all(q.startswith("sha256:") and len(q) == 23 for q in asked)
    kept = run_pair(PairSpec(run_id="r1", index=0, label="fake-recency", backend="fake-recency",
                             scenario={"name": "locomo", "generator": "locomo",
                                       "params": params(src, keep_questions=True)}, seed=2),
                    plugins=loaded)
    assert {p.question for p in kept.records.probes} == {
        "What did Eve plant in the allotment?", "When does Finn's daughter start school?"}
    assert kept.data_hash == run_pair(spec, plugins=loaded).data_hash  # the same data


def test_caveats_state_the_data_from_its_statistics() -> None:
    from memory_bench.scenarios.datasets import jsonl, longmemeval

    cases = [
        (locomo, params(), 3, ["3 conversations", "16 turns written", "one of 3 disjoint folds",
                               "1 evidence ids unknown", "recall_any@5", "Word overlap"]),
        (longmemeval, {"path": str(FIXTURE.with_name("longmemeval_mini.json")),
                       "granularity": "turn", "roles": "all", "limit": 0, "subset_seed": 0,
                       "folds": 2, "write_batch": 64, "keep_questions": False}, 2,
         ["5 questions asked over 2 of 2 folds", "every turn", "roles=user"]),
        (jsonl, {"path": str(FIXTURE.with_name("example.jsonl")), "folds": 2,
                 "write_batch": 32, "keep_questions": True}, 2,
         ["10 items and 9 probes in 2 episode(s)"]),
    ]
    for module, p, folds, fragments in cases:
        stats = {str(f): module.generate(p, f).stats for f in range(folds)}
        text = " ".join(module.caveats(p, stats))
        assert "{" not in text and "}" not in text, text
        for fragment in fragments:
            assert fragment in text, (module.__name__, fragment, text)
