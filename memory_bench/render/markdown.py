"""The Markdown report of a result file."""

from __future__ import annotations

import json
from typing import Any

from memory_bench.capabilities import Capability
from memory_bench.metrics import BY_NAME
from memory_bench.render.format import NOT_SUPPORTED, cell, run_counts
from memory_bench.render.table import TABLE_METRICS

__all__ = ["render_markdown"]


def _esc(text: Any) -> str:
    """Make text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _results(result: dict[str, Any]) -> list[str]:
    head = ["backend", "runs ok"] + [BY_NAME[m].label for m in TABLE_METRICS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for b in result["backends"]:
        cells = [_esc(b["label"]), run_counts(b)]
        cells += [cell(b.get("summary", {}).get(m), BY_NAME[m]) for m in TABLE_METRICS]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _capabilities(result: dict[str, Any]) -> list[str]:
    caps = [c.value for c in Capability]
    lines = ["| backend | " + " | ".join(caps) + " |", "|---|" + "---|" * len(caps)]
    for b in result["backends"]:
        have = set(b.get("capabilities", []))
        marks = ["yes" if c in have else NOT_SUPPORTED for c in caps]
        lines.append(f"| {_esc(b['label'])} | " + " | ".join(marks) + " |")
    return lines


def render_markdown(result: dict[str, Any]) -> str:
    scen = result["scenario"]
    out = [
        f"# memory-bench comparison — {_esc(scen.get('name'))}",
        "",
        f"Run `{result['run_id']}`, started {result.get('started_at')}, finished "
        f"{result.get('finished_at')} ({result.get('status')}). Seeds: "
        f"{', '.join(str(s) for s in result.get('seeds', []))}.",
        "",
        "## Results",
        "",
        "Mean ± half-width of the 95% bootstrap CI over seeds; — means the backend lacks "
        "the capability the metric needs.",
        "",
        *_results(result),
        "",
        "## Capabilities",
        "",
        *_capabilities(result),
        "",
    ]
    notes = [(b["label"], n) for b in result["backends"] for n in b.get("notes", [])]
    if notes:
        out += ["## Backend notes", ""]
        out += [f"- **{_esc(label)}**: {_esc(n)}" for label, n in notes]
        out.append("")
    failures = [
        (b["label"], r) for b in result["backends"] for r in b["runs"] if r.get("status") != "ok"
    ]
    if failures:
        out += ["## Failures", ""]
        out += [f"- {_esc(lbl)} seed {r['seed']}: {r['status']}: {_esc(r.get('error'))}"
                for lbl, r in failures]
        out.append("")
    params = {k: v for k, v in scen.items() if k != "data_hashes"}
    out += [
        "## Scenario",
        "",
        "```json",
        json.dumps(params, indent=1),
        "```",
        "",
        "Data hashes per seed: "
        + ", ".join(f"{s}: `{h}`" for s, h in scen.get("data_hashes", {}).items()),
        "",
        "## Manifest",
        "",
        "```json",
        json.dumps(result.get("manifest", {}), indent=1),
        "```",
        "",
    ]
    return "\n".join(out)
