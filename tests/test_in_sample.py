"""A backend declares the seeds it was tuned on; a row scored on them is labelled
in-sample in every table and in the caveats, and the label survives the file."""

from __future__ import annotations

from constructed_results import backend, result

from memory_bench.render.caveats import caveats
from memory_bench.render.markdown import render_markdown
from memory_bench.results.model import Result


def _run(tuned: dict[str, list[int]]) -> Result:
    tuned_row = backend("tuned", {})
    tuned_row["tuned_on"] = tuned
    return result(backend("plain", {}), tuned_row)  # scenario "default", seeds 0-4


def test_a_row_on_its_tuning_seeds_is_labelled_in_sample() -> None:
    r = _run({"default": [3, 4, 100]})
    assert r.backend("tuned").in_sample(r.scenario, r.seeds) == [3, 4]
    md = render_markdown(r)
    assert "| tuned [in-sample] |" in md and "| plain [in-sample] |" not in md
    (line,) = [c for c in caveats(r) if "in-sample" in c]
    assert line.startswith("`tuned` is in-sample (marked [in-sample]): its settings were "
                           "tuned on seed(s) 3, 4 of this scenario")
    again = Result.from_dict(r.to_dict())  # written and read back
    assert again.backend("tuned").tuned_on == {"default": [3, 4, 100]}


def test_held_out_seeds_or_another_scenario_are_not_in_sample() -> None:
    for tuned in ({"default": [100, 101]}, {"natural": [0, 1]}, {}):
        r = _run(tuned)
        assert "[in-sample]" not in render_markdown(r)
        assert not [c for c in caveats(r) if "in-sample" in c]
    assert "[in-sample]" in render_markdown(_run({"*": [0]}))  # any scenario


def test_rshl_declares_its_calibration_seeds() -> None:
    from memory_bench.plugins import load_plugins

    info = load_plugins().registry.get("rshl")
    assert dict(info.tuned_on) == {name: tuple(range(100, 110))
                                   for name in ("default", "natural", "hard")}
