"""Tables in the README and docs, written from the result files they cite.

A hand-copied number drifts (README's rerank e2e p50 read 223 where its file says
230.13). Each table instead sits between markers in its document::

    <!-- table:beam begin -->
    | backend | R_any@5 | ...
    <!-- table:beam end -->

and a spec (``docs/tables.toml``) says which files, rows and columns it shows;
``scripts/tables.py`` rewrites every table from the files, ``--check`` says which
differ. A column is ``"HEAD=METRIC:FORMAT"``:

- ``label``: the row's label (no metric);
- ``pm``: mean ± half-width of the 95% t-interval, as the reports write it;
- ``mean``: the mean, in the metric's format;
- ``pm+count`` / ``mean+count``: the same, then the pooled per-question count over
  every seed, ``(hits/questions)`` (a 0/1 metric with per-question outcomes).

A row is ``"LABEL"`` or ``"LABEL@FILE"`` (a key of the spec's ``files``; the
first file by default). ``"A, B = C@FILE"`` (spaces around ``=``) is a row for
backends whose quality equals C's on every seed: ``= C`` and ``=`` under the quality columns, each
backend's own value (comma-joined) under the columns whose format ends in ``!``
(costs: its own latency); a member may name its own file (``B@FILE``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_bench.errors import BadInput
from memory_bench.render.format import NOT_SUPPORTED, cell, num
from memory_bench.results.model import BackendEntry, Result

__all__ = ["TableSpec", "apply_tables", "load_specs", "render_table"]

BEGIN = "<!-- table:{} begin -->"
END = "<!-- table:{} end -->"
FORMATS = ("label", "pm", "mean", "pm+count", "mean+count")


@dataclass(frozen=True)
class Column:
    head: str
    metric: str | None
    fmt: str
    own: bool = False  # a cost: a merged row shows each backend's own value

    @classmethod
    def parse(cls, text: str) -> Column:
        head, eq, rest = text.partition("=")
        metric, _, fmt = rest.rpartition(":") if ":" in rest else ("", "", rest)
        own = fmt.endswith("!")
        fmt = fmt.removesuffix("!")
        if not eq or fmt not in FORMATS or (fmt != "label" and not metric):
            raise BadInput(f"table column {text!r}: expected HEAD=METRIC:FORMAT "
                           f"(FORMAT one of {', '.join(FORMATS)}) or HEAD=label")
        return cls(head, metric or None, fmt, own)


@dataclass(frozen=True)
class TableSpec:
    name: str
    doc: str  # relative to the repository root
    files: dict[str, str]  # key -> result file, relative to the root
    rows: list[str]
    columns: list[Column]


def load_specs(path: Path, *, pending: bool | None = False) -> list[TableSpec]:
    """The tables of a spec file (``[tables.NAME]`` with doc, files, rows, columns):
    those applied now (``pending = False``), those whose markers are not placed yet
    (``True``: rendered, never written), or all (None)."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BadInput(f"{path}: {exc}") from None
    out = []
    for name, t in (data.get("tables") or {}).items():
        if pending is not None and bool(t.get("pending")) != pending:
            continue
        try:
            files = t["files"] if isinstance(t["files"], dict) else {"main": t["files"]}
            out.append(TableSpec(name, t["doc"], dict(files), list(t["rows"]),
                                 [Column.parse(c) for c in t["columns"]]))
        except (KeyError, TypeError) as exc:
            raise BadInput(f"{path}: table {name!r}: missing or malformed {exc}") from None
    return out


def _count(b: BackendEntry, metric: str) -> str:
    hits = total = 0.0
    for run in b.ok_runs():
        for value in run.rows(metric).values():
            if value and value[0] is not None:
                hits, total = hits + value[0], total + 1
    return f" ({hits:.0f}/{total:.0f})" if total else ""


def _value(result: Result, b: BackendEntry, col: Column) -> str:
    assert col.metric is not None
    metric = result.metric(col.metric)
    summary = b.summary.get(col.metric)
    if summary is None or summary.mean is None:
        return NOT_SUPPORTED
    text = cell(summary, metric) if col.fmt.startswith("pm") else num(summary.mean, metric)
    return text + (_count(b, col.metric) if col.fmt.endswith("+count") else "")


def render_table(spec: TableSpec, load: Callable[[str], Result]) -> str:
    """The table's Markdown lines (no markers) from its files, read through ``load``."""
    def find(ref: str) -> tuple[Result, BackendEntry]:
        label, _, key = ref.strip().partition("@")
        path = spec.files.get(key or next(iter(spec.files)))
        if path is None:
            raise BadInput(f"table {spec.name}: row {ref!r} names no file of the spec")
        result = load(path)
        b = result.backend(label.strip())
        if b is None:
            raise BadInput(f"table {spec.name}: no row {label.strip()!r} in {path}")
        return result, b

    lines = ["| " + " | ".join(c.head for c in spec.columns) + " |",
             "|" + "---|" * len(spec.columns)]
    for row in spec.rows:
        names, same, like = row.partition(" = ")
        if same:
            base = like.strip()
            key = base.partition("@")[2]  # a member without its own file: the base's
            members = [find(n.strip() if "@" in n or not key else f"{n.strip()}@{key}")
                       for n in names.split(",")]
            names = ", ".join(n.strip().partition("@")[0] for n in names.split(","))
            cells, first = [], True
            for col in spec.columns:
                if col.fmt == "label":
                    cells.append(names.strip())
                elif col.own:
                    cells.append(", ".join(_value(r, b, col) for r, b in members))
                else:
                    cells.append(f"= {base.partition('@')[0]}" if first else "=")
                    first = False
        else:
            result, b = find(row)
            cells = [b.label if c.fmt == "label" else _value(result, b, c)
                     for c in spec.columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def apply_tables(root: Path, specs: list[TableSpec], load: Callable[[str], Result], *,
                 write: bool) -> list[str]:
    """Rewrite (``write``) or compare each table between its markers; returns the names
    of the tables whose text differed. A missing marker is bad input."""
    changed = []
    texts: dict[str, str] = {}
    for spec in specs:
        text = texts.get(spec.doc)
        if text is None:
            text = texts[spec.doc] = (root / spec.doc).read_text()
        pattern = re.compile(re.escape(BEGIN.format(spec.name)) + r"\n(.*?)\n?"
                             + re.escape(END.format(spec.name)), re.S)
        m = pattern.search(text)
        if m is None:
            raise BadInput(f"{spec.doc}: no {BEGIN.format(spec.name)} … "
                           f"{END.format(spec.name)} markers")
        table = render_table(spec, load)
        if m.group(1).strip() != table:
            changed.append(spec.name)
            texts[spec.doc] = text[:m.start(1)] + table + "\n" + text[m.end(1):].lstrip("\n")
    if write:
        for doc, text in texts.items():
            if (root / doc).read_text() != text:
                (root / doc).write_text(text)
    return changed


def loader(root: Path) -> Callable[[str], Result]:
    """Read (once each) and summarise result files named relative to ``root``."""
    from memory_bench.results.io import load_result

    cache: dict[str, Any] = {}

    def load(path: str) -> Result:
        if path not in cache:
            try:
                cache[path] = load_result(root / path)
            except (OSError, ValueError) as exc:
                raise BadInput(f"{path}: {exc}") from None
        return cache[path]

    return load
