"""A reference backend for the dataset tests, registered as a plugin would be.

``fake-recency`` answers every question with the k items written last, newest
first: the trivial rule whose score the dataset generators state in their
``recency_baseline`` data statistics. It keeps provenance. ``fake-calibrated``
is the same rule declaring calibrated scores, each hit 0.2 (probably not relevant).
"""

from __future__ import annotations

from fake_backends import SubjectMemory

from memory_bench import Capability, Hit, hookimpl


class RecencyMemory(SubjectMemory):
    """The fake store of the core's tests, read by recency instead of by subject."""

    def query(self, text: str, k: int) -> list[Hit]:
        return [Hit(i.id, 1.0, source=i.source, timestamp=i.timestamp)
                for i in self.items[::-1][:k]]


class CalibratedRecency(RecencyMemory):
    def query(self, text: str, k: int) -> list[Hit]:
        return [Hit(h.id, 0.2, source=h.source, timestamp=h.timestamp)
                for h in super().query(text, k)]


@hookimpl
def memory_bench_register_backends(registry) -> None:
    registry.add("fake-recency", factory=lambda options, ctx: RecencyMemory(),
                 description="the k items written last (a reference rule)", version="0",
                 capabilities=[Capability.PROVENANCE])
    registry.add("fake-calibrated", factory=lambda options, ctx: CalibratedRecency(),
                 description="the k items written last, scored 0.2 each (calibrated)",
                 version="0", capabilities=[Capability.PROVENANCE, Capability.CALIBRATED])
