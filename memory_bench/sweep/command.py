"""``memory-bench sweep``: validate everything, then run each size and write the sweep."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from memory_bench.errors import printable
from memory_bench.plugins.manager import LoadedPlugins
from memory_bench.results.paths import check_writable
from memory_bench.sweep.plan import SweepError, parse_sizes, plan_sweep

__all__ = ["sweep_command"]


def sweep_command(args: argparse.Namespace, plugins: LoadedPlugins,
                  overrides: dict[str, Any]) -> int:
    """Exit status: 0 every pair ok, 1 some pair failed, 2 bad input (raised)."""
    from memory_bench.harness.progress import Progress
    from memory_bench.harness.runner import new_run_id
    from memory_bench.results.manifest import build_manifest
    from memory_bench.sweep.run import SweepRun, run_sweep
    from memory_bench.sweep.save import reserve_sweep_paths, write_sweep

    plan = plan_sweep(plugins, scenario=args.scenario, sizes=parse_sizes(args.sizes),
                      backends=args.backend, seeds=args.seeds, seeds_at=args.seeds_at,
                      limits=args.limit, overrides=overrides)
    sweep_id = new_run_id()
    out_dir: Path = args.out or Path("runs") / f"sweep-{sweep_id}"
    if out_dir.exists() and any(out_dir.iterdir()):
        raise SweepError(f"--out {out_dir} is not empty; a sweep never overwrites a result")
    check_writable(out_dir / "sweep.json")
    publish = None
    if args.save:  # reserved once the sizes ran, as run --save reserves its set
        check_writable(Path("reports") / "x.json", allow_existing=True)
        from memory_bench.session.plan import check_clean

        check_clean(allow_dirty=args.allow_dirty)

        def publish(sizes: list[int]):
            return reserve_sweep_paths(Path("reports"), plan.scenario, sweep_id, sizes)
    out_dir.mkdir(parents=True, exist_ok=True)
    say = (lambda m: None) if args.quiet else (lambda m: print(printable(m), file=sys.stderr))
    selections = {s.label: s for sp in plan.sizes for s in sp.selections}
    manifest = build_manifest(list(selections.values()))
    cache = args.cache_dir
    say(f"sweep {sweep_id}: sizes {', '.join(f'{s.size:,}' for s in plan.sizes)}; "
        f"embedding cache {cache or 'off (cold encoder)'}; results in {out_dir}")
    sweep = SweepRun(plan)
    command = [Path(a).name if i == 0 else a for i, a in enumerate(sys.argv)]
    try:
        run_sweep(sweep, plugins, out_dir, manifest=manifest, cache_dir=cache,
                  executor=args.executor, timeout=args.timeout,
                  progress=Progress(enabled=False if args.quiet else None), say=say)
    except BaseException:
        if sweep.results:  # the sizes that finished still make a (smaller) sweep
            write_sweep(sweep, out_dir, command=command)
            say(f"sweep stopped; the {len(sweep.results)} finished size(s) are in "
                f"{out_dir / 'sweep.md'}")
        raise
    here, published = write_sweep(sweep, out_dir, command=command, publish=publish)
    print(here.md.read_text(encoding="utf-8"))
    say(f"sweep: {here.md}")
    if published is not None:
        say(f"published: {published.md} (+ {published.summary.name}, plots, per-size "
            "results)")
    failed = [r for res in sweep.results.values() for b in res.backends for r in b.runs
              if not r.ok]
    return 1 if failed else 0
