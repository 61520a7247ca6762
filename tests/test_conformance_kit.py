"""The conformance kit: a backend that keeps every promise passes; each deliberately
broken backend fails the check of the promise it breaks, with one clear line; the
CLI (`memory-bench check`) and the pytest plugin run the same checks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import broken_backends
import pytest

from memory_bench.plugins import load_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.testing import CHECKS, check_selection

TESTS = Path(__file__).resolve().parent
# The tests first, then the checkout under test (a worktree's own code before the venv's).
PATH = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
PLUGINS = load_plugins([("broken_backends", broken_backends)], autoload=False)
ENV = {"MEMORY_BENCH_PLUGINS": "broken_backends"}

# Breaking one promise can break another that depends on it; these are the lines a
# plugin author sees, so they are pinned here.
ALSO = {"kit-stranger": {"finds", "close", "rewrite"}, "kit-query-blind": {"finds"}}


def _report(spec: str):
    (sel,) = select_backends(PLUGINS.registry, [spec])
    return check_selection(sel)


def test_a_backend_that_keeps_every_promise_passes_every_check() -> None:
    report = _report("kit-good")
    status = {o.check: o.status for o in report.outcomes}
    assert [c.name for c in CHECKS] == list(status)
    assert status.pop("fresh-store") == "not applicable"  # it is persistent
    assert set(status.values()) == {"ok"}
    assert report.lines() == ["kit-good: ok, 16 checks kept, not applicable: fresh-store"]


def test_a_live_store_may_return_its_own_items() -> None:
    """As in a run: a store that held items before the kit wrote may return them."""
    assert not _report("kit-live").broken


@pytest.mark.parametrize("name", sorted(broken_backends.BROKEN))
def test_each_broken_promise_fails_its_check(name: str) -> None:
    _, _, check = broken_backends.BROKEN[name]
    report = _report(name)
    assert {o.check for o in report.broken} == {check, *ALSO.get(name, ())}
    lines = report.lines()
    assert all(line.startswith(f"BROKEN {name} ") for line in lines[:-1])
    assert lines[-1].startswith(f"{name}: ") and "broken promise(s)" in lines[-1]


@pytest.mark.parametrize(("name", "line"), [
    ("kit-too-many", "BROKEN kit-too-many query: query returned 8 hits for k=1 (at most k)"),
    ("kit-stranger", "BROKEN kit-stranger query: query returned '0', an id it was never given"),
    ("kit-worst-first", "scores increase (hits come best first)"),
    ("kit-nan", "has score nan, not a finite number"),
    ("kit-short-write", "BROKEN kit-short-write write: write of 8 item(s) returned 7 result(s)"),
    ("kit-open-gate", "its gate accepted ''"),
    ("kit-fixed-strength", "`strength` is declared but does not change with use"),
    ("kit-leaky-remove", "count gives 8 under it"),
    ("kit-like-prefix", "k_') returned 7, not 1: the prefix is read as a pattern"),
    ("kit-shared", "a backend on a new workdir already counts 12 item(s) of another backend"),
    ("kit-forgetful", "reopened, the store counts 0 of the 12 items written before close"),
    ("kit-bad-default", "option k: its default 'five' is refused by its own declaration"),
    ("kit-no-forget", "forget() raised NotSupportedError: no forgetting here, although "
                      "`forget` is declared"),
    ("kit-source-deaf", "returned 0, not its 3 items left"),
    ("kit-hidden-forget", "query of a forgotten item's own text returned"),
    ("kit-shuffled", "the ranking depends on k or on the call (ids shuffled under their "
                     "scores?)"),
    ("kit-short-k", "query returned 2 hit(s) for k=5 from a store of 12 items"),
    ("kit-stale", "the old text (a stale vector) still ranks it"),
    ("kit-query-blind", "a query of random words got the same top 5 with the same scores as "
                        "4 of 4 real questions"),
])
def test_the_line_says_what_broke(name: str, line: str) -> None:
    assert any(line in got for got in _report(name).lines()), _report(name).lines()


def test_the_old_kit_passed_shuffled_ids_that_the_whole_list_check_catches() -> None:
    """Shuffled ids under descending scores keep every per-hit promise and the item's own
    text in the top 3: only the whole list against a re-query shows the fault."""
    status = {o.check: o.status for o in _report("kit-shuffled").outcomes}
    assert status["query"] == status["finds"] == "ok"
    assert status["whole-list"] == "broken"


def test_a_broken_write_blocks_the_checks_that_need_it_without_repeating_itself() -> None:
    report = _report("kit-short-write")
    assert [o.check for o in report.broken] == ["write"]
    assert len(report.broken[0].problems) == 1
    blocked = [o.check for o in report.outcomes if o.status == "blocked"]
    assert "query" in blocked and "remove-count" in blocked


def test_the_kit_leaves_nothing_behind(tmp_path: Path) -> None:
    from memory_bench.testing import run_check

    (sel,) = select_backends(PLUGINS.registry, ["kit-good"])
    for check in CHECKS:
        run_check(sel, check, base=tmp_path / check.name)
    # Every store the kit opened was closed once and holds none of its items.
    stores = [json.loads(f.read_text()) for f in tmp_path.rglob("good.json")]
    assert stores and all(items == [] for items in stores)


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": PATH, "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1",
            **ENV, **(env or {})}
    exe = Path(sys.executable).parent / "memory-bench"
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=full,
                          timeout=600)


def test_check_command_passes_a_good_backend() -> None:
    out = _cli("check", "kit-good", "kit-live")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "kit-good: ok, 16 checks kept, not applicable: fresh-store",
        "kit-live: ok, 12 checks kept, not applicable: fresh-store, strength, gate, consolidate, "
        "forget",
    ]


def test_check_command_exits_1_with_a_line_per_broken_promise() -> None:
    out = _cli("check", "kit-good", "kit-too-many", "kit-stranger")
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert "BROKEN kit-too-many query: query returned 8 hits for k=1 (at most k)" in lines
    assert "BROKEN kit-stranger query: query returned '0', an id it was never given" in lines
    assert lines[0] == "kit-good: ok, 16 checks kept, not applicable: fresh-store"


def test_check_command_json() -> None:
    out = _cli("check", "kit-nan", "--json")
    assert out.returncode == 1
    doc = json.loads(out.stdout)
    (backend,) = doc["backends"]
    assert backend["label"] == "kit-nan" and backend["ok"] is False
    broken = [c for c in backend["checks"] if c["status"] == "broken"]
    assert [c["check"] for c in broken] == ["query"]
    assert "not a finite number" in broken[0]["problems"][0]


def test_check_command_bad_input_is_one_line_and_exit_2() -> None:
    for args, message in ((("check", "nope"), "unknown backend 'nope'"),
                          (("check", "kit-good:colour=red"), "unknown option 'colour'")):
        out = _cli(*args)
        assert out.returncode == 2
        assert out.stderr.strip().splitlines() == [out.stderr.strip()]
        assert message in out.stderr and out.stdout == ""


def test_check_of_every_backend_counts_a_plugin_that_failed_to_load() -> None:
    out = _cli("check", env={"MEMORY_BENCH_PLUGINS": "broken_plugin"})
    assert out.returncode == 2  # no backend at all: nothing to check
    out = _cli("check", "--json", env={"MEMORY_BENCH_PLUGINS": "fake_backends,broken_plugin"})
    assert json.loads(out.stdout)["broken"][0]["entry_point"] == "broken_plugin"
    out = _cli("check", env={"MEMORY_BENCH_PLUGINS": "broken_backends,broken_plugin"})
    assert out.returncode == 1
    assert out.stdout.splitlines()[-1].startswith("BROKEN plugin broken_plugin ")


_PLUGIN_USER = textwrap.dedent(
    """
    from memory_bench.testing import conformance_tests

    test_conformance = conformance_tests("kit-good", "kit-too-many")
    """
)


def test_the_pytest_plugin_runs_the_same_checks(tmp_path: Path) -> None:
    """As a plugin author would: one line in a test file, the fixture from the installed
    pytest11 entry point, the marker it registers (--strict-markers)."""
    (tmp_path / "test_mine.py").write_text(_PLUGIN_USER)
    env = {**os.environ, "PYTHONPATH": PATH, "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1",
           **ENV}
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rfs", "--strict-markers", "-p",
         "no:cacheprovider", "-m", "memory_bench_conformance", str(tmp_path / "test_mine.py")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert out.returncode == 1, out.stdout[-3000:]
    assert "1 failed, 31 passed, 2 skipped" in out.stdout, out.stdout[-3000:]
    assert "FAILED test_mine.py::test_conformance[kit-too-many-query]" in out.stdout
    assert "\nkit-too-many query: query returned 8 hits for k=1 (at most k)\n" in out.stdout
    assert "kit-good fresh-store: a `persistent` store may be shared on purpose" in out.stdout
