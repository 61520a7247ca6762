"""What a reader of the protocol, not of the memory, could still exploit in a continual script.

``fairness.py`` asks whether every question has one right answer. This asks the
other question a hostile reviewer asks: can a rule that reads only what every
backend is given (text, source, timestamp) and the order of calls tell the
answer from the stream's order or from an item's form? Each measure is a share
that a fair stream keeps at 0, or a gap between kinds that it keeps small:

- ``answer_in_last_write``: questions whose answer was in the write call just
  before them;
- ``answer_since_last_question``: questions whose answer was written after the
  previous question (what a "boost what is new since the last question" rule
  reads);
- ``reprobe_reuse``: re-probes that ask a string asked before (a query cache), and
  ``followup_reuse``: every later ask of a fact or aside (re-probes, update and past
  questions, follow-ups after a forget, the reinforcement and its checks) that does;
- ``quiet_run``: the longest run of writes with no question after the first question, as
  a share of the writes (the phased stream's interference asked nothing for 40 % of it);
- ``final_mark`` / ``lower_first``: by item kind (fact, noise, update, each gate
  kind), the share of texts ending in "." and starting with a small letter;
  ``*_spread`` the largest gap of a kind (of at least ``MIN_KIND`` items) from the
  pooled rate, in standard errors: today's leak (every fact ends in ".", no junk
  does) is a gap of 5 and more;
- ``tense``: the share of questions with a tense word ("now", "current", ...),
  for update questions and for the others;
- ``near_duplicate_same_source``: the share of near-duplicates sent by their
  original's source (a "same source rewords itself" rule reads it);
- ``words``: word counts (min, median, max) by kind, for a reader who asks
  whether junk is told apart by its length.

``scripts/check_fairness.py`` prints them; the tests assert the bounds below.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from statistics import median
from typing import Any

from memory_bench.scenarios.continual.data import ScenarioData
from memory_bench.scenarios.script import Probe, Script, Write

__all__ = ["BOUNDS", "MIN_KIND", "TENSE_WORDS", "leak_violations", "stream_leaks"]

TENSE_WORDS = ("now", "current", "currently", "these days", "today", "anymore", "latest",
               "nowadays", "recently")
_TENSE = re.compile(r"\b(" + "|".join(re.escape(w) for w in TENSE_WORDS) + r")\b", re.I)
_ASKED = ("probe", "reprobe", "update", "corroborate", "past", "aside", "kept", "forgotten",
          "reinforce", "reinforced", "control")
MIN_KIND = 15  # kinds with fewer items are too few for a rate
# What a fair stream keeps: shares at (near) 0, gaps between kinds small.
BOUNDS = {
    "answer_in_last_write": 0.0,
    "answer_since_last_question": 0.02,
    "reprobe_reuse": 0.0,
    "followup_reuse": 0.0,
    "final_mark_spread": 3.5,
    "lower_first_spread": 3.5,
    "tense_excess": 0.05,
    "near_duplicate_same_source": (0.3, 0.7),
}


def _kind(step: Write, n: int) -> str:
    tag = step.item_tag(n)
    if tag == "gate" and step.categories:
        return step.categories[n]
    return {"seed": "fact", "interfere": "noise"}.get(tag, tag)


def _spread(rates: dict[str, tuple[float, int]]) -> float:
    """The largest gap of a kind's rate from the pooled one, in standard errors (a kind
    of 20 items drawn from one distribution strays by up to about 3 by chance alone)."""
    big = [(r, n) for r, n in rates.values() if n >= MIN_KIND]
    total = sum(n for _, n in big)
    if not total:
        return 0.0
    pooled = sum(r * n for r, n in big) / total
    var = pooled * (1 - pooled)
    return max(abs(r - pooled) / math.sqrt(var / n) if var else 0.0 for r, n in big)


def stream_leaks(script: Script, data: ScenarioData | None = None) -> dict[str, Any]:
    """The measures above for one script (and its data, for the near-duplicates)."""
    last_write: set[str] = set()
    since_question: set[str] = set()
    asked: set[str] = set()
    in_last = since = asked_n = reuse = reprobes = later = later_reuse = 0
    by_key: dict[str, set[str]] = defaultdict(set)
    quiet = longest = writes = 0
    started = False
    tense: dict[str, list[bool]] = defaultdict(list)
    marks: dict[str, list[bool]] = defaultdict(list)
    lower: dict[str, list[bool]] = defaultdict(list)
    words: dict[str, list[int]] = defaultdict(list)
    for step in script.steps:
        if isinstance(step, Write):
            ids = {i.id for i in step.items}
            writes += len(step.items)
            if started:
                quiet += len(step.items)
                longest = max(longest, quiet)
            last_write = ids
            since_question |= ids
            for n, item in enumerate(step.items):
                text = item.text.strip()
                if not text:
                    continue
                kind = _kind(step, n)
                marks[kind].append(text.endswith(".") and not text.endswith(".."))
                lower[kind].append(text[:1].islower())
                words[kind].append(len(text.split()))
        elif isinstance(step, Probe) and step.tag in _ASKED:
            asked_n += 1
            in_last += bool(set(step.expected) & last_write)
            since += bool(set(step.expected) & since_question)
            if step.tag == "reprobe":
                reprobes += 1
                reuse += step.question in asked
            if step.key is not None and by_key[step.key]:
                later += 1
                later_reuse += step.question in by_key[step.key]
            if step.key is not None:
                by_key[step.key].add(step.question)
            asked.add(step.question)
            started, quiet = True, 0
            tense["update" if step.tag == "update" else "other"].append(
                bool(_TENSE.search(step.question)))
            since_question = set()
            last_write = set()

    def rates(flags: dict[str, list[bool]]) -> dict[str, tuple[float, int]]:
        return {k: (sum(v) / len(v), len(v)) for k, v in flags.items() if v}

    out: dict[str, Any] = {
        "questions": asked_n,
        "answer_in_last_write": in_last / asked_n if asked_n else 0.0,
        "answer_since_last_question": since / asked_n if asked_n else 0.0,
        "reprobe_reuse": reuse / reprobes if reprobes else 0.0,
        "followup_reuse": later_reuse / later if later else 0.0,
        "quiet_run": longest / writes if writes else 0.0,
        "final_mark": {k: round(r, 3) for k, (r, _) in rates(marks).items()},
        "final_mark_spread": _spread(rates(marks)),
        "lower_first": {k: round(r, 3) for k, (r, _) in rates(lower).items()},
        "lower_first_spread": _spread(rates(lower)),
        "tense": {k: sum(v) / len(v) for k, v in tense.items() if v},
        "words": {k: (min(v), median(v), max(v)) for k, v in words.items()},
    }
    out["tense_excess"] = out["tense"].get("update", 0.0) - out["tense"].get("other", 0.0)
    if data is not None:
        by_id = {i.id: i for i in data.noise}
        near = [g for g in data.gate if g.kind == "near_duplicate" and g.copy_of in by_id]
        if near:
            out["near_duplicate_same_source"] = (
                sum(g.item.source == by_id[g.copy_of].source for g in near) / len(near))
    return out


def leak_violations(leaks: dict[str, Any]) -> list[str]:
    """Every measure outside its bound, as a sentence; empty means unreadable."""
    bad = []
    for name, bound in BOUNDS.items():
        if name not in leaks:
            continue
        value = leaks[name]
        if isinstance(bound, tuple):
            if not bound[0] <= value <= bound[1]:
                bad.append(f"{name} = {value:.3f}, outside [{bound[0]}, {bound[1]}]")
        elif value > bound:
            bad.append(f"{name} = {value:.3f} > {bound}")
    return bad
