"""scripts/archive_reports.py loaded as a module, for the tests that read what it moved
(the superseded sets, the archive branch of this clone)."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def archive_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("archive_reports",
                                                  ROOT / "scripts" / "archive_reports.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
