"""A scenario's output: a script of steps from a small fixed vocabulary.

A scenario generator turns (parameters, seed) into a :class:`Script`; the
runner executes it through the Backend protocol and records what happened. The
runner knows neither the scenario nor the backend, and the answer key (which
item is a fact, an update or noise; which items should be refused) stays in
the script, never reaching the backend: a :class:`Write` sends only the items,
its ``categories`` stay with the harness.

The vocabulary:

- :class:`Write`: one ``write`` call with these items;
- :class:`Probe`: one ``query``, with the ids that answer it, the ids it should
  outrank, a tag (``probe``, ``reprobe``, ``update``, ...) and a category;
- :class:`ReadStrength`: read the strength of ids (before/after reinforcement);
- :class:`Forget`: one ``forget`` call, by item ids and/or by source, with the ids it
  forgets (the answer key: which items must never come back);
- :class:`Consolidate`: the backend's sleep;
- :class:`Reset`: close the store and start again on an empty one (a dataset
  with one store per conversation runs several episodes in one pair).

A step may name the capability it needs; the runner skips it for a backend that
does not declare it (no strength to read, no sleep to run).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Any

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Item

__all__ = [
    "UNBOUND_PREFIX",
    "Consolidate",
    "Forget",
    "Probe",
    "ReadStrength",
    "Reset",
    "Script",
    "ScriptError",
    "Step",
    "Write",
    "canonical_hash",
    "merge_exposure",
    "question_digest",
]

# Generators write ids (and, where they carry it, sources) under this prefix; the
# runner binds it to ``bench-<run>-s<seed>-``. The data hash is taken before
# binding, so it depends on the scenario's parameters and the seed only.
UNBOUND_PREFIX = "bench-RUN-"


class ScriptError(ValueError):
    """A script the runner cannot execute (an id outside the prefix, an unknown id)."""


@dataclass(frozen=True, slots=True)
class Write:
    """Write ``items`` in one call. ``categories`` (one per item, or empty) is the
    answer key for per-item metrics, e.g. the gate's kinds; never sent. ``tags`` (one
    per item, or empty): each item's role where one call mixes kinds (the blind stream),
    ``tag`` then naming the call only."""

    items: tuple[Item, ...]
    tag: str
    categories: tuple[str, ...] = ()
    needs: Capability | None = None
    tags: tuple[str, ...] = ()

    def item_tag(self, n: int) -> str:
        """The role of the ``n``-th item."""
        return self.tags[n] if self.tags else self.tag


@dataclass(frozen=True, slots=True)
class Probe:
    """Ask ``question``; ``expected`` ids answer it, ``outrank`` ids it should beat.

    ``key`` identifies the question within its seed, so that the same question
    can be paired across backends (and across the two asks of one question).
    ``answers``: the gold answer's phrases, part of the answer key (never sent): the
    harness records where the returned texts contain them and what those texts cost
    (``scenarios/answers.py``); ``()`` records the cost only, None neither.
    """

    question: str
    expected: tuple[str, ...]
    tag: str
    category: str | None = None
    outrank: tuple[str, ...] = ()
    key: str | None = None
    needs: Capability | None = None
    answers: tuple[str, ...] | None = None
    # Ids forgotten before this question: none of them may come back (forgottenReturned).
    forgotten: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Forget:
    """Ask the backend to forget ``ids`` and, when ``source`` is set, every item of that
    source. ``forgotten`` is every id this forgets (the source's items resolved by the
    generator): the answer key of the later questions, never sent."""

    ids: tuple[str, ...] = ()
    source: str | None = None
    forgotten: tuple[str, ...] = ()
    tag: str = "forget"
    needs: Capability | None = Capability.FORGET


@dataclass(frozen=True, slots=True)
class ReadStrength:
    """Read the strength of ``ids``; ``label`` tells readings apart (before/after)."""

    ids: tuple[str, ...]
    tag: str
    label: str
    needs: Capability | None = Capability.STRENGTH


@dataclass(frozen=True, slots=True)
class Consolidate:
    tag: str = "consolidate"
    needs: Capability | None = Capability.CONSOLIDATE


@dataclass(frozen=True, slots=True)
class Reset:
    """Remove this pair's items, close the backend, and open a new one on an empty store."""

    tag: str = "reset"
    needs: Capability | None = None


Step = Write | Probe | ReadStrength | Consolidate | Reset | Forget


def canonical_hash(doc: Any) -> str:
    """``sha256:`` of the canonical JSON of ``doc`` (sorted keys, no spaces)."""
    blob = json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()


def question_digest(question: str) -> str:
    """What a record keeps of a question it may not republish: enough to match it
    against one's own copy of the data, not the text."""
    return "sha256:" + hashlib.sha256(question.encode("utf-8")).hexdigest()[:16]


def merge_exposure(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Two seeds' exposure as one: lists united, counts added, examples of the first."""
    if not a:
        return dict(b)
    out = dict(a)
    for key in ("fields", "structure", "tag_keys", "regions"):
        out[key] = list(dict.fromkeys([*a.get(key, []), *b.get(key, [])]))
    for key in ("items", "tagged_items"):
        out[key] = a.get(key, 0) + b.get(key, 0)
    return out


def _step_dict(step: Step) -> dict[str, Any]:
    kind = type(step).__name__.lower()
    d: dict[str, Any] = {"step": kind, "tag": step.tag}
    if isinstance(step, Write):
        d["items"] = [i.to_dict() for i in step.items]
        d["categories"] = list(step.categories)
        if step.tags:  # absent otherwise: earlier scripts keep their hash
            d["tags"] = list(step.tags)
    elif isinstance(step, Probe):
        d.update(question=step.question, expected=list(step.expected), category=step.category,
                 outrank=list(step.outrank))
        if step.answers is not None:  # absent otherwise: earlier scripts keep their hash
            d["answers"] = list(step.answers)
        if step.forgotten:
            d["forgotten"] = list(step.forgotten)
    elif isinstance(step, Forget):
        d.update(ids=list(step.ids), source=step.source, forgotten=list(step.forgotten))
    elif isinstance(step, ReadStrength):
        d.update(ids=list(step.ids), label=step.label)
    if step.needs is not None:
        d["needs"] = step.needs.value
    return d


@dataclass(frozen=True)
class Script:
    """Everything one (scenario, seed) writes and asks, in order.

    ``data_hash`` is what the result records for the seed; a generator that
    leaves it empty gets the hash of the script's canonical JSON. ``stats`` are
    facts about the data a reader should know (the result's ``data_stats``).
    ``redact_questions``: the questions come from a data file whose licence does not
    let a result republish them; the records keep a digest of each, not its text.
    """

    steps: tuple[Step, ...]
    k: int
    seed: int
    data_hash: str = ""
    stats: dict[str, Any] = field(default_factory=dict, compare=False)
    prefix: str = UNBOUND_PREFIX
    redact_questions: bool = False

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ScriptError(f"script k must be at least 1, got {self.k}")
        if not self.data_hash:
            object.__setattr__(self, "data_hash", canonical_hash(self.to_dict()))

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "seed": self.seed, "steps": [_step_dict(s) for s in self.steps]}

    def items(self) -> list[Item]:
        return [i for s in self.steps if isinstance(s, Write) for i in s.items]

    def probes(self) -> list[Probe]:
        return [s for s in self.steps if isinstance(s, Probe)]

    def exposure(self) -> dict[str, Any]:
        """What the backends of this script are given, from the items themselves:
        the item fields, the structure beyond text, source and timestamp (``tags``
        when any item has one; ``region`` when items differ in it), how many items
        carry tags and which tag keys, and a few ids and sources as they look."""
        items = self.items()
        tagged = [i for i in items if i.tags]
        regions = sorted({i.region for i in items})
        structure = (["tags"] if tagged else []) + (["region"] if len(regions) > 1 else [])
        return {
            "fields": ["text", "source", "timestamp", "region", *(["tags"] if tagged else [])],
            "structure": structure,
            "items": len(items),
            "tagged_items": len(tagged),
            "tag_keys": sorted({t.partition(":")[0] for i in tagged for t in i.tags}),
            "regions": regions,
            "id_examples": [i.id for i in items[:3]],
            "source_examples": sorted({i.source for i in items})[:5],
        }

    def check(self) -> None:
        """Every item id under the prefix and unique; every referenced id written
        before it is referenced (within its episode); categories one per item."""
        seen: set[str] = set()
        for n, step in enumerate(self.steps):
            if isinstance(step, Write):
                if step.categories and len(step.categories) != len(step.items):
                    raise ScriptError(f"step {n}: {len(step.categories)} categories for "
                                      f"{len(step.items)} items")
                if step.tags and len(step.tags) != len(step.items):
                    raise ScriptError(f"step {n}: {len(step.tags)} tags for "
                                      f"{len(step.items)} items")
                for item in step.items:
                    if not item.id.startswith(self.prefix):
                        raise ScriptError(f"step {n}: item id {item.id!r} does not start with "
                                          f"{self.prefix!r}")
                    if item.id in seen:
                        raise ScriptError(f"step {n}: item id {item.id!r} is written twice")
                    seen.add(item.id)
            elif isinstance(step, Probe | ReadStrength | Forget):
                ids = ((*step.expected, *step.outrank, *step.forgotten)
                       if isinstance(step, Probe) else
                       (*step.ids, *step.forgotten) if isinstance(step, Forget) else step.ids)
                unknown = [i for i in ids if i not in seen]
                if unknown:
                    raise ScriptError(f"step {n}: {unknown[0]!r} is referenced before it is "
                                      "written")
            elif isinstance(step, Reset):
                seen = set()

    def bind(self, prefix: str) -> Script:
        """The same script with ``prefix`` in place of the unbound one, in every id and
        in every source that carries it; the data hash is kept."""
        old = self.prefix

        def b(value: str) -> str:
            return prefix + value[len(old):] if value.startswith(old) else value

        def item(i: Item) -> Item:
            return replace(i, id=b(i.id), source=b(i.source))

        steps: list[Step] = []
        for s in self.steps:
            if isinstance(s, Write):
                steps.append(replace(s, items=tuple(item(i) for i in s.items)))
            elif isinstance(s, Probe):
                steps.append(replace(s, expected=tuple(map(b, s.expected)),
                                     outrank=tuple(map(b, s.outrank)),
                                     forgotten=tuple(map(b, s.forgotten))))
            elif isinstance(s, Forget):
                steps.append(replace(s, ids=tuple(map(b, s.ids)),
                                     source=None if s.source is None else b(s.source),
                                     forgotten=tuple(map(b, s.forgotten))))
            elif isinstance(s, ReadStrength):
                steps.append(replace(s, ids=tuple(map(b, s.ids))))
            else:
                steps.append(s)
        return replace(self, steps=tuple(steps), prefix=prefix)
