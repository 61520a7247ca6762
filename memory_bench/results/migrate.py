"""Reading older result files: a 1.x document becomes a 2.0 one before it is typed.

1.x kept the scenario's parameters flat beside its name, records by phase
(``phase``, one ``expected`` id, ``old``; ``gate`` and ``reinforce`` lists), and
no metric declarations (the continual metrics were implied). The migration is
structural: every value is kept, and a field of the wrong shape is left as it
is, so that the typed reader reports its JSON path. Two facts about 1.x runs
are added, because a report of one must not read as text-only: every 1.x
generator wrote ``subject:``/``relation:`` tags and ids and sources that named
the phase (the scenario's ``exposure``), and the first-party backends that read
those tags did so (``reads``, from their options as run).

The migration is frozen: the metric declarations a 1.x file gets are the 1.x
protocol's, kept as data (``metrics_1x.json``), never today's, so changing a
metric cannot change how an old file reads. 1.x probes had no question key; a
probe's key is the id of the fact it asks for (``expected``), which is what
pairs one question across phases and backends.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from memory_bench.records.reader import ResultError

__all__ = ["SCHEMA_NAME", "migrate"]

SCHEMA_NAME = "memory-bench"
_SCENARIO_KEYS = ("name", "description", "generator", "seeds", "seed_base", "data_hashes",
                  "data_stats")
_EXPOSURE_1X = {
    "fields": ["text", "source", "timestamp", "region", "tags"], "structure": ["tags"],
    "tag_keys": ["relation", "subject"],
    "note": "memory-bench 1.x: every fact, noise item and update carried subject:/relation: "
            "tags, and ids and sources named the phase (bench-<run>-e1-0007, bench-<run>-e2)",
}
# (backend, option, values that read tags) of the first-party backends in 1.x
_READS_1X = (("rshl", "supersede", ("auto", "tags")), ("faiss-rag", "supersede", ("tags",)),
             ("faiss-rag-recency", "supersede", ("tags",)))


@lru_cache(maxsize=1)
def _frozen_1x() -> str:
    return (Path(__file__).parent / "metrics_1x.json").read_text(encoding="utf-8")


def _metrics_1x() -> list[dict[str, Any]]:
    """The 1.x protocol's metric declarations, as they were (a fresh copy each time)."""
    return json.loads(_frozen_1x())


def _version(data: dict[str, Any]) -> tuple[int, int]:
    schema = data.get("schema")
    if not isinstance(schema, str):
        raise ResultError("has no schema field: not a memory-bench result")
    name, _, version = schema.partition("/")
    major, _, minor = version.partition(".")
    if name != SCHEMA_NAME or not major.isdigit() or major not in ("1", "2"):
        raise ResultError(f"has schema {schema!r}; this reader takes {SCHEMA_NAME}/1.x and 2.x")
    return int(major), int(minor) if minor.isdigit() else 0


def _scenario(old: Any) -> Any:
    if not isinstance(old, dict):
        return old
    from memory_bench.scenarios.continual.caveats import continual_caveats

    new = {k: old[k] for k in _SCENARIO_KEYS if k in old}
    new["params"] = {k: v for k, v in old.items() if k not in _SCENARIO_KEYS}
    new["exposure"] = dict(_EXPOSURE_1X)
    generator = old.get("generator")
    stats = old.get("data_stats")
    if isinstance(generator, str) and isinstance(stats, dict):
        new["caveats"] = continual_caveats(generator)(new["params"], stats)
    return new


def _probe(p: Any) -> Any:
    if not isinstance(p, dict):
        return p
    p = dict(p)
    if "phase" in p:
        p["tag"] = p.pop("phase")
    if isinstance(p.get("expected"), str):
        p["expected"] = [p["expected"]]
    old = p.pop("old", None)
    p["outrank"] = [old] if isinstance(old, str) else ([] if old is None else old)
    expected = p.get("expected")
    if p.get("key") is None and isinstance(expected, list) and expected:
        p["key"] = expected[0]  # the fact asked for: the same question in every phase
    return p


def _records(rec: Any) -> Any:
    if not isinstance(rec, dict):
        return rec
    out: dict[str, Any] = {}
    probes = rec.get("probes", [])
    out["probes"] = [_probe(p) for p in probes] if isinstance(probes, list) else probes
    writes = rec.get("writes", [])
    out["writes"] = ([{("tag" if k == "phase" else k): v for k, v in w.items()}
                      if isinstance(w, dict) else w for w in writes]
                     if isinstance(writes, list) else writes)
    gate = rec.get("gate", [])
    out["items"] = ([{"id": g.get("id"), "tag": "gate", "category": g.get("kind"),
                      "accepted": g.get("accepted"), "reason": g.get("reason")}
                     if isinstance(g, dict) else g for g in gate]
                    if isinstance(gate, list) else gate)
    strengths: list[Any] = []
    reinforce = rec.get("reinforce", [])
    if not isinstance(reinforce, list):
        return {**out, "strengths": reinforce}
    for x in reinforce:
        if not isinstance(x, dict):
            strengths.append(x)
            continue
        for label in ("before", "after"):
            strengths.append({"id": x.get("id"), "tag": "reinforce", "label": label,
                              "value": x.get(label)})
    out["strengths"] = strengths
    consolidation = rec.get("consolidation")
    out["consolidations"] = [] if consolidation is None else [consolidation]
    return out


def _backend(b: Any) -> Any:
    if not isinstance(b, dict) or not isinstance(b.get("runs"), list):
        return b
    runs = []
    for r in b["runs"]:
        if isinstance(r, dict) and "records" in r:
            r = {**r, "records": _records(r["records"])}
        runs.append(r)
    options = b.get("options") if isinstance(b.get("options"), dict) else {}
    reads = ["tags"] if any(b.get("name") == name and options.get(opt) in values
                            for name, opt, values in _READS_1X) else []
    return {**b, "runs": runs, "reads": reads}


def migrate(data: Any) -> dict[str, Any]:
    """A 2.0 document from any 1.x or 2.x one (2.x is returned unchanged)."""
    if not isinstance(data, dict):
        raise ResultError("has no schema field: not a memory-bench result")
    major, _ = _version(data)
    if major == 2:
        return data
    out = dict(data)
    out["migrated_from"] = data["schema"]
    out["schema"] = "memory-bench/2.0"
    out["scenario"] = _scenario(data.get("scenario"))
    out["metrics"] = _metrics_1x()
    backends = data.get("backends")
    out["backends"] = [_backend(b) for b in backends] if isinstance(backends, list) else backends
    return out
