"""``run --save`` killed (SIGKILL) while writing its report set: the next ``--save``
takes the names back, leaving no empty file and no ``-2`` set beside them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from conftest import TESTS

from memory_bench.results import paths as reports_paths

SUFFIXES = (".json.gz", ".md", ".html", ".csv", "-bars.png", "-quality-latency.png")

# The real CLI, made to stop inside save_report (after the set was reserved and the
# plots drawn) until it is killed.
CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import memory_bench.render.html as html
    from memory_bench.cli import main

    def stuck(*args, **kwargs):
        Path("publishing").write_text("now")
        time.sleep(600)

    html.render_html = stuck
    sys.exit(main(sys.argv[1:]))
""")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get(
        "PYTHONPATH", "")]), "MEMORY_BENCH_PLUGINS": "fake_backends",
        "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1"}


def stopped_while_publishing(child_code: str, args: list[str], cwd: Path) -> subprocess.Popen:
    """The CLI run as ``child_code`` with ``args``, once it wrote ``cwd/publishing`` (it
    then sleeps until killed: the caller kills it)."""
    child = subprocess.Popen([sys.executable, "-c", child_code, *args], cwd=cwd, env=_env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while not (cwd / "publishing").exists():
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            _, err = child.communicate()
            raise AssertionError(f"the child never reached the publish step: {err.decode()}")
        time.sleep(0.1)
    return child


def test_a_set_killed_while_publishing_is_taken_back_by_the_next_save(cli) -> None:
    args = ["run", "--backend", "fake-perfect", "--scenario", "smoke", "--seeds", "1",
            "--quiet", "--out", "r.json", "--save"]
    child = stopped_while_publishing(CHILD, args, cli.cwd)
    try:
        reports = cli.cwd / "reports"
        reserved = [p for p in reports.iterdir() if not p.name.startswith(".")]
        assert len(reserved) == len(SUFFIXES)
        assert all(p.stat().st_size == 0 for p in reserved)  # reserved, not written yet
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
    (stem,) = {p.name.removesuffix(".md") for p in reserved if p.name.endswith(".md")}

    again = cli("run", "--resume", "r.json", "--quiet", "--save")
    assert again.returncode == 0, again.stderr
    files = sorted(p.name for p in reports.iterdir())
    assert files == sorted(stem + s for s in SUFFIXES)  # the same names, no -2, no claim
    assert all((reports / f).stat().st_size > 0 for f in files)


def test_a_live_claim_is_never_taken_back(tmp_path: Path) -> None:
    """Another run still writing its set: a second reservation takes -2, and the first
    run's empty files stay; once released, a set of empty files is skipped, not removed."""
    first = reports_paths.reserve_report_paths(tmp_path, "default", "RUN")
    second = reports_paths.reserve_report_paths(tmp_path, "default", "RUN")
    assert second.md.name.endswith("RUN-2.md")
    assert all(p.exists() and p.stat().st_size == 0 for p in first.all())
    reports_paths.release_report_paths(second)
    for p in second.all():
        p.unlink()
    first.md.write_text("# published")
    reports_paths.release_report_paths(first)  # no claim now: plain files, never removed
    third = reports_paths.reserve_report_paths(tmp_path, "default", "RUN")
    assert third.md.name.endswith("RUN-2.md") and first.md.read_text() == "# published"
    reports_paths.release_report_paths(third)
    assert not list(tmp_path.glob(".*"))


def test_a_dead_claim_loses_its_empty_files_never_a_written_one(tmp_path: Path) -> None:
    """A claim no process holds (its run was killed): empty files and temporaries of
    its set go; a file with bytes in it stays, and the set then takes -2."""
    dead = reports_paths.reserve_report_paths(tmp_path, "default", "RUN")
    assert dead.claim is not None
    os.close(os.open(tmp_path / f".{dead.md.name}.abc123.tmp", os.O_CREAT | os.O_WRONLY))
    os.close(reports_paths._HELD.pop(dead.claim))  # as SIGKILL: the lock goes, the file stays
    taken = reports_paths.reserve_report_paths(tmp_path, "default", "RUN")
    assert taken.md == dead.md and not (tmp_path / f".{dead.md.name}.abc123.tmp").exists()
    taken.md.write_text("# half")
    os.close(reports_paths._HELD.pop(taken.claim))
    after = reports_paths.reserve_report_paths(tmp_path, "default", "RUN")
    assert after.md.name.endswith("RUN-2.md") and taken.md.read_text() == "# half"
    reports_paths.release_report_paths(after)
