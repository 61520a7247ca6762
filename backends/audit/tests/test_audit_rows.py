"""The audit rows: each reads only the protocol, and none gains beyond its interval."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from memory_bench_audit import rules
from memory_bench_audit.gains import audit_gains, format_gains
from memory_bench_audit.plugin import AUDIT_ROWS
from memory_bench_audit.rules import subject_words

from memory_bench.analysis.compare import paired_comparison
from memory_bench.contract.capabilities import Capability
from memory_bench.contract.items import Hit, Item, WriteResult
from memory_bench.harness.runner import RunConfig, run_benchmark
from memory_bench.metrics.continual import CONTINUAL_METRICS
from memory_bench.plugins.manager import default_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.results.audit import audit_spec
from memory_bench.results.manifest import build_manifest
from memory_bench.results.model import Result
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
        names = {m.name for m in CONTINUAL_METRICS}
        assert spec.metric in names and set(spec.costs) <= names, name
        assert spec.metric not in spec.costs


def test_every_row_declares_every_capability_of_its_base() -> None:
    """A row that declares less than its base skips a phase its rule could game: before
    issue 34 no row declared forget, so a cache was never measured on the forget
    follow-ups."""
    registry = default_plugins().registry
    for name, spec in AUDIT_ROWS.items():
        row, base = (s.info for s in select_backends(registry, [name, spec.base]))
        assert set(base.capabilities) <= set(row.capabilities), name
        assert Capability.FORGET in row.capabilities, name
        assert (Capability.STRENGTH in row.capabilities) == spec.strength, name


class _Store:
    """A store for the rules' unit tests: hits score by shared words, then by age (newest
    first), so a test sets the base's order by the words it writes."""

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.docs = self  # rules read texts through the docstore, as from faiss-rag

    def write(self, items: list[Item]) -> list[WriteResult]:
        self.items.update((i.id, i) for i in items)
        return [WriteResult(i.id, True) for i in items]

    def label_of(self, id_: str) -> str | None:
        return id_ if id_ in self.items else None

    def forget(self, ids: list[str], source: str | None = None, prefix: str = "") -> int:
        gone = [i for i in ids if i in self.items]
        for i in gone:
            del self.items[i]
        return len(gone)

    def get(self, label: str) -> object:
        return type("Doc", (), {"item": self.items[label]})()

    def query(self, text: str, k: int) -> list[Hit]:
        words = set(text.casefold().split())
        scored = [(len(words & set(i.text.casefold().split())), n, i)
                  for n, i in enumerate(self.items.values())]
        scored.sort(key=lambda t: (-t[0], -t[1]))
        return [Hit(i.id, float(s), i.source, i.timestamp) for s, _, i in scored[:k]]

    def strength(self, ids: list[str]) -> list[float | None]:
        return [None for _ in ids]


def _ids(hits: list[Hit]) -> list[str]:
    return [h.id[-1] for h in hits]


def _fill(row: rules.AuditRow, texts: list[str]) -> None:
    for n, t in enumerate(texts, start=1):
        row.write([_item(n, t)])


def test_demote_returned_and_swap_first_read_what_was_returned() -> None:
    row = rules.AuditRow(_Store(), rules.DemoteReturned())
    _fill(row, ["mara lives in oslo", "mara lives in bergen"])
    assert _ids(row.query("where mara lives bergen", 2)) == ["2", "1"]
    assert _ids(row.query("where mara lives bergen", 2)) == ["1", "2"]  # 2 was returned
    swap = rules.AuditRow(_Store(), rules.SwapFirst())
    _fill(swap, ["mara lives in oslo", "mara lives in bergen"])
    assert _ids(swap.query("mara lives bergen", 2)) == ["1", "2"]  # new first hit: swapped
    assert _ids(swap.query("mara lives bergen", 2)) == ["2", "1"]  # returned before: kept


def test_person_count_and_since_asked_read_the_questions_about_a_person() -> None:
    row = rules.AuditRow(_Store(), rules.PersonCount(nth=3))
    _fill(row, ["Mara Olsen lives in Oslo", "Mara Olsen likes tea", "Ilse lives in Oslo"])
    q = "where does Mara Olsen live in oslo"
    assert [_ids(row.query(q, 2)) for _ in range(3)] == [["1", "3"], ["1", "3"], ["2", "1"]]
    since = rules.AuditRow(_Store(), rules.SinceAsked())
    _fill(since, ["Mara Olsen lives in Oslo", "Ilse lives in Oslo"])
    assert _ids(since.query(q, 2)) == ["1", "2"]  # first question about Mara: the base
    since.write([_item(3, "Mara Olsen moved")])
    assert _ids(since.query(q, 2)) == ["3", "1"]  # written since Mara was last asked


def test_form_and_position_rules() -> None:
    past = rules.AuditRow(_Store(), rules.PastDemote())
    _fill(past, ["Mara used to live in Oslo", "Mara lives in Bergen"])
    assert _ids(past.query("Mara used to live in Oslo", 2)) == ["2", "1"]
    late = rules.AuditRow(_Store(), rules.LateDemote(writes=4, span=0.5))
    _fill(late, ["a b", "c d", "a b c"])
    assert _ids(late.query("a b c", 3)) == ["1", "2", "3"]  # 3 is past half of 4 writes
    quiet = rules.AuditRow(_Store(), rules.QuietRun(length=2))
    _fill(quiet, ["a b", "c d"])
    quiet.query("x", 1)
    quiet.write([_item(3, "a b c")])
    assert _ids(quiet.query("a b c", 3)) == ["3", "1", "2"]  # 1 and 2: a quiet run of 2
    gap = rules.AuditRow(_Store(), rules.AnswerGap(low=2, high=3, weight=5.0))
    _fill(gap, ["a", "a b", "a b c", "a b c d"])
    # ages 3, 2, 1, 0: the window (2-3 writes ago) first, the last two writes last
    assert _ids(gap.query("a b c d", 4)) == ["2", "1", "4", "3"]


def test_kept_cache_and_forget_late_read_the_forget_calls() -> None:
    cache = rules.AuditRow(_Store(), rules.KeptCache())
    _fill(cache, ["mara lives in oslo", "mara lives in bergen", "ilse lives in oslo"])
    assert _ids(cache.query("mara oslo", 2)) == ["1", "3"]
    cache.write([_item(4, "mara oslo mara oslo")])
    cache.forget([_item(3, "").id])
    assert _ids(cache.query("mara oslo", 2)) == ["1", "4"]  # cached, less what was forgotten
    late = rules.AuditRow(_Store(), rules.ForgetLate(writes=4, span=0.5))
    _fill(late, ["a b", "c d", "a b c"])
    assert _ids(late.query("a b c", 2)) == ["3", "1"]  # no forget call yet: the base
    late.forget([_item(2, "").id])
    assert _ids(late.query("a b c", 2)) == ["1", "3"]


def test_tail_and_gap_rules_read_the_stream_length() -> None:
    swap = rules.AuditRow(_Store(), rules.TailSwap(writes=2))
    swap.write([_item(1, "mara oslo")])
    assert _ids(swap.query("mara oslo", 2)) == ["1"]  # writes still due: the base
    swap.write([_item(2, "mara")])
    assert _ids(swap.query("mara oslo", 2)) == ["2", "1"]  # first time first since: swapped
    assert _ids(swap.query("mara oslo", 2)) == ["1", "2"]  # asked again: kept
    gap = rules.AuditRow(_Store(), rules.UpdateGap(writes=10, gap=0.3))
    _fill(gap, ["Mara Olsen lives in Oslo", "x", "Mara Olsen's mother", "y",
                "Mara Olsen lives in Bergen"])
    # 5 is 4 writes (>= 3) after 1, 3 only 2: the late one first
    assert _ids(gap.query("where does Mara Olsen live in oslo", 3)) == ["5", "1", "3"]
    since = rules.AuditRow(_Store(), rules.UpdateSince(writes=10, gap=0.3))
    _fill(since, ["Mara Olsen lives in Oslo", "x", "y", "z", "Mara Olsen lives in Bergen"])
    q = "where does Mara Olsen live in oslo"
    assert _ids(since.query(q, 2)) == ["1", "5"]  # first question about Mara: the base
    assert _ids(since.query(q, 2)) == ["1", "5"]  # nothing new since she was asked
    since.write([_item(6, "Mara Olsen lives in Rome")])
    assert _ids(since.query(q, 2)) == ["6", "1"]


def test_junk_form_gate_refuses_by_form() -> None:
    row = rules.AuditRow(_Store(), rules.JunkFormGate())
    got = row.write([_item(1, "Mara Olsen moved to"), _item(2, "thanks, that helps a lot!"),
                     _item(3, "Mara Olsen lives in Oslo."), _item(4, "the bus leaves at 9 sharp")])
    assert [(r.accepted, r.reason) for r in got] == [
        (False, "dangling_last_word"), (False, "names_nothing"), (True, None), (True, None)]


def test_strength_count_reports_returns_and_leaves_the_ranking_alone() -> None:
    row = rules.AuditRow(_Store(), rules.StrengthCount())
    _fill(row, ["mara lives in oslo", "ilse plays oboe"])
    assert _ids(row.query("mara oslo", 1)) == ["1"]
    row.query("mara oslo", 1)
    assert row.strength([_item(1, "").id, _item(2, "").id]) == [2.0, 0.0]


def test_a_chain_applies_each_rule_in_turn() -> None:
    row = rules.AuditRow(_Store(), rules.Chain([rules.PastDemote(), rules.StrengthCount()]))
    _fill(row, ["Mara used to live in Oslo", "Mara lives in Bergen"])
    assert _ids(row.query("Mara used to live in Oslo", 2)) == ["2", "1"]
    assert row.strength([_item(2, "").id]) == [1.0]


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
# gives up by its nature (memory_bench.results.audit): the form gates, whose refusals by
# final mark, source, last word or the lack of a name refuse clean items too
# (falseRefusals; issue 34 holds a form gate to at most 0.10 gateRecall unless it refuses
# more than 0.05 more facts); the position rules, which
# keep old facts by pushing every newer item down and so lose the updates (oldest-first,
# late-demote), or favour a window of ages on every question and so lose the re-probes
# (answer-gap). The test fails when such a row gains without paying, and when any other
# row gains at all: audit-swap-first among them, since retention must not rise by
# answering worse before, whatever that costs.
TRADES = {"audit-form-gate", "audit-junk-form", "audit-oldest-first", "audit-late-demote",
          "audit-answer-gap"}


def _audit_comparisons(result: Result) -> Result:
    """Only the comparisons the audit reads (each row against its base, on its target and
    costs): all pairs of twenty rows would take longer than the run."""
    entry = {b.label: b for b in result.backends}
    result.comparisons = [
        paired_comparison(entry[row], entry[spec.base], result.metric(m))
        for row, spec in AUDIT_ROWS.items()
        for m in (spec.metric, *spec.costs) if m in {x.name for x in result.metrics}]
    return result


@pytest.mark.slow
def test_no_audit_row_gains_beyond_its_interval_on_hard(tmp_path: Path) -> None:
    """The built-in exploit audit: on hard (2 seeds), every audit row against its base on
    the metric it targets, with the paired statistics; a gain beyond the interval fails,
    but for a trade the rule pays for beyond its interval (TRADES). A row whose base does
    not measure its target (reinforcementDelta while it is a self-reported strength) is
    held to that metric's definition instead: the count it reports may not be read."""
    plugins = default_plugins()
    specs = sorted({*AUDIT_ROWS, *(s.base for s in AUDIT_ROWS.values())})
    selections = select_backends(plugins.registry, specs)
    result = _audit_comparisons(run_benchmark(RunConfig(
        plugins=plugins, selections=selections,
        scenario=load_scenario("hard"), seeds=[0, 1], out=tmp_path / "audit.json",
        executor="local", cache_dir=tmp_path / "cache", manifest=build_manifest(selections))))
    assert audit_spec(result, "audit-form-gate")["costs"] == ["falseRefusals"]
    assert audit_spec(result, "faiss-rag") is None
    gains = audit_gains(result)
    table = "\n".join(format_gains(gains))
    unmeasured = set(AUDIT_ROWS) - {g.row for g in gains if g.questions > 0}
    for row in unmeasured:  # only a strength the base does not report
        assert result.metric(AUDIT_ROWS[row].metric).needs == Capability.STRENGTH, table
        assert AUDIT_ROWS[row].strength, row
    assert not [g.row for g in gains if g.leak], table
    assert not [g.row for g in gains if g.beyond and g.row not in TRADES], table
