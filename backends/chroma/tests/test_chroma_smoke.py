"""chroma end to end on the smoke scenario: embedded, and against a real `chroma run` server."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_bench.harness.runner import RunConfig
from memory_bench.plugins.manager import default_plugins
from memory_bench.plugins.selection import select_backends
from memory_bench.results.model import Result
from memory_bench.scenarios.spec import load_scenario
from memory_bench.session.pipeline import execute

pytestmark = pytest.mark.slow

STARTUP_TIMEOUT_S = 60.0


def _run(tmp_path: Path, spec: str) -> Result:
    cfg = RunConfig(
        plugins=default_plugins(),
        selections=select_backends(default_plugins().registry, [spec]),
        scenario=load_scenario("smoke"),
        seeds=[0, 1],
        out=tmp_path / "r.json",
        executor="local",  # in-process: this test is not about isolation
        cache_dir=tmp_path / "cache",
    )
    return execute(cfg)


def _check(result: Result, *, persistent: bool = False) -> None:
    assert result.status == "complete"
    (b,) = result.backends
    # mode=persistent (a server's store outlives the pair) grants persistent
    assert b.capabilities == (["forget", "persistent", "provenance"] if persistent
                              else ["forget", "provenance"])
    for run in b.runs:
        assert run.status == "ok", run.error
        assert run.cleanup.ok and run.cleanup.left == 0
        m = run.metrics
        assert m["recall1_before"] >= 0.75 and m["recall5_before"] == 1.0
        assert m["provenanceAccuracy"] == 1.0
        for name in ("gateRecall", "falseRefusals", "strengthDelta"):
            assert m[name] is None


def test_smoke_scenario_embedded(tmp_path: Path) -> None:
    _check(_run(tmp_path, "chroma"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _chroma_cli() -> str | None:
    near = Path(sys.executable).parent / "chroma"
    return str(near) if near.exists() else shutil.which("chroma")


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """A real `chroma run` on 127.0.0.1, ready (heartbeat) within a bounded time; always stopped."""
    exe = _chroma_cli()
    if exe is None:
        pytest.fail("the chroma CLI is not installed (it comes with chromadb)")
    port = _free_port()
    log = (tmp_path / "chroma-server.log").open("wb")
    proc = subprocess.Popen(
        [exe, "run", "--path", str(tmp_path / "server-db"), "--host", "127.0.0.1",
         "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        url = f"http://127.0.0.1:{port}/api/v2/heartbeat"
        while True:
            if proc.poll() is not None:
                pytest.fail(f"chroma run exited with {proc.returncode}: "
                            f"{(tmp_path / 'chroma-server.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(url, timeout=1) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"chroma run not ready after {STARTUP_TIMEOUT_S} s")
            time.sleep(0.2)
        yield "127.0.0.1", port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


@pytest.mark.server
def test_smoke_scenario_against_a_chroma_server(tmp_path: Path, chroma_server) -> None:
    host, port = chroma_server
    result = _run(tmp_path, f"chroma:mode=persistent,host={host},port={port},"
                           "collection=mb-server-test")
    _check(result, persistent=True)
    # The server still runs and holds the collection, empty of this run's items.
    import chromadb
    from chromadb.config import Settings

    client = chromadb.HttpClient(host=host, port=port,
                                 settings=Settings(anonymized_telemetry=False))
    try:
        col = client.get_collection("mb-server-test")
        assert col.count() == 0
    finally:
        client.close()
