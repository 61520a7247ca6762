"""Tables in the README and docs are written from the result files they cite
(scripts/tables.py): regenerating them changes nothing, and a number changed by hand
is caught."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from constructed_results import backend, result

from memory_bench.errors import BadInput
from memory_bench.render.doctables import apply_tables, load_specs, loader, render_table

ROOT = Path(__file__).resolve().parents[1]
SPEC = '''
[tables.t]
doc = "doc.md"
files = "r.json"
rows = ["a", "b", "c, d = a"]
columns = ["backend=label", "recall@1=recall1_before:pm", "stale=staleRate:mean",
           "p50 ms=latency_p50_ms:mean!"]
'''
DOC = "Intro.\n\n<!-- table:t begin -->\n<!-- table:t end -->\n\nAfter.\n"


def _files(tmp_path: Path, spec: str = SPEC, doc: str = DOC):
    r = result(backend("a", {"recall1_before": [0.8, 0.9, 0.8, 0.9, 0.85]}),
               backend("b", {"recall1_before": [0.4] * 5, "latency_p50_ms": [2.5] * 5}),
               backend("c", {"recall1_before": [0.8, 0.9, 0.8, 0.9, 0.85]}),
               backend("d", {"recall1_before": [0.8, 0.9, 0.8, 0.9, 0.85],
                             "latency_p50_ms": [12.0] * 5}))
    (tmp_path / "tables.toml").write_text(spec)
    (tmp_path / "doc.md").write_text(doc)
    return load_specs(tmp_path / "tables.toml"), (lambda path: r)


def test_a_table_is_written_between_its_markers_from_the_file(tmp_path: Path) -> None:
    specs, load = _files(tmp_path)
    assert apply_tables(tmp_path, specs, load, write=True) == ["t"]
    text = (tmp_path / "doc.md").read_text()
    assert text == ("Intro.\n\n<!-- table:t begin -->\n"
                    "| backend | recall@1 | stale | p50 ms |\n|---|---|---|---|\n"
                    "| a | 0.850 ± 0.062 | 0.500 | 1.00 |\n"
                    "| b | 0.400 ± 0.000 | 0.500 | 2.50 |\n"
                    "| c, d | = a | = | 1.00, 12.00 |\n"
                    "<!-- table:t end -->\n\nAfter.\n")
    assert apply_tables(tmp_path, specs, load, write=False) == []  # regenerated: no change


def test_a_number_changed_by_hand_is_caught(tmp_path: Path) -> None:
    specs, load = _files(tmp_path)
    apply_tables(tmp_path, specs, load, write=True)
    doc = tmp_path / "doc.md"
    doc.write_text(doc.read_text().replace("| b | 0.400", "| b | 0.410"))
    assert apply_tables(tmp_path, specs, load, write=False) == ["t"]
    apply_tables(tmp_path, specs, load, write=True)
    assert "| b | 0.400" in doc.read_text()


@pytest.mark.parametrize(("spec", "doc", "message"), [
    (SPEC.replace(":pm", ":fancy"), DOC, "expected HEAD=METRIC:FORMAT"),
    (SPEC, "no markers here\n", "no <!-- table:t begin --> … <!-- table:t end --> markers"),
    (SPEC.replace('"a", "b"', '"a", "zz"'), DOC, "no row 'zz' in r.json"),
    (SPEC.replace('doc = "doc.md"\n', ""), DOC, "missing or malformed 'doc'"),
])
def test_bad_specs_are_one_clear_line(tmp_path: Path, spec: str, doc: str,
                                      message: str) -> None:
    with pytest.raises(BadInput, match=message.replace("?", r"\?")):
        specs, load = _files(tmp_path, spec, doc)
        apply_tables(tmp_path, specs, load, write=True)
    assert (tmp_path / "doc.md").read_text() == doc  # nothing written


def test_the_script_exits_2_on_a_bad_spec(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("[tables.x\n")
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "tables.py"), "--check",
                          "--spec", str(tmp_path / "bad.toml")], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and out.stderr.startswith("tables: ")


@pytest.mark.slow
def test_the_published_tables_are_the_files_numbers() -> None:
    """docs/beam.md and docs/results.md: every table under markers regenerates as is."""
    specs = load_specs(ROOT / "docs" / "tables.toml")
    assert {s.name for s in specs} >= {"beam", "natural", "readme-hard"}
    assert apply_tables(ROOT, specs, loader(ROOT), write=False) == []


@pytest.mark.slow
def test_the_readme_headline_is_its_files_numbers() -> None:
    """README's hard table (the blind stream's parts) regenerates as is."""
    specs = [s for s in load_specs(ROOT / "docs" / "tables.toml") if s.name == "readme-hard"]
    assert specs and apply_tables(ROOT, specs, loader(ROOT), write=False) == []
    table = render_table(specs[0], loader(ROOT))
    assert table.splitlines()[0].startswith("| backend | recall@1 | recall@1 after |")
    readme = (ROOT / "README.md").read_text()
    assert table in readme
