"""One tokenisation for item texts and questions, so that both meet in one vocabulary.

bm25s's own tokenizer: lower-case, the regex ``\\b\\w\\w+\\b`` (words of two or
more letters or digits: punctuation and one-character words drop), then the
chosen stop-word list, then the chosen Snowball stemmer. Items and questions go
through exactly the same steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import bm25s

__all__ = ["Tokenizer"]


class Tokenizer:
    """Texts -> lists of string tokens, with the options the backend was given."""

    def __init__(self, stopwords: str = "en", stemmer: str = "english") -> None:
        self.stopwords: str | None = None if stopwords == "none" else stopwords
        self._stem: Callable[[list[str]], list[str]] | None = None
        if stemmer != "none":
            import Stemmer  # PyStemmer: bm25s stems only when given a stemmer

            self._stem = Stemmer.Stemmer(stemmer).stemWords

    def __call__(self, texts: Sequence[str]) -> list[list[str]]:
        if not texts:
            return []
        out = bm25s.tokenize(
            list(texts),
            lower=True,
            stopwords=self.stopwords,  # type: ignore[arg-type]
            stemmer=self._stem,
            return_ids=False,
            show_progress=False,
        )
        return [list(doc) for doc in out]
