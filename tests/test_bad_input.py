"""Every bad input the issue lists: one line on stderr naming the problem, exit status 2,
and nothing written (not the result, not reports/, not runs/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _refused(run, *args: str, message: str, **kw) -> None:
    (run.cwd / "afile").write_text("a file, not a directory")
    before = _files(run.cwd)
    out = run(*args, **kw)
    assert out.returncode == 2, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("memory-bench: error: ") and message in lines[0], lines[0]
    assert _files(run.cwd) == before, "something was written"


RUN = ("run", "--scenario", "smoke", "--seed", "0", "--save")


def test_unknown_backend(site_cli) -> None:
    _refused(site_cli, *RUN, "--backend", "nope", message="unknown backend 'nope' (installed: ")


def test_duplicate_backend_name_across_plugins(cli) -> None:
    for command in (("backends",), (*RUN, "--backend", "fake-perfect")):
        _refused(cli, *command, message="backend name 'fake-perfect' is claimed by two plugins: "
                 "dup_plugin ($MEMORY_BENCH_PLUGINS) and fake_backends ($MEMORY_BENCH_PLUGINS)",
                 env_extra={"MEMORY_BENCH_PLUGINS": "fake_backends,dup_plugin"})


def test_broken_plugin_refused_when_asked_for_and_others_still_list(site_cli) -> None:
    _refused(site_cli, *RUN, "--backend", "test-broken",
             message="unknown backend 'test-broken' (installed: ")
    out = site_cli(*RUN, "--backend", "test-broken")
    assert "plugins that failed to load: test-broken = memory_bench_test_broken.plugin" in (
        out.stderr)
    listed = site_cli("backends")
    assert listed.returncode == 0
    names = {line.split()[0] for line in listed.stdout.splitlines() if line.strip()}
    assert {"json-store", "fake-perfect"} <= names  # one line a backend: name, kind, caps
    assert ("BROKEN plugin test-broken = memory_bench_test_broken.plugin (from "
            "memory-bench-test-broken 0.0.1) failed to load: ImportError: ") in listed.stdout
    # A run that does not ask for it is not stopped by it.
    ok = site_cli("run", "--scenario", "smoke", "--seed", "0", "--backend", "json-store",
                  "--out", "r.json", "--quiet")
    assert ok.returncode == 0, ok.stderr
    doc = json.loads((site_cli.cwd / "r.json").read_text())
    assert doc["manifest"]["broken_plugins"][0]["distribution"] == "memory-bench-test-broken 0.0.1"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("facts = [", "is not valid TOML"),
        ("facts = 12\ncolour = 'red'", "unknown parameter 'colour'"),
        ("facts = 0", "parameter facts: 0 is below 1"),
        ("noise = -5", "parameter noise: -5 is below 1"),
        ("gate_clean = -1", "parameter gate_clean: -1 is below 0"),
        ("", "is empty"),
        ("facts = 1000\nnoise = 600", "asks for 1630 distinct subjects"),
    ],
)
def test_bad_scenario_file(cli, body: str, message: str) -> None:
    (cli.cwd / "bad.toml").write_text(body)
    _refused(cli, "run", "--backend", "fake-perfect", "--scenario", "bad.toml", "--save",
             message=message)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("fake-forgetful:size=3", "backend fake-forgetful: unknown option 'size' (accepted: "
                                  "capacity)"),
        ("fake-forgetful:capacity=many", "option capacity: expected int, got 'many'"),
        ("fake-forgetful:capacity=0", "option capacity: 0 is below 1"),
        ("json-store:misbehave=sometimes", "option misbehave: 'sometimes' is not one of"),
        ("fake-perfect:", "nothing after ':'"),
    ],
)
def test_bad_backend_option(site_cli, spec: str, message: str) -> None:
    _refused(site_cli, *RUN, "--backend", spec, message=message)


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("afile/r.json", "afile is not a directory"),
        (".", "is a directory"),
        ("/proc/r.json", "cannot create a file in /proc"),  # refused even to root
    ],
)
def test_out_cannot_be_written(cli, out: str, message: str) -> None:
    _refused(cli, *RUN, "--backend", "fake-perfect", "--out", out, message=message)


def test_out_exists(cli) -> None:
    (cli.cwd / "old.json").write_text("{}")
    _refused(cli, *RUN, "--backend", "fake-perfect", "--out", "old.json",
             message="never overwrites")


def test_bad_timeout(cli) -> None:
    _refused(cli, *RUN, "--backend", "fake-perfect", "--timeout", "0",
             message="--timeout: must be a positive number of seconds")


def _has_compare(cli) -> bool:
    return "compare" in cli("--help").stdout


@pytest.mark.parametrize("command", ["report", "compare"])
@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notjson.json", "this is not JSON", "is not valid JSON"),
        ("trunc.json", None, "is truncated"),
        ("other.json", json.dumps({"schema": "rshl-memory-bench/1.0", "runs": []}),
         "has schema 'rshl-memory-bench/1.0'"),
        ("v3.json", json.dumps({"schema": "memory-bench/3.0"}), "has schema 'memory-bench/3.0'"),
        ("v2.json", json.dumps({"schema": "memory-bench/2.0"}), ": run_id: missing"),
        ("noschema.json", json.dumps({"run_id": "x"}), "has no schema field"),
        ("list.json", "[1, 2]", "has no schema field"),
    ],
)
def test_bad_result_file(cli, command: str, name: str, content: str | None,
                         message: str) -> None:
    if command == "compare" and not _has_compare(cli):
        pytest.skip("no compare subcommand on this branch yet")
    assert cli("run", "--backend", "fake-perfect", "--scenario", "smoke", "--seed", "0",
               "--out", "good.json", "--quiet").returncode == 0
    if content is None:  # cut inside a string, and at a structural point
        text = (cli.cwd / "good.json").read_text()
        content = text[: text.index('"records"') + 5]
    (cli.cwd / name).write_text(content)
    args = [command, name] if command == "report" else [command, "good.json", name]
    sep = "" if message.startswith(":") else " "
    _refused(cli, *args, message=f"result file {name}{sep}{message}")


def test_truncated_at_any_point_is_called_truncated(tmp_path: Path) -> None:
    from memory_bench.results.io import ResultError, load_result

    text = json.dumps({"schema": "memory-bench/2.0", "run_id": "r", "scenario": {"a": [1, 2.5]},
                       "seeds": [0], "backends": [{"label": "x y", "runs": []}]}, indent=1)
    f = tmp_path / "t.json"
    for cut in range(1, len(text) - 1):
        f.write_text(text[:cut])
        with pytest.raises(ResultError, match="is truncated"):
            load_result(f)
