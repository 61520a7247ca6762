"""LoCoMo with the audit's corrections (a fixture in dial481/locomo-audit's format), and
LoCoMo's answer containment through the real bm25."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_bench.harness.pair import PairSpec, run_pair
from memory_bench.plugins import load_plugins
from memory_bench.scenarios.datasets import locomo
from memory_bench.scenarios.datasets.locomo_audit import load_audit
from memory_bench.scenarios.script import Probe

FIXTURES = Path(__file__).parent / "fixtures" / "datasets"
LOCOMO, AUDIT = FIXTURES / "locomo_mini.json", FIXTURES / "locomo_audit_mini.json"


def params(**kw) -> dict:
    return {"path": str(LOCOMO), "audit": "", "folds": 3, "write_batch": 32,
            "keep_questions": True, **kw}


def _asks(p: dict, fold: int) -> dict[str, Probe]:
    steps = locomo.generate(p, fold).steps
    return {s.question: s for s in steps if isinstance(s, Probe) and s.tag == "ask"}


def test_the_audit_corrects_evidence_and_answers_where_it_names_the_question() -> None:
    own, fixed = _asks(params(), 0), _asks(params(audit=str(AUDIT)), 0)
    lisbon = "When is Ada flying to Lisbon?"
    assert len(own[lisbon].expected) == 1 and len(fixed[lisbon].expected) == 2  # + D4:1
    own2, fixed2 = _asks(params(), 1), _asks(params(audit=str(AUDIT)), 1)
    sister = "Where did Cleo's sister move?"
    assert own2[sister].answers == ("Oslo",)
    assert fixed2[sister].answers == ("Oslo, for a job at a shipping firm",)
    kitchen = "What colour did Cleo paint the kitchen?"  # the entry names another question
    assert fixed2[kitchen] == own2[kitchen]
    key = locomo.generate(params(audit=str(AUDIT)), 1).stats["answer_key"]
    assert key["used"] == "locomo-audit"
    assert (key["entries_applied"], key["evidence_corrected"], key["answers_corrected"],
            key["entries_not_matching_the_question"], key["entries_naming_no_conversation"],
            key["audit"]["entries_unreadable"]) == (2, 1, 1, 1, 1, 1)
    assert key["audit"]["files"][0]["name"] == "locomo_audit_mini.json"  # a name, no path
    assert locomo.generate(params(), 1).stats["answer_key"] == {"used": "locomo"}


def test_the_report_says_which_key_was_used() -> None:
    for p, fragment in ((params(), "Answer key: LoCoMo's own"),
                        (params(audit=str(AUDIT)), "2 of its 5 entries applied, 1 with "
                                                   "corrected evidence and 1 with a corrected")):
        stats = {str(f): locomo.generate(p, f).stats for f in range(3)}
        assert fragment in " ".join(locomo.caveats(p, stats))


def test_an_audit_that_is_not_one_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "errors.json"
    bad.write_text(json.dumps({"errors": []}))
    problem = locomo.check(params(audit=str(bad)))
    assert problem is not None and "not a LoCoMo audit file" in problem
    assert "neither the LoCoMo audit" in locomo.check(params(audit=str(tmp_path / "none")))
    checkout = tmp_path / "checkout"
    (checkout / "audit").mkdir(parents=True)
    (checkout / "audit" / "errors_conv_0.json").write_text(json.dumps([{"question_id": "x"}]))
    assert "no entry names a LoCoMo question" in locomo.check(params(audit=str(checkout)))
    with pytest.raises(ValueError, match="neither"):  # a directory holding no audit file
        load_audit(str(FIXTURES))


@pytest.mark.slow
def test_bm25_reports_answer_containment_on_locomo() -> None:
    loaded = load_plugins()
    spec = PairSpec(run_id="r1", index=0, label="bm25", backend="bm25",
                    scenario={"name": "locomo", "generator": "locomo",
                              "params": params(audit=str(AUDIT))}, seed=2)
    run = run_pair(spec, plugins=loaded)
    assert run.status == "ok", run.error
    asks = [p for p in run.records.probes if p.tag == "ask"]
    # "tomatoes and beans" is in its evidence turn; "September 2022" is not written as such
    # (the turn says "September"): contained once, and three key tokens of four found
    assert all(p.answer_phrases == 1 for p in asks)
    found = [float(1 <= p.answer_ranks[0] <= 5) for p in asks]
    assert run.metrics["answer@5"] == pytest.approx(sum(found) / len(found))
    assert run.metrics["answer@5"] == 0.5
    assert run.metrics["answer_tokens@5"] == pytest.approx(0.75)
    assert not any(p.answer_ranks for p in run.records.probes if p.tag == "early")
    assert run.metrics["updateWinRate"] is None  # LoCoMo has no update to score
    assert run.data_stats["answer_key"]["used"] == "locomo-audit"
