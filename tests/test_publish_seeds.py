"""--publish-seeds: the headline round's seeds are drawn at start from a public value
(SHA-256 of the run id and the commit), away from the development and tuning seeds,
and recorded so that anyone can draw them again."""

from __future__ import annotations

import hashlib
import json

from memory_bench.session.plan import PUBLISH_SEED_MIN, draw_seeds


def test_the_draw_is_a_function_of_run_id_and_commit(tmp_path) -> None:
    a = draw_seeds("20261204T201500-ab12", 3, cwd=tmp_path)  # no checkout: commit "none"
    assert a == draw_seeds("20261204T201500-ab12", 3, cwd=tmp_path)
    assert a["commit"] == "none" and len(a["seeds"]) == 3
    digest = hashlib.sha256(b"20261204T201500-ab12|none").hexdigest()
    base = PUBLISH_SEED_MIN + int(digest[:12], 16) % (2**31 - 1 - PUBLISH_SEED_MIN - 3)
    assert a["seeds"] == [base, base + 1, base + 2]
    assert draw_seeds("20261204T201500-ab13", 3, cwd=tmp_path)["seeds"] != a["seeds"]


def test_a_run_records_its_drawn_seeds(cli) -> None:
    out = cli("run", "--backend", "fake-noprov", "--scenario", "smoke", "--seeds", "2",
              "--publish-seeds", "--out", "r.json", "--quiet")
    assert out.returncode == 0, out.stderr
    doc = json.loads((cli.cwd / "r.json").read_text())
    draw = doc["manifest"]["seed_draw"]
    assert doc["seeds"] == draw["seeds"] and len(draw["seeds"]) == 2
    assert min(doc["seeds"]) >= PUBLISH_SEED_MIN and draw["run_id"] == doc["run_id"]
    assert draw == draw_seeds(doc["run_id"], 2, cwd=cli.cwd)


def test_publish_seeds_with_one_seed_is_bad_input(cli) -> None:
    out = cli("run", "--backend", "fake-noprov", "--scenario", "smoke", "--seed", "3",
              "--publish-seeds", "--quiet")
    assert out.returncode == 2 and "--publish-seeds" in out.stderr
    assert not (cli.cwd / "runs").exists()
