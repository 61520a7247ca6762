"""``memory-bench sweep`` at toy sizes, with the fake backends: files, rows, limits, refusals."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest

from memory_bench.results.io import load_result

SMOKE = ["facts=12", "noise=24", "updates=4", "gate_empty=3", "gate_short=3",
         "gate_duplicate=3", "gate_clean=4", "reinforce_cells=3", "reinforce_queries=2",
         "write_batch=16", "structured=true"]  # the fakes find items by their tags
SETS = [a for s in SMOKE for a in ("--set", s)]


def _sweep(cli, *args: str):
    return cli("sweep", "--quiet", *SETS, *args)


def test_a_sweep_runs_each_size_and_writes_its_summary_plots_and_report(cli) -> None:
    done = _sweep(cli, "--sizes", "60,150", "--backend", "fake-perfect",
                  "--backend", "fake-forgetful:capacity=40", "--limit",
                  "fake-forgetful:capacity=40=60", "--seeds", "2", "--seeds-at", "150=1",
                  "--out", "sw", "--save")
    assert done.returncode == 0, done.stderr
    out = cli.cwd / "sw"
    summary = json.loads((out / "sweep.json").read_text())
    assert summary["schema"] == "memory-bench-sweep/1.0"
    assert summary["sizes"] == [60, 150]
    assert summary["seeds"] == {"60": [0, 1], "150": [0]}
    rows = {(r["label"], r["size"]): r for r in summary["rows"]}
    assert set(rows) == {("fake-perfect", 60), ("fake-perfect", 150),
                         ("fake-forgetful:capacity=40", 60)}
    # A perfect memory stays perfect at every size; a forgetful one forgets.
    assert rows[("fake-perfect", 150)]["metrics"]["recall1_after"]["mean"] == 1.0
    assert rows[("fake-forgetful:capacity=40", 60)]["metrics"]["recall1_after"]["mean"] < 0.5
    assert rows[("fake-perfect", 60)]["metrics"]["recall1_after"]["n"] == 2
    if sys.platform.startswith("linux"):
        assert rows[("fake-perfect", 150)]["metrics"]["rss_mb"]["mean"] > 1
    for size in (60, 150):
        result = json.loads((out / f"size-{size}.json").read_text())
        assert result["scenario"]["params"]["size"] == size
        grown = result["scenario"]["data_stats"]["0"]["scale"]
        # the store holds `size` items after interference: the 12 facts, the grown noise
        # and the base's noise the interleaved stream keeps among facts and updates
        assert grown["noise"] + grown["kept_noise"] == size - 12
    assert summary["generation"]["150"]["noise"] == 128
    for name in ("sweep.md", "sweep-quality.png", "sweep-cost.png"):
        assert (out / name).stat().st_size > 0
    md = (out / "sweep.md").read_text()
    assert "not run" in md and "| fake-perfect |" in md
    published = sorted(p.name for p in (cli.cwd / "reports").iterdir())
    assert any(n.endswith("-size-150.json.gz") for n in published)
    sized = next(p for p in (cli.cwd / "reports").iterdir() if p.name.endswith("-size-150.json.gz"))
    # The project's reader reads a published size back (it was once gzipped twice).
    assert load_result(sized).scenario.params["size"] == 150
    assert any(n.endswith("-quality.png") for n in published)
    assert "/" not in "".join(published)
    from test_readback import reads_back, results_in, sweep_results

    written = [*results_in(cli.cwd / "reports"), *results_in(out)]
    assert set(sweep_results(cli.cwd / "reports")) <= set(written)
    for path in written:  # each size's result, gzipped once: report and compare read it
        reads_back(path)
    # A second published sweep never overwrites the first; with a cache in the temp
    # directory, no published summary names it (it is <tmp>/…) or any temp path.
    # (Was test_a_published_sweep_holds_no_path_of_this_machine, a sweep of its own.)
    cache = Path(tempfile.mkdtemp(prefix="sweep-cache-"))
    again = _sweep(cli, "--sizes", "60", "--backend", "fake-perfect", "--seeds", "1",
                   "--cache-dir", str(cache), "--out", "sw2", "--save")
    assert again.returncode == 0, again.stderr
    assert set(published) <= {p.name for p in (cli.cwd / "reports").iterdir()}
    for f in (cli.cwd / "reports").iterdir():
        if f.suffix in {".json", ".md"}:
            text = f.read_text()
            assert str(cache) not in text and tempfile.gettempdir() + "/" not in text, f.name


@pytest.mark.parametrize(("args", "message"), [
    (["--sizes", "150,60"], "ascending"),
    (["--sizes", "60,x"], "not a number"),
    (["--sizes", "60", "--limit", "nobody=60"], "not a backend of this sweep"),
    (["--sizes", "60", "--seeds-at", "70=1"], "not one of --sizes"),
    (["--sizes", "20"], "too small"),
    (["--sizes", "60", "--scenario", "smoke"], "takes no `size`"),
])
def test_bad_sweeps_are_one_line_and_exit_2_with_nothing_written(cli, args, message) -> None:
    done = _sweep(cli, "--backend", "fake-perfect", "--out", "sw", *args)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (cli.cwd / "sw").exists()


def test_a_sweep_refuses_a_directory_holding_results(cli, tmp_path: Path) -> None:
    (cli.cwd / "sw").mkdir()
    (cli.cwd / "sw" / "size-60.json").write_text("{}")
    done = _sweep(cli, "--sizes", "60", "--backend", "fake-perfect", "--out", "sw")
    assert done.returncode == 2 and "not empty" in done.stderr
    assert (cli.cwd / "sw" / "size-60.json").read_text() == "{}"
