"""Hostile input, third pass: every probe ends with exit 2 (or a failed pair that says
why), one clear line on stderr, no traceback, nothing written, nothing echoed raw."""

from __future__ import annotations

import http.server
import json
import re
import threading
from pathlib import Path

import pytest

from memory_bench.errors import printable
from memory_bench.records import strictjson

HEADER = {"type": "header", "format": "memory-bench-jsonl/1", "made_by": {"by": "test"}}


def _one_line(out, code: int = 2) -> str:
    assert out.returncode == code, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    return lines[0]


@pytest.mark.parametrize("sizes", ["nan", "inf", "1e999", "-5", "1e10"])
def test_sweep_sizes_must_be_finite_whole_numbers(cli, sizes: str) -> None:
    line = _one_line(cli("sweep", "--sizes", sizes, "--backend", "fake-perfect"))
    assert "--sizes" in line and "whole number" in line


@pytest.mark.parametrize("flag", [["--limit", "fake-perfect=inf"],
                                  ["--seeds-at", "1000=nan"], ["--seeds-at", "inf=1"]])
def test_sweep_limits_and_seed_counts_must_be_finite(cli, flag: list[str]) -> None:
    line = _one_line(cli("sweep", "--sizes", "1000", "--backend", "fake-perfect", *flag))
    assert flag[0] in line


@pytest.mark.parametrize("seed", ["-1", "1000000000000"])
def test_export_seed_is_bounded_and_nothing_is_written(cli, seed: str) -> None:
    line = _one_line(cli("export", "--scenario", "smoke", "--seed", seed, "out.jsonl"))
    assert "--seed" in line and not (cli.cwd / "out.jsonl").exists()


def test_a_deeply_nested_or_surrogate_line_is_named_by_its_line(cli) -> None:
    deep = '{"type": "item", "id": "a", "text": ' + "[" * 5000 + "]" * 5000 + "}"
    surrogate = json.dumps({"type": "item", "id": "b", "text": "x\ud800y", "source": "s",
                            "timestamp": "2026-01-01T00:00:00+00:00"})
    path = cli.cwd / "bad.jsonl"
    path.write_text("\n".join([json.dumps(HEADER), deep, surrogate]) + "\n")
    out = cli("validate", "bad.jsonl")
    assert out.returncode == 2 and "Traceback" not in out.stderr + out.stdout
    assert "bad.jsonl:2: not JSON we read: nested more than 64 levels deep" in out.stdout
    assert "bad.jsonl:3: not JSON we read: a string holds a lone surrogate" in out.stdout
    run = cli("run", "--scenario", "jsonl", "--set", "path=bad.jsonl", "--backend",
              "fake-perfect", "--seeds", "1")
    assert "line 2" in _one_line(run) or "bad.jsonl" in run.stderr


def test_json_lines_end_at_newline_only() -> None:
    text = '{"a": "one\u2028two\u0085three"}\r\n{"b": 2}\n'
    assert [strictjson.loads(x) for x in strictjson.json_lines(text)] == [
        {"a": "one\u2028two\u0085three"}, {"b": 2}]


def test_exported_file_with_line_separators_validates(cli) -> None:
    """What the project writes reads back: a question holding U+2028 survives."""
    lines = [HEADER,
             {"type": "item", "id": "i1", "text": "Ann\u2028lives in Oslo.", "source": "s",
              "timestamp": "2026-01-01T00:00:00+00:00"},
             {"type": "probe", "question": "Where\u0085does Ann live?", "expected": ["i1"]}]
    (cli.cwd / "ok.jsonl").write_text("".join(json.dumps(x, ensure_ascii=False) + "\n"
                                              for x in lines), encoding="utf-8")
    out = cli("validate", "ok.jsonl")
    assert out.returncode == 0, out.stdout + out.stderr


def test_echoed_input_is_escaped_and_bounded(cli) -> None:
    evil = "x\n\x1b[2J\x1b[31mred" + "y" * 20_000
    line = _one_line(cli("run", "--scenario", evil, "--backend", "fake-perfect"))
    assert "\x1b" not in line and "\\x1b" in line and len(line) < 1_000 and line.endswith("…")
    assert printable("a\u2028b\u0085c") == "a\\u2028b\\x85c"


def test_a_plugin_that_exits_on_import_is_listed_broken_not_obeyed(cli) -> None:
    env = {"MEMORY_BENCH_PLUGINS": "fake_backends,exiting_plugin", "EXIT_ON": "import"}
    out = cli("backends", env_extra=env)
    assert out.returncode == 0 and "BROKEN plugin exiting_plugin" in out.stdout
    assert "sys.exit(0)" in out.stdout
    out = cli("run", "--scenario", "smoke", "--backend", "exits-in-factory", env_extra=env)
    line = _one_line(out)
    assert "unknown backend 'exits-in-factory'" in line and "exiting_plugin" in line


def test_a_hook_that_exits_is_a_broken_plugin(cli) -> None:
    out = cli("check", env_extra={"MEMORY_BENCH_PLUGINS": "exiting_plugin",
                                  "EXIT_ON": "hook"})
    assert out.returncode in (1, 2) and "exiting_plugin" in out.stdout + out.stderr
    assert "sys.exit(3)" in out.stdout + out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize(("backend", "why"), [
    ("exits-in-factory", "its factory called sys.exit(0)"),
    ("returns-none", "its factory returned NoneType, not a backend"),
])
def test_a_factory_that_exits_or_returns_none_fails_its_pair_by_name(cli, backend: str,
                                                                     why: str) -> None:
    env = {"MEMORY_BENCH_PLUGINS": "fake_backends,exiting_plugin"}
    out = cli("run", "--scenario", "smoke", "--seeds", "1", "--backend", backend,
              "--backend", "fake-perfect", "--out", "r.json", "--quiet", env_extra=env)
    assert out.returncode == 1, out.stderr
    doc = json.loads((cli.cwd / "r.json").read_text())
    (bad,) = [b for b in doc["backends"] if b["label"] == backend]
    assert bad["runs"][0]["status"] == "failed" and why in bad["runs"][0]["error"]
    assert f"backend {backend}" in bad["runs"][0]["error"]
    good = next(b for b in doc["backends"] if b["label"] == "fake-perfect")
    assert good["runs"][0]["status"] == "ok"


def test_dask_workers_are_bounded(cli) -> None:
    line = _one_line(cli("run", "--executor", "dask", "--workers", "100000",
                         "--backend", "fake-perfect", "--scenario", "smoke"))
    assert "--workers" in line and "1024" in line


def test_a_scheduler_that_answers_http_is_bad_input(cli) -> None:
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        line = _one_line(cli("run", "--executor", "dask", "--scheduler",
                             f"tcp://127.0.0.1:{port}", "--backend", "fake-perfect",
                             "--scenario", "smoke"))
        assert "cannot reach the dask scheduler" in line
    finally:
        server.shutdown()
    assert not list(Path(cli.cwd).glob("runs/*.json"))


def test_a_locomo_file_with_nothing_to_ask_is_bad_input(cli) -> None:
    fixture = Path(__file__).parent / "fixtures" / "datasets" / "locomo_mini.json"
    data = json.loads(fixture.read_text())
    for conv in data:
        for qa in conv["qa"]:
            qa["evidence"] = []
    (cli.cwd / "empty.json").write_text(json.dumps(data))
    line = _one_line(cli("run", "--scenario", "locomo", "--set", "path=empty.json",
                         "--backend", "fake-perfect", "--seeds", "1"))
    assert "nothing to score" in line and not (cli.cwd / "runs").exists()


def test_the_sweep_markdown_escapes_hostile_names() -> None:
    from memory_bench.sweep.markdown import render_sweep_markdown

    evil = "<script>alert(1)</script>](http://x)"
    summary = {"scenario": evil, "generator": "scale", "params": {"base": "templated"},
               "sizes": [1000], "seeds": {"1000": [0]}, "backends": [evil],
               "rows": [{"label": evil, "size": 1000, "ok": 1, "pair_seconds": 1.0,
                         "metrics": {"recall1_before": {"mean": 1.0, "ci_low": None,
                                                        "ci_high": None, "n": 1}}}],
               "metrics": [{"name": "recall1_before", "label": "recall@1", "decimals": 3,
                            "description": evil}],
               "generation": {}, "load_before": {}, "wall_s": {}, "caveats": {"1000": [evil]},
               "execution": {}, "command": ["memory-bench", evil], "results": {}}
    md = render_sweep_markdown(summary, {})
    prose = re.sub(r"(`+).*?\1", "", md)  # code spans show text literally: inert
    assert "<script" not in prose and "](http" not in prose.replace("\\](http", "")


def test_a_preload_that_starts_threads_is_named_with_the_fix() -> None:
    import threading

    from memory_bench.harness.executors.base import preload_here
    from memory_bench.plugins.backends import BackendRegistry
    from memory_bench.plugins.selection import select_backends

    stop = threading.Event()

    def preload(options, cache_dir) -> None:
        threading.Thread(target=stop.wait, daemon=True).start()

    registry = BackendRegistry()
    registry.add("threaded", factory=lambda o, c: None, description="test", version="0",
                 capabilities=[], preload=preload)
    try:
        with pytest.warns(RuntimeWarning, match="backend threaded's preload started 1 thread"):
            preload_here(select_backends(registry, ["threaded"]), None)
    finally:
        stop.set()
