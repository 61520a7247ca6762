"""Calibrate what the rshl encoders' similarity decides, on seeds no result is published for.

Three numbers depend on the scale of the encoder's similarity: the hybrid weight
``dense_weight``, the text-only supersession threshold (``supersede_cosine``)
and the near-duplicate merge threshold (``merge_cosine``). This script
measures all three from scenario scripts of seeds 100-109 by default, disjoint
from the published seeds (0-9), with the same shared embedder the runs use.

For each (scenario, seed) it writes the script's items, in order, into one
hybrid lattice with supersession and merging off (so every decision is seen,
none is taken), and records, from the scenario's answer key:

- every probe (``probe``, ``reprobe``, ``update``): the lexical and the dense
  cosine of the question to every live cell. For each weight w the score is
  (1 - w) lexical + w dense, exactly the hybrid's similarity, over all cells
  (no candidate scan, no strength, no lineage): recall@1 of the fact probes,
  and the share of update probes whose new item outscores the old;
- every accepted write: the cells text-only supersession may link it to (current
  cells sharing a name with a new value for it, ``Lattice.text_peers``), their
  relation overlap and their similarities; the right answer is the old fact for
  an update (its ``update`` probe's ``outrank`` id), nothing else. A pair of
  thresholds (relation overlap r, similarity t) links the candidate with the
  highest overlap + similarity among those with both at least their threshold;
  the chosen pair maximises right links minus wrong ones (a wrong link halves a
  fact's score, a missed one only leaves the old value unmarked);
- every pair of a write and an earlier cell whose content words overlap enough
  to merge (Jaccard >= ``merge_jaccard``): its similarity, positive if the write
  is a ``near_duplicate`` gate item, negative otherwise. Without positives (the
  default and natural scenarios have none), the data only bound the merge
  threshold from below: it must exceed every negative;
- since neither scenario has such pairs, edits of the first seeds' facts
  stand in for them (``merge_edits``): a fact with its last content word dropped
  (a restatement with less detail: should merge) and with that word replaced by
  another fact's (a new value: must not), kept when their content-word Jaccard
  is >= ``merge_jaccard``, i.e. when the merge threshold decides. The share of
  each accepted at every threshold is printed.

The weight is chosen first (highest mean recall@1 over the scenarios), then both
thresholds at that weight, for lexical, dense and hybrid similarity alike.

    python benchmarks/rshl_calibrate.py --scenario default --scenario natural --out calib.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from memory_bench_embed import embedder_from_options, embedding_options
from memory_bench_rshl import Lattice, LatticeConfig, Record
from memory_bench_rshl.backend import embedding_identity
from memory_bench_rshl.encoder import STOP_WORDS, content_stems
from memory_bench_rshl.encoding import make_encoder
from memory_bench_rshl.gate import jaccard

from memory_bench import BackendContext
from memory_bench.contract.options import resolve_options
from memory_bench.harness.pair import generate_script
from memory_bench.plugins import load_plugins
from memory_bench.results.paths import default_cache_dir
from memory_bench.scenarios.script import Probe, Reset, Write
from memory_bench.scenarios.spec import load_scenario

WEIGHTS = [round(0.05 * i, 2) for i in range(21)]
THRESHOLDS = [round(-0.2 + 0.02 * i, 2) for i in range(61)]
RELATION_THRESHOLDS = [round(0.05 * i, 2) for i in range(1, 21)]


@dataclass
class Observations:
    """What one scenario's seeds showed: per-weight probe outcomes, decisions, pairs."""

    hits: dict[float, list[bool]] = field(default_factory=lambda: {w: [] for w in WEIGHTS})
    wins: dict[float, list[bool]] = field(default_factory=lambda: {w: [] for w in WEIGHTS})
    # (relation overlaps, lexical sims, dense sims, index of the right candidate or -1,
    # is an update)
    links: list[tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]] = field(
        default_factory=list)
    # (lexical sim, dense sim, positive)
    merges: list[tuple[float, float, bool]] = field(default_factory=list)
    updates_unreachable: int = 0  # updates whose old fact shares no name with them


def _lattice(embedder: Any, merge_jaccard: float) -> Lattice:
    config = LatticeConfig(encoder="hybrid", supersede="off", reinforce=False,
                           merge_cosine=2.0, merge_jaccard=merge_jaccard)
    return Lattice(config, make_encoder(config, embedder, embedding_identity(embedder)))


def _probe(lat: Lattice, p: Probe, obs: Observations) -> None:
    rows = np.flatnonzero(~lat.dead[: lat.index.n])
    q = lat.encoder.query_encoding(p.question, lat.stats)
    if q is None or len(rows) == 0:
        return
    lex = lat.index.cosine(q.lexical, rows) if q.lexical is not None else np.zeros(len(rows))
    den = lat.index.dense_cosine(q.dense, rows)
    pos = {int(r): j for j, r in enumerate(rows)}
    want = [pos[r] for i in p.expected if (r := lat.row_of(i)) is not None and r in pos]
    old = [pos[r] for i in p.outrank if (r := lat.row_of(i)) is not None and r in pos]
    for w in WEIGHTS:
        score = (1.0 - w) * lex + w * den
        if p.tag in ("probe", "reprobe"):
            obs.hits[w].append(int(np.argmax(score)) in want)
        elif p.tag == "update" and want and old:
            obs.wins[w].append(bool(score[want[0]] > max(score[j] for j in old)))


def _write(lat: Lattice, step: Write, update_of: dict[str, str], stems: dict[int, set[str]],
           obs: Observations) -> None:
    records = [Record(i.id, i.text, i.source, i.timestamp, i.region, tuple(i.tags))
               for i in step.items]
    kinds = step.categories or ("",) * len(records)
    for rec, out, kind in zip(records, lat.write(records), kinds, strict=True):
        row = lat.row_of(rec.id) if out.accepted else None
        if row is None:
            continue
        enc = lat.index.encoding(row)
        found = lat.text_peers(row)
        peers = [r for r, _ in found]
        overlaps = np.asarray([o for _, o in found])
        truth = update_of.get(rec.id)
        right = lat.row_of(truth) if truth else None
        if truth and right not in peers:
            obs.updates_unreachable += 1
        if peers:
            idx = np.asarray(peers)
            obs.links.append((overlaps, lat.index.cosine(enc.lexical, idx),
                              lat.index.dense_cosine(enc.dense, idx),
                              peers.index(right) if right in peers else -1, truth is not None))
        mine = set(content_stems(rec.text))
        close = [r for r, s in stems.items()
                 if jaccard(mine, s) >= lat.config.merge_jaccard and not lat.dead[r]]
        if close:
            idx = np.asarray(close)
            for a, b in zip(lat.index.cosine(enc.lexical, idx),
                            lat.index.dense_cosine(enc.dense, idx), strict=True):
                obs.merges.append((float(a), float(b), kind == "near_duplicate"))
        stems[row] = mine


def collect(plugins: Any, scenario: str, seeds: Sequence[int], embedder: Any,
            merge_jaccard: float) -> Observations:
    spec = load_scenario(scenario, {}, registry=plugins.scenarios)
    obs = Observations()
    for seed in seeds:
        script = generate_script(plugins, spec.ref(), seed).bind(f"bench-calib-s{seed}-")
        update_of = {p.expected[0]: p.outrank[0] for p in script.probes()
                     if p.tag == "update" and p.expected and p.outrank}
        lat, stems = _lattice(embedder, merge_jaccard), {}
        for step in script.steps:
            if isinstance(step, Write):
                _write(lat, step, update_of, stems, obs)
            elif isinstance(step, Probe):
                _probe(lat, step, obs)
            elif isinstance(step, Reset):
                lat, stems = _lattice(embedder, merge_jaccard), {}
        print(f"  {scenario} seed {seed}: {len(obs.hits[0.0])} probes, "
              f"{len(obs.links)} supersession decisions so far", file=sys.stderr)
    return obs


def _sim(lex: np.ndarray | float, den: np.ndarray | float, kind: str, w: float) -> Any:
    return {"lexical": lex, "dense": den}.get(kind, (1.0 - w) * lex + w * den)


def _linked(overlap: np.ndarray, sim: np.ndarray, rel_t: float, sim_t: float) -> int:
    """The candidate the lattice links (``Lattice._superseded_row``), or -1."""
    ok = (overlap >= rel_t) & (sim >= sim_t)
    if not ok.any():
        return -1
    return int(np.argmax(np.where(ok, overlap + sim, -np.inf)))


def supersession(obs: Sequence[Observations], kind: str, w: float) -> dict[str, Any]:
    """Right, wrong and missed links at every (relation, similarity) threshold pair; the best
    pair (most right minus wrong; the middle of the best similarity range at the best
    relation threshold)."""
    rows = []
    for rel_t in RELATION_THRESHOLDS:
        for t in THRESHOLDS:
            right = wrong = missed = 0
            for o in obs:
                for overlap, lex, den, truth, is_update in o.links:
                    best = _linked(overlap, _sim(lex, den, kind, w), rel_t, t)
                    if best >= 0 and best == truth:
                        right += 1
                    elif best >= 0:
                        wrong += 1
                    if is_update and truth >= 0 and best != truth:
                        missed += 1
            rows.append({"relation": rel_t, "t": t, "right": right, "wrong": wrong,
                         "missed": missed, "score": right - wrong})
    top = max(r["score"] for r in rows)
    best_rel = min(r["relation"] for r in rows if r["score"] == top)
    best = [r for r in rows if r["score"] == top and r["relation"] == best_rel]
    chosen = best[len(best) // 2]  # the middle of the best range: least fragile
    return {"chosen": chosen, "best_range": [best[0]["t"], best[-1]["t"]],
            "reachable_updates": sum(1 for o in obs for *_, tr, up in o.links if up and tr >= 0),
            "unreachable_updates": sum(o.updates_unreachable for o in obs), "sweep": rows}


def merging(obs: Sequence[Observations], kind: str, w: float) -> dict[str, Any]:
    neg = [_sim(a, b, kind, w) for o in obs for a, b, pos in o.merges if not pos]
    pos = [_sim(a, b, kind, w) for o in obs for a, b, p in o.merges if p]
    return {"negatives": len(neg), "max_negative": max(neg) if neg else None,
            "positives": len(pos), "min_positive": min(pos) if pos else None}


_WORD = re.compile(r"[A-Za-z]+")
MERGE_THRESHOLDS = tuple(round(0.80 + 0.01 * i, 2) for i in range(19))  # 0.80..0.98


def _edits(facts: Sequence[str], merge_jaccard: float) -> tuple[list[tuple[str, str]],
                                                                 list[tuple[str, str]]]:
    """(restatements, new values) of ``facts``: see the module docstring."""
    keep, change = [], []
    for j, text in enumerate(facts):
        words = [m for m in _WORD.finditer(text) if m.group().lower() not in STOP_WORDS]
        if len(words) < 5:
            continue
        last, stems = words[-1], content_stems(text)
        dropped = " ".join((text[: last.start()] + text[last.end():]).split())
        if jaccard(stems, content_stems(dropped)) >= merge_jaccard:
            keep.append((text, dropped))
        other = [w for w in _WORD.findall(facts[(j + 7) % len(facts)])
                 if w.lower() not in STOP_WORDS and w.lower() not in text.lower()]
        if other:
            changed = text[: last.start()] + other[-1] + text[last.end():]
            if jaccard(stems, content_stems(changed)) >= merge_jaccard:
                change.append((text, changed))
    return keep, change


def merge_edits(plugins: Any, scenario: str, seeds: Sequence[int], embedder: Any,
                merge_jaccard: float, w: float) -> dict[str, Any]:
    """Share of restatements and of new values each encoder's similarity would merge."""
    spec = load_scenario(scenario, {}, registry=plugins.scenarios)
    pairs: dict[str, list[tuple[Lattice, str, str]]] = {"restatement": [], "new_value": []}
    for seed in seeds:
        script = generate_script(plugins, spec.ref(), seed).bind(f"bench-calib-s{seed}-")
        facts = [i.text for i in next(s for s in script.steps if isinstance(s, Write)).items]
        lat = _lattice(embedder, merge_jaccard)  # for the IDF counts of the seed's facts
        for text in facts:
            lat.stats.add(lat.encoder.features(text))
        for name, got in zip(pairs, _edits(facts, merge_jaccard), strict=True):
            pairs[name] += [(lat, a, b) for a, b in got]
    out: dict[str, Any] = {}
    for name, got in pairs.items():
        encs = [(lt.encoder.query_encoding(a, lt.stats), lt.encoder.query_encoding(b, lt.stats))
                for lt, a, b in got]
        lex = np.array([_cos(x.lexical, y.lexical) for x, y in encs])
        den = np.array([_cos(x.dense, y.dense) for x, y in encs])
        out[name] = {"pairs": len(got), **{
            k: {f"{t:.2f}": float(np.mean(_sim(lex, den, k, w) >= t)) if got else None
                for t in MERGE_THRESHOLDS}
            for k in ("lexical", "dense", "hybrid")}}
    return out


def merge_threshold(edits: dict[str, dict[str, Any]], kind: str) -> float:
    """The smallest threshold at which ``kind`` merges no larger share of the new-value
    edits (pooled over scenarios) than the lexical encoder at its design value 0.90."""
    def share(k: str, t: float) -> float:
        rows = [e["new_value"] for e in edits.values() if e["new_value"]["pairs"]]
        n = sum(r["pairs"] for r in rows)
        return sum(r["pairs"] * r[k][f"{t:.2f}"] for r in rows) / n if n else 0.0

    bound = share("lexical", 0.90)
    return next((t for t in MERGE_THRESHOLDS if share(kind, t) <= bound), MERGE_THRESHOLDS[-1])


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def _mean(xs: Sequence[bool]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", action="append", help="repeatable (default: default, natural)")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--seed-base", type=int, default=100)
    ap.add_argument("--embed", action="append", default=[], metavar="KEY=VALUE",
                    help="an embedding option, as given to faiss-rag (runtime=onnx, ...)")
    ap.add_argument("--out", type=Path, help="write the full sweep as JSON here")
    args = ap.parse_args(argv)
    scenarios = args.scenario or ["default", "natural"]
    seeds = range(args.seed_base, args.seed_base + args.seeds)
    if set(seeds) & set(range(10)):
        print("calibration seeds overlap the published seeds 0-9", file=sys.stderr)
        return 2
    raw = dict(kv.split("=", 1) for kv in args.embed)
    options = resolve_options("rshl", embedding_options(), {"cache_queries": "true", **raw})
    plugins = load_plugins(autoload=True)
    mj = LatticeConfig().merge_jaccard
    with tempfile.TemporaryDirectory() as work:
        ctx = BackendContext(Path(work), 0, "calib", cache_dir=default_cache_dir())
        embedder = embedder_from_options(options, ctx)
        try:
            obs = {s: collect(plugins, s, seeds, embedder, mj) for s in scenarios}
            recall = {s: {w: _mean(o.hits[w]) for w in WEIGHTS} for s, o in obs.items()}
            weight = max(WEIGHTS, key=lambda w: (sum(recall[s][w] or 0.0 for s in scenarios),
                                                 -w))
            edits = {s: merge_edits(plugins, s, list(seeds)[:3], embedder, mj, weight)
                     for s in scenarios}
        finally:
            embedder.close()
    wins = {s: {w: _mean(o.wins[w]) for w in WEIGHTS} for s, o in obs.items()}
    out: dict[str, Any] = {
        "scenarios": scenarios, "seeds": list(seeds), "embedding": embedding_identity(embedder),
        "recall1_by_weight": recall, "update_win_by_weight": wins, "dense_weight": weight,
        "supersession": {k: supersession(list(obs.values()), k, weight)
                         for k in ("lexical", "dense", "hybrid")},
        "merging": {k: merging(list(obs.values()), k, weight)
                    for k in ("lexical", "dense", "hybrid")},
        "merge_edits": edits,
        "merge_cosine": {k: merge_threshold(edits, k) for k in ("lexical", "dense", "hybrid")},
    }
    _print(out)
    if args.out:
        args.out.write_text(json.dumps(out, indent=1, default=float))
    return 0


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def _print(out: dict[str, Any]) -> None:
    scen, w = out["scenarios"], out["dense_weight"]
    print(f"seeds {out['seeds'][0]}-{out['seeds'][-1]}; scenarios {', '.join(scen)}")
    print("\nrecall@1 (probe + reprobe) / update win by similarity, by dense weight w")
    print("| w | " + " | ".join(f"{s} recall@1 | {s} update win" for s in scen) + " |")
    print("|---|" + "---|---|" * len(scen))
    for x in WEIGHTS:
        cells = [f"{out['recall1_by_weight'][s][x]:.3f} | {out['update_win_by_weight'][s][x]:.3f}"
                 for s in scen]
        print(f"| {x:.2f}{' *' if x == w else ''} | " + " | ".join(cells) + " |")
    print(f"\nchosen dense_weight: {w}")
    print("\n| encoder | relation threshold | supersede threshold | best range | right | wrong | "
          "missed | reachable updates | unreachable | merge negatives | max negative | positives | "
          "min positive |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for k in ("lexical", "dense", "hybrid"):
        s, m = out["supersession"][k], out["merging"][k]
        c = s["chosen"]
        print(f"| {k} | {c['relation']:.2f} | {c['t']:.2f} | "
              f"{s['best_range'][0]:.2f}..{s['best_range'][1]:.2f} | "
              f"{c['right']} | {c['wrong']} | {c['missed']} | {s['reachable_updates']} | "
              f"{s['unreachable_updates']} | {m['negatives']} | {_fmt(m['max_negative'])} | "
              f"{m['positives']} | {_fmt(m['min_positive'])} |")
    shown = [t for t in MERGE_THRESHOLDS if round(t * 100) % 5 == 0 or t in (0.92, 0.93)]
    print("\nmerge edits (first 3 seeds): share merged at each similarity threshold")
    print("| edits | pairs | encoder | " + " | ".join(f"{t:.2f}" for t in shown) + " |")
    print("|---|---|---|" + "---|" * len(shown))
    for s, e in out["merge_edits"].items():
        for name, r in e.items():
            for k in ("lexical", "dense", "hybrid") if r["pairs"] else ():
                print(f"| {s} {name} | {r['pairs']} | {k} | "
                      + " | ".join(f"{r[k][f'{t:.2f}']:.2f}" for t in shown) + " |")
    print("\nmerge_cosine matching lexical's share of merged new values at 0.90: "
          + ", ".join(f"{k} {t:.2f}" for k, t in out["merge_cosine"].items()))


if __name__ == "__main__":
    raise SystemExit(main())
