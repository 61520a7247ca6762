"""Answer proxies as metrics: the gold answer within the top k texts, and the tokens a
memory hands a reader per question (``scenarios/answers.py`` says how both are taken).

They read the probes that carry an answer key: ``answer_ranks`` (first rank of each
unit, 0 for none) and ``hit_tokens`` (each hit's tokens), recorded by the harness.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from memory_bench.metrics.spec import Metric, Outcomes, RecordView, declare
from memory_bench.records.records import ProbeRecord

__all__ = ["TOKENIZER", "answer_metrics"]

TOKENIZER = "whitespace"  # what scenarios/answers.py counts a text's tokens with

_KS = (5, 10)
Score = Callable[[ProbeRecord], float | None]


def _found(ranks: list[int], k: int) -> int:
    return sum(1 <= r <= k for r in ranks)


def contains(k: int) -> Score:
    """1.0 when every gold phrase is contained in a text of the top ``k``."""
    def one(p: ProbeRecord) -> float | None:
        phrases = p.answer_ranks[:p.answer_phrases]
        return float(_found(phrases, k) == len(phrases)) if phrases else None
    return one


def key_share(k: int) -> Score:
    """The share of the gold answer's key tokens found in the top ``k`` texts."""
    def one(p: ProbeRecord) -> float | None:
        tokens = p.answer_ranks[p.answer_phrases:]
        return _found(tokens, k) / len(tokens) if tokens else None
    return one


def context_tokens(k: int) -> Score:
    """Tokens of the top ``k`` texts, summed (what a reader is handed)."""
    return lambda p: float(sum(p.hit_tokens[:k])) if p.hit_tokens or p.answer_ranks else None


def _scores(score: Score, tags: tuple[str, ...], v: RecordView) -> dict[str, float]:
    out = {}
    for i, p in enumerate(v.probes(*tags)):
        value = score(p)
        if value is not None:
            out[f"{p.tag}/{p.key if p.key is not None else f'#{i}'}"] = value
    return out


def _rows(score: Score, tags: tuple[str, ...]) -> Callable[[RecordView], Outcomes]:
    return lambda v: {key: (value,) for key, value in _scores(score, tags, v).items()}


def answer_metrics(*tags: str) -> tuple[Metric, ...]:
    """answer@k, answer_tokens@k and context_tokens@k (k = 5, 10) over ``tags``."""
    out = []
    for k in _KS:
        out += [
            declare(f"answer@{k}", f"answer@{k}", reads=tags,
                    per_category=k == 5, section="results" if k == 5 else "other",
                    terminal=k == 5, undefined="no question carries a gold answer",
                    description=f"share of questions whose normalised gold answer (every "
                                f"phrase of it) is contained in one of the top {k} texts",
                    outcomes=_rows(contains(k), tags), aggregate="mean"),
            declare(f"answer_tokens@{k}", f"ans.tok@{k}", reads=tags, section="other",
                    terminal=False,
                    undefined="no gold answer has a key token",
                    description=f"mean share of the gold answer's key tokens (content words) "
                                f"found among the words of the top {k} texts",
                    outcomes=_rows(key_share(k), tags), aggregate="mean"),
            declare(f"context_tokens@{k}", f"ctx tok@{k}", reads=tags, section="other",
                    terminal=k == 5, higher_is_better=False,
                    bounds=(0.0, math.inf), decimals=0, thousands=True,
                    undefined="no question recorded what its hits cost",
                    description=f"mean tokens ({TOKENIZER} tokenizer: str.split) of the top "
                                f"{k} texts per question: the cost of handing them to a reader",
                    outcomes=_rows(context_tokens(k), tags), aggregate="mean"),
        ]
    return tuple(out)
