"""The learned leak scan (issue 34): it finds a planted leak, it stays at chance without
one, and the published continual streams keep its bounds (the follow-ups hold on the full
scan, not on this small one: see HELD)."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

import pytest
from scenario_helpers import PLUGINS, load_scenario

from memory_bench.contract.items import Item
from memory_bench.harness.leakscan import scan_scenario
from memory_bench.render.leakscan import leak_scan_caveat, render_leak_scan
from memory_bench.scenarios.continual.leakscan import (
    BOUNDED,
    BOUNDS,
    GATE_FORM_BOUNDED,
    LeakScan,
    names_of,
    scan,
    summary,
)
from memory_bench.scenarios.script import Probe, Script, Write

_T0 = datetime(2026, 1, 1, tzinfo=UTC)
_WORDS = ("amber", "basil", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo",
          "juniper", "kelp", "lumen", "mosaic", "nectar", "onyx", "pepper")


def _planted(seed: int, *, leak: bool, rounds: int = 60) -> Script:
    """Rounds of four filler items in one call, then one item alone in a call, then a
    question. With ``leak`` the answer is that lone item (structure gives it away: a call
    of one); without, the answer is drawn from every item written so far."""
    rng = random.Random(seed)
    steps: list[Write | Probe] = []
    written: list[str] = []
    n = 0

    def item() -> Item:
        nonlocal n
        n += 1
        text = f"the note says {rng.choice(_WORDS)} {rng.choice(_WORDS)} {rng.choice(_WORDS)}."
        return Item(f"bench-RUN-{seed}-{n}", text, "src", _T0 + timedelta(minutes=n))

    for r in range(rounds):
        filler = tuple(item() for _ in range(4))
        lone = item()
        steps += [Write(filler, "interfere"), Write((lone,), "seed")]
        written += [i.id for i in (*filler, lone)]
        answer = lone.id if leak else rng.choice(written)
        steps.append(Probe(f"which note is number {r}?", (answer,), "probe"))
    return Script(tuple(steps), k=5, seed=seed)


def _auc(found: LeakScan, contrast: str, group: str) -> float:
    score = found.get(contrast, group)
    assert score is not None and score.auc is not None, (contrast, group)
    return score.auc


def test_a_planted_schedule_leak_is_found() -> None:
    found = scan("planted", [_planted(s, leak=True) for s in (100, 101, 102)],
                 [_planted(s, leak=True) for s in (0, 1)], ("logistic",))
    assert _auc(found, "answer", "structure") > 0.9
    assert _auc(found, "answer", "recency") > 0.95  # the lone item is also the newest
    assert found.get("answer", "structure").ok is False  # type: ignore[union-attr]
    assert any(s.contrast == "answer" and s.group == "structure" for s in found.violations())


def test_no_leak_scores_chance() -> None:
    found = scan("shuffled", [_planted(s, leak=False) for s in (100, 101, 102)],
                 [_planted(s, leak=False) for s in (0, 1)], ("logistic", "boosting"))
    for group in ("structure", "form"):
        assert 0.35 < _auc(found, "answer", group) < 0.65, group
    assert found.get("answer", "form").ok is True  # type: ignore[union-attr]


def test_names_heuristic() -> None:
    assert names_of("Lazlo Galloway owns a dog named Bisper.") == {"lazlo galloway", "bisper"}
    assert names_of("The mayor of Lower Bramwick is Oskar Moravec.") == {"lower bramwick",
                                                                         "oskar moravec"}
    assert names_of("Which pet shares Fabian Quayle's house?") == {"fabian quayle"}
    assert names_of("Dial extension 8065 to reach Lazlo Okonkwo") == {"lazlo okonkwo"}
    assert names_of("hello there, how are you?") == frozenset()


def test_per_item_tags_override_the_call_tag() -> None:
    """A Write that mixes kinds (per-item ``tags``, coming in the blind stream) is read per
    item: the gate contrast sees the refusable item, not the call's tag."""
    from memory_bench.scenarios.continual.leakscan import contrast_rows, observe

    items = tuple(Item(f"bench-RUN-{n}", t, "s", _T0 + timedelta(minutes=n))
                  for n, t in enumerate(["Anna Berg lives in Oslo.", "nice weather today!"]))
    if "tags" in Write.__dataclass_fields__:  # the field has landed
        w = Write(items, "write", ("", "chitchat"), tags=("seed", "gate"))  # type: ignore[call-arg]
    else:
        class Mixed(Write):  # the coming field, before it lands
            __slots__ = ("tags",)

        w = Mixed(items, "write", ("", "chitchat"))
        object.__setattr__(w, "tags", ("seed", "gate"))
    o = observe(Script((w,), k=5, seed=0))
    assert [i.role for i in o.items] == ["seed", "gate"]
    rows = contrast_rows(o)
    assert rows["gate:chitchat"].y == [0, 1]


@cache
def _small_scan(name: str) -> LeakScan:
    spec = load_scenario(name)
    return scan_scenario(PLUGINS, name, spec.ref(), (100, 101, 102), (0, 1),
                         models=("logistic",), negatives=10)


SCENARIOS = ("hard", "natural", "default")


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_bounded_contrast_is_scored(name: str) -> None:
    found = _small_scan(name)
    for contrast in BOUNDED:
        for group in BOUNDS:
            score = found.get(contrast, group)
            assert score is not None and score.auc is not None, (contrast, group)
            assert score.n_test > 0 and score.positives_test > 0
    text = render_leak_scan(found)
    assert "answer" in text and "structure" in text
    line = leak_scan_caveat(summary(found), name)
    assert line is not None and f"--scenario {name}" in line


# What the blind stream keeps within the bounds (structure <= 0.55, form <= 0.60)
# on this small scan (three train seeds, two test seeds, logistic regression: noisier than
# the full scan), and what it does not here: the follow-ups by structure on hard, default
# (fourth draw: 0.553 and 0.570 here, 0.545 and 0.538 on the full scan) and natural
# (fifth draw: 0.560 here, 0.532 on the full scan), all in bounds on the full scan
# (docs/leaks.md). Those are held to ceilings a little above, so that they cannot get
# worse unseen.
HELD = {"hard": ("answer", "current_vs_old", "update_vs_reprobe"),
        "natural": ("answer", "current_vs_old", "update_vs_reprobe"),
        "default": ("answer", "current_vs_old", "update_vs_reprobe")}
CEILING = {"structure": 0.60, "form": 0.68}


@pytest.mark.parametrize("name", SCENARIOS)
def test_structure_and_form_keep_their_bounds(name: str) -> None:
    found = _small_scan(name)
    broken = [(s.contrast, s.group, round(s.auc or 0, 3)) for s in found.violations()
              if s.contrast in HELD[name]]
    assert broken == []
    over = [(s.contrast, s.group, round(s.auc or 0, 3)) for s in found.scores
            if s.contrast in BOUNDED and s.group in CEILING and s.auc is not None
            and s.auc > CEILING[s.group]]
    assert over == []


def test_judged_junk_has_accepted_look_alikes() -> None:
    found = _small_scan("hard")
    for kind in GATE_FORM_BOUNDED:
        assert _auc(found, f"gate:{kind}", "form") < 1.0, kind


def test_leaks_command(cli, tmp_path) -> None:
    out_file = tmp_path / "scan.json"
    args = ("leaks", "--scenario", "smoke", "--train-seeds", "100-102", "--test-seeds", "0,1",
            "--model", "logistic", "--negatives", "5")
    out = cli(*args, "--json", str(out_file))
    assert out.returncode == 0, out.stderr
    assert "answer" in out.stdout and "followup_vs_other" in out.stdout
    doc = json.loads(out_file.read_text())
    assert doc["train_seeds"] == [100, 101, 102] and doc["test_seeds"] == [0, 1]
    assert {s["contrast"] for s in doc["scores"]} >= {"answer", "update_vs_reprobe"}
    assert str(tmp_path) not in out_file.read_text()
    before = out_file.read_text()
    again = cli(*args, "--json", str(out_file))  # never over an earlier result
    assert again.returncode == 2 and again.stdout == ""
    assert len(again.stderr.strip().splitlines()) == 1 and "exists" in again.stderr
    assert out_file.read_text() == before
    strict = cli(*args, "--strict")
    assert strict.returncode == (1 if "bound(s) broken" in strict.stdout else 0), strict.stderr


@pytest.mark.parametrize("bad", [("--train-seeds", "0-3", "--test-seeds", "3-5"),
                                 ("--train-seeds", "x-y"), ("--test-seeds", "5-2"),
                                 ("--negatives", "0")])
def test_leaks_bad_input(cli, tmp_path, bad: tuple[str, ...]) -> None:
    out_file = tmp_path / "scan.json"
    out = cli("leaks", "--scenario", "smoke", *bad, "--json", str(out_file))
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1
    assert not out_file.exists()


def test_a_result_keeps_the_small_scan_and_the_caveats_quote_it() -> None:
    from constructed_results import backend, result

    from memory_bench.render.caveats import caveats
    from memory_bench.results.model import Result

    kept = {"scenario": "hard", "train_seeds": [100, 101, 102], "test_seeds": [0, 1],
            "models": ["logistic"], "seconds": 3.0,
            "scores": [{"contrast": "answer", "group": "structure", "auc": 0.806,
                        "bound": 0.55, "strict": False, "ok": False},
                       {"contrast": "gate:chitchat", "group": "form", "auc": 0.99997,
                        "bound": 1.0, "strict": True, "ok": True}]}
    r = result(backend("rag", {"gateRecall": [1.0] * 5}))
    assert "leak_scan" not in r.to_dict()["scenario"]  # older results keep their shape
    assert not any("leak scan" in c for c in caveats(r))
    r.scenario.leak_scan = kept
    back = Result.from_dict(json.loads(json.dumps(r.to_dict())))
    assert back.scenario.leak_scan == kept
    line = next(c for c in caveats(back) if "Learned leak scan" in c)
    assert "1 of 2 bounds broken" in line and "answer structure 0.806 (≤ 0.55, LEAK)" in line
    assert "gate:chitchat form >0.9999 (< 1)" in line  # never rounded up to a perfect 1
    assert "`memory-bench leaks --scenario hard`" in line


def test_a_run_keeps_its_small_scan_unless_told_not_to(monkeypatch, tmp_path) -> None:
    import fake_backends

    import memory_bench
    from memory_bench.api import Execution
    from memory_bench.plugins import load_plugins

    monkeypatch.chdir(tmp_path)
    plugins = load_plugins([("fake_backends", fake_backends)], autoload=False)
    for setting, kept in (("on", True), ("off", False)):
        monkeypatch.setenv("MEMORY_BENCH_LEAK_SCAN", setting)
        from memory_bench.harness import leakscan

        leakscan._QUICK_DONE.clear()
        result = memory_bench.run(scenario=str(Path(__file__).parents[1] / "scenarios" /
                                               "smoke.toml"), backends=["fake-perfect"],
                                  seeds=1, out=f"{setting}.json", plugins=plugins,
                                  execution=Execution(executor="local"))
        assert bool(result.scenario.leak_scan) is kept, setting
