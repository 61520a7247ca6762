"""How long statistics and rendering add to a run: analyse, plots, every format.

    .venv/bin/python benchmarks/report_speed.py [RESULT.json]

Without a file it first makes a 6-backend x 5-seed result on the default
scenario with the test suite's fake backends (fast, so the run itself is not
what is timed). Each stage runs in a fresh process, so imports are counted as
they are in ``memory-bench run --save``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def _stages(path: Path) -> None:
    """Time each stage in this (fresh) process; imports count where they first happen."""
    from memory_bench.analysis.compare import summarize_backends
    from memory_bench.results.io import load_result, write_result

    res = load_result(path)
    res.comparisons = None
    res.analysis = None
    t: dict[str, float] = {}

    def timed(name: str, fn) -> object:
        t0 = time.perf_counter()
        out = fn()
        t[name] = time.perf_counter() - t0
        return out

    timed("summarize_backends (runner, at the end)", lambda: summarize_backends(res))
    timed("summarize_backends again (warm)", lambda: summarize_backends(res))

    def analysis() -> None:
        from memory_bench.analysis.compare import analyse

        analyse(res)

    timed("analyse: bootstrap + paired comparisons (incl. scipy.stats import)", analysis)

    def plots() -> dict[str, bytes]:
        from memory_bench.render.plots import render_plots

        return render_plots(res)

    pngs = timed("plots: 2 PNGs (incl. matplotlib import)", plots)

    def texts() -> None:
        from memory_bench.render.csvfile import render_csv
        from memory_bench.render.html import render_html
        from memory_bench.render.markdown import render_markdown
        from memory_bench.render.table import render_table

        render_markdown(res), render_html(res, pngs), render_csv(res), render_table(res)

    timed("markdown + html + csv + table", texts)
    d = Path(tempfile.mkdtemp())
    def files() -> None:
        import shutil

        write_result(d / "r.json", res)  # the run's file, rewritten with the comparisons
        shutil.copyfile(d / "r.json", d / "s.json")  # its copy under reports/

    timed("write the result JSON and copy it under reports/", files)
    print(f"{len(res.backends)} backends x {len(res.seeds)} seeds, "
          f"{len(res.comparisons or [])} comparisons, {path.stat().st_size / 1e6:.1f} MB")
    for name, seconds in t.items():
        print(f"  {seconds:6.2f} s  {name}")
    total = sum(v for k, v in t.items() if "again" not in k)
    print(f"  {total:6.2f} s  total added after the run by --save")


def _make_result(out: Path) -> None:
    env_py = Path(sys.executable).parent / "memory-bench"
    specs = ["fake-perfect", "fake-forgetful", "fake-noprov", "fake-forgetful:capacity=300",
             "fake-forgetful:capacity=700", "fake-forgetful:capacity=1000"]
    args = [str(env_py), "run", "--scenario", "default", "--seeds", "5", "--out", str(out),
            "--quiet"]
    for s in specs:
        args += ["--backend", s]
    env = {"PYTHONPATH": str(ROOT / "tests"), "MEMORY_BENCH_PLUGINS": "fake_backends",
           "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1", "PATH": "/usr/bin:/bin"}
    subprocess.run(args, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def main() -> None:
    if sys.argv[1:2] == ["--stages"]:
        _stages(Path(sys.argv[2]))
        return
    if len(sys.argv) > 1:
        path = Path(sys.argv[1])
    else:
        path = Path(tempfile.mkdtemp()) / "six.json"
        t0 = time.perf_counter()
        _make_result(path)
        print(f"made {path} in {time.perf_counter() - t0:.1f} s (fake backends)")
    subprocess.run([sys.executable, __file__, "--stages", str(path)], check=True)


if __name__ == "__main__":
    main()
