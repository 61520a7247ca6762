"""Model-free text -> hypervector encoding (random indexing with learned IDF).

Every feature of a text (a content word, an unordered pair of nearby content
words, a character trigram of a content word) gets a dense bipolar random
vector drawn from SHAKE-256 of ``seed || feature``: the same on any machine and
any numpy version, with nothing to download. A text's hypervector is the
IDF-weighted sum (the *accumulator*) of its feature vectors. Pairs are bound by
elementwise product, which is commutative, so "capital of France" and
"France's capital" share the bound pair (capital, france). Stop-words and
question words carry no feature at all, so "Who does X work for?" is scored on
X and work, not on who/does/for.

The accumulator is returned as float32; the lattice keeps it (int8-quantised)
for exact rescoring and keeps only its sign bits for the fast scan.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from memory_bench_rshl.encoding import Encoding
    from memory_bench_rshl.index import CodeIndex

__all__ = [
    "STOP_WORDS",
    "Encoder",
    "IdfStats",
    "content_stems",
    "name_spans",
    "pack_signs",
    "tokenize",
]

# Function words and question words: they occur in every template and every
# question, so they would only add noise shared by all cells.
_STOP_TEXT = """
    a an the and or but nor of to in on at by for from with without into onto upon
    over under about after before between during through as than then so if
    is are was were be been being am do does did done doing has have had having
    will would shall should can could may might must
    who whom whose what which where when why how whatever whoever
    this that these those there here it its it's they them their theirs he him his
    she her hers we us our ours you your yours i me my mine
    not no yes also just only very now still currently
    tell please know any some each every all both either neither
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
_TOKEN = re.compile(r"[a-z0-9]+")
_POSSESSIVE = re.compile(r"(\w)['’]s\b")


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens; a possessive 's is dropped ("France's" -> "france")."""
    return _TOKEN.findall(_POSSESSIVE.sub(r"\1", text.lower()))


_WORD = re.compile(r"\S+")
_NAME_TOKEN = re.compile(r"[A-Z][\w'’-]*")
_POSSESSIVE_END = re.compile(r"['’]s?$")


def name_spans(text: str) -> list[tuple[str, int]]:
    """Runs of capitalised non-stop-word tokens ("Mara Olsen", "Lower Rosthwaite").

    Returns (lower-cased span, position of its first token). Punctuation and a
    possessive end a span. The only model-free signal of a proper name is its
    capital letter; a capitalised first word of a sentence is included too.
    """
    spans: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    for i, raw in enumerate(_WORD.findall(text)):
        tok = raw.strip(".,;:!?\"()[]")
        bare = _POSSESSIVE_END.sub("", tok)
        is_name = bool(_NAME_TOKEN.fullmatch(tok)) and bare.lower() not in STOP_WORDS
        if bare and (is_name or (current and tok.isdigit())):  # "Orbit 545" is one name
            if not current:
                start = i
            current.append(bare.lower())
            if tok != bare or raw[-1] in ".,;:!?":
                spans.append((" ".join(current), start))
                current = []
            continue
        if current:
            spans.append((" ".join(current), start))
        current = []
    if current:
        spans.append((" ".join(current), start))
    return spans


def stem(word: str) -> str:
    """A deliberately light suffix stripper: works/worked/working -> work.

    Only plural and verb endings on words long enough that stripping is safe;
    character trigrams cover the word forms this misses.
    """
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ied"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_stems(text: str) -> list[str]:
    """The stems of a text's content words, in order (stop-words removed)."""
    return [stem(t) for t in tokenize(text) if t not in STOP_WORDS]


@dataclass
class IdfStats:
    """Document frequencies learned online, one count per cell containing a feature."""

    n_docs: int = 0
    df: Counter[str] = field(default_factory=Counter)

    def add(self, features: Iterable[str]) -> None:
        self.n_docs += 1
        for f in dict.fromkeys(features):  # first-seen order: a saved store is the same
            self.df[f] += 1  # bytes in every process (a set's order is PYTHONHASHSEED's)

    def remove(self, features: Iterable[str]) -> None:
        self.n_docs = max(0, self.n_docs - 1)
        for f in set(features):
            c = self.df.get(f, 0) - 1
            if c > 0:
                self.df[f] = c
            else:
                self.df.pop(f, None)

    def idf(self, feature: str) -> float:
        """Smoothed IDF; an unseen feature weighs as a feature seen once."""
        return math.log((1.0 + self.n_docs) / (1.0 + self.df.get(feature, 0))) + 1.0


class Encoder:
    """Deterministic feature extraction and hypervector bundling: the ``lexical`` encoder.

    ``dim`` must be a multiple of 64 (codes are packed into uint64 words).
    The feature-vector cache (packed bits, D/8 bytes an entry: 100 MB at most at
    D = 4096) is bounded by ``cache_size`` entries. It is a
    :class:`~memory_bench_rshl.encoding.TextEncoder` (the lattice's interface)
    and usable on its own (``encode``).
    """

    kind = "lexical"
    dense_dim = 0
    uses_idf = True

    def __init__(
        self,
        dim: int = 4096,
        seed: int = 0,
        *,
        pair_window: int = 3,
        pair_weight: float = 0.5,
        adjacent_weight: float = 1.2,
        ngram_weight: float = 0.25,
        name_weight: float = 2.0,
        cache_size: int = 200_000,
    ) -> None:
        if dim % 64:
            raise ValueError(f"dim must be a multiple of 64, got {dim}")
        self.dim = dim
        self.seed = seed
        self.pair_window = pair_window
        self.pair_weight = pair_weight
        self.adjacent_weight = adjacent_weight
        self.name_weight = name_weight
        self.ngram_weight = ngram_weight
        self.cache_size = cache_size
        self._cache: dict[str, np.ndarray] = {}
        self._salt = f"rshl/{seed}/{dim}/".encode()

    # -- features ---------------------------------------------------------
    def features(self, text: str) -> dict[str, float]:
        """Feature -> kind weight before IDF.

        Keys: ``w:`` word, ``p:`` pair, ``n:`` name span, ``g:`` character trigram.
        """
        stems = content_stems(text)
        out: dict[str, float] = {}
        for i, s in enumerate(stems):
            out["w:" + s] = out.get("w:" + s, 0.0) + 1.0
            for gap, t in enumerate(stems[i + 1 : i + 1 + self.pair_window]):
                if t != s:
                    a, b = (s, t) if s < t else (t, s)
                    key = f"p:{a}|{b}"
                    w = self.adjacent_weight if gap == 0 else self.pair_weight
                    out[key] = max(out.get(key, 0.0), w)
        if self.name_weight > 0:
            for span, _ in name_spans(text):
                out["n:" + span] = self.name_weight
        # Insertion-ordered de-duplication, never a set: a set iterates in string-hash
        # order, which PYTHONHASHSEED changes per process, and the order of these
        # float sums (here and in ``accumulate``) decides the last bits of a score.
        for word in dict.fromkeys(t for t in tokenize(text) if t not in STOP_WORDS):
            padded = f"#{word}#"
            grams = dict.fromkeys(padded[j : j + 3] for j in range(len(padded) - 2))
            w = self.ngram_weight / math.sqrt(len(grams))
            for g in grams:
                out["g:" + g] = out.get("g:" + g, 0.0) + w
        return out

    # -- random index vectors --------------------------------------------
    def _random_bits(self, key: str) -> np.ndarray:
        """A feature's random vector as D/8 packed bits (bit set = +1)."""
        raw = hashlib.shake_256(self._salt + key.encode("utf-8")).digest(self.dim // 8)
        return np.frombuffer(raw, dtype=np.uint8)

    def bits(self, feature: str) -> np.ndarray:
        """The packed bits of a feature's bipolar vector.

        A pair is the bound product of its words' vectors: +1 where they agree, the
        XNOR of their bits, computed here and never cached, so the cache holds words,
        names and trigrams only (a vocabulary that grows slowly, where pairs grow with
        every new text); each entry is D/8 bytes, not D.
        """
        if feature.startswith("p:"):
            a, b = feature[2:].split("|", 1)
            return ~(self.bits("w:" + a) ^ self.bits("w:" + b))
        v = self._cache.get(feature)
        if v is not None:
            return v
        v = self._random_bits(feature)
        if len(self._cache) >= self.cache_size:
            # Drop the older half: insertion order approximates recency well enough.
            for k in list(self._cache)[: self.cache_size // 2]:
                del self._cache[k]
        self._cache[feature] = v
        return v

    def vector(self, feature: str) -> np.ndarray:
        """The bipolar (+1/-1, int8) vector of a feature; pairs are bound products."""
        return np.unpackbits(self.bits(feature)).astype(np.int8) * 2 - 1

    # -- bundling ---------------------------------------------------------
    def weights(self, features: dict[str, float], stats: IdfStats | None) -> dict[str, float]:
        """Kind weight x IDF (x sublinear tf for repeated words)."""
        out = {}
        for f, w in features.items():
            if f.startswith("w:") and w > 1.0:
                w = 1.0 + math.log(w)
            out[f] = w * (stats.idf(f) if stats is not None else 1.0)
        return out

    def accumulate(self, weights: dict[str, float]) -> np.ndarray:
        """The float32 accumulator: the weighted sum of the feature vectors.

        With bits b in {0, 1} and v = 2b - 1: sum w v = 2 (sum w b) - sum w.
        """
        if not weights:
            return np.zeros(self.dim, dtype=np.float32)
        keys = list(weights)
        w = np.fromiter((weights[k] for k in keys), dtype=np.float32, count=len(keys))
        # Pairs in one vectorised XNOR of their words' rows, the rest from the cache.
        rows: dict[str, int] = {}
        single: list[np.ndarray] = []
        ia, ib, at = [], [], []
        for j, k in enumerate(keys):
            if k.startswith("p:"):
                a, b = k[2:].split("|", 1)
                for word in ("w:" + a, "w:" + b):
                    if word not in rows:
                        rows[word] = len(single)
                        single.append(self.bits(word))
                ia.append(rows["w:" + a])
                ib.append(rows["w:" + b])
                at.append(j)
        packed = np.empty((len(keys), self.dim // 8), dtype=np.uint8)
        if at:
            words = np.stack(single)
            packed[at] = ~(words[ia] ^ words[ib])
        rest = [j for j, k in enumerate(keys) if not k.startswith("p:")]
        if rest:
            packed[rest] = np.stack([self.bits(keys[j]) for j in rest])
        bits = np.unpackbits(packed, axis=1)
        # einsum, not ``@``: a BLAS GEMV this small gains nothing from threads, and
        # OpenBLAS threads on a busy machine made it ten times slower.
        acc = np.einsum("f,fd->d", w, bits.astype(np.float32))
        return acc * np.float32(2.0) - np.float32(w.sum(dtype=np.float32))

    def encode(self, text: str, stats: IdfStats | None = None) -> np.ndarray:
        """Text -> float32 accumulator of shape (dim,)."""
        return self.accumulate(self.weights(self.features(text), stats))

    # -- the lattice's interface (encoding.TextEncoder) -------------------
    def embed(self, texts: Sequence[str]) -> None:
        return None  # no dense part

    def encoding(self, features: dict[str, float], stats: IdfStats,
                 vector: np.ndarray | None = None) -> Encoding:
        from memory_bench_rshl.encoding import Encoding

        acc = self.accumulate(self.weights(features, stats))
        return Encoding(pack_signs(acc), acc)

    def query_encoding(self, text: str, stats: IdfStats) -> Encoding | None:
        enc = self.encoding(self.features(text), stats)
        return enc if np.any(enc.lexical) else None

    def similarity(self, index: CodeIndex, q: Encoding, rows: np.ndarray) -> np.ndarray:
        assert q.lexical is not None
        return index.cosine(q.lexical, rows)

    def identity(self) -> dict[str, Any]:
        return {"kind": self.kind, "dim": self.dim, "seed": self.seed}


def pack_signs(acc: np.ndarray) -> np.ndarray:
    """Sign bits of accumulators, packed into uint64 words (bit set where > 0).

    Works on one vector (dim,) or a batch (n, dim); returns (..., dim // 64).
    """
    bits = np.packbits(acc > 0, axis=-1)
    return bits.view(np.uint64)
