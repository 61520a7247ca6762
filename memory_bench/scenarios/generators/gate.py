"""The gate phase's items, for every continual generator: what to refuse, what to keep.

Refusable kinds hold nothing a memory should keep: no text (``empty``), under
three words (``short``), a stored text re-sent by its own source
(``duplicate``), a stored fact reworded, by its own source or by another
one as often (``near_duplicate``), content-free chat of three words or more (``chitchat``),
signatures and notices (``boilerplate``), a sentence cut off before it states
anything (``fragment``). Accepted kinds are real facts about new subjects:
``clean`` and ``clean_short`` ("Ivo resigned.", "Ann is 34."), so that a rule
that refuses whatever is short pays for it. Only the first three kinds are what
a trivial rule-based gate (empty, short, exact duplicate) catches.

Junk has look-alikes among what is kept, so that its form alone does not give it
away: half the chit-chat and boilerplate names someone and carries a number
("haha Mara, 3 more days to go", "Sent from Jonas Berg's phone, 14 May"), a share
of the clean facts has no name and no number (``plain_share``), short and plain facts
open as chat or notices do ("btw Ivo resigned", "Please note: the kiln ..."), and the hard
generator's fragments end in a content word as often as in a preposition while
some of its facts end in one ("Ashford is the town Mara Olsen was born in.").

Every text but an exact duplicate's gets its surface form (final mark, initial
case) from the one distribution every other item draws from
(``common.surface``), so no kind reads from its form.

Duplicates copy *noise* items, never probed facts: a copy of a fact would give
its question a second right answer. A generator supplies the texts that depend
on its data through a :class:`GateTexts`; the rest comes from ``vocab``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import GATE_KINDS, GateCase
from memory_bench.scenarios.continual.params import ContinualParams
from memory_bench.scenarios.generators import vocab
from memory_bench.scenarios.generators.common import WHITESPACE, ItemStamper

__all__ = ["GateTexts", "build_gate", "clean_short_facts", "plain_fact", "sample",
           "short_names_error"]

Tags = tuple[str, ...]


@dataclass(frozen=True)
class GateTexts:
    """What a generator provides for the gate: each callable makes one text."""

    short: Callable[[], str]
    paraphrase: Callable[[Item], str]  # the same fact as a stored item, in other words
    fragment: Callable[[], str]  # a sentence of the generator's kind, cut before its value
    clean: Callable[[], tuple[str, Tags]]  # a new fact about a new subject
    clean_short: Callable[[], tuple[str, Tags]]
    # A full name no question asks about, for junk that names someone ("Sent from Jonas
    # Berg's phone"); None: a first name and an initial.
    person: Callable[[], str] | None = None
    # Share of the clean facts written with no name and no number ("The kiln in the
    # workshop runs on gas."), junk's form: a gate that refuses that form pays for it.
    plain_share: float = 0.0


def sample(rng: random.Random, pool: Sequence, n: int) -> list:
    """n from ``pool``: without replacement while it lasts, with it beyond."""
    return rng.sample(list(pool), n) if n <= len(pool) else rng.choices(list(pool), k=n)


def short_names_error(p: ContinualParams) -> str | None:
    """The capacity check every generator shares: one short name a short fact."""
    if p.gate_clean_short > len(vocab.SHORT_NAMES):
        return (f"gate_clean_short ({p.gate_clean_short}) exceeds the {len(vocab.SHORT_NAMES)} "
                "short names that make those facts distinct")
    return None


def clean_short_facts(rng: random.Random, n: int) -> list[str]:
    """n short real facts about distinct short names (one fact a name)."""
    names = sample(rng, vocab.SHORT_NAMES, n)
    out = []
    for name in names:
        frame = rng.choice(vocab.SHORT_FACTS)
        fill = {k: rng.choice(v) for k, v in vocab.SHORT_FILLERS.items()}
        out.append(frame.format(n=name, age=rng.randint(19, 88), **fill))
    return out


def plain_fact(rng: random.Random) -> str:
    """A real fact with no name and no number (vocab.PLAIN_FACTS)."""
    frame = rng.choice(vocab.PLAIN_FACTS)
    return frame.format(**{k: rng.choice(v) for k, v in vocab.PLAIN_FILLERS.items()})


def _opened(rng: random.Random, text: str, notice: bool = False) -> str:
    """A fact without a stated key, half the time opened as chat ("btw Ivo resigned") or,
    for a ``notice``, a third of the time as chat and a third as a notice ("Please note:
    the kiln ... "): junk's openings on items a gate must keep."""
    roll = rng.random()
    if roll < (1 / 3 if notice else 1 / 2):
        opener = rng.choice(vocab.CHAT_OPENERS)
    elif notice and roll < 2 / 3:
        opener = rng.choice(vocab.NOTICE_OPENERS)
    else:
        return text
    rest = text if text.split(" ", 1)[0] != "The" else "the" + text[3:]
    return f"{opener} {rest}"


def _named(rng: random.Random, template: str, texts: GateTexts) -> str:
    """A junk template with a name and numbers filled in."""
    full = texts.person() if texts.person else (
        f"{rng.choice(vocab.FIRST_NAMES)} {rng.choice(vocab.SURNAMES)[0]}.")
    return template.format(first=full.split()[0], full=full, n=rng.randint(2, 9),
                           m=rng.randint(10, 40), d=rng.randint(1, 28),
                           h=rng.randint(1, 11), y=rng.randint(2019, 2026),
                           month=rng.choice(vocab.MONTHS))


def build_gate(p: ContinualParams, rng: random.Random, stamp: ItemStamper,
               noise: Sequence[Item], texts: GateTexts) -> list[GateCase]:
    """Every kind the scenario asks for, in a seeded shuffled order, then stamped
    (so ids and timestamps say nothing about the kind)."""
    # kind, text, tags, the original a copy restates (its source is kept)
    cases: list[tuple[str, str, Tags, Item | None]] = []
    for kind in GATE_KINDS:
        n = p.gate_count(kind)
        if kind == "empty":
            cases += [(kind, rng.choice(WHITESPACE), (), None) for _ in range(n)]
        elif kind == "short":
            cases += [(kind, texts.short(), (), None) for _ in range(n)]
        elif kind == "duplicate":
            cases += [(kind, i.text, i.tags, i) for i in sample(rng, noise, n)]
        elif kind == "near_duplicate":
            cases += [(kind, texts.paraphrase(i), i.tags, i) for i in sample(rng, noise, n)]
        elif kind in ("chitchat", "boilerplate"):
            plain, named = ((vocab.CHITCHAT, vocab.CHITCHAT_NAMED) if kind == "chitchat"
                            else (vocab.BOILERPLATE, vocab.BOILERPLATE_NAMED))
            half = n // 2  # the rest name someone and carry a number, as facts do
            cases += [(kind, t, (), None) for t in sample(rng, plain, half)]
            cases += [(kind, _named(rng, t, texts), (), None)
                      for t in sample(rng, named, n - half)]
        elif kind == "fragment":
            cases += [(kind, texts.fragment(), (), None) for _ in range(n)]
        elif kind == "clean":
            bare_facts = round(n * texts.plain_share)
            cases += [(kind, _opened(rng, plain_fact(rng), notice=True), (), None)
                      for _ in range(bare_facts)]
            cases += [(kind, *texts.clean(), None) for _ in range(n - bare_facts)]
        elif kind == "clean_short":
            cases += [(kind, _opened(rng, text), tags, None)
                      for text, tags in (texts.clean_short() for _ in range(n))]
    rng.shuffle(cases)
    out = []
    near = 0
    for kind, text, tags, of in cases:
        source, avoid = (None, ()) if of is None else (of.source, ())
        if kind == "near_duplicate":  # from its original's source every other time
            near += 1
            source, avoid = (of.source, ()) if near % 2 else (None, (of.source,))
        item = stamp(text, tags, source=source, avoid=avoid, form=kind != "duplicate")
        out.append(GateCase(item, kind, None if of is None else of.id))
    return out
