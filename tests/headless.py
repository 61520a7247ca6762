"""A page in Debian's headless Chromium, driven over the DevTools protocol on a pipe.

Enough of the protocol to load a local page at a given width, measure it with a
line of JavaScript and take a screenshot: no port is opened, nothing leaves the
machine (background networking, component updates and sync are off).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

__all__ = ["Chromium", "chromium_path"]

# Every <details> is opened first, so that folded tables are measured too; `scrolling`
# names each table box (.scroll) whose table is wider than the box: a hidden column.
MEASURE = """(document.querySelectorAll('details').forEach(d => { d.open = true; }), {
  scrollWidth: document.documentElement.scrollWidth,
  scrolling: Array.from(document.querySelectorAll('.scroll'))
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => { let h = e; while (h && h.tagName !== 'H2') h = h.previousElementSibling;
                return (h ? h.id || h.textContent : 'page') + ': ' + e.scrollWidth + '>'
                       + e.clientWidth; }),
  innerWidth: window.innerWidth,
  tables: document.querySelectorAll('table').length,
  images: Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0).length,
  wide: Array.from(document.querySelectorAll('body *'))
    .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1
                 && !e.parentElement.closest('.scroll'))
    .slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')),
})"""
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--remote-debugging-pipe")


def _onto_3_and_4(read_end: int, write_end: int) -> None:
    """In the child: the pipe ends onto fds 3 and 4, where --remote-debugging-pipe
    looks (moved above 10 first, so neither clobbers the other)."""
    high_r = fcntl.fcntl(read_end, fcntl.F_DUPFD_CLOEXEC, 10)
    high_w = fcntl.fcntl(write_end, fcntl.F_DUPFD_CLOEXEC, 10)
    os.dup2(high_r, 3)
    os.dup2(high_w, 4)


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Chromium:
    """One browser for a test module; ``measure(url, width)`` opens a fresh tab each time."""

    def __init__(self, timeout: float = 60.0) -> None:
        exe = chromium_path()
        if exe is None:
            raise FileNotFoundError("chromium is not installed")
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="mb-chromium-")
        to_child, self._write = os.pipe()   # the browser reads commands on fd 3
        self._read, from_child = os.pipe()  # and writes answers on fd 4
        self.proc = subprocess.Popen(
            [exe, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            # Python's own fds are not inheritable: only the two dup2'd above 2 pass exec.
            close_fds=False, preexec_fn=lambda: _onto_3_and_4(to_child, from_child))
        os.close(to_child)
        os.close(from_child)
        self._buf = b""
        self._id = 0

    # -- the protocol ---------------------------------------------------------------

    def _send(self, method: str, params: dict[str, Any] | None = None,
              session: str | None = None) -> int:
        self._id += 1
        msg: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._write, json.dumps(msg).encode() + b"\0")
        return self._id

    def _next(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed its pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict[str, Any] | None = None,
             session: str | None = None) -> dict[str, Any]:
        want = self._send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._next(deadline)
            if msg.get("id") == want:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def _wait_event(self, name: str, session: str) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            msg = self._next(deadline)
            if msg.get("method") == name and msg.get("sessionId") == session:
                return

    # -- what the tests use ---------------------------------------------------------

    @contextmanager
    def tab(self, url: str, width: int, height: int = 900) -> Iterator[str]:
        """A fresh tab at ``width`` CSS pixels (mobile below 600) with ``url`` loaded."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        try:
            self.call("Page.enable", session=session)
            self.call("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1,
                       "mobile": width < 600}, session)
            self.call("Page.navigate", {"url": url}, session)
            self._wait_event("Page.loadEventFired", session)
            yield session
        finally:
            self.call("Target.closeTarget", {"targetId": target})

    def evaluate(self, session: str, expression: str) -> Any:
        """The value of a JavaScript expression in the tab."""
        got = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                             "awaitPromise": True}, session)
        if "exceptionDetails" in got:
            raise RuntimeError(f"{expression[:60]}: {got['exceptionDetails']}")
        return got["result"].get("value")

    def measure(self, url: str, width: int, screenshot: Path | None = None) -> dict[str, Any]:
        """Load ``url`` at ``width``: the page's widths, what sticks out (outside a
        scrolling box), and a full-page PNG when asked."""
        with self.tab(url, width) as session:
            got = self.evaluate(session, MEASURE)
            if screenshot is not None:
                shot = self.call("Page.captureScreenshot",
                                 {"format": "png", "captureBeyondViewport": True}, session)
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                screenshot.write_bytes(base64.b64decode(shot["data"]))
            return got

    def close(self) -> None:
        with suppress(OSError, EOFError, TimeoutError, RuntimeError):
            self.call("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._write)
        os.close(self._read)
        shutil.rmtree(self._profile, ignore_errors=True)
