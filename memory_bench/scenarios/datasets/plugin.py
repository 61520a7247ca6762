"""The dataset generators, registered through the hook a third party uses (an internal
plugin, always loaded). Listing generators reads no data file."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from memory_bench.contract.hooks import hookimpl
from memory_bench.scenarios.registry import ScenarioRegistry
from memory_bench.scenarios.script import Script

__all__ = ["memory_bench_register_scenarios"]

VERSION = "1.1"  # 1.1: jsonl's retention per fact in the top k (issue 34)
_PACKAGE = "memory_bench.scenarios.datasets"
_DESCRIPTIONS = {
    "locomo": "LoCoMo's ten long conversations (--set path=locomo10.json): every turn an "
              "item, every question asked right after its evidence and after the conversation",
    "longmemeval": "LongMemEval (--set path=longmemeval_s.json): each question over its own "
                   "chat history, as turns or sessions",
    "jsonl": "your own items and questions in the memory-bench-jsonl/1 format "
             "(--set path=FILE; `memory-bench validate FILE` checks it)",
    "beam": "BEAM's long chats (--set path=BEAM-CHECKOUT, tier=100K|500K|...): every message "
            "an item, one store per chat; knowledge updates scored as updates",
}


def _module(name: str) -> Any:
    return importlib.import_module(f"{_PACKAGE}.{name}")


def _bound(name: str) -> dict[str, Any]:
    """generate, check and caveats of one module, imported when first called."""
    def generate(params: Mapping[str, Any], seed: int) -> Script:
        return _module(name).generate(params, seed)

    def check(params: Mapping[str, Any]) -> str | None:
        return _module(name).check(params)

    def caveats(params: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
        return _module(name).caveats(params, stats)

    return {"generate": generate, "check": check, "caveats": caveats}


def _extra_metrics(name: str) -> tuple:
    """What a dataset scores beyond ranked retrieval: updates wherever a probe names an
    old statement to outrank, answers where the data has gold answers, and the
    continual protocol's metrics on a JSONL file exported from it."""
    from memory_bench.metrics.answers import answer_metrics
    from memory_bench.metrics.continual import CONTINUAL_METRICS
    from memory_bench.metrics.retrieval import ABSTAIN, ASK
    from memory_bench.metrics.updates import abstention_metrics, conflict_metrics, update_metrics

    if name == "beam":
        return (*update_metrics((ASK,), per_category=False), *conflict_metrics(ASK),
                *answer_metrics(ASK), *abstention_metrics(ABSTAIN))
    if name == "locomo":
        return (*update_metrics((ASK,), section="other"), *answer_metrics(ASK))
    if name == "jsonl":
        own = {"recall1_before", "recall5_before", "recall1_after", "retention",
               "provenanceAccuracy", "provenanceUpdate", "provenanceSources"}
        return (*update_metrics((ASK, "update")),
                *(m for m in CONTINUAL_METRICS if m.name in own), *answer_metrics(ASK))
    return update_metrics((ASK,), section="other")


@hookimpl
def memory_bench_register_scenarios(registry: ScenarioRegistry) -> None:
    from memory_bench.metrics.retrieval import retrieval_metrics

    early = {"locomo": True, "longmemeval": False, "jsonl": True, "beam": False}
    final = {"locomo": "late"}
    for name, description in _DESCRIPTIONS.items():
        module = _module(name)
        registry.add(
            name, description=description, version=VERSION,
            parameters=module.PARAMETERS,
            metrics=(*retrieval_metrics(early=early[name], final=final.get(name, "")),
                     *_extra_metrics(name)),
            seed_count=getattr(module, "seed_count", lambda params: params["folds"]),
            **_bound(name),
        )
