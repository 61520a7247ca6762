"""The learned leak scan as a terminal table, and its one-line summary for a report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory_bench.scenarios.continual.leakscan import ContrastScore, LeakScan

__all__ = ["leak_scan_caveat", "render_leak_scan"]


def _auc(value: float | None) -> str:
    if value is None:
        return "—"
    if 0.9995 <= value < 1.0:  # never print a 1 that is not one: the gate's bound is < 1
        return f"{value:.4f}" if value < 0.99995 else ">0.9999"
    return f"{value:.3f}"


def _verdict(s: ContrastScore) -> str:
    if s.ok is None:
        return ""
    return "ok" if s.ok else "LEAK"


def _bound(s: ContrastScore) -> str:
    if s.bound is None:
        return ""
    return f"< {s.bound:g}" if s.strict else f"≤ {s.bound:g}"


def render_leak_scan(found: LeakScan, width: int = 130) -> str:
    """One row per (contrast, group): the larger held-out AUC and its model, each model's
    AUC, rows (positives) in train and test, the bound and whether it holds. The table is
    about 120 characters wide; narrower, rich cuts its cells."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                  title=f"learned leak scan: {found.scenario}, train seeds "
                        f"{_seeds(found.train_seeds)}, test seeds {_seeds(found.test_seeds)}")
    # The verdict first: a narrow terminal cuts the columns on the right. Each model's own
    # AUC only when both were fitted.
    both = len(found.models) > 1
    heads = [("contrast", False), ("group", False), ("AUC", True), ("bound", True), ("", False),
             ("model", False), *([("logistic", True), ("boosting", True)] if both else []),
             ("train (pos)", True), ("test (pos)", True)]
    for head, right in heads:
        table.add_column(head, justify="right" if right else "left", no_wrap=True,
                         min_width=len(head))
    last = None
    for s in found.scores:
        if last is not None and s.contrast != last:
            table.add_section()
        last = s.contrast
        table.add_row(s.contrast, s.group, _auc(s.auc), _bound(s), _verdict(s),
                      s.model or "too few",
                      *([_auc(s.auc_logistic), _auc(s.auc_boosting)] if both else []),
                      f"{s.n_train} ({s.positives_train})", f"{s.n_test} ({s.positives_test})")
    console = Console(width=width, color_system=None, force_terminal=False,
                      legacy_windows=False, soft_wrap=False)
    with console.capture() as cap:
        console.print(table)
    bad = found.violations()
    tail = (f"{len(bad)} bound(s) broken: "
            + ", ".join(f"{s.contrast}/{s.group} {_auc(s.auc)}" for s in bad)
            if bad else "every bound holds")
    lines = [line.rstrip() for line in cap.get().splitlines()]
    return "\n".join([*lines, f"{tail} ({found.seconds:.0f} s)"])


def _seeds(seeds: tuple[int, ...] | list[int]) -> str:
    s = list(seeds)
    if s and s == list(range(s[0], s[0] + len(s))) and len(s) > 2:
        return f"{s[0]}–{s[-1]}"
    return ", ".join(map(str, s))


def leak_scan_caveat(scan: Mapping[str, Any], scenario: str) -> str | None:
    """The report's line on the small scan a run computed (None if it has none)."""
    if not scan:
        return None
    command = f"`memory-bench leaks --scenario {scan.get('scenario') or scenario}`"
    if "error" in scan:
        return (f"The learned leak scan could not run at the start of this run "
                f"({scan['error']}); {command} runs it.")
    scores = scan.get("scores", [])
    bad = [s for s in scores if s.get("ok") is False]
    shown = "; ".join(f"{s['contrast']} {s['group']} {_auc(s['auc'])}"
                      f" ({'<' if s.get('strict') else '≤'} {s['bound']:g}"
                      f"{', LEAK' if s.get('ok') is False else ''})" for s in scores)
    verdict = (f"{len(bad)} of {len(scores)} bounds broken: the order of calls or the form of "
               "items predicts roles the metrics rely on, and a rule that reads them can gain "
               "without memory" if bad else "every bound holds")
    return (f"Learned leak scan (docs/leaks.md; the small one a run computes: "
            f"{', '.join(scan.get('models', []))} on seeds "
            f"{_seeds(scan.get('train_seeds', []))}, held-out ROC AUC on seeds "
            f"{_seeds(scan.get('test_seeds', []))}, features a backend sees): {verdict}. "
            f"{shown}. The full scan: {command}.")
