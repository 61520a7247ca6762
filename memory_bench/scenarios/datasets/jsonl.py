"""The JSONL format (``memory-bench-jsonl/1``): a user's own items and questions, as a script.

One JSON object a line, each with a ``type``:

- ``header`` (optional, first line only): ``format`` = ``memory-bench-jsonl/1``, free
  ``made_by`` / ``description``, and ``k`` (hits asked of every query; default 10);
- ``item``: ``id``, ``text``, ``source``, ``timestamp`` (ISO 8601 with a timezone),
  optional ``tags`` (strings the backend sees), ``region`` (default ``benchmark``) and
  ``category`` (an answer-key label the backend never sees);
- ``probe``: ``question`` and ``expected`` (ids of items that answer it), optional
  ``category``, ``key`` (the same key on two probes is the same question asked twice),
  ``tag`` (``ask``, the default; ``early``; ``abstain``; other tags are asked and kept
  in the records, not scored), ``outrank`` (ids it should rank below the expected
  ones), ``after`` (ask it right after this item is written, instead of where the line
  stands), ``needs`` (a capability; the probe is skipped without it) and ``answers``
  (the gold answer's phrases: answer containment and context tokens are recorded);
  a probe with ``outrank``, whatever its tag, is an update (``updateWinRate``,
  ``staleRate``), and the continual protocol's tags ``probe``/``reprobe`` are scored
  as that protocol scores them (``recall1_before``, ``retention``), so that an
  exported continual scenario run back scores as the scenario;
- ``reset``: close the store; what follows goes into a new, empty one (an episode);
- ``strength``: read the strength of ``ids`` (``label`` tells readings apart);
- ``consolidate``: the backend's sleep.

Ids are the file's own: unique within an episode, and never sent to a backend
(the harness gives every item an opaque id). Every id a line references must be
an item of its episode written before the line is asked. :func:`validate`
reports every problem with its line number; :func:`script_records` writes any
generator's script in this format (``memory-bench export``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import parse_timestamp
from memory_bench.contract.options import Option
from memory_bench.metrics.retrieval import QUERY_TAGS
from memory_bench.records import strictjson
from memory_bench.scenarios.datasets.common import (
    DataFile,
    DatasetError,
    ScriptBuilder,
    check_folds,
    fold_of,
    fold_stats,
    fold_units,
    keep_questions_option,
    mean_baseline,
    overlap_caveat,
    read_data_file,
    require_path,
)
from memory_bench.scenarios.script import (
    Consolidate,
    Probe,
    ReadStrength,
    Reset,
    Script,
    Write,
)

__all__ = ["FORMAT", "PARAMETERS", "Parsed", "Problem", "caveats", "check", "generate",
           "parse_lines", "script_records", "validate"]

FORMAT = "memory-bench-jsonl/1"
PARAMETERS = (
    Option("path", str, None, "the JSONL file (memory-bench-jsonl/1; `memory-bench validate` "
           "checks it)"),
    Option("folds", int, 1, "disjoint folds of the file's episodes (reset lines), one per "
           "seed", minimum=1, maximum=100_000),
    Option("write_batch", int, 32, "items per write call (a call also ends at every other "
           "line)", minimum=1, maximum=100_000),
    keep_questions_option(True, "off keeps your questions out of a result you share"),
)
_CAPS = {c.value for c in Capability}
_STR, _LIST, _OBJ, _INT = "a string", "a list of strings", "an object", "an integer"
# The continual protocol's probe tags this format also scores (metrics/continual.py).
CONTINUAL_TAGS = ("probe", "reprobe", "update", "corroborate")
# type -> field -> (required, kind)
_FIELDS: dict[str, dict[str, tuple[bool, str]]] = {
    "header": {"format": (True, _STR), "made_by": (False, _OBJ), "description": (False, _STR),
               "k": (False, _INT)},
    "item": {"id": (True, _STR), "text": (True, _STR), "source": (True, _STR),
             "timestamp": (True, _STR), "tags": (False, _LIST), "category": (False, _STR),
             "region": (False, _STR)},
    "probe": {"question": (True, _STR), "expected": (True, _LIST), "category": (False, _STR),
              "key": (False, _STR), "tag": (False, _STR), "outrank": (False, _LIST),
              "after": (False, _STR), "needs": (False, _STR), "answers": (False, _LIST)},
    "reset": {},
    "strength": {"ids": (True, _LIST), "label": (True, _STR), "tag": (False, _STR)},
    "consolidate": {"tag": (False, _STR)},
}


@dataclass(frozen=True)
class Problem:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class Line:
    n: int  # 1-based line number
    type: str
    fields: dict[str, Any]
    episode: int
    at: float  # where it is asked: its own place, or right after its ``after`` item


@dataclass(frozen=True)
class Parsed:
    """A valid file: its lines in the order they run, and what they hold."""

    lines: tuple[Line, ...]
    episodes: int
    header: dict[str, Any] | None

    def count(self, kind: str) -> int:
        return sum(line.type == kind for line in self.lines)

    def tags(self) -> dict[str, int]:
        return dict(sorted(Counter(line.fields.get("tag", "ask") for line in self.lines
                                   if line.type == "probe").items()))


def _kind_ok(value: Any, kind: str) -> bool:
    if kind == _STR:
        return isinstance(value, str)
    if kind == _LIST:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 1000
    return isinstance(value, dict)


def _line_problems(n: int, doc: Any, first: bool) -> list[str]:
    if not isinstance(doc, dict):
        return [f"expected a JSON object, got {type(doc).__name__}"]
    kind = doc.get("type")
    if kind not in _FIELDS:
        return [f"unknown type {kind!r} (expected one of {', '.join(_FIELDS)})"]
    out = []
    if kind == "header" and not first:
        out.append("a header may only be the first line")
    fields = _FIELDS[kind]
    for name, value in doc.items():
        if name == "type":
            continue
        if name not in fields:
            out.append(f"{kind}: unknown field {name!r} (accepted: {', '.join(fields)})")
        elif not _kind_ok(value, fields[name][1]) and not (name == "category" and value is None):
            out.append(f"{kind}: {name} must be {fields[name][1]}, got {value!r}"[:200])
    for name, (required, _) in fields.items():
        if required and name not in doc:
            out.append(f"{kind}: missing field {name!r}")
    if out:
        return out
    if kind == "header" and doc["format"] != FORMAT:
        out.append(f"header: format {doc['format']!r} is not {FORMAT!r}")
    elif kind == "item":
        if not doc["id"]:
            out.append("item: id is empty")
        try:
            parse_timestamp(doc["timestamp"])
        except ValueError as exc:
            why = "has no timezone (add +00:00 or Z)" if "timezone" in str(exc) else \
                "is not an ISO 8601 timestamp"
            out.append(f"item {doc['id']!r}: timestamp {doc['timestamp']!r} {why}")
    elif kind == "probe":
        if not doc["question"].strip():
            out.append("probe: question is empty")
        if doc.get("needs") is not None and doc["needs"] not in _CAPS:
            out.append(f"probe: needs {doc['needs']!r} is not a capability "
                       f"({', '.join(sorted(_CAPS))})")
        if doc.get("tag") == "":
            out.append("probe: tag is empty")
    elif kind == "strength" and not doc["ids"]:
        out.append("strength: ids is empty")
    return out


def _references(lines: list[Line]) -> list[Problem]:
    """Ids unique within an episode; every referenced id an earlier item of it."""
    problems: list[Problem] = []
    written: dict[tuple[int, str], Line] = {}
    for line in lines:
        if line.type == "item":
            key = (line.episode, line.fields["id"])
            if key in written:
                problems.append(Problem(line.n, f"item id {key[1]!r} is already used on line "
                                                f"{written[key].n} of this episode"))
            else:
                written[key] = line
    for line in lines:
        f = line.fields
        refs = [*f.get("expected", ()), *f.get("outrank", ()), *f.get("ids", ())]
        for ref in refs:
            item = written.get((line.episode, ref))
            if item is None:
                problems.append(Problem(line.n, f"{line.type}: {ref!r} names no item of this "
                                                "episode"))
            elif item.n > line.at:
                problems.append(Problem(line.n, f"{line.type}: item {ref!r} (line {item.n}) "
                                                "is written after this is asked"))
    return problems


def parse_lines(text: str) -> tuple[Parsed | None, list[Problem]]:
    """The file's lines, checked; ``(None, problems)`` when it has any problem."""
    problems: list[Problem] = []
    raw: list[tuple[int, dict[str, Any]]] = []
    for n, line in enumerate(strictjson.json_lines(text), start=1):
        if not line.strip():
            continue
        try:
            doc = strictjson.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(n, f"not JSON: {exc.msg} (column {exc.colno})"))
            continue
        except strictjson.StrictJSONError as exc:
            problems.append(Problem(n, f"not JSON we read: {exc}"))
            continue
        found = _line_problems(n, doc, first=not raw and not problems)
        problems += [Problem(n, m) for m in found]
        if not found:
            raw.append((n, doc))
    header = raw[0][1] if raw and raw[0][1]["type"] == "header" else None
    body = raw[1:] if header else raw
    if not body and not problems:
        problems.append(Problem(max(1, len(strictjson.json_lines(text))),
                                "no item: a file needs at least one item and one probe"))
    episode, episodes, lines = 0, [], []
    item_at: dict[tuple[int, str], int] = {}
    for n, doc in body:
        episode += doc["type"] == "reset"
        episodes.append(episode)
        if doc["type"] == "item":
            item_at.setdefault((episode, doc["id"]), n)
    for (n, doc), ep in zip(body, episodes, strict=True):
        fields = {k: v for k, v in doc.items() if k != "type"}
        at = float(n)
        if doc["type"] == "probe" and "after" in fields:
            target = item_at.get((ep, fields["after"]))
            if target is None:
                problems.append(Problem(n, f"probe: after {fields['after']!r} names no item "
                                           "of this episode"))
            else:
                at = target + 0.5
        lines.append(Line(n, doc["type"], fields, ep, at))
    used = {ep: i for i, ep in enumerate(sorted({x.episode for x in lines if x.type != "reset"}))}
    lines = [Line(x.n, x.type, x.fields, used.get(x.episode, -1), x.at) for x in lines]
    episode = len(used) - 1  # reset lines at the start, the end or twice make no episode
    problems += _references(lines)
    if not any(line.type == "probe" for line in lines) and body:
        problems.append(Problem(body[-1][0], "no probe: nothing would be asked"))
    if problems:
        return None, sorted(problems, key=lambda p: p.line)
    ordered = tuple(sorted(lines, key=lambda line: (line.episode, line.at, line.n)))
    return Parsed(ordered, episode + 1, header), []


def validate(data_file: DataFile) -> tuple[Parsed | None, list[Problem]]:
    return _validate_cached(data_file)


_CACHE: dict[str, tuple[Parsed | None, list[Problem]]] = {}


def _validate_cached(data_file: DataFile) -> tuple[Parsed | None, list[Problem]]:
    hit = _CACHE.get(data_file.sha256)
    if hit is None:
        hit = parse_lines(data_file.text)
        _CACHE.clear()
        _CACHE[data_file.sha256] = hit
    return hit


def load(params: Mapping[str, Any]) -> tuple[DataFile, Parsed]:
    data_file = read_data_file(require_path(params, "a memory-bench-jsonl/1 file",
                                            "see docs/datasets.md"))
    parsed, problems = validate(data_file)
    if parsed is None:
        raise DatasetError(f"{data_file.name} is not a valid {FORMAT} file: {len(problems)} "
                           f"problem(s), the first: {problems[0]}; `memory-bench validate "
                           f"{data_file.name}` lists them all")
    return data_file, parsed


def check(params: Mapping[str, Any]) -> str | None:
    try:
        data_file, parsed = load(params)
    except DatasetError as exc:
        return str(exc)
    return check_folds(params["folds"], parsed.episodes, "episodes", data_file.name)


def generate(params: Mapping[str, Any], seed: int) -> Script:
    data_file, parsed = load(params)
    folds = params["folds"]
    episodes = fold_units(list(range(parsed.episodes)), folds, fold_of(seed, folds))
    mine = set(episodes)
    b = ScriptBuilder(params["write_batch"])
    ids: dict[tuple[int, str], str] = {}
    empty, current = 0, None
    for line in parsed.lines:
        if line.episode not in mine or line.type == "reset":
            continue
        if current is not None and line.episode != current:
            b.reset()
        current = line.episode
        f = line.fields

        def harness(ref: str, ep: int = line.episode) -> str:
            return ids[(ep, ref)]

        if line.type == "item":
            empty += not f["text"].strip()
            ids[(line.episode, f["id"])] = b.item(
                f["text"], f["source"], parse_timestamp(f["timestamp"]),
                tags=f.get("tags", ()), category=f.get("category"),
                region=f.get("region", "benchmark"))
        elif line.type == "probe":
            b.flush()
            step = Probe(f["question"], tuple(map(harness, f["expected"])),
                         f.get("tag", "ask"), category=f.get("category"),
                         outrank=tuple(map(harness, f.get("outrank", ()))),
                         key=f"e{line.episode}/{f.get('key') or f'line-{line.n}'}",
                         needs=Capability(f["needs"]) if f.get("needs") else None,
                         answers=tuple(f["answers"]) if "answers" in f else None)
            if step.tag in QUERY_TAGS and step.needs is None:
                b.ask(step.question, step.expected, step.tag, step.category, step.key,
                      step.outrank, step.answers)  # tracked for the recency baseline
            else:
                b.step(step)
        elif line.type == "strength":
            b.step(ReadStrength(tuple(map(harness, f["ids"])), f.get("tag", "strength"),
                                f["label"]))
        elif line.type == "consolidate":
            b.step(Consolidate(f.get("tag", "consolidate")))
    tags = Counter(s.tag for s in b.steps if isinstance(s, Probe))
    stats = {"file": data_file.stats(), "fold": seed, "folds": folds,
             "episodes": len(episodes), "items": b.n, "empty_items": empty,
             "probes": dict(sorted(tags.items())),
             "unscored_probes": {t: n for t, n in sorted(tags.items())
                                 if t not in (*QUERY_TAGS, *CONTINUAL_TAGS)},
             "file_totals": {"episodes": parsed.episodes, "items": parsed.count("item"),
                             "probes": parsed.count("probe")}}
    k = (parsed.header or {}).get("k")
    return b.script(seed, stats, data_file.sha256, keep_questions=params["keep_questions"],
                    k=k)


def caveats(params: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
    seeds = fold_stats(stats)
    if not seeds:
        return []
    first = seeds[0]
    f, totals = first["file"], first["file_totals"]
    out = [f"Data: the user's file `{f['name']}` (sha256 {f['sha256'][:12]}…), "
           f"{totals['items']:,} items and {totals['probes']:,} probes in "
           f"{totals['episodes']} episode(s); each seed is one of {first['folds']} fold(s) "
           "of the episodes."]
    if first["folds"] == 1:
        out.append("One fold: the run has one value per metric and backend; split the file "
                   "into episodes and set folds for intervals and verdicts.")
    unscored: Counter[str] = Counter()
    for s in seeds:
        unscored.update(s.get("unscored_probes") or {})
    if unscored:
        listed = ", ".join(f"{t} ({n})" for t, n in sorted(unscored.items()))
        out.append(f"Probes with tags this generator does not score were asked and kept in "
                   f"the records only: {listed}.")
    overlap = overlap_caveat(seeds, "items")
    if overlap:
        out.append(overlap)
    base = mean_baseline(seeds)
    if base.get("ask@5") is not None:
        out.append(f"A rule returning the 5 items written last scores recall_any@5 "
                   f"{base['ask@5']:.3f} on this file's questions.")
    return out


# -- writing any script in this format (memory-bench export) ----------------------------


def script_records(script: Script, made_by: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The script as records of this format, a header first; ids lose the unbound prefix."""
    prefix = script.prefix

    def own(item_id: str) -> str:
        return item_id[len(prefix):] if item_id.startswith(prefix) else item_id

    yield {"type": "header", "format": FORMAT, "made_by": dict(made_by), "k": script.k}
    for step in script.steps:
        if isinstance(step, Write):
            for n, item in enumerate(step.items):
                rec: dict[str, Any] = {"type": "item", "id": own(item.id), "text": item.text,
                                       "source": item.source,
                                       "timestamp": _iso(item.timestamp)}
                if item.tags:
                    rec["tags"] = list(item.tags)
                if item.region != "benchmark":
                    rec["region"] = item.region
                if step.categories:
                    rec["category"] = step.categories[n]
                yield rec
        elif isinstance(step, Probe):
            rec = {"type": "probe", "question": step.question,
                   "expected": [own(i) for i in step.expected], "tag": step.tag}
            if step.category is not None:
                rec["category"] = step.category
            if step.key is not None:
                rec["key"] = step.key
            if step.outrank:
                rec["outrank"] = [own(i) for i in step.outrank]
            if step.needs is not None:
                rec["needs"] = step.needs.value
            if step.answers is not None:
                rec["answers"] = list(step.answers)
            yield rec
        elif isinstance(step, ReadStrength):
            yield {"type": "strength", "ids": [own(i) for i in step.ids], "label": step.label,
                   "tag": step.tag}
        elif isinstance(step, Consolidate):
            yield {"type": "consolidate", "tag": step.tag}
        elif isinstance(step, Reset):
            yield {"type": "reset"}


def _iso(ts: datetime) -> str:
    return ts.isoformat()
