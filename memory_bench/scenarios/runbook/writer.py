"""Any script as a runbook (``memory-bench export --format runbook``), TOML by tomli-w.

Every step keeps its tag, every item its timestamp, every ask its ground truth
(gold, outrank, forgotten), so running the file scores as the script did. Ids
lose the unbound prefix; the runbook scenario gives them opaque ids again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import tomli_w

from memory_bench.scenarios.runbook.format import FORMAT
from memory_bench.scenarios.script import (
    Consolidate,
    Forget,
    Probe,
    ReadStrength,
    Reset,
    Script,
    Write,
)

__all__ = ["dumps", "script_runbook"]


def script_runbook(script: Script, made_by: Mapping[str, Any]) -> dict[str, Any]:
    """The runbook document of ``script`` (what :func:`dumps` writes)."""
    prefix = script.prefix

    def own(item_id: str) -> str:
        return item_id[len(prefix):] if item_id.startswith(prefix) else item_id

    def owns(ids: Any) -> list[str]:
        return [own(i) for i in ids]

    steps: list[dict[str, Any]] = []
    for s in script.steps:
        if isinstance(s, Write):
            items = []
            for n, it in enumerate(s.items):
                d: dict[str, Any] = {"id": own(it.id), "text": it.text, "source": it.source,
                                     "timestamp": it.timestamp}
                if it.region != "benchmark":
                    d["region"] = it.region
                if it.tags:
                    d["tags"] = list(it.tags)
                if s.categories:
                    d["category"] = s.categories[n]
                if s.tags:
                    d["role"] = s.tags[n]
                items.append(d)
            w: dict[str, Any] = {"op": "write", "tag": s.tag}
            if s.needs is not None:
                w["needs"] = s.needs.value
            steps.append({**w, "items": items})
        elif isinstance(s, Probe):
            a: dict[str, Any] = {"op": "ask", "tag": s.tag, "question": s.question,
                                 "gold": owns(s.expected), "outrank": owns(s.outrank)}
            if s.forgotten:
                a["forgotten"] = owns(s.forgotten)
            for name in ("key", "category"):
                if getattr(s, name) is not None:
                    a[name] = getattr(s, name)
            if s.needs is not None:
                a["needs"] = s.needs.value
            steps.append(a)
        elif isinstance(s, Forget):
            f: dict[str, Any] = {"op": "forget", "tag": s.tag, "ids": owns(s.ids)}
            if s.source is not None:
                f["source"] = s.source
            steps.append(f)
        elif isinstance(s, ReadStrength):
            steps.append({"op": "strength", "tag": s.tag, "ids": owns(s.ids),
                          "label": s.label})
        elif isinstance(s, Consolidate):
            steps.append({"op": "consolidate", "tag": s.tag})
        elif isinstance(s, Reset):
            steps.append({"op": "reset"})
    return {"format": FORMAT, "k": script.k, "made_by": _plain(made_by), "step": steps}


def _plain(value: Any) -> Any:
    """TOML has no null: a ``made_by`` field that is None is left out."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value if v is not None]
    return value


def dumps(doc: Mapping[str, Any]) -> str:
    return tomli_w.dumps(doc, multiline_strings=False)
