"""The blind stream's reinforcement and forget calls since the third draw (issue 34): each
cell reinforced after its own asks, among the writes, in order; each control checked as
long after its own last ask as a cell is; forget calls among the questions past the last
write, never right before a follow-up (since the fourth draw: never right before one of
its own, and calls of never-asked noise among the writes too; a cell's reinforcement asks
kept follow-ups as often as a key has follow-ups)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from scenario_helpers import load_scenario, script

from memory_bench.scenarios.script import Forget, Probe, ReadStrength, Write

BASELINE = ("probe", "reprobe")
FOLLOW_UPS = ("forgotten", "kept")


def _reinforce_queries(name: str) -> int:
    return load_scenario(name).params["reinforce_queries"]


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
        if isinstance(st, Forget):  # never right before a question about what it forgot
            nxt = steps[n + 1]
            assert not (isinstance(nxt, Probe) and set(nxt.forgotten) & set(st.forgotten)), n


@pytest.mark.parametrize("name", ["hard", "default", "natural"])
def test_the_question_right_after_a_forget_call_is_a_follow_up_as_often_as_any(
        name: str) -> None:
    """Barred from right after every call, a follow-up was never the first question after
    one (and so the first was never a follow-up); placed freely, it came right after one
    more often than other questions. Now: about as often as any question is one."""
    first, every = [], []
    for seed in range(4):
        steps = _steps(name, seed)
        every += [st.tag in FOLLOW_UPS for st in steps if isinstance(st, Probe)]
        first += [nxt.tag in FOLLOW_UPS for st, nxt in pairwise(steps)
                  if isinstance(st, Forget) and isinstance(nxt, Probe)]
    assert len(first) >= 100
    share_first, share = sum(first) / len(first), sum(every) / len(every)
    assert abs(share_first - share) <= 0.08, (share_first, share)


@pytest.mark.parametrize("name", ["hard", "default"])
def test_forget_calls_of_never_asked_noise_come_among_the_writes(name: str) -> None:
    """As many again as the real calls, placed as a real call is: a question soon after a
    forget call is then no likelier to be a follow-up."""
    for seed in range(2):
        s = script(load_scenario(name), seed)
        steps = list(s.steps)
        last_write = max(n for n, st in enumerate(steps) if isinstance(st, Write))
        asked = {i for st in steps if isinstance(st, Probe)
                 for i in (*st.expected, *st.outrank, *st.forgotten)}
        calls = [st for st in steps[:last_write] if isinstance(st, Forget)]
        idle = [st for st in calls if st.ids and not set(st.forgotten) & asked]
        assert len(idle) >= 0.3 * len(calls), (len(idle), len(calls))
        assert s.stats["forgotten"]["decoys"] >= len(idle)


@pytest.mark.parametrize("name", ["hard", "default"])
def test_a_cells_reinforcement_asks_are_kept_follow_ups_as_often_as_a_fact_has_them(
        name: str) -> None:
    """A cell cannot be forgotten; its P asks, about the person asked most, become
    ``kept`` follow-ups after an earlier forget call as often as a key has follow-ups,
    with no capability: a backend that cannot forget is asked them as ever."""
    cells_kept = 0
    for seed in range(4):
        s = script(load_scenario(name), seed)
        steps = list(s.steps)
        checked = {st.key for st in steps if isinstance(st, Probe) and st.tag == "reinforced"}
        for key in checked:
            asks = [n for n, st in enumerate(steps) if isinstance(st, Probe) and st.key == key
                    and st.tag in ("reinforce", "kept")]
            assert len(asks) == _reinforce_queries(name)
            kept = [n for n in asks if steps[n].tag == "kept"]
            assert all(steps[n].needs is None for n in asks)
            if kept:
                cells_kept += 1
                assert any(isinstance(st, Forget) for st in steps[:kept[0]])
                assert kept == asks[len(asks) - len(kept):]  # the asks after its call
        assert s.stats["forgotten"]["cells_kept"] <= len(checked)
    assert cells_kept >= 2
