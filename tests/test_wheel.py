"""``pip install`` of the built wheels gives a working ``memory-bench``: the smoke
scenario runs from a fresh virtual environment, in a directory with no checkout, and
``memory_bench.run`` works there too.

Offline and quick: the wheels of memory-bench and the bm25 backend are built here
(``pip wheel --no-deps --no-build-isolation``) and installed with ``--no-index
--no-deps``; their dependencies (numpy, scipy, ...) come from this interpreter's
environment, through a directory of links to exactly their files, so that nothing else
of it (the checkout's editable installs) is visible in the fresh one."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ROOT / "backends"


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(names: list[str]) -> dict[str, metadata.Distribution]:
    """The installed distributions ``names`` need, transitively (markers evaluated)."""
    from packaging.markers import Marker

    seen: dict[str, metadata.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        if _key(name) in seen or _key(name).startswith("memory-bench"):
            continue
        dist = metadata.distribution(name)
        seen[_key(name)] = dist
        for req in dist.requires or []:
            spec, _, marker = req.partition(";")
            if marker and ("extra" in marker or not Marker(marker).evaluate()):
                continue
            todo.append(re.match(r"[A-Za-z0-9_.-]+", spec.strip()).group(0))  # type: ignore[union-attr]
    return seen


def _link_dependencies(deps: Path, names: list[str]) -> None:
    """Links in ``deps`` to the top-level files and dist-info of each distribution."""
    deps.mkdir()
    for dist in _requirements(names).values():
        for top in {Path(str(f)).parts[0] for f in dist.files or []}:
            src = Path(str(dist.locate_file(top)))
            if top.endswith(".pth") or top in ("..", "bin") or not src.exists():
                continue
            if not (deps / top).exists():
                (deps / top).symlink_to(src)


def _dependencies(pyproject: Path) -> list[str]:
    deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    return [re.match(r"[A-Za-z0-9_.-]+", d).group(0) for d in deps]  # type: ignore[union-attr]


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_runs_the_smoke_scenario(tmp_path: Path) -> None:
    wheels, venv, deps, work = (tmp_path / n for n in ("wheels", "venv", "deps", "work"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "MEMORY_BENCH"))}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(wheels), str(ROOT), str(BACKENDS / "bm25")],
        capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert build.returncode == 0, build.stderr[-2000:]
    built = sorted(p.name for p in wheels.glob("*.whl"))
    assert [n.split("-")[0] for n in built] == ["memory_bench", "memory_bench_bm25"]
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   env=env, timeout=300)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                "['purelib'])"], capture_output=True, text=True,
                               check=True).stdout.strip())
    _link_dependencies(deps, [*_dependencies(ROOT / "pyproject.toml"),
                              *[d for d in _dependencies(BACKENDS / "bm25" / "pyproject.toml")
                                if not d.startswith("memory-bench")]])
    (site / "_deps.pth").write_text(f"{deps}\n")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-index",
         "--no-deps", *map(str, sorted(wheels.glob("*.whl")))],
        capture_output=True, text=True, env=env, timeout=600)
    if install.returncode != 0 and "no such option: --python" in install.stderr:
        pytest.skip("this pip cannot install into another environment (--python)")
    assert install.returncode == 0, install.stderr[-2000:]

    work.mkdir()  # no scenarios/ here: the wheel's own scenario files are used
    exe = venv / "bin" / "memory-bench"
    listed = subprocess.run([str(exe), "backends"], capture_output=True, text=True, env=env,
                            cwd=work, timeout=300)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split()[:2] == ["bm25", "baseline"] and "BROKEN" not in listed.stdout
    out = subprocess.run([str(exe), "run", "--scenario", "smoke", "--backend", "bm25",
                          "--seeds", "1", "--out", "r.json", "--quiet"],
                         capture_output=True, text=True, env=env, cwd=work, timeout=600)
    assert out.returncode == 0, out.stderr
    doc = json.loads((work / "r.json").read_text())
    assert doc["status"] == "complete" and doc["backends"][0]["runs"][0]["status"] == "ok"
    code = ("import memory_bench, sys; r = memory_bench.run(scenario='smoke', "
            "backends=['bm25'], seed=1, out='api.json'); "
            "print(memory_bench.__file__); print(r.status, len(r.backends[0].runs))")
    api = subprocess.run([str(py), "-c", code], capture_output=True, text=True, env=env,
                         cwd=work, timeout=600)
    assert api.returncode == 0, api.stderr
    where, status = api.stdout.splitlines()
    assert where.startswith(str(site)) and status == "complete 1"  # the wheel's, not ours


def test_every_first_party_backend_has_an_extra() -> None:
    """``memory-bench[NAME]`` for every backend distribution (not the shared embedder
    and spaCy model, which backends pull in themselves), and ``[all]`` holds them all."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    libraries = {"memory-bench-embed", "memory-bench-spacy-en"}
    dists = {tomllib.loads(p.read_text())["project"]["name"]
             for p in BACKENDS.glob("*/pyproject.toml")} - libraries
    named = {re.match(r"[A-Za-z0-9_.-]+", r).group(0) for r in extras["all"]}  # type: ignore[union-attr]
    assert named == dists
    for dist in dists:
        short = dist.removeprefix("memory-bench-")
        assert [re.match(r"[A-Za-z0-9_.-]+", r).group(0) for r in extras[short]] == [dist]  # type: ignore[union-attr]
