"""How the natural generator turns a WordNet sense into sentences and questions.

The content of every fact is WordNet's own prose (definition, and often a real
example sentence); only a short frame around it is ours. The frames are chosen
so that fact and question frames share no content word ("mean", "term",
"refer", "define" occur only in questions; "denotes", "word for", "name for"
only in facts and updates), and updates use the fact frames and questions:
what a question shares with its fact is then WordNet's text and nothing the
harness put there.
"""

from __future__ import annotations

import random
import re

from memory_bench.scenarios.generators.wordnet import Synset

__all__ = [
    "PAST_QUESTIONS",
    "PROBE_QUESTIONS",
    "fact_text",
    "fragment_text",
    "has_phrase",
    "history_text",
    "probe_question",
    "update_question",
    "update_text",
]

# {w}: the word, {d}: WordNet's definition.
FACT_FRAMES = (
    "{w}: {d}.",
    "{w} denotes {d}.",
    "{w} is a word for {d}.",
    "In English, {w} is the name for {d}.",
    "The noun {w} names {d}.",
    "Lexicographers recorded {w} as {d}.",
    "{w} was entered in the dictionary as {d}.",
    "Once a rare word, {w} now names {d}.",
    "In older books as in new ones, {w} denotes {d}.",
    "{w} no longer puzzles readers: it names {d}.",
    "{w} has long been used for {d}.",
    "{w} was adopted as the name for {d}.",
    "{w} denotes {d}, in present usage.",
    "An everyday word, {w} denotes {d}.",
    "Old as it is, {w} still names {d}.",
    "{w}: {d} (the usual sense).",
    "Until a better word comes along, {w} names {d}.",
)
# The same, followed by one of WordNet's example sentences: {e}.
FACT_FRAMES_EXAMPLE = (
    '{w}: {d}, as in "{e}".',
    '{w} denotes {d}; for example, "{e}".',
    '{w} is a word for {d}, as in "{e}".',
    'The noun {w} names {d}, as when one says "{e}".',
)
# {w}: a synonym of the fact's word that the fact's text does not contain.
PROBE_QUESTIONS = (
    "What does {w} mean?",
    "What is meant by {w}?",
    "What does the term {w} refer to?",
    "How would you define {w}?",
    "Can you explain what {w} is?",
    "What is the meaning of {w}?",
    "What does {w} signify?",
    "What is {w}, exactly?",
    "What is understood by {w}?",
)
# Questions about the former sense, after an update: answered by the old fact and its
# history item. No content word of the history frames.
PAST_QUESTIONS = (
    "What did {w} mean before?",
    "What did {w} formerly mean?",
    "Before the change, what did {w} mean?",
    "What was {w} originally taken to mean?",
    "What did {w} signify at first?",
    "What meaning did {w} have previously?",
)
# A history item recalls the old sense after the update: true of the past, not an answer
# to "what does it mean?". Mostly the fact frames with the verb in the past ("In English,
# grip was the name for ..."), or in the present with an older-sense word, with WordNet's
# example as often as a fact has one; some fact frames, in turn, carry "once", "older",
# "no longer" about the current sense. So neither frame, tense nor an example tells a
# history item from a fact by its form; no frame shares a content word with the questions.
HISTORY_FRAMES = (
    "In older usage, {w} denoted {d}.",
    "{w} once named {d}.",
    "Until lately, {w} was the name for {d}.",
    "{w} no longer denotes {d}.",
    "An older sense of {w}: {d}.",
    "{w}: {d} (an older sense).",
    "In English, {w} was the name for {d}.",
    "{w} is an older name for {d}.",
    "{w} is a word for {d}, in older usage.",
    "Old dictionaries give {w} as {d}.",
)
HISTORY_FRAMES_EXAMPLE = (
    'In older usage, {w} denoted {d}, as in "{e}".',
    '{w} once named {d}; for example, "{e}".',
    '{w}: {d} (an older sense), as in "{e}".',
    'An older sense of {w} is {d}, as in "{e}".',
)
# An update gives the fact's own word a different real sense of it, in the fact frames
# (no stock update phrase such as "Revised entry" or "From today"), and is asked with the
# probe questions (no tense word such as "now" or "current": those would mark an update
# question as one).


def has_phrase(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` as whole words, ignoring case."""
    return re.search(r"\b" + re.escape(phrase.lower()) + r"\b", text.lower()) is not None


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _clean(definition: str) -> str:
    return definition.rstrip(" .;")


def fact_text(rng: random.Random, word: str, s: Synset,
              avoid: str | tuple[str, ...] | None = None, example: bool | None = None) -> str:
    """A sentence stating sense ``s`` of ``word``; an example only if it lacks every
    phrase of ``avoid`` (half the time, or where ``example`` is given, as it says)."""
    phrases = (avoid,) if isinstance(avoid, str) else tuple(avoid or ())
    examples = [e for e in s.examples if not any(has_phrase(e, a) for a in phrases)]
    if examples and (rng.random() < 0.5 if example is None else example):
        frame = rng.choice(FACT_FRAMES_EXAMPLE)
        return _cap(frame.format(w=word, d=_clean(s.definition), e=rng.choice(examples)))
    return _cap(rng.choice(FACT_FRAMES).format(w=word, d=_clean(s.definition)))


def fragment_text(rng: random.Random, word: str) -> str:
    """A fact frame about ``word`` cut off before its definition: states nothing."""
    heads = [f.split("{d}")[0].rstrip(" :") for f in FACT_FRAMES]
    return _cap(rng.choice([h for h in heads if len(h.split()) >= 3]).format(w=word))


def update_text(rng: random.Random, word: str, s: Synset,
                avoid: str | tuple[str, ...] | None = None, example: bool | None = None) -> str:
    """The new sense of ``word``, in a fact frame; an example only if it lacks ``avoid``."""
    return fact_text(rng, word, s, avoid, example)


def history_text(rng: random.Random, word: str, s: Synset,
                 avoid: tuple[str, ...] = (), example: bool | None = None) -> str:
    """The old sense ``s`` of ``word`` recalled as former (``HISTORY_FRAMES``); with one of
    WordNet's examples as often as a fact has one (or as ``example`` says), if the example
    lacks every phrase of ``avoid``."""
    examples = [e for e in s.examples if not any(has_phrase(e, a) for a in avoid)]
    if examples and (rng.random() < 0.5 if example is None else example):
        frame = rng.choice(HISTORY_FRAMES_EXAMPLE)
        return _cap(frame.format(w=word, d=_clean(s.definition), e=rng.choice(examples)))
    return _cap(rng.choice(HISTORY_FRAMES).format(w=word, d=_clean(s.definition)))


def probe_question(rng: random.Random, word: str, other_than: tuple[str, ...] = ()) -> str:
    """A question for ``word``'s meaning in a phrasing none of ``other_than`` uses."""
    asked = [q.format(w=word) for q in PROBE_QUESTIONS]
    free = [q for q in asked if _cap(q) not in other_than] or asked
    return _cap(rng.choice(free))


def update_question(rng: random.Random, word: str, other_than: tuple[str, ...] = ()) -> str:
    """An update is asked as any fact is: no "now", no "current"."""
    return probe_question(rng, word, other_than)

