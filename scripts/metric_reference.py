"""docs/metrics.md, generated from the code: every metric a first-party scenario declares.

``python scripts/metric_reference.py`` rewrites the page; ``--check`` exits 1 when the
page differs from what the code declares (``tests/test_docs_match_code.py`` runs the
same comparison), so a metric added, renamed or redescribed cannot go undocumented.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "metrics.md"

HEAD = """# Every metric, by scenario

Generated from the code by `scripts/metric_reference.py` (do not edit: run it after
changing a metric; `tests/test_docs_match_code.py` fails while this page is stale).
What the continual metrics measure and why: [What is measured](what-is-measured.md);
the retrieval metrics of the dataset scenarios: [Real datasets](datasets.md).
A metric that needs a capability is empty (—) for a backend without it.

| metric | label | better | needs | scenarios | what it is |
|---|---|---|---|---|---|
"""


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def render() -> str:
    """The page, from the first-party scenario generators (no entry points)."""
    from memory_bench.plugins import load_plugins

    specs: dict[str, Any] = {}
    where: dict[str, list[str]] = {}
    for gen in load_plugins(autoload=False).scenarios.all():
        for m in gen.metrics:
            specs.setdefault(m.name, m.spec)
            where.setdefault(m.name, []).append(gen.name)
    rows = []
    for name in sorted(specs, key=str.lower):
        m = specs[name]
        better = "higher" if m.higher_is_better else "lower"
        needs = f"`{m.needs}`" if m.needs else ""
        rows.append(f"| `{name}` | {_cell(m.label)} | {better} | {needs} | "
                    f"{', '.join(sorted(where[name]))} | {_cell(m.description)} |")
    return HEAD + "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="exit 1 if docs/metrics.md is stale")
    args = p.parse_args(argv)
    text = render()
    if args.check:
        if PAGE.read_text(encoding="utf-8") != text:
            print("docs/metrics.md is stale: run python scripts/metric_reference.py",
                  file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"docs/metrics.md: {text.count(chr(10)) - HEAD.count(chr(10))} metrics")
    return 0


if __name__ == "__main__":
    sys.exit(main())
