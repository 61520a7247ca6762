"""The blind stream's reinforcement and forget calls since the third draw (issue 34): each
cell reinforced after its own asks, among the writes, in order; each control checked as
long after its own last ask as a cell is; forget calls among the questions past the last
write, never right before a follow-up."""

from __future__ import annotations

import pytest
from scenario_helpers import load_scenario, script

from memory_bench.scenarios.script import Forget, Probe, ReadStrength, Write

BASELINE = ("probe", "reprobe")


def _steps(name: str, seed: int = 0):
    return list(script(load_scenario(name), seed).steps)


@pytest.mark.parametrize("name", ["hard", "natural"])
def test_each_cell_is_read_asked_read_and_checked_in_order_among_the_writes(name: str) -> None:
    steps = _steps(name)
    last_write = max(n for n, st in enumerate(steps) if isinstance(st, Write))
    reinforce = [n for n, st in enumerate(steps) if isinstance(st, Probe) and st.tag == "reinforce"]
    assert reinforce and min(reinforce) < last_write  # not one run after the writes
    cells = {steps[n].key for n in reinforce}
    for key in cells:
        at = [n for n, st in enumerate(steps) if isinstance(st, Probe) and st.key == key]
        own = [n for n in at if steps[n].tag in BASELINE]
        asks = [n for n in at if steps[n].tag == "reinforce"]
        (check,) = [n for n in at if steps[n].tag == "reinforced"]
        fact = steps[check].expected[0]
        reads = {st.label: n for n, st in enumerate(steps)
                 if isinstance(st, ReadStrength) and st.ids == (fact,) and st.tag == "reinforce"}
        assert max(own) < reads["before"] < min(asks) <= max(asks) < reads["after"] < check


@pytest.mark.parametrize("name", ["hard", "natural"])
def test_a_control_is_checked_as_long_after_its_own_asks_as_a_cell(name: str) -> None:
    steps = _steps(name)
    gaps: dict[str, list[int]] = {"reinforced": [], "control": []}
    for tag in gaps:
        for n, st in enumerate(steps):
            if isinstance(st, Probe) and st.tag == tag:
                own = [m for m in range(n) if isinstance(steps[m], Probe)
                       and steps[m].key == st.key and steps[m].tag in BASELINE]
                assert own, st.key  # a baseline to measure the gain from
                gaps[tag].append(sum(isinstance(steps[m], Write) for m in range(own[-1], n)))
        assert gaps[tag]
    # matched in distribution: the controls' write calls between their last ask and their
    # check are drawn from the cells' (each control takes a cell's gap)
    mean = {t: sum(g) / len(g) for t, g in gaps.items()}
    assert abs(mean["control"] - mean["reinforced"]) <= 0.5 * max(mean.values()) + 1


@pytest.mark.parametrize("name", ["hard", "default"])
def test_forget_calls_come_among_the_questions_after_the_last_write(name: str) -> None:
    steps = _steps(name)
    last_write = max(n for n, st in enumerate(steps) if isinstance(st, Write))
    after = steps[last_write + 1:]
    assert sum(isinstance(st, Probe) for st in after) > 0
    assert any(isinstance(st, Forget) for st in after)
    for n, st in enumerate(steps[:-1]):
        if isinstance(st, Forget):
            nxt = steps[n + 1]
            assert not (isinstance(nxt, Probe) and nxt.tag in ("forgotten", "kept")), n
