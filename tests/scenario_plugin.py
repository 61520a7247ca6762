"""A third-party scenario plugin, as a plugin author would write it: its own generator,
parameters, metrics (one per category) and caveats, registered through the hook."""

from __future__ import annotations

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

COLOURS = ("red", "green", "blue", "amber", "violet", "teal", "ochre", "slate")


def _found(v: RecordView) -> float | None:
    probes = v.probes("ask")
    if not probes:
        return None
    return sum(bool(set(p.returned[:1]) & set(p.expected)) for p in probes) / len(probes)


def _any_in_top(v: RecordView) -> float | None:
    probes = v.probes("ask")
    if not probes:
        return None
    return sum(bool(set(p.returned) & set(p.expected)) for p in probes) / len(probes)


def generate(params: Mapping[str, Any], seed: int) -> Script:
    t0 = datetime(2026, 3, 1, tzinfo=UTC)
    items = []
    for i in range(params["people"]):
        name = f"Person{seed}x{i}"
        colour = COLOURS[(i + seed) % len(COLOURS)]
        items.append(Item(id=f"{UNBOUND_PREFIX}p{i}", text=f"{name} likes the colour {colour}.",
                          source=f"diary-{i}", timestamp=t0 + timedelta(minutes=i),
                          tags=(f"subject:{name}",)))
    steps: list[Any] = [Write(tuple(items), "write")]
    for i, item in enumerate(items):
        name = item.tags[0].removeprefix("subject:")
        category = "direct" if i % 2 == 0 else "indirect"
        question = (f"Which colour does {name} like?" if category == "direct"
                    else f"What is {name}'s favourite hue?")
        steps.append(Probe(question, (item.id,), "ask", category=category, key=f"q{i}"))
    return Script(tuple(steps), k=params["k"], seed=seed)


@hookimpl
def memory_bench_register_scenarios(registry) -> None:
    registry.add(
        "colours",
        generate=generate,
        description="who likes which colour (test plugin)",
        version="0.0.1",
        parameters=[
            Option("people", int, 6, "people written", minimum=1, maximum=50),
            Option("k", int, 3, "top-k", minimum=1, maximum=10),
            Option("weight", float, 0.5, "unused: a float to validate", minimum=0, maximum=1),
        ],
        metrics=[
            declare("found", "found@1", _found, reads=("ask",), per_category=True,
                    description="share of questions whose first hit answers them"),
            declare("in_top", "in top-k", _any_in_top, reads=("ask",), section="other"),
        ],
        check=lambda p: "people must be even" if p["people"] % 2 else None,
        caveats=lambda params, stats: [f"A toy plugin: {params['people']} people."],
    )
