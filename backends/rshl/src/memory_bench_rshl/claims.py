"""What a sentence claims, read from its text alone: speaker, names, relation words, values.

Text-only supersession needs two things a tag would give: the *subject* and the
*relation* of a claim. Neither is parsed here (no model, no grammar); both are
approximated from the surface:

- a dialogue turn opens with its speaker's name and a colon ("Caroline: I went
  ..."). That name is who speaks, not what the claims are about, so it is set
  apart and never a subject key;
- the *names* of the body are its proper-name spans, sentence by sentence
  (``gate.entity_spans_at``: a capitalised first word is sentence case), less
  fillers ("Wow", "Thanks") and, in a dialogue turn, vocatives ("Hey Mel!",
  "Thanks, Caroline."): whom a turn addresses is not what it is about. A
  subject is a name two claims share;
- the *relation* is the body's content-word stems outside every name span and
  every number: "{s} works for {v}" -> {work}, "{s} has moved jobs and is now
  employed by {v}" -> {move, job, employ};
- the *values* are the other names and the numbers: what a new claim about the
  same subject and relation changes;
- a *change* cue ("now", "has moved", "renamed", "in fact"): the claim says a
  value changed, as an update does and a first statement does not.

:func:`relation_overlap` compares two relations (IDF-weighted containment of
one stem set in the other); the lattice links a new cell to an old one only when they share a
subject, their relations overlap enough, and the values differ.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from memory_bench_rshl.encoder import STOP_WORDS, stem, tokenize
from memory_bench_rshl.gate import entity_spans_at, is_filler, speaker_and_body

__all__ = ["Claim", "claim", "new_value", "relation_overlap", "speaker_and_body"]

# "Caroline: ...", "Dr Mara Olsen: ...": one to three capitalised tokens, then a colon.
_NUMBER = re.compile(r"^\d[\d.,:/-]*$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# Words and phrases that say a value changed: what an update says and a first statement
# does not ("Mara Olsen now works for ...", "has moved", "was in fact born in ...").
_CHANGE_WORDS = frozenset((
    "now", "new", "newly", "recently", "moved", "changed", "switched", "renamed", "relocated",
    "corrected", "revised", "updated", "instead", "replaced", "replace", "anymore", "latest",
    "currently", "transferred", "retrained"))
_CHANGE_PHRASES = ("in fact", "these days", "no longer")


@dataclass(frozen=True)
class Claim:
    """A sentence's speaker (dialogue turns), names, relation stems and number values."""

    speaker: str | None
    names: tuple[str, ...]
    relation: frozenset[str]
    numbers: frozenset[str]
    change: bool = False  # says that something changed ("now", "has moved", "renamed")

    def values(self, subject: str) -> frozenset[str]:
        """What the claim says about ``subject``: its other names and its numbers."""
        return frozenset(n for n in self.names if n != subject) | self.numbers


def _names(sentence: str, dialogue: bool) -> list[str]:
    """A sentence's entity spans, less fillers ("Wow", "Thanks") and, in a dialogue turn,
    a one-word span opening the sentence (conversation has no headlines: it is sentence
    case) and the people it addresses: a name set off by a comma or closing on "!" or
    "?" ("Hey Mel!", "Thanks, Caroline.", "Mel, I ...") is a vocative, not what the turn
    is about."""
    tokens = sentence.split()
    out = []
    for span, start in entity_spans_at(sentence):
        if all(is_filler(w) for w in span.split()):
            continue
        end = start + len(span.split()) - 1
        if dialogue and start == 0 and end == 0:  # "Believe in yourself!": sentence case
            continue
        if dialogue and end < len(tokens) and (
                tokens[end][-1:] in ",!?" or (start > 0 and tokens[start - 1][-1:] == ",")
                or (start > 0 and is_filler(tokens[start - 1].strip(",.!?").lower()))):
            continue
        out.append(span)
    return out


@lru_cache(maxsize=1 << 16)
def claim(text: str) -> Claim:
    """The :class:`Claim` of a text (cached: peers are read again at every write)."""
    speaker, body = speaker_and_body(text)
    names = tuple(dict.fromkeys(n for sentence in _SENTENCE.split(body)
                                for n in _names(sentence, dialogue=speaker is not None)))
    in_names = {w for n in names for w in tokenize(n)}
    relation, numbers = set(), set()
    for tok in tokenize(body):
        if _NUMBER.match(tok):
            numbers.add(tok)
        elif tok not in STOP_WORDS and tok not in in_names:
            relation.add(stem(tok))
    low = " ".join(tokenize(body))
    change = bool(_CHANGE_WORDS.intersection(low.split())) or any(
        p in low for p in _CHANGE_PHRASES)
    return Claim(speaker, names, frozenset(relation), frozenset(numbers), change)


def relation_overlap(a: frozenset[str], b: frozenset[str], idf: Callable[[str], float]) -> float:
    """IDF-weighted containment of the smaller relation stem set in the other (0 when
    either is empty): an update's extra words ("has changed jobs and now works for")
    do not dilute the word it shares with the old fact ("works for")."""
    if not a or not b:
        return 0.0
    shared = sum(idf(w) for w in a & b)
    if shared == 0.0:
        return 0.0
    return shared / min(sum(idf(w) for w in a), sum(idf(w) for w in b))


def new_value(new: Claim, old: Claim, subject: str) -> bool:
    """Whether ``new`` changes what ``old`` says of ``subject`` (a restatement does not).

    The values are the names and numbers besides the subject; they must differ. A
    claim whose value is a common noun ("is allergic to strawberries") has none, and
    which of its words is the value and which the relation cannot be told apart
    ("is allergic to strawberries" and "has an allergy to strawberries" share their
    value, "works as a glassblower" and "now works as an actuary" their relation):
    such a pair is never taken for an update.
    """
    nv, ov = new.values(subject), old.values(subject)
    if not nv or not ov or nv == ov:
        return False
    # Two names that share a word cannot be told apart from text alone: "Quidrose
    # Radcliffe" beside "Quinta Radcliffe", "Foxgfffle Shipping" beside "Foxglove
    # Shipping" may be another entity of the same family or the same one misspelt, not
    # a new value; keeping both costs a stale hit at worst, a wrong link buries a fact.
    lost = {w for n in set(old.names) - set(new.names) for w in n.split()}
    gained = set(new.names) - set(old.names) - {subject}
    return not any(w in lost for n in gained for w in n.split())
