"""`memory-bench reproduce`: runs a result's command again from its file and says, per
metric, whether the new value lies within the published interval."""

from __future__ import annotations

import json
import re

import pytest

from memory_bench.errors import BadInput
from memory_bench.session.reproduce import parse_seeds

RUN = ("run", "--backend", "fake-perfect", "--backend", "fake-forgetful:capacity=5",
       "--scenario", "smoke", "--seeds", "3", "--out", "r.json", "--quiet")


def test_seeds_parse() -> None:
    assert parse_seeds("0-1") == [0, 1]
    assert parse_seeds("4,0-2") == [0, 1, 2, 4]
    for bad in ("", "a", "2-x", "-1"):
        with pytest.raises(BadInput):
            parse_seeds(bad)


def test_reproduce_reruns_the_published_command_and_checks_every_value(cli) -> None:
    assert cli(*RUN).returncode == 0
    out = cli("reproduce", "r.json", "--seeds", "0-1", "--out", "again.json", "--quiet")
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    done = re.match(r"(\d+) quality value\(s\) within the published interval \((\d+) "
                    r"reproduced exactly\), 0 outside", lines[-1])
    assert done and done.group(1) == done.group(2) and int(done.group(1)) >= 16, lines[-1]
    recall = next(x for x in lines if x.startswith("exact   fake-forgetful:capacity=5 "
                                                   "recall1_before: "))
    assert "over seed(s) 0, 1" in recall and "2 of 2 seed value(s) equal" in recall
    again = json.loads((cli.cwd / "again.json").read_text())
    assert again["seeds"] == [0, 1]
    assert [b["spec"] for b in again["backends"]] == ["fake-perfect",
                                                       "fake-forgetful:capacity=5"]


def test_a_value_outside_the_published_interval_fails(cli) -> None:
    """The interval a re-run's mean is held to is the published one for a mean of that
    many seeds (the published mean's own interval is too narrow for 2 of 10 seeds)."""
    assert cli(*RUN).returncode == 0
    doc = json.loads((cli.cwd / "r.json").read_text())
    row = doc["backends"][1]  # published as better than it is
    for run in row["runs"]:
        run["metrics"]["recall1_before"] = 0.9
    row["summary"]["recall1_before"].update(mean=0.9, std=0.01, ci_low=0.875, ci_high=0.925)
    (cli.cwd / "r.json").write_text(json.dumps(doc))
    out = cli("reproduce", "r.json", "--seeds", "0", "--out", "again.json", "--quiet")
    assert out.returncode == 1
    assert any(x.startswith("OUTSIDE fake-forgetful:capacity=5 recall1_before: ")
               for x in out.stdout.splitlines())


def test_bad_seeds_are_bad_input(cli) -> None:
    assert cli(*RUN).returncode == 0
    out = cli("reproduce", "r.json", "--seeds", "zero")
    assert out.returncode == 2 and out.stdout == "" and "--seeds 'zero'" in out.stderr
    assert not (cli.cwd / "runs").exists()
