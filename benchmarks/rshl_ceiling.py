"""How close the lexical RSHL lattice gets to a TF-IDF retriever on the same texts.

The lattice's encoder is lexical (words, word pairs, trigrams, name spans), so
its natural ceiling is exact TF-IDF cosine retrieval over the same texts. For
each seed of the default scenario this script builds, on the facts (phase 2)
and then on facts + noise (phase 5), and asks every fact's question:

- ``tfidf-words``: unigram TF-IDF, smooth IDF, L2 rows (scikit-learn's defaults,
  re-implemented here with scipy.sparse so that nothing else is needed);
- ``tfidf-bigrams``: unigrams + bigrams, English stop-words removed, sublinear tf;
- ``rshl``: the lattice with its defaults (reinforcement on, as in the protocol);
- ``rshl-no-names``: the lattice without its capitalised-name feature;
- ``rshl-exact``: the lattice's features and weights scored as exact sparse
  cosine (no hypervectors): what the hypervector approximation costs.

    python benchmarks/rshl_ceiling.py --seeds 5
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
from memory_bench_rshl import Lattice, LatticeConfig, Record
from memory_bench_rshl.encoder import STOP_WORDS
from scipy import sparse

_WORD = re.compile(r"(?u)\b\w\w+\b")


class Tfidf:
    """Exact TF-IDF cosine retrieval (refit on every document set)."""

    def __init__(self, bigrams: bool, stop: bool, sublinear: bool) -> None:
        self.bigrams, self.stop, self.sublinear = bigrams, stop, sublinear

    def terms(self, text: str) -> list[str]:
        words = [w for w in _WORD.findall(text.lower()) if not (self.stop and w in STOP_WORDS)]
        out = list(words)
        if self.bigrams:
            out += [f"{a} {b}" for a, b in itertools.pairwise(words)]
        return out

    def fit(self, docs: Sequence[str]) -> None:
        self.vocab: dict[str, int] = {}
        df: Counter[str] = Counter()
        rows = [Counter(self.terms(d)) for d in docs]
        for r in rows:
            df.update(r.keys())
        for t in sorted(df):
            self.vocab[t] = len(self.vocab)
        n = len(docs)
        self.idf = np.array([math.log((1 + n) / (1 + df[t])) + 1 for t in sorted(df)])
        self.matrix = self._vectors(rows)

    def _vectors(self, rows: list[Counter[str]]) -> sparse.csr_matrix:
        data, ind, ptr = [], [], [0]
        for r in rows:
            for t, c in r.items():
                j = self.vocab.get(t)
                if j is None:
                    continue
                tf = 1 + math.log(c) if self.sublinear else c
                ind.append(j)
                data.append(tf * self.idf[j])
            ptr.append(len(ind))
        m = sparse.csr_matrix((data, ind, ptr), shape=(len(rows), len(self.vocab)))
        norms = np.sqrt(np.asarray(m.multiply(m).sum(axis=1)).ravel())
        norms[norms == 0] = 1
        return sparse.diags(1 / norms) @ m

    def query(self, text: str, k: int) -> list[int]:
        q = self._vectors([Counter(self.terms(text))])
        scores = (self.matrix @ q.T).toarray().ravel()
        return list(np.argsort(-scores, kind="stable")[:k])


def _recall(ask: Callable[[str], list[str]], questions: list[str], expected: list[str]) -> tuple[
    float, float
]:
    r1 = r5 = 0
    for q, e in zip(questions, expected, strict=True):
        got = ask(q)
        r1 += got[:1] == [e]
        r5 += e in got[:5]
    return r1 / len(questions), r5 / len(questions)


def _lattice_exact(lat: Lattice) -> Callable[[str], list[str]]:
    """Exact sparse cosine over the lattice's own features and IDF weights."""
    enc, stats = lat.encoder, lat.stats
    cells = [c for c in lat.cells if c is not None]
    vecs = [enc.weights(enc.features(c.text), stats) for c in cells]
    norms = [math.sqrt(sum(w * w for w in v.values())) or 1.0 for v in vecs]

    def ask(q: str) -> list[str]:
        qv = enc.weights(enc.features(q), stats)
        scores = [sum(w * v.get(f, 0.0) for f, w in qv.items()) / n for v, n in
                  zip(vecs, norms, strict=True)]
        order = np.argsort(-np.asarray(scores), kind="stable")[:5]
        return [cells[i].id for i in order]

    return ask


def main() -> None:
    from memory_bench.scenarios.builtin import continual_data as generate
    from memory_bench.scenarios.spec import load_scenario

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    scenario = load_scenario("default")
    systems = ["tfidf-words", "tfidf-bigrams", "rshl", "rshl-no-names", "rshl-exact"]
    table: dict[str, list[tuple[float, float, float, float]]] = {s: [] for s in systems}
    for seed in range(args.seeds):
        d = generate(scenario, seed)
        questions = [f.question for f in d.facts]
        expected = [f.item.id for f in d.facts]
        phases = [[f.item for f in d.facts], [f.item for f in d.facts] + list(d.noise)]
        for name, tf in (("tfidf-words", Tfidf(False, False, False)),
                         ("tfidf-bigrams", Tfidf(True, True, True))):
            res = []
            for items in phases:
                tf.fit([i.text for i in items])
                ids = [i.id for i in items]
                res += _recall(lambda q, tf=tf, ids=ids: [ids[j] for j in tf.query(q, 5)],
                               questions, expected)
            table[name].append(tuple(res))  # type: ignore[arg-type]
        for name, cfg in (("rshl", LatticeConfig()), ("rshl-no-names",
                                                       LatticeConfig(name_weight=0.0))):
            lat = Lattice(cfg)
            res = []
            for batch in (phases[0], list(d.noise)):
                lat.write([Record(i.id, i.text, i.source, i.timestamp, i.region, i.tags)
                           for i in batch])
                res += _recall(lambda q, lat=lat: [h.id for h in lat.query(q, 5)], questions,
                               expected)
            table[name].append(tuple(res))  # type: ignore[arg-type]
            if name == "rshl":
                exact = _lattice_exact(lat)
                lat0 = Lattice(cfg)
                lat0.write([Record(i.id, i.text, i.source, i.timestamp, i.region, i.tags)
                            for i in phases[0]])
                table["rshl-exact"].append(
                    _recall(_lattice_exact(lat0), questions, expected)
                    + _recall(exact, questions, expected))
    print(f"default scenario, {args.seeds} seeds, mean [min..max] over seeds")
    print(f"{'system':15s} {'recall@1 before':>22s} {'recall@5 before':>22s} "
          f"{'recall@1 after':>22s} {'recall@5 after':>22s}")
    for name in systems:
        arr = np.array(table[name])
        cols = [f"{arr[:, j].mean():.3f} [{arr[:, j].min():.3f}..{arr[:, j].max():.3f}]"
                for j in range(4)]
        print(f"{name:15s} " + " ".join(f"{c:>22s}" for c in cols))


if __name__ == "__main__":
    main()
