"""A cheater's rule backend, for tests and audits only: never published, never installed.

``cheater`` is faiss-rag-recency (the honest row with the most of every ranking column)
plus several audit rules of ``memory_bench_audit.rules`` at once, chained in the order
given (``rules=AnswerGap+LateDemote+PastDemote``): what a backend written to the stream,
not to memory, would do. It is loaded as the fake backends are, through
``MEMORY_BENCH_PLUGINS=cheater_backend`` with tests/ on the path, so no published run can
pick it up; backends/audit/README.md lists what each rule gained on hard.

    PYTHONPATH=tests MEMORY_BENCH_PLUGINS=cheater_backend \\
        memory-bench run --scenario hard --seeds 3 --backend faiss-rag-recency \\
        --backend cheater:rules=AnswerGap+LateDemote
"""

from __future__ import annotations

from typing import Any

from memory_bench import BackendContext, Capability, Option, hookimpl

# Score-based rules first (they re-sort the candidates), then the ones that move a group
# of candidates to the front or the back; StrengthCount only reports.
DEFAULT_RULES = "AnswerGap+LateDemote+UpdateGap+PastDemote+StrengthCount"


def _rule_names(value: str) -> list[str]:
    return [n for n in value.split("+") if n]


def _check(value: str) -> str | None:
    from memory_bench_audit import rules

    bad = [n for n in _rule_names(value) if not isinstance(getattr(rules, n, None), type)
           or not issubclass(getattr(rules, n), rules.Rule)]
    return f"names no rule of memory_bench_audit.rules: {', '.join(bad)}" if bad else None


def _factory(options: dict[str, Any], ctx: BackendContext) -> Any:
    from memory_bench_audit import rules
    from memory_bench_faiss_rag.plugin import build_store

    store = build_store({**options, "gate": "none", "supersede": "none"}, ctx, recency=True)
    names = _rule_names(options["rules"])
    # the row declares strength: with no rule that reports one, it reports the count
    names += [] if "StrengthCount" in names else ["StrengthCount"]
    chain = rules.Chain([getattr(rules, n)() for n in names])
    return rules.AuditRow(store, chain)


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    from memory_bench_embed import preload

    preload(options, "memory_bench_faiss_rag.backend", "memory_bench_audit.rules")


@hookimpl
def memory_bench_register_backends(registry: Any) -> None:
    from memory_bench_embed import LIBRARIES, backend_manifest, embedding_options
    from memory_bench_faiss_rag.plugin import index_options, recency_options

    options = [o for o in (*embedding_options(), *index_options())
               if o.name not in ("gate", "supersede")]
    registry.add(
        "cheater",
        factory=_factory,
        preload=_preload,
        manifest=backend_manifest,
        libraries=(*LIBRARIES, "faiss-cpu"),
        description="test: faiss-rag-recency plus chained audit rules (never published)",
        version="0.0.1",
        capabilities=[Capability.PROVENANCE, Capability.FORGET, Capability.STRENGTH],
        options=[*options, *recency_options(),
                 Option("rules", str, DEFAULT_RULES,
                        "audit rules chained in this order, joined by +", check=_check)],
        notes=["a cheater's rows: reads the stream, never the answer key; never published"],
    )
