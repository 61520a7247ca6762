"""Reliability, fourth pass (issue 36): the site, start-up signals, stale claims, numbers
Python cannot print, dates past the calendar, runbooks, echoed bidi characters,
reanalyse on bad rows and bad disks, and no machine path in what is published. Each
test is one line of the issue's list of failed probes."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from constructed_results import backend, result
from test_compare_paired import hits
from test_runbook import _example

from memory_bench.errors import BadInput, printable
from memory_bench.records import strictjson
from memory_bench.results.io import ResultError, load_result, write_result
from memory_bench.site import MARKER, build_site
from memory_bench.site.__main__ import main as site_main

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
BIG = "9" * 5000  # an integer Python will not print (past 4,300 digits)
SECRET = "-----BEGIN PRIVATE KEY----- not for publishing"


# The site build's progress lines (a line per file read and per step): not what a
# promise of "one line" is about, which is the error or the skip.
_PROGRESS = re.compile(r"memory-bench site: (reading \d+/\d+ |copying |writing \d+ pages"
                       r"|[\d.]+ MB in )")


def _one_line(text: str) -> str:
    lines = [x for x in text.strip().splitlines() if not _PROGRESS.match(x)]
    assert len(lines) == 1 and "Traceback" not in text, text
    return lines[0]


def _bad(out: subprocess.CompletedProcess, stream: str = "stderr") -> str:
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    return _one_line(getattr(out, stream))


def _result_doc(run_id: str = "run-a") -> dict:
    doc = result(backend("a", {}, outcomes={"recall1_before": hits(0.9, seed=1)}),
                 backend("b", {}, outcomes={"recall1_before": hits(0.5, seed=2)}),
                 run_id=run_id)
    return doc.to_dict()


def _reports(tmp_path: Path, *names: str) -> Path:
    """A reports directory holding a small valid result per name."""
    reports = tmp_path / "reports"
    reports.mkdir(exist_ok=True)
    for name in names:
        (reports / f"{name}.json").write_text(json.dumps(_result_doc(name)))
        (reports / f"{name}.md").write_text(f"# {name}\n")
    return reports


def _tree_bytes(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


# 1. Publish only what is inside -------------------------------------------------------

def test_a_symlink_out_of_reports_is_never_published(tmp_path: Path, capsys) -> None:
    """A result, a report file and a whole result that are links to files outside
    reports/ (a private key, another directory's result) are skipped by name."""
    reports = _reports(tmp_path, "2026-01-01-default-good")
    secret = tmp_path / "id_rsa"
    secret.write_text(SECRET)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "r.json").write_text(json.dumps(_result_doc("run-from-elsewhere")))
    (reports / "2026-01-01-default-linked.json").symlink_to(elsewhere / "r.json")
    (reports / "2026-01-01-default-linked.md").symlink_to(secret)
    (reports / "2026-01-01-default-good.csv").symlink_to(secret)
    (reports / "2026-01-01-default-dots.json").symlink_to(Path("..") / "elsewhere" / "r.json")
    out = tmp_path / "site"
    assert site_main([str(reports), str(out)]) == 0
    err = capsys.readouterr().err
    assert SECRET.encode() not in _tree_bytes(out)
    published = {p.name for p in (out / "files").iterdir()}
    assert published == {"2026-01-01-default-good.json", "2026-01-01-default-good.md"}
    for name in ("2026-01-01-default-linked.json", "2026-01-01-default-good.csv",
                 "2026-01-01-default-dots.json"):
        assert f"skipped {name}: a link to a file outside the reports directory" in err
    assert b"run-from-elsewhere" not in _tree_bytes(out)


def test_a_link_inside_reports_is_published(tmp_path: Path) -> None:
    reports = _reports(tmp_path, "2026-01-01-default-good")
    (reports / "2026-01-01-default-also.json").symlink_to("2026-01-01-default-good.json")
    summary = build_site(reports, tmp_path / "site")
    assert summary.runs == 2 and not summary.skipped


# 2. A site that survives bad files, a symlinked out and signals -------------------------

@pytest.mark.parametrize(("edit", "why"), [
    (lambda d: d["scenario"]["params"].update(size="huge"), "`params.size` is not a whole"),
    (lambda d: d["scenario"]["params"].update(size=[1, 2]), "`params.size` is not a whole"),
    (lambda d: d["scenario"]["params"].update(size=BIG), "integer of 5,000 digits"),
])
def test_one_bad_file_is_skipped_and_the_rest_published(tmp_path: Path, capsys, edit,
                                                         why: str) -> None:
    reports = _reports(tmp_path, "2026-01-01-default-good")
    doc = _result_doc("bad")
    edit(doc)
    text = json.dumps(doc).replace(f'"{BIG}"', BIG)  # a bare 5000-digit integer
    (reports / "2026-01-01-default-bad.json").write_text(text)
    out = tmp_path / "site"
    assert site_main([str(reports), str(out)]) == 0
    err = [x for x in capsys.readouterr().err.strip().splitlines() if not _PROGRESS.match(x)]
    assert len(err) == 1 and err[0].startswith(
        "memory-bench site: skipped 2026-01-01-default-bad.json: ") and why in err[0], err
    index = (out / "index.html").read_text()
    assert "2026-01-01-default-good" in index and "Not included" in index


def test_strict_refuses_a_bad_file_and_writes_nothing(tmp_path: Path, capsys) -> None:
    reports = _reports(tmp_path, "2026-01-01-default-good")
    (reports / "2026-01-01-default-bad.json").write_text('{"schema": 1}')
    out = tmp_path / "site"
    assert site_main([str(reports), str(out), "--strict"]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "--strict" in line and "2026-01-01-default-bad.json" in line
    assert not out.exists() and os.listdir(tmp_path) == ["reports"]


def test_out_as_a_symlink_to_an_empty_directory_keeps_both(tmp_path: Path, capsys) -> None:
    reports = _reports(tmp_path, "2026-01-01-default-good")
    mine = tmp_path / "users" / "mine"
    mine.mkdir(parents=True)
    link = tmp_path / "out"
    link.symlink_to(mine)
    inode = mine.stat().st_ino
    for _ in range(2):  # the first fills the user's directory, the second replaces a site
        assert site_main([str(reports), str(link)]) == 0, capsys.readouterr().err
        assert link.is_symlink() and link.resolve() == mine.resolve()
        assert (mine / "index.html").is_file() and (mine / MARKER).is_file()
        assert sorted(os.listdir(tmp_path)) == ["out", "reports", "users"]
        assert os.listdir(tmp_path / "users") == ["mine"]  # nothing beside it
    assert inode == mine.stat().st_ino or (mine / MARKER).is_file()


def test_a_users_directory_that_is_not_a_site_is_never_replaced(tmp_path: Path,
                                                                 capsys) -> None:
    reports = _reports(tmp_path, "2026-01-01-default-good")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    link = tmp_path / "out"
    link.symlink_to(mine)
    assert site_main([str(reports), str(link)]) == 2
    assert "is not a site built by memory-bench" in _one_line(capsys.readouterr().err)
    assert os.listdir(mine) == ["notes.txt"] and link.is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["mine", "out", "reports"]


_SLOW_SITE = """
import sys, time
from pathlib import Path
import memory_bench.site as site
real = site._copy_files
def slow(*a, **k):
    out = real(*a, **k)
    Path(sys.argv[3]).write_text("building")
    time.sleep(60)
    return out
site._copy_files = slow
from memory_bench.site.__main__ import main
sys.exit(main(sys.argv[1:3]))
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_the_build_leaves_the_previous_site(tmp_path: Path,
                                                            signum: int) -> None:
    reports = _reports(tmp_path, "2026-01-01-default-good")
    out = tmp_path / "built" / "leaderboard"
    assert site_main([str(reports), str(out)]) == 0
    before = _tree_bytes(out)
    flag = tmp_path / "flag"
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_SITE, str(reports), str(out),
                             str(flag)], text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not flag.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.05)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in _one_line(err)
    assert os.listdir(out.parent) == ["leaderboard"]  # no .leaderboard.new-PID-… left
    assert _tree_bytes(out) == before


# 3. Signals from the first instruction; stale claims -----------------------------------

def _claim_env() -> dict[str, str]:
    return {"MEMORY_BENCH_PLUGINS": "fake_backends,claim_plugin",
            "MEMORY_BENCH_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _popen(cwd: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, **_claim_env(),
           "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    exe = Path(sys.executable).parent / "memory-bench"
    return subprocess.Popen([str(exe), *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


RUN = ("run", "--backend", "preload-once", "--scenario", "smoke", "--seed", "0", "--out",
       "r.json", "--quiet")


_HOLD_IMPORT = """
import importlib.abc, os, sys, time
from pathlib import Path

class Hold(importlib.abc.MetaPathFinder):
    # Holds the import of one module (the test's flag says it is held), so a signal
    # lands at a known moment of start-up.
    def find_spec(self, name, path=None, target=None):
        if name == os.environ.get("HOLD_IMPORT"):
            Path(os.environ["HOLD_FLAG"]).write_text(name)
            time.sleep(60)
        return None

sys.meta_path.insert(0, Hold())
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("module", [
    "memory_bench.contract.backend",  # the package's own imports, before main()
    "memory_bench.commands",  # main()'s first import
    "memory_bench.session.pipeline",  # the run command's imports
    "claim_plugin",  # plugin loading
])
def test_a_signal_at_any_moment_of_start_up_exits_130(cli, tmp_path: Path, signum: int,
                                                      module: str) -> None:
    """Imports, plugin loading, the plan: 130, one line, no result file, no claim."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_HOLD_IMPORT)
    flag = tmp_path / "held"
    env = {**os.environ, **_claim_env(), "HOLD_IMPORT": module, "HOLD_FLAG": str(flag),
           "PYTHONPATH": os.pathsep.join([str(hook), str(TESTS),
                                          os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([str(Path(sys.executable).parent / "memory-bench"), *RUN],
                            cwd=cli.cwd, env=env, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not flag.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.02)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err)
    assert "interrupted" in _one_line(err)
    assert sorted(os.listdir(cli.cwd)) == ["held", "hook", "scenarios"]  # no result, claim


@pytest.mark.parametrize("delay", [0.3, 0.6])
def test_sigterm_a_fraction_of_a_second_into_a_run_exits_130(cli, delay: float) -> None:
    proc = _popen(cli.cwd, *RUN)
    time.sleep(delay)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err)
    assert "interrupted" in _one_line(err)
    assert not (cli.cwd / "r.json").exists() and not (cli.cwd / "r.pairs").exists()


def test_sigterm_in_the_preload_exits_130_and_the_run_can_be_made_again(cli) -> None:
    proc = _popen(cli.cwd, *RUN)
    deadline = time.monotonic() + 120
    while not (cli.cwd / "preloading").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert _one_line(err) == ("memory-bench: interrupted before the run started; nothing "
                              "was written")
    again = cli(*RUN, env_extra=_claim_env())
    assert again.returncode == 0, again.stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_a_preload_swallowed_still_stops_the_run(cli, signum: int) -> None:
    """Before: the run carried on to exit 0 and wrote a result the user had stopped."""
    proc = _popen(cli.cwd, "run", "--backend", "preload-swallowing", "--scenario", "smoke",
                  "--seed", "0", "--out", "r.json", "--quiet")
    deadline = time.monotonic() + 120
    while not (cli.cwd / "preloading").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.05)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert _one_line(err) == ("memory-bench: interrupted before the run started; nothing "
                              "was written")
    assert not (cli.cwd / "r.json").exists() and not (cli.cwd / "r.pairs").exists()


def test_the_same_command_after_kill_9_of_a_claimed_run_exits_0(cli) -> None:
    """The dead run had made r.pairs/ (its claim) but not r.json."""
    proc = _popen(cli.cwd, *RUN)
    deadline = time.monotonic() + 120
    while not (cli.cwd / "preloading").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.05)
    assert (cli.cwd / "r.pairs").is_dir() and not (cli.cwd / "r.json").exists()
    proc.kill()
    proc.communicate(timeout=60)
    again = cli(*RUN, env_extra=_claim_env())
    assert again.returncode == 0, again.stderr
    assert load_result(cli.cwd / "r.json").status == "complete"


def test_a_claim_holding_files_is_refused_naming_the_path_and_the_fix(cli) -> None:
    (cli.cwd / "r.pairs").mkdir()
    (cli.cwd / "r.pairs" / "notes.txt").write_text("not ours to remove")
    out = cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
              "--out", "r.json")
    line = _bad(out)
    assert "r.pairs exists without its result" in line and "`rm -r r.pairs`" in line
    assert (cli.cwd / "r.pairs" / "notes.txt").exists()


def test_an_existing_result_is_refused_naming_resume(cli) -> None:
    ok = cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
             "--out", "r.json")
    assert ok.returncode == 0, ok.stderr
    line = _bad(cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed",
                    "0", "--out", "r.json"))
    assert "never overwrites" in line and "`memory-bench run --resume r.json`" in line


# 4. Numbers and dates from any input ---------------------------------------------------

def test_a_5000_digit_integer_in_a_result_is_one_line_naming_the_field(cli) -> None:
    doc = _result_doc()
    doc["backends"][0]["runs"][0]["seconds"] = "BIG"
    (cli.cwd / "r.json").write_text(json.dumps(doc).replace('"BIG"', BIG))
    for cmd in (["report", "r.json"], ["compare", "r.json", "r.json"]):
        line = _bad(cli(*cmd))
        assert "`backends[0].runs[0].seconds` is an integer of 5,000 digits" in line, line


@pytest.mark.parametrize("text", [
    '{"a": [1, {"b": %s}]}' % BIG,  # noqa: UP031
    '{"a": -%s}' % ("1" * 65),
])
def test_strict_json_refuses_long_integers_naming_the_field(text: str) -> None:
    with pytest.raises(strictjson.StrictJSONError, match=r"`a(\[1\]\.b)?` is an integer"):
        strictjson.loads(text)
    assert strictjson.loads('{"a": %s}' % ("9" * 64)) == {"a": int("9" * 64)}


def test_a_long_integer_in_a_jsonl_file_is_bad_input(cli) -> None:
    line = json.loads((ROOT / "tests/fixtures/datasets/example.jsonl").read_text()
                      .splitlines()[0])
    line["seed"] = "BIG"
    (cli.cwd / "d.jsonl").write_text(json.dumps(line).replace('"BIG"', BIG) + "\n")
    out = cli("validate", "d.jsonl")
    assert out.returncode == 2 and "integer of 5,000 digits" in out.stdout + out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(("toml", "where"), [
    (f"k = {BIG}\n", "line 1"), (f"[a]\nb = {'1' * 80}\n", "`a.b`")])
def test_strict_toml_refuses_long_integers(toml: str, where: str) -> None:
    from memory_bench.records import stricttoml

    with pytest.raises(stricttoml.StrictTOMLError, match=re.escape(where)):
        stricttoml.loads(toml)


def test_a_long_integer_in_a_runbook_or_scenario_file_is_one_line(cli) -> None:
    (cli.cwd / "book.toml").write_text(_example().replace("k = 5", f"k = {BIG}"))
    assert "an integer of more than 64 digits" in _bad(cli("validate", "book.toml"),
                                                        "stdout")
    (cli.cwd / "scenarios" / "big.toml").write_text(f'generator = "templated"\nseeds = {BIG}\n')
    line = _bad(cli("plan", "--backend", "fake-perfect", "--scenario", "big"))
    assert "an integer of more than 64 digits" in line


def test_a_long_integer_in_an_audit_file_is_bad_input(tmp_path: Path) -> None:
    from memory_bench.scenarios.datasets.locomo_audit import load_audit

    audit = json.loads((ROOT / "tests/fixtures/datasets/locomo_audit_mini.json").read_text())
    audit[0]["category"] = "BIG"
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(audit).replace('"BIG"', BIG))
    with pytest.raises(BadInput, match=r"`\[0\]\.category` is an integer of 5,000 digits"):
        load_audit(str(path))


def _beam_copy(tmp_path: Path) -> Path:
    root = tmp_path / "beam"
    shutil.copytree(ROOT / "tests/fixtures/datasets/beam_mini", root)
    return root


def _beam_params(root: Path) -> dict:
    return {"path": str(root), "tier": "100K", "folds": 0, "write_batch": 32,
            "keep_questions": False}


def test_beam_chat_directories_with_odd_digits_or_long_ids(tmp_path: Path) -> None:
    from memory_bench.scenarios.datasets import beam

    root = _beam_copy(tmp_path)
    chats = root / "chats" / "100K"
    shutil.copytree(chats / "1", chats / "²")  # a digit to isdigit(), not to int()
    shutil.copytree(chats / "2", chats / ("7" * 5000)[:200])
    data = beam.load(_beam_params(root))  # read, in a stable order
    assert len(data.chats) == 4
    q = chats / "1" / "probing_questions" / "probing_questions.json"
    doc = json.loads(q.read_text())
    kind = next(iter(doc))
    doc[kind][0]["source_chat_ids"] = ["BIG"]  # an id as a number Python will not print
    q.write_text(json.dumps(doc).replace('"BIG"', BIG))
    with pytest.raises(BadInput, match="is an integer of 5,000 digits"):
        beam.load(_beam_params(root))


def test_beam_a_time_anchor_at_the_end_of_the_calendar_is_bad_input(tmp_path: Path) -> None:
    from memory_bench.scenarios.datasets import beam

    root = _beam_copy(tmp_path)
    chat = root / "chats" / "100K" / "1" / "chat.json"
    doc = json.loads(chat.read_text())
    doc[0]["turns"][0][0]["time_anchor"] = "December-31-9999"
    many = [[{"role": "user", "id": 10**6 + i, "content": f"note {i}"}] for i in range(86_400)]
    doc.append({"batch_number": len(doc) + 1, "turns": many})  # a second apart: a day
    chat.write_text(json.dumps(doc))
    with pytest.raises(BadInput, match="past the year 9999"):
        beam.load(_beam_params(root))


def test_locomo_a_date_at_the_end_of_the_calendar_is_bad_input(tmp_path: Path) -> None:
    from memory_bench.scenarios.datasets import locomo

    data = json.loads((ROOT / "tests/fixtures/datasets/locomo_mini.json").read_text())
    conv = data[0]["conversation"]
    conv["session_1_date_time"] = "11:59 pm on 31 December, 9999"
    conv["session_2_date_time"] = "no date"
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data))
    with pytest.raises(BadInput, match="past the year 9999"):
        locomo.load({"path": str(path), "folds": 3, "write_batch": 32,
                     "keep_questions": False})


# 5. Runbooks and echoed paths ----------------------------------------------------------

def test_a_runbook_ask_with_an_empty_tag_is_refused_naming_the_step(cli) -> None:
    book = _example()
    at = book.index('op = "ask"')
    (cli.cwd / "book.toml").write_text(book[:at] + 'tag = ""\n' + book[at:])
    line = _bad(cli("validate", "book.toml"), "stdout")
    assert re.search(r"step \d+ \(line \d+\), ask: tag is empty", line), line


@pytest.mark.parametrize("raw", ["\u2028", "\u0085", "\u2029"])
def test_runbook_line_numbers_count_newlines_only(cli, raw: str) -> None:
    book = _example()
    first = book.index('op = "ask"')
    book = book[:first] + f'tag = "a{raw}b"\n' + book[first:]  # a raw separator in a string
    at = book.index('op = "ask"', book.index('op = "ask"') + 1)  # a later step, made bad
    bad = book[:at] + 'op = "nonsense"' + book[at + len('op = "ask"'):]
    (cli.cwd / "book.toml").write_text(bad)
    line = _bad(cli("validate", "book.toml"), "stdout")
    expected = bad[:bad.index('op = "nonsense"')].count("\n")  # the [[step]] header's line
    assert f"(line {expected})" in line, line


def test_bidi_overrides_are_escaped_in_every_echo(cli) -> None:
    name = "evil\u202egnp.json"
    line = _bad(cli("report", name))
    assert "\u202e" not in line and "\\u202e" in line
    assert printable("a\u2066b\u200fc") == "a\\u2066b\\u200fc"


# 6. reanalyse on bad rows and bad disks ------------------------------------------------

def _reanalyse(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "reanalyse.py"), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("row", [[], [1.0, 0.0]])
def test_reanalyse_a_malformed_outcome_row_is_one_line(tmp_path: Path, row: list) -> None:
    doc = _result_doc()
    doc["backends"][0]["runs"][0]["outcomes"]["recall1_before"]["values"][3] = row
    src = tmp_path / "r.json"
    src.write_text(json.dumps(doc))
    line = _bad(_reanalyse(str(src), str(tmp_path / "out")))
    assert "outcomes.recall1_before.values" in line and "row 3" in line, line
    assert not (tmp_path / "out").exists()
    with pytest.raises(ResultError):
        load_result(src)


def _mount_tmpfs(where: Path, *options: str) -> None:
    where.mkdir()
    out = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(options), "tmpfs",
                          str(where)], capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {out.stderr.strip()}")


def _umount(where: Path) -> None:
    subprocess.run(["umount", str(where)], check=False)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    src = tmp_path / "r.json"
    write_result(src, result(backend("a", {}, outcomes={"recall1_before": hits(0.9, seed=1)}),
                             backend("b", {}, outcomes={"recall1_before": hits(0.5, seed=2)})))
    return src


def test_reanalyse_into_a_read_only_directory_is_exit_2(tmp_path: Path, source: Path) -> None:
    disk = tmp_path / "ro"
    _mount_tmpfs(disk, "ro", "size=1m")
    try:
        line = _bad(_reanalyse(str(source), str(disk / "reports")))
        assert "Read-only file system" in line, line
    finally:
        _umount(disk)


def test_reanalyse_on_a_full_disk_is_exit_1_and_leaves_no_partial_set(
        tmp_path: Path, source: Path) -> None:
    disk = tmp_path / "full"
    _mount_tmpfs(disk, "size=64k")  # the set is far larger (plots, HTML)
    try:
        out = _reanalyse(str(source), str(disk / "reports"))
        assert out.returncode == 1, out.stderr
        line = _one_line(out.stderr)
        assert "No space left on device" in line and "nothing was published" in line
        left = [p.name for p in (disk / "reports").iterdir()] if (disk / "reports").exists() \
            else []
        assert left == [], left
    finally:
        _umount(disk)


def _reanalyse_here(monkeypatch, argv: list[str], fail_errno: int) -> int:
    """scripts/reanalyse.py in this process, with every staged write failing."""
    import importlib.util

    from memory_bench.results import io as results_io

    spec = importlib.util.spec_from_file_location("reanalyse", ROOT / "scripts/reanalyse.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def full(path: Path, data: bytes) -> str:
        raise OSError(fail_errno, os.strerror(fail_errno))

    monkeypatch.setattr(results_io, "_staged", full)
    return module.main(argv)


@pytest.mark.parametrize(("code", "status"), [(errno.ENOSPC, 1), (errno.EDQUOT, 1),
                                              (errno.EROFS, 2), (errno.EACCES, 2)])
def test_reanalyse_a_write_that_fails_is_one_line_and_no_set(
        tmp_path: Path, source: Path, monkeypatch, capsys, code: int, status: int) -> None:
    out = tmp_path / "reports"
    assert _reanalyse_here(monkeypatch, [str(source), str(out)], code) == status
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("reanalyse: cannot write the report set") and \
        os.strerror(code) in line
    assert [p.name for p in out.iterdir()] == []  # the reserved names removed again


# 7. No machine path in a published file ------------------------------------------------

# A path of a machine: a directory of the root, not inside a word, a URL or `<tmp>/`.
ABSOLUTE = re.compile(rb"(?<![\w.:/~<>+=%-])/(?:home|root|tmp|work|Users|usr|var|opt|mnt|srv|"
                      rb"private|etc|proc|scratch|nix)/")


def test_no_published_file_holds_an_absolute_path() -> None:
    import gzip

    found = []
    for p in sorted((ROOT / "reports").iterdir()):
        if p.suffix == ".png" or not p.is_file():
            continue
        data = gzip.decompress(p.read_bytes()) if p.name.endswith(".gz") else p.read_bytes()
        m = ABSOLUTE.search(data)
        if m:
            found.append(f"{p.name}: {data[max(0, m.start() - 40):m.end() + 40]!r}")
    assert not found, found


def test_the_absolute_path_pattern_finds_what_it_must() -> None:
    # (every sample path built from parts: this file itself must hold none)
    s = b"/"
    assert ABSOLUTE.search(b'"--cache-dir", "' + s + b'tmp/sweep-cache"')
    assert ABSOLUTE.search(b"File " + s + b"home" + s + b"me/x.py, line 3")
    for fine in (b"<tmp>" + s + b"sweep-cache", b"https://example.org" + s + b"home" + s + b"x",
                 b"and/or " + s + b"tmpx", b"./tmp" + s + b"x", b"~" + s + b"work" + s + b"x"):
        assert not ABSOLUTE.search(fine), fine


def test_the_manifest_names_no_directory_of_this_machine(tmp_path: Path) -> None:
    import tempfile

    from memory_bench.results.manifest import build_manifest

    cache = str(Path(tempfile.gettempdir()) / "sweep-cache")
    m = build_manifest([], argv=[str(Path("/", "usr", "bin", "memory-bench")), "run",
                                 "--cache-dir", cache, "--out", "r.json"])
    assert m["command"] == ["memory-bench", "run", "--cache-dir", "<tmp>/sweep-cache",
                            "--out", "r.json"]


# 8. The reliability table ---------------------------------------------------------------

def test_the_reliability_table_names_tests_that_exist() -> None:
    text = (ROOT / "docs" / "reliability.md").read_text()
    table = text[text.index("## Every promise and the test that holds it"):]
    named = re.findall(r"`([\w/.-]+\.py)::(test_\w+)`", table)
    assert len(named) >= 40, len(named)
    missing = [f"{f}::{t}" for f, t in named
               if not re.search(rf"^def {t}\(", (ROOT / f).read_text(), re.M)]
    assert not missing, missing
