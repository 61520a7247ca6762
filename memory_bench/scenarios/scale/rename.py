"""New items from old ones by renaming: the name tokens of a text, swapped for fresh ones.

Noise at 10⁵–10⁶ items cannot come from name pools sized for a few thousand
subjects, and must not be slower to make than the run that uses it. So the
sweep makes it from a generator's own items, by renaming:

- a **name token** is a capitalised word whose lower-case form never occurs in
  the script's texts ("Olsen", "Kellsport"; not "The", not "Records"); digit runs
  ("4471") are renamed too, digit by digit;
- a **fresh** token is the first half of one name token joined to the second
  half of another ("Ol" + "bury"), never a token the script already holds, so
  renamed items never mention a fact's subject;
- a renamed item's ``subject:`` tags (any tag value) are renamed with it, so a
  backend reading tags sees a different subject, as the text says.

An *easy* variant renames every name token of a noise item: another fact
about other (invented) subjects. A *near miss* renames one name token of a
fact that its question also names (one word of the subject: "Mara Olsen" ->
"Mara Olbury") and keeps the rest, relation and value included: a hard
distractor that never answers the fact's question.

Everything is drawn from one seeded ``random.Random``, so a seed gives the same
items on every machine.
"""

from __future__ import annotations

import random
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

__all__ = ["CAPITALISED", "NameSpace", "RenameError", "Template"]

CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
_LOWER = re.compile(r"\b[a-z]+\b")
_DIGITS = re.compile(r"\b\d+\b")
_TRIES = 64  # draws per wanted item before giving up on making it distinct


class RenameError(ValueError):
    """The script's texts hold too few name tokens to make the items asked for."""


@dataclass(frozen=True)
class Template:
    """A text and its tags as format strings: ``{i}`` for name token i (``tokens[i]``;
    the same token twice is one field), ``{n+j}`` for digit run j (``digits[j]``)."""

    text: str
    tags: tuple[str, ...]
    tokens: tuple[str, ...]
    digits: tuple[str, ...]


def _halves(token: str) -> tuple[str, list[str]]:
    """A token's first half and its second halves (cut at the middle, or one letter
    either side of it), the pieces fresh tokens are made of."""
    mid = len(token) // 2
    tails = [token[m:] for m in (mid - 1, mid, mid + 1) if m >= 1 and len(token) - m >= 2]
    return token[: (len(token) + 1) // 2], tails


class NameSpace:
    """The name tokens of a set of texts, and fresh tokens made from them."""

    def __init__(self, texts: Iterable[str], rng: random.Random) -> None:
        lower: set[str] = set()
        held: set[str] = set()
        for text in texts:
            lower.update(_LOWER.findall(text))
            held.update(m.group() for m in CAPITALISED.finditer(text))
        # A capitalised word seen only first in its texts is a name too when its lower-case
        # form never occurs ("Kirsten" opening every text that names her), else a renamed
        # item would keep it and name a fact's subject.
        self.names = frozenset(t for t in held if t.lower() not in lower)
        self._held = frozenset(held | lower)
        heads, tails = set(), set()
        for t in sorted(self.names):
            head, rest = _halves(t)
            heads.add(head)
            tails.update(rest)
        self._heads, self._tails = sorted(heads), sorted(tails)
        self._pools: dict[str | None, list[str]] = {}
        if not self._heads or not self._tails:
            raise RenameError("the script's texts hold no name tokens to rename")
        self._random = rng.random

    def template(self, text: str, tags: Sequence[str] = ()) -> Template:
        """``text`` with its name tokens and digit runs as fields; tags at the same tokens."""
        found = sorted([*CAPITALISED.finditer(text), *_DIGITS.finditer(text)],
                       key=lambda m: m.start())
        spans = [m for m in found if m.group()[0].isdigit() or m.group() in self.names]
        tokens = list(dict.fromkeys(m.group() for m in spans if not m.group()[0].isdigit()))
        digits = [m.group() for m in spans if m.group()[0].isdigit()]
        out, pos, j = [], 0, len(tokens)
        for m in spans:
            if m.group()[0].isdigit():
                field, j = j, j + 1
            else:
                field = tokens.index(m.group())
            out += [_escape(text[pos : m.start()]), f"{{{field}}}"]
            pos = m.end()
        out.append(_escape(text[pos:]))
        tag_fmts = []
        for tag in tags:
            bits, tpos = [], 0
            for m in CAPITALISED.finditer(tag):
                if m.group() in tokens:
                    bits += [_escape(tag[tpos : m.start()]), f"{{{tokens.index(m.group())}}}"]
                    tpos = m.end()
            bits.append(_escape(tag[tpos:]))
            tag_fmts.append("".join(bits))
        return Template("".join(out), tuple(tag_fmts), tuple(tokens), tuple(digits))

    def _pool(self, head: str | None) -> list[str]:
        """Every fresh token (``head`` None) or every near miss of a token with first
        half ``head``, made once: drawing one is then a single random index."""
        pool = self._pools.get(head)
        if pool is None:
            heads = self._heads if head is None else [head]
            pool = [h + t for h in heads for t in self._tails if h + t not in self._held]
            if not pool:
                raise RenameError(f"no fresh token can be made from {head!r}")
            self._pools[head] = pool
        return pool

    def fresh(self, like: str | None = None) -> str:
        """A token no text holds: two halves of name tokens, or ``like``'s own first
        half and another's second half (a near miss of ``like``)."""
        pool = self._pool(None if like is None else _halves(like)[0])
        return pool[int(self._random() * len(pool))]

    def _digits(self, kept: str) -> str:
        low = 10 ** (len(kept) - 1) if len(kept) > 1 else 0
        return str(low + int(self._random() * (10 ** len(kept) - low)))

    def fill(self, t: Template, names: Sequence[str], *, redraw_digits: bool
             ) -> tuple[str, tuple[str, ...]]:
        """The text and tags of ``t`` with ``names[i]`` for token i; digit runs redrawn
        (same width) or kept."""
        digits = [self._digits(d) for d in t.digits] if redraw_digits else t.digits
        args = (*names, *digits)
        return t.text.format(*args), tuple(f.format(*args) for f in t.tags)

    def renamed(self, t: Template, taken: set[str]) -> tuple[str, tuple[str, ...]]:
        """An easy variant of ``t``: every name token fresh; its text not in ``taken``."""
        pool, r = self._pool(None), self._random
        for _ in range(_TRIES):
            names = [pool[int(r() * len(pool))] for _ in t.tokens]
            text, tags = self.fill(t, names, redraw_digits=True)
            if text not in taken:
                return text, tags
        raise RenameError(f"could not make a new text from {t.text!r}: the script holds "
                          "too few name tokens for this many items")

    def near_miss(self, t: Template, subject: Collection[str], taken: set[str]
                  ) -> tuple[str, tuple[str, ...]] | None:
        """``t`` with one of its ``subject`` tokens swapped for a near miss of it (the
        rest, digits included, kept), or None when no new one could be made."""
        choices = [i for i, tok in enumerate(t.tokens) if tok in subject]
        if not choices:
            return None
        for _ in range(_TRIES):
            names = list(t.tokens)
            i = choices[int(self._random() * len(choices))]
            names[i] = self.fresh(like=names[i])
            text, tags = self.fill(t, names, redraw_digits=False)
            if text not in taken:
                return text, tags
        return None


def _escape(literal: str) -> str:
    return literal.replace("{", "{{").replace("}", "}}")
