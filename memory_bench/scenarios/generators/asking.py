"""How every continual generator words its questions: a paraphrase of the relation in a frame.

The blind stream asks one fact many times (probe, re-probe, follow-ups after a
forget, reinforcement, re-asks across bursts), each time in a wording not asked
before: a repeated string is a query cache's free answer. A wording is a *core*
(a paraphrase of the relation: "Where does {s} hail from?") in a *frame* ("Remind
me: ...", "..., do you know?"). Frames are drawn from one distribution for every
kind of question (first probe, re-probe, update, aside, past), so a frame says
nothing of the kind, and cores are cycled so that consecutive wordings of one
fact also differ in the words that carry the relation.

Frames hold no content word of any relation's templates (hard's rule:
tests/test_hard_generator.py checks every framed wording) and no tense or time
word (leaks.py's TENSE_WORDS).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

__all__ = ["FRAMES", "frame", "wordings"]

# {q}: the core with a small first letter (when it opens with a question word);
# {Q}: the core as written, without its question mark.
FRAMES = (
    "{Q}?",
    "{Q}?",
    "Remind me: {q}?",
    "Quick one: {q}?",
    "Quick one — {q}?",
    "{Q}, do you know?",
    "Any idea — {q}?",
    "Sorry, {q}?",
    "Could you look up: {q}?",
    "Out of curiosity, {q}?",
    "I need to check: {q}?",
    "Help me out: {q}?",
    "{Q}, if you remember?",
    "Do you recall: {q}?",
    "Hey, {q}?",
    "Question for you: {q}?",
    "Just checking: {q}?",
)


def frame(core: str, how: str) -> str:
    """``core`` (a question ending in "?") in frame ``how``."""
    q = core.rstrip("?").rstrip()
    # Only a question word loses its capital inside a frame, never a name.
    low = q[:1].lower() + q[1:] if q.split(" ", 1)[0].lower() in _QUESTION_WORDS else q
    return how.format(q=low, Q=q)


_QUESTION_WORDS = frozenset((
    "what", "which", "who", "whom", "whose", "where", "when", "why", "how", "in", "on", "at",
    "to", "under", "for", "from", "before", "is", "are", "was", "were", "do", "does", "did",
    "can", "could", "would", "should", "must"))


def wordings(rng: random.Random, cores: Sequence[str], n: int, first: Sequence[int] = (),
             taken: Collection[str] = ()) -> list[str]:
    """``n`` distinct wordings: the cores at ``first`` (in order), then every core in a
    seeded order, again and again, each in a frame drawn at random; never a string of
    ``taken``. Fewer than ``n`` only when the cores and frames run out."""
    out: list[str] = []
    seen = set(taken)
    order = list(first)
    cycle = list(range(len(cores)))
    tries = 0
    while len(out) < n and tries < 40 * n:
        if not order:
            rng.shuffle(cycle)
            order = list(cycle)
        core = cores[order.pop(0)]
        tries += 1
        for _ in range(8):
            w = frame(core, rng.choice(FRAMES))
            if w not in seen:
                seen.add(w)
                out.append(w)
                break
    return out
