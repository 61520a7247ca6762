"""Label published reports whose result came from a dirty checkout, in place.

Reports rendered before the label existed say nothing about dirty provenance,
although their manifest records it. Re-rendering them would also change
whatever the renderer changed since; this inserts only the label, as the
current renderer writes it (a bold line under the run line, the first caveat),
into the ``.md`` and ``.html`` beside each given result. Idempotent.

    python scripts/label_dirty.py reports/2026-12-02-hard-20261202T042316-bc92.json.gz ...
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

from memory_bench.render.markdown import md_escape, md_prose
from memory_bench.results.io import load_result
from memory_bench.results.manifest import dirty_line

CAVEATS = "What this does not show"


def _md(text: str, line: str) -> str:
    if line in text:
        return text
    head = text.split("\n\n", 2)  # title, run line, the rest
    top = "\n\n".join([*head[:2], f"**{md_escape(line)}**", head[2]])
    mark = f"## {CAVEATS}\n\n"
    return top.replace(mark, f"{mark}- {md_prose(line)}\n", 1)


def _html(text: str, line: str) -> str:
    label = escape(line)
    if label in text:
        return text
    end = text.index("</p>", text.index("<h1>")) + len("</p>")  # the run line
    text = f"{text[:end]}\n<p><b>{label}</b></p>{text[end:]}"
    mark = f"<h2>{CAVEATS}</h2>\n<ul class=\"caveats\">\n"
    return text.replace(mark, f"{mark}<li>{label}</li>\n", 1)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: label_dirty.py RESULT.json.gz ...", file=sys.stderr)
        return 2
    for arg in argv:
        path = Path(arg)
        line = dirty_line(load_result(path).manifest)
        if line is None:
            print(f"{path.name}: clean, left as is")
            continue
        stem = path.name.removesuffix(".gz").removesuffix(".json")
        for ext, insert in ((".md", _md), (".html", _html)):
            report = path.with_name(stem + ext)
            if report.exists():
                report.write_text(insert(report.read_text(), line))
        print(f"{path.name}: labelled dirty")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
