"""Every result file the project writes reads back with its own tools: ``report`` and
``compare`` open each file under reports/; test_cli and test_sweep check, with
:func:`reads_back`, each one a ``run --save`` and a ``sweep --save`` write."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from memory_bench.cli import main

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"


def results_in(directory: Path) -> list[Path]:
    """The result files of a reports directory: every .json.gz, and every .json that is
    not a sweep summary (a summary names its per-size results, checked below)."""
    out = sorted(directory.glob("*.json.gz"))
    for f in sorted(directory.glob("*.json")):
        if json.loads(f.read_text()).get("schema", "").startswith("memory-bench-sweep/"):
            continue
        out.append(f)
    return out


def reads_back(path: Path) -> None:
    """``report --format json`` and ``compare path path`` succeed on ``path``."""
    for argv in (["report", str(path), "--format", "json"],
                 ["compare", str(path), str(path), "--json"]):
        sink, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(err):
            code = main(argv)
        assert code == 0, f"{argv[0]} {path.name}: {err.getvalue().strip()}"
        json.loads(sink.getvalue())


def sweep_results(directory: Path) -> list[Path]:
    """The per-size results every sweep summary in ``directory`` names (they must exist)."""
    named = []
    for f in sorted(directory.glob("*.json")):
        doc = json.loads(f.read_text())
        if doc.get("schema", "").startswith("memory-bench-sweep/"):
            for name in doc["results"].values():
                assert (directory / name).is_file(), f"{f.name} names {name}, not there"
                named.append(directory / name)
    return named


def test_each_published_result_is_one_gzip_of_a_result_document() -> None:
    """Fast: every .json.gz under reports/ decodes once to a memory-bench result (the
    sweep's per-size files were a gzip inside a gzip, which nothing could read)."""
    import gzip

    files = sorted(REPORTS.glob("*.json.gz"))
    assert files
    for f in files:
        text = gzip.decompress(f.read_bytes())
        assert text[:1] == b"{", f"{f.name}: not one gzip of a JSON document"
        assert re.match(rb'\{\s*"schema":\s*"memory-bench/\d', text), f.name


@pytest.mark.slow
@pytest.mark.parametrize("path", results_in(REPORTS), ids=lambda p: p.name)
def test_each_published_result_reads_back_with_report_and_compare(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file is read (validated, migrated, analysed) once, by the function both
    commands read with; report and compare then run on what it read. Reading a
    26 MB result three times (report, and compare's old and new) proved nothing more."""
    from memory_bench.session import reading

    read: dict[Path, object] = {}
    load = reading.load_analysed

    def once(p: Path):
        key = Path(p).resolve()
        if key not in read:
            read[key] = load(p)
        return read[key]

    monkeypatch.setattr(reading, "load_analysed", once)
    reads_back(path)
    assert list(read) == [path.resolve()]


def test_each_published_sweep_names_results_that_are_published() -> None:
    named = sweep_results(REPORTS)
    assert set(named) <= set(results_in(REPORTS))
