"""rerank's second stage on LoCoMo: where a query's time goes, and what batching or threads buy.

Not a test: a measurement, printed as a table (and written as JSON with --out).

One LoCoMo conversation is written into a ``rerank`` backend (first stage:
faiss-rag, the shared MiniLM); for each of its first ``--questions``
questions the first stage's top ``--depth`` is taken once, then scored, in
the same sitting and interleaved question by question, by:

- ``alone-t1``: each pair in its own onnxruntime run, one intra-op thread
  (what the backend does);
- ``alone-t2``: the same with two intra-op threads;
- ``batch``: all ``depth`` pairs in one run, padded to the longest;
- ``buckets``: pairs grouped by token length, one run per length (no padding).

Each variant prints its time per question, its ratio to ``alone-t1``, and how
its rankings compare with ``alone-t1``'s: top-10 order identical, top-1
identical, largest score difference. The shipped model quantises activations
per tensor at run time, so a batched pair's score moves with its batch-mates
(and with padding): batching is only a speed change if these stay identical.
A profile of one question's path (first stage, tokeniser, runs) is printed too.

    python benchmarks/rerank_speed.py --locomo ../data/locomo10.json
    python benchmarks/rerank_speed.py --locomo ../data/locomo10.json --questions 10 --out r.json
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

Scorer = Callable[[str, Sequence[str]], np.ndarray]


def _conversation(path: Path, index: int) -> tuple[list[str], list[str]]:
    """The conversation's turns as ``Speaker: text`` (sessions in order) and its questions."""
    conv = json.loads(path.read_text())[index]
    sessions = sorted((k for k, v in conv["conversation"].items()
                       if k.startswith("session_") and isinstance(v, list)),
                      key=lambda k: int(k.split("_")[1]))
    turns = [f"{t['speaker']}: {t['text']}" for s in sessions for t in conv["conversation"][s]]
    return turns, [q["question"] for q in conv["qa"]]


def _feed(encs: Sequence[Any], inputs: set[str]) -> dict[str, np.ndarray]:
    width = max(len(e.ids) for e in encs)
    arrays = {n: np.zeros((len(encs), width), dtype=np.int64)
              for n in ("input_ids", "attention_mask", "token_type_ids")}
    for i, e in enumerate(encs):
        n = len(e.ids)
        arrays["input_ids"][i, :n] = e.ids
        arrays["attention_mask"][i, :n] = e.attention_mask
        arrays["token_type_ids"][i, :n] = e.type_ids
    return {k: v for k, v in arrays.items() if k in inputs}


def _batched(encoder: Any, *, buckets: bool) -> Scorer:
    def score(question: str, passages: Sequence[str]) -> np.ndarray:
        encs = encoder._tok.encode_batch([(question, p) for p in passages])
        groups: dict[int, list[int]] = defaultdict(list)
        for j, e in enumerate(encs):
            groups[len(e.ids) if buckets else 0].append(j)
        out = np.empty(len(encs), dtype=np.float32)
        for members in groups.values():
            feed = _feed([encs[j] for j in members], encoder._inputs)
            out[members] = encoder._session.run(None, feed)[0].reshape(-1)
        return out
    return score


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    return np.argsort(-scores, kind="stable")[:k]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--locomo", type=Path, default=Path("../data/locomo10.json"))
    ap.add_argument("--conversation", type=int, default=0)
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--depth", type=int, default=50)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if not args.locomo.is_file():
        print(f"rerank_speed: no LoCoMo file at {args.locomo} (give --locomo)", file=sys.stderr)
        return 2
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from memory_bench_rerank.crossencoder import CrossEncoder
    from memory_bench_rerank.model import verified_model_dir

    from memory_bench import BackendContext, Item
    from memory_bench.plugins import load_plugins
    from memory_bench.plugins.selection import select_backends

    turns, questions = _conversation(args.locomo, args.conversation)
    questions = questions[: args.questions]
    sel = select_backends(load_plugins().registry, [f"rerank:depth={args.depth}"])[0]
    with tempfile.TemporaryDirectory() as work:
        b = sel.info.factory(dict(sel.options), BackendContext(Path(work), 0, "speed"))
        t0 = datetime(2023, 1, 1, tzinfo=UTC)
        items = [Item(f"bench-s-e1-{i:04d}", t, "bench-s-e1", t0 + timedelta(seconds=i))
                 for i, t in enumerate(turns)]
        for i in range(0, len(items), 32):
            b.write(items[i:i + 32])
        b.query(questions[0], 10)  # warm: the first run of a session allocates
        prof = cProfile.Profile()
        prof.enable()
        for q in questions[:5]:
            b.query(q, 10)
        prof.disable()
        candidates = [[b._texts[h.id] for h in b.first.query(q, args.depth)] for q in questions]
        b.close()

    model = verified_model_dir()
    t1, t2 = CrossEncoder(model, threads=1), CrossEncoder(model, threads=2)
    variants: dict[str, Scorer] = {"alone-t1": t1.score, "alone-t2": t2.score,
                                   "batch": _batched(t1, buckets=False),
                                   "buckets": _batched(t1, buckets=True)}
    for score in variants.values():
        score(questions[0], candidates[0][:5])  # warm each session and path
    seconds = dict.fromkeys(variants, 0.0)
    same10, same1, diff = (dict.fromkeys(variants, 0) for _ in range(3))
    for q, passages in zip(questions, candidates, strict=True):
        got = {}
        for name, score in variants.items():
            start = time.perf_counter()
            got[name] = score(q, passages)
            seconds[name] += time.perf_counter() - start
        ref = got["alone-t1"]
        for name, s in got.items():
            same10[name] += bool((_top(s, 10) == _top(ref, 10)).all())
            same1[name] += int(_top(s, 1)[0] == _top(ref, 1)[0])
            diff[name] = max(diff[name], float(np.abs(s - ref).max()))

    n = len(questions)
    lens = [len(e.ids) for p, q in zip(candidates, questions, strict=True)
            for e in t1._tok.encode_batch([(q, x) for x in p])]
    print(f"LoCoMo conversation {args.conversation}: {len(turns)} turns, {n} questions, "
          f"depth {args.depth}; pair tokens mean {np.mean(lens):.0f}, max {max(lens)}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print("| variant | ms/question | x alone-t1 | top-10 order same | top-1 same | max |Δscore| |")
    print("|---|---|---|---|---|---|")
    rows = []
    for name in variants:
        ms = seconds[name] / n * 1000
        ratio = seconds[name] / seconds["alone-t1"]
        rows.append({"variant": name, "ms_per_question": ms, "ratio": ratio,
                     "top10_same": same10[name], "top1_same": same1[name],
                     "max_score_diff": diff[name]})
        print(f"| {name} | {ms:.0f} | {ratio:.2f} | {same10[name]}/{n} | {same1[name]}/{n} "
              f"| {diff[name]:.3f} |")
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(6)
    print("\nprofile of 5 queries through the backend (by own time):")
    print("\n".join(line for line in text.getvalue().splitlines() if line.strip())[-900:])
    if args.out:
        args.out.write_text(json.dumps({"rows": rows, "questions": n, "depth": args.depth,
                                        "load_average": os.getloadavg()[0]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
