"""Figures derived from a result's own data, for files that did not compute them.

``e2e_ingest_items_per_s`` (issue 38): under encode once a backend's ingest rate is
its store's alone (each seed's texts were encoded before the pairs, in batches). End
to end, each stored text also costs the encoder's batched time: per seed,
``1 / (1 / store rate + 1 / encoder rate)``, with the rate of the encoder identity the
backend read (``execution.encoders``: texts per second over the run's stored texts);
a backend that reads no encoder keeps its store's rate. Derived from what the file
records, it is the same for a file written before it existed.
"""

from __future__ import annotations

from dataclasses import replace

from memory_bench.results.model import Result

__all__ = ["E2E_INGEST", "add_e2e_ingest"]

E2E_INGEST = "e2e_ingest_items_per_s"
_STORE = "ingest_items_per_s"


def _encoder_rates(result: Result) -> dict[str, float]:
    """backend label -> the batched texts/s of the encoder identity it read."""
    out: dict[str, float] = {}
    for e in (result.execution.get("encoders") or {}).values():
        rate = e.get("item_texts_per_s") if isinstance(e, dict) else None
        if isinstance(rate, int | float) and rate > 0:
            for label in e.get("read_by") or []:
                out[str(label)] = float(rate)
    return out


def add_e2e_ingest(result: Result) -> bool:
    """Declare and fill the end-to-end ingest rate (before the store's); False when the
    run did not encode once, has no ingest rate, or already has it."""
    names = [m.name for m in result.metrics]
    if (result.execution.get("encode") != "once" or _STORE not in names
            or E2E_INGEST in names):
        return False
    rates = _encoder_rates(result)
    store = result.metric(_STORE)
    spec = replace(store, name=E2E_INGEST, label="e2e ingest/s", reads=store.reads,
                   aggregate=None, caveat=None,
                   description="items written per second end to end: the store's rate with "
                               "the encoder's batched time per stored text added (encode "
                               "once; derived from ingest_items_per_s and the run's encoder "
                               "rates)")
    i = names.index(_STORE)
    result.metrics[i:i] = [spec]
    for b in result.backends:
        enc = rates.get(b.label)
        for r in b.runs:
            if not r.metrics:  # a failed pair has no metrics: none derived either
                continue
            x = r.metrics.get(_STORE)
            if x is None or x <= 0:
                r.metrics[E2E_INGEST] = None if x is None else x
                continue
            r.metrics[E2E_INGEST] = x if enc is None else 1.0 / (1.0 / x + 1.0 / enc)
    return True
