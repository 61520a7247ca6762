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

# {w}: the word, {d}: WordNet's definition; {e}: one of its example sentences.
# Every frame is one of a pair: the current sense (a fact, an update, noise, a gate item)
# and the former sense (a history item), made of the same words, tense words included,
# with the time words swapped between the clause that holds the definition and the one
# about "something else", and the same first and last word. Only the sentence's meaning
# tells a history item from a current one: not a frame, a tense marker, a count of them,
# its length or its first and last words, alone or together (tests/test_natural_generator.py
# checks each pair). Before these pairs, history frames had more past markers than fact
# frames, and a classifier on form told the new value from the history item at AUC 0.73
# (issue 34). No frame shares a content word with the questions, PAST_QUESTIONS included.
FRAME_PAIRS = (
    ("{w} was once rare and is now the word for {d}.",
     "{w} is now rare and was once the word for {d}."),
    ("{w} named something else in old books; today it names {d}.",
     "{w} names something else today; in old books it named {d}."),
    ("{w} names {d} today; in old books it named something else.",
     "{w} named {d} in old books; today it names something else."),
    ("{w} has stopped naming something else and still names {d}.",
     "{w} still names something else and has stopped naming {d}."),
    ("{w}: {d} (the sense it has now; the older one differs).",
     "{w}: {d} (the older sense; the one it has now differs)."),
    ("Lexicographers who once listed {w} elsewhere now list it as {d}.",
     "Lexicographers who now list {w} elsewhere once listed it as {d}."),
    ("{w} was a word for something else; it is a word for {d}.",
     "{w} is a word for something else; it was a word for {d}."),
    ("In English, {w} was the name for something else and is the name for {d}.",
     "In English, {w} is the name for something else and was the name for {d}."),
    ("The noun {w} once named another thing and now names {d}.",
     "The noun {w} now names another thing and once named {d}."),
    ("Dictionaries give {w} another sense in old editions and {d} in new ones.",
     "Dictionaries give {w} another sense in new editions and {d} in old ones."),
    ("Dictionaries give {w} as {d} in new editions, another sense in old ones.",
     "Dictionaries give {w} as {d} in old editions, another sense in new ones."),
    ("{w} named something else until lately and at present names {d}.",
     "{w} names something else at present and until lately named {d}."),
    ("{w} names {d} at present and until lately named something else.",
     "{w} named {d} until lately and at present names something else."),
    ("{w} is used for {d} in present usage, not in past usage.",
     "{w} is used for {d} in past usage, not in present usage."),
    ("{w}: {d} (current sense; the older one differs).",
     "{w}: {d} (older sense; the current one differs)."),
)
# The same, followed by one of WordNet's example sentences.
FRAME_PAIRS_EXAMPLE = (
    ('{w} was once rare and is now the word for {d}, as in "{e}".',
     '{w} is now rare and was once the word for {d}, as in "{e}".'),
    ('{w}: {d} (current sense; the older one differs), as in "{e}".',
     '{w}: {d} (older sense; the current one differs), as in "{e}".'),
    ('{w} was a word for something else; it is a word for {d}, as in "{e}".',
     '{w} is a word for something else; it was a word for {d}, as in "{e}".'),
    ('The noun {w} once named another thing and now names {d}, as when one says "{e}".',
     'The noun {w} now names another thing and once named {d}, as when one says "{e}".'),
)
_CURRENT, _FORMER = 0, 1  # a pair's sides
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
# history item. No content word of the frames.
PAST_QUESTIONS = (
    "What did {w} mean before?",
    "What did {w} formerly mean?",
    "Before the change, what did {w} mean?",
    "What was {w} originally taken to mean?",
    "What did {w} signify at first?",
    "What meaning did {w} have previously?",
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


def _framed(rng: random.Random, word: str, s: Synset, avoid: tuple[str, ...],
            example: bool | None, side: int) -> str:
    """Sense ``s`` of ``word`` in one side of a frame pair; with one of WordNet's examples
    that lacks every phrase of ``avoid`` (half the time, or as ``example`` says)."""
    examples = [e for e in s.examples if not any(has_phrase(e, a) for a in avoid)]
    if examples and (rng.random() < 0.5 if example is None else example):
        frame = rng.choice(FRAME_PAIRS_EXAMPLE)[side]
        return _cap(frame.format(w=word, d=_clean(s.definition), e=rng.choice(examples)))
    return _cap(rng.choice(FRAME_PAIRS)[side].format(w=word, d=_clean(s.definition)))


def fact_text(rng: random.Random, word: str, s: Synset,
              avoid: str | tuple[str, ...] | None = None, example: bool | None = None) -> str:
    """A sentence stating sense ``s`` of ``word``; an example only if it lacks every
    phrase of ``avoid`` (half the time, or where ``example`` is given, as it says)."""
    phrases = (avoid,) if isinstance(avoid, str) else tuple(avoid or ())
    return _framed(rng, word, s, phrases, example, _CURRENT)


def fragment_text(rng: random.Random, word: str) -> str:
    """A fact frame about ``word`` cut off before its definition: states nothing."""
    heads = [pair[_CURRENT].split("{d}")[0].rstrip(" :") for pair in FRAME_PAIRS]
    return _cap(rng.choice([h for h in heads if len(h.split()) >= 3]).format(w=word))


def update_text(rng: random.Random, word: str, s: Synset,
                avoid: str | tuple[str, ...] | None = None, example: bool | None = None) -> str:
    """The new sense of ``word``, in a fact frame; an example only if it lacks ``avoid``."""
    return fact_text(rng, word, s, avoid, example)


def history_text(rng: random.Random, word: str, s: Synset,
                 avoid: tuple[str, ...] = (), example: bool | None = None) -> str:
    """The old sense ``s`` of ``word`` recalled as former (a pair's other side); with one
    of WordNet's examples as often as a fact has one (or as ``example`` says), if the
    example lacks every phrase of ``avoid``."""
    return _framed(rng, word, s, avoid, example, _FORMER)


def probe_question(rng: random.Random, word: str, other_than: tuple[str, ...] = ()) -> str:
    """A question for ``word``'s meaning in a phrasing none of ``other_than`` uses."""
    asked = [q.format(w=word) for q in PROBE_QUESTIONS]
    free = [q for q in asked if _cap(q) not in other_than] or asked
    return _cap(rng.choice(free))


def update_question(rng: random.Random, word: str, other_than: tuple[str, ...] = ()) -> str:
    """An update is asked as any fact is: no "now", no "current"."""
    return probe_question(rng, word, other_than)

