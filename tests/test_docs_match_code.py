"""The docs name everything the code accepts: capabilities, ``registry.add``'s
parameters, the JSONL line types and fields, and every metric (docs/metrics.md is
generated; here it must be current). Each comparison is also run on a page with a
name taken out, to show it can fail."""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path

from memory_bench import BackendRegistry, Capability
from memory_bench.scenarios.datasets.jsonl import _FIELDS

ROOT = Path(__file__).resolve().parent.parent
BACKEND_DOC = (ROOT / "docs" / "writing-a-backend.md").read_text(encoding="utf-8")
DATASETS_DOC = (ROOT / "docs" / "datasets.md").read_text(encoding="utf-8")


def _missing_capabilities(page: str) -> list[str]:
    """Capabilities absent from the page's list, its `Capability` row, or the JSONL
    ``needs`` row (whichever the page holds)."""
    missing = []
    bullet = re.search(r"^- Capabilities:(.*?)(?=^- )", page, re.M | re.S)
    row = re.search(r"^\| `Capability` \|(.*)$", page, re.M)
    needs = re.search(r"^\| \| \*`needs`\* \|(.*)$", page, re.M)
    for c in Capability:
        if bullet and f"`{c.value}`" not in bullet.group(1):
            missing.append(f"list: {c.value}")
        if row and f"`{c.name}`" not in row.group(1):
            missing.append(f"Capability row: {c.name}")
        if needs and f"`{c.value}`" not in needs.group(1):
            missing.append(f"needs: {c.value}")
    return missing


def _documented_add_parameters(page: str) -> set[str]:
    m = re.search(r"`registry\.add\((name,[^`]*?)\)`\s+takes", page, re.S)
    assert m, "no `registry.add(...)` signature in the page"
    return {p.split("=")[0].strip() for p in m.group(1).replace("\n", " ").split(",")} - {"*"}


def _documented_jsonl(page: str) -> dict[str, dict[str, bool]]:
    """type -> field -> required, from the JSONL table (an italic field is optional)."""
    out: dict[str, dict[str, bool]] = {}
    kind = None
    for line in page.splitlines():
        m = re.match(r"^\| (?:`(\w+)`)? *\| (\*?)`(\w+)`\*? \|", line)
        reset = re.match(r"^\| `(\w+)` \| — \|", line)
        if reset:
            out[reset.group(1)] = {}
            continue
        if not m:
            continue
        kind = m.group(1) or kind
        assert kind is not None
        out.setdefault(kind, {})[m.group(3)] = not m.group(2)
    return out


def _code_jsonl() -> dict[str, dict[str, bool]]:
    return {t: {f: req for f, (req, _) in fields.items()} for t, fields in _FIELDS.items()}


def test_every_capability_is_documented() -> None:
    assert _missing_capabilities(BACKEND_DOC) == []
    assert _missing_capabilities(DATASETS_DOC) == []
    cut = BACKEND_DOC.replace("`forget` (forgets items on request)", "")
    assert _missing_capabilities(cut) == ["list: forget"]


def test_registry_add_signature_is_documented() -> None:
    code = set(inspect.signature(BackendRegistry.add).parameters) - {"self"}
    assert _documented_add_parameters(BACKEND_DOC) == code
    cut = BACKEND_DOC.replace("vectors=None, ", "")
    assert code - _documented_add_parameters(cut) == {"vectors"}


def test_jsonl_types_and_fields_are_documented() -> None:
    assert _documented_jsonl(DATASETS_DOC) == _code_jsonl()
    cut = DATASETS_DOC.replace("| | *`forgotten`* |", "| | *`gone`* |")
    assert _documented_jsonl(cut) != _code_jsonl()


def test_metric_reference_is_current() -> None:
    spec = importlib.util.spec_from_file_location(
        "metric_reference", ROOT / "scripts" / "metric_reference.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    page = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert page == mod.render(), "docs/metrics.md is stale: python scripts/metric_reference.py"
    assert "| `updateWinRate` |" in page and "| `forgottenReturned` |" in page
