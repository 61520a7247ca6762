"""What the dataset generators share: reading a user's file, counting its quirks, folds,
and building a script of episodes.

A data file is read once per process (keyed by its path, size and modification
time) and its sha256 recorded, so that every seed of a run, and ``check`` before
it, parse it once. A file that is not the format is a :class:`DatasetError`
(one line, exit status 2 before any pair runs); a recoverable oddity inside a
well-formed file is a quirk, counted and reported in ``data_stats``.

**Seeds are folds.** A dataset is fixed: two seeds over the same file would
draw the same data, and treating them as independent would make every interval
too narrow. So a dataset generator splits its file into ``folds`` disjoint
folds of independent units (conversations, questions, episodes) and seed i
runs fold i; intervals and paired verdicts are then over folds.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from memory_bench.contract.items import Item
from memory_bench.contract.options import Option
from memory_bench.errors import BadInput
from memory_bench.metrics.retrieval import ASK, TOP_K, WRITE
from memory_bench.records import strictjson
from memory_bench.scenarios.generators.overlap import DEFINITION, overlap_stats
from memory_bench.scenarios.script import (
    UNBOUND_PREFIX,
    Probe,
    Reset,
    Script,
    Step,
    Write,
    canonical_hash,
)

__all__ = [
    "DataFile",
    "DatasetError",
    "Quirks",
    "ScriptBuilder",
    "check_folds",
    "fold_of",
    "fold_stats",
    "fold_units",
    "json_array",
    "keep_questions_option",
    "later",
    "mean_baseline",
    "overlap_caveat",
    "quirk_list",
    "read_data_file",
    "require_path",
    "turn_time",
]

T = TypeVar("T")
_EXAMPLES = 5  # examples kept per kind of quirk, so a reader can check them


class DatasetError(BadInput):
    """A data file that cannot be used: missing, unreadable, or not the format."""


@dataclass(frozen=True)
class DataFile:
    """A file's bytes as read: its name (never its absolute path), size and sha256."""

    name: str
    size: int
    sha256: str
    text: str = field(repr=False)

    def stats(self) -> dict[str, Any]:
        return {"name": self.name, "bytes": self.size, "sha256": self.sha256}

    def json(self, what: str) -> Any:
        try:
            return strictjson.loads(self.text)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{self.name} is not JSON ({exc.msg} at line {exc.lineno}, "
                               f"column {exc.colno}): not a {what} file") from None
        except strictjson.StrictJSONError as exc:
            raise DatasetError(f"{self.name}: {exc}: not a {what} file") from None


def require_path(params: Mapping[str, Any], what: str, where: str) -> Path:
    """The ``path`` parameter, or a one-line error saying where the file is published."""
    raw = params.get("path")
    if not raw:
        raise DatasetError(f"no data file: give --set path=FILE ({what}; {where})")
    return Path(str(raw)).expanduser()


def read_data_file(path: Path) -> DataFile:
    """The file at ``path``, read once per process while it is unchanged."""
    try:
        st = path.stat()
    except FileNotFoundError:
        raise DatasetError(f"data file {path} does not exist") from None
    except OSError as exc:
        raise DatasetError(f"data file {path} cannot be read: {exc.strerror}") from None
    if not path.is_file():
        raise DatasetError(f"data file {path} is not a file")
    return _read(str(path.resolve()), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=4)
def _read(resolved: str, size: int, mtime_ns: int) -> DataFile:
    path = Path(resolved)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"data file {path.name} cannot be read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path.name} is not UTF-8 text (byte {exc.start})") from None
    return DataFile(name=path.name, size=len(data), sha256=hashlib.sha256(data).hexdigest(),
                    text=text)


class Quirks:
    """Counts of what a file does that its format does not promise, with examples."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.examples: dict[str, list[str]] = {}

    def add(self, kind: str, example: str | None = None, n: int = 1) -> None:
        self.counts[kind] += n
        if example is not None:
            kept = self.examples.setdefault(kind, [])
            if len(kept) < _EXAMPLES:
                kept.append(example)

    def to_dict(self) -> dict[str, Any]:
        return {"counts": dict(sorted(self.counts.items())),
                "examples": {k: v for k, v in sorted(self.examples.items())}}


def fold_units(units: Sequence[T], folds: int, fold: int,
               stratum: Callable[[T], str] | None = None) -> list[T]:
    """Fold ``fold`` of ``folds``: units dealt round-robin in order, stratum by stratum
    (so that every fold holds about the same mix of, e.g., question types)."""
    if stratum is None:
        return [u for i, u in enumerate(units) if i % folds == fold]
    by: dict[str, list[T]] = {}
    for u in units:
        by.setdefault(stratum(u), []).append(u)
    dealt = [u for key in sorted(by) for u in by[key]]
    chosen = {id(u) for i, u in enumerate(dealt) if i % folds == fold}
    return [u for u in units if id(u) in chosen]  # in the file's order


def fold_of(seed: int, folds: int) -> int:
    """The fold a seed runs; a seed beyond them is an error (the harness refuses it first)."""
    if not 0 <= seed < folds:
        raise ValueError(f"seed {seed} is not a fold: this scenario has folds 0-{folds - 1}")
    return seed


def json_array(data_file: DataFile, what: str, of: str, key: str,
               hints: Mapping[str, str] | None = None) -> list[Mapping[str, Any]]:
    """The file as a non-empty JSON array of objects each holding ``key``; else one line
    saying why it is not a ``what`` file (and, when an element holds a key of ``hints``,
    which scenario it looks like)."""
    doc = data_file.json(what)
    if not isinstance(doc, list) or not doc:
        raise DatasetError(f"{data_file.name} is not a {what} file: expected a non-empty JSON "
                           f"array of {of}, got {type(doc).__name__}")
    for i, entry in enumerate(doc):
        if not isinstance(entry, Mapping) or key not in entry:
            keys = ", ".join(sorted(entry)[:6]) if isinstance(entry, Mapping) else ""
            hint = next((f" ({h})" for k, h in (hints or {}).items()
                         if isinstance(entry, Mapping) and k in entry), "")
            raise DatasetError(f"{data_file.name} is not a {what} file: element {i} has no "
                               f"{key!r} (keys: {keys or 'none'}){hint}")
    return doc


def fold_stats(stats: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The per-seed data statistics a dataset generator wrote (what its caveats read)."""
    return [s for s in stats.values() if isinstance(s, Mapping) and "file" in s]


def quirk_list(seed_stats: Mapping[str, Any]) -> str:
    """A fold's counted quirks as ``3 empty turns, 1 duplicate ids`` (empty for none)."""
    counts = (seed_stats.get("quirks") or {}).get("counts") or {}
    return ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items())


def mean_baseline(seeds: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The recency rule's recall per tag and k, averaged over folds."""
    keys = {k for s in seeds for k in (s.get("recency_baseline") or {})}
    return {k: sum((s.get("recency_baseline") or {}).get(k, 0.0) for s in seeds) / len(seeds)
            for k in sorted(keys)}


def overlap_caveat(seeds: Sequence[Mapping[str, Any]], what: str) -> str | None:
    """The question/evidence word overlap of the final asks, over folds, as a sentence."""
    found = [((s.get("question_overlap") or {}).get(ASK) or {}) for s in seeds]
    found = [o for o in found if o.get("n")]
    if not found:
        return None
    n = sum(o["n"] for o in found)
    share = sum(o["share"]["mean"] * o["n"] for o in found) / n
    zero = sum(o["zero_overlap_share"] * o["n"] for o in found) / n
    return (f"Word overlap: a question shares on average {share:.0%} of its content words "
            f"with the {what} that answer it, and {zero:.1%} of questions share none "
            f"(over {n:,} questions). Word matchers gain where the overlap is high; "
            "compare them with that in mind.")


def keep_questions_option(default: bool, why: str) -> Option:
    return Option("keep_questions", bool, default, "keep each question's text in the result's "
                  f"records (else a digest of it): {why}")


def check_folds(folds: int, units: int, what: str, name: str) -> str | None:
    if folds > units:
        return (f"folds {folds} is more than the {units} {what} in {name}: every fold (seed) "
                "needs at least one")
    return None


class ScriptBuilder:
    """Items and asks in order, cut into write calls; one store per episode.

    Item ids are opaque (a counter under the unbound prefix): nothing in an id
    says which question an item answers. ``last_k`` tracks what a rule returning
    the most recently written items would return, so the data can state what
    that trivial rule scores.
    """

    def __init__(self, write_batch: int) -> None:
        self.batch = write_batch
        self.steps: list[Step] = []
        self.pending: list[Item] = []
        self.pending_categories: list[str] | None = None
        self.n = 0
        self.episode_items: list[str] = []
        self.texts: dict[str, str] = {}  # this episode's items, for the overlap statistics
        self.recency: dict[str, list[bool]] = {}
        self.asked: dict[str, tuple[list[str], list[str]]] = {}

    def item(self, text: str, source: str, timestamp: datetime, tags: Sequence[str] = (),
             category: str | None = None, region: str = "benchmark") -> str:
        """Queue one item; its id. ``category`` (the answer key of per-item metrics)
        is kept with the harness; items with and without one are not batched together."""
        has = category is not None
        if self.pending and (self.pending_categories is not None) != has:
            self.flush()
        item_id = f"{UNBOUND_PREFIX}{self.n:06d}"
        self.n += 1
        self.pending.append(Item(id=item_id, text=text, source=source, timestamp=timestamp,
                                 region=region, tags=tuple(tags)))
        if has:
            self.pending_categories = [*(self.pending_categories or []), str(category)]
        self.episode_items.append(item_id)
        self.texts[item_id] = text
        if len(self.pending) >= self.batch:
            self.flush()
        return item_id

    def flush(self) -> None:
        if self.pending:
            self.steps.append(Write(tuple(self.pending), WRITE,
                                    tuple(self.pending_categories or ())))
        self.pending, self.pending_categories = [], None

    def step(self, step: Step) -> None:
        self.flush()
        self.steps.append(step)

    def ask(self, question: str, expected: Sequence[str], tag: str, category: str | None,
            key: str, outrank: Sequence[str] = (),
            answers: Sequence[str] | None = None) -> None:
        self.flush()
        recent = set(self.episode_items[-5:]), set(self.episode_items[-TOP_K:])
        if expected:
            for k, window in zip((5, TOP_K), recent, strict=True):
                self.recency.setdefault(f"{tag}@{k}", []).append(bool(window & set(expected)))
            questions, texts = self.asked.setdefault(tag, ([], []))
            questions.append(question)
            texts.append("\n".join(self.texts[i] for i in expected))
        self.steps.append(Probe(question, tuple(expected), tag, category=category,
                                outrank=tuple(outrank), key=key,
                                answers=None if answers is None else tuple(answers)))

    def reset(self) -> None:
        """A new empty store for the next episode (nothing to reset before the first)."""
        self.flush()
        if self.steps and not isinstance(self.steps[-1], Reset):
            self.steps.append(Reset())
        self.episode_items, self.texts = [], {}

    def recency_baseline(self) -> dict[str, float]:
        """recall_any@k per tag of a rule that returns the k items written last."""
        return {key: round(sum(v) / len(v), 4) for key, v in sorted(self.recency.items()) if v}

    def question_overlap(self) -> dict[str, Any]:
        """How much of each question is in the items that answer it, per tag: how much a
        word matcher has to go on (the definitions of ``generators/overlap.py``)."""
        return {"definition": DEFINITION,
                **{tag: overlap_stats(q, t) for tag, (q, t) in sorted(self.asked.items())}}

    def script(self, seed: int, stats: dict[str, Any], file_sha256: str, *,
               keep_questions: bool = True, k: int | None = None) -> Script:
        """The script; its data hash covers what it writes and asks *and* the file's bytes.
        The statistics gain the recency rule's scores and the question overlap; without
        ``keep_questions`` the records keep a digest of each question, not its text."""
        stats = {**stats, "recency_baseline": self.recency_baseline(),
                 "question_overlap": self.question_overlap()}
        self.flush()
        while self.steps and isinstance(self.steps[-1], Reset):
            self.steps.pop()
        k = k or TOP_K
        script = Script(tuple(self.steps), k=k, seed=seed, stats=stats)
        digest = canonical_hash({"script": script.data_hash, "file_sha256": file_sha256})
        return Script(script.steps, k=k, seed=seed, data_hash=digest, stats=stats,
                      redact_questions=not keep_questions)


def turn_time(base: datetime, index: int) -> datetime:
    """The i-th turn of a session dated ``base``: one second apart, so order is kept."""
    return later(base, timedelta(seconds=index), f"a session dated {base:%Y-%m-%d}")


def later(when: datetime, step: timedelta, where: str) -> datetime:
    """``when + step``; past the last date Python holds (the year 9999) it is bad input
    naming ``where``, not an OverflowError."""
    try:
        return when + step
    except OverflowError:
        raise DatasetError(f"{where}: its dates run past the year 9999 (a date near the end "
                           "of the calendar, with messages after it)") from None
