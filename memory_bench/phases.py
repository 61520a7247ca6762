"""The protocol for one (backend, seed): PROTOCOL.md's phases, in order.

This module talks to a backend only through the Backend protocol and only
calls an optional method when the backend declared the capability, so it
never knows which backend it is talking to.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from memory_bench.backend import Backend
from memory_bench.capabilities import Capability
from memory_bench.data import ScenarioData
from memory_bench.items import Hit, Item, WriteResult
from memory_bench.records import GateRecord, ProbeRecord, ReinforceRecord, SeedRecords, WriteRecord
from memory_bench.scenario import Scenario

__all__ = ["PHASES", "ContractError", "run_phases"]

PHASES = (
    "seed",
    "probe",
    "interfere",
    "consolidate",
    "reprobe",
    "update",
    "gate",
    "reinforce",
)

PhaseCallback = Callable[[str], None]


class ContractError(RuntimeError):
    """The backend answered outside the contract (wrong count, wrong types)."""


class _Protocol:
    def __init__(
        self,
        backend: Backend,
        capabilities: frozenset[Capability],
        scenario: Scenario,
        data: ScenarioData,
    ) -> None:
        self.b = backend
        self.caps = capabilities
        self.s = scenario
        self.data = data
        self.rec = SeedRecords()
        self.written: dict[str, Item] = {}

    # -- calls, validated and timed ------------------------------------------------

    def write(self, phase: str, items: Sequence[Item]) -> list[WriteResult]:
        out: list[WriteResult] = []
        batch = self.s.write_batch
        for start in range(0, len(items), batch):
            chunk = list(items[start : start + batch])
            t0 = time.perf_counter()
            results = self.b.write(chunk)
            seconds = time.perf_counter() - t0
            if not isinstance(results, list) or len(results) != len(chunk):
                got = len(results) if isinstance(results, list) else type(results).__name__
                raise ContractError(f"write of {len(chunk)} items returned {got} results")
            for item, res in zip(chunk, results, strict=True):
                if not isinstance(res, WriteResult) or res.id != item.id:
                    raise ContractError(f"write returned {res!r} for item {item.id}")
                self.written[item.id] = item
            out.extend(results)
            accepted = sum(r.accepted for r in results)
            self.rec.writes.append(WriteRecord(phase, len(chunk), accepted, seconds))
        return out

    def query(self, phase: str, question: str, expected: str, old: str | None = None) -> None:
        t0 = time.perf_counter()
        hits = self.b.query(question, self.s.k)
        latency_ms = (time.perf_counter() - t0) * 1000.0
        if not isinstance(hits, list) or not all(isinstance(h, Hit) for h in hits):
            raise ContractError(f"query returned {type(hits).__name__}, not a list of Hit")
        hits = hits[: self.s.k]
        top = hits[0] if hits else None
        written = self.written.get(top.id) if top else None
        self.rec.probes.append(
            ProbeRecord(
                phase=phase,
                question=question,
                expected=expected,
                old=old,
                returned=[h.id for h in hits],
                scores=[round(float(h.score), 6) for h in hits],
                latency_ms=latency_ms,
                top_source=top.source if top else None,
                top_timestamp=top.timestamp.isoformat() if top and top.timestamp else None,
                written_source=written.source if written else None,
                written_timestamp=written.timestamp.isoformat() if written else None,
            )
        )

    # -- the phases ---------------------------------------------------------------

    def seed(self) -> None:
        self.write("seed", [f.item for f in self.data.facts])

    def probe(self, phase: str = "probe") -> None:
        for f in self.data.facts:
            self.query(phase, f.question, f.item.id)

    def interfere(self) -> None:
        self.write("interfere", self.data.noise)

    def consolidate(self) -> None:
        if self.s.consolidate and Capability.CONSOLIDATE in self.caps:
            report = self.b.consolidate()
            self.rec.consolidation = dict(report) if report else {}

    def reprobe(self) -> None:
        self.probe("reprobe")

    def update(self) -> None:
        self.write("update", [u.item for u in self.data.updates])
        for u in self.data.updates:
            self.query("update", u.question, u.item.id, old=self.data.facts[u.fact].item.id)

    def gate(self) -> None:
        cases = self.data.gate
        results = self.write("gate", [g.item for g in cases])
        for g, res in zip(cases, results, strict=True):
            record = GateRecord(g.item.id, g.kind, g.refusable, res.accepted, res.reason)
            self.rec.gate.append(record)

    def reinforce(self) -> None:
        if Capability.STRENGTH not in self.caps:
            return
        for fi in self.data.reinforce:
            fact = self.data.facts[fi]
            before = self._strength(fact.item.id)
            for _ in range(self.s.reinforce_queries):
                self.query("reinforce", fact.question, fact.item.id)
            after = self._strength(fact.item.id)
            self.rec.reinforce.append(
                ReinforceRecord(fact.item.id, before, after, self.s.reinforce_queries)
            )

    def _strength(self, item_id: str) -> float | None:
        values = self.b.strength([item_id])
        if not isinstance(values, list) or len(values) != 1:
            raise ContractError(f"strength of 1 id returned {values!r}")
        return None if values[0] is None else float(values[0])


def run_phases(
    backend: Backend,
    capabilities: frozenset[Capability],
    scenario: Scenario,
    data: ScenarioData,
    on_phase: PhaseCallback | None = None,
) -> SeedRecords:
    """Run every phase against ``backend`` (already created on an empty store)."""
    p = _Protocol(backend, capabilities, scenario, data)
    steps = {
        "seed": p.seed,
        "probe": p.probe,
        "interfere": p.interfere,
        "consolidate": p.consolidate,
        "reprobe": p.reprobe,
        "update": p.update,
        "gate": p.gate,
        "reinforce": p.reinforce,
    }
    for name in PHASES:
        if on_phase:
            on_phase(name)
        steps[name]()
    return p.rec
