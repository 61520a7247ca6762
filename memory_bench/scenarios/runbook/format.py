"""The runbook format (``memory-bench-runbook/1``): a continual workload as TOML steps.

A runbook is a list of ``[[step]]`` tables run in order, each with an ``op``:
``write`` and ``update`` (one write call of ``[[step.items]]``), ``ask`` (one
question with its ground truth), ``forget`` (by ``ids`` and/or ``source``),
``advance`` (move the logical clock), ``strength``, ``consolidate`` and
``reset``. docs/runbooks.md describes every field; :func:`parse` checks a file
and names the step, its line and the field of every problem; :mod:`.writer`
writes any script in this format.

Ids are the file's own: the harness gives every item an opaque id, so a
backend never sees them. Every id a step names must be an item written earlier
in the same episode (since the last ``reset``); an ask's ``gold`` may not name
a forgotten item, and its ``forgotten`` only items forgotten before it.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Item
from memory_bench.records import stricttoml

__all__ = ["FORMAT", "OPS", "Ask", "Parsed", "RunbookError", "Step", "parse"]

FORMAT = "memory-bench-runbook/1"
DEFAULT_START = datetime(2026, 1, 1, tzinfo=UTC)
_CAPS = {c.value for c in Capability}

_STR, _STRS, _INT, _NUM, _TIME, _BOOL, _TABLE, _TABLES = (
    "a string", "a list of strings", "an integer", "a number", "a date-time with a UTC offset",
    "true or false", "a table", "a list of tables")
_ITEM = {"id": (True, _STR), "text": (True, _STR), "source": (True, _STR),
         "timestamp": (False, _TIME), "region": (False, _STR), "tags": (False, _STRS),
         "category": (False, _STR), "replaces": (False, _STR), "role": (False, _STR)}
_TOP = {"format": (True, _STR), "description": (False, _STR), "k": (False, _INT),
        "start": (False, _TIME), "made_by": (False, _TABLE), "step": (True, _TABLES)}
_WRITE = {"items": (True, _TABLES), "tag": (False, _STR), "needs": (False, _STR)}
OPS: dict[str, dict[str, tuple[bool, str]]] = {
    "write": _WRITE,
    "update": _WRITE,
    "ask": {"question": (True, _STR), "gold": (True, _STRS), "outrank": (False, _STRS),
            "forgotten": (False, _STRS), "tag": (False, _STR), "key": (False, _STR),
            "category": (False, _STR), "needs": (False, _STR)},
    "forget": {"ids": (False, _STRS), "source": (False, _STR), "tag": (False, _STR)},
    "advance": {"seconds": (False, _NUM), "minutes": (False, _NUM), "hours": (False, _NUM),
                "days": (False, _NUM)},
    "strength": {"ids": (True, _STRS), "label": (True, _STR), "tag": (False, _STR)},
    "consolidate": {"tag": (False, _STR)},
    "reset": {},
}
_WRITE_TAG = {"write": "seed", "update": "update"}


class RunbookError(ValueError):
    """A runbook that cannot be run: one line naming the step, its line and the field."""


@dataclass(frozen=True)
class Ask:
    question: str
    gold: tuple[str, ...]
    tag: str
    key: str
    outrank: tuple[str, ...] = ()
    forgotten: tuple[str, ...] = ()
    category: str | None = None
    needs: str | None = None


@dataclass(frozen=True)
class Step:
    """One checked step: ``op``, its tag, and what it carries (file ids throughout)."""

    op: str
    n: int  # 1-based position among the steps
    line: int
    tag: str = ""
    items: tuple[Item, ...] = ()  # with the file's ids
    categories: tuple[str, ...] = ()  # write: one per item, or none (the answer key)
    roles: tuple[str, ...] = ()  # write: each item's tag where one call mixes kinds, or none
    ask: Ask | None = None
    ids: tuple[str, ...] = ()  # forget, strength
    source: str | None = None  # forget
    forgotten: tuple[str, ...] = ()  # forget: every id it forgets (ids and the source's)
    label: str = ""  # strength
    needs: str | None = None  # write


@dataclass(frozen=True)
class Parsed:
    k: int
    steps: tuple[Step, ...]
    description: str = ""
    made_by: dict[str, Any] = field(default_factory=dict)

    @property
    def episodes(self) -> int:
        return 1 + sum(s.op == "reset" for s in self.steps)

    def count(self, op: str) -> int:
        return sum(s.op == op for s in self.steps)


def _kind_ok(value: Any, kind: str) -> bool:
    if kind == _STR:
        return isinstance(value, str)
    if kind == _STRS:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == _NUM:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == _TIME:
        return isinstance(value, datetime) and value.utcoffset() is not None
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _TABLE:
        return isinstance(value, dict)
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


def _fields(doc: dict[str, Any], spec: dict[str, tuple[bool, str]], where: str,
            skip: tuple[str, ...] = ()) -> None:
    for name, value in doc.items():
        if name in skip:
            continue
        if name not in spec:
            raise RunbookError(f"{where}: unknown field {name!r} (accepted: "
                               f"{', '.join([*skip, *spec])})")
        if not _kind_ok(value, spec[name][1]):
            shown = (f"{value.isoformat()} (no offset: add Z or +00:00)"
                     if isinstance(value, datetime) else repr(value)[:80])
            raise RunbookError(f"{where}: field {name!r} must be {spec[name][1]}, got {shown}")
    for name, (required, _) in spec.items():
        if required and name not in doc:
            raise RunbookError(f"{where}: missing field {name!r}")


def _step_lines(text: str) -> list[int]:
    """The line of each ``[[step]]`` header, in order (inline steps get the array's line).
    Lines end at ``\\n`` only, as TOML's do: a raw U+2028 or U+0085 inside a string
    (``splitlines`` ends a line there) must not shift the numbers after it."""
    return [n for n, line in enumerate(text.split("\n"), start=1)
            if re.match(r"[ \t]*\[\[[ \t]*step[ \t]*\]\]", line)]


class _Episode:
    """What is written and forgotten so far since the last reset: the ground truth."""

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.forgotten: set[str] = set()
        self.replaces: dict[str, str] = {}

    def known(self, ids: list[str], where: str, what: str) -> None:
        for i in ids:
            if i not in self.items:
                raise RunbookError(f"{where}: {what} {i!r} names no item written earlier in "
                                   "this episode")


def parse(text: str, name: str = "runbook") -> Parsed:
    """A checked runbook, or :class:`RunbookError` naming the first problem."""
    try:
        doc = stricttoml.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RunbookError(f"{name}: not TOML: {exc}") from None
    except stricttoml.StrictTOMLError as exc:
        raise RunbookError(f"{name}: {exc}") from None
    except RecursionError:  # tomllib reads nested arrays and tables recursively
        raise RunbookError(f"{name}: arrays or tables nested too deeply to read") from None
    _fields(doc, _TOP, name)
    if doc["format"] != FORMAT:
        raise RunbookError(f"{name}: format {doc['format']!r} is not {FORMAT!r}")
    k = doc.get("k", 5)
    if not 1 <= k <= 1000:
        raise RunbookError(f"{name}: k must be from 1 to 1000, got {k}")
    if not doc["step"]:
        raise RunbookError(f"{name}: no step")
    lines = _step_lines(text)
    clock = doc.get("start", DEFAULT_START)
    episode, seen = _Episode(), set()
    steps: list[Step] = []
    for n, raw in enumerate(doc["step"], start=1):
        line = lines[n - 1] if len(lines) == len(doc["step"]) else 0
        where = f"{name}: step {n}" + (f" (line {line})" if line else "")
        op = raw.get("op")
        if op not in OPS:
            raise RunbookError(f"{where}: op {op!r} is not one of {', '.join(OPS)}")
        where = f"{where}, {op}"
        _fields(raw, OPS[op], where, skip=("op",))
        if op in _WRITE_TAG:
            step, clock = _write(raw, op, n, line, where, clock, episode, seen)
        elif op == "ask":
            step = _ask(raw, n, line, where, episode)
        elif op == "forget":
            step = _forget(raw, n, line, where, episode)
        elif op == "advance":
            clock = _later(clock, _advance(raw, where), where)
            step = Step(op, n, line)
        elif op == "strength":
            episode.known(raw["ids"], where, "id")
            if not raw["ids"]:
                raise RunbookError(f"{where}: ids is empty")
            step = Step(op, n, line, raw.get("tag", "strength"), ids=tuple(raw["ids"]),
                        label=raw["label"])
        elif op == "consolidate":
            step = Step(op, n, line, raw.get("tag", "consolidate"))
        else:
            episode = _Episode()
            step = Step(op, n, line, "reset")
        _no_empty_tag(step, where)
        steps.append(step)
    if not any(s.op == "ask" for s in steps):
        raise RunbookError(f"{name}: no ask step: nothing would be asked")
    return Parsed(k, tuple(steps), doc.get("description", ""), dict(doc.get("made_by", {})))


def _no_empty_tag(step: Step, where: str) -> None:
    if step.op not in ("advance", "reset") and not step.tag.strip():
        raise RunbookError(f"{where}: tag is empty")


def _needs(value: str | None, where: str) -> str | None:
    if value is not None and value not in _CAPS:
        raise RunbookError(f"{where}: needs {value!r} is not a capability "
                           f"({', '.join(sorted(_CAPS))})")
    return value


def _write(raw: dict[str, Any], op: str, n: int, line: int, where: str, clock: datetime,
           episode: _Episode, seen: set[str]) -> tuple[Step, datetime]:
    if not raw["items"]:
        raise RunbookError(f"{where}: items is empty")
    items, categories, roles = [], [], []
    for i, it in enumerate(raw["items"], start=1):
        at = f"{where}, item {i}"
        _fields(it, _ITEM, at)
        iid = it["id"]
        if not iid:
            raise RunbookError(f"{at}: id is empty")
        if iid in seen:
            raise RunbookError(f"{at}: id {iid!r} is already used")
        seen.add(iid)
        if "replaces" in it:
            if op != "update":
                raise RunbookError(f"{at}: replaces belongs in an update step, not a write")
            episode.known([it["replaces"]], at, "replaces")
            episode.replaces[iid] = it["replaces"]
        clock = it["timestamp"] if "timestamp" in it else _later(clock, _MINUTE, at)
        item = Item(iid, it["text"], it["source"], clock, it.get("region", "benchmark"),
                    tuple(it.get("tags", ())))
        episode.items[iid] = item
        items.append(item)
        categories.append(it.get("category"))
        if "role" in it and not it["role"].strip():
            raise RunbookError(f"{at}: role is empty")
        roles.append(it.get("role"))
    if len({c is not None for c in categories}) > 1:
        raise RunbookError(f"{where}: every item of a write has a category, or none does (a "
                           "category is the answer key of the gate's metrics)")
    if len({r is not None for r in roles}) > 1:
        raise RunbookError(f"{where}: every item of a write has a role, or none does (a role "
                           "is the item's tag in a call that mixes kinds)")
    return Step(op, n, line, raw.get("tag", _WRITE_TAG[op]), items=tuple(items),
                categories=tuple(c for c in categories if c is not None),
                roles=tuple(r for r in roles if r is not None),
                needs=_needs(raw.get("needs"), where)), clock


def _ask(raw: dict[str, Any], n: int, line: int, where: str, episode: _Episode) -> Step:
    gold, forgotten = list(raw["gold"]), list(raw.get("forgotten", ()))
    if not raw["question"].strip():
        raise RunbookError(f"{where}: question is empty")
    episode.known(gold, where, "gold")
    episode.known(forgotten, where, "forgotten")
    back = [i for i in gold if i in episode.forgotten]
    if back:
        raise RunbookError(f"{where}: gold {back[0]!r} was forgotten earlier: a forgotten item "
                           "cannot answer (list it under forgotten)")
    never = [i for i in forgotten if i not in episode.forgotten]
    if never:
        raise RunbookError(f"{where}: forgotten {never[0]!r} is not forgotten by an earlier "
                           "forget step")
    if not gold and not forgotten:
        raise RunbookError(f"{where}: gold is empty and nothing is forgotten: an ask needs "
                           "ground truth")
    if "outrank" in raw:
        outrank = list(raw["outrank"])
        episode.known(outrank, where, "outrank")
    else:
        outrank = [episode.replaces[i] for i in gold if i in episode.replaces]
    # The default only when there is no tag: an empty one is refused by _no_empty_tag.
    tag = raw.get("tag", "update" if outrank else "forgotten" if not gold else "probe")
    ask = Ask(raw["question"], tuple(gold), tag, raw.get("key") or f"step-{n}", tuple(outrank),
              tuple(forgotten), raw.get("category"), _needs(raw.get("needs"), where))
    return Step("ask", n, line, tag, ask=ask)


def _forget(raw: dict[str, Any], n: int, line: int, where: str, episode: _Episode) -> Step:
    ids, source = list(raw.get("ids", ())), raw.get("source")
    if not ids and source is None:
        raise RunbookError(f"{where}: give ids, a source, or both")
    episode.known(ids, where, "id")
    gone = [i for i in ids if i not in episode.forgotten]
    if source is not None:
        of_source = [i for i, it in episode.items.items()
                     if it.source == source and i not in episode.forgotten]
        if not of_source:
            raise RunbookError(f"{where}: source {source!r} has no item left to forget in this "
                               "episode")
        gone += [i for i in of_source if i not in gone]
    episode.forgotten.update(gone)
    return Step("forget", n, line, raw.get("tag", "forget"), ids=tuple(ids), source=source,
                forgotten=tuple(gone))


def _advance(raw: dict[str, Any], where: str) -> timedelta:
    units = {u: raw[u] for u in ("seconds", "minutes", "hours", "days") if u in raw}
    if not units:
        raise RunbookError(f"{where}: give seconds, minutes, hours or days")
    if not all(math.isfinite(v) and v >= 0 for v in units.values()):
        raise RunbookError(f"{where}: the clock only moves forward, by a finite amount")
    try:
        return timedelta(**units)
    except OverflowError:
        raise RunbookError(f"{where}: {_PAST_9999}") from None


_MINUTE = timedelta(minutes=1)
_PAST_9999 = "this moves the clock past the year 9999 (the last date-time TOML can write)"


def _later(clock: datetime, step: timedelta, where: str) -> datetime:
    try:
        return clock + step
    except OverflowError:
        raise RunbookError(f"{where}: {_PAST_9999}") from None
