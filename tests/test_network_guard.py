"""The guard the no-network tests rely on does record an attempt (a guard that cannot
fail would prove nothing). The child runs in a network namespace of its own, so even a
broken guard could send nothing anywhere."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from guarded_run import run_guarded

_TRY = """
import socket
for target in (("192.0.2.1", 80), ("127.0.0.1", 9)):
    s = socket.socket()
    try:
        s.connect(target)
    except OSError:
        pass
    finally:
        s.close()
try:
    socket.getaddrinfo("example.invalid", 80)
except OSError:
    pass
RESULT = {}
"""


def _isolated() -> bool:
    unshare = shutil.which("unshare")
    return bool(unshare) and subprocess.run([unshare, "-rn", "true"]).returncode == 0


@pytest.mark.skipif(not _isolated(), reason="needs unshare -rn (a network namespace)")
def test_the_guard_records_non_loopback_attempts_only(tmp_path: Path) -> None:
    got = run_guarded(_TRY, tmp_path)
    assert got["attempts"] == ["connect ('192.0.2.1', 80)", "getaddrinfo 'example.invalid'"]
