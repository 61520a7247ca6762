"""The memory-bench-jsonl/1 format: validation with line numbers, the generator, export."""

from __future__ import annotations

import json
from pathlib import Path

import dataset_fakes
import pytest

from memory_bench.harness.pair import PairSpec, generate_script, run_pair
from memory_bench.plugins import load_plugins
from memory_bench.results.paths import OutputError
from memory_bench.scenarios.datasets import jsonl
from memory_bench.scenarios.datasets.common import read_data_file
from memory_bench.scenarios.script import Probe, Reset
from memory_bench.scenarios.spec import ScenarioError, load_scenario
from memory_bench.session.export import export_script, validate_file

FIXTURES = Path(__file__).parent / "fixtures" / "datasets"
EXAMPLE, BROKEN, LOCOMO = (FIXTURES / n for n in ("example.jsonl", "broken.jsonl",
                                                   "locomo_mini.json"))


def params(path: Path = EXAMPLE, **kw) -> dict:
    return {"path": str(path), "folds": 1, "write_batch": 32, "keep_questions": True, **kw}


def test_validate_lists_every_problem_with_its_line() -> None:
    check = validate_file(BROKEN)
    got = [(p.line, p.message) for p in check.problems]
    assert [line for line, _ in got] == [1, 3, 4, 5, 6, 7, 8, 8, 9, 10]
    text = "\n".join(f"{line}: {m}" for line, m in got)
    for fragment in ("1: header: format 'memory-bench-jsonl/9'", "3: not JSON",
                     "4: item: missing field 'source'", "5: item 'x5': timestamp",
                     "has no timezone", "6: item id 'x1' is already used on line 2",
                     "7: probe: 'x9' names no item", "8: probe: unknown field 'expcted'",
                     "9: unknown type 'note'", "10: probe: item 'x3' (line 11) is written "
                     "after this is asked"):
        assert fragment in text
    assert check.parsed is None and "10 problem(s)" in check.summary()
    # the generator refuses it in one line that points to validate
    problem = jsonl.check(params(BROKEN))
    assert "10 problem(s), the first: line 1:" in problem and "memory-bench validate" in problem


def test_the_example_is_valid_and_runs_as_written() -> None:
    check = validate_file(EXAMPLE)
    assert check.problems == [] and check.parsed is not None
    assert (check.parsed.episodes, check.parsed.count("item"), check.parsed.count("probe")) \
        == (2, 10, 9)
    script = jsonl.generate(params(), 0)
    steps = script.steps
    early = next(n for n, s in enumerate(steps) if isinstance(s, Probe) and s.tag == "early")
    written = [i.text for s in steps[:early] if hasattr(s, "items") for i in s.items]
    assert len(written) == 1 and written[0].startswith("Started the pottery")  # after d1
    probes = [s for s in steps if isinstance(s, Probe)]
    assert {p.key for p in probes if p.tag == "early"} == {"e0/teacher", "e1/quote"}
    assert sum(isinstance(s, Reset) for s in steps) == 1
    assert not any(i.id.endswith(("d1", "m1")) for i in script.items())  # the file's ids: never
    update = next(p for p in probes if p.key == "e0/visit")
    assert len(update.outrank) == 1
    assert script.stats["unscored_probes"] == {}


def test_folds_split_the_episodes() -> None:
    a, b = (jsonl.generate(params(folds=2), f) for f in (0, 1))
    assert a.stats["items"] == 6 and b.stats["items"] == 4
    assert "folds 3 is more than the 2 episodes" in jsonl.check(params(folds=3))


@pytest.mark.parametrize(("text", "line", "fragment"), [
    ("", 1, "no item"),
    ('{"type": "item", "id": "a", "text": "t", "source": "s", '
     '"timestamp": "2024-01-01T00:00:00Z"}\n', 1, "no probe"),
    ('{"type": "item", "id": "a", "text": "t", "source": "s", "timestamp": "yesterday"}\n'
     '{"type": "probe", "question": "q", "expected": ["a"]}\n', 1, "not an ISO 8601"),
    ('{"type": "item", "id": "a", "text": "t", "source": "s", "timestamp": "2024-01-01T00:00Z"}\n'
     '{"type": "reset"}\n{"type": "probe", "question": "q", "expected": ["a"]}\n', 3,
     "names no item of this episode"),
    ('[1, 2]\n', 1, "expected a JSON object"),
    ('{"type": "probe", "question": "q", "expected": ["a"], "after": "zz"}\n', 1, "after 'zz'"),
])
def test_one_problem_at_a_time(text: str, line: int, fragment: str) -> None:
    _, problems = jsonl.parse_lines(text)
    assert problems and any(p.line == line and fragment in p.message for p in problems), problems


def _run(loaded, generator: str, p: dict, seed: int, backend: str = "bm25"):
    spec = PairSpec(run_id="r1", index=0, label=backend, backend=backend,
                    scenario={"name": generator, "generator": generator, "params": p}, seed=seed)
    run = run_pair(spec, plugins=loaded)
    assert run.status == "ok", run.error
    return run


def test_an_exported_dataset_script_scores_the_same_through_jsonl(tmp_path: Path) -> None:
    loaded = load_plugins()
    spec = load_scenario("locomo", {"path": str(LOCOMO), "folds": "3"},
                         registry=loaded.scenarios)
    out = tmp_path / "fold0.jsonl"
    lines = export_script(loaded, spec, 0, out)
    assert lines == len(out.read_text().splitlines())
    header = json.loads(out.read_text().splitlines()[0])
    assert header["made_by"]["generator"] == "locomo" and header["made_by"]["seed"] == 0
    assert validate_file(out).problems == []
    direct = _run(loaded, "locomo", spec.params, 0)
    again = _run(loaded, "jsonl", params(out), 0)
    for name in ("recall_any@5", "recall_all@10", "ndcg@10", "mrr", "recall_any@5_early",
                 "retention@5", "abstain_recall_any@5", "recall_any@5/single-hop",
                 "answer@5", "answer_tokens@10", "context_tokens@5"):
        assert again.metrics[name] == pytest.approx(direct.metrics[name]), name
    original = generate_script(loaded, spec.ref(), 0)
    assert [i.text for i in jsonl.generate(params(out), 0).items()] == \
        [i.text for i in original.items()]
    with pytest.raises(OutputError, match="never overwrites"):
        export_script(loaded, spec, 0, out)
    with pytest.raises(ScenarioError, match="seed 3 does not exist"):
        export_script(loaded, spec, 3, tmp_path / "x.jsonl")


def test_any_generator_exports_every_step_kind(tmp_path: Path) -> None:
    loaded = load_plugins([("dataset_fakes", dataset_fakes)], autoload=False)
    spec = load_scenario("smoke", registry=loaded.scenarios)
    out = tmp_path / "smoke.jsonl"
    export_script(loaded, spec, 0, out)
    kinds = {json.loads(line)["type"] for line in out.read_text().splitlines()}
    assert kinds == {"header", "item", "probe", "strength", "forget"}
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert any("category" in r for r in records if r["type"] == "item")  # the gate's kinds
    # the reinforcement's questions need no capability (reinforcementDelta reads ranks)
    assert any(r.get("tag") == "reinforce" and "needs" not in r
               for r in records if r["type"] == "probe")
    parsed, problems = jsonl.validate(read_data_file(out))
    assert problems == [] and parsed is not None
    run = _run(loaded, "jsonl", params(out), 0, backend="fake-recency")
    # the continual protocol's tags are scored as that protocol scores them
    # (what a JSONL file's own metrics do not score: the blind stream's other questions,
    # each counted as the file has it)
    from collections import Counter

    tags = Counter(r.get("tag") for r in records if r["type"] == "probe")
    other = {"aside", "control", "forgotten", "kept", "past", "reinforce", "reinforced"}
    assert set(run.data_stats["unscored_probes"]) == other
    assert run.data_stats["unscored_probes"] == {t: tags[t] for t in other}
    assert run.metrics["recall_any@5"] is None  # no probe carries a dataset tag
    assert run.metrics["recall1_before"] is not None and run.metrics["updateWinRate"] is not None
    assert run.records is not None  # every question asked but the forget follow-ups,
    # which need the `forget` capability this backend lacks (a reinforced cell's asks
    # kept as follow-ups need none: they are asked as ever)
    gated = sum(r.get("needs") == "forget" for r in records if r["type"] == "probe")
    assert gated >= tags["forgotten"] >= 1
    assert len(run.records.probes) == sum(tags.values()) - gated


@pytest.mark.slow
def test_the_hard_scenario_exported_scores_the_same_updates_through_jsonl(
        tmp_path: Path) -> None:
    """Issue 27's done-when: bm25's updateWinRate and retention on hard seed 0, the same
    from the scenario and from its export run back as a JSONL file."""
    loaded = load_plugins()
    spec = load_scenario("hard", registry=loaded.scenarios)
    out = tmp_path / "hard0.jsonl"
    export_script(loaded, spec, 0, out)
    assert json.loads(out.read_text().splitlines()[0])["k"] == 5  # the scenario's k
    direct = _run(loaded, "hard", spec.params, 0)
    again = _run(loaded, "jsonl", params(out), 0)
    for name in ("updateWinRate", "staleRate", "retention", "recall1_before",
                 "recall1_after", "provenanceAccuracy", "provenanceUpdate"):
        assert direct.metrics[name] is not None, name
        assert again.metrics[name] == pytest.approx(direct.metrics[name]), name
    assert 0 < direct.metrics["updateWinRate"] < 1  # neither trivially won nor lost


def test_your_own_updates_are_scored(tmp_path: Path) -> None:
    """Three updates that bm25 ranks old-first: recall is perfect, the updates are lost."""
    lines = [{"type": "header", "format": jsonl.FORMAT}]
    people = [("Ada", "Paris", "Lisbon"), ("Ben", "Oslo", "Rome"), ("Cleo", "Turin", "Bonn")]
    for n, (who, old, new) in enumerate(people):
        lines += [
            {"type": "item", "id": f"old-{n}", "text": f"{who} lives in {old} and lives well",
             "source": "e1", "timestamp": f"2024-01-0{n + 1}T00:00:00Z"},
            {"type": "item", "id": f"new-{n}", "text": f"{who} has moved to {new}",
             "source": "e2", "timestamp": f"2024-02-0{n + 1}T00:00:00Z"},
            {"type": "probe", "question": f"Where does {who} live?", "expected": [f"new-{n}"],
             "outrank": [f"old-{n}"], "key": who, "answers": [new]},
        ]
    path = tmp_path / "updates.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    run = _run(load_plugins(), "jsonl", params(path), 0)
    assert run.metrics["recall_any@5"] == 1.0
    assert run.metrics["updateWinRate"] == 0.0 and run.metrics["staleRate"] == 1.0
    assert run.metrics["answer@5"] == 1.0  # the new value is among the hits, second
    assert run.outcomes["updateWinRate"]["keys"] == ["ask/e0/Ada", "ask/e0/Ben", "ask/e0/Cleo"]
