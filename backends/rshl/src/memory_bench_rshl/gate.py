"""The write gate: what the lattice refuses, merges or links, and why.

Refusals are cheap, text-only checks made before encoding, on what a text says,
never on its form (final punctuation, capitals or length alone decide nothing):

- ``empty``; an exact ``duplicate`` of a stored text (after whitespace
  normalisation); fewer than ``min_words`` words (``too_short``, off by default);
- no information: fewer than two *informative* words, i.e. content words
  (stop-words removed, one-letter tokens dropped) outside a lexicon of
  conversational fillers and acknowledgements ("ok", "thanks", "sounds good",
  "see you"): ``too_short`` under three words, ``chitchat`` otherwise. "Ivo
  resigned." and "Ann is 34." have two and pass;
- ``boilerplate``: two or more, and at least half, of the informative words
  come from the vocabulary of signatures, disclaimers and notices (email,
  unsubscribe, confidential, attachment, regards, ...);
- ``fragment``: one clause whose last word is a function word that needs a
  complement (a preposition, article, auxiliary, or "called"/"named": "Mara
  Olsen was born in", "Her dog is called."): it
  stops before its value. A question ("Who did you go with?") is complete, and
  a turn of several sentences has stated something before it trails off.

A dialogue turn's speaker ("Caroline: ...") is not part of what the turn says.
Near-duplicates are merged, and a new value for a known (subject, relation)
supersedes the old cell; the decisions that need similarity live here too so
that the rules sit in one place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_bench_rshl.encoder import content_stems, name_spans, stem

__all__ = [
    "BOILERPLATE",
    "CHITCHAT",
    "DUPLICATE",
    "DUPLICATE_ID",
    "EMPTY",
    "FRAGMENT",
    "HEADER_WORDS",
    "NEAR_DUPLICATE",
    "TOO_SHORT",
    "entity_spans",
    "entity_spans_at",
    "is_filler",
    "is_near_duplicate",
    "normalise",
    "refusal",
    "speaker_and_body",
    "text_subject",
]

EMPTY = "empty"
TOO_SHORT = "too_short"
CHITCHAT = "chitchat"
BOILERPLATE = "boilerplate"
FRAGMENT = "fragment"
NEAR_DUPLICATE = "near_duplicate"  # a restatement by the source that stated it already
DUPLICATE = "duplicate"
DUPLICATE_ID = "duplicate_id"  # an item id already stored: ids name items, so never reused

_WORD = re.compile(r"\S+")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _lexicon(text: str) -> frozenset[str]:
    """The stems of a word list, as ``content_stems`` stems a text."""
    return frozenset(stem(w) for w in text.split())


# What fills a conversation without stating anything: acknowledgements, greetings,
# reactions and hedges (stemmed as ``content_stems`` stems).
_FILLER = _lexicon("""
    ok okay k kk yeah yep yup yes yea nope nah sure thank thanks thx ty cheer cheers
    haha hah ha hehe lol lmao rofl omg wow oh ooh ah aha hmm hm um uh er huh hi hello
    hey hiya bye goodbye later soon see talk chat catch ttyl brb good great nice cool
    fine awesome amazing lovely perfect excellent super sweet right true exactly indeed
    fair enough agree agreed noted got get gotten sound sounds make sense point idea
    clue think guess suppose mean love like happy glad welcome sorry worry worries
    problem prob np morning afternoon evening night day week weekend friday monday
    everyone all folk guy please pls plz will do done let check same here there too
    either way why much lot lots really totally definitely absolutely course probably
    maybe well anyway whatever thing stuff one back above below more less soon tbd todo
    test testing ping placeholder asdf na n/a misc etc
""")
# The vocabulary of signatures, disclaimers and automatic notices.
_BOILERPLATE = _lexicon("""
    sent phone iphone android device excuse typo email e-mail mail messag message
    attachment attach attached confidential confidentiality intend intended addressee
    recipient sender notify delete error receiv received disclaimer view express
    expressed author environment print printing regard regards sincerely team behalf
    patience subscrib subscribed subscription notification unsubscribe setting settings
    preference generat generated automatic automatically reply respond click browser
    link rights reserv reserved reproduc reproduced document meeting dial-in ticket
    shortly office forward forwarded conversation archiv archived delay delayed sync
    synced app edit edited security removed remov rate service term terms condition
    conditions website internal dial number below
""")
# Labels that open a line as a speaker's name would ("Disclaimer: ..."), but name no one.
HEADER_WORDS = _BOILERPLATE | _lexicon("""
    note notice update reminder warning important fyi re subject todo ps tip question
    answer summary status info information news alert caution
""")
# Function words that cannot end a statement: they need what follows them.
_DANGLING = _words("""
    a an the of to in on at by for from with into onto upon about as than is are was
    were be been being am has have had do does did will would shall should can could may
    might must and or but nor whose its their my our your under over after before behind
    near via toward towards across against among through within without called named
    titled dubbed
""")
_SENTENCE_BREAK = re.compile(r"[.!?;]\s")


def normalise(text: str) -> str:
    """Whitespace-normalised text: the key for exact-duplicate detection."""
    return " ".join(text.split())


def refusal(text: str, min_words: int, known: set[str] | dict[str, object]) -> str | None:
    """The reason to refuse ``text``, or None to let it through (see the module docstring).

    ``known`` holds the normalised texts already stored (or accepted earlier in
    the same batch).
    """
    norm = normalise(text)
    if not norm:
        return EMPTY
    if norm in known:
        return DUPLICATE
    body = speaker_and_body(norm)[1]
    words = _WORD.findall(body)
    if len(words) < min_words:
        return TOO_SHORT
    informative = [w for w in content_stems(body)
                   if (len(w) > 1 or w.isdigit()) and w not in _FILLER]
    if len(informative) < 2:
        return TOO_SHORT if len(words) < 3 else CHITCHAT
    hits = sum(w in _BOILERPLATE for w in informative)
    if hits >= 2 and 2 * hits >= len(informative):
        return BOILERPLATE
    last = words[-1].lower().strip(".,;:!\"'()[]")
    if (last in _DANGLING and not body.rstrip().endswith("?")
            and not _SENTENCE_BREAK.search(body)):  # one clause, stopped before its value
        return FRAGMENT
    return None


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def is_near_duplicate(
    text_a: str, text_b: str, cosine: float, min_cosine: float, min_jaccard: float
) -> bool:
    """Near-duplicates restate the same content: similar vectors *and* the same content words.

    The word check keeps "X works for Acme" and "X works for Globex" apart even
    when their vectors are close: a different value is an update, not a copy.
    """
    if cosine < min_cosine:
        return False
    return jaccard(content_stems(text_a), content_stems(text_b)) >= min_jaccard


def entity_spans_at(text: str) -> list[tuple[str, int]]:
    """The proper-name spans of a sentence with their first token's position, in order.

    A one-word span at the start of the sentence is dropped when another span
    follows: every sentence starts with a capital ("Records show that ...").
    """
    spans = name_spans(text)
    return [(span, start) for span, start in spans
            if not (start == 0 and " " not in span and len(spans) > 1)]


def entity_spans(text: str) -> list[str]:
    """The proper-name spans of a sentence, in order ("mara olsen", "acme foods")."""
    return [span for span, _ in entity_spans_at(text)]


def is_filler(word: str) -> bool:
    """A conversational filler ("wow", "thanks", "hey"): never a name, never information."""
    return stem(word) in _FILLER


def text_subject(text: str) -> str | None:
    """The first entity span of a sentence ("mara olsen"), or None."""
    spans = entity_spans(text)
    return spans[0] if spans else None


# A dialogue turn's speaker ("Caroline: I went ..."): here, beside HEADER_WORDS, so that
# claims.py imports the gate and never the other way round.
_SPEAKER = re.compile(r"^\s*([A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}):\s+")


def speaker_and_body(text: str) -> tuple[str | None, str]:
    """("caroline", "I went ...") for a dialogue turn; (None, text) otherwise."""
    m = _SPEAKER.match(text)
    if m is None or stem(m.group(1).lower()) in HEADER_WORDS:  # "Disclaimer: ..." is no one
        return None, text
    return m.group(1).lower(), text[m.end():]
