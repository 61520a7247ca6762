"""Hostile input, a second pass over issue 29's surfaces and the commands added since
(runbooks, export, site, audit rows, --columns): each probe that failed, as a test. Every
one ends with exit 2 (or a failed pair that says why), one line, no traceback, no hang,
nothing echoed raw, every file written read back."""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import pytest
from test_runbook import _example

from memory_bench.results import io as results_io
from memory_bench.results.io import ResultError, load_json, load_result

EXAMPLE = _example()
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # a control character sent to the terminal
EVIL = "e\x1b[2Jx\ny"  # a path that clears the screen and breaks the line


def _bad(out, stream: str = "stderr") -> str:
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    text = getattr(out, stream)
    assert len(text.strip().splitlines()) == 1 and "Traceback" not in out.stderr, text
    return text


@pytest.mark.parametrize(("edit", "message"), [
    (("days = 30", "days = 1e300"), "moves the clock past the year 9999"),
    (("days = 30", "days = 3000000"), "moves the clock past the year 9999"),
    (("start = 2026-03-01T09:00:00Z", "start = 9999-12-31T23:00:00Z"),
     "moves the clock past the year 9999"),
    (("k = 5", "k = 5\nmade_by = " + "[" * 5000 + "]" * 5000), "nested too deeply"),
])
def test_a_runbook_that_overflows_the_clock_or_nests_deeply_is_bad_input(
        cli, edit: tuple[str, str], message: str) -> None:
    assert edit[0] in EXAMPLE
    (cli.cwd / "book.toml").write_text(EXAMPLE.replace(*edit))
    assert message in _bad(cli("validate", "book.toml"), "stdout")
    run = cli("run", "--backend", "fake-perfect", "--scenario", "runbook", "--set",
              "path=book.toml", "--out", "r.json")
    assert message in _bad(run)
    assert not (cli.cwd / "r.json").exists()


def test_lines_that_name_a_users_path_are_escaped(cli) -> None:
    """Not only errors: the lines a command prints when it succeeds name paths too."""
    out = cli("export", "--scenario", "smoke", f"{EVIL}.jsonl")
    assert out.returncode == 0 and "\\x1b[2Jx\\ny.jsonl" in out.stderr
    checks = [out.stderr,
              cli("validate", f"{EVIL}.jsonl").stdout,
              cli("plan", "--backend", "fake-perfect", "--scenario", "smoke", "--out",
                  f"{EVIL}.json").stdout]
    run = cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
              "--out", f"{EVIL}.json", "--save")
    assert run.returncode == 0, run.stderr
    checks += [run.stderr, cli("site", "reports", f"{EVIL}-site").stdout]
    for text in checks:
        assert "\\x1b[2J" in text and not RAW.search(text), text


def test_an_exported_file_has_the_mode_open_gives(cli) -> None:
    out = cli("export", "--scenario", "smoke", "--format", "runbook", "book.toml")
    assert out.returncode == 0, out.stderr
    umask = os.umask(0)
    os.umask(umask)
    assert (cli.cwd / "book.toml").stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize("args", [["report", "fifo.json"], ["compare", "fifo.json", "fifo.json"],
                                  ["run", "--resume", "fifo.json"]])
def test_a_fifo_given_as_a_result_is_refused_not_waited_on(cli, args: list[str]) -> None:
    os.mkfifo(cli.cwd / "fifo.json")
    assert "result file fifo.json is not a file" in _bad(cli(*args))


def test_a_fifo_among_scenario_files_or_claims_blocks_nothing(cli) -> None:
    os.mkfifo(cli.cwd / "scenarios" / "zz.toml")
    listed = cli("scenarios")
    assert listed.returncode == 0 and "zz.toml is not a file" in listed.stdout
    (cli.cwd / "reports").mkdir()
    os.mkfifo(cli.cwd / "reports" / ".x.claim")  # the next --save reads every dead claim
    run = cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
              "--quiet", "--out", "r.json", "--save")
    assert run.returncode == 0, run.stderr


def test_a_gzip_bomb_is_refused_and_every_member_of_a_gzip_file_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doc = {"pad": "0" * 5000}
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(json.dumps(doc).encode()))
    monkeypatch.setattr(results_io, "MAX_JSON_BYTES", 1000)
    with pytest.raises(ResultError, match="decompresses to more than 1,000 bytes"):
        load_json(bomb)
    monkeypatch.undo()
    two = tmp_path / "two.json.gz"  # what `cat a.gz b.gz` makes: gzip reads both
    text = json.dumps(doc).encode()
    two.write_bytes(gzip.compress(text[:10]) + gzip.compress(text[10:]) + b"\0" * 8)
    assert load_json(two) == doc
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(gzip.compress(text)[:-12])
    with pytest.raises(ResultError, match="truncated"):
        load_json(cut)


@pytest.mark.parametrize(("backend", "error"), [
    ("raises-base-exception", "BaseException: a plugin's own BaseException"),
    # no signal arrived: the plugin's, not the user's Ctrl-C (it used to end the run)
    ("raises-keyboard-interrupt", "KeyboardInterrupt: a plugin's own KeyboardInterrupt"),
])
def test_a_plugins_base_exception_fails_its_pair_in_process(cli, backend: str,
                                                            error: str) -> None:
    env = {"MEMORY_BENCH_PLUGINS": "fake_backends,lying_plugin"}
    out = cli("run", "--backend", backend, "--backend", "fake-perfect",
              "--scenario", "smoke", "--seed", "0", "--isolation", "none", "--quiet",
              "--out", "r.json", env_extra=env)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    doc = load_result(cli.cwd / "r.json")
    bad, good = (b.runs[0] for b in doc.backends)
    assert bad.status == "failed" and error in (bad.error or ""), bad.error
    assert good.status == "ok" and doc.status == "complete"


def test_a_count_that_is_not_a_number_is_a_failed_cleanup_and_the_file_reads_back(cli) -> None:
    env = {"MEMORY_BENCH_PLUGINS": "fake_backends,lying_plugin"}
    out = cli("run", "--backend", "count-returns-text", "--scenario", "smoke", "--seed", "0",
              "--quiet", "--out", "r.json", env_extra=env)
    assert out.returncode == 1
    assert "count returned 'x', not a count" in out.stderr
    cleanup = load_result(cli.cwd / "r.json").backends[0].runs[0].cleanup
    assert cleanup is not None and not cleanup.ok and cleanup.left is None
    assert cli("report", "r.json", "--format", "table").returncode == 0


@pytest.mark.parametrize(("backend", "why"), [
    ("exits-in-query", "query() raised SystemExit: 0"),
    ("raises-base-exception", "query() raised BaseException: a plugin's own BaseException"),
    ("raises-keyboard-interrupt",
     "query() raised KeyboardInterrupt: a plugin's own KeyboardInterrupt"),
])
def test_check_names_a_backend_call_that_exits_or_raises_a_base_exception(
        cli, backend: str, why: str) -> None:
    """The conformance kit runs the backend in its own process: a sys.exit(0) in a query
    made `check` exit 0 having printed nothing; a bare BaseException, a traceback."""
    env = {"MEMORY_BENCH_PLUGINS": "fake_backends,exiting_plugin,lying_plugin"}
    out = cli("check", backend, env_extra=env)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stdout + out.stderr
    assert f"BROKEN {backend} query: {why}" in out.stdout
