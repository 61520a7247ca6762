"""Encode once per run: each seed's distinct texts, once per embedder identity.

Embedding backends of one identity (model, runtime, quantisation) would each
encode the same items and questions; encoding is most of what they cost. So
before the pairs run, the harness asks each configured backend which identity it
reads vectors with (``registry.add(vectors=...)``), and builds one read-only
table per identity and seed from the script (the items' texts and the
questions), in the run's temporary root, in a child process (inference before a
fork is unsafe). Every pair of that seed gets the tables' directories
(``BackendContext.vectors``) and memory-maps the one of its identity.

A backend that keeps its own encoder declares no source; its row says so. A
text a backend asks for that is not in its table is a miss: the backend's
embedder counts it (the pair's ``encoding`` report) and encodes it itself. A
source may name texts its backend derives from the items (``extra_texts``:
graphiti's entity names); the table of its identity holds those too.

The build also times each question's encode at batch 1, once per identity: a
pair's query latency is then the store's own, and the encoder's time per
question is recorded beside it (``ProbeRecord.encode_ms``), so end-to-end is
their sum, labelled.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory_bench.contract.items import Item
from memory_bench.plugins.selection import BackendSelection
from memory_bench.scenarios.script import Probe, Script, Write

__all__ = ["ENCODE_MODES", "Tables", "VectorPlan", "build_tables", "plan_vectors",
           "question_key", "script_texts"]

ENCODE_MODES = ("once", "per-backend")

Call = Callable[[Callable[[], Any]], dict[str, Any]]  # Executor.call with its timeout bound


def question_key(text: str) -> str:
    """How a question's encode time is keyed: the sha256 of its text, in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class VectorPlan:
    """The identities a run's backends read, one source each, and who reads which."""

    sources: dict[str, Any] = field(default_factory=dict)  # identity -> VectorSource
    readers: dict[str, str] = field(default_factory=dict)  # backend label -> identity
    errors: dict[str, str] = field(default_factory=dict)  # label -> why it has no table
    # identity -> its readers' sources that name texts of their own (``extra_texts``)
    extras: dict[str, list[Any]] = field(default_factory=dict)


def plan_vectors(selections: Sequence[BackendSelection]) -> VectorPlan:
    """Ask each configured backend for its identity (a light call: no inference)."""
    out = VectorPlan()
    for sel in selections:
        declare = sel.info.vectors
        if declare is None:
            continue
        try:
            source = declare(dict(sel.options))
        except Exception as exc:  # its pairs will encode themselves, or fail and say why
            out.errors[sel.label] = f"{type(exc).__name__}: {exc}"
            continue
        if source is None:
            continue
        out.sources.setdefault(source.identity, source)
        out.readers[sel.label] = source.identity
        if callable(getattr(source, "extra_texts", None)):
            out.extras.setdefault(source.identity, []).append(source)
    return out


def script_texts(script: Script) -> tuple[list[str], list[str]]:
    """The distinct texts a seed writes and the distinct questions it asks, in order."""
    texts: dict[str, None] = {}
    questions: dict[str, None] = {}
    for step in script.steps:
        if isinstance(step, Write):
            texts.update(dict.fromkeys(item.text for item in step.items))
        elif isinstance(step, Probe):
            questions[step.question] = None
    return list(texts), list(questions)


@dataclass
class Tables:
    """What was built: per seed, identity -> table directory and question -> encode ms;
    per identity, what the result records about its encoder."""

    dirs: dict[int, dict[str, str]] = field(default_factory=dict)
    encode_ms: dict[int, dict[str, dict[str, float]]] = field(default_factory=dict)
    encoders: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # identity -> why no table

    def for_pair(self, seed: int, identity: str | None) -> tuple[dict[str, str],
                                                                  dict[str, float]]:
        """The pair's table directories and, for its identity, question -> encode ms."""
        dirs = dict(self.dirs.get(seed, {}))
        ms = self.encode_ms.get(seed, {}).get(identity, {}) if identity else {}
        return dirs, dict(ms)


def _written(script: Script) -> list[Item]:
    return [item for step in script.steps if isinstance(step, Write) for item in step.items]


def _build_all(source: Any, extras: Sequence[Any], scripts: Mapping[int, Script],
               jobs: list[tuple[int, list[str], list[str], Path]],
               cache_dir: Path | None) -> dict[int, dict[str, Any]]:
    """In the child: every seed's table of one identity (one session, warm), with the
    texts its readers name beyond the items' own (derived here: inference is unsafe
    before a fork)."""
    out = {}
    for seed, texts, questions, dest in jobs:
        more = [t for x in extras for t in x.extra_texts(_written(scripts[seed]))]
        out[seed] = source.build(list(dict.fromkeys([*texts, *more])), questions, dest,
                                 cache_dir)
    return out


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    import numpy as np

    return round(float(np.percentile(values, q)), 3)


def _in_parts(call: Call, parts: int, fns: list[Callable[[], Any]]) -> list[dict[str, Any]]:
    """Each child call's outcome, ``parts`` children at once (threads only wait)."""
    if parts <= 1 or len(fns) <= 1:
        return [call(fn) for fn in fns]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=parts) as pool:
        return list(pool.map(call, fns))


def build_tables(plan: VectorPlan, scripts: Mapping[int, Script], root: Path,
                 cache_dir: Path | None, call: Call, parts: int = 1) -> Tables:
    """One table per identity and seed under ``root/vectors/``; an identity whose
    build fails gets none (its backends then encode every text themselves, counted
    as misses) and the error is recorded.

    ``parts`` children build an identity's seeds at once, each a share of the seeds
    (the run's workers: the cores would otherwise wait for the pairs). A table is the
    same whichever child builds it (one model, one thread each); only the encode
    times then run beside each other, as the pairs do."""
    out = Tables()
    texts = {seed: script_texts(s) for seed, s in scripts.items()}
    for identity, source in plan.sources.items():
        where = root / "vectors" / hashlib.sha256(identity.encode()).hexdigest()[:16]
        jobs = [(seed, t, q, where / f"seed-{seed}") for seed, (t, q) in texts.items()]
        extras = plan.extras.get(identity, [])
        shares = [jobs[i::max(1, parts)] for i in range(max(1, parts))]
        outcomes = _in_parts(call, parts, [
            lambda source=source, extras=extras, share=share: _build_all(
                source, extras, scripts, share, cache_dir) for share in shares if share])
        failed = [o for o in outcomes if o["status"] != "ok"]
        if failed:
            out.errors[identity] = str(failed[0].get("error"))
            continue
        per_seed: dict[int, dict[str, Any]] = {
            seed: meta for o in outcomes for seed, meta in o["value"].items()}
        per_seed = dict(sorted(per_seed.items()))
        query_ms: list[float] = []
        item_s = 0.0
        items = 0
        for seed, meta in per_seed.items():
            out.dirs.setdefault(seed, {})[identity] = str(where / f"seed-{seed}")
            _, questions = texts[seed]
            ms = list(meta.get("query_encode_ms") or [])
            out.encode_ms.setdefault(seed, {})[identity] = {
                question_key(q): m for q, m in zip(list(dict.fromkeys(questions)), ms,
                                                   strict=False)}
            query_ms += ms
            item_s += float(meta.get("item_encode_s") or 0.0)
            items += int(meta.get("items") or 0)
        readers = sorted(label for label, i in plan.readers.items() if i == identity)
        out.encoders[identity] = {
            "label": getattr(source, "label", identity), "read_by": readers,
            "seeds": sorted(per_seed), "items": items, "questions": len(query_ms),
            "item_encode_s": round(item_s, 3),
            "item_texts_per_s": round(items / item_s, 3) if item_s > 0 else None,
            "query_encode_p50_ms": _percentile(query_ms, 50),
            "query_encode_p95_ms": _percentile(query_ms, 95),
            "batch_size": next((m.get("batch_size") for m in per_seed.values()), None),
        }
    return out
