"""RSHL lattice speed: encode throughput, query latency against faiss, bytes per cell.

Not a test: a measurement, printed as tables (and written as JSON with --out).

1. Encode throughput (texts/s) on the default scenario's real texts (facts,
   noise, updates and questions of several seeds), side by side with the
   all-MiniLM-L6-v2 sentence-transformers model on the same texts when it is
   installed (batch 64, CPU, no cache).
2. Query latency, p50 and p95, at 10^3 .. 10^6 cells (D = 4096), in the same
   run and interleaved query by query, for:
   - ``faiss``: ``IndexBinaryFlat`` over the packed sign codes (exact Hamming top-k);
   - ``scan``: the lattice's candidate scan (sketch prefilter + full-code
     Hamming) over the *same* codes, with its recall of faiss's top-k;
   - ``numpy-full``: a full-code Hamming scan in numpy (the same work as faiss);
   - ``query``: the whole lattice query path minus encoding: scan + exact
     cosine rescoring of the candidates on int8 accumulators.
   Codes are random bits (the issue's instruction: build them directly); each
   query is a stored code with 30% of its bits flipped, so a true neighbour exists.
   faiss runs on one thread, like numpy.
3. Bytes per cell: the index arrays, the Python cell records (tracemalloc) and
   the saved directory, for a lattice holding one default-scenario seed.
4. Ingest: items/s writing the scale scenario's items (train seed 100) into a
   fresh lexical lattice at two sizes in one sitting (5,000 and 20,000: their
   ratio says whether a write's cost grows with the store), and traced memory
   per cell at 10^5 items.

    python benchmarks/rshl_speed.py                    # everything (about 5 minutes)
    python benchmarks/rshl_speed.py --sizes 1000,10000 --queries 100
    python benchmarks/rshl_speed.py --skip encode,bytes,latency     # ingest only
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
from memory_bench_rshl import Lattice, LatticeConfig, Record
from memory_bench_rshl.index import CodeIndex, hamming


def _scenario_texts(seeds: int) -> tuple[list[str], list[list[Record]]]:
    from memory_bench.scenarios.builtin import continual_data as generate
    from memory_bench.scenarios.spec import load_scenario

    scenario = load_scenario("default")
    texts: list[str] = []
    batches: list[list[Record]] = []
    for seed in range(seeds):
        d = generate(scenario, seed)
        items = [f.item for f in d.facts] + list(d.noise) + [u.item for u in d.updates]
        texts += [i.text for i in items] + [f.question for f in d.facts]
        batches.append([Record(i.id, i.text, i.source, i.timestamp, i.region, i.tags)
                        for i in items])
    return texts, batches


def bench_encode(seeds: int, torch_threads: int) -> dict[str, Any]:
    texts, batches = _scenario_texts(seeds)
    lat = Lattice(LatticeConfig())
    lat.write(batches[0])  # IDF learned from one seed's lattice, as in use
    out: dict[str, Any] = {"texts": len(texts)}
    for label, enc in (("rshl cold cache", True), ("rshl warm cache", False)):
        if enc:
            lat.encoder._cache.clear()
        t = time.perf_counter()
        for text in texts:
            lat.encoder.encode(text, lat.stats)
        out[label] = len(texts) / (time.perf_counter() - t)
    try:
        import torch
        from memory_bench_embed import Embedder

        torch.set_num_threads(torch_threads)  # the lattice encoder is single-threaded too
        emb = Embedder(cache_dir=None)
        emb.encode(texts[:64])  # warm-up
        t = time.perf_counter()
        emb.encode(texts)
        label = f"MiniLM-L6-v2 (sentence-transformers, CPU, {torch_threads} thread)"
        out[label] = len(texts) / (time.perf_counter() - t)
    except Exception as exc:  # not installed: say so, do not fail
        out["MiniLM-L6-v2"] = f"not measured: {exc}"
    return out


def _random_index(
    n: int, dim: int, rng: np.random.Generator, with_acc: bool, sketch_bits: int, prefilter: int
) -> CodeIndex:
    idx = CodeIndex(dim, capacity=n, sketch_bits=sketch_bits, prefilter=prefilter)
    words = dim // 64
    step = 1 << 16
    for s in range(0, n, step):
        e = min(n, s + step)
        idx.codes[s:e] = rng.integers(0, np.iinfo(np.uint64).max, size=(e - s, words),
                                      dtype=np.uint64, endpoint=True)
        if with_acc:
            idx.acc[s:e] = rng.integers(-127, 128, size=(e - s, dim), dtype=np.int8)
    idx.sketch[:, :n] = idx.codes[:n, : idx.sketch_words].T
    idx.scale[:n] = 1.0
    if with_acc:
        for s in range(0, n, step):
            e = min(n, s + step)
            idx.norm[s:e] = np.linalg.norm(idx.acc[s:e].astype(np.float32), axis=1)
    idx.n = n
    return idx


def _flip(code: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    bits = np.unpackbits(code.view(np.uint8))
    mask = rng.random(bits.shape[0]) < share
    bits[mask] ^= 1
    return np.packbits(bits).view(np.uint64)


def _pct(xs: list[float]) -> dict[str, float]:
    a = np.asarray(xs) * 1e3
    return {"p50_ms": float(np.percentile(a, 50)), "p95_ms": float(np.percentile(a, 95))}


def bench_latency(
    sizes: list[int], queries: int, k: int, seed: int, flip: float, sketch_bits: int,
    prefilter: int,
) -> list[dict[str, Any]]:
    import faiss

    faiss.omp_set_num_threads(1)
    dim = 4096
    rows_out = []
    for n in sizes:
        rng = np.random.default_rng(seed + n)
        idx = _random_index(n, dim, rng, with_acc=True, sketch_bits=sketch_bits,
                            prefilter=prefilter)
        fx = faiss.IndexBinaryFlat(dim)
        fx.add(idx.codes[:n].view(np.uint8))
        nq = max(50, min(queries, int(queries * 1e5 / n))) if n > 100_000 else queries
        targets = rng.integers(0, n, size=nq)
        qcodes = [_flip(idx.codes[t], rng, flip) for t in targets]
        qaccs = [rng.standard_normal(dim).astype(np.float32) for _ in targets]
        m = 64
        t_f, t_s, t_n, t_q, recall, found = [], [], [], [], [], 0
        for qc, qa, target in zip(qcodes, qaccs, targets, strict=True):
            t = time.perf_counter()
            _, fi = fx.search(qc.view(np.uint8)[None, :], k)
            t_f.append(time.perf_counter() - t)
            t = time.perf_counter()
            cand = idx.candidates(qc, m)
            t_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            d = hamming(idx.codes, qc, n)
            np.argpartition(d, k)[:k]
            t_n.append(time.perf_counter() - t)
            t = time.perf_counter()
            rows = idx.candidates(qc, m)
            cos = idx.cosine(qa, rows)
            rows[np.argsort(-cos)[:k]]
            t_q.append(time.perf_counter() - t)
            # The planted neighbour is faiss's exact top-1: is it the scan's top-1 too?
            best = cand[int(np.argmin(hamming(idx.codes[cand], qc)))]
            recall.append(int(best == fi[0][0]))
            found += int(fi[0][0] == target)
        f, s, nf, q = _pct(t_f), _pct(t_s), _pct(t_n), _pct(t_q)
        rows_out.append({
            "cells": n,
            "queries": nq,
            "faiss": f,
            "scan": s,
            "numpy_full": nf,
            "query": q,
            "scan_over_faiss_p50": s["p50_ms"] / f["p50_ms"],
            "scan_over_faiss_p95": s["p95_ms"] / f["p95_ms"],
            "numpy_full_over_faiss_p50": nf["p50_ms"] / f["p50_ms"],
            "scan_top1_equals_faiss_top1": float(np.mean(recall)),
            "faiss_top1_is_planted": found / nq,
            "loadavg_1min": os.getloadavg()[0],
            "index_bytes": int(idx.codes[:n].nbytes + idx.sketch[:n].nbytes + idx.acc[:n].nbytes
                               + idx.scale[:n].nbytes + idx.norm[:n].nbytes),
        })
        print(_latency_line(rows_out[-1]), flush=True)
        del fx, idx
    return rows_out


def _latency_line(r: dict[str, Any]) -> str:
    return (
        f"{r['cells']:>9,} cells  q={r['queries']:<4} "
        f"faiss {r['faiss']['p50_ms']:8.3f} / {r['faiss']['p95_ms']:8.3f} ms   "
        f"scan {r['scan']['p50_ms']:8.3f} / {r['scan']['p95_ms']:8.3f} ms "
        f"({r['scan_over_faiss_p50']:.2f}x, {r['scan_over_faiss_p95']:.2f}x)   "
        f"numpy-full {r['numpy_full']['p50_ms']:8.3f} ms ({r['numpy_full_over_faiss_p50']:.2f}x)"
        f"   query {r['query']['p50_ms']:8.3f} / {r['query']['p95_ms']:8.3f} ms   "
        f"top-1 = faiss top-1: {r['scan_top1_equals_faiss_top1']:.3f}   "
        f"load {r['loadavg_1min']:.1f}"
    )


def bench_bytes() -> dict[str, Any]:
    _, batches = _scenario_texts(1)
    tracemalloc.start()
    lat = Lattice(LatticeConfig())
    lat.write(batches[0])
    current, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n = lat.live_count()
    cache = sum(v.nbytes + 100 for v in lat.encoder._cache.values())
    idx = lat.index
    index_per_cell = idx.nbytes_per_row()
    allocated_index = sum(getattr(idx, a).nbytes for a in ("codes", "sketch", "acc", "scale",
                                                            "norm"))
    tmp = Path(tempfile.mkdtemp())
    try:
        lat.save(tmp / "lat")
        disk = sum(p.stat().st_size for p in (tmp / "lat").iterdir())
    finally:
        shutil.rmtree(tmp)
    python_records = current - allocated_index - cache
    return {
        "cells": n,
        "index_bytes_per_cell": index_per_cell,
        "python_cell_records_bytes_per_cell": python_records / n,
        "feature_vector_cache_bytes": cache,
        "memory_bytes_per_cell": index_per_cell + python_records / n,
        "disk_bytes_per_cell": disk / n,
    }


def _scale_records(n: int, seed: int = 100) -> list[Record]:
    """The first ``n`` items the scale scenario writes at size ``n`` (a train seed), in order."""
    from memory_bench.harness.pair import generate_script
    from memory_bench.plugins import load_plugins
    from memory_bench.scenarios.script import Write
    from memory_bench.scenarios.spec import load_scenario

    plugins = load_plugins(autoload=True)
    spec = load_scenario("scale", {"size": n}, registry=plugins.scenarios)
    script = generate_script(plugins, spec.ref(), seed).bind("bench-speed-")
    items = [i for step in script.steps if isinstance(step, Write) for i in step.items]
    return [Record(i.id, i.text, i.source, i.timestamp, i.region) for i in items[:n]]


def _ingest(records: list[Record], batch: int, trace: bool = False) -> dict[str, Any]:
    """Write ``records`` in batches into a fresh lexical lattice (supersede=text: no tags)."""
    if trace:
        tracemalloc.start()
    lat = Lattice(LatticeConfig(supersede="text"))
    t = time.perf_counter()
    for s in range(0, len(records), batch):
        lat.write(records[s : s + batch])
    dt = time.perf_counter() - t
    out = {"items": len(records), "seconds": dt, "items_per_s": len(records) / dt,
           "cells": lat.live_count(), "loadavg_1min": os.getloadavg()[0]}
    if trace:
        current, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        cache = sum(v.nbytes + 100 for v in lat.encoder._cache.values())
        out["traced_bytes_per_cell"] = current / out["cells"]
        out["traced_bytes_per_cell_without_vector_cache"] = (current - cache) / out["cells"]
        out["index_bytes_per_row"] = lat.index.nbytes_per_row()
    return out


def bench_ingest(small: int, large: int, memory_at: int, batch: int) -> dict[str, Any]:
    """Ingest rate at ``small`` and ``large`` items in one sitting, and memory at ``memory_at``."""
    records = _scale_records(max(large, memory_at))
    a = _ingest(records[:small], batch)
    print(f"  {small:>9,} items: {a['items_per_s']:8.0f} items/s  load {a['loadavg_1min']:.1f}",
          flush=True)
    b = _ingest(records[:large], batch)
    print(f"  {large:>9,} items: {b['items_per_s']:8.0f} items/s  load {b['loadavg_1min']:.1f}",
          flush=True)
    out: dict[str, Any] = {"small": a, "large": b, "ratio": b["items_per_s"] / a["items_per_s"]}
    print(f"  rate at {large:,} / rate at {small:,}: {out['ratio']:.2f}", flush=True)
    if memory_at:
        m = _ingest(records[:memory_at], batch, trace=True)
        out["memory"] = m
        print(f"  {memory_at:>9,} items (traced): {m['items_per_s']:8.0f} items/s, "
              f"{m['traced_bytes_per_cell']:,.0f} B per cell traced, "
              f"{m['traced_bytes_per_cell_without_vector_cache']:,.0f} B without the feature "
              f"vector cache, index {m['index_bytes_per_row']:,} B per row, "
              f"load {m['loadavg_1min']:.1f}", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--flip", type=float, default=0.42, help="share of bits flipped in a query")
    ap.add_argument("--encode-seeds", type=int, default=3)
    ap.add_argument("--torch-threads", type=int, default=1)
    ap.add_argument("--sketch-bits", type=int, default=1024)
    ap.add_argument("--prefilter", type=int, default=4096)
    ap.add_argument("--skip", default="",
                    help="comma list of encode,latency,bytes,ingest to skip")
    ap.add_argument("--ingest-sizes", default="5000,20000",
                    help="ingest rate measured at these two sizes, in one sitting")
    ap.add_argument("--memory-at", type=int, default=100_000,
                    help="traced memory per cell after ingesting this many items (0: skip)")
    ap.add_argument("--write-batch", type=int, default=256)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    report: dict[str, Any] = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpus": os.cpu_count(),
        "loadavg_at_start": os.getloadavg(),
    }
    print(f"{os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.1f} "
          "(other jobs share this machine: p95 mostly measures them)")
    if "encode" not in skip:
        enc = bench_encode(args.encode_seeds, args.torch_threads)
        report["encode_texts_per_s"] = enc
        print(f"\nencode throughput on {enc['texts']} scenario texts:")
        for key, v in enc.items():
            if key != "texts":
                print(f"  {key:45s} {v if isinstance(v, str) else f'{v:10.0f} texts/s'}")
    if "bytes" not in skip:
        b = bench_bytes()
        report["bytes_per_cell"] = b
        print("\nbytes per cell (D=4096):")
        for key, v in b.items():
            print(f"  {key:40s} {v:12,.0f}")
    if "ingest" not in skip:
        small, large = (int(x) for x in args.ingest_sizes.split(","))
        print(f"\ningest, lexical lattice, scale scenario items (train seed 100), "
              f"batches of {args.write_batch}:")
        report["ingest"] = bench_ingest(small, large, args.memory_at, args.write_batch)
    if "latency" not in skip:
        try:
            import faiss
        except ImportError:
            raise SystemExit("the latency comparison needs faiss: pip install faiss-cpu "
                             "(or -e 'backends/rshl[bench]'), or pass --skip latency") from None

        report["faiss"] = faiss.__version__
        print(f"\nquery latency p50 / p95, D=4096, k={args.k}, one thread, "
              f"faiss {faiss.__version__}, queries = a stored code with {args.flip:.0%} of bits "
              f"flipped, sketch {args.sketch_bits} bits, prefilter {args.prefilter}:")
        sizes = [int(s) for s in args.sizes.split(",")]
        report["latency"] = bench_latency(sizes, args.queries, args.k, seed=0, flip=args.flip,
                                          sketch_bits=args.sketch_bits, prefilter=args.prefilter)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
