"""What a reader needs to reproduce a run: versions, machine, model, commit, command."""

from __future__ import annotations

import hashlib
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

__all__ = ["build_manifest", "dirty_line", "git_state", "is_dirty", "package_sha256"]

# Read from distribution metadata, never imported: the manifest must stay cheap.
# The core's own; each backend adds the distributions it declares (``libraries``).
LIBRARIES = ("numpy", "scipy", "matplotlib", "pluggy")


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def git_state(cwd: Path) -> dict[str, Any] | None:
    """The checkout's commit and whether tracked files differ from it; a dirty one also
    records the SHA-256 of ``git diff HEAD``, so the exact uncommitted code can be named
    (and matched by whoever holds the diff). None outside a git checkout."""
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
        state: dict[str, Any] = {"commit": commit.stdout.strip(),
                                 "dirty": bool(status.stdout.strip())}
        if state["dirty"]:
            diff = subprocess.run(["git", "diff", "HEAD", "--binary"], cwd=cwd,
                                  capture_output=True, timeout=60)
            state["diff_sha256"] = hashlib.sha256(diff.stdout).hexdigest()
        return state
    except (OSError, subprocess.SubprocessError):
        return None


def package_sha256(module: str | None) -> str | None:
    """SHA-256 over the Python source of the top-level package (or module) that holds
    ``module``: names the exact adapter code a result was made with, whatever its
    version string says. None when it cannot be found."""
    import importlib.util

    if not module:
        return None
    try:
        spec = importlib.util.find_spec(module.split(".")[0])
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        roots = [Path(p) for p in spec.submodule_search_locations]
        files = sorted((f.relative_to(root).as_posix(), f) for root in roots
                       for f in root.rglob("*.py"))
    elif spec.origin and spec.origin.endswith(".py"):
        files = [(Path(spec.origin).name, Path(spec.origin))]
    else:
        return None
    digest = hashlib.sha256()
    for name, f in files:
        digest.update(name.encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()


def _backend(s: BackendSelection) -> dict[str, Any]:
    out: dict[str, Any] = {"name": s.info.name, "version": s.info.version,
                           "plugin": s.info.plugin,
                           "package_sha256": package_sha256(
                               getattr(s.info.factory, "__module__", None))}
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
        "git": git_state(Path.cwd()),
        # No path of this machine (a --cache-dir under /tmp was published once).
        "command": [Path(a).name if i == 0 else redact(a) or ""
                    for i, a in enumerate(sys.argv if argv is None else argv)],
    }


def is_dirty(manifest: dict[str, Any]) -> bool:
    """Was the result made from a checkout with uncommitted changes?"""
    git = manifest.get("git")
    return isinstance(git, dict) and git.get("dirty") is True


def dirty_line(manifest: dict[str, Any]) -> str | None:
    """The label every report and the site give a result from a dirty checkout."""
    if not is_dirty(manifest):
        return None
    git = manifest["git"]
    diff = git.get("diff_sha256")
    which = (f"diff SHA-256 {diff[:16]}…" if isinstance(diff, str)
             else "the diff was not recorded")
    return (f"Dirty provenance: this result was made from a checkout with uncommitted changes "
            f"on commit {str(git.get('commit', '?'))[:12]} ({which}), so no commit holds "
            "the exact code behind these numbers.")
