"""`--save` publishes only from a clean checkout unless told otherwise; a result from a
dirty one records its diff's hash and says "dirty" in its report and on the site."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from archive_script import archive_script

RUN = ("run", "--backend", "fake-noprov", "--scenario", "smoke", "--seed", "0", "--quiet")


def _git(cwd: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True).stdout


def _checkout(cwd: Path) -> None:
    _git(cwd, "init", "-q")
    _git(cwd, "add", "scenarios")
    _git(cwd, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "scenarios")


def _published(cwd: Path) -> dict:
    (path,) = (cwd / "reports").glob("*.json.gz")
    return json.loads(gzip.decompress(path.read_bytes()))


def test_save_refuses_a_dirty_checkout_and_writes_nothing(cli) -> None:
    _checkout(cli.cwd)
    smoke = cli.cwd / "scenarios" / "smoke.toml"
    smoke.write_text(smoke.read_text() + "\n# an uncommitted change\n")
    out = cli(*RUN, "--save")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "uncommitted changes" in out.stderr
    assert "--allow-dirty" in out.stderr and out.stdout == ""
    assert not (cli.cwd / "reports").exists() and not (cli.cwd / "runs").exists()


def test_allow_dirty_records_the_diff_hash_and_labels_the_report_and_site(cli) -> None:
    _checkout(cli.cwd)
    smoke = cli.cwd / "scenarios" / "smoke.toml"
    smoke.write_text(smoke.read_text() + "\n# an uncommitted change\n")
    out = cli(*RUN, "--save", "--allow-dirty")
    assert out.returncode == 0, out.stderr
    git = _published(cli.cwd)["manifest"]["git"]
    diff = _git(cli.cwd, "diff", "HEAD", "--binary")
    assert git["dirty"] is True and git["diff_sha256"] == hashlib.sha256(diff).hexdigest()
    (md,) = (cli.cwd / "reports").glob("*.md")
    text = md.read_text()
    assert text.count("Dirty provenance: this result was made from a checkout with "
                      f"uncommitted changes on commit {git['commit'][:12]}") == 2
    assert git["diff_sha256"][:16] in text
    assert "Dirty provenance" in next((cli.cwd / "reports").glob("*.html")).read_text()
    site = cli("site", "reports", "site")
    assert site.returncode == 0, site.stderr
    index = (cli.cwd / "site" / "index.html").read_text()
    assert "complete · dirty" in index


def test_a_clean_checkout_saves_without_a_label(cli) -> None:
    _checkout(cli.cwd)
    out = cli(*RUN, "--save")
    assert out.returncode == 0, out.stderr
    assert _published(cli.cwd)["manifest"]["git"] == {
        "commit": _git(cli.cwd, "rev-parse", "HEAD").decode().strip(), "dirty": False}
    (md,) = (cli.cwd / "reports").glob("*.md")
    assert "Dirty provenance" not in md.read_text()
    assert cli("site", "reports", "site").returncode == 0
    assert "dirty" not in (cli.cwd / "site" / "index.html").read_text()


def test_the_relabelled_published_files_say_dirty() -> None:
    """The three 2026-12-02 files made at 8646467 with uncommitted changes (archived on the
    branch reports-archive with the rest of the phased stream's sets)."""
    root = Path(__file__).resolve().parents[1]
    ref = archive_script().archive_ref(root)
    if ref is None:
        pytest.skip("no reports-archive branch in this clone (a single-branch clone)")
    for stem in ("2026-12-02-hard-20261202T042316-bc92", "2026-12-02-hard-20261202T042517-4c51",
                 "2026-12-02-natural-20261202T043601-3480"):
        for ext in (".md", ".html"):
            text = subprocess.run(["git", "show", f"{ref}:reports/{stem}{ext}"], cwd=root,
                                  capture_output=True, text=True, check=True).stdout
            assert text.count("Dirty provenance: this result was made from a checkout with "
                              "uncommitted changes on commit 86464677255a") == 2, stem + ext
