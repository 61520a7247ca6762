"""Every CLI command through the real entry point, and its error exits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_bench.metrics.continual import CONTINUAL_METRICS as METRICS


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_backends_json_lists_fakes_and_broken(cli) -> None:
    out = cli("backends", "--json",
              env_extra={"MEMORY_BENCH_PLUGINS": "fake_backends,broken_plugin"})
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    names = [b["name"] for b in doc["backends"]]
    assert names == sorted(names) and "fake-perfect" in names
    perfect = next(b for b in doc["backends"] if b["name"] == "fake-perfect")
    assert perfect["capabilities"] == ["forget", "gate", "provenance", "strength"]
    assert perfect["version"] == "0.0.1"
    assert doc["broken"][0]["entry_point"] == "broken_plugin"


def test_backends_text(cli) -> None:
    """One short line per backend (name, kind, capabilities); NAME shows one in full."""
    out = cli("backends")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[-1] == "details: memory-bench backends NAME"
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in lines[:-1]}
    assert rows["fake-perfect"] == ["system", "forget, gate, provenance, strength"]
    assert all(len(line) <= 100 for line in lines)
    full = cli("backends", "fake-forgetful")
    assert full.returncode == 0
    assert full.stdout.startswith("fake-forgetful 0.0.1 (system) from ")
    assert "option capacity" in full.stdout
    bad = cli("backends", "nope")
    assert bad.returncode == 2 and "unknown backend 'nope'" in bad.stderr


def test_listing_puts_systems_first_and_audit_rows_last() -> None:
    from memory_bench import BackendRegistry

    reg = BackendRegistry()
    for name, kind in (("a-audit", "audit"), ("b-base", "baseline"), ("c-sys", "system"),
                       ("a-base", "baseline")):
        reg.add(name, factory=lambda o, c: None, description="", version="1", kind=kind)
    assert [b.name for b in reg.listed()] == ["c-sys", "a-base", "b-base", "a-audit"]
    with pytest.raises(ValueError, match="kind 'honest' is not one of"):
        reg.add("d", factory=lambda o, c: None, description="", version="1", kind="honest")


def test_plan_writes_nothing(cli) -> None:
    before = _files(cli.cwd)
    out = cli("plan", "--backend", "fake-perfect", "--backend", "fake-forgetful:capacity=5",
              "--scenario", "smoke", "--seeds", "3", "--save")
    assert out.returncode == 0, out.stderr
    assert "fake-forgetful:capacity=5: fake-forgetful 0.0.1 (capacity=5)" in out.stdout
    assert "seeds: 0, 1, 2" in out.stdout and "facts 12, noise 24" in out.stdout
    assert "pairs: 6" in out.stdout
    assert _files(cli.cwd) == before


def test_run_writes_result_with_every_metric(cli) -> None:
    out = cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
              "--out", "r.json", "--quiet")
    assert out.returncode == 0, out.stderr
    assert "fake-perfect" in out.stdout and "recall@1" in out.stdout
    assert out.stderr == ""  # --quiet and not a terminal: no progress, no chatter
    doc = json.loads((cli.cwd / "r.json").read_text())
    assert doc["schema"] == "memory-bench/2.1"
    run = doc["backends"][0]["runs"][0]
    names = {m.name for m in METRICS}
    per_kind = {"gateRecall/" + k for k in ("empty", "short", "duplicate")}
    # e2e ingest is derived from the store's rate and the encoder's (results/derived.py)
    derived = {"e2e_ingest_items_per_s"}
    assert set(run["metrics"]) - derived == names | per_kind | {"falseRefusals/clean"}
    assert set(run["outcomes"]) <= names and "recall1_before" in run["outcomes"]
    assert doc["backends"][0]["reads"] == ["tags"]
    assert doc["scenario"]["exposure"]["structure"] == ["tags"]  # smoke is structured
    assert run["records"]["probes"] and run["data_hash"].startswith("sha256:")
    assert doc["manifest"]["command"][1:3] == ["run", "--backend"]
    assert doc["manifest"]["cpu_count"] >= 1


def test_run_save_never_overwrites(cli) -> None:
    for _ in range(2):
        out = cli("run", "--backend", "fake-noprov", "--scenario", "smoke", "--seed", "0",
                  "--save", "--quiet")
        assert out.returncode == 0, out.stderr
    reports = sorted((cli.cwd / "reports").iterdir())
    assert len([p for p in reports if p.suffix == ".md"]) == 2
    assert len([p for p in reports if p.name.endswith(".json.gz")]) == 2
    assert len(list((cli.cwd / "runs").glob("*.json"))) == 2
    from test_readback import reads_back, results_in

    for path in [*results_in(cli.cwd / "reports"), *results_in(cli.cwd / "runs")]:
        reads_back(path)  # report and compare read every result file --save wrote


def test_run_with_failing_backend_exits_1(cli) -> None:
    out = cli("run", "--backend", "fake-broken-query", "--backend", "fake-perfect",
              "--scenario", "smoke", "--seed", "0", "--out", "r.json")
    assert out.returncode == 1
    assert "fake-broken-query seed 0: failed: RuntimeError: index corrupted" in out.stdout
    doc = json.loads((cli.cwd / "r.json").read_text())
    assert [r["status"] for b in doc["backends"] for r in b["runs"]] == ["failed", "ok"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--backend", "nope"], "unknown backend 'nope' (installed: fake-broken-query, "),
        (["--backend", "fake-forgetful:capacity=many"], "expected int"),
        (["--backend", "fake-forgetful:size=3"], "unknown option 'size'"),
        (["--backend", "fake-perfect", "--backend", "fake-perfect"], "asked for twice"),
        (["--backend", "fake-perfect", "--scenario", "nope"], "unknown scenario 'nope'"),
        (["--backend", "fake-perfect", "--set", "facts=0"], "parameter facts: 0 is below 1"),
        (["--backend", "fake-perfect", "--set", "flavour=1"], "unknown parameter 'flavour'"),
        (["--backend", "fake-perfect", "--out", "afile/r.json"], "afile is not a directory"),
        (["--backend", "fake-perfect", "--seeds", "0"], "--seeds: must be between 1 and 10000"),
    ],
)
def test_run_bad_input_exits_2_and_writes_nothing(cli, args: list[str], message: str) -> None:
    (cli.cwd / "afile").write_text("a file, not a directory")
    before = _files(cli.cwd)
    out = cli("run", "--scenario", "smoke", *args) if "--scenario" not in args else cli(
        "run", *args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], out.stderr
    assert _files(cli.cwd) == before


def test_bad_scenario_files_exit_2(cli) -> None:
    for body, message in [("facts = [", "not valid TOML"),
                          ("bogus = 1", "unknown parameter 'bogus'")]:
        (cli.cwd / "bad.toml").write_text(body)
        out = cli("run", "--backend", "fake-perfect", "--scenario", "bad.toml")
        assert out.returncode == 2 and message in out.stderr
        assert not (cli.cwd / "runs").exists()


def test_existing_out_is_not_overwritten(cli) -> None:
    (cli.cwd / "r.json").write_text("precious")
    out = cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--out", "r.json")
    assert out.returncode == 2 and "never overwrites" in out.stderr
    assert (cli.cwd / "r.json").read_text() == "precious"


def test_duplicate_backend_name_exits_2(cli) -> None:
    out = cli("backends", env_extra={"MEMORY_BENCH_PLUGINS": "fake_backends,dup_plugin"})
    assert out.returncode == 2
    assert "claimed by two plugins" in out.stderr
    assert "fake_backends" in out.stderr and "dup_plugin" in out.stderr


def test_unknown_backend_mentions_broken_plugins(cli) -> None:
    out = cli("run", "--backend", "ghost", "--scenario", "smoke",
              env_extra={"MEMORY_BENCH_PLUGINS": "fake_backends,broken_plugin"})
    assert out.returncode == 2 and "broken_plugin" in out.stderr


def test_report_formats_and_bad_files(cli) -> None:
    assert cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
               "--out", "r.json", "--quiet").returncode == 0
    md = cli("report", "r.json")
    assert md.returncode == 0 and md.stdout.startswith("# memory-bench comparison")
    assert "| fake-perfect [structured] |" in md.stdout  # it reads smoke's tags
    js = cli("report", "r.json", "--format", "json")
    assert json.loads(js.stdout)["schema"] == "memory-bench/2.1"
    table = cli("report", "r.json", "--format", "table")
    assert "recall@1" in table.stdout

    text = (cli.cwd / "r.json").read_text()
    (cli.cwd / "trunc.json").write_text(text[: text.index('"probes"') + 20])  # mid-file
    (cli.cwd / "notjson.json").write_text("hello")
    (cli.cwd / "other.json").write_text(json.dumps({"schema": "rshl-memory-bench/1.0"}))
    for name, message in [("trunc.json", "truncated"), ("notjson.json", "not valid JSON"),
                          ("other.json", "has schema"), ("missing.json", "cannot read")]:
        out = cli("report", name)
        assert out.returncode == 2 and message in out.stderr, (name, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1


def test_gzipped_result_files_read_and_bad_gzip_refused(cli, tmp_path: Path) -> None:
    import gzip

    assert cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
               "--out", "r.json", "--quiet").returncode == 0
    raw = (cli.cwd / "r.json").read_bytes()
    (cli.cwd / "r.json.gz").write_bytes(gzip.compress(raw))
    (cli.cwd / "cut.json.gz").write_bytes(gzip.compress(raw)[:200])
    (cli.cwd / "plain.json.gz").write_bytes(raw)
    assert cli("report", "r.json.gz", "--format", "table").returncode == 0
    for name, message in [("cut.json.gz", "truncated"), ("plain.json.gz", "not valid gzip")]:
        out = cli("report", name)
        assert out.returncode == 2 and message in out.stderr, out.stderr


def test_scenarios_lists_one_line_each_and_shows_what_the_file_sets(cli) -> None:
    out = cli("scenarios")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert all(len(line) <= 100 for line in lines)
    assert any(line.split()[:2] == ["hard", "hard"] for line in lines)
    assert "phase 1" not in out.stdout
    full = cli("scenarios", "hard")
    assert full.returncode == 0, full.stderr
    assert "gate_empty = 8  (set by the file)" in full.stdout  # hard.toml's, not the 20
    assert "update_history = 0.5  (default)" in full.stdout
    assert "phase 1" not in full.stdout and "phase 6" not in full.stdout
    gen = cli("scenarios", "templated")
    assert "gate_empty = 20  (default)" in gen.stdout
    bad = cli("scenarios", "nope")
    assert bad.returncode == 2 and "unknown scenario 'nope'" in bad.stderr


def test_progress_in_a_pipe_is_one_plain_line_per_pair(cli) -> None:
    """stderr is a pipe here: no carriage-return line, a line per finished pair."""
    out = cli("run", "--backend", "fake-perfect", "--backend", "fake-noprov", "--scenario",
              "smoke", "--seeds", "2", "--out", "r.json")
    assert out.returncode == 0, out.stderr
    assert "\r" not in out.stderr
    pairs = [line for line in out.stderr.splitlines() if line.startswith("memory-bench: pair ")]
    assert [line.split(":")[1].strip() for line in pairs] == [
        "pair 1/4 ok", "pair 2/4 ok", "pair 3/4 ok", "pair 4/4 ok"]
    assert "[fake-perfect] seed 1/2 in " in pairs[0] and "· ETA " in pairs[0]
    assert "ETA" not in pairs[-1]


def test_progress_on_a_terminal_stays_one_refreshed_line() -> None:
    import io

    from memory_bench.harness.progress import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    p = Progress(stream=stream)
    p.plan(2)
    p.pair("x", 0, 2)
    p.pair_done("[x] seed 1/2", "ok", 1.0)
    assert p.enabled and not p.plain and "memory-bench: pair" not in stream.getvalue()
    quiet = io.StringIO()
    q = Progress(enabled=False, stream=quiet)
    q.plan(1)
    q.pair_done("[x] seed 1/1", "ok", 1.0)
    assert quiet.getvalue() == ""
