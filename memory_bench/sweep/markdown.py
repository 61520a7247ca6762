"""The sweep's report in Markdown: per metric, one row per backend and one column per size."""

from __future__ import annotations

from typing import Any

from memory_bench.render.markdown import md_code, md_escape, md_prose

__all__ = ["render_sweep_markdown"]



def _tables(summary: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(metric, title, places) for every declared metric some size has a value of, in
    the order the scenario declares them: the declarations, not a list of our own."""
    have = {name for r in summary["rows"] for name, m in r["metrics"].items()
            if m and m.get("mean") is not None}
    return [(m["name"], f"{m['label']} ({m['description']})" if m.get("description")
             else m["label"], m.get("decimals", 3))
            for m in summary["metrics"] if m["name"] in have]


def _fmt(m: dict[str, Any] | None, places: int) -> str:
    if not m or m["mean"] is None:
        return "—"
    mean = f"{m['mean']:,.{places}f}"
    if m["n"] >= 2 and m["ci_low"] is not None and m["ci_high"] is not None:
        half = max(m["mean"] - m["ci_low"], m["ci_high"] - m["mean"])
        return f"{mean} ± {half:,.{places}f}"
    return mean


def _table(summary: dict[str, Any], metric: str, places: int) -> list[str]:
    sizes = summary["sizes"]
    cells = {(r["label"], r["size"]): r for r in summary["rows"]}
    lines = ["| backend | " + " | ".join(f"{s:,}" for s in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for label in summary["backends"]:
        row = []
        for s in sizes:
            cell = cells.get((label, s))
            if cell is None:
                row.append("not run")
            elif cell["ok"] == 0:
                row.append("failed")
            else:
                row.append(_fmt(cell["metrics"].get(metric), places))
        lines.append(f"| {md_escape(label)} | " + " | ".join(row) + " |")
    return lines


def render_sweep_markdown(summary: dict[str, Any], images: dict[str, str]) -> str:
    sizes = summary["sizes"]
    out = [f"# Scale sweep: {md_escape(summary['scenario'])}", ""]
    out += [f"Generator {md_code(summary['generator'])} (base "
            f"{md_code(summary['params'].get('base'))}), "
            f"sizes {', '.join(f'{s:,}' for s in sizes)} items; seeds per size: "
            + ", ".join(f"{int(s):,}: {len(v)}" for s, v in summary["seeds"].items())
            + ". Mean ± half-width of the 95% t-interval over seeds (no interval with one "
            "seed). — = not supported or no value; *not run* = beyond the backend's "
            "`--limit`.", ""]
    for name, alt in (("quality", "quality against size"), ("cost", "costs against size")):
        if name in images:
            out += [f"![{alt}]({images[name]})", ""]
    tables = _tables(summary)
    for metric, title, places in tables:
        out += [f"## {md_escape(title)}", "", *_table(summary, metric, places), ""]
    out += ["## What each size cost", "",
            "| size | noise generated (items/s) | script (s) | wall of the size's run (s) "
            "| load average before (1, 5, 15 min) |", "|---|---|---|---|---|"]
    for s in sizes:
        g = summary["generation"].get(str(s), {})
        load = summary["load_before"].get(str(s), [])
        out.append(f"| {s:,} | {g.get('noise_per_s') or 0:,} | {g.get('seconds', 0):.1f} | "
                   f"{summary['wall_s'].get(str(s), 0):,.0f} | "
                   + " ".join(f"{x:.2f}" for x in load) + " |")
    out += ["", "Mean seconds per (backend, seed) pair:", "",
            *_pair_seconds(summary), ""]
    out += ["## Caveats", ""]
    caveats = summary["caveats"].get(str(sizes[-1]), []) if sizes else []
    out += [f"- {md_prose(c)}" for c in caveats]
    for m in summary["metrics"]:
        if m.get("caveat") and m["name"] in {t[0] for t in tables}:
            out.append(f"- {md_prose(m['caveat'])}")
    execution = summary.get("execution", {})
    out += ["", f"Executor: {execution.get('executor')}, isolation "
            f"{execution.get('isolation')}, embedding cache {execution.get('cache')}.",
            "", "Command: " + md_code(" ".join(summary["command"])), ""]
    out += ["Per-size results (every per-probe record; `memory-bench report` renders any "
            "of them): " + ", ".join(f"[{int(s):,}]({name})"
                                     for s, name in summary["results"].items()), ""]
    return "\n".join(out)


def _pair_seconds(summary: dict[str, Any]) -> list[str]:
    sizes = summary["sizes"]
    cells = {(r["label"], r["size"]): r for r in summary["rows"]}
    lines = ["| backend | " + " | ".join(f"{s:,}" for s in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    for label in summary["backends"]:
        row = []
        for s in sizes:
            c = cells.get((label, s))
            row.append("not run" if c is None or c["pair_seconds"] is None
                       else f"{c['pair_seconds']:,.1f}")
        lines.append(f"| {md_escape(label)} | " + " | ".join(row) + " |")
    return lines
