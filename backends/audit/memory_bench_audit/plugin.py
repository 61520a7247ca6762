"""Registers the audit rows: each is an honest base (faiss-rag, faiss-rag-recency or
faiss-rag's rule gate) plus one rule of ``rules.py``, with the metric it targets.

Light on purpose: the store and the model are built by the factory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memory_bench_embed import LIBRARIES, backend_manifest, embedding_options
from memory_bench_faiss_rag.plugin import build_store, index_options, recency_options

from memory_bench import BackendContext, Capability, hookimpl
from memory_bench_audit import __version__

__all__ = ["AUDIT_ROWS", "AuditSpec", "memory_bench_register_backends"]


@dataclass(frozen=True)
class AuditSpec:
    """One audit row: its rule, the honest row it is built on, the metric it targets and
    what it reads."""

    rule: str  # a class of rules.py
    base: str  # the honest row's spec, as `memory-bench run --backend` takes it
    metric: str
    reads: str

    @property
    def costs(self) -> tuple[str, ...]:
        """What the rule gives up by its nature (memory_bench.results.audit): refusing
        by form refuses clean items; keeping old facts by ignoring what is new loses the
        updates (stability against plasticity)."""
        return {"gateRecall": ("falseRefusals",), "retention": ("updateWinRate",)}.get(
            self.metric, ())

    def manifest(self) -> dict[str, Any]:
        return {"base": self.base, "metric": self.metric, "costs": list(self.costs),
                "reads": self.reads, "rule": self.rule}

    @property
    def recency(self) -> bool:
        return self.base == "faiss-rag-recency"

    @property
    def gate(self) -> bool:
        return self.base == "faiss-rag:gate=rules"


AUDIT_ROWS: dict[str, AuditSpec] = {
    "audit-query-cache": AuditSpec(
        "QueryCache", "faiss-rag", "retention",
        "call order: a question asked before is answered as it was then"),
    "audit-similar-query-cache": AuditSpec(
        "SimilarQueryCache", "faiss-rag", "retention",
        "call order: a question within cosine 0.9 of an earlier one is answered as it was"),
    "audit-oldest-first": AuditSpec(
        "OldestFirst", "faiss-rag", "retention",
        "position: a bonus for being written early (facts before their interference)"),
    "audit-newest-since-question": AuditSpec(
        "NewestSinceQuestion", "faiss-rag-recency", "updateWinRate",
        "call order: items written since the last question go first"),
    "audit-same-name-newest": AuditSpec(
        "SameNameNewest", "faiss-rag-recency", "updateWinRate",
        "text and timestamps: candidates naming the question's subject go first, newest "
        "first"),
    "audit-form-gate": AuditSpec(
        "FormGate", "faiss-rag:gate=rules", "gateRecall",
        "form and source: refuse a text without a final period, or one that rewords an "
        "item stored from its own source"),
}


def _factory(spec: AuditSpec) -> Callable[[dict[str, Any], BackendContext], Any]:
    def factory(options: dict[str, Any], ctx: BackendContext) -> Any:
        from memory_bench_audit import rules

        opts = {**options, "gate": "rules" if spec.gate else "none", "supersede": "none"}
        store = build_store(opts, ctx, recency=spec.recency)
        return rules.AuditRow(store, getattr(rules, spec.rule)())
    return factory


def _manifest(spec: AuditSpec) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The base's manifest and the audit spec: the result file says which rows are
    audit rows, so the report can show what reading the protocol buys."""
    def manifest(options: dict[str, Any]) -> dict[str, Any]:
        return {**backend_manifest(options), "audit": spec.manifest()}
    return manifest


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    from memory_bench_embed import preload

    preload(options, "memory_bench_faiss_rag.backend", "memory_bench_audit.rules")


@hookimpl
def memory_bench_register_backends(registry: Any) -> None:
    for name, spec in AUDIT_ROWS.items():
        options = [*embedding_options(), *index_options()]
        options = [o for o in options if o.name not in ("gate", "supersede")]
        if spec.recency:
            options += recency_options()
        registry.add(
            name,
            kind="audit",
            factory=_factory(spec),
            preload=_preload,
            manifest=_manifest(spec),
            libraries=(*LIBRARIES, "faiss-cpu"),
            description=f"exploit audit: {spec.base} + a rule that reads {spec.reads}; "
                        f"targets {spec.metric}",
            version=__version__,
            capabilities=[Capability.PROVENANCE, *([Capability.GATE] if spec.gate else [])],
            options=options,
            notes=[f"audit row: targets {spec.metric}, base {spec.base}; a gain beyond its "
                   "interval over the base is a leak in the protocol, not memory",
                   f"reads {spec.reads}; never the answer key"],
        )
