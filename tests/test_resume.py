"""Incremental, atomic results and ``run --resume``: finished pairs are never run again,
and a resume under other parameters is refused with one line saying what differs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_cli

from memory_bench.results.io import dumps, write_bytes_atomic
from memory_bench.results.pairs import pairs_dir_for


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_write_result_is_atomic(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    write_bytes_atomic(out, b'{"schema": "memory-bench/2.0", "n": 1}')
    with pytest.raises(TypeError):
        write_bytes_atomic(out, dumps({"schema": "memory-bench/2.0", "bad": object()}))
    assert json.loads(out.read_text()) == {"schema": "memory-bench/2.0", "n": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary file left


def _interrupt(path: Path, keep: dict[str, list[int]], fail: dict[str, list[int]] = {}) -> dict:  # noqa: B006
    """Make a finished result look interrupted: drop runs not in ``keep`` (from the result
    and its pair files), mark ``fail`` as failed."""
    doc = json.loads(path.read_text())
    for b in doc["backends"]:
        b["runs"] = [r for r in b["runs"] if r["seed"] in keep.get(b["label"], [])]
        for r in b["runs"]:
            if r["seed"] in fail.get(b["label"], []):
                r.update(status="failed", error="RuntimeError: simulated", metrics={})
                r.pop("records")
    for pair in pairs_dir_for(path).glob("*.json"):
        entry = json.loads(pair.read_text())
        label, seed = entry["label"], entry["run"]["seed"]
        run = next((r for b in doc["backends"] if b["label"] == label for r in b["runs"]
                    if r["seed"] == seed), None)
        if run is None:
            pair.unlink()
        else:
            entry["run"] = run
            pair.write_text(json.dumps(entry))
    doc["status"] = "interrupted"
    path.write_text(json.dumps(doc))
    return doc


FORGETFUL = "fake-forgetful:capacity=30"  # a backend with options is labelled by its spec
ARGS = ["--backend", "fake-perfect", "--backend", "fake-forgetful:capacity=30", "--scenario",
        "smoke", "--seeds", "3", "--quiet"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One finished run of ARGS (``r.json`` and its pair files) for the module: each
    test interrupts its own copy (it was a run of its own in every test)."""
    where = tmp_path_factory.mktemp("finished")
    shutil.copytree(ROOT / "scenarios", where / "scenarios")
    done = run_cli("run", *ARGS, "--out", "r.json", cwd=where)
    assert done.returncode == 0, done.stderr
    return where


def _finished_here(cli, finished: Path) -> None:
    """The module's finished run, copied into this test's directory."""
    shutil.copy2(finished / "r.json", cli.cwd / "r.json")
    shutil.copytree(pairs_dir_for(finished / "r.json"), pairs_dir_for(cli.cwd / "r.json"))


def test_resume_runs_only_unfinished_pairs(cli, finished: Path) -> None:
    _finished_here(cli, finished)
    path = cli.cwd / "r.json"
    before = _interrupt(path, keep={"fake-perfect": [0, 1, 2], FORGETFUL: [0, 1]},
                        fail={"fake-perfect": [1]})
    out = cli("run", "--resume", "r.json")  # parameters taken from the file
    assert out.returncode == 0, out.stderr
    assert "resuming r.json: 2 pair(s) to run" in out.stderr
    doc = json.loads(path.read_text())
    assert doc["status"] == "complete" and doc["run_id"] == before["run_id"]
    perfect, forgetful = doc["backends"]
    assert [r["seed"] for r in perfect["runs"]] == [0, 1, 2]
    assert [r["seed"] for r in forgetful["runs"]] == [0, 1, 2]
    assert all(r["status"] == "ok" for b in doc["backends"] for r in b["runs"])
    # Kept pairs are byte-for-byte what they were; the failed one and the missing one ran.
    assert perfect["runs"][0] == before["backends"][0]["runs"][0]
    assert perfect["runs"][2] == before["backends"][0]["runs"][2]
    assert forgetful["runs"][:2] == before["backends"][1]["runs"]
    assert perfect["runs"][1]["metrics"]["recall1_before"] == 1.0
    assert perfect["summary"]["recall1_before"]["n"] == 3
    assert len(doc["resumes"]) == 1 and doc["resumes"][0]["command"][1:3] == ["run", "--resume"]


def test_resume_with_matching_command_line_and_nothing_to_do(cli, finished: Path) -> None:
    _finished_here(cli, finished)
    _interrupt(cli.cwd / "r.json", keep={"fake-perfect": [0, 1, 2], FORGETFUL: [0]})
    out = cli("run", *ARGS, "--resume", "r.json")
    assert out.returncode == 0, out.stderr
    again = cli("run", "--resume", "r.json")
    assert again.returncode == 0 and "0 pair(s) to run" in again.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "facts=20"], "the scenario differs: facts 12 in the file, 20 now"),
        (["--scenario", "default"], "the scenario differs: description"),
        (["--seeds", "2"], "the seeds differ: [0, 1, 2] in the file, [0, 1] now"),
        (["--seed", "5"], "the seeds differ"),
        (["--backend", "fake-perfect"], "the backends differ: the file has fake-perfect, "
                                        "fake-forgetful:capacity=30; the command line asks for "
                                        "fake-perfect"),
        (["--backend", "fake-perfect", "--backend", "fake-forgetful:capacity=31"],
         "the backends differ"),
        (["--out", "other.json"], "--out cannot be used with --resume"),
    ],
)
def test_resume_refuses_a_mismatch(cli, finished: Path, args: list[str], message: str
                                   ) -> None:
    _finished_here(cli, finished)
    _interrupt(cli.cwd / "r.json", keep={"fake-perfect": [0]})
    text = (cli.cwd / "r.json").read_text()
    files = _files(cli.cwd)
    out = cli("run", "--resume", "r.json", *args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], out.stderr
    assert (cli.cwd / "r.json").read_text() == text and _files(cli.cwd) == files


def test_resume_refuses_changed_defaults_versions_and_data(cli, finished: Path) -> None:
    _finished_here(cli, finished)
    path = cli.cwd / "r.json"
    doc = _interrupt(path, keep={"fake-perfect": [0]})
    cases = []
    d = json.loads(json.dumps(doc))
    d["backends"][1]["options"]["capacity"] = 29  # as if the default had changed
    cases.append((d, f"backend {FORGETFUL}'s options differ: capacity 29 in the file, 30 now"))
    d = json.loads(json.dumps(doc))
    d["backends"][0]["version"] = "0.0.0"
    cases.append((d, "backend fake-perfect is version 0.0.1 now, 0.0.0 in the file"))
    d = json.loads(json.dumps(doc))
    d["scenario"]["data_hashes"]["0"] = "sha256:" + "0" * 64
    cases.append((d, "seed 0 now generates other data"))
    d = json.loads(json.dumps(doc))
    d["scenario"]["generator_version"] = "0.9"  # e.g. before a metric was redefined
    cases.append((d, "generator templated is version"))
    d = json.loads(json.dumps(doc))
    d["backends"][0]["spec"] = "ghost"
    cases.append((d, "unknown backend 'ghost'"))
    for doc_case, message in cases:
        path.write_text(json.dumps(doc_case))
        out = cli("run", "--resume", "r.json")
        assert out.returncode == 2, (message, out.stderr)
        assert len(out.stderr.strip().splitlines()) == 1 and message in out.stderr, out.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [("{\"schema\": \"memory-bench/2.0\", \"run", "truncated"), ("hello", "not valid JSON"),
     (json.dumps({"schema": "other/1.0"}), "has schema")],
)
def test_resume_refuses_unreadable_files(cli, content: str, message: str) -> None:
    (cli.cwd / "r.json").write_text(content)
    out = cli("run", "--resume", "r.json")
    assert out.returncode == 2 and message in out.stderr
    assert (cli.cwd / "r.json").read_text() == content
