"""A complete memory-bench scenario plugin in one file: a diary, asked about later."""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from memory_bench import (
    UNBOUND_PREFIX,
    Item,
    Option,
    Probe,
    RecordView,
    Script,
    Write,
    declare,
    hookimpl,
)

__version__ = "0.1.0"
PEOPLE = ("Ada", "Bo", "Cyd", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu")
COLOURS = ("red", "green", "blue", "amber", "violet", "grey", "golden", "white", "black", "pink")
PLACES = ("lighthouse", "library", "market", "mill", "bar", "garden", "ferry", "rink", "club",
          "museum")


def hits(v: RecordView) -> dict[str, tuple[float, ...]]:
    """Per question (by key): 1.0 when the first hit is the entry that answers it."""
    return {p.key: (float(p.returned[:1] == p.expected[:1]),) for p in v.probes("ask")}


def generate(params: Mapping[str, Any], seed: int) -> Script:
    rng = random.Random(f"diary/{seed}")
    day = datetime(2025, 1, 1, 21, 0, tzinfo=UTC)
    entries, steps = [], []
    # Every entry has a place of its own, so each question has exactly one answer.
    places = rng.sample([f"the {c} {p}" for c in COLOURS for p in PLACES], params["days"])
    for i, where in enumerate(places):
        who = rng.sample(PEOPLE, 2)
        text = f"Met {who[0]} and {who[1]} at {where}; we talked until late."
        # Ids start with UNBOUND_PREFIX, which the runner binds to this pair's prefix;
        # sources and timestamps are what a real diary would carry, nothing more.
        entries.append(Item(id=f"{UNBOUND_PREFIX}{i:04d}", text=text, source=f"diary-{i}",
                            timestamp=day + timedelta(days=i)))
        steps.append(Write((entries[-1],), "write"))
    for i in rng.sample(range(len(entries)), params["questions"]):
        where = places[i]
        steps.append(Probe(f"When was I at {where}, and with whom?", (entries[i].id,), "ask",
                           category="recent" if i >= len(entries) // 2 else "old",
                           key=f"q{i}"))
    return Script(tuple(steps), k=params["k"], seed=seed)


@hookimpl
def memory_bench_register_scenarios(registry) -> None:
    registry.add(
        "diary",
        generate=generate,
        description="diary entries, one a day, asked about later (example plugin)",
        version=__version__,
        parameters=[
            Option("days", int, 60, "diary entries written", minimum=2, maximum=100),
            Option("questions", int, 20, "questions asked after the last entry", minimum=1),
            Option("k", int, 5, "top-k of every question", minimum=1, maximum=100),
        ],
        # The value is the mean of the per-question rows, which the paired tests compare.
        metrics=[declare("hit_at_1", "hit@1", reads=("ask",), per_category=True,
                         outcomes=hits, aggregate="mean",
                         description="share of questions whose first hit answers them")],
        check=lambda p: ("questions must not exceed days"
                         if p["questions"] > p["days"] else None),
        caveats=lambda params, stats: [
            "A teaching example: one place per entry, so the place names the answer."],
    )
