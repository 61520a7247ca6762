"""Make the test plugin packages under tests/plugins/ visible through entry points.

They are real, installable distributions (each has a pyproject.toml), but they
must never be installed into the project's venv: every user would then see a
hanging backend in ``memory-bench backends``. Instead, a test gets a directory
holding each package's modules and the ``*.dist-info`` (METADATA and
entry_points.txt, written from its pyproject.toml exactly as pip would) and
puts it on sys.path or PYTHONPATH, for that test only.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

__all__ = ["PACKAGES", "build_site"]

PLUGINS = Path(__file__).resolve().parent / "plugins"
PACKAGES = ("broken-plugin", "hanging-backend")


def _dist_info(project: dict, dest: Path) -> None:
    name, version = project["name"], project["version"]
    info = dest / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines: list[str] = []
    for group, entries in project.get("entry-points", {}).items():
        lines.append(f"[{group}]")
        lines += [f"{key} = {value}" for key, value in entries.items()]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")


def build_site(dest: Path, packages: tuple[str, ...] = PACKAGES) -> Path:
    """Lay out ``packages`` (directory names under tests/plugins) in ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for package in packages:
        root = PLUGINS / package
        project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        _dist_info(project, dest)
        for module in (root / "src").iterdir():
            if module.is_dir() and module.name != "__pycache__" and not module.name.endswith(
                ".egg-info"
            ):
                shutil.copytree(module, dest / module.name,
                                ignore=shutil.ignore_patterns("__pycache__"))
    return dest
