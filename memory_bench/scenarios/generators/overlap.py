"""How hard a question is for a word matcher: its content-word overlap with the text it asks for.

A retriever that matches words (BM25, keyword search) finds a fact easily when
the question repeats the fact's words, and only by luck when it does not. These
statistics say, for one generated data set, how much of each question is in
its fact. Definitions, kept explicit so that a reader can recompute them:

- tokens: maximal runs of ``[a-z0-9]`` in the lowercased text (so "Olsen's"
  gives "olsen" and "s"; "bull's-eye" gives "bull", "s", "eye");
- content words: tokens of two or more characters that are not in
  ``STOP_WORDS``, with one trailing plural ``s`` removed from tokens of more
  than three letters that do not end in ``ss`` ("means" -> "mean");
- ``share``: |Q ∩ F| / |Q| for the question's content words Q and the fact's F
  (how much of the question a word matcher finds in the fact);
- ``jaccard``: |Q ∩ F| / |Q ∪ F|;
- ``zero_overlap_share``: the share of questions with Q ∩ F empty;
- ``subject_in_fact_share``: the share of questions whose subject (the name or
  word the question asks about) occurs, as whole words, in the fact's text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from statistics import fmean, quantiles
from typing import Any

__all__ = ["STOP_WORDS", "content_words", "overlap_stats", "question_overlap"]

# English function words: articles, pronouns, auxiliaries, prepositions,
# conjunctions, question words, quantifiers. Nothing specific to either generator.
STOP_WORDS = frozenset(
    """
    a an the this that these those there here
    i me my mine we us our ours you your yours he him his she her hers it its they them their
    theirs one ones someone something anyone anything everyone everything
    who whom whose which what when where why how whether
    am is are was were be been being do does did doing done have has had having
    can could may might must shall should will would
    not no nor and or but if then than so as
    of in on at by for with from to into onto upon about above below over under
    between among through during before after since until while within without
    against along around across behind beyond toward towards off out up down
    all any both each either every few many more most much other another some such
    own same very too also just only again ever still yet even
    """.split()  # noqa: SIM905 - a word list reads better as text
)

_TOKEN = re.compile(r"[a-z0-9]+")
_BINS = (0.25, 0.5, 0.75)


def _norm(token: str) -> str:
    if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


def content_words(text: str) -> set[str]:
    """The content words of ``text`` as defined in this module's docstring."""
    out = set()
    for t in _TOKEN.findall(text.lower()):
        if len(t) < 2 or t in STOP_WORDS:
            continue
        n = _norm(t)
        if n not in STOP_WORDS:
            out.add(n)
    return out


def _contains(text: str, phrase: str) -> bool:
    return re.search(r"\b" + re.escape(phrase.lower()) + r"\b", text.lower()) is not None


def _summary(values: list[float]) -> dict[str, float]:
    q = [values[0]] * 3 if len(values) == 1 else quantiles(values, n=4, method="inclusive")
    return {
        "mean": round(fmean(values), 4),
        "min": round(min(values), 4),
        "p25": round(q[0], 4),
        "median": round(q[1], 4),
        "p75": round(q[2], 4),
        "max": round(max(values), 4),
    }


def _histogram(values: list[float]) -> dict[str, int]:
    """Counts in bins 0 | (0, .25] | (.25, .5] | (.5, .75] | (.75, 1) | 1."""
    labels = ["0", "(0,0.25]", "(0.25,0.5]", "(0.5,0.75]", "(0.75,1)", "1"]
    counts = dict.fromkeys(labels, 0)
    for v in values:
        if v == 0:
            counts["0"] += 1
        elif v == 1:
            counts["1"] += 1
        elif v > _BINS[-1]:
            counts["(0.75,1)"] += 1
        else:
            i = next(i for i, b in enumerate(_BINS) if v <= b)
            counts[labels[1 + i]] += 1
    return counts


def overlap_stats(
    questions: Sequence[str], texts: Sequence[str], subjects: Sequence[str] | None = None
) -> dict[str, Any]:
    """Overlap of each question with the text it asks for (same order), summarised.
    Without ``subjects`` (a dataset's questions name none) there is no subject share."""
    if len(questions) != len(texts) or (subjects is not None and len(subjects) != len(texts)):
        raise ValueError("questions, texts and subjects must have the same length")
    if not questions:
        return {"n": 0}
    shares, jaccards, zero = [], [], 0
    for q, t in zip(questions, texts, strict=True):
        qw, tw = content_words(q), content_words(t)
        common = qw & tw
        shares.append(len(common) / len(qw) if qw else 0.0)
        union = qw | tw
        jaccards.append(len(common) / len(union) if union else 0.0)
        zero += not common
    n = len(questions)
    out: dict[str, Any] = {"n": n, "zero_overlap_share": round(zero / n, 4)}
    if subjects is not None:
        subject_in = sum(_contains(t, s) for t, s in zip(texts, subjects, strict=True))
        out["subject_in_fact_share"] = round(subject_in / n, 4)
    return {**out, "share": _summary(shares), "share_histogram": _histogram(shares),
            "jaccard": _summary(jaccards)}


DEFINITION = (
    "content words: lowercase [a-z0-9]+ tokens of 2+ characters not in "
    "memory_bench.scenarios.generators.overlap.STOP_WORDS, one plural s removed; "
    "share = |Q & F| / |Q|, jaccard = |Q & F| / |Q | F| for question Q and the text F it asks for"
)


def question_overlap(
    probe: tuple[Sequence[str], Sequence[str], Sequence[str]],
    update: tuple[Sequence[str], Sequence[str], Sequence[str]],
) -> dict[str, Any]:
    """The ``question_overlap`` entry of ScenarioData.stats.

    ``probe`` is (fact questions, fact texts, asked subjects), ``update`` the same
    for the update probes (question, update text, asked subject).
    """
    return {
        "definition": DEFINITION,
        "stop_words": len(STOP_WORDS),
        "probe": overlap_stats(*probe),
        "update": overlap_stats(*update),
    }
