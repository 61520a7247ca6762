"""Hostile names: no user-given string leaves reports/ as a path, or becomes live Markdown.

The Markdown is parsed with a real CommonMark parser (markdown-it-py, with tables):
a report built from hostile strings in every field a user or plugin controls must
hold no link, no image and no raw HTML.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from constructed_results import backend, result
from markdown_it import MarkdownIt

from memory_bench.analysis.compare import analyse
from memory_bench.records.records import ProbeRecord, Records
from memory_bench.render.markdown import md_escape, md_prose, render_headline, render_markdown
from memory_bench.results.paths import reserve_report_paths, slug, unique_report_paths

HOSTILE = [
    "[click me](https://evil.example/x)",
    "![pixel](https://evil.example/p.png)",
    "[ref][r]",
    "[r]: https://evil.example/ref",
    "see https://evil.example and www.evil.example",
    "<https://evil.example/auto>",
    "<img src=https://evil.example/i.png>",
    "<script>alert(1)</script>",
    "back\\](https://evil.example/b)",
    "tick ` [t](https://evil.example/t)",
    "```\n[fence](https://evil.example/f)\n~~~~",
]


def _live(md: str) -> list[str]:
    """Every link, image or HTML token a CommonMark renderer would make of ``md``."""
    bad = []

    def walk(tokens) -> None:
        for t in tokens:
            if t.type in ("link_open", "image", "html_inline", "html_block"):
                bad.append(f"{t.type}: {t.attrs or t.content}")
            if t.children:
                walk(t.children)

    walk(MarkdownIt("commonmark").enable("table").parse(md))
    return bad


def _bare_urls(md: str) -> list[str]:
    """What GitHub's autolink extension would link: a scheme's ``://`` or ``www.`` that
    no backslash escapes, outside code (fenced blocks and code spans are never linked)."""
    import re

    lines = md.splitlines()
    for t in MarkdownIt("commonmark").parse(md):
        if t.type in ("fence", "code_block") and t.map:
            lines[t.map[0]:t.map[1]] = [""] * (t.map[1] - t.map[0])
    text = re.sub(r"(`+)(?:(?!\1).)+?\1", "", "\n".join(lines))  # code spans
    return re.findall(r"[^\s]*(?<![\\]):(?=//)[^\s]*|[^\s]*(?i:\bwww\.)[^\s]*", text)


@pytest.mark.parametrize("name", HOSTILE)
def test_no_user_given_string_becomes_a_link_an_image_or_html(name: str) -> None:
    a = backend(name, {"recall1_before": [0.9] * 5}, notes=(name, f"a `{name}` in code"))
    b = backend("rag", {"recall1_before": [0.5] * 5}, failed_seeds=(4,))
    doc = analyse(result(a, b, run_id=name))
    doc.scenario.name = doc.scenario.description = name
    doc.scenario.caveats.append(f"The generator says: {name}")
    doc.scenario.data_hashes["0"] = name
    doc.manifest["command"] = ["memory-bench", name]
    doc.backends[1].runs[4].error = f"ValueError: {name}"
    doc.backends[1].runs[0].records = Records(probes=[ProbeRecord(
        tag="probe", question=name, expected=["e"], returned=["x"], scores=[0.5],
        latency_ms=1.0)])
    report = render_markdown(doc, {"bars": "x-bars.png"})
    assert _live(report) == ["image: {'src': 'x-bars.png', 'alt': ''}"]  # the plot, only
    assert _live(render_headline(doc)) == []
    for md in (report, render_headline(doc)):
        assert _bare_urls(md) == [], [ln for ln in md.splitlines() if "evil" in ln]


def test_escaped_text_renders_as_the_same_characters() -> None:
    """Escaping must not change what a reader sees (a backslash shows only as itself)."""
    md = MarkdownIt("commonmark")
    for text in [*HOSTILE[:6], "0.988 [0.977, 1.000]", "a\\b", "50% (n=3)"]:
        shown = md.renderInline(md_escape(text))
        import html

        assert html.unescape(shown) == text.replace("\n", " "), (text, shown)
    assert md.renderInline(md_prose("no `gate` capability")) == \
        "no <code>gate</code> capability"


@pytest.mark.parametrize(("name", "expected"), [
    ("x/../../../escaped", "x_.._.._.._escaped"),
    ("<script>alert(1)</script>", "script_alert_1_script"),
    ("..", "scenario"), ("", "scenario"), ("-rf", "rf"), ("default", "default"),
])
def test_a_name_is_reduced_to_one_safe_component(name: str, expected: str) -> None:
    assert slug(name, "scenario") == expected


def test_report_names_stay_in_reports_and_are_reserved(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    first = reserve_report_paths(reports, "x/../../../escaped", "../run")
    assert all(p.parent == reports and p.exists() for p in first.all())
    second = reserve_report_paths(reports, "x/../../../escaped", "../run")  # as a second run
    assert second.md != first.md and second.md.name.endswith("-2.md")
    assert unique_report_paths(reports, "x/../../../escaped", "../run").md.name.endswith("-3.md")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]


def test_a_hostile_scenario_name_saves_inside_reports(cli) -> None:
    for name in ("x/../../../escaped", "<script>alert(1)</script>",
                 "[a](https://evil.example) ![i](https://evil.example/i.png)"):
        smoke = (cli.cwd / "scenarios" / "smoke.toml").read_text().splitlines()
        (cli.cwd / "scenarios" / "evil.toml").write_text("\n".join(
            [f"name = {json.dumps(name)}", *(ln for ln in smoke if not ln.startswith("name"))]))
        out = cli("run", "--backend", "fake-perfect", "--scenario", "evil", "--seed", "0",
                  "--save", "--quiet", "--out", f"runs/{slug(name)}.json")
        assert out.returncode == 0, out.stderr
    made = sorted(p.relative_to(cli.cwd) for p in cli.cwd.rglob("*") if p.is_file()
                  and "scenarios" not in p.parts)
    assert all(p.parts[0] in ("runs", "reports") for p in made), made
    assert all(len(p.parts) == 2 for p in made if p.parts[0] == "reports"), made
    assert not any(cli.cwd.parent.glob("escaped*"))
    for md in (cli.cwd / "reports").glob("*.md"):  # only the two plots, beside the file
        stem = md.name.removesuffix(".md")
        assert _live(md.read_text()) == [
            f"image: {{'src': '{stem}-{plot}.png', 'alt': ''}}"
            for plot in ("bars", "quality-latency")]
