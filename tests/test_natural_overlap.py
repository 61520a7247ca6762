"""The question/fact overlap statistics: their definition, and that they reach the result file."""

from __future__ import annotations

from pathlib import Path

import fake_backends
import pytest
from scenario_helpers import generate, load_scenario

from memory_bench.harness.runner import RunConfig
from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.results.io import load_result
from memory_bench.scenarios.generators.overlap import STOP_WORDS, content_words, overlap_stats
from memory_bench.session.pipeline import execute


def test_content_words_follow_the_stated_definition() -> None:
    assert content_words("Where was Mara Olsen born?") == {"mara", "olsen", "born"}
    assert content_words("Olsen's dogs: 2 of them; the means.") == {"olsen", "dog", "mean"}
    assert content_words("A glass, this class.") == {"glass", "class"}
    assert {"what", "does", "the", "of"} <= STOP_WORDS


def test_overlap_stats_on_a_hand_example() -> None:
    st = overlap_stats(
        ["Where was Mara Olsen born?", "What does handgrip mean?"],
        ["Mara Olsen was born in Ashford.", "Grip denotes a handle."],
        ["Mara Olsen", "handgrip"],
    )
    assert st["n"] == 2
    assert st["zero_overlap_share"] == 0.5
    assert st["subject_in_fact_share"] == 0.5
    assert st["share"]["max"] == 1.0 and st["share"]["min"] == 0.0
    assert st["share_histogram"] == {
        "0": 1, "(0,0.25]": 0, "(0.25,0.5]": 0, "(0.5,0.75]": 0, "(0.75,1)": 0, "1": 1,
    }
    # Q={mara, olsen, born}, F={mara, olsen, born, ashford}: 3/4
    assert st["jaccard"]["max"] == 0.75
    with pytest.raises(ValueError):
        overlap_stats(["q"], [], [])


def test_natural_questions_share_far_less_with_their_facts_than_templated() -> None:
    for seed in range(3):
        nat = generate(load_scenario("natural"), seed).stats["question_overlap"]["probe"]
        tpl = generate(load_scenario("default"), seed).stats["question_overlap"]["probe"]
        assert nat["n"] == tpl["n"] == 120
        assert nat["subject_in_fact_share"] == 0.0 and tpl["subject_in_fact_share"] == 1.0
        assert nat["zero_overlap_share"] >= 0.6 > tpl["zero_overlap_share"]
        assert nat["share"]["mean"] < 0.2 < 0.5 < tpl["share"]["mean"]


def test_stats_are_not_part_of_the_data_hash() -> None:
    d = generate(load_scenario("natural"), 0)
    assert "stats" not in d.to_dict() and d.stats["question_overlap"]["probe"]["n"] == 120


def test_result_file_records_the_stats_of_every_seed(tmp_path: Path) -> None:
    loaded = load_plugins([("fake_backends", fake_backends)], autoload=False)
    scenario = load_scenario(
        "natural",
        {"facts": 12, "noise": 24, "updates": 4, "gate_empty": 2, "gate_short": 2,
         "gate_duplicate": 2, "gate_clean": 3, "reinforce_cells": 2, "reinforce_queries": 2},
    )
    cfg = RunConfig(
        plugins=loaded,
        selections=select_backends(loaded.registry, ["fake-noprov"]),
        scenario=scenario,
        seeds=[0, 1],
        out=tmp_path / "r.json",
        executor="local",  # not what this test is about; the isolation tests fork
    )
    execute(cfg)
    doc = load_result(tmp_path / "r.json")
    stats = doc.scenario.data_stats
    assert set(stats) == {"0", "1"}
    for seed in (0, 1):
        # the script adds what its forget steps planned and its stream's shape to the
        # data's own stats
        assert {k: v for k, v in stats[str(seed)].items()
                if k not in ("forgotten", "stream")} == generate(scenario, seed).stats
        assert stats[str(seed)]["stream"]["layout"] == "blind"
        assert stats[str(seed)]["question_overlap"]["probe"]["n"] == 12
    assert doc.backends[0].runs[0].status == "ok"
