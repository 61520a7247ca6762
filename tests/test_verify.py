"""`memory-bench verify`: a result made cleanly passes; each of five tamperings (and a
few more) fails the check it should, with one line, exit 1."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

RUN = ("run", "--backend", "fake-perfect", "--backend", "fake-noprov", "--scenario", "smoke",
       "--seeds", "2", "--out", "r.json", "--quiet")


@pytest.fixture
def made(cli) -> Any:
    """A clean checkout and one result made in it."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q"], cwd=cli.cwd, check=True)
    subprocess.run(["git", "add", "scenarios"], cwd=cli.cwd, check=True)
    subprocess.run([*git, "commit", "-qm", "s"], cwd=cli.cwd, check=True)
    out = cli(*RUN)
    assert out.returncode == 0, out.stderr
    return cli


def _lines(out: subprocess.CompletedProcess[str]) -> dict[str, str]:
    return {line[5:].split(":")[0]: line for line in out.stdout.splitlines()}


def test_a_clean_result_verifies(made) -> None:
    out = made("verify", "r.json")
    assert out.returncode == 0, out.stdout + out.stderr
    lines = _lines(out)
    assert list(lines) == ["complete", "provenance", "versions", "records", "ids", "data",
                           "questions", "metrics", "analysis"]
    assert all(line.startswith("ok ") for line in lines.values()), out.stdout
    doc = json.loads(made("verify", "r.json", "--json").stdout)
    assert doc["verified"] is True and len(doc["checks"]) == 9


def _metric(d: dict) -> None:
    d["backends"][0]["runs"][1]["metrics"]["recall1_before"] += 0.25


def _verdict(d: dict) -> None:
    c = next(c for c in d["comparisons"] if c["verdict"] == "tie")
    c["verdict"] = "ahead"


def _data_hash(d: dict) -> None:
    d["scenario"]["data_hashes"]["1"] = "sha256:" + "0" * 64


def _dropped_question(d: dict) -> None:
    d["backends"][1]["runs"][0]["records"]["probes"].pop(3)


def _dirty(d: dict) -> None:
    d["manifest"]["git"]["dirty"] = True


def _no_records(d: dict) -> None:
    del d["backends"][0]["runs"][0]["records"]


def _twin_item(d: dict) -> None:
    items = d["backends"][0]["runs"][0]["records"]["items"]
    items[1]["id"] = items[0]["id"]


def _failed_pair(d: dict) -> None:
    run = d["backends"][1]["runs"][1]
    run.update(status="failed", error="RuntimeError: boom")


@pytest.mark.parametrize(("tamper", "check", "says"), [
    (_metric, "metrics", "fake-perfect seed 1 recall1_before: recorded"),
    (_verdict, "analysis", "verdict 'ahead' recorded, 'tie' recomputed"),
    (_data_hash, "data", "seed 1 generates data with another hash"),
    (_dropped_question, "questions", "fake-noprov seed 0: 1 of the data's"),
    (_dirty, "provenance", "made from a dirty checkout"),
    (_no_records, "records", "1 run(s) without per-question records"),
    (_twin_item, "ids", "fake-perfect seed 0: an item id repeats"),
    (_failed_pair, "complete", "1 pair(s) without a successful run"),
])
def test_a_tampered_result_fails_its_check(made, tamper: Callable[[dict], None], check: str,
                                           says: str) -> None:
    path: Path = made.cwd / "r.json"
    doc = json.loads(path.read_text())
    tamper(doc)
    (made.cwd / "t.json").write_text(json.dumps(doc))
    out = made("verify", "t.json")
    assert out.returncode == 1, out.stdout + out.stderr
    line = _lines(out)[check]
    assert line.startswith("FAIL ") and says in line, out.stdout


def test_an_unreadable_result_is_bad_input(made) -> None:
    (made.cwd / "bad.json").write_text("{")
    out = made("verify", "bad.json")
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_saved_verification_marks_the_entry_on_the_site(made) -> None:
    pub = made.cwd / "pub"
    pub.mkdir()
    (pub / "r.json").write_bytes((made.cwd / "r.json").read_bytes())
    (pub / "t.json").write_bytes((made.cwd / "r.json").read_bytes())
    assert made("verify", "pub/r.json", "--save").returncode == 0
    assert made("verify", "pub/t.json", "--save").returncode == 0
    record = json.loads((pub / "r.verified").read_text())
    assert record["verified"] is True and record["result"] == "r.json"
    again = made("verify", "pub/r.json", "--save")
    assert again.returncode == 2 and "r.verified exists" in again.stderr
    # t.json changes after its verification: the record no longer names its bytes.
    (pub / "t.json").write_text((pub / "t.json").read_text() + "\n")
    assert made("site", "pub", "site").returncode == 0
    index = (made.cwd / "site" / "index.html").read_text()
    rows = {name: index[index.index(f">{name}<"):][:2000] for name in ("r", "t")}
    assert "complete · verified" in rows["r"].split("</tr>")[0]
    assert "verified" not in rows["t"].split("</tr>")[0]
