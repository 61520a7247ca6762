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
    # What the rule gives up by its nature (memory_bench.results.audit); None: by its
    # target (refusing by form refuses clean items; keeping old facts by ignoring what is
    # new loses the updates: stability against plasticity).
    gives_up: tuple[str, ...] | None = None
    strength: bool = False  # the row reports a strength of its own (reinforcementDelta)

    @property
    def costs(self) -> tuple[str, ...]:
        if self.gives_up is not None:
            return self.gives_up
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
    "audit-junk-form": AuditSpec(
        "JunkFormGate", "faiss-rag:gate=rules", "gateRecall",
        "form: refuse a text ending in a word no statement ends with (in, of, by, the, "
        "called, ...) or naming nothing (no capitalised word after the first, no digit)"),
    # The leak classes of issue 34, measured on the phased stream; on the blind one each
    # should gain nothing (README.md has what each gained).
    "audit-demote-returned": AuditSpec(
        "DemoteReturned", "faiss-rag-recency", "updateWinRate",
        "call order: a candidate an earlier question got first goes last (every question "
        "its own answer)", gives_up=("recall1_before", "retention")),
    "audit-person-count": AuditSpec(
        "PersonCount", "faiss-rag-recency", "updateWinRate",
        "call order and names: from the third question naming a person on, the candidates "
        "naming the person go first, newest first", gives_up=("retention",)),
    "audit-past-demote": AuditSpec(
        "PastDemote", "faiss-rag-recency", "updateWinRate",
        "form: candidates worded in the past (used to, back then, before, former) go last",
        gives_up=("recall1_before",)),
    "audit-quiet-run": AuditSpec(
        "QuietRun", "faiss-rag", "retention",
        "call order: items written in a run of 25 or more writes with no question go last"),
    "audit-strength-count": AuditSpec(
        "StrengthCount", "faiss-rag", "reinforcementDelta",
        "call order: the strength reported is how often the item was returned", gives_up=(),
        strength=True),
    "audit-swap-first": AuditSpec(
        "SwapFirst", "faiss-rag", "retention",
        "call order: a question whose first hit was never returned before gets its top two "
        "swapped (worse before, so a ratio of after to before rises)",
        gives_up=("recall1_before",)),
    # Rules against the blind stream's own schedule (blind.py's constants).
    "audit-answer-gap": AuditSpec(
        "AnswerGap", "faiss-rag-recency", "recall1_before",
        "position: items written 8-130 writes before the question get a bonus, fewer than 8 "
        "a malus (questions come a drawn gap of at least MIN_GAP after their answer)",
        gives_up=("retention",)),
    "audit-first-answer-gap": AuditSpec(
        "FirstAnswerGap", "faiss-rag-recency", "recall1_before",
        "position and call order: audit-answer-gap's window on a question unlike any "
        "asked before (cosine < 0.8) only; later asks, re-probes among them, keep the "
        "base's order",
        gives_up=("retention",)),
    "audit-late-demote": AuditSpec(
        "LateDemote", "faiss-rag", "retention",
        "position: items written past 75% of hard's 893 writes go last (facts fall in the "
        "first FACT_SPAN)"),
    "audit-update-gap": AuditSpec(
        "UpdateGap", "faiss-rag-recency", "updateWinRate",
        "position and names: among candidates naming the subject, those written 30% of the "
        "stream after another go first, newest first (a new value comes LATER_MIN after "
        "its fact)", gives_up=()),
    "audit-forget-late": AuditSpec(
        "ForgetLate", "faiss-rag", "forgetKept",
        "call order and position: once a forget call has come, items written past 75% of "
        "hard's 893 writes go last", gives_up=("updateWinRate",)),
    "audit-kept-cache": AuditSpec(
        "KeptCache", "faiss-rag", "forgetKept",
        "call order: a question asked before is answered as it was then, less what was "
        "forgotten since", gives_up=("forgottenReturned",)),
    "audit-since-asked": AuditSpec(
        "SinceAsked", "faiss-rag-recency", "updateWinRate",
        "call order and names: candidates naming the person, written since the last "
        "question naming the person, go first, newest first", gives_up=("retention",)),
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
            # every capability the scenario uses that the base has (faiss-rag's:
            # provenance, forget), so no row skips a phase its rule could game
            capabilities=[Capability.PROVENANCE, Capability.FORGET,
                          *([Capability.GATE] if spec.gate else []),
                          *([Capability.STRENGTH] if spec.strength else [])],
            options=options,
            notes=[f"audit row: targets {spec.metric}, base {spec.base}; a gain beyond its "
                   "interval over the base is a leak in the protocol, not memory",
                   f"reads {spec.reads}; never the answer key"],
        )
