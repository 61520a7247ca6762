"""The continual protocol: its parameters, its data model, its script, its caveats."""

from __future__ import annotations

from memory_bench.scenarios.continual.caveats import continual_caveats
from memory_bench.scenarios.continual.data import Fact, GateCase, ScenarioData, Update
from memory_bench.scenarios.continual.params import (
    CONTINUAL_PARAMETERS,
    ContinualParams,
    check_continual,
)
from memory_bench.scenarios.continual.script import PHASES, continual_script

__all__ = [
    "CONTINUAL_PARAMETERS",
    "PHASES",
    "ContinualParams",
    "Fact",
    "GateCase",
    "ScenarioData",
    "Update",
    "check_continual",
    "continual_caveats",
    "continual_script",
]
