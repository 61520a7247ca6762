"""Move the superseded result sets out of the working tree, onto an archive branch.

A set is superseded when ``reports/headline.toml`` names its scenario and does not
list the set in that scenario's ``results`` or ``also`` (the leaderboard folds the
same sets away). Sets of scenarios the manifest does not name are kept. Each set is
every file of its stem: ``.json.gz`` / ``.json``, ``.md``, ``.html``, ``.csv``, the
PNGs, and a sweep's ``-size-N`` runs.

::

    python scripts/archive_reports.py                # what would move, and what links to it
    python scripts/archive_reports.py --apply        # commit them to the branch, remove here
    python scripts/archive_reports.py --relink       # first: their links become `STEM`

``--apply`` adds the files, as they are at HEAD, to the branch ``reports-archive``
(created when missing; one commit on top of it, made with git's plumbing, so the
working tree and index of the current branch are untouched), then ``git rm``s them
here; commit that removal yourself. Read an archived set with
``git show reports-archive:reports/NAME.md``, or check the branch out beside the
clone (``git worktree add ../memory-bench-archive reports-archive``) and build its
leaderboard (``python -m memory_bench.site ../memory-bench-archive/reports
site/archive``). A README or docs page that links an archived file would break
``make docs``: ``--apply`` refuses (exit 2) while one does, and lists them;
``--relink`` rewrites each run of links to one archived set (``[Markdown](…) · [JSON](…)``)
into the set's name in code type, keeping a descriptive label (``[hard](…)`` becomes
``hard (`STEM`)``), in the README, docs/ and backends/*/README.md; review the diff.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORTS = ROOT / "reports"
BRANCH = "reports-archive"
# <date>-[sweep-]<scenario>-<run id>[-suffix]: a published set's stem
STEM = re.compile(r"^(\d{4}-\d{2}-\d{2})-(sweep-)?(?P<scenario>.+?)-\d{8}T\d{6}-[0-9a-f]{4}"
                  r"(?:-.+)?$")


def _git(*args: str, env: dict[str, str] | None = None, data: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, input=data, capture_output=True,
                          env={**os.environ, **(env or {})}, check=False)
    if done.returncode != 0:
        raise SystemExit(f"archive_reports: git {' '.join(args[:2])} failed: "
                         f"{done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode()


def _stems(reports: Path) -> list[str]:
    names = (p.name for p in reports.iterdir() if p.is_file())
    return sorted({n.removesuffix(".json.gz").removesuffix(".json") for n in names
                   if n.endswith((".json.gz", ".json")) and STEM.match(n.split(".json")[0])})


def _kept(reports: Path) -> dict[str, set[str]]:
    """Scenario -> the stems the manifest keeps (results and also)."""
    path = reports / "headline.toml"
    if not path.is_file():
        raise SystemExit("archive_reports: no reports/headline.toml: nothing is superseded")
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    return {name: {s.removesuffix(".json.gz") for s in (*e.get("results", ()),
                                                         *e.get("also", ()))}
            for name, e in doc.get("scenarios", {}).items()}


def _scenario(reports: Path, stem: str, named: str) -> str:
    """The scenario a result file records (the leaderboard files it by that), else the
    one its name gives (a sweep's summary, a file that cannot be read)."""
    path = reports / f"{stem}.json.gz"
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return str(json.load(fh)["scenario"]["name"])
    except (OSError, ValueError, KeyError, TypeError):
        return named


def superseded_files(reports: Path) -> dict[str, list[Path]]:
    """Superseded stem -> its files under ``reports``."""
    kept = _kept(reports)
    stems = _stems(reports)
    sweeps = {s for s in stems if STEM.match(s) and STEM.match(s).group(2)}  # type: ignore[union-attr]
    out: dict[str, list[Path]] = {}
    for stem in stems:
        m = STEM.match(stem)
        assert m is not None
        owner = next((s for s in sweeps if stem.startswith(f"{s}-size-")), None)
        if owner is not None:
            continue  # a sweep's size: moves (or stays) with its sweep
        # the scenario its name gives; the file's own record where the manifest does not
        # name that one (a name that is not its scenario's, such as a retired one)
        named = m.group("scenario")
        scenario = named if named in kept else _scenario(reports, stem, named)
        if scenario not in kept or stem in kept[scenario]:
            continue
        longer = [s for s in stems if s != stem and s.startswith(stem)]
        files = [p for p in sorted(reports.iterdir()) if p.is_file()
                 and (p.name.startswith(f"{stem}.") or p.name.startswith(f"{stem}-"))
                 and not any(p.name.startswith(f"{s}.") or p.name.startswith(f"{s}-")
                             for s in longer if not s.startswith(f"{stem}-size-"))]
        out[stem] = files
    return out


def archive_ref(root: Path) -> str | None:
    """The archive branch as this clone has it: the local branch, else the remote's (a
    plain clone has only ``origin/reports-archive``); None in a single-branch clone."""
    for ref in (BRANCH, f"origin/{BRANCH}"):
        if subprocess.run(["git", "rev-parse", "--verify", "-q", ref], cwd=root,
                          capture_output=True).returncode == 0:
            return ref
    return None


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
            *sorted(ROOT.glob("backends/*/README.md"))]


def dangling_links(stems: list[str]) -> list[str]:
    """``file:line`` of every README/docs line that links a file of these stems."""
    out = []
    for page in _pages():
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if any(m["name"].startswith((f"{s}.", f"{s}-")) for m in LINK.finditer(line)
                   for s in stems):
                out.append(f"{page.relative_to(ROOT)}:{n}")
    return out


# A Markdown link into reports/ (from the README, docs/ or a backend's README).
LINK = re.compile(r"\[(?P<label>[^\]]+)\]\((?:\.\./)*reports/(?P<name>[^)\s]+)\)")
FORMATS = {"Markdown", "HTML", "CSV", "JSON", "PNG", "report"}
BETWEEN = re.compile(r"\s*[·,]\s*")  # what separates the links of one set


def _stem_of(name: str, stems: list[str]) -> str | None:
    return next((s for s in sorted(stems, key=len, reverse=True)
                 if name.startswith((f"{s}.", f"{s}-"))), None)


def relink(text: str, stems: list[str]) -> str:
    """Each run of links to one of ``stems`` becomes the stem in code type."""
    found, out, pos, i = list(LINK.finditer(text)), [], 0, 0
    while i < len(found):
        stem = _stem_of(found[i]["name"], stems)
        if stem is None:
            i += 1
            continue
        j = i
        while (j + 1 < len(found)
               and BETWEEN.fullmatch(text[found[j].end():found[j + 1].start()])
               and _stem_of(found[j + 1]["name"], stems) == stem):
            j += 1
        words = [m["label"] for m in found[i:j + 1] if m["label"] not in FORMATS]
        out += [text[pos:found[i].start()], f"{words[0]} (`{stem}`)" if words else f"`{stem}`"]
        pos, i = found[j].end(), j + 1
    return "".join(out) + text[pos:]


def archive(files: list[Path]) -> str:
    """Commit ``files`` (as at HEAD) onto BRANCH with a temporary index; its new head."""
    parent = subprocess.run(["git", "rev-parse", "--verify", "-q", f"refs/heads/{BRANCH}"],
                            cwd=ROOT, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        if parent:
            _git("read-tree", parent, env=env)
        rels = [p.relative_to(ROOT).as_posix() for p in files]
        for rel in rels:  # the committed blob, never a local edit
            blob = _git("rev-parse", f"HEAD:{rel}").strip()
            _git("update-index", "--add", "--cacheinfo", f"100644,{blob},{rel}", env=env)
        tree = _git("write-tree", env=env).strip()
    message = (f"Archive {len(files)} superseded report file(s) "
               "(scripts/archive_reports.py; reports/headline.toml)")
    commit = _git("commit-tree", tree, *(["-p", parent] if parent else []), "-m",
                  message).strip()
    _git("update-ref", f"refs/heads/{BRANCH}", commit, *([parent] if parent else []))
    return commit


def main(argv: list[str] | None = None) -> int:
    global ROOT, REPORTS
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--apply", action="store_true", help="archive and remove them here")
    p.add_argument("--relink", action="store_true",
                   help="rewrite the README's and docs' links to them into their names")
    p.add_argument("--root", type=Path, default=ROOT, help="the clone (default: this one)")
    args = p.parse_args(argv)
    ROOT, REPORTS = args.root.resolve(), args.root.resolve() / "reports"
    sets = superseded_files(REPORTS)
    files = [f for fs in sets.values() for f in fs]
    size = sum(f.stat().st_size for f in files)
    for stem, fs in sets.items():
        print(f"{stem}: {len(fs)} file(s), {sum(f.stat().st_size for f in fs) / 2**20:.1f} MB")
    print(f"{len(sets)} superseded set(s), {len(files)} file(s), {size / 2**20:.1f} MB")
    if args.relink:
        for page in _pages():
            text = page.read_text(encoding="utf-8")
            if (new := relink(text, list(sets))) != text:
                page.write_text(new, encoding="utf-8")
                print(f"relinked {page.relative_to(ROOT)}")
    links = dangling_links(list(sets))
    if links:
        print(f"{len(links)} line(s) of the README and docs link them: "
              + ", ".join(links), file=sys.stderr)
    if not args.apply or not files:
        return 0
    if links:
        print("archive_reports: point those links at the archive branch (or drop them) "
              "first: make docs would fail", file=sys.stderr)
        return 2
    dirty = _git("status", "--porcelain", "--", *(str(f.relative_to(ROOT)) for f in files))
    if dirty.strip():
        print(f"archive_reports: uncommitted changes to files it would move:\n{dirty}",
              file=sys.stderr)
        return 2
    commit = archive(files)
    _git("rm", "-q", "--", *(str(f.relative_to(ROOT)) for f in files))
    print(f"archived on {BRANCH} ({commit[:12]}); removed here: commit the removal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
