"""The audit rows: each reads only the protocol, and none gains beyond its interval."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from memory_bench_audit.gains import audit_gains, format_gains
from memory_bench_audit.plugin import AUDIT_ROWS
from memory_bench_audit.rules import subject_words

from memory_bench.analysis.compare import analyse
from memory_bench.contract.items import Item
from memory_bench.harness.runner import RunConfig, run_benchmark
from memory_bench.plugins.manager import default_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.results.audit import audit_spec
from memory_bench.results.manifest import build_manifest
from memory_bench.scenarios.spec import load_scenario

T = datetime(2026, 1, 1, tzinfo=UTC)


def test_subject_words_read_names_or_else_the_non_frame_words() -> None:
    assert subject_words("Where did Mara Olsen come into the world?") == ["mara", "olsen"]
    assert subject_words("Which town is Ilse Olsan's current address in?") == ["ilse", "olsan"]
    assert subject_words("What does grip mean?") == ["grip"]


def test_every_row_names_a_base_that_is_a_real_row_and_a_target_metric() -> None:
    registry = default_plugins().registry
    for name, spec in AUDIT_ROWS.items():
        assert select_backends(registry, [name, spec.base])
        assert spec.metric in ("retention", "updateWinRate", "gateRecall")


def _row(name: str, tmp_path: Path):
    plugins = default_plugins()
    sel = select_backends(plugins.registry, [name])[0]
    from memory_bench.contract.backend import BackendContext

    return sel.info.factory(sel.options, BackendContext(tmp_path, 0, "t"))


def _item(n: int, text: str, source: str = "doc-1") -> Item:
    return Item(f"bench-RUN-{n:012x}", text, source, T.replace(minute=n))


@pytest.mark.slow
def test_the_rules_do_what_they_say(tmp_path: Path) -> None:
    cache = _row("audit-query-cache", tmp_path)
    cache.write([_item(1, "Mara Olsen was born in Oslo."), _item(2, "Ilse Quist plays the oboe.")])
    first = cache.query("Where was Mara Olsen born?", 2)
    cache.write([_item(3, "Mara Olsen was born in Oslo, the register says.")])
    assert cache.query("Where was Mara Olsen born?", 2) == first  # read from the cache

    since = _row("audit-newest-since-question", tmp_path)
    since.write([_item(1, "Mara Olsen was born in Oslo."), _item(2, "Ilse Quist plays the oboe.")])
    since.query("anything", 2)
    since.write([_item(3, "Ilse Quist plays the harp.")])
    assert since.query("Where was Mara Olsen born?", 3)[0].id.endswith("3")

    gate = _row("audit-form-gate", tmp_path)
    got = gate.write([_item(1, "Mara Olsen was born in Oslo."), _item(2, "Ilse plays the oboe"),
                      _item(3, "Mara Olsen was born in Oslo, they say."),
                      _item(4, "Mara Olsen was born in Oslo, they say.", "doc-2")])
    assert [r.accepted for r in got] == [True, False, False, True]


# Rows whose gain on their target is paid for, beyond its interval, on what the rule
# gives up by its nature (memory_bench.results.audit): the form gate, whose refusals by
# final mark and source refuse clean items too (falseRefusals), and the position rule, which keeps
# old facts by pushing every newer item down and so loses the updates. Retention is the
# share of the facts found before the interference still found after it, and interference
# is newer than its facts by definition, so no order of the stream takes that gain away (a
# store that ignores everything new keeps retention 1): it is read beside updateWinRate
# (and recall@1 after). The test
# fails when such a row gains without paying, and when any other row gains at all.
TRADES = {"audit-form-gate", "audit-oldest-first"}


@pytest.mark.slow
def test_no_audit_row_gains_beyond_its_interval_on_hard(tmp_path: Path) -> None:
    """The built-in exploit audit: on hard (2 seeds), every audit row against its base on
    the metric it targets, with the paired statistics; a gain beyond the interval fails,
    but for a trade the rule pays for beyond its interval (TRADES)."""
    plugins = default_plugins()
    specs = sorted({*AUDIT_ROWS, *(s.base for s in AUDIT_ROWS.values())})
    selections = select_backends(plugins.registry, specs)
    result = analyse(run_benchmark(RunConfig(
        plugins=plugins, selections=selections,
        scenario=load_scenario("hard"), seeds=[0, 1], out=tmp_path / "audit.json",
        executor="local", cache_dir=tmp_path / "cache", manifest=build_manifest(selections))))
    assert audit_spec(result, "audit-form-gate")["costs"] == ["falseRefusals"]
    assert audit_spec(result, "faiss-rag") is None
    gains = audit_gains(result)
    assert {g.row for g in gains} == set(AUDIT_ROWS)
    assert all(g.questions > 0 for g in gains)
    table = "\n".join(format_gains(gains))
    assert not [g.row for g in gains if g.leak], table
    assert not [g.row for g in gains if g.beyond and g.row not in TRADES], table
