"""Executing a script against one backend: every call validated, timed and recorded.

This module talks to a backend only through the Backend protocol and skips a
step whose capability the backend does not declare, so it knows neither the
scenario nor the backend. It owns the backend it opens: :meth:`Execution.close`
removes this pair's items, checks none is left (METHOD.md §4) and closes it, on
failure too.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping
from typing import Any

from memory_bench.contract.answers import hit_problems, write_problems
from memory_bench.contract.backend import Backend, ContractError
from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Hit, Item
from memory_bench.harness.resources import rss_bytes
from memory_bench.harness.vectors import question_key
from memory_bench.records.records import (
    ForgetRecord,
    ItemRecord,
    ProbeRecord,
    Records,
    StrengthRecord,
    WriteRecord,
)
from memory_bench.results.model import Cleanup
from memory_bench.scenarios.answers import answer_ranks, count_tokens
from memory_bench.scenarios.script import (
    Consolidate,
    Forget,
    Probe,
    ReadStrength,
    Reset,
    Script,
    Step,
    Write,
    question_digest,
)

__all__ = ["Execution", "cleanup"]

# Opens a backend on an empty store; the argument counts the episodes (0, 1, ...).
Opener = Callable[[int], Backend]


def _a_count(value: Any, method: str) -> int:
    """``value`` if it is a count (a whole number, not negative): the result records it."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ContractError(f"{method} returned {value!r:.80}, not a count")
    return value


def cleanup(backend: Backend, prefix: str) -> Cleanup:
    """Remove this pair's items and check that none is left."""
    try:
        removed = _a_count(backend.remove(prefix), "remove")
        left = _a_count(backend.count(prefix), "count")
        return Cleanup(ok=left == 0, prefix=prefix, removed=removed, left=left)
    except Exception as exc:
        return Cleanup(ok=False, prefix=prefix, error=f"{type(exc).__name__}: {exc}")


def _reported_sources(hit: Hit) -> list[str]:
    """Every source a hit reports: a merged cell's list, else its one source, else none."""
    if hit.sources:
        return [str(s) for s in hit.sources]
    return [hit.source] if hit.source is not None else []


class Execution:
    """One script on one backend: ``run()``, then always ``close()``."""

    def __init__(self, script: Script, open_backend: Opener, capabilities: Collection[str],
                 *, on_tag: Callable[[str], None] | None = None, label: str = "backend",
                 encode_ms: Mapping[str, float] | None = None) -> None:
        self.script = script
        # question sha256 -> the encoder's ms for it (encode once; harness/vectors.py)
        self.encode_ms = encode_ms or {}
        self.label = label  # names the backend in a ContractError
        self.open_backend = open_backend
        self.caps = frozenset(capabilities)
        self.on_tag = on_tag
        self.records = Records()
        self.backend: Backend | None = None
        self.episode = 0
        self.cleanups: list[Cleanup] = []
        self.warnings: list[str] = []
        self.written: dict[str, Item] = {}
        self.n_written = 0  # items written in the pair, over every episode
        self._asking = False  # the last step run was a question (one ask step)

    # -- the loop -------------------------------------------------------------------

    def run(self) -> Records:
        self.backend = self.open_backend(0)
        tag = None
        for step in self.script.steps:
            if step.needs is not None and step.needs.value not in self.caps:
                continue
            if step.tag != tag and self.on_tag is not None:
                self.on_tag(step.tag)
            tag = step.tag
            if isinstance(step, Probe) and not self._asking:
                self.records.blocks.append([len(self.records.probes), 0, self.n_written])
            self._asking = isinstance(step, Probe)
            self._step(step)
        return self.records

    def _step(self, step: Step) -> None:
        if isinstance(step, Write):
            self._write(step)
        elif isinstance(step, Probe):
            self._probe(step)
        elif isinstance(step, ReadStrength):
            self._strength(step)
        elif isinstance(step, Forget):
            self._forget(step)
        elif isinstance(step, Consolidate):
            report = self._b.consolidate()
            self.records.consolidations.append(dict(report) if report else {})
        elif isinstance(step, Reset):
            self._release()
            self.episode += 1
            self.written = {}
            self.backend = self.open_backend(self.episode)
        else:  # pragma: no cover - the vocabulary is closed
            raise TypeError(f"unknown step {step!r}")

    @property
    def _b(self) -> Backend:
        assert self.backend is not None
        return self.backend

    # -- calls, validated and timed -------------------------------------------------

    def _write(self, step: Write) -> None:
        chunk = list(step.items)
        t0 = time.perf_counter()
        results = self._b.write(chunk)
        seconds = time.perf_counter() - t0
        self._check(write_problems(chunk, results))
        for item in chunk:
            self.written[item.id] = item
        self.n_written += len(chunk)
        accepted = sum(r.accepted for r in results)
        self.records.writes.append(WriteRecord(step.tag, len(chunk), accepted, seconds,
                                               rss_bytes()))
        for n, (cat, res) in enumerate(zip(step.categories, results, strict=False)):
            if cat or not step.tags:  # a mixed call keys only the items it categorises
                self.records.items.append(ItemRecord(res.id, step.item_tag(n), cat,
                                                     res.accepted, res.reason))

    def _probe(self, step: Probe) -> None:
        k = self.script.k
        t0 = time.perf_counter()
        hits = self._b.query(step.question, k)
        # to the microsecond: finer digits are timer noise, and 10 backends x 3,000 LoCoMo
        # asks of them made a published result a tenth larger
        latency_ms = round((time.perf_counter() - t0) * 1000.0, 3)
        self._check(list(hit_problems(hits, k, self._was_written).values()))
        top = hits[0] if hits else None
        written = self.written.get(top.id) if top else None
        expected = [self.written.get(i) for i in step.expected]
        tokens, ranks, phrases = self._answer(step, hits)
        self.records.probes.append(ProbeRecord(
            tag=step.tag, expected=list(step.expected),
            question=question_digest(step.question) if self.script.redact_questions
            else step.question,
            returned=[h.id for h in hits], scores=[round(float(h.score), 6) for h in hits],
            latency_ms=latency_ms, category=step.category, outrank=list(step.outrank),
            key=step.key,
            top_source=top.source if top else None,
            top_timestamp=top.timestamp.isoformat() if top and top.timestamp else None,
            written_source=written.source if written else None,
            written_timestamp=written.timestamp.isoformat() if written else None,
            hit_sources=[_reported_sources(h) for h in hits],
            expected_sources=[e.source if e else None for e in expected],
            expected_timestamps=[e.timestamp.isoformat() if e else None for e in expected],
            hit_tokens=tokens, answer_ranks=ranks, answer_phrases=phrases,
            forgotten=list(step.forgotten),
            encode_ms=self._encode_ms(step.question),
        ))
        self.records.blocks[-1][1] += 1

    def _forget(self, step: Forget) -> None:
        t0 = time.perf_counter()
        removed = self._b.forget(list(step.ids), step.source, self.script.prefix)
        latency_ms = round((time.perf_counter() - t0) * 1000.0, 3)
        if not isinstance(removed, int) or isinstance(removed, bool) or removed < 0:
            self._check([f"forget returned {removed!r}, not a count"])
        self.records.forgets.append(ForgetRecord(step.tag, list(step.ids), step.source,
                                                 list(step.forgotten), removed, latency_ms))

    def _encode_ms(self, question: str) -> float | None:
        if not self.encode_ms:
            return None
        return self.encode_ms.get(question_key(question))

    def _answer(self, step: Probe, hits: list[Hit]) -> tuple[list[int], list[int], int]:
        """What the returned texts cost and where they contain the gold answer, for a
        probe that carries an answer key (the texts as written: no text is recorded)."""
        if step.answers is None:
            return [], [], 0
        texts = [item.text if (item := self.written.get(h.id)) else "" for h in hits]
        ranks, phrases = answer_ranks(step.answers, texts) if step.answers else ([], 0)
        return [count_tokens(t) for t in texts], ranks, phrases

    def _was_written(self, item_id: str) -> bool:
        """Given to this episode's store. A ``persistent`` store may be a user's live
        store holding their own items, so there only ids in this pair's namespace are
        checked; the user's items count as misses, as any wrong hit does."""
        if item_id in self.written:
            return True
        live = Capability.PERSISTENT.value in self.caps
        return live and not item_id.startswith(self.script.prefix)

    def _check(self, problems: list[str]) -> None:
        """A broken answer fails the pair, naming the backend and every broken promise."""
        if problems:
            raise ContractError(f"backend {self.label}: {'; '.join(problems)}")

    def _strength(self, step: ReadStrength) -> None:
        values = self._b.strength(list(step.ids))
        if not isinstance(values, list) or len(values) != len(step.ids):
            self._check([f"strength of {len(step.ids)} id(s) returned {values!r}"])
        for item_id, value in zip(step.ids, values, strict=True):
            self.records.strengths.append(StrengthRecord(
                item_id, step.tag, step.label, None if value is None else float(value)))

    # -- the end ----------------------------------------------------------------------

    def _release(self) -> None:
        """Clean up and close the current backend (once)."""
        backend, self.backend = self.backend, None
        if backend is None:
            return
        self.cleanups.append(cleanup(backend, self.script.prefix))
        try:
            backend.close()
        except Exception as exc:  # a failing close is reported, not fatal
            self.warnings.append(f"close: {type(exc).__name__}: {exc}")

    def close(self) -> Cleanup | None:
        """Release the backend; the pair's cleanup over every episode, or None if no
        backend was ever opened."""
        self._release()
        if not self.cleanups:
            return None
        if len(self.cleanups) == 1:
            return self.cleanups[0]
        bad = [c for c in self.cleanups if not c.ok]
        return Cleanup(
            ok=not bad, prefix=self.script.prefix,
            removed=sum(c.removed or 0 for c in self.cleanups),
            left=sum(c.left or 0 for c in self.cleanups),
            error=next((c.error for c in bad if c.error), None),
            by=f"harness, after each of {len(self.cleanups)} episodes",
        )
