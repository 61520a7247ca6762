"""What a reader needs to reproduce a run: versions, machine, model, commit, command."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from memory_bench import __version__
from memory_bench.plugins.selection import BackendSelection
from memory_bench.results.redact import redact

__all__ = ["build_manifest"]

# Read from distribution metadata, never imported: the manifest must stay cheap.
# The core's own; each backend adds the distributions it declares (``libraries``).
LIBRARIES = ("numpy", "scipy", "matplotlib", "pluggy")


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _git(cwd: Path) -> dict[str, Any] | None:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=10
        )
        if commit.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd, capture_output=True, text=True, timeout=10,
        )
        return {"commit": commit.stdout.strip(), "dirty": bool(status.stdout.strip())}
    except (OSError, subprocess.SubprocessError):
        return None


def _backend(s: BackendSelection) -> dict[str, Any]:
    out: dict[str, Any] = {"name": s.info.name, "version": s.info.version,
                           "plugin": s.info.plugin}
    if s.info.manifest is not None:
        try:
            out.update(s.info.manifest(dict(s.options)))
        except Exception as exc:  # a plugin's bug is recorded, not fatal
            out["manifest_error"] = f"{type(exc).__name__}: {exc}"
    return out


def build_manifest(
    selections: Sequence[BackendSelection], argv: Sequence[str] | None = None
) -> dict[str, Any]:
    libraries = list(LIBRARIES)
    for s in selections:
        libraries += [d for d in s.info.libraries if d not in libraries]
    return {
        "memory_bench": __version__,
        "backends": {s.label: _backend(s) for s in selections},
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "libraries": {name: _version(name) for name in libraries},
        "git": _git(Path.cwd()),
        # No path of this machine (a --cache-dir under /tmp was published once).
        "command": [Path(a).name if i == 0 else redact(a) or ""
                    for i, a in enumerate(sys.argv if argv is None else argv)],
    }
