"""The leaderboard: a static site of every run published under reports/.

``build_site(reports_dir, out_dir)`` reads every result file with the project's own
reader (``memory_bench.results.io``) and writes an index, a page per scenario with
sortable tables (a small script of its own, no network), each run's plots and links
to its report set, copied beside the pages so the directory can be served or opened
anywhere. ``python -m memory_bench.site [REPORTS] [OUT]`` (``make site``) runs it.

The output directory is the site's own: it is replaced whole by the next build,
and a directory the builder did not make is never replaced (an empty one is filled in
place; one holding anything else is refused). ``out`` given as a symlink is resolved
first, so the link and the directory it names are kept. A file that cannot be shown (a
damaged or hand-edited result, a link out of the reports) is skipped with one line, the
rest published (``strict``: refused, nothing written). Ctrl-C or SIGTERM at any moment
leaves the previous site whole and no temporary directory behind.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from memory_bench.errors import BadInput, printable
from memory_bench.interrupts import SIGNALS
from memory_bench.site.collect import Published, PublishedRun, PublishedSweep, collect, inside
from memory_bench.site.headline import MANIFEST, Headline, load_headlines, status_of

__all__ = ["BUDGET", "INTERRUPTED", "MARKER", "SiteError", "SiteSummary", "build_site"]

MARKER = ".memory-bench-site"  # in every directory build_site made: it may replace it
# The site's size budget: pages, plots and report sets (reports/ is ~97 MB, ~84 MB of
# it result JSON, which the site links instead of copying; the site was a copy of it all).
BUDGET = 25 * 2**20
STATIC = ("site.css", "sort.js")
INTERRUPTED = ("interrupted; the previous site (if any) is whole and nothing temporary "
               "is left")


class SiteError(BadInput):
    """Bad input to the builder: one line, nothing written."""


@dataclass(frozen=True)
class SiteSummary:
    out_dir: Path
    pages: tuple[str, ...]
    runs: int
    sweeps: int
    skipped: tuple[tuple[str, str], ...]
    bytes: int = 0  # the built site's size


def _check(reports: Path, out: Path, target: Path) -> None:
    """``target``: ``out`` resolved (through any symlink), where the site goes."""
    if not reports.is_dir():
        raise SiteError(f"{printable(reports)} is not a directory of published results")
    r = reports.resolve()
    if target == r or target.is_relative_to(r) or r.is_relative_to(target):
        raise SiteError(f"the site ({printable(out)}) and the reports ({printable(reports)}) "
                        "must not contain each other")
    if target.exists() and (not target.is_dir() or (any(target.iterdir())
                                                    and not (target / MARKER).is_file())):
        raise SiteError(f"{printable(out)} exists and is not a site built by memory-bench: "
                        "it is never overwritten")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def _remove_leftovers(out: Path) -> None:
    """A build killed mid-way leaves its ``.NAME.new-PID-*`` directory, or, between
    its two renames, the previous site as ``.NAME.old-PID``: removed once that PID
    is gone. Only names this builder makes, and only of dead builds."""
    for p in out.parent.glob(f".{out.name}.*-*"):
        kind, _, rest = p.name[len(out.name) + 2:].partition("-")
        pid = rest.split("-", 1)[0]
        if kind not in ("new", "old") or not pid.isdigit() or not p.is_dir() \
                or p.is_symlink() or _alive(int(pid)):
            continue
        if kind == "old" and not (p / MARKER).is_file():
            continue  # a site is renamed to .old only with its marker
        shutil.rmtree(p, ignore_errors=True)


def _copy_files(published: Published, root: Path, dest: Path, site: Path
                ) -> dict[str, dict[str, str]]:
    """Each run's and sweep's files into ``dest/files``; their links from the pages.
    Each is resolved again as it is copied: only a file inside ``root`` is read. A
    result's JSON (``.json.gz``: 84 of reports/' 97 MB) is not copied: its link points
    at the file in reports/, relative to where the site will be (``site``), so the
    site keeps its budget and the data stays where it is published."""
    files = dest / "files"
    files.mkdir()
    hrefs: dict[str, dict[str, str]] = {}
    for entry in [*published.runs, *published.sweeps]:
        links = {}
        for kind, path in entry.files.items():
            real = inside(path, root)
            if real is None:  # replaced by a link since it was collected
                continue
            if kind == "json" and path.name.endswith(".json.gz"):
                links[kind] = Path(os.path.relpath(path.absolute(), site.absolute())).as_posix()
                continue
            shutil.copyfile(real, files / path.name)
            links[kind] = f"files/{path.name}"
        hrefs[entry.stem] = links
    return hrefs


def _unshowable(published: Published) -> None:
    """Move each run whose table or heading cannot be rendered (a hand-edited value
    of the wrong type, say) to ``skipped``: one bad file never stops the site."""
    from memory_bench.site.pages import _run_line, run_table

    kept: list[PublishedRun] = []
    for run in published.runs:
        try:
            _run_line(run)
            run_table(run.result)
        except (ValueError, TypeError, KeyError, AttributeError, ArithmeticError) as exc:
            name = run.files["json"].name if "json" in run.files else run.stem
            published.skipped.append((name, f"cannot be shown: {type(exc).__name__}: "
                                            f"{printable(exc, 200)}"))
        else:
            kept.append(run)
    published.runs = kept


@contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait (blocked, not dropped) while the site is swapped, so an
    interrupt never leaves the previous site renamed away and the new one not in place."""
    try:
        old = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    except (ValueError, OSError):  # not the main thread's to block
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _publish(tmp: Path, target: Path) -> None:
    """Put the complete site ``tmp`` at ``target``: a previous site is replaced whole;
    an empty directory of the user's is kept and filled (the marker last)."""
    with _signals_held():
        if not target.exists():
            tmp.rename(target)
        elif (target / MARKER).is_file():
            old = target.with_name(f".{target.name}.old-{os.getpid()}")
            target.rename(old)
            tmp.rename(target)
            shutil.rmtree(old)
        else:  # empty (checked): the user's directory, filled in place
            names = sorted(p.name for p in tmp.iterdir() if p.name != MARKER)
            moved = []
            try:
                for name in [*names, MARKER]:
                    (tmp / name).rename(target / name)
                    moved.append(name)
            except BaseException:
                for name in moved:
                    q = target / name
                    shutil.rmtree(q) if q.is_dir() else q.unlink()
                raise
            tmp.rmdir()


def _size(directory: Path) -> int:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())


def _statuses(published: Published, headlines: dict[str, Headline]
              ) -> tuple[Callable[[Any], str], list[tuple[str, str]]]:
    """A run's or sweep's place (headline, current, superseded), and a line for each
    stem the manifest names that is not published."""
    sweeps = {s.stem: s for s in published.sweeps}

    def status(entry: Any) -> str:
        if isinstance(entry, PublishedSweep):
            return status_of(entry.stem, str(entry.summary.get("scenario")), headlines)
        if entry.sweep is not None and entry.sweep in sweeps:
            return status(sweeps[entry.sweep])
        return status_of(entry.stem, entry.scenario.name, headlines)

    known = {r.stem for r in published.runs} | set(sweeps)
    missing = [(MANIFEST, f"names {stem}, which is not published here")
               for h in headlines.values() for stem in (*h.results, *h.also)
               if stem not in known]
    return status, missing


def build_site(reports_dir: Path, out_dir: Path, *, strict: bool = False,
               say: Callable[[str], None] | None = None) -> SiteSummary:
    """Build the leaderboard of ``reports_dir`` into ``out_dir`` (replaced whole);
    ``say`` gets a line per step and per result file read.

    ``strict``: a file that would be skipped is a SiteError instead, nothing written."""
    from memory_bench.site.pages import index_page, scenario_file, scenario_page

    def note(message: str) -> None:
        if say is not None:
            say(message)

    reports_dir, out_dir = Path(reports_dir), Path(out_dir)
    target = out_dir.resolve()  # through a symlink: the link itself is never renamed
    _check(reports_dir, out_dir, target)
    headlines = load_headlines(reports_dir)
    t0 = time.monotonic()
    published = collect(reports_dir, on_file=lambda i, n, name: note(
        f"reading {i}/{n} {name} ({time.monotonic() - t0:.0f} s)"))
    _unshowable(published)
    status, missing = _statuses(published, headlines)
    published.skipped.extend(missing)
    if strict and published.skipped:
        name, why = published.skipped[0]
        raise SiteError(f"--strict: {len(published.skipped)} file(s) of {printable(reports_dir)} "
                        f"cannot be published, first {printable(name)}: {printable(why)}")
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(target)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-{os.getpid()}-",
                                dir=target.parent))
    try:
        os.chmod(tmp, 0o755)
        note("copying the report sets (result JSON is linked in reports/, not copied)")
        hrefs = _copy_files(published, reports_dir.resolve(), tmp, out_dir)
        for name in STATIC:
            (tmp / name).write_bytes(resources.files(__package__).joinpath(
                "static", name).read_bytes())
        by_scenario = published.scenarios()
        nav = [("Leaderboard", "index.html"),
               *((name, scenario_file(name)) for name in by_scenario)]
        note(f"writing {len(by_scenario) + 1} pages")
        pages = {"index.html": index_page(published, hrefs, nav, headlines, status)}
        for name, runs in by_scenario.items():
            sweeps = [s for s in published.sweeps if s.summary.get("scenario") == name]
            pages[scenario_file(name)] = scenario_page(name, runs, sweeps, hrefs, nav,
                                                       status)
        for page, html in pages.items():
            (tmp / page).write_text(html, encoding="utf-8")
        (tmp / MARKER).write_text("built by memory_bench.site; replaced whole by the next "
                                  "build\n")
        _publish(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    size = _size(out_dir)
    note(f"{size / 2**20:.1f} MB in {time.monotonic() - t0:.0f} s (budget {BUDGET // 2**20} MB)"
         + ("" if size <= BUDGET else ": OVER BUDGET, see docs/usage.md"))
    return SiteSummary(out_dir, tuple(pages), len(published.runs), len(published.sweeps),
                       tuple(published.skipped), size)
