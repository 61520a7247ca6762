"""What reading the protocol buys: audit rows found by their manifest, their gains read
from the analysed comparisons, LEAK / trade / no gain, and the report's table."""

from __future__ import annotations

from constructed_results import backend, result
from test_compare_paired import hits

from memory_bench.analysis.compare import analyse
from memory_bench.render.html import render_html
from memory_bench.render.markdown import render_markdown
from memory_bench.results.audit import audit_gains

EVIL = "<script>alert('x')</script>"


def _doc():
    def row(label: str, recall: float, update: float, seed: int) -> dict:
        return backend(label, {}, outcomes={"recall1_before": hits(recall, seed=seed),
                                            "updateWinRate": hits(update, seed=seed + 50)})

    doc = result(row("base", 0.5, 0.8, 1), row("audit-leak", 0.9, 0.8, 1),
                 row("audit-trade", 0.9, 0.2, 1), row("audit-none", 0.5, 0.8, 1),
                 row("honest", 0.9, 0.2, 7))
    spec = {"base": "base", "metric": "recall1_before", "costs": ["updateWinRate"],
            "reads": f"call order {EVIL}"}
    doc.manifest["backends"] = {
        "base": {"name": "base"}, "honest": {"name": "honest"},
        **{label: {"name": label, "audit": spec}
           for label in ("audit-leak", "audit-trade", "audit-none")}}
    return analyse(doc)


def test_audit_rows_are_found_by_manifest_and_judged_against_their_base() -> None:
    gains = {g.row: g for g in audit_gains(_doc())}
    assert set(gains) == {"audit-leak", "audit-trade", "audit-none"}  # honest rows aside
    leak, trade, none = gains["audit-leak"], gains["audit-trade"], gains["audit-none"]
    assert leak.status == "LEAK" and leak.leak and leak.low > 0 and 0.3 < leak.effect < 0.5
    assert not leak.costs[0].paid  # same updateWinRate outcomes as the base
    assert trade.status == "trade" and not trade.leak and trade.beyond
    assert trade.costs[0].paid and trade.costs[0].high < 0
    assert none.status == "no gain" and none.effect == 0
    assert all(g.base == "base" and g.questions == 600 for g in gains.values())


def test_a_row_whose_base_is_missing_is_not_judged() -> None:
    doc = _doc()
    doc.manifest["backends"]["audit-leak"]["audit"] = {"base": "absent",
                                                       "metric": "recall1_before"}
    assert "audit-leak" not in {g.row for g in audit_gains(doc)}


def test_the_report_shows_what_reading_the_protocol_buys_escaped() -> None:
    doc = _doc()
    md = render_markdown(doc)
    assert "### What reading the protocol buys" in md
    section = md.split("### What reading the protocol buys")[1].split("\n#")[0]
    line = next(x for x in section.splitlines() if x.startswith("| audit-leak |"))
    assert "| recall@1 | base |" in line and line.rstrip().endswith("| LEAK |")
    assert next(x for x in section.splitlines()
                if x.startswith("| audit-trade |")).rstrip().endswith("| trade |")
    assert "<script" not in section and "&lt;script&gt;" in section  # escaped, not sent
    assert "<script>alert" not in render_html(doc)
    plain = result(backend("base", {}), backend("honest", {}))
    assert "What reading the protocol buys" not in render_markdown(analyse(plain))
