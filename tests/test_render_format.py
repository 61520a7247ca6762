"""How a number reads in a table cell."""

from __future__ import annotations

import pytest

from memory_bench.metrics.spec import MetricSpec
from memory_bench.render.format import num

RATE = MetricSpec(name="recall@1", label="recall@1", reads=(), decimals=3)


@pytest.mark.parametrize(("value", "text"), [
    (0.1234, "0.123"),
    (-0.2, "-0.200"),
    (0.0, "0.000"),
    (-0.0003, "-0.0003"),  # not "-0.000": the bound is below 0, and by how much
    (0.00004, "0.00004"),
    (-1e-12, "0.000"),  # nothing shows within four more places: no sign either
])
def test_a_value_that_rounds_to_zero_keeps_its_sign_and_size(value: float, text: str) -> None:
    assert num(value, RATE) == text


def test_an_interval_bound_takes_the_mean_s_places_unless_it_would_read_zero() -> None:
    assert num(0.01234, RATE, like=0.5) == "0.012"
    assert num(-0.0004, RATE, like=0.5) == "-0.0004"
