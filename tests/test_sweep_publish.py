"""``sweep --save`` publishes the way ``run --save`` does: its names reserved under a claim
(never another result's), every file staged before any is renamed into place, a set a
killed sweep left empty taken back by the next ``--save``, and no name leaving reports/."""

from __future__ import annotations

import os
import signal
import textwrap
from pathlib import Path

from test_interrupted_publish import stopped_while_publishing
from test_sweep import SETS

from memory_bench.sweep.save import reserve_sweep_paths

# The real CLI, made to stop while rendering the published Markdown (the second render:
# the first is the sweep directory's own) until it is killed.
CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import memory_bench.sweep.save as save
    from memory_bench.cli import main

    real, calls = save.render_sweep_markdown, []

    def stuck(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            Path("publishing").write_text("now")
            time.sleep(600)
        return real(*args, **kwargs)

    save.render_sweep_markdown = stuck
    sys.exit(main(sys.argv[1:]))
""")

SWEEP = ["sweep", "--quiet", *SETS, "--sizes", "60", "--backend", "fake-perfect", "--seeds",
         "1", "--save"]


def test_a_sweep_killed_while_publishing_leaves_nothing_once_the_next_save_ran(cli) -> None:
    child = stopped_while_publishing(CHILD, [*SWEEP, "--out", "sw1"], cli.cwd)
    reports = cli.cwd / "reports"
    try:
        reserved = [p for p in reports.iterdir() if not p.name.startswith(".")]
        # summary, Markdown, 2 plots and the size's result: reserved, none written yet
        assert len(reserved) == 5 and all(p.stat().st_size == 0 for p in reserved)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
        child.stderr.close()

    again = cli(*SWEEP, "--out", "sw2")
    assert again.returncode == 0, again.stderr
    files = sorted(p.name for p in reports.iterdir())
    assert len(files) == 5 and all((reports / f).stat().st_size > 0 for f in files), files
    assert not set(files) & {p.name for p in reserved}  # the killed set was taken back


def test_a_sweep_set_is_reserved_and_never_takes_another_results_name(tmp_path: Path) -> None:
    first = reserve_sweep_paths(tmp_path, "scale", "ID", [60, 150])
    assert first.claim is not None
    assert {p.name for p in first.all()} >= {first.md.name, first.result(150, gz=True).name}
    assert all(p.stat().st_size == 0 for p in first.all())
    second = reserve_sweep_paths(tmp_path, "scale", "ID", [60, 150])  # while the first lives
    assert second.md.name.endswith("-ID-2.md")
    assert not set(first.all()) & set(second.all())


def test_a_published_sweep_name_never_leaves_reports(cli) -> None:
    toml = (cli.cwd / "scenarios" / "scale.toml").read_text()
    (cli.cwd / "evil.toml").write_text(toml.replace('name = "scale"',
                                                    'name = "../../escaped\\nx"'))
    done = cli(*SWEEP, "--scenario", "evil.toml", "--out", "sw")
    assert done.returncode == 0, done.stderr
    published = list((cli.cwd / "reports").iterdir())
    assert len(published) == 5 and all(p.is_file() for p in published)
    assert sorted(p.name for p in cli.cwd.iterdir()) == ["evil.toml", "reports", "scenarios",
                                                         "sw"]
