"""The HTML report fits a 1,400 px window: wide tables scroll inside their own box.

Rendered from a published hard-scenario result (14 result columns, the widest
tables a report has) with its published plots, and measured in headless Chromium.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from headless import Chromium, chromium_path

from memory_bench.render.html import render_html
from memory_bench.results.io import load_result

REPORTS = Path(__file__).resolve().parent.parent / "reports"
STEM = "2026-12-05-hard-20261205T084556-5752-systems"


def test_the_html_report_has_no_horizontal_overflow_at_1400px(tmp_path: Path) -> None:
    if chromium_path() is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; "
                    "`make test` installs it when run as root)")
    result = load_result(REPORTS / f"{STEM}.json.gz")
    plots = {name: (REPORTS / f"{STEM}-{name}.png").read_bytes()
             for name in ("bars", "quality-latency")}
    page = tmp_path / "report.html"
    page.write_text(render_html(result, plots), encoding="utf-8")
    browser = Chromium()
    try:
        got = browser.measure(page.as_uri(), 1400)
    finally:
        browser.close()
    assert got["tables"] >= 5 and got["images"] == 2
    assert got["scrollWidth"] <= got["innerWidth"] == 1400, got
    assert not got["wide"], got
    assert got["scrolling"] == [], got["scrolling"]  # every column in view, none hidden
